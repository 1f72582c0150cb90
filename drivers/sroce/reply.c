// SPDX-License-Identifier: GPL-2.0
/*
 * The RC responder's replies. ACKs and NAKs are sent at once. RDMA READ
 * and atomic requests take a responder resource (struct sroce_res, a ring
 * of max_dest_rd_atomic; more outstanding is an invalid request), and
 * their responses go out in request order: straight from the softirq for
 * an atomic or a short READ when nothing is ahead of them, else from the
 * responder's work item, a budget of packets at a time. While responses
 * are pending, the ACKs of later requests wait behind them (coalesced
 * into the last one), so the requester never sees an ACK pass a READ's
 * data. A READ's memory is looked up again for every chain of responses:
 * the MR may have gone since the request.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/slab.h>

#include "cc.h"
#include "mr.h"
#include "mw.h"
#include "net.h"
#include "opcode.h"
#include "psn.h"
#include "qp.h"
#include "reply.h"
#include "resp.h"
#include "sroce.h"
#include "trace.h"
#include "tx.h"
#include "wire.h"

/*
 * Response packets sent per run of the work item before it requeues: one
 * chain (SROCE_RESP_CHAIN). A run holds the responder lock with bottom
 * halves off, so the transmit completions that wake other QPs and the
 * requests that keep them busy wait until it ends. Against two chains a
 * run, one made READ of 1 MiB with 4 QPs 14 % faster on average, in five
 * of five pairs of runs (Documentation/datapath.rst, "Chains").
 */
#define SROCE_RESP_BUDGET	32

static void sroce_reply_work(struct work_struct *work);

int sroce_reply_init(struct sroce_qp *qp, u32 max_sge)
{
	struct sroce_resp *resp = &qp->resp;

	spin_lock_init(&resp->lock);
	INIT_WORK(&resp->work, sroce_reply_work);
	resp->prev = SROCE_OPCODE_NONE;
	resp->nres = 1;
	/* Room for the entries a WQE may have, not SROCE_MAX_SGE's 512 bytes. */
	resp->wqe = kzalloc(offsetof(struct sroce_rwqe, sge[max_sge]),
			    SROCE_GFP_ACCOUNT);
	if (!resp->wqe)
		return -ENOMEM;
	/* One until the peer is known: most QPs answer few READs, if any. */
	resp->res = kcalloc(1, sizeof(*resp->res), SROCE_GFP_ACCOUNT);
	if (!resp->res) {
		kfree(resp->wqe);
		return -ENOMEM;
	}
	resp->res_cap = 1;
	return 0;
}

int sroce_reply_size(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	u32 n = clamp_t(u32, qp->params.max_dest_rd_atomic, 1, SROCE_MAX_RD_ATOMIC);
	struct sroce_res *res, *old;

	lockdep_assert_held(&qp->lock);
	if (n <= resp->res_cap)
		return 0;
	res = kcalloc(n, sizeof(*res), SROCE_GFP_ACCOUNT);
	if (!res)
		return -ENOMEM;
	/* Nothing uses the old ones (the QP is in INIT): RTR clears them. */
	spin_lock_bh(&resp->lock);
	old = resp->res;
	resp->res = res;
	resp->res_cap = n;
	spin_unlock_bh(&resp->lock);
	kfree(old);
	return 0;
}

void sroce_reply_free(struct sroce_qp *qp)
{
	cancel_work_sync(&qp->resp.work);
	kfree(qp->resp.res);
	kfree(qp->resp.wqe);
}

void sroce_reply_reset(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	lockdep_assert_held(&resp->lock);
	/* 0 counts as 1, as the hardware drivers read it. */
	resp->nres = clamp_t(u32, qp->params.max_dest_rd_atomic, 1,
			     resp->res_cap);
	memset(resp->res, 0, resp->res_cap * sizeof(*resp->res));
	resp->res_head = 0;
	resp->res_pending = 0;
	resp->ack_pending = false;
}

void sroce_reply_ack(struct sroce_qp *qp, u32 psn, u8 syndrome)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_path *path;
	struct sroce_path ack_path;
	struct sroce_aeth *aeth;
	struct sroce_bth *bth;
	struct sk_buff *skb;
	u8 tclass;

	lockdep_assert_held(&qp->resp.lock);
	skb = sroce_net_alloc_skb(sdev, sizeof(*bth) + sizeof(*aeth));
	if (!skb) {
		sroce_count(sdev, SROCE_CNT_TX_DROP);
		return;
	}
	if ((syndrome & SROCE_AETH_TYPE_MASK) != SROCE_AETH_ACK)
		trace_sroce_nak(&qp->ibqp, true, psn, syndrome);
	if ((syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_NAK)
		sroce_count(sdev, (syndrome & ~SROCE_AETH_TYPE_MASK) ==
			    SROCE_NAK_PSN_SEQ_ERR ? SROCE_CNT_TX_NAK_SEQ :
						    SROCE_CNT_TX_NAK_ERROR);
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_ACK), false, 0,
		       sroce_qp_pkey(qp), qp->params.dest_qpn, psn, false);
	aeth = skb_put(skb, sizeof(*aeth));
	sroce_aeth_set(aeth, syndrome, qp->resp.msn);
	path = &qp->req.path;
	tclass = sroce_cc_ack_tclass(qp);
	if (tclass != path->tclass) {
		ack_path = *path;
		ack_path.tclass = tclass;
		path = &ack_path;
	}
	sroce_net_xmit(sdev, path, &qp->req.dst_cache, skb);
}

