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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/slab.h>

#include "engine.h"
#include "mr.h"
#include "psn.h"
#include "qp.h"
#include "sroce.h"
#include "srq.h"
#include "wire.h"

/* The outcome of one request packet. */
enum sroce_resp_verdict {
	SROCE_RESP_DONE,	/* executed */
	SROCE_RESP_RNR,		/* no receive WQE: RNR NAK, PSN kept */
	SROCE_RESP_INV_REQ,	/* NAK invalid request, QP to ERR */
	SROCE_RESP_ACCESS,	/* NAK remote access error, QP to ERR */
	SROCE_RESP_OP_ERR,	/* NAK remote operational error, QP to ERR */
};

/*
 * Response packets sent per run of the work item before it requeues: one
 * chain (SROCE_RESP_CHAIN). A run holds the responder lock with bottom
 * halves off, so the transmit completions that wake other QPs and the
 * requests that keep them busy wait until it ends. Against two chains a
 * run, one made READ of 1 MiB with 4 QPs 14 % faster on average, in five
 * of five pairs of runs (Documentation/datapath.rst, "Chains").
 */
#define SROCE_RESP_BUDGET	32
/* ... and straight from the softirq, when nothing waits ahead. */
#define SROCE_RESP_INLINE_BUDGET	16

static void sroce_resp_work(struct work_struct *work);

int sroce_resp_init(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	spin_lock_init(&resp->lock);
	INIT_WORK(&resp->work, sroce_resp_work);
	resp->prev = SROCE_OPCODE_NONE;
	resp->nres = 1;
	resp->wqe = kzalloc_obj(*resp->wqe, GFP_KERNEL);
	if (!resp->wqe)
		return -ENOMEM;
	resp->res = kcalloc(SROCE_MAX_RD_ATOMIC, sizeof(*resp->res), GFP_KERNEL);
	if (!resp->res) {
		kfree(resp->wqe);
		return -ENOMEM;
	}
	return 0;
}

void sroce_resp_free(struct sroce_qp *qp)
{
	cancel_work_sync(&qp->resp.work);
	kfree(qp->resp.res);
	kfree(qp->resp.wqe);
}

void sroce_resp_reset(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	lockdep_assert_held(&resp->lock);
	/* 0 counts as 1, as the hardware drivers read it. */
	resp->nres = clamp_t(u32, qp->params.max_dest_rd_atomic, 1,
			     SROCE_MAX_RD_ATOMIC);
	memset(resp->res, 0, SROCE_MAX_RD_ATOMIC * sizeof(*resp->res));
	resp->res_head = 0;
	resp->res_pending = 0;
	resp->ack_pending = false;
}

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

static void sroce_resp_ack(struct sroce_qp *qp, u32 psn, u8 syndrome)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_aeth *aeth;
	struct sroce_bth *bth;
	struct sk_buff *skb;

	skb = sroce_net_alloc_skb(sdev, sizeof(*bth) + sizeof(*aeth));
	if (!skb) {
		sroce_count(sdev, SROCE_CNT_TX_DROP);
		return;
	}
	if ((syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_NAK)
		sroce_count(sdev, (syndrome & ~SROCE_AETH_TYPE_MASK) ==
			    SROCE_NAK_PSN_SEQ_ERR ? SROCE_CNT_TX_NAK_SEQ :
						    SROCE_CNT_TX_NAK_ERROR);
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_ACK), false, 0,
		       SROCE_PKEY_DEFAULT, qp->params.dest_qpn, psn, false);
	aeth = skb_put(skb, sizeof(*aeth));
	sroce_aeth_set(aeth, syndrome, qp->resp.msn);
	if (sroce_net_xmit(sdev, &qp->req.path, &qp->req.dst_cache, skb))
		sroce_count(sdev, SROCE_CNT_TX_DROP);
	else
		sroce_count(sdev, SROCE_CNT_TX_PACKETS);
}

/* A positive ACK, after the responses of the requests before it. */
static void sroce_resp_ack_in_order(struct sroce_qp *qp, u32 psn)
{
	struct sroce_resp *resp = &qp->resp;

	if (resp->res_pending) {
		resp->ack_psn = psn;
		resp->ack_pending = true;
		return;
	}
	sroce_resp_ack(qp, psn, SROCE_AETH_ACK | SROCE_AETH_NO_CREDIT);
}

