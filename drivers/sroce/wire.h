/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The InfiniBand transport headers as they are on the wire (IBTA 1.4,
 * chapter 9, annex A17 for RoCEv2; the FETH: IBTA 1.5, annex A19). Every
 * multi-byte field is big endian and typed so; sub-byte and 24-bit fields
 * are reached only through the accessors below, never by hand.
 */
#ifndef _SROCE_WIRE_H
#define _SROCE_WIRE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#define SROCE_24BIT_MASK	GENMASK(23, 0)

/**
 * struct sroce_bth - Base Transport Header, 12 bytes
 * @opcode: transport (bits 7-5) and operation (bits 4-0)
 * @flags: SE (bit 7), MigReq (bit 6), PadCnt (bits 5-4), TVer (bits 3-0)
 * @pkey: partition key
 * @dqpn: FECN (bit 31), BECN (bit 30), reserved (29-24), DestQP (23-0)
 * @apsn: AckReq (bit 31), reserved (30-24), PSN (23-0)
 */
struct sroce_bth {
	u8 opcode;
	u8 flags;
	__be16 pkey;
	__be32 dqpn;
	__be32 apsn;
} __packed;

#define SROCE_BTH_SE		BIT(7)
#define SROCE_BTH_MIG		BIT(6)
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_PAD_MASK	GENMASK(5, 4)
#define SROCE_BTH_TVER_MASK	GENMASK(3, 0)
#define SROCE_BTH_FECN		BIT(31)
#define SROCE_BTH_BECN		BIT(30)
#define SROCE_BTH_ACKREQ	BIT(31)
/* The reserved bytes after a CNP's BTH (annex A17.9.2). */
#define SROCE_CNP_RESERVED	16
/* The byte of dqpn that the ICRC treats as variant (FECN, BECN, resv6). */
#define SROCE_BTH_VARIANT_BYTE	4

/**
 * struct sroce_reth - RDMA Extended Transport Header, 16 bytes
 * @va: remote virtual address
 * @rkey: remote key
 * @dma_len: length of the whole RDMA operation
 */
struct sroce_reth {
	__be64 va;
	__be32 rkey;
	__be32 dma_len;
} __packed;

/**
 * struct sroce_feth - FLUSH Extended Transport Header, 4 bytes (IBTA 1.5)
 * @bits: reserved (bits 31-6), selectivity level (bits 5-4), placement
 *	type (bits 3-0)
 */
struct sroce_feth {
	__be32 bits;
} __packed;

#define SROCE_FETH_PLT_MASK	GENMASK(3, 0)
#define SROCE_FETH_SEL_SHIFT	4
#define SROCE_FETH_SEL_MASK	GENMASK(5, 4)

/**
 * struct sroce_aeth - ACK Extended Transport Header, 4 bytes
 * @smsn: syndrome (bits 31-24) and MSN (bits 23-0)
 */
struct sroce_aeth {
	__be32 smsn;
} __packed;

/**
 * struct sroce_atomic_eth - Atomic Extended Transport Header, 28 bytes
 * @va: remote virtual address, 8-byte aligned
 * @rkey: remote key
 * @swap_add: value to swap in, or to add
 * @compare: value to compare with (compare and swap only)
 */
struct sroce_atomic_eth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __packed;

/**
 * struct sroce_atomic_ack_eth - Atomic ACK Extended Transport Header
 * @orig: the remote value before the atomic operation
 */
struct sroce_atomic_ack_eth {
	__be64 orig;
} __packed;

/**
 * struct sroce_immdt - Immediate Data header, 4 bytes
 * @imm: immediate data, opaque
 */
struct sroce_immdt {
	__be32 imm;
} __packed;

/**
 * struct sroce_ieth - Invalidate Extended Transport Header, 4 bytes
 * @rkey: the remote key to invalidate
 */
struct sroce_ieth {
	__be32 rkey;
} __packed;

/**
 * struct sroce_deth - Datagram Extended Transport Header, 8 bytes
 * @qkey: queue key
 * @sqpn: reserved (bits 31-24) and source QP (bits 23-0)
 */
struct sroce_deth {
	__be32 qkey;
	__be32 sqpn;
} __packed;

