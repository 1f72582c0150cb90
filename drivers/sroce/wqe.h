/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work queue entries: send and receive WQEs copied out of their rings
 * once, checked there, and what the engines read of them (wqe.c).
 */
#ifndef _SROCE_WQE_H
#define _SROCE_WQE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "mw.h"
#include "queue.h"
#include "sroce.h"

struct rxe_dma_info;
struct sroce_qp;

/**
 * struct sroce_swqe - a send WQE, copied out of the send ring and checked
 * @wr_id: the consumer's work request id
 * @opcode: IB_WR_* (user and kernel opcodes agree)
 * @send_flags: IB_SEND_*
 * @imm: immediate data (wire order)
 * @remote_addr: RDMA or atomic target address
 * @rkey: RDMA or atomic target key; the key to invalidate of a
 *	SEND_WITH_INV or LOCAL_INV; the new key of a REG_MR
 * @swap_add: atomic: the value to swap in, or to add; ATOMIC WRITE: the
 *	8 bytes to write, as the user laid them out
 * @compare: compare and swap: the value to compare with
 * @length: bytes of the message (RDMA READ: to read; atomic and ATOMIC
 *	WRITE: 8; FLUSH: of the range to flush)
 * @flush_type: FLUSH: placement type, IB_FLUSH_GLOBAL/_PERSISTENT bits
 * @flush_level: FLUSH: selectivity level, IB_FLUSH_RANGE or IB_FLUSH_MR
 * @num_sge: entries in @sge (0 for inline data)
 * @is_inline: the data is in @inline_data, not behind @sge
 * @reg_mr: REG_MR: the MR (kernel QPs only)
 * @reg_access: REG_MR: the access it grants
 * @bind: BIND_MW: the window, the MR and what to bind (user QPs only)
 * @executed: a local operation (REG_MR, BIND_MW, LOCAL_INV) was done: a rewind
 *	that passes over it again does not do it twice
 * @first_psn: PSN of the message's first packet
 * @last_psn: PSN of its last packet (a local operation takes none: the
 *	PSN before @first_psn)
 * @sge: gather list, or inline data (@inline_data)
 * @inline_data: the inline bytes
 */