/* The oldest resource with responses still to send. */
static struct sroce_res *sroce_res_oldest(struct sroce_resp *resp)
{
	return &resp->res[(resp->res_head + resp->nres - resp->res_pending) %
			  resp->nres];
}

struct sroce_res *sroce_res_take(struct sroce_resp *resp)
{
	struct sroce_res *r;

	if (resp->res_pending == resp->nres)
		return NULL;
	r = &resp->res[resp->res_head];
	resp->res_head = (resp->res_head + 1) % resp->nres;
	resp->res_pending++;
	memset(r, 0, sizeof(*r));
	r->pending = true;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_take);

/*
 * Responses of one READ sent as one chain (sroce_net_chain()): one pass
 * through the stack and one doorbell for them all, and at the requester
 * one burst for its interrupt. Against eight, 32 took READ of 1 MiB with
 * 1 QP from 158 to 172 MB/s in one boot (Documentation/datapath.rst,
 * "Chains"). The budgets (SROCE_RESP_BUDGET, SROCE_RESP_INLINE_BUDGET) still
 * bound a pass.
 */
#define SROCE_RESP_CHAIN	32
/* A smaller budget would cut the work item's chains short. */
static_assert(SROCE_RESP_BUDGET >= SROCE_RESP_CHAIN);

/* The next response of @r: its opcode and payload, padding, wire length. */
struct sroce_resp_pkt {
	struct sroce_opcode_info info;
	u8 opcode;
	u32 pay;
	u32 pad;
	u32 len;
};

static bool sroce_resp_next(const struct sroce_res *r, u32 mtu,
			    struct sroce_resp_pkt *p)
{
	enum sroce_op op;

	p->pay = 0;
	p->pad = 0;
	if (r->kind == SROCE_RES_ATOMIC) {
		op = SROCE_OP_ATOMIC_ACK;
	} else {
		p->pay = min(r->left, mtu);
		p->pad = (4 - (p->pay & 3)) & 3;
		if (r->first)
			op = p->pay == r->left ? SROCE_OP_READ_RESP_ONLY :
						 SROCE_OP_READ_RESP_FIRST;
		else
			op = p->pay == r->left ? SROCE_OP_READ_RESP_LAST :
						 SROCE_OP_READ_RESP_MIDDLE;
	}
	p->opcode = SROCE_OPCODE(SROCE_TR_RC, op);
	if (WARN_ON_ONCE(!sroce_opcode_decode(p->opcode, &p->info)))
		return false;
	p->len = p->info.hdr_len + p->pay + p->pad;
	return true;
}

struct sroce_read_dst {
	u8 *dst;
};

static void sroce_read_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_read_dst *d = ctx;

	memcpy(d->dst, kaddr, len);
	d->dst += len;
}

/*
 * Build response @p of @r, a READ's payload copied out of @mr, into
 * *@out, and move @r past it. Returns 0, -ENOMEM, or -EACCES when the
 * payload could not be read.
 */
static int sroce_resp_build(struct sroce_qp *qp, struct sroce_res *r,
			    const struct sroce_resp_pkt *p, struct sroce_mr *mr,
			    struct sk_buff **out)
{
	struct sroce_atomic_ack_eth *aack;
	struct sroce_read_dst d;
	struct sroce_aeth *aeth;
	struct sroce_bth *bth;
	struct sk_buff *skb;

	/* Every byte it puts is written: a reused page holds old ones. */
	skb = sroce_net_alloc_skb_reuse(to_sdev(qp->ibqp.device), p->len);
	if (!skb)
		return -ENOMEM;
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, p->opcode, false, p->pad, SROCE_PKEY_DEFAULT,
		       qp->params.dest_qpn,
		       r->kind == SROCE_RES_ATOMIC ? r->psn : r->next_psn, false);
	if (p->info.hdrs & SROCE_HDR_AETH) {
		aeth = skb_put(skb, sizeof(*aeth));
		sroce_aeth_set(aeth, SROCE_AETH_ACK | SROCE_AETH_NO_CREDIT,
			       qp->resp.msn);
	}
	if (r->kind == SROCE_RES_ATOMIC) {
		aack = skb_put(skb, sizeof(*aack));
		aack->orig = cpu_to_be64(r->orig);
		*out = skb;
		return 0;
	}
	/* All of it or nothing: a packet never goes half filled. */
	d.dst = skb_put(skb, p->pay);
	if (p->pay && sroce_mr_walk(mr, r->va, p->pay, sroce_read_piece, &d)) {
		kfree_skb(skb);
		return -EACCES;
	}
	skb_put_zero(skb, p->pad);
	r->first = false;
	r->va += p->pay;
	r->left -= p->pay;
	r->next_psn = sroce_psn_add(r->next_psn, 1);
	*out = skb;
	return 0;
}

