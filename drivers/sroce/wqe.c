// SPDX-License-Identifier: GPL-2.0
/*
 * Work queue entries. The rings are shared with user space, so a WQE is
 * copied out of its slot once, each field read once, and checked in the
 * copy: the engines never look at the ring's slot again. Send WQEs for
 * the requesters (RC and datagram), receive WQEs for the responder, the
 * datagram engine and the flush of a QP in error.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/overflow.h>

#include "ext.h"
#include "mr.h"
#include "odp.h"
#include "psn.h"
#include "qp.h"
#include "queue.h"
#include "req.h"
#include "sroce.h"
#include "srq.h"
#include "wqe.h"

bool sroce_wqe_executes(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_REG_MR:
	case IB_WR_BIND_MW:
	case IB_WR_LOCAL_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_ATOMIC_WRITE:
	case IB_WR_FLUSH:
		return true;
	default:
		return false;
	}
}

u32 sroce_wqe_npsn(u32 opcode, u32 length, u32 mtu)
{
	if (sroce_wr_atomic(opcode) || sroce_wr_ext(opcode) || !length)
		return 1;
	return DIV_ROUND_UP(length, mtu);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_wqe_npsn);

/* A BIND_MW: only user space posts one (the rxe ABI's wr.mw). */
static int sroce_wqe_fetch_bind(struct sroce_qp *qp, struct sroce_swqe *w,
				const struct rxe_send_wqe *slot)
{
	if (!qp->user)
		return -EOPNOTSUPP;
	w->bind.addr = READ_ONCE(slot->wr.wr.mw.addr);
	w->bind.length = READ_ONCE(slot->wr.wr.mw.length);
	w->bind.mr_lkey = READ_ONCE(slot->wr.wr.mw.mr_lkey);
	w->bind.mw_rkey = READ_ONCE(slot->wr.wr.mw.mw_rkey);
	w->bind.rkey = READ_ONCE(slot->wr.wr.mw.rkey);
	w->bind.access = READ_ONCE(slot->wr.wr.mw.access);
	return 0;
}

/* A REG_MR, BIND_MW or LOCAL_INV: no data, no PSN. */
static int sroce_wqe_fetch_local(struct sroce_qp *qp, struct sroce_swqe *w,
				 const struct rxe_send_wqe *slot)
{
	const struct sroce_reg_slot *reg = (const void *)&slot->wr.wr;

	if (w->opcode == IB_WR_REG_MR) {
		/* Only the kernel writes a pointer there. */
		if (qp->user)
			return -EOPNOTSUPP;
		w->reg_mr = (struct ib_mr *)(uintptr_t)reg->mr;
		w->rkey = reg->key;
		w->reg_access = reg->access;
	} else if (w->opcode == IB_WR_BIND_MW) {
		if (sroce_wqe_fetch_bind(qp, w, slot))
			return -EOPNOTSUPP;
	} else {
		w->rkey = READ_ONCE(slot->wr.ex.invalidate_rkey);
	}
	w->length = 0;
	w->num_sge = 0;
	w->is_inline = false;
	w->first_psn = qp->req.psn;
	w->last_psn = sroce_psn_add(qp->req.psn, SROCE_PSN_MASK);
	return 0;
}

/*
 * The flush fields of a user FLUSH in the send ring (rdma-core's rxe
 * provider), spelled out: 6.1's header has no such member.
 */
struct sroce_flush_slot {
	u64 remote_addr;
	u32 length;	/* unused: the provider gives dma.length */
	u32 rkey;
	u8 type;
	u8 level;
};

static_assert(sizeof(struct sroce_flush_slot) <=
	      sizeof_field(struct rxe_send_wr, wr));