/**
 * struct sroce_xrceth - XRC Extended Transport Header, 4 bytes
 * @srqn: reserved (bits 31-24) and XRC SRQ number (bits 23-0)
 */
struct sroce_xrceth {
	__be32 srqn;
} __packed;

/*
 * Bytes at the head of every UD receive buffer for the sender's network
 * header: RoCEv2 puts an IPv6 header there, or an IPv4 header in the
 * last 20 (the RoCEv2 annex).
 */
#define SROCE_GRH_BYTES		40

/*
 * RoCE v1 (IBTA annex A16): the Ethernet payload is a GRH (struct ib_grh,
 * an IPv6 header's layout) whose next header is the BTH.
 */
#define SROCE_GRH_IPVER		6
#define SROCE_GRH_NEXT_HDR	0x1b

static_assert(sizeof(struct sroce_bth) == 12);
static_assert(sizeof(struct sroce_reth) == 16);
static_assert(sizeof(struct sroce_feth) == 4);
static_assert(sizeof(struct sroce_aeth) == 4);
static_assert(sizeof(struct sroce_atomic_eth) == 28);
static_assert(sizeof(struct sroce_atomic_ack_eth) == 8);
static_assert(sizeof(struct sroce_immdt) == 4);
static_assert(sizeof(struct sroce_ieth) == 4);
static_assert(sizeof(struct sroce_deth) == 8);
static_assert(sizeof(struct sroce_xrceth) == 4);

/* Invariant CRC trailer and the BTH transport version we speak. */
#define SROCE_ICRC_BYTES	4
#define SROCE_BTH_TVER		0

/* A 32-bit word whose low 24 bits are a field and high 8 bits another. */
static inline u32 sroce_low24(__be32 word)
{
	return be32_to_cpu(word) & SROCE_24BIT_MASK;
}

static inline __be32 sroce_with_low24(__be32 word, u32 val)
{
	return cpu_to_be32((be32_to_cpu(word) & ~SROCE_24BIT_MASK) |
			   (val & SROCE_24BIT_MASK));
}

static inline bool sroce_bit(__be32 word, u32 bit)
{
	return be32_to_cpu(word) & bit;
}

static inline __be32 sroce_with_bit(__be32 word, u32 bit, bool on)
{
	u32 v = be32_to_cpu(word);

	return cpu_to_be32(on ? v | bit : v & ~bit);
}

/* BTH accessors. */
static inline u32 sroce_bth_qpn(const struct sroce_bth *bth)
{
	return sroce_low24(bth->dqpn);
}

static inline void sroce_bth_set_qpn(struct sroce_bth *bth, u32 qpn)
{
	bth->dqpn = sroce_with_low24(bth->dqpn, qpn);
}

static inline u32 sroce_bth_psn(const struct sroce_bth *bth)
{
	return sroce_low24(bth->apsn);
}

static inline void sroce_bth_set_psn(struct sroce_bth *bth, u32 psn)
{
	bth->apsn = sroce_with_low24(bth->apsn, psn);
}

static inline bool sroce_bth_ackreq(const struct sroce_bth *bth)
{
	return sroce_bit(bth->apsn, SROCE_BTH_ACKREQ);
}

static inline void sroce_bth_set_ackreq(struct sroce_bth *bth, bool on)
{
	bth->apsn = sroce_with_bit(bth->apsn, SROCE_BTH_ACKREQ, on);
}

static inline bool sroce_bth_fecn(const struct sroce_bth *bth)
{
	return sroce_bit(bth->dqpn, SROCE_BTH_FECN);
}

static inline void sroce_bth_set_fecn(struct sroce_bth *bth, bool on)
{
	bth->dqpn = sroce_with_bit(bth->dqpn, SROCE_BTH_FECN, on);
}

static inline bool sroce_bth_becn(const struct sroce_bth *bth)
{
	return sroce_bit(bth->dqpn, SROCE_BTH_BECN);
}

static inline void sroce_bth_set_becn(struct sroce_bth *bth, bool on)
{
	bth->dqpn = sroce_with_bit(bth->dqpn, SROCE_BTH_BECN, on);
}

static inline bool sroce_bth_se(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_SE;
}

static inline bool sroce_bth_mig(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_MIG;
}