/*
 * Send the next responses of @r, at most @budget (at least one), a READ's
 * as one chain where the path allows. A READ's payload is always copied,
 * even with tx_zcopy: the responder's application may write that memory
 * while the peer reads it (the peer then gets torn data, which is its
 * problem), but the ICRC is computed here, and payload pages read again
 * later by the NIC would no longer match it: the peer would drop every
 * such packet and retry until its QP failed. Sets @done when @r has no
 * more. Returns how many went, -ENOMEM to try again later, -EACCES when
 * a READ's memory went away.
 */
static int sroce_resp_send_res(struct sroce_qp *qp, struct sroce_res *r,
			       unsigned int budget, bool *done)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	struct sk_buff *pkts[SROCE_RESP_CHAIN];
	struct sroce_mr *mr = NULL;
	struct sroce_resp_pkt p;
	unsigned int most = 1, n;
	int err = 0;

	if (r->kind == SROCE_RES_READ && r->left > mtu && budget > 1 &&
	    sroce_net_can_chain(sdev, &qp->req.path, &qp->req.dst_cache))
		most = min3(SROCE_RESP_CHAIN, DIV_ROUND_UP(r->left, mtu), budget);
	if (r->kind == SROCE_RES_READ && r->left) {
		/* The MR may have gone since the request: look again. */
		mr = sroce_mr_get(sdev, r->rkey, qp->ibqp.pd,
				  IB_ACCESS_REMOTE_READ, r->va,
				  min_t(u64, r->left, (u64)most * mtu));
		if (IS_ERR(mr))
			return -EACCES;
	}
	for (n = 0; n < most; n++) {
		if (!sroce_resp_next(r, mtu, &p)) {
			err = -EINVAL;
			break;
		}
		/*
		 * Segmentation sizes each packet of a chain by its head: a
		 * LAST with a full payload and its AETH after MIDDLEs goes
		 * in the next chain.
		 */
		if (n && p.len > pkts[0]->len)
			break;
		err = sroce_resp_build(qp, r, &p, mr, &pkts[n]);
		if (err)
			break;
	}
	if (mr)
		sroce_mr_put(mr);
	if (!n)
		return err;
	sroce_tx_send(qp, pkts, n);
	*done = r->kind == SROCE_RES_ATOMIC || !r->left;
	return n;
}

/*
 * Send pending responses, oldest first, at most @budget packets, then
 * the ACK that waited behind them. Returns 1 when some remain, 0 when
 * all went or the QP has its limit queued, -EACCES when a READ's
 * memory went away (NAKed; the caller moves the QP to ERR once the lock
 * is dropped).
 */
static int sroce_resp_push(struct sroce_qp *qp, unsigned int budget)
{
	struct sroce_resp *resp = &qp->resp;
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sroce_res *r;
	bool done;
	int ret;

	lockdep_assert_held(&resp->lock);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS && state != IB_QPS_SQD &&
	    state != IB_QPS_SQE) {
		/* Nobody to answer any more. */
		resp->res_pending = 0;
		resp->ack_pending = false;
		return 0;
	}
	while (resp->res_pending) {
		if (!budget)
			return 1;
		/* Not "some remain": the queue's drain kicks the work item. */
		if (sroce_tx_throttled(qp))
			return 0;
		r = sroce_res_oldest(resp);
		ret = sroce_resp_send_res(qp, r, budget, &done);
		if (ret == -ENOMEM)
			return 1;
		if (ret < 0) {
			sroce_resp_ack(qp, r->next_psn,
				       SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS);
			resp->res_pending = 0;
			resp->ack_pending = false;
			return -EACCES;
		}
		/* The budget counts packets. */
		budget -= min_t(unsigned int, budget, ret);
		if (done) {
			r->pending = false;
			resp->res_pending--;
		}
	}
	if (resp->ack_pending) {
		resp->ack_pending = false;
		sroce_resp_ack(qp, resp->ack_psn,
			       SROCE_AETH_ACK | SROCE_AETH_NO_CREDIT);
	}
	return 0;
}

