// SPDX-License-Identifier: GPL-2.0
/*
 * The opcode table: one row per operation (the low five bits), saying on
 * which transports it exists. Transport-specific headers (DETH for UD,
 * XRCETH for XRC requests) are added by rule rather than spelled out per
 * transport, and a row with no transport is a reserved operation.
 */
#include <kunit/visibility.h>
#include <linux/export.h>

#include "opcode.h"
#include "wire.h"

#define TR(t)		BIT(SROCE_TR_##t)
#define CONNECTED	(TR(RC) | TR(XRC))
#define ANY_SEND	(TR(RC) | TR(UC) | TR(XRC))

/**
 * struct sroce_op_row - one operation
 * @transports: bit set of the SROCE_TR_* it exists on; 0 for reserved
 * @cls: &enum sroce_op_class
 * @pos: &enum sroce_op_pos
 * @hdrs: SROCE_HDR_* it carries on any transport
 */
struct sroce_op_row {
	u8 transports;
	u8 cls;
	u8 pos;
	u16 hdrs;
};

#define ROW(tr, c, p, h) { .transports = (tr), .cls = SROCE_CLASS_##c, \
			   .pos = SROCE_POS_##p, .hdrs = (h) }
#define PL	SROCE_HDR_PAYLOAD

static const struct sroce_op_row sroce_op_rows[32] = {
	[SROCE_OP_SEND_FIRST]	= ROW(ANY_SEND, SEND, FIRST, PL),
	[SROCE_OP_SEND_MIDDLE]	= ROW(ANY_SEND, SEND, MIDDLE, PL),
	[SROCE_OP_SEND_LAST]	= ROW(ANY_SEND, SEND, LAST, PL),
	[SROCE_OP_SEND_LAST_IMM] = ROW(ANY_SEND, SEND, LAST, SROCE_HDR_IMM | PL),
	[SROCE_OP_SEND_ONLY]	= ROW(ANY_SEND | TR(UD), SEND, ONLY, PL),
	[SROCE_OP_SEND_ONLY_IMM] = ROW(ANY_SEND | TR(UD), SEND, ONLY,
				       SROCE_HDR_IMM | PL),
	[SROCE_OP_WRITE_FIRST]	= ROW(ANY_SEND, WRITE, FIRST, SROCE_HDR_RETH | PL),
	[SROCE_OP_WRITE_MIDDLE]	= ROW(ANY_SEND, WRITE, MIDDLE, PL),
	[SROCE_OP_WRITE_LAST]	= ROW(ANY_SEND, WRITE, LAST, PL),
	[SROCE_OP_WRITE_LAST_IMM] = ROW(ANY_SEND, WRITE, LAST, SROCE_HDR_IMM | PL),
	[SROCE_OP_WRITE_ONLY]	= ROW(ANY_SEND, WRITE, ONLY, SROCE_HDR_RETH | PL),
	[SROCE_OP_WRITE_ONLY_IMM] = ROW(ANY_SEND, WRITE, ONLY,
					SROCE_HDR_RETH | SROCE_HDR_IMM | PL),
	[SROCE_OP_READ_REQUEST]	= ROW(CONNECTED, READ_REQ, ONLY, SROCE_HDR_RETH),
	[SROCE_OP_READ_RESP_FIRST] = ROW(CONNECTED, READ_RESP, FIRST,
					 SROCE_HDR_AETH | PL),
	[SROCE_OP_READ_RESP_MIDDLE] = ROW(CONNECTED, READ_RESP, MIDDLE, PL),
	[SROCE_OP_READ_RESP_LAST] = ROW(CONNECTED, READ_RESP, LAST,
					SROCE_HDR_AETH | PL),
	[SROCE_OP_READ_RESP_ONLY] = ROW(CONNECTED, READ_RESP, ONLY,
					SROCE_HDR_AETH | PL),
	[SROCE_OP_ACK]		= ROW(CONNECTED, ACK, ONLY, SROCE_HDR_AETH),
	[SROCE_OP_ATOMIC_ACK]	= ROW(CONNECTED, ATOMIC_ACK, ONLY,
				      SROCE_HDR_AETH | SROCE_HDR_ATOMIC_ACK),
	[SROCE_OP_CMP_SWAP]	= ROW(CONNECTED, ATOMIC, ONLY, SROCE_HDR_ATOMIC),
	[SROCE_OP_FETCH_ADD]	= ROW(CONNECTED, ATOMIC, ONLY, SROCE_HDR_ATOMIC),
	[SROCE_OP_SEND_LAST_INV] = ROW(CONNECTED, SEND, LAST, SROCE_HDR_IETH | PL),
	[SROCE_OP_SEND_ONLY_INV] = ROW(CONNECTED, SEND, ONLY, SROCE_HDR_IETH | PL),
	/* IBTA 1.5, RC only (as rdma_rxe): no XRC variant is defined. */
	[SROCE_OP_FLUSH]	= ROW(TR(RC), FLUSH, ONLY,
				      SROCE_HDR_FETH | SROCE_HDR_RETH),
	[SROCE_OP_ATOMIC_WRITE]	= ROW(TR(RC), ATOMIC_WRITE, ONLY,
				      SROCE_HDR_RETH | PL),
};

