// SPDX-License-Identifier: GPL-2.0
/*
 * Responder: RC requests to memory, receive completions and ACKs. Runs in
 * the receive softirq under the QP's responder lock, one packet at a time,
 * in PSN order:
 *
 *   PSN expected    execute; the PSN moves on; ACK when the packet asks
 *   PSN behind      a duplicate: SEND and WRITE are ACKed again (at the
 *                   duplicate's PSN), never executed twice
 *   PSN ahead       a gap: one sequence error NAK, then silence until the
 *                   expected PSN comes
 *
 * Execution: a SEND's first packet takes a receive WQE (from the QP's ring
 * or its SRQ; none is an RNR NAK), its packets scatter through the WQE's
 * lkeys, its last completes the WQE. An RDMA WRITE's first packet checks
 * the rkey, the QP's remote access and the whole range once; its packets
 * land in order; WRITE with immediate completes a receive WQE. Errors end
 * in the NAK IBTA 9.7.5 names and the QP in ERR.
 *
 * RDMA READ and atomics take a responder resource (struct sroce_res, a
 * ring of max_dest_rd_atomic; more outstanding is an invalid request). An
 * atomic executes at once and keeps its original value; a READ checks its
 * rkey and range and keeps the request. Their responses go out in request
 * order: straight from the softirq for an atomic or a short READ when
 * nothing is ahead of them, else from the responder's work item, a budget
 * of packets at a time. While responses are pending, the ACKs of later
 * requests wait behind them (coalesced into the last one), so the
 * requester never sees an ACK pass a READ's data.
 *
 * A duplicate atomic is answered from its resource without executing it
 * again; a duplicate READ is read again, its rkey checked again.
 *
 * UC (sroce_resp_uc_recv()): SENDs and WRITEs executed the same way, but
 * never answered. A packet out of sequence or a remote error drops its
 * message whole, and the receive WQE it took serves the next message.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/slab.h>

#include "counters.h"
#include "cq.h"
#include "ext.h"
#include "mr.h"
#include "mw.h"
#include "odp.h"
#include "opcode.h"
#include "psn.h"
#include "qp.h"
#include "reply.h"
#include "resp.h"
#include "sroce.h"
#include "srq.h"
#include "wire.h"
#include "wqe.h"

/* ... and straight from the softirq, when nothing waits ahead. */
#define SROCE_RESP_INLINE_BUDGET	16

u64 sroce_atomic_exec(u64 *p, bool cmp_swap, u64 swap_add, u64 compare)
{
	u64 old, seen;

	if (cmp_swap)
		return cmpxchg64(p, compare, swap_add);
	for (old = READ_ONCE(*p);; old = seen) {
		seen = cmpxchg64(p, old, old + swap_add);
		if (seen == old)
			return old;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_atomic_exec);

/* The DMA length a READ request asks for. */
static u32 sroce_resp_read_len(const struct sk_buff *skb)
{
	const struct sroce_reth *reth = (const void *)(skb->data +
						       sizeof(struct sroce_bth));

	return be32_to_cpu(reth->dma_len);
}

/* Check a READ request: the QP's and the MR's remote read access. */
static enum sroce_resp_verdict
sroce_resp_read_check(struct sroce_qp *qp, const struct sk_buff *skb, u32 pay)
{
	const struct sroce_reth *reth = (const void *)(skb->data +
						       sizeof(struct sroce_bth));
	u32 len = sroce_resp_read_len(skb);
	struct sroce_mr *mr;
	u64 va;
	int err;

	if (pay || len > SROCE_MAX_MSG_SIZE)
		return SROCE_RESP_INV_REQ;
	/*
	 * A QP not enabled for the operation: an invalid request, not an
	 * access error (no key is at fault; IBV_WC_REM_INV_REQ_ERR's meaning).
	 */
	if (!(qp->params.access & IB_ACCESS_REMOTE_READ))
		return SROCE_RESP_INV_REQ;
	if (len) {
		va = be64_to_cpu(reth->va);
		mr = sroce_rkey_get(qp, be32_to_cpu(reth->rkey),
				    IB_ACCESS_REMOTE_READ, &va, len);
		if (IS_ERR(mr))
			return SROCE_RESP_ACCESS;
		/*
		 * ODP: the pages present, or an RNR NAK while they fault in
		 * (the first SROCE_ODP_FAULT_MAX bytes: a page missing later
		 * stops the responses, sroce_reply_push()).
		 */
		err = sroce_mr_ready(mr, va, min_t(u32, len, SROCE_ODP_FAULT_MAX));
		sroce_mr_put(mr);
		if (err)
			return SROCE_RESP_RNR;
	}
	return SROCE_RESP_DONE;
}

/* (Re)start a READ resource from the request in @skb. */
static void sroce_res_read_from(struct sroce_res *r, const struct sk_buff *skb)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	const struct sroce_reth *reth = (const void *)(bth + 1);

	r->kind = SROCE_RES_READ;
	r->next_psn = sroce_bth_psn(bth);
	r->va = be64_to_cpu(reth->va);
	r->rkey = be32_to_cpu(reth->rkey);
	r->left = be32_to_cpu(reth->dma_len);
	r->first = true;
}