static void sroce_resp_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, resp.work);
	int ret;

	spin_lock_bh(&qp->resp.lock);
	ret = sroce_resp_push(qp, SROCE_RESP_BUDGET);
	spin_unlock_bh(&qp->resp.lock);
	if (ret < 0)
		sroce_qp_to_error(qp);
	else if (ret)
		queue_work(system_highpri_wq, &qp->resp.work);
}

/* Check a READ request: the QP's and the MR's remote read access. */
static enum sroce_resp_verdict
sroce_resp_read_check(struct sroce_qp *qp, const struct sk_buff *skb, u32 pay)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_reth *reth = (const void *)(skb->data +
						       sizeof(struct sroce_bth));
	u32 len = be32_to_cpu(reth->dma_len);
	struct sroce_mr *mr;

	if (pay || len > SROCE_MAX_MSG_SIZE)
		return SROCE_RESP_INV_REQ;
	if (!(qp->params.access & IB_ACCESS_REMOTE_READ))
		return SROCE_RESP_ACCESS;
	if (len) {
		mr = sroce_mr_get(sdev, be32_to_cpu(reth->rkey), qp->ibqp.pd,
				  IB_ACCESS_REMOTE_READ, be64_to_cpu(reth->va), len);
		if (IS_ERR(mr))
			return SROCE_RESP_ACCESS;
		sroce_mr_put(mr);
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
	struct sroce_res *r;

	if (v != SROCE_RESP_DONE)
		return v;
	r = sroce_res_take(&qp->resp);
	if (!r)
		return SROCE_RESP_INV_REQ;	/* over max_dest_rd_atomic */
	sroce_res_read_from(r, skb);
	r->psn = r->next_psn;
	*npsn = sroce_req_npsn(IB_WR_RDMA_READ, r->left,
			       ib_mtu_enum_to_int(qp->params.path_mtu));
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
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_atomic_op op = { .ateth = (const void *)(bth + 1) };
	u64 va = be64_to_cpu(op.ateth->va);
	struct sroce_res *r;
	struct sroce_mr *mr;

	if (pay)
		return SROCE_RESP_INV_REQ;
	if (!(qp->params.access & IB_ACCESS_REMOTE_ATOMIC))
		return SROCE_RESP_ACCESS;
	/* IBTA 9.4.5: naturally aligned, else an invalid request. */
	if (va & (sizeof(u64) - 1))
		return SROCE_RESP_INV_REQ;
	mr = sroce_mr_get(sdev, be32_to_cpu(op.ateth->rkey), qp->ibqp.pd,
			  IB_ACCESS_REMOTE_ATOMIC, va, sizeof(u64));
	if (IS_ERR(mr))
		return SROCE_RESP_ACCESS;
	r = sroce_res_take(&qp->resp);
	if (!r) {
		sroce_mr_put(mr);
		return SROCE_RESP_INV_REQ;	/* over max_dest_rd_atomic */
	}
	op.cmp_swap = SROCE_OPCODE_OP(bth->opcode) == SROCE_OP_CMP_SWAP;
	sroce_mr_walk(mr, va, sizeof(u64), sroce_atomic_piece, &op);
	sroce_mr_put(mr);
	r->kind = SROCE_RES_ATOMIC;
	r->psn = sroce_bth_psn(bth);
	r->orig = op.orig;
	return SROCE_RESP_DONE;
}