/* Bytes each extension header takes, in SROCE_HDR_* bit order. */
static const u8 sroce_hdr_bytes[] = {
	sizeof(struct sroce_deth), sizeof(struct sroce_xrceth),
	sizeof(struct sroce_feth), sizeof(struct sroce_reth), sizeof(struct sroce_atomic_eth),
	sizeof(struct sroce_immdt), sizeof(struct sroce_ieth),
	sizeof(struct sroce_aeth), sizeof(struct sroce_atomic_ack_eth),
};

static bool sroce_is_request(u8 cls)
{
	return cls == SROCE_CLASS_SEND || cls == SROCE_CLASS_WRITE ||
	       cls == SROCE_CLASS_READ_REQ || cls == SROCE_CLASS_ATOMIC ||
	       cls == SROCE_CLASS_FLUSH || cls == SROCE_CLASS_ATOMIC_WRITE;
}

/*
 * Every opcode's meaning, worked out once from the rows at module load:
 * the receive path asks several times a packet, and working it out each
 * time (the loop over the header bits) was the largest of sroce's own
 * symbols in an NVMe-oF profile. A hdr_len of 0 marks an opcode sroce does
 * not speak: every known one has at least its BTH.
 */
static struct sroce_opcode_info sroce_opcodes[256] __ro_after_init;

static void sroce_opcode_build(u8 opcode, struct sroce_opcode_info *info)
{
	unsigned int tr = SROCE_OPCODE_TR(opcode), bit;
	const struct sroce_op_row *row = &sroce_op_rows[SROCE_OPCODE_OP(opcode)];
	u16 hdrs;

	if (opcode == SROCE_OPCODE_CNP) {
		*info = (struct sroce_opcode_info) {
			.cls = SROCE_CLASS_CNP, .pos = SROCE_POS_ONLY,
			.hdr_len = sizeof(struct sroce_bth) + SROCE_CNP_RESERVED,
		};
		return;
	}
	if (tr == SROCE_TR_CNP || tr > SROCE_TR_XRC || !(row->transports & BIT(tr)))
		return;

	hdrs = row->hdrs;
	if (tr == SROCE_TR_UD)
		hdrs |= SROCE_HDR_DETH;
	if (tr == SROCE_TR_XRC && sroce_is_request(row->cls))
		hdrs |= SROCE_HDR_XRCETH;

	info->cls = row->cls;
	info->pos = row->pos;
	info->hdrs = hdrs;
	info->hdr_len = sizeof(struct sroce_bth);
	for (bit = 0; bit < ARRAY_SIZE(sroce_hdr_bytes); bit++)
		if (hdrs & BIT(bit))
			info->hdr_len += sroce_hdr_bytes[bit];
}

void __init sroce_opcode_init(void)
{
	unsigned int op;

	for (op = 0; op < ARRAY_SIZE(sroce_opcodes); op++)
		sroce_opcode_build(op, &sroce_opcodes[op]);
}

bool sroce_opcode_decode(u8 opcode, struct sroce_opcode_info *info)
{
	const struct sroce_opcode_info *known = &sroce_opcodes[opcode];

	if (!known->hdr_len)
		return false;
	*info = *known;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_opcode_decode);

bool sroce_opcode_valid_for(u8 opcode, enum ib_qp_type type)
{
	struct sroce_opcode_info info;
	unsigned int tr;

	switch (type) {
	case IB_QPT_RC:
		tr = SROCE_TR_RC;
		break;
	case IB_QPT_UC:
		tr = SROCE_TR_UC;
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		tr = SROCE_TR_UD;
		break;
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		tr = SROCE_TR_XRC;
		break;
	default:
		return false;
	}
	return SROCE_OPCODE_TR(opcode) == tr && sroce_opcode_decode(opcode, &info);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_opcode_valid_for);

static bool sroce_pos_opens(u8 pos)
{
	return pos == SROCE_POS_ONLY || pos == SROCE_POS_FIRST;
}

bool sroce_opcode_next_ok(int prev, u8 next)
{
	struct sroce_opcode_info p, n;

	if (!sroce_opcode_decode(next, &n))
		return false;
	if (prev == SROCE_OPCODE_NONE)
		return sroce_pos_opens(n.pos);
	if (prev < 0 || prev > U8_MAX || !sroce_opcode_decode(prev, &p) ||
	    SROCE_OPCODE_TR(prev) != SROCE_OPCODE_TR(next))
		return false;
	if (p.pos == SROCE_POS_ONLY || p.pos == SROCE_POS_LAST)
		return sroce_pos_opens(n.pos);
	/* Inside a message: its own MIDDLE or LAST packets only. */
	return n.cls == p.cls &&
	       (n.pos == SROCE_POS_MIDDLE || n.pos == SROCE_POS_LAST);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_opcode_next_ok);