/* A new READ request: check, then keep. */
static enum sroce_resp_verdict
sroce_resp_read(struct sroce_qp *qp, const struct sk_buff *skb,
		const struct sroce_opcode_info *info, u32 pay, u32 *npsn)
{
	enum sroce_resp_verdict v = sroce_resp_read_check(qp, skb, pay);
	u32 n = sroce_wqe_npsn(IB_WR_RDMA_READ, sroce_resp_read_len(skb),
			       ib_mtu_enum_to_int(qp->params.path_mtu));
	struct sroce_res *r;

	if (v != SROCE_RESP_DONE)
		return v;
	/* Its responses must not reach half the PSN space with the rest. */
	if (!sroce_res_fits(&qp->resp, qp->resp.psn, n))
		return SROCE_RESP_INV_REQ;
	r = sroce_res_take(&qp->resp);
	if (!r)
		return SROCE_RESP_INV_REQ;	/* over max_dest_rd_atomic */
	sroce_res_read_from(r, skb);
	r->psn = r->next_psn;
	*npsn = n;
	return SROCE_RESP_DONE;
}

struct sroce_atomic_op {
	const struct sroce_atomic_eth *ateth;
	bool cmp_swap;
	u64 orig;
};

static void sroce_atomic_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_atomic_op *op = ctx;

	/* 8 aligned bytes never straddle a page: one piece. */
	if (WARN_ON_ONCE(len != sizeof(u64)))
		return;
	op->orig = sroce_atomic_exec(kaddr, op->cmp_swap,
				     be64_to_cpu(op->ateth->swap_add),
				     be64_to_cpu(op->ateth->compare));
}

/* An atomic request: check, execute, keep the original value. */
static enum sroce_resp_verdict
sroce_resp_atomic(struct sroce_qp *qp, const struct sk_buff *skb, u32 pay)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_atomic_op op = { .ateth = (const void *)(bth + 1) };
	u64 va = be64_to_cpu(op.ateth->va);
	struct sroce_res *r;
	struct sroce_mr *mr;
	int err;

	if (pay)
		return SROCE_RESP_INV_REQ;
	if (!(qp->params.access & IB_ACCESS_REMOTE_ATOMIC))
		return SROCE_RESP_INV_REQ;
	/* IBTA 9.4.5: naturally aligned, else an invalid request. */
	if (va & (sizeof(u64) - 1))
		return SROCE_RESP_INV_REQ;
	mr = sroce_rkey_get(qp, be32_to_cpu(op.ateth->rkey),
			    IB_ACCESS_REMOTE_ATOMIC, &va, sizeof(u64));
	if (IS_ERR(mr))
		return SROCE_RESP_ACCESS;
	/* A zero-based window may start anywhere: its bytes must align too. */
	if (va & (sizeof(u64) - 1)) {
		sroce_mr_put(mr);
		return SROCE_RESP_INV_REQ;
	}
	if (!sroce_res_fits(&qp->resp, qp->resp.psn, 1) ||
	    qp->resp.res_pending == qp->resp.nres) {
		sroce_mr_put(mr);
		return SROCE_RESP_INV_REQ;	/* over max_dest_rd_atomic */
	}
	op.cmp_swap = SROCE_OPCODE_OP(bth->opcode) == SROCE_OP_CMP_SWAP;
	/* Executed only with its page present (ODP): else an RNR NAK. */
	err = sroce_mr_walk(mr, va, sizeof(u64), sroce_atomic_piece, &op);
	sroce_mr_put(mr);
	if (err)
		return SROCE_RESP_RNR;
	/* Checked above: a slot is free. */
	r = sroce_res_take(&qp->resp);
	r->kind = SROCE_RES_ATOMIC;
	r->psn = sroce_bth_psn(bth);
	r->orig = op.orig;
	return SROCE_RESP_DONE;
}