/* A user ATOMIC WRITE or FLUSH (ext.c): its fields, checked. */
static int sroce_wqe_fetch_ext(struct sroce_qp *qp, struct sroce_swqe *w,
			       const struct rxe_send_wqe *slot)
{
	const struct sroce_flush_slot *fl = (const void *)&slot->wr.wr;

	/* A kernel send WR has no fields for either. */
	if (!qp->user)
		return -EOPNOTSUPP;
	w->length = READ_ONCE(slot->dma.length);
	w->num_sge = 0;
	w->is_inline = false;
	w->compare = 0;
	w->swap_add = 0;
	if (w->opcode == IB_WR_ATOMIC_WRITE) {
		w->remote_addr = READ_ONCE(slot->wr.wr.rdma.remote_addr);
		w->rkey = READ_ONCE(slot->wr.wr.rdma.rkey);
		/*
		 * The provider's ibv_wr_atomic_write() puts the value where
		 * inline data goes; a WQE with a gather list (ibv_post_send())
		 * has none there to take.
		 */
		if (w->length != sizeof(u64) || READ_ONCE(slot->dma.num_sge))
			return -EINVAL;
		/* The value as the user laid it out: its bytes go as they are. */
		memcpy(&w->swap_add, slot->dma.inline_data, sizeof(u64));
	} else {
		w->remote_addr = READ_ONCE(fl->remote_addr);
		w->rkey = READ_ONCE(fl->rkey);
		w->flush_type = READ_ONCE(fl->type);
		w->flush_level = READ_ONCE(fl->level);
		if (!sroce_flush_access(w->flush_type) ||
		    w->flush_level > IB_FLUSH_MR)
			return -EINVAL;
	}
	if (w->length > SROCE_MAX_MSG_SIZE)
		return -EINVAL;
	w->first_psn = qp->req.psn;
	w->last_psn = qp->req.psn;
	return 0;
}

/* Copy the WQE at the requester's position out of the ring and check it. */
int sroce_wqe_fetch(struct sroce_qp *qp, struct sroce_swqe *w)
{
	const struct rxe_send_wqe *slot = (const void *)(qp->sq.ring->data +
		((size_t)qp->req.pos << qp->sq.log2_elem));
	u32 i, n, len = 0, mtu;
	bool atomic, rd_atomic;

	w->wr_id = READ_ONCE(slot->wr.wr_id);
	w->opcode = READ_ONCE(slot->wr.opcode);
	w->send_flags = READ_ONCE(slot->wr.send_flags);
	w->executed = false;
	if (!sroce_wqe_executes(w->opcode))
		return -EOPNOTSUPP;
	if (qp->ibqp.qp_type == IB_QPT_UC && !sroce_wqe_uc_executes(w->opcode))
		return -EOPNOTSUPP;
	if (sroce_wr_local(w->opcode))
		return sroce_wqe_fetch_local(qp, w, slot);
	if (sroce_wr_ext(w->opcode))
		return sroce_wqe_fetch_ext(qp, w, slot);
	atomic = sroce_wr_atomic(w->opcode);
	rd_atomic = atomic || w->opcode == IB_WR_RDMA_READ;
	w->imm = READ_ONCE(slot->wr.ex.imm_data);
	if (atomic) {
		w->remote_addr = READ_ONCE(slot->wr.wr.atomic.remote_addr);
		w->rkey = READ_ONCE(slot->wr.wr.atomic.rkey);
		w->swap_add = READ_ONCE(slot->wr.wr.atomic.compare_add);
		w->compare = 0;
		if (w->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			w->compare = w->swap_add;
			w->swap_add = READ_ONCE(slot->wr.wr.atomic.swap);
		}
	} else if (w->opcode == IB_WR_SEND_WITH_INV) {
		w->rkey = READ_ONCE(slot->wr.ex.invalidate_rkey);
	} else {
		w->remote_addr = READ_ONCE(slot->wr.wr.rdma.remote_addr);
		w->rkey = READ_ONCE(slot->wr.wr.rdma.rkey);
	}
	if (w->send_flags & IB_SEND_INLINE) {
		/* Inline data is something to send, not a place to land. */
		if (rd_atomic)
			return -EINVAL;
		len = READ_ONCE(slot->dma.length);
		if (len > qp->cap.max_inline_data)
			return -EINVAL;
		memcpy(w->inline_data, slot->dma.inline_data, len);
		w->is_inline = true;
		w->num_sge = 0;
	} else {
		n = READ_ONCE(slot->dma.num_sge);
		if (n > qp->cap.max_send_sge)
			return -EINVAL;
		memcpy(w->sge, slot->dma.sge, n * sizeof(w->sge[0]));
		for (i = 0; i < n; i++)
			if (check_add_overflow(len, w->sge[i].length, &len))
				return -EINVAL;
		w->is_inline = false;
		w->num_sge = n;
	}
	if (len > SROCE_MAX_MSG_SIZE)
		return -EINVAL;
	/* The original value comes back into exactly 8 bytes. */
	if (atomic && len != sizeof(u64))
		return -EINVAL;
	w->length = len;
	mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	w->first_psn = qp->req.psn;
	w->last_psn = sroce_psn_add(qp->req.psn,
				    sroce_wqe_npsn(w->opcode, len, mtu) - 1);
	return 0;
}