void sroce_reply_ack_in_order(struct sroce_qp *qp, u32 psn)
{
	struct sroce_resp *resp = &qp->resp;

	lockdep_assert_held(&resp->lock);
	if (resp->res_pending) {
		resp->ack_psn = psn;
		resp->ack_pending = true;
		return;
	}
	sroce_reply_ack(qp, psn, SROCE_AETH_ACK | SROCE_AETH_NO_CREDIT);
}

/* The oldest resource with responses still to send. */
static struct sroce_res *sroce_res_oldest(struct sroce_resp *resp)
{
	return &resp->res[(resp->res_head + resp->nres - resp->res_pending) %
			  resp->nres];
}

bool sroce_res_fits(struct sroce_resp *resp, u32 psn, u32 n)
{
	s32 span;

	lockdep_assert_held(&resp->lock);
	if (!resp->res_pending)
		return n <= SROCE_PSN_HALF;
	span = sroce_psn_diff(psn, sroce_res_oldest(resp)->psn);
	return span >= 0 && (u32)span + n <= SROCE_PSN_HALF;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_fits);

struct sroce_res *sroce_res_take(struct sroce_resp *resp)
{
	struct sroce_res *r;

	lockdep_assert_held(&resp->lock);
	r = &resp->res[resp->res_head];
	/*
	 * All pending: the oldest is the slot at the head. A requester that
	 * keeps to max_rd_atomic asks for more only once it has every
	 * response of that one, so if the oldest was taken again for a
	 * duplicate (the first responses came late, not lost), its answers
	 * are no longer awaited: it gives way. Otherwise the request is
	 * over the limit.
	 */
	if (resp->res_pending == resp->nres) {
		if (!r->replay)
			return NULL;
		r->pending = false;
		resp->res_pending--;
	}
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
struct sroce_reply_pkt {
	struct sroce_opcode_info info;
	u8 opcode;
	u32 pay;
	u32 pad;
	u32 len;
};

static bool sroce_reply_next(const struct sroce_res *r, u32 mtu,
			     struct sroce_reply_pkt *p)
{
	enum sroce_op op;