struct sroce_res *sroce_res_find_read(struct sroce_resp *resp, u32 psn,
				      u32 mtu)
{
	struct sroce_res *r, *found = NULL;
	u32 i, last;

	/* From the oldest slot (the next one taken) to the newest. */
	for (i = 0; i < resp->nres; i++) {
		r = &resp->res[(resp->res_head + i) % resp->nres];
		if (r->kind != SROCE_RES_READ)
			continue;
		/* The last PSN it has sent or will send. */
		last = sroce_psn_add(r->next_psn,
				     DIV_ROUND_UP(r->left, mtu) + SROCE_PSN_MASK);
		if (!sroce_psn_before(psn, r->psn) && !sroce_psn_before(last, psn))
			found = r;
	}
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_find_read);

/*
 * The requester went back to @psn: it sends the requests from there on
 * again, so the pending responses of those are dropped, newest first,
 * and their slots taken again. Those of requests before @psn stay: it
 * still waits for them, and they go out first.
 */
static void sroce_res_drop_from(struct sroce_resp *resp, u32 psn)
{
	u32 newest;

	while (resp->res_pending) {
		newest = (resp->res_head + resp->nres - 1) % resp->nres;
		if (sroce_psn_before(resp->res[newest].psn, psn))
			return;
		resp->res[newest].pending = false;
		resp->res_pending--;
		resp->res_head = newest;
	}
}

struct sroce_res *sroce_res_restart(struct sroce_resp *resp,
				    struct sroce_res *r, u32 psn)
{
	if (r && r->pending)
		return r;
	sroce_res_drop_from(resp, psn);
	if (r && !resp->res_pending &&
	    r == &resp->res[(resp->res_head + resp->nres - 1) % resp->nres]) {
		r->pending = true;
		resp->res_pending++;
		return r;
	}
	r = sroce_res_take(resp);
	if (r)
		r->psn = psn;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_restart);

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
	/* None free: more outstanding than max_dest_rd_atomic; dropped. */
	r = sroce_res_restart(resp, r, psn);
	if (!r)
		return false;
	sroce_res_read_from(r, skb);
	return true;
}

/*
 * A duplicate atomic: the requester went back to it, so the responses
 * still pending for it and the requests after it are dropped (it sends
 * those again), not sent twice; those before it still go. It is answered
 * with the original value its resource kept, never executed twice.
 * Returns: responses to push.
 */
static bool sroce_resp_dup_atomic(struct sroce_qp *qp, const struct sk_buff *skb)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	u32 psn = sroce_bth_psn(bth), i;
	struct sroce_res *r;
	u64 orig;

	sroce_res_drop_from(resp, psn);
	for (i = 0; i < resp->nres; i++) {
		r = &resp->res[i];
		if (r->kind != SROCE_RES_ATOMIC || r->psn != psn)
			continue;
		/* Copied first: the slot taken may be this very one. */
		orig = r->orig;
		r = sroce_res_take(resp);
		r->kind = SROCE_RES_ATOMIC;
		r->psn = psn;
		r->orig = orig;
		return true;
	}
	return false;	/* too old to answer: the requester times out */
}

/* Take the receive WQE a message consumes, from the RQ or the SRQ. */
static int sroce_resp_take_wqe(struct sroce_qp *qp)
{
	struct sroce_recv *wqe = qp->resp.wqe;
	int err;

	if (qp->ibqp.srq)
		return sroce_srq_take(to_ssrq(qp->ibqp.srq), wqe, 0);
	spin_lock(&qp->rq_lock);
	err = sroce_recv_take(&qp->rq, qp->cap.max_recv_sge, wqe, 0);
	spin_unlock(&qp->rq_lock);
	return err;
}

void sroce_skb_copy_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_skb_cursor *c = ctx;

	/* recv.c checked the lengths: the bytes are in the skb. */
	WARN_ON_ONCE(skb_copy_bits(c->skb, c->off, kaddr, len));
	c->off += len;
}