struct sroce_gather {
	u8 *dst;
};

static void sroce_gather_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_gather *g = ctx;

	memcpy(g->dst, kaddr, len);
	g->dst += len;
}

/*
 * Have the requester's work item fault in an ODP SGE from @off: the rest
 * of it, up to SROCE_ODP_FAULT_MAX bytes, not one packet's worth.
 */
static void sroce_wqe_want_fault(struct sroce_req *req,
				 const struct ib_sge *sge, u32 off)
{
	req->fault.lkey = sge->lkey;
	req->fault.addr = sge->addr + off;
	req->fault.len = min_t(u32, sge->length - off, SROCE_ODP_FAULT_MAX);
	req->fault.pos = req->pos;
}

int sroce_wqe_ready(struct sroce_qp *qp, const struct sroce_swqe *w)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct ib_sge *sge;
	struct sroce_mr *mr;
	u32 i, n;
	int err;

	for (i = 0; i < w->num_sge; i++) {
		sge = &w->sge[i];
		n = min_t(u32, sge->length, SROCE_ODP_FAULT_MAX);
		if (!n)
			continue;
		mr = sroce_mr_get(sdev, sge->lkey, qp->ibqp.pd,
				  IB_ACCESS_LOCAL_WRITE, sge->addr, n);
		/* A bad lkey is the completer's to report, at the response. */
		if (IS_ERR(mr))
			continue;
		err = sroce_mr_ready(mr, sge->addr, n);
		sroce_mr_put(mr);
		if (err) {
			sroce_wqe_want_fault(&qp->req, sge, 0);
			return err;
		}
	}
	return 0;
}

/* The next @len bytes of the message, through its lkeys, into @dst. */
static int sroce_wqe_copy(struct sroce_qp *qp, const struct sroce_swqe *w,
			  u8 *dst, u32 len)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *req = &qp->req;
	struct sroce_gather g = { .dst = dst };
	u32 at_sge = req->sge, at_off = req->sge_off;
	const struct ib_sge *sge;
	struct sroce_mr *mr;
	int err;
	u32 n;

	if (w->is_inline) {
		memcpy(dst, w->inline_data + req->offset, len);
		return 0;
	}
	while (len) {
		if (WARN_ON_ONCE(req->sge >= w->num_sge))
			return -EINVAL;
		sge = &w->sge[req->sge];
		n = min(len, sge->length - req->sge_off);
		if (n) {
			mr = sroce_mr_get(sdev, sge->lkey, qp->ibqp.pd, 0,
					  sge->addr + req->sge_off, n);
			if (IS_ERR(mr))
				return -EACCES;
			/* All of them or none: a packet never goes half filled. */
			err = sroce_mr_walk(mr, sge->addr + req->sge_off, n,
					    sroce_gather_piece, &g);
			sroce_mr_put(mr);
			if (err == -EFAULT) {
				/* ODP: the work item faults it in, then resends. */
				sroce_wqe_want_fault(req, sge, req->sge_off);
				req->sge = at_sge;
				req->sge_off = at_off;
				return err;
			}
			if (err)
				return -EACCES;
		}
		len -= n;
		req->sge_off += n;
		if (req->sge_off == sge->length) {
			req->sge++;
			req->sge_off = 0;
		}
	}
	return 0;
}