struct sroce_swqe {
	u64 wr_id;
	u32 opcode;
	u32 send_flags;
	__be32 imm;
	u64 remote_addr;
	u32 rkey;
	u64 swap_add;
	u64 compare;
	u32 length;
	u8 flush_type;
	u8 flush_level;
	u32 num_sge;
	bool is_inline;
	union {
		struct {
			struct ib_mr *reg_mr;
			int reg_access;
		};
		struct sroce_mw_bind bind;
	};
	bool executed;
	u32 first_psn;
	u32 last_psn;
	union {
		DECLARE_FLEX_ARRAY(struct ib_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

/**
 * struct sroce_reg_slot - a REG_MR in a kernel QP's send ring
 * @mr: the &struct ib_mr
 * @key: the key the MR takes
 * @access: the access it grants
 *
 * The rxe ABI has no room for a REG_MR (user space cannot post one): in
 * rings only the kernel writes, it sits in &rxe_send_wr.wr.
 */
struct sroce_reg_slot {
	u64 mr;
	u32 key;
	u32 access;
};

/**
 * sroce_wr_local() - whether a send opcode is a local operation
 * @opcode: IB_WR_*
 *
 * REG_MR, BIND_MW and LOCAL_INV change an MR or a window and send
 * nothing.
 *
 * Context: any.
 * Return: true for them.
 */
static inline bool sroce_wr_local(u32 opcode)
{
	return opcode == IB_WR_REG_MR || opcode == IB_WR_LOCAL_INV ||
	       opcode == IB_WR_BIND_MW;
}

/**
 * sroce_wr_atomic() - whether a send opcode is an atomic
 * @opcode: IB_WR_*
 *
 * Context: any.
 * Return: true for ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD.
 */
static inline bool sroce_wr_atomic(u32 opcode)
{
	return opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/**
 * sroce_wr_ext() - whether a send opcode is one of IBTA 1.5's (ext.c)
 * @opcode: IB_WR_*
 *
 * Context: any.
 * Return: true for ATOMIC_WRITE and FLUSH.
 */
static inline bool sroce_wr_ext(u32 opcode)
{
	return opcode == IB_WR_ATOMIC_WRITE || opcode == IB_WR_FLUSH;
}

/**
 * sroce_wr_rd_atomic() - whether a send opcode takes a responder resource
 * @opcode: IB_WR_*
 *
 * Those are answered by their own responses and count against
 * max_rd_atomic.
 *
 * Context: any.
 * Return: true for RDMA_READ, the atomics, ATOMIC_WRITE and FLUSH.
 */
static inline bool sroce_wr_rd_atomic(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ || sroce_wr_atomic(opcode) ||
	       sroce_wr_ext(opcode);
}

/**
 * sroce_wqe_executes() - whether the requester executes a send opcode
 * @opcode: IB_WR_* (user and kernel opcodes agree)
 *
 * Context: any.
 * Return: true for the opcodes the RC requester sends.
 */
bool sroce_wqe_executes(u32 opcode);

/**
 * sroce_wqe_uc_executes() - whether a UC requester executes a send opcode
 * @opcode: IB_WR_* (user and kernel opcodes agree)
 *
 * UC has SEND and RDMA WRITE, with immediate data or without (IBTA 9.8),
 * besides the local operations: no READ, atomic or SEND with invalidate.
 *
 * Context: any.
 * Return: true for the opcodes a UC QP sends.
 */
static inline bool sroce_wqe_uc_executes(u32 opcode)
{
	return sroce_wqe_executes(opcode) && !sroce_wr_rd_atomic(opcode) &&
	       opcode != IB_WR_SEND_WITH_INV;
}

/**
 * sroce_wqe_fetch() - copy the send WQE at &sroce_req.pos out of the ring
 * @qp: the QP
 * @w: where the copy goes (the requester's slot for that WQE)
 *
 * Each field is read once and checked in the copy: the opcode, the
 * gather list against max_send_sge and overflow, inline data against
 * max_inline_data, the length against the largest message.
 *
 * Context: the requester (one pass at a time).
 * Return: 0; -EOPNOTSUPP for an opcode the requester does not execute;
 * -EINVAL for a malformed WQE.
 */
int sroce_wqe_fetch(struct sroce_qp *qp, struct sroce_swqe *w);

/**
 * sroce_wqe_ready() - whether the memory a READ or atomic writes is present
 * @qp: the QP
 * @w: the WQE, its SGEs the response's destination
 *
 * Only ODP MRs can lack pages; the first SGE (up to SROCE_ODP_FAULT_MAX
 * bytes of it) that does is named in &sroce_req.fault.
 *
 * Context: the requester (one pass at a time).
 * Return: 0, or -EFAULT when a page is missing.
 */
int sroce_wqe_ready(struct sroce_qp *qp, const struct sroce_swqe *w);

/**
 * sroce_wqe_gather() - the next bytes of a send WQE's data
 * @qp: the QP
 * @w: the WQE; &sroce_req.sge and &sroce_req.sge_off say where the
 *	bytes start, and advance past them
 * @dst: where they go
 * @len: how many
 *
 * Reads nothing once the QP is in ERR or SQE: its WQEs are flushed, and
 * their memory may be the consumer's again.
 *
 * Context: the requester; takes no lock, turns bottom halves off.
 * Return: 0, -EACCES when an lkey does not cover them or their memory
 * cannot be read, -ESHUTDOWN when the QP is in ERR or SQE, -EFAULT when
 * a page of an ODP MR is missing: the cursor is left where it was and
 * &sroce_req.fault names the piece to fault in.
 */
int sroce_wqe_gather(struct sroce_qp *qp, const struct sroce_swqe *w,
		     u8 *dst, u32 len);

/**
 * sroce_wqe_npsn() - PSNs a send WQE takes
 * @opcode: IB_WR_*
 * @length: its bytes
 * @mtu: path MTU in bytes
 *
 * Context: any.
 * Return: the packets of a SEND or WRITE, the read responses of a READ
 * (at least one each), 1 for an atomic.
 */
u32 sroce_wqe_npsn(u32 opcode, u32 length, u32 mtu);

/**
 * struct sroce_rwqe - a receive WQE, copied out of its ring and checked
 * @wr_id: the consumer's work request id
 * @num_sge: scatter entries in @sge
 * @length: sum of the entries' lengths
 * @sge: the scatter list; a copy allocated for fewer entries than
 *	SROCE_MAX_SGE (a responder's, sized to its QP's max_sge) holds only
 *	those: sroce_rwqe_take() writes no more than its @max_sge
 *
 * Taken out of a receive ring by sroce_rwqe_take().
 */
struct sroce_rwqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;
	struct ib_sge sge[SROCE_MAX_SGE];
};

/**
 * sroce_rwqe_bytes() - the size of a receive ring's slot
 * @max_sge: scatter entries a WQE of the ring may have
 *
 * Context: any.
 * Return: bytes of one rxe receive WQE with @max_sge entries.
 */
size_t sroce_rwqe_bytes(u32 max_sge);

/**
 * sroce_wqe_set_sges() - write a kernel WR's gather or scatter list
 * @dma: the ring element's DMA part (send or receive WQE)
 * @sg: the WR's list
 * @num_sge: its entries, already checked against the ring's maximum
 *
 * Context: any; the caller owns the ring slot.
 */
void sroce_wqe_set_sges(struct rxe_dma_info *dma, const struct ib_sge *sg,
			int num_sge);

/**
 * sroce_rwqe_post() - write a kernel consumer's receive WR into a ring
 * @q: a receive ring the kernel consumes and the caller produces
 * @max_sge: scatter entries a WQE of @q holds
 * @wr: the work request (only this one, not its successors)
 *
 * Context: the caller serialises the producers of @q.
 * Return: 0, -EINVAL for too many scatter entries or a total length that
 * overflows 32 bits, -ENOMEM when the ring is full.
 */
int sroce_rwqe_post(struct sroce_queue *q, u32 max_sge,
		    const struct ib_recv_wr *wr);

/**
 * sroce_rwqe_take() - take the oldest WQE of a receive ring
 * @q: a receive ring the kernel consumes
 * @max_sge: scatter entries a WQE of @q holds
 * @wqe: where the copy goes
 * @need: bytes the WQE must hold (0: any size will do)
 *
 * The WQE is copied out of the (maybe user-writable) ring once and checked
 * in the copy: the scatter count against @max_sge, the total length
 * against overflow. The slot is given back to the producer, except when
 * the WQE is well formed but smaller than @need: then it stays in the
 * ring for a later message (a UD datagram too large for it is dropped).
 *
 * Context: the caller serialises the consumers of @q.
 * Return: 0; -ENOENT when the ring is empty; -EINVAL for a malformed WQE,
 * of which only @wqe->wr_id is then valid; -EMSGSIZE when it is too small.
 */
int sroce_rwqe_take(struct sroce_queue *q, u32 max_sge, struct sroce_rwqe *wqe,
		    u32 need);

#endif /* _SROCE_WQE_H */