/*
 * A duplicate RDMA READ request, for all or the rest of a READ (IBTA
 * 9.7.5.1.2: read again). When its resource is still pending and has
 * not reached the PSN asked for, the responses on their way answer it;
 * otherwise it restarts from the request (sroce_res_restart()), its rkey
 * checked again. Returns: responses to push.
 */
static bool sroce_resp_dup_read(struct sroce_qp *qp, const struct sk_buff *skb,
				u32 pay)
{
	struct sroce_resp *resp = &qp->resp;
	u32 psn = sroce_bth_psn((const void *)skb->data);
	struct sroce_res *r;

	r = sroce_res_find_read(resp, psn, ib_mtu_enum_to_int(qp->params.path_mtu));
	if (r && r->pending && !sroce_psn_before(psn, r->next_psn))
		return true;
	if (sroce_resp_read_check(qp, skb, pay) != SROCE_RESP_DONE)
		return false;
	/*
	 * A READ of nothing has no rkey to check: one that matches no
	 * resource does not get to drop the responses still pending (the
	 * requester asks again once they are out).
	 */
	if (!r && !sroce_resp_read_len(skb) && resp->res_pending)
		return false;
	/* None free: more outstanding than max_dest_rd_atomic; dropped. */
	r = sroce_res_restart(resp, r, psn);
	if (!r)
		return false;
	sroce_res_read_from(r, skb);
	return true;
}

/*
 * A duplicate atomic (or ATOMIC WRITE, or FLUSH): the requester went back
 * to it, so the responses still pending for it and the requests after it
 * are dropped (it sends those again), not sent twice; those before it
 * still go. It is answered from its resource (an atomic with the original
 * value kept), never executed twice. Returns: responses to push.
 */
static bool sroce_resp_dup_atomic(struct sroce_qp *qp, const struct sk_buff *skb)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	u32 psn = sroce_bth_psn(bth), i;
	enum sroce_res_kind kind;
	struct sroce_res *r;
	u64 orig;

	kind = SROCE_OPCODE_OP(bth->opcode) == SROCE_OP_CMP_SWAP ||
	       SROCE_OPCODE_OP(bth->opcode) == SROCE_OP_FETCH_ADD ?
	       SROCE_RES_ATOMIC : SROCE_RES_EMPTY;

	sroce_res_drop_from(resp, psn);
	for (i = 0; i < resp->nres; i++) {
		r = &resp->res[i];
		if (r->kind != kind || r->psn != psn)
			continue;
		/* Its answer is still on its way: that one answers both. */
		if (r->pending)
			return true;
		/* Copied first: the slot taken may be this very one. */
		orig = r->orig;
		r = sroce_res_take(resp);
		/*
		 * None free cannot happen while the requests' PSNs stay within
		 * half the PSN space (sroce_res_fits()); if it did, the
		 * duplicate is dropped and the requester's timer recovers.
		 */
		if (WARN_ON_ONCE(!r))
			return false;
		r->kind = kind;
		r->psn = psn;
		r->next_psn = psn;
		r->orig = orig;
		r->replay = true;
		return true;
	}
	return false;	/* too old to answer: the requester times out */
}

/* Take the receive WQE a message consumes, from the RQ or the SRQ. */
/* The status of a receive WQE taken and not usable (sroce_resp_take_wqe()). */
static enum ib_wc_status sroce_resp_take_status(int err)
{
	return err == -ESHUTDOWN ? IB_WC_WR_FLUSH_ERR : IB_WC_LOC_QP_OP_ERR;
}

/*
 * Take the receive WQE of a new message into resp.wqe and make it the
 * active one, under rq_lock: from then on either the responder completes
 * it (sroce_resp_complete()) or a move to ERR flushes it (qp.c), once.
 * Returns -ENOENT when none is posted; -ESHUTDOWN when the QP went to
 * ERR meanwhile (an SRQ's WQE is then taken and active: the caller
 * completes it, flushed); another error for a WQE active but malformed.
 */