	p->pay = 0;
	p->pad = 0;
	if (r->kind == SROCE_RES_ATOMIC) {
		op = SROCE_OP_ATOMIC_ACK;
	} else if (r->kind == SROCE_RES_EMPTY) {
		op = SROCE_OP_READ_RESP_ONLY;
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

struct sroce_reply_read_dst {
	u8 *dst;
};

static void sroce_reply_read_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_reply_read_dst *d = ctx;

	memcpy(d->dst, kaddr, len);
	d->dst += len;
}

/*
 * Build response @p of @r, a READ's payload copied out of @mr (at its
 * address plus @shift: where a zero-based window puts it), into
 * *@out, and move @r past it. Returns 0, -ENOMEM, -EFAULT when an ODP
 * page of the payload is missing (a fault queued), or -EACCES when the
 * payload could not be read.
 */
static int sroce_reply_build(struct sroce_qp *qp, struct sroce_res *r,
			     const struct sroce_reply_pkt *p, struct sroce_mr *mr,
			     u64 shift, struct sk_buff **out)
{
	struct sroce_atomic_ack_eth *aack;
	struct sroce_reply_read_dst d;
	struct sroce_aeth *aeth;
	struct sroce_bth *bth;
	struct sk_buff *skb;
	int err;

	/* Every byte it puts is written: a reused page holds old ones. */
	skb = sroce_net_alloc_skb_reuse(to_sdev(qp->ibqp.device), p->len);
	if (!skb)
		return -ENOMEM;
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, p->opcode, false, p->pad, sroce_qp_pkey(qp),
		       qp->params.dest_qpn,
		       r->kind != SROCE_RES_READ ? r->psn : r->next_psn, false);
	if (p->info.hdrs & SROCE_HDR_AETH) {
		aeth = skb_put(skb, sizeof(*aeth));
		sroce_aeth_set(aeth, SROCE_AETH_ACK | SROCE_AETH_NO_CREDIT,
			       qp->resp.msn);
	}
	if (r->kind != SROCE_RES_READ) {
		if (r->kind == SROCE_RES_ATOMIC) {
			aack = skb_put(skb, sizeof(*aack));
			aack->orig = cpu_to_be64(r->orig);
		}
		*out = skb;
		return 0;
	}
	/* All of it or nothing: a packet never goes half filled. */
	d.dst = skb_put(skb, p->pay);
	err = p->pay ? sroce_mr_walk(mr, r->va + shift, p->pay,
				     sroce_reply_read_piece, &d) : 0;
	if (err) {
		kfree_skb(skb);
		return err == -EFAULT ? err : -EACCES;
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
static int sroce_reply_send_res(struct sroce_qp *qp, struct sroce_res *r,
				unsigned int budget, bool *done)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	struct sk_buff *pkts[SROCE_RESP_CHAIN];
	struct sroce_mr *mr = NULL;
	struct sroce_reply_pkt p;
	unsigned int most = 1, n;
	u64 va, shift = 0;
	int err = 0;

	if (r->kind == SROCE_RES_READ && r->left > mtu && budget > 1 &&
	    sroce_net_can_chain(sdev, &qp->req.path, &qp->req.dst_cache))
		most = min3(SROCE_RESP_CHAIN, DIV_ROUND_UP(r->left, mtu), budget);
	if (r->kind == SROCE_RES_READ && r->left) {
		/* The MR may have gone since the request: look again. */
		va = r->va;
		mr = sroce_rkey_get(qp, r->rkey, IB_ACCESS_REMOTE_READ, &va,
				    min_t(u64, r->left, (u64)most * mtu));
		if (IS_ERR(mr))
			return -EACCES;
		/* From the request's addresses to the MR's (zero-based MW). */
		shift = va - r->va;
	}
	for (n = 0; n < most; n++) {
		if (!sroce_reply_next(r, mtu, &p)) {
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
		err = sroce_reply_build(qp, r, &p, mr, shift, &pkts[n]);
		if (err)
			break;
	}
	if (mr)
		sroce_mr_put(mr);
	if (!n)
		return err;
	sroce_tx_send(qp, pkts, n);
	*done = r->kind != SROCE_RES_READ || !r->left;
	return n;
}

int sroce_reply_push(struct sroce_qp *qp, unsigned int budget)
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
		ret = sroce_reply_send_res(qp, r, budget, &done);
		if (ret == -ENOMEM)
			return 1;
		/*
		 * An ODP page went after the request was checked: it faults
		 * in while the requester times out and asks again (a
		 * duplicate READ), which pushes these responses again.
		 */
		if (ret == -EFAULT)
			return 0;
		if (ret < 0) {
			sroce_reply_ack(qp, r->next_psn,
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
		sroce_reply_ack(qp, resp->ack_psn,
				SROCE_AETH_ACK | SROCE_AETH_NO_CREDIT);
	}
	return 0;
}

static void sroce_reply_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, resp.work);
	int ret;

	spin_lock_bh(&qp->resp.lock);
	ret = sroce_reply_push(qp, SROCE_RESP_BUDGET);
	spin_unlock_bh(&qp->resp.lock);
	if (ret < 0)
		sroce_qp_enter_error(qp, IB_QPS_ERR);
	else if (ret)
		queue_work(system_highpri_wq, &qp->resp.work);
}

struct sroce_res *sroce_res_find_read(struct sroce_resp *resp, u32 psn,
				      u32 mtu)
{
	struct sroce_res *r, *found = NULL;
	u32 i, last;

	lockdep_assert_held(&resp->lock);
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

void sroce_res_drop_from(struct sroce_resp *resp, u32 psn)
{
	u32 newest;

	lockdep_assert_held(&resp->lock);
	while (resp->res_pending) {
		newest = (resp->res_head + resp->nres - 1) % resp->nres;
		if (sroce_psn_before(resp->res[newest].psn, psn))
			return;
		resp->res[newest].pending = false;
		resp->res_pending--;
		resp->res_head = newest;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_drop_from);

struct sroce_res *sroce_res_restart(struct sroce_resp *resp,
				    struct sroce_res *r, u32 psn)
{
	lockdep_assert_held(&resp->lock);
	if (r && r->pending)
		return r;
	sroce_res_drop_from(resp, psn);
	if (r && !resp->res_pending &&
	    r == &resp->res[(resp->res_head + resp->nres - 1) % resp->nres]) {
		r->pending = true;
		r->replay = true;
		resp->res_pending++;
		return r;
	}
	r = sroce_res_take(resp);
	if (r) {
		r->psn = psn;
		r->replay = true;
	}
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_restart);