static inline u8 sroce_bth_pad(const struct sroce_bth *bth)
{
	return (bth->flags & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
}

static inline u8 sroce_bth_tver(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_TVER_MASK;
}

/**
 * sroce_bth_init() - fill a BTH
 * @bth: header to fill
 * @opcode: IBTA opcode
 * @se: solicited event
 * @pad: pad count, 0 to 3
 * @pkey: partition key
 * @qpn: destination QP, 24 bits
 * @psn: packet sequence number, 24 bits
 * @ackreq: ask for an acknowledgment
 *
 * MigReq stays clear, as rdma_rxe sends it: without automatic path
 * migration receivers ignore it. Out-of-range values are truncated to
 * their field.
 *
 * Context: any.
 */
static inline void sroce_bth_init(struct sroce_bth *bth, u8 opcode, bool se,
				  u8 pad, u16 pkey, u32 qpn, u32 psn,
				  bool ackreq)
{
	bth->opcode = opcode;
	bth->flags = (se ? SROCE_BTH_SE : 0) |
		     ((pad << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK) |
		     SROCE_BTH_TVER;
	bth->pkey = cpu_to_be16(pkey);
	bth->dqpn = cpu_to_be32(qpn & SROCE_24BIT_MASK);
	bth->apsn = cpu_to_be32((ackreq ? SROCE_BTH_ACKREQ : 0) |
				(psn & SROCE_24BIT_MASK));
}

/* AETH: syndrome and MSN. */
static inline u8 sroce_aeth_syndrome(const struct sroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> 24;
}

static inline u32 sroce_aeth_msn(const struct sroce_aeth *aeth)
{
	return sroce_low24(aeth->smsn);
}

static inline void sroce_aeth_set(struct sroce_aeth *aeth, u8 syndrome,
				  u32 msn)
{
	aeth->smsn = cpu_to_be32((u32)syndrome << 24 | (msn & SROCE_24BIT_MASK));
}

/* FETH: placement type (what kind of flush) and selectivity level (where). */
static inline u8 sroce_feth_plt(const struct sroce_feth *feth)
{
	return be32_to_cpu(feth->bits) & SROCE_FETH_PLT_MASK;
}

static inline u8 sroce_feth_sel(const struct sroce_feth *feth)
{
	return (be32_to_cpu(feth->bits) & SROCE_FETH_SEL_MASK) >>
	       SROCE_FETH_SEL_SHIFT;
}

static inline void sroce_feth_set(struct sroce_feth *feth, u8 plt, u8 sel)
{
	feth->bits = cpu_to_be32((plt & SROCE_FETH_PLT_MASK) |
				 ((sel << SROCE_FETH_SEL_SHIFT) &
				  SROCE_FETH_SEL_MASK));
}

/* DETH source QP and XRCETH SRQ number: the low 24 bits. */
static inline u32 sroce_deth_sqpn(const struct sroce_deth *deth)
{
	return sroce_low24(deth->sqpn);
}

static inline void sroce_deth_set(struct sroce_deth *deth, u32 qkey, u32 sqpn)
{
	deth->qkey = cpu_to_be32(qkey);
	deth->sqpn = cpu_to_be32(sqpn & SROCE_24BIT_MASK);
}

static inline u32 sroce_xrceth_srqn(const struct sroce_xrceth *x)
{
	return sroce_low24(x->srqn);
}

static inline void sroce_xrceth_set(struct sroce_xrceth *x, u32 srqn)
{
	x->srqn = cpu_to_be32(srqn & SROCE_24BIT_MASK);
}

/* AETH syndromes (IBTA 9.7.5.1.1): type in bits 7-5, value in bits 4-0. */
#define SROCE_AETH_ACK		0x00	/* | credit count */
#define SROCE_AETH_RNR_NAK	0x20	/* | timer code */
#define SROCE_AETH_NAK		0x60	/* | NAK code below */
#define SROCE_AETH_TYPE_MASK	0xe0
#define SROCE_AETH_NO_CREDIT	0x1f	/* ACK: credit count "invalid" */
#define SROCE_NAK_PSN_SEQ_ERR	0
#define SROCE_NAK_INV_REQ	1
#define SROCE_NAK_REM_ACCESS	2
#define SROCE_NAK_REM_OP_ERR	3
#define SROCE_NAK_INV_RD_REQ	4

#endif /* _SROCE_WIRE_H */