static int sroce_resp_take_wqe(struct sroce_qp *qp)
{
	struct sroce_rwqe *wqe = qp->resp.wqe;
	bool active;
	int err = 0;

	lockdep_assert_held(&qp->resp.lock);
	/*
	 * UC: the WQE of a message dropped is the next message's. RC: the
	 * packet RNR NAKed for an ODP page, sent again, finds its WQE.
	 */
	if ((qp->ibqp.qp_type == IB_QPT_UC || qp->resp.wqe_kept) &&
	    READ_ONCE(qp->resp.wqe_active))
		return 0;
	if (qp->ibqp.srq) {
		err = sroce_srq_take(to_ssrq(qp->ibqp.srq), wqe, 0);
		if (err == -ENOENT)
			return err;
	}
	spin_lock(&qp->rq_lock);
	if (qp->state == IB_QPS_ERR) {
		/* The ring is flushed; an SRQ's WQE, taken, is ours to flush. */
		err = -ESHUTDOWN;
		active = qp->ibqp.srq;
	} else {
		if (!qp->ibqp.srq)
			err = sroce_rwqe_take(&qp->rq, qp->cap.max_recv_sge, wqe, 0);
		active = err != -ENOENT;
	}
	if (active)
		WRITE_ONCE(qp->resp.wqe_active, true);
	spin_unlock(&qp->rq_lock);
	return err;
}

/* Place @len payload bytes at @off of @skb into the WQE at @at. */
static int sroce_resp_scatter(struct sroce_qp *qp, const struct sk_buff *skb,
			      unsigned int off, u32 at, u32 len)
{
	const struct sroce_rwqe *wqe = qp->resp.wqe;
	struct sroce_skb_cursor s = { .skb = skb, .off = off };

	return sroce_sge_walk(to_sdev(qp->ibqp.device), qp->ibqp.pd, wqe->sge,
			      wqe->num_sge, at, len, IB_ACCESS_LOCAL_WRITE,
			      sroce_skb_copy_piece, &s);
}

/*
 * Complete the message's receive WQE, with the immediate data or the key
 * invalidated (@imm or @inv, the header's word). Returns: notify the CQ.
 */