/* Place @len payload bytes at @off of @skb into the WQE at @at. */
static int sroce_resp_scatter(struct sroce_qp *qp, const struct sk_buff *skb,
			      unsigned int off, u32 at, u32 len)
{
	const struct sroce_recv *wqe = qp->resp.wqe;
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

	if (imm) {
		wc.ex.imm_data = *imm;
		wc.wc_flags |= IB_WC_WITH_IMM;
	} else if (inv) {
		wc.ex.invalidate_rkey = be32_to_cpu(*inv);
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	qp->resp.wqe_active = false;
	return sroce_cq_add(qp->ibqp.recv_cq, &wc, qp->ibqp.qp_num,
			    solicited) > 0;
}

static enum sroce_resp_verdict
sroce_resp_send(struct sroce_qp *qp, const struct sk_buff *skb,
		const struct sroce_opcode_info *info, u32 pay, bool *notify)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	const __be32 *imm = NULL, *inv = NULL;
	int err;

	if (info->pos == SROCE_POS_FIRST || info->pos == SROCE_POS_ONLY) {
		err = sroce_resp_take_wqe(qp);
		if (err == -ENOENT)
			return SROCE_RESP_RNR;
		resp->wqe_active = true;
		resp->received = 0;
		if (err) {
			*notify |= sroce_resp_complete(qp, IB_WC_LOC_QP_OP_ERR,
						       IB_WC_RECV, 0, NULL, NULL, false);
			return SROCE_RESP_OP_ERR;
		}
	}
	if (!resp->wqe_active)
		return SROCE_RESP_INV_REQ;
	if (pay > resp->wqe->length - resp->received) {
		*notify |= sroce_resp_complete(qp, IB_WC_LOC_LEN_ERR, IB_WC_RECV,
					       0, NULL, NULL, false);
		return SROCE_RESP_INV_REQ;
	}
	err = sroce_resp_scatter(qp, skb, info->hdr_len, resp->received, pay);
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
		/* Only a fast-registration MR of our PD. */
		if (sroce_mr_invalidate(to_sdev(qp->ibqp.device),
					be32_to_cpu(*inv), qp->ibqp.pd)) {
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
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	const struct sroce_reth *reth;
	struct sroce_skb_cursor s = { .skb = skb, .off = info->hdr_len };
	bool last = info->pos == SROCE_POS_LAST || info->pos == SROCE_POS_ONLY;
	struct sroce_mr *mr;
	int err;

	if (info->hdrs & SROCE_HDR_RETH) {
		reth = (const void *)(bth + 1);
		resp->va = be64_to_cpu(reth->va);
		resp->rkey = be32_to_cpu(reth->rkey);
		resp->remaining = be32_to_cpu(reth->dma_len);
		resp->received = 0;
		if (!(qp->params.access & IB_ACCESS_REMOTE_WRITE))
			return SROCE_RESP_ACCESS;
		/* The whole range, once, before any byte lands. */
		if (resp->remaining) {
			mr = sroce_mr_get(sdev, resp->rkey, qp->ibqp.pd,
					  IB_ACCESS_REMOTE_WRITE, resp->va,
					  resp->remaining);
			if (IS_ERR(mr))
				return SROCE_RESP_ACCESS;
			sroce_mr_put(mr);
		}
	}
	if (pay > resp->remaining || (last && pay != resp->remaining))
		return SROCE_RESP_INV_REQ;
	if (pay) {
		mr = sroce_mr_get(sdev, resp->rkey, qp->ibqp.pd,
				  IB_ACCESS_REMOTE_WRITE, resp->va, pay);
		if (IS_ERR(mr))
			return SROCE_RESP_ACCESS;
		sroce_mr_walk(mr, resp->va, pay, sroce_skb_copy_piece, &s);
		sroce_mr_put(mr);
	}
	resp->va += pay;
	resp->remaining -= pay;
	resp->received += pay;
	if (!last || !(info->hdrs & SROCE_HDR_IMM))
		return SROCE_RESP_DONE;

	/* WRITE with immediate: the data is placed, a receive WQE completes. */
	err = sroce_resp_take_wqe(qp);
	if (err == -ENOENT)
		return SROCE_RESP_RNR;
	resp->wqe_active = true;
	*notify |= sroce_resp_complete(qp, err ? IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS,
				       IB_WC_RECV_RDMA_WITH_IMM, resp->received,
				       &((const struct sroce_immdt *)(skb->data +
					 info->hdr_len - sizeof(struct sroce_immdt)))->imm,
				       NULL, sroce_bth_se(bth));
	return err ? SROCE_RESP_OP_ERR : SROCE_RESP_DONE;
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

void sroce_resp_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	u32 psn = sroce_bth_psn(bth), pay;
	enum sroce_resp_verdict v;
	struct sroce_opcode_info info;
	bool notify = false, last, push = false;
	u32 npsn = 1;
	int ret;

	if (!sroce_opcode_decode(bth->opcode, &info))
		return;
	pay = skb->len - info.hdr_len - sroce_bth_pad(bth) - SROCE_ICRC_BYTES;
	last = info.pos == SROCE_POS_LAST || info.pos == SROCE_POS_ONLY;

	spin_lock(&resp->lock);
	switch (sroce_resp_psn_verdict(psn, resp->psn, resp->nak_sent, info.cls,
				       last || sroce_bth_ackreq(bth))) {
	case SROCE_PSN_EXECUTE:
		break;
	case SROCE_PSN_NAK_SEQ:
		sroce_resp_ack(qp, resp->psn,
			       SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR);
		resp->nak_sent = true;
		fallthrough;
	case SROCE_PSN_SILENT:
		sroce_count(sdev, SROCE_CNT_RX_SEQ_GAP);
		goto out;
	case SROCE_PSN_DUP_READ:
		/* Executed before: answer again (the answer may be lost). */
		sroce_count(sdev, SROCE_CNT_RX_DUP_REQUEST);
		push = sroce_resp_dup_read(qp, skb, pay);
		goto out;
	case SROCE_PSN_DUP_ATOMIC:
		sroce_count(sdev, SROCE_CNT_RX_DUP_REQUEST);
		push = sroce_resp_dup_atomic(qp, skb);
		goto out;
	case SROCE_PSN_DUP_ACK:
		sroce_resp_ack_in_order(qp, psn);
		fallthrough;
	case SROCE_PSN_DUP_DROP:
		sroce_count(sdev, SROCE_CNT_RX_DUP_REQUEST);
		goto out;
	}
	resp->nak_sent = false;

	/* Inside a message every packet but the last is exactly one MTU. */
	if (!sroce_opcode_next_ok(resp->prev, bth->opcode) ||
	    (!last && pay != mtu) || pay > mtu) {
		v = SROCE_RESP_INV_REQ;
	} else {
		switch (info.cls) {
		case SROCE_CLASS_SEND:
			v = sroce_resp_send(qp, skb, &info, pay, &notify);
			break;
		case SROCE_CLASS_WRITE:
			v = sroce_resp_write(qp, skb, &info, pay, &notify);
			break;
		case SROCE_CLASS_READ_REQ:
			v = sroce_resp_read(qp, skb, &info, pay, &npsn);
			break;
		case SROCE_CLASS_ATOMIC:
			v = sroce_resp_atomic(qp, skb, pay);
			break;
		default:
			v = SROCE_RESP_INV_REQ;
			break;
		}
	}

	switch (v) {
	case SROCE_RESP_DONE:
		resp->psn = sroce_psn_add(resp->psn, npsn);
		resp->prev = last ? SROCE_OPCODE_NONE : bth->opcode;
		if (last)
			resp->msn = sroce_psn_add(resp->msn, 1);
		/* A READ or atomic is acknowledged by its responses. */
		if (info.cls == SROCE_CLASS_READ_REQ || info.cls == SROCE_CLASS_ATOMIC)
			push = true;
		else if (sroce_bth_ackreq(bth))
			sroce_resp_ack_in_order(qp, psn);
		break;
	case SROCE_RESP_RNR:
		sroce_count(sdev, SROCE_CNT_TX_RNR_NAK);
		sroce_resp_ack(qp, psn, SROCE_AETH_RNR_NAK | qp->params.min_rnr_timer);
		break;
	default:
		sroce_resp_ack(qp, psn, sroce_resp_nak(v));
		spin_unlock(&resp->lock);
		if (notify)
			sroce_cq_notify(qp->ibqp.recv_cq);
		sroce_qp_to_error(qp);
		return;
	}
out:
	ret = 0;
	if (push) {
		/* A work item already owns a backlog; else try it from here. */
		ret = resp->res_pending > 1 ? 1 :
		      sroce_resp_push(qp, SROCE_RESP_INLINE_BUDGET);
		if (ret > 0)
			queue_work(system_highpri_wq, &resp->work);
	}
	spin_unlock(&resp->lock);
	if (notify)
		sroce_cq_notify(qp->ibqp.recv_cq);
	if (ret < 0)
		sroce_qp_to_error(qp);
}