/*
 * The consumer's memory is read with the gathering flag up, after a look
 * at the state: a move to ERR or SQE sets the state, then waits for the
 * flag to fall before it completes (flushes) the WQEs, after which the
 * consumer may free that memory (sroce_qp_enter_error()). Bottom halves
 * are off meanwhile, so that the wait, in a softirq or under the QP's
 * locks, never spins on a read its own CPU interrupted.
 */
int sroce_wqe_gather(struct sroce_qp *qp, const struct sroce_swqe *w,
		     u8 *dst, u32 len)
{
	enum ib_qp_state state;
	int err;

	local_bh_disable();
	WRITE_ONCE(qp->req.gathering, true);
	/* The flag before the state (pairs with sroce_qp_enter_error()). */
	smp_mb();
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_ERR || state == IB_QPS_SQE)
		err = -ESHUTDOWN;
	else
		err = sroce_wqe_copy(qp, w, dst, len);
	/* The reads done before the flag falls (the flush waits for it). */
	smp_store_release(&qp->req.gathering, false);
	local_bh_enable();
	return err;
}

size_t sroce_rwqe_bytes(u32 max_sge)
{
	/* At most SROCE_MAX_SRQ_SGE entries: no overflow. */
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

void sroce_wqe_set_sges(struct rxe_dma_info *dma, const struct ib_sge *sg,
			int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dma->sge[i].addr = sg[i].addr;
		dma->sge[i].length = sg[i].length;
		dma->sge[i].lkey = sg[i].lkey;
	}
	dma->num_sge = num_sge;
}

int sroce_rwqe_post(struct sroce_queue *q, u32 max_sge,
		    const struct ib_recv_wr *wr)
{
	struct sroce_ring *ring = q->ring;
	struct rxe_recv_wqe *wqe;
	u32 prod, next, len = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		if (check_add_overflow(len, wr->sg_list[i].length, &len))
			return -EINVAL;
	/* A kernel ring: the producer index is ours, in kernel memory. */
	prod = ring->producer & q->mask;
	next = (prod + 1) & q->mask;
	/* Acquire pairs with the consumer's release: the slot is free. */
	if (next == (smp_load_acquire(&ring->consumer) & q->mask))
		return -ENOMEM;
	wqe = (struct rxe_recv_wqe *)(ring->data + ((size_t)prod << q->log2_elem));
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	sroce_wqe_set_sges(&wqe->dma, wr->sg_list, wr->num_sge);
	wqe->dma.length = len;
	wqe->dma.resid = len;
	/* Release: the element is complete before the consumer sees it. */
	smp_store_release(&ring->producer, next);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rwqe_post);

int sroce_rwqe_take(struct sroce_queue *q, u32 max_sge, struct sroce_rwqe *wqe,
		    u32 need)
{
	const struct rxe_recv_wqe *slot;
	u32 i, n, len = 0;
	int err = 0;

	if (!sroce_queue_count(q))
		return -ENOENT;
	slot = sroce_queue_slot(q);
	/* Every field read once: the producer may be rewriting the slot. */
	wqe->wr_id = READ_ONCE(slot->wr_id);
	n = READ_ONCE(slot->dma.num_sge);
	if (n > max_sge) {
		err = -EINVAL;
		goto out;
	}
	memcpy(wqe->sge, slot->dma.sge, n * sizeof(wqe->sge[0]));
	for (i = 0; i < n; i++) {
		if (check_add_overflow(len, wqe->sge[i].length, &len)) {
			err = -EINVAL;
			goto out;
		}
	}
	wqe->num_sge = n;
	wqe->length = len;
	/* Too small for this message: it stays for the next one. */
	if (len < need)
		return -EMSGSIZE;
out:
	sroce_queue_advance(q);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rwqe_take);