static bool sroce_resp_complete(struct sroce_qp *qp, enum ib_wc_status status,
				enum ib_wc_opcode opcode, u32 byte_len,
				const __be32 *imm, const __be32 *inv,
				bool solicited)
{
	struct ib_wc wc = {
		.wr_id = qp->resp.wqe->wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp = &qp->ibqp,
		.src_qp = qp->params.dest_qpn,
		.port_num = SROCE_PORT_NUM,
	};
	bool active;
	int ret;

	if (imm) {
		wc.ex.imm_data = *imm;
		wc.wc_flags |= IB_WC_WITH_IMM;
	} else if (inv) {
		wc.ex.invalidate_rkey = be32_to_cpu(*inv);
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	qp->resp.wqe_kept = false;
	spin_lock(&qp->rq_lock);
	/* A move to ERR may have flushed it already: it completes once. */
	active = qp->resp.wqe_active;
	WRITE_ONCE(qp->resp.wqe_active, false);
	ret = active ? sroce_cq_add(qp->ibqp.recv_cq, &wc, qp->ibqp.qp_num,
				    solicited) : 0;
	spin_unlock(&qp->rq_lock);
	/* Overflowed: the CQ is in error; the request must not be ACKed. */
	if (ret < 0)
		qp->resp.cq_lost = true;
	return ret > 0;
}

static enum sroce_resp_verdict
sroce_resp_send(struct sroce_qp *qp, const struct sk_buff *skb,
		const struct sroce_opcode_info *info, u32 pay, bool *notify)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	const __be32 *imm = NULL, *inv = NULL;
	int err;

	lockdep_assert_held(&resp->lock);
	if (info->pos == SROCE_POS_FIRST || info->pos == SROCE_POS_ONLY) {
		err = sroce_resp_take_wqe(qp);
		if (err == -ENOENT)
			return SROCE_RESP_RNR;
		resp->received = 0;
		if (err) {
			*notify |= sroce_resp_complete(qp, sroce_resp_take_status(err),
						       IB_WC_RECV, 0, NULL, NULL, false);
			return SROCE_RESP_OP_ERR;
		}
	}
	if (!READ_ONCE(resp->wqe_active))
		return SROCE_RESP_INV_REQ;
	if (pay > resp->wqe->length - resp->received) {
		/* UC: the message is dropped, its WQE kept for the next. */
		if (qp->ibqp.qp_type == IB_QPT_UC)
			return SROCE_RESP_INV_REQ;
		*notify |= sroce_resp_complete(qp, IB_WC_LOC_LEN_ERR, IB_WC_RECV,
					       0, NULL, NULL, false);
		return SROCE_RESP_INV_REQ;
	}
	err = sroce_resp_scatter(qp, skb, info->hdr_len, resp->received, pay);
	if (err == -EFAULT && qp->ibqp.qp_type == IB_QPT_RC) {
		/* An ODP page faults in meanwhile; nothing was placed. */
		resp->wqe_kept = true;
		return SROCE_RESP_RNR;
	}
	if (err) {
		*notify |= sroce_resp_complete(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV,
					       0, NULL, NULL, false);
		return SROCE_RESP_OP_ERR;
	}
	resp->received += pay;
	if (info->pos != SROCE_POS_LAST && info->pos != SROCE_POS_ONLY)
		return SROCE_RESP_DONE;
	if (info->hdrs & SROCE_HDR_IMM)
		imm = &((const struct sroce_immdt *)(skb->data +
			info->hdr_len - sizeof(struct sroce_immdt)))->imm;
	if (info->hdrs & SROCE_HDR_IETH) {
		inv = &((const struct sroce_ieth *)(bth + 1))->rkey;
		/* A fast-registration MR or a type 2 window of ours. */
		if (sroce_key_invalidate(qp, be32_to_cpu(*inv), true)) {
			*notify |= sroce_resp_complete(qp, IB_WC_LOC_QP_OP_ERR,
						       IB_WC_RECV, 0, NULL, NULL,
						       false);
			return SROCE_RESP_INV_REQ;
		}
	}
	*notify |= sroce_resp_complete(qp, IB_WC_SUCCESS, IB_WC_RECV,
				       resp->received, imm, inv,
				       sroce_bth_se(bth));
	return SROCE_RESP_DONE;
}

static enum sroce_resp_verdict
sroce_resp_write(struct sroce_qp *qp, const struct sk_buff *skb,
		 const struct sroce_opcode_info *info, u32 pay, bool *notify)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	const struct sroce_reth *reth;
	struct sroce_skb_cursor s = { .skb = skb, .off = info->hdr_len };
	bool last = info->pos == SROCE_POS_LAST || info->pos == SROCE_POS_ONLY;
	struct sroce_mr *mr;
	u64 va;
	int err;

	lockdep_assert_held(&resp->lock);
	if (info->hdrs & SROCE_HDR_RETH) {
		reth = (const void *)(bth + 1);
		resp->va = be64_to_cpu(reth->va);
		resp->rkey = be32_to_cpu(reth->rkey);
		resp->remaining = be32_to_cpu(reth->dma_len);
		resp->received = 0;
		if (!(qp->params.access & IB_ACCESS_REMOTE_WRITE))
			return SROCE_RESP_INV_REQ;
		/* The whole range, once, before any byte lands. */
		if (resp->remaining) {
			va = resp->va;
			mr = sroce_rkey_get(qp, resp->rkey,
					    IB_ACCESS_REMOTE_WRITE, &va,
					    resp->remaining);
			if (IS_ERR(mr))
				return SROCE_RESP_ACCESS;
			/* ODP: one fault for the pages to come, not one each. */
			sroce_mr_ready(mr, va,
				       min_t(u32, resp->remaining, SROCE_ODP_FAULT_MAX));
			sroce_mr_put(mr);
		}
	}
	if (pay > resp->remaining || (last && pay != resp->remaining))
		return SROCE_RESP_INV_REQ;
	/*
	 * WRITE with immediate completes a receive WQE: taken before a byte
	 * lands, so that an RNR NAK leaves the message where it was and its
	 * last packet, sent again, finds it so.
	 */
	if (last && (info->hdrs & SROCE_HDR_IMM)) {
		err = sroce_resp_take_wqe(qp);
		if (err == -ENOENT)
			return SROCE_RESP_RNR;
		if (err) {
			*notify |= sroce_resp_complete(qp, sroce_resp_take_status(err),
						       IB_WC_RECV_RDMA_WITH_IMM,
						       0, NULL, NULL, false);
			return SROCE_RESP_OP_ERR;
		}
	}
	if (pay) {
		va = resp->va;
		mr = sroce_rkey_get(qp, resp->rkey, IB_ACCESS_REMOTE_WRITE, &va,
				    pay);
		if (IS_ERR(mr))
			return SROCE_RESP_ACCESS;
		err = sroce_mr_walk(mr, va, pay, sroce_skb_copy_piece, &s);
		sroce_mr_put(mr);
		/* An ODP page faults in meanwhile; nothing was placed. */
		if (err) {
			resp->wqe_kept = READ_ONCE(resp->wqe_active);
			return SROCE_RESP_RNR;
		}
	}
	resp->va += pay;
	resp->remaining -= pay;
	resp->received += pay;
	if (!last || !(info->hdrs & SROCE_HDR_IMM))
		return SROCE_RESP_DONE;
	*notify |= sroce_resp_complete(qp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM,
				       resp->received,
				       &((const struct sroce_immdt *)(skb->data +
					 info->hdr_len - sizeof(struct sroce_immdt)))->imm,
				       NULL, sroce_bth_se(bth));
	return SROCE_RESP_DONE;
}

static u8 sroce_resp_nak(enum sroce_resp_verdict v)
{
	switch (v) {
	case SROCE_RESP_INV_REQ:
		return SROCE_AETH_NAK | SROCE_NAK_INV_REQ;
	case SROCE_RESP_ACCESS:
		return SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS;
	default:
		return SROCE_AETH_NAK | SROCE_NAK_REM_OP_ERR;
	}
}

enum sroce_psn_verdict sroce_resp_psn_verdict(u32 psn, u32 expected,
					      bool nak_sent,
					      enum sroce_op_class cls,
					      bool ack_wanted)
{
	s32 d = sroce_psn_diff(psn, expected);

	if (!d)
		return SROCE_PSN_EXECUTE;
	if (d > 0)
		return nak_sent ? SROCE_PSN_SILENT : SROCE_PSN_NAK_SEQ;
	switch (cls) {
	case SROCE_CLASS_READ_REQ:
		return SROCE_PSN_DUP_READ;
	case SROCE_CLASS_ATOMIC:
	case SROCE_CLASS_ATOMIC_WRITE:
	case SROCE_CLASS_FLUSH:
		return SROCE_PSN_DUP_ATOMIC;
	default:
		/*
		 * ACKed at the duplicate's own PSN: a later one would also
		 * cover READs whose responses may be what was lost.
		 */
		return ack_wanted ? SROCE_PSN_DUP_ACK : SROCE_PSN_DUP_DROP;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_psn_verdict);

/*
 * The PSN decides first (sroce_resp_psn_verdict()). Returns true for a
 * request to execute; anything else was answered or dropped here, and
 * @push says whether responses wait to be sent.
 */
static bool sroce_resp_by_psn(struct sroce_qp *qp, const struct sk_buff *skb,
			      const struct sroce_opcode_info *info, u32 pay,
			      bool *push)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	u32 psn = sroce_bth_psn(bth);
	bool last = info->pos == SROCE_POS_LAST || info->pos == SROCE_POS_ONLY;

	lockdep_assert_held(&resp->lock);
	switch (sroce_resp_psn_verdict(psn, resp->psn, resp->nak_sent, info->cls,
				       last || sroce_bth_ackreq(bth))) {
	case SROCE_PSN_EXECUTE:
		resp->nak_sent = false;
		return true;
	case SROCE_PSN_NAK_SEQ:
		sroce_reply_ack(qp, resp->psn,
				SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR);
		resp->nak_sent = true;
		fallthrough;
	case SROCE_PSN_SILENT:
		sroce_count(sdev, SROCE_CNT_RX_SEQ_GAP);
		return false;
	case SROCE_PSN_DUP_READ:
		/* Executed before: answer again (the answer may be lost). */
		sroce_count(sdev, SROCE_CNT_RX_DUP_REQUEST);
		*push = sroce_resp_dup_read(qp, skb, pay);
		return false;
	case SROCE_PSN_DUP_ATOMIC:
		sroce_count(sdev, SROCE_CNT_RX_DUP_REQUEST);
		*push = sroce_resp_dup_atomic(qp, skb);
		return false;
	case SROCE_PSN_DUP_ACK:
		sroce_reply_ack_in_order(qp, psn);
		fallthrough;
	case SROCE_PSN_DUP_DROP:
	default:
		sroce_count(sdev, SROCE_CNT_RX_DUP_REQUEST);
		return false;
	}
}

/* Execute the request at the PSN expected; @npsn: the PSNs it takes. */
static enum sroce_resp_verdict
sroce_resp_execute(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_opcode_info *info, u32 pay, bool *notify,
		   u32 *npsn)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	bool last = info->pos == SROCE_POS_LAST || info->pos == SROCE_POS_ONLY;

	/* Inside a message every packet but the last is exactly one MTU. */
	if (!sroce_opcode_next_ok(qp->resp.prev, bth->opcode) ||
	    (!last && pay != mtu) || pay > mtu)
		return SROCE_RESP_INV_REQ;
	switch (info->cls) {
	case SROCE_CLASS_SEND:
		return sroce_resp_send(qp, skb, info, pay, notify);
	case SROCE_CLASS_WRITE:
		return sroce_resp_write(qp, skb, info, pay, notify);
	case SROCE_CLASS_READ_REQ:
		return sroce_resp_read(qp, skb, info, pay, npsn);
	case SROCE_CLASS_ATOMIC:
		return sroce_resp_atomic(qp, skb, pay);
	case SROCE_CLASS_ATOMIC_WRITE:
		return sroce_resp_atomic_write(qp, skb, info, pay);
	case SROCE_CLASS_FLUSH:
		return sroce_resp_flush(qp, skb, pay);
	default:
		return SROCE_RESP_INV_REQ;
	}
}

enum sroce_uc_verdict sroce_resp_uc_verdict(u32 psn, u32 expected,
					    bool dropping, int prev, u8 opcode)
{
	struct sroce_opcode_info info;

	if (!sroce_opcode_decode(opcode, &info))
		return SROCE_UC_DROP;
	if (!dropping && psn == expected && sroce_opcode_next_ok(prev, opcode))
		return SROCE_UC_EXECUTE;
	if (info.pos == SROCE_POS_FIRST || info.pos == SROCE_POS_ONLY)
		return SROCE_UC_RESTART;
	return SROCE_UC_DROP;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_uc_verdict);

/* UC: drop the message in progress, and its packets still to come. */
static void sroce_resp_uc_drop(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	lockdep_assert_held(&resp->lock);
	if (!resp->uc_dropping)
		sroce_count_drop(to_sdev(qp->ibqp.device),
				 SROCE_CNT_RX_DROP_UC_MSG, qp->ibqp.qp_num, 0);
	resp->uc_dropping = true;
	resp->prev = SROCE_OPCODE_NONE;
}

/*
 * A UC request (IBTA 9.8.3; Documentation/datapath.rst, "Unreliable
 * connected"): never answered. Out of sequence, a FIRST or ONLY starts a
 * new message where it is and anything else is dropped; a remote error
 * drops the message; only a local error of the receive WQE (or its CQ)
 * puts the QP in ERR.
 */
static void sroce_resp_uc_recv(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_opcode_info *info, u32 pay)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	bool last = info->pos == SROCE_POS_LAST || info->pos == SROCE_POS_ONLY;
	struct sroce_resp *resp = &qp->resp;
	u32 psn = sroce_bth_psn(bth), npsn = 1;
	enum sroce_resp_verdict v;
	bool notify = false;

	spin_lock(&resp->lock);
	if (psn != resp->psn && !resp->uc_dropping)
		sroce_count(sdev, SROCE_CNT_RX_SEQ_GAP);
	switch (sroce_resp_uc_verdict(psn, resp->psn, resp->uc_dropping,
				      resp->prev, bth->opcode)) {
	case SROCE_UC_EXECUTE:
		break;
	case SROCE_UC_RESTART:
		if (resp->prev != SROCE_OPCODE_NONE)
			sroce_resp_uc_drop(qp);
		resp->uc_dropping = false;
		resp->prev = SROCE_OPCODE_NONE;
		break;
	default:
		sroce_resp_uc_drop(qp);
		goto out;
	}
	v = sroce_resp_execute(qp, skb, info, pay, &notify, &npsn);
	resp->psn = sroce_psn_add(psn, 1);
	if (resp->cq_lost) {
		resp->cq_lost = false;
		v = SROCE_RESP_OP_ERR;
	}
	if (v == SROCE_RESP_OP_ERR) {
		spin_unlock(&resp->lock);
		if (notify)
			sroce_cq_notify(qp->ibqp.recv_cq);
		sroce_qp_enter_error(qp, IB_QPS_ERR);
		return;
	}
	if (v == SROCE_RESP_DONE) {
		resp->prev = last ? SROCE_OPCODE_NONE : bth->opcode;
	} else {
		if (v == SROCE_RESP_RNR)
			sroce_count_drop(sdev, SROCE_CNT_RX_DROP_NO_RECV,
					 qp->ibqp.qp_num, skb->len);
		sroce_resp_uc_drop(qp);
	}
out:
	spin_unlock(&resp->lock);
	if (notify)
		sroce_cq_notify(qp->ibqp.recv_cq);
}

void sroce_resp_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	u32 psn = sroce_bth_psn(bth), pay;
	enum sroce_resp_verdict v;
	struct sroce_opcode_info info;
	bool notify = false, last, push = false;
	u32 npsn = 1;
	int ret;

	if (!sroce_opcode_decode(bth->opcode, &info))
		return;
	pay = skb->len - info.hdr_len - sroce_bth_pad(bth) - SROCE_ICRC_BYTES;
	if (qp->ibqp.qp_type == IB_QPT_UC) {
		sroce_resp_uc_recv(qp, skb, &info, pay);
		return;
	}
	last = info.pos == SROCE_POS_LAST || info.pos == SROCE_POS_ONLY;

	spin_lock(&resp->lock);
	if (!sroce_resp_by_psn(qp, skb, &info, pay, &push))
		goto out;
	v = sroce_resp_execute(qp, skb, &info, pay, &notify, &npsn);
	/* A completion its CQ could not take: the QP fails (IBTA 11.4.2.1). */
	if (resp->cq_lost) {
		resp->cq_lost = false;
		v = SROCE_RESP_OP_ERR;
	}
	switch (v) {
	case SROCE_RESP_DONE:
		resp->psn = sroce_psn_add(resp->psn, npsn);
		resp->prev = last ? SROCE_OPCODE_NONE : bth->opcode;
		if (last)
			resp->msn = sroce_psn_add(resp->msn, 1);
		/* One with a resource is acknowledged by its responses. */
		if (info.cls == SROCE_CLASS_READ_REQ || info.cls == SROCE_CLASS_ATOMIC ||
		    info.cls == SROCE_CLASS_ATOMIC_WRITE || info.cls == SROCE_CLASS_FLUSH)
			push = true;
		else if (sroce_bth_ackreq(bth))
			sroce_reply_ack_in_order(qp, psn);
		break;
	case SROCE_RESP_RNR:
		sroce_count(sdev, SROCE_CNT_TX_RNR_NAK);
		sroce_reply_ack(qp, psn, SROCE_AETH_RNR_NAK | qp->params.min_rnr_timer);
		break;
	default:
		sroce_reply_ack(qp, psn, sroce_resp_nak(v));
		spin_unlock(&resp->lock);
		if (notify)
			sroce_cq_notify(qp->ibqp.recv_cq);
		sroce_qp_enter_error(qp, IB_QPS_ERR);
		return;
	}
out:
	ret = 0;
	if (push) {
		/* A work item already owns a backlog; else try it from here. */
		ret = resp->res_pending > 1 ? 1 :
		      sroce_reply_push(qp, SROCE_RESP_INLINE_BUDGET);
		if (ret > 0)
			queue_work(system_highpri_wq, &resp->work);
	}
	spin_unlock(&resp->lock);
	if (notify)
		sroce_cq_notify(qp->ibqp.recv_cq);
	if (ret < 0)
		sroce_qp_enter_error(qp, IB_QPS_ERR);
}
