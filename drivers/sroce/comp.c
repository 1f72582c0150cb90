// SPDX-License-Identifier: GPL-2.0
/*
 * Completer: responses to send completions. Every response is taken under
 * the QP's sq_lock, against the WQEs the requester has fully sent (from
 * the ring's consumer index up to req.pos):
 *
 *   ACK of PSN p       retires, in ring order, every SEND and WRITE whose
 *                      last PSN is not after p, and every local operation
 *                      (REG_MR, LOCAL_INV) behind them; stops at an RDMA
 *                      READ or atomic, which only its own response ends
 *   read response      retires the SENDs and WRITEs before the READ, then
 *                      places its payload at its offset in the READ's
 *                      gather list; up to 64 may arrive ahead of one
 *                      awaited (reordering), and the READ completes
 *                      when every one is placed
 *   atomic ACK         retires what is before, writes the original value
 *                      into the atomic's 8 bytes and completes it
 *   NAK (remote error) retires what came before, fails the WQE it names
 *                      with the status IBTA 11.6.2 maps the NAK to, and
 *                      puts the QP in ERR
 *
 * Loss: a sequence error NAK, an RNR NAK, or a gap the completer sees
 * itself (a read response or atomic ACK past the one it waits for, an ACK
 * past a READ or atomic it has no response for: IBTA's implied NAK) asks
 * the requester to send again (sroce_retry_again()); each counts against
 * the retry counts, which any progress resets. A response behind what is
 * expected is a duplicate, dropped and counted, and so is a copy of a
 * sequence error NAK already acted on; one that matches nothing (a bad
 * length, a PSN never sent) is dropped as bad. A READ response or atomic
 * ACK naming a request of another kind fails that request with a bad
 * response (IBV_WC_BAD_RESP_ERR: an unexpected opcode) and the QP.
 *
 * UC has no responses: the requester retires its WQEs as their last
 * packets leave (sroce_comp_sent()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "comp.h"
#include "counters.h"
#include "cq.h"
#include "cwnd.h"
#include "mr.h"
#include "opcode.h"
#include "psn.h"
#include "qp.h"
#include "queue.h"
#include "req.h"
#include "retry.h"
#include "sroce.h"
#include "trace.h"
#include "wire.h"
#include "wqe.h"

/* What taking a response did. */
struct sroce_comp_out {
	bool notify;		/* a completion asks for the CQ handler */
	bool kick;		/* an RDMA READ or atomic ended; a retry */
	bool progress;		/* something new was acknowledged */
	enum ib_wc_status fail;	/* IB_WC_SUCCESS, or the head WQE's error */
	bool cq_lost;		/* the send CQ overflowed: the QP goes to ERR */
	bool drained;		/* in SQD, the last WQE started retired */
};

/*
 * Give the slot of the WQE at the head of the ring back, then complete
 * it. In that order: a consumer may post again the moment it sees the
 * completion, and must find the slot free (ibv_rc_pingpong, one send
 * slot, failed its next post with ENOMEM in the window between the two).
 * Once the slot is back, the requester may fetch a new WQE over @w: what
 * is needed of it is read before.
 */
static void sroce_comp_done(struct sroce_qp *qp, struct sroce_swqe *w,
			    struct sroce_comp_out *out)
{
	struct ib_wc wc = {
		.wr_id = w->wr_id,
		.status = IB_WC_SUCCESS,
		.opcode = sroce_wr_to_wc_opcode(w->opcode),
		.byte_len = w->length,
		.qp = &qp->ibqp,
	};
	bool signaled = qp->sig_all || (w->send_flags & IB_SEND_SIGNALED);
	bool rd_atomic = sroce_wr_rd_atomic(w->opcode);
	u32 last_psn = w->last_psn;
	int ret;

	sroce_queue_advance(&qp->sq);
	if (signaled) {
		ret = sroce_cq_add(qp->ibqp.send_cq, &wc, qp->ibqp.qp_num, false);
		out->notify |= ret > 0;
		out->cq_lost |= ret < 0;
	}
	if (rd_atomic) {
		/* The requester reads it locklessly to pace READs. */
		WRITE_ONCE(qp->req.rd_done, qp->req.rd_done + 1);
		out->kick = true;
	}
	qp->comp.read_off = 0;
	qp->comp.read_held = 0;
	/* The requester reads it locklessly for its window. */
	if (sroce_psn_before(qp->comp.acked_psn, last_psn))
		WRITE_ONCE(qp->comp.acked_psn, last_psn);
	out->progress = true;
}

/*
 * Retire the SENDs and WRITEs an acknowledgment of @psn covers: up to
 * @psn itself, or only those before it. Returns the WQE now at the head,
 * or NULL when every sent WQE is retired.
 */
static struct sroce_swqe *sroce_comp_retire(struct sroce_qp *qp, u32 psn,
					    bool before_only,
					    struct sroce_comp_out *out)
{
	struct sroce_swqe *w;
	u32 pos;

	lockdep_assert_held(&qp->sq_lock);
	/* Acquire pairs with the requester's release of its position. */
	pos = smp_load_acquire(&qp->req.pos);
	while (qp->sq.index != pos) {
		w = sroce_req_swqe(&qp->req, qp->sq.index);
		if (sroce_wr_rd_atomic(w->opcode))
			return w;
		if (before_only ? !sroce_psn_before(w->last_psn, psn) :
				  sroce_psn_before(psn, w->last_psn))
			return w;
		sroce_comp_done(qp, w, out);
	}
	return NULL;
}

/*
 * The peer skipped what the head WQE waits for (IBTA 9.7.5.1.4, implied
 * NAK): ask for it again, once until progress is made.
 */
static void sroce_comp_gap(struct sroce_qp *qp, struct sroce_comp_out *out)
{
	if (qp->comp.gap_set)
		return;
	qp->comp.gap_set = true;
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_RX_IMPLIED_NAK);
	sroce_cwnd_cut(&qp->req.cw, sroce_req_last_sent(&qp->req), false);
	out->fail = sroce_retry_again(qp, false, 0, -1);
	out->kick = true;
}

/*
 * A READ response or atomic ACK at @psn whose kind is not the head WQE's:
 * naming one of that WQE's packets, it is a bad response (an unexpected
 * opcode), which fails the WQE; past it (a READ or atomic waits for its
 * own response), what the WQE waits for was lost.
 */
static void sroce_comp_mismatch(struct sroce_qp *qp, const struct sroce_swqe *w,
				u32 psn, struct sroce_comp_out *out)
{
	if (sroce_psn_before(w->last_psn, psn))
		sroce_comp_gap(qp, out);
	else
		out->fail = IB_WC_BAD_RESP_ERR;
}

/*
 * Everything up to @psn arrived, though the head WQE is not done: progress
 * all the same, even while that WQE is still being sent (a message of many
 * packets may take several rounds of loss to get through, and each round
 * that moves forward must reset the retry counts). A PSN never sent
 * acknowledges nothing. One sent, then stepped back over by a rewind
 * and not yet sent again, does: the requester is told to go forward
 * (sroce_req_rewind()) instead of sending what the peer already has.
 */
static void sroce_comp_acked_to(struct sroce_qp *qp, u32 psn,
				struct sroce_comp_out *out)
{
	if (!sroce_psn_before(qp->comp.acked_psn, psn) ||
	    !sroce_psn_before(psn, READ_ONCE(qp->req.high_psn)))
		return;
	WRITE_ONCE(qp->comp.acked_psn, psn);
	out->progress = true;
	if (!sroce_psn_before(psn, READ_ONCE(qp->req.psn)) && !qp->req.rewind) {
		qp->req.rewind = true;
		qp->req.rewind_at = false;
		out->kick = true;
	}
}

/* The PSN being timed is acknowledged now: a round-trip sample. */
static void sroce_comp_rtt(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 ns;

	lockdep_assert_held(&qp->sq_lock);
	/* Acquire pairs with sroce_req_rtt_start(): its PSN and time. */
	if (!smp_load_acquire(&req->rtt_on) ||
	    sroce_psn_before(qp->comp.acked_psn, req->rtt_psn))
		return;
	ns = ktime_get_ns() - req->rtt_t0;
	sroce_cwnd_rtt(&req->cw, min_t(u64, div_u64(ns, NSEC_PER_USEC), U32_MAX));
	WRITE_ONCE(req->rtt_on, false);
}

struct sroce_comp_value {
	const u8 *src;
};

static void sroce_comp_value_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_comp_value *v = ctx;

	memcpy(kaddr, v->src, len);
	v->src += len;
}

static_assert(SROCE_READ_HELD_MAX ==
	      sizeof_field(struct sroce_comp, read_held) * BITS_PER_BYTE);

/*
 * The one response of an ATOMIC WRITE or FLUSH (ext.c): a READ response
 * ONLY without payload. Returns false for any other.
 */
static bool sroce_comp_empty_resp(struct sroce_qp *qp, struct sroce_swqe *w,
				  const struct sk_buff *skb,
				  const struct sroce_opcode_info *info,
				  struct sroce_comp_out *out)
{
	const struct sroce_bth *bth = (const void *)skb->data;

	if (info->pos != SROCE_POS_ONLY ||
	    skb->len != info->hdr_len + sroce_bth_pad(bth) + SROCE_ICRC_BYTES)
		return false;
	sroce_comp_acked_to(qp, w->first_psn, out);
	sroce_comp_done(qp, w, out);
	return true;
}

/* A read response: place it, and complete the READ with its last one. */
static bool sroce_comp_read_resp(struct sroce_qp *qp, const struct sk_buff *skb,
				 const struct sroce_opcode_info *info,
				 struct sroce_comp_out *out)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	u32 psn = sroce_bth_psn(bth), off, pay, want, npkt, idx, n;
	bool first = info->pos == SROCE_POS_FIRST || info->pos == SROCE_POS_ONLY;
	bool last = info->pos == SROCE_POS_LAST || info->pos == SROCE_POS_ONLY;
	struct sroce_skb_cursor c = { .skb = skb, .off = info->hdr_len };
	struct sroce_comp *comp = &qp->comp;
	struct sroce_swqe *w;
	s32 ahead;
	int err;

	w = sroce_comp_retire(qp, psn, true, out);
	if (!w || sroce_psn_before(psn, w->first_psn)) {
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_RX_DUP_RESPONSE);
		return true;
	}
	if (sroce_wr_ext(w->opcode) && w->first_psn == psn)
		return sroce_comp_empty_resp(qp, w, skb, info, out);
	if (w->opcode != IB_WR_RDMA_READ) {
		sroce_comp_mismatch(qp, w, psn, out);
		return true;
	}
	want = sroce_psn_add(w->first_psn, comp->read_off / mtu);
	ahead = sroce_psn_diff(psn, want);
	npkt = max(DIV_ROUND_UP(w->length, mtu), 1U);
	idx = sroce_psn_diff(psn, w->first_psn);
	if (ahead > SROCE_READ_HELD_MAX || (ahead > 0 && idx >= npkt)) {
		/* Past this READ, or too far to hold: some were lost. */
		sroce_comp_gap(qp, out);
		return true;
	}
	if (ahead < 0 || (ahead > 0 && comp->read_held & BIT_ULL(ahead - 1))) {
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_RX_DUP_RESPONSE);
		return true;
	}
	/*
	 * Every response but the last carries exactly one MTU, at the offset
	 * its PSN gives; a READ sent again after a loss starts over at the
	 * first byte not placed in order.
	 */
	off = idx * mtu;
	pay = skb->len - info->hdr_len - sroce_bth_pad(bth) - SROCE_ICRC_BYTES;
	if ((!first && !off) || (first && ahead) || last != (idx == npkt - 1) ||
	    pay > w->length - off || (last ? off + pay != w->length : pay != mtu))
		return false;
	err = sroce_sge_walk(to_sdev(qp->ibqp.device), qp->ibqp.pd, w->sge,
			     w->num_sge, off, pay, IB_ACCESS_LOCAL_WRITE,
			     sroce_skb_copy_piece, &c);
	/* An ODP page faulting in (-EFAULT): dropped as if lost, asked again. */
	if (err && err != -EFAULT)
		out->fail = IB_WC_LOC_PROT_ERR;
	if (err)
		return true;
	if (ahead) {
		/*
		 * Ahead of the one awaited: held. Reordering fills the hole
		 * soon; a loss leaves it open while more arrive, and then
		 * (or once the last is here) the READ is asked for again from
		 * the hole.
		 */
		comp->read_held |= BIT_ULL(ahead - 1);
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_RX_READ_AHEAD);
		if (last || hweight64(comp->read_held) >= SROCE_READ_REORDER)
			sroce_comp_gap(qp, out);
		return true;
	}
	/* In order: then over every one held right behind it. */
	n = sroce_psn_held_take(&comp->read_held);
	psn = sroce_psn_add(psn, n);
	comp->read_off = min(off + pay + n * mtu, w->length);
	sroce_comp_acked_to(qp, psn, out);
	out->progress = true;
	if (comp->read_off == w->length)
		sroce_comp_done(qp, w, out);
	return true;
}

/* An atomic ACK: the original value into the WQE's 8 bytes. */
static bool sroce_comp_atomic_ack(struct sroce_qp *qp, const struct sk_buff *skb,
				  const struct sroce_opcode_info *info,
				  struct sroce_comp_out *out)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	const struct sroce_atomic_ack_eth *ack;
	u32 psn = sroce_bth_psn(bth);
	struct sroce_comp_value v;
	struct sroce_swqe *w;
	u64 orig;
	int err;

	w = sroce_comp_retire(qp, psn, true, out);
	if (!w || sroce_psn_before(psn, w->first_psn)) {
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_RX_DUP_RESPONSE);
		return true;
	}
	if (w->first_psn != psn || !sroce_wr_atomic(w->opcode)) {
		sroce_comp_mismatch(qp, w, psn, out);
		return true;
	}
	ack = (const void *)(skb->data + info->hdr_len - sizeof(*ack));
	orig = be64_to_cpu(ack->orig);
	v.src = (const u8 *)&orig;
	err = sroce_sge_walk(to_sdev(qp->ibqp.device), qp->ibqp.pd, w->sge,
			     w->num_sge, 0, sizeof(orig), IB_ACCESS_LOCAL_WRITE,
			     sroce_comp_value_piece, &v);
	/* An ODP page faults in: dropped, the atomic sent again. */
	if (err == -EFAULT)
		return true;
	if (err) {
		out->fail = IB_WC_LOC_PROT_ERR;
		return true;
	}
	sroce_comp_done(qp, w, out);
	return true;
}

static enum ib_wc_status sroce_comp_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_INV_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SROCE_NAK_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

/*
 * A sequence error NAK that says nothing new: behind what is acknowledged
 * (the responder has executed past it), or the same PSN as the last one
 * acted on with nothing acknowledged since. The responder NAKs a gap once
 * and then keeps silent until the PSN comes, so such a NAK is a copy; a
 * retransmission lost again is the ACK timer's to find.
 */
static bool sroce_comp_nak_copy(struct sroce_qp *qp, u32 psn)
{
	u32 next = sroce_psn_add(qp->comp.acked_psn, 1);

	if (sroce_psn_before(psn, next))
		return true;
	return qp->comp.nak_set && psn == qp->comp.nak_psn && psn == next;
}

/*
 * Whether @psn is a request sent and not acknowledged: what a NAK may
 * name (IBTA 9.7.5.1.1: the responder NAKs the request it could not
 * execute). The caller has checked it is before the first PSN never sent.
 */
static bool sroce_comp_outstanding(const struct sroce_qp *qp, u32 psn)
{
	return !sroce_psn_before(psn, sroce_psn_add(qp->comp.acked_psn, 1));
}

/* An ACK or NAK packet. Returns: whether it matched the send queue. */
static bool sroce_comp_ack(struct sroce_qp *qp, u32 psn, u8 syndrome,
			   struct sroce_comp_out *out)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u8 code = syndrome & ~SROCE_AETH_TYPE_MASK;
	struct sroce_swqe *w;

	lockdep_assert_held(&qp->sq_lock);
	if ((syndrome & SROCE_AETH_TYPE_MASK) != SROCE_AETH_ACK)
		trace_sroce_nak(&qp->ibqp, false, psn, syndrome);
	switch (syndrome & SROCE_AETH_TYPE_MASK) {
	case SROCE_AETH_ACK:
		w = sroce_comp_retire(qp, psn, false, out);
		sroce_comp_acked_to(qp, psn, out);
		/* Past a READ or atomic with no response: lost on the way. */
		if (w && sroce_wr_rd_atomic(w->opcode) &&
		    !sroce_psn_before(psn, w->first_psn) &&
		    sroce_psn_before(psn, READ_ONCE(qp->req.psn)))
			sroce_comp_gap(qp, out);
		return true;
	case SROCE_AETH_NAK:
		if (code == SROCE_NAK_PSN_SEQ_ERR && sroce_comp_nak_copy(qp, psn)) {
			sroce_count(sdev, SROCE_CNT_RX_DUP_RESPONSE);
			return true;
		}
		/* An error NAK of nothing outstanding fails nothing. */
		if (!sroce_comp_outstanding(qp, psn))
			return false;
		/* What came before the NAKed PSN was executed. */
		sroce_comp_retire(qp, psn, true, out);
		sroce_comp_acked_to(qp, sroce_psn_add(psn, SROCE_PSN_MASK), out);
		if (code == SROCE_NAK_PSN_SEQ_ERR) {
			sroce_count(sdev, SROCE_CNT_RX_NAK_SEQ);
			qp->comp.nak_psn = psn;
			qp->comp.nak_set = true;
			sroce_cwnd_cut(&qp->req.cw, sroce_req_last_sent(&qp->req), false);
			out->fail = sroce_retry_again(qp, true, psn, -1);
			out->kick = true;
			return true;
		}
		sroce_count(sdev, SROCE_CNT_RX_NAK_ERROR);
		out->fail = sroce_comp_nak_status(code);
		return true;
	case SROCE_AETH_RNR_NAK:
		if (!sroce_comp_outstanding(qp, psn))
			return false;
		sroce_count(sdev, SROCE_CNT_RX_RNR_NAK);
		sroce_comp_retire(qp, psn, true, out);
		sroce_comp_acked_to(qp, sroce_psn_add(psn, SROCE_PSN_MASK), out);
		out->fail = sroce_retry_again(qp, true, psn, code);
		return true;
	default:
		return false;	/* reserved */
	}
}

/* Retire what the PSN covers (@sent), or the acknowledged PSN does. */
static void sroce_comp_to(struct sroce_qp *qp, const u32 *sent)
{
	struct sroce_comp_out out = { .fail = IB_WC_SUCCESS };
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD)
		sroce_comp_retire(qp, sent ? *sent : qp->comp.acked_psn, false,
				  &out);
	out.drained = sroce_qp_sqd_check(qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (out.drained)
		sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
	if (out.notify)
		sroce_cq_notify(qp->ibqp.send_cq);
	if (out.cq_lost)
		sroce_qp_enter_error(qp, IB_QPS_ERR);
	else if (out.kick)
		sroce_req_kick(&qp->req);
}

void sroce_comp_local(struct sroce_qp *qp)
{
	sroce_comp_to(qp, NULL);
}

void sroce_comp_sent(struct sroce_qp *qp, u32 psn)
{
	sroce_comp_to(qp, &psn);
}

void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_comp_out out = { .fail = IB_WC_SUCCESS };
	struct sroce_opcode_info info;
	const struct sroce_aeth *aeth;
	unsigned long flags;
	bool ok = false;
	u32 head, was;

	if (!sroce_opcode_decode(bth->opcode, &info))
		return;
	spin_lock_irqsave(&qp->sq_lock, flags);
	was = qp->comp.acked_psn;
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
		ok = true;	/* counted as received; nothing to complete */
	} else if (!sroce_psn_before(sroce_bth_psn(bth),
				     READ_ONCE(qp->req.high_psn))) {
		ok = false;	/* it answers a PSN never sent */
	} else if (info.cls == SROCE_CLASS_READ_RESP) {
		ok = sroce_comp_read_resp(qp, skb, &info, &out);
	} else if (info.cls == SROCE_CLASS_ATOMIC_ACK) {
		ok = sroce_comp_atomic_ack(qp, skb, &info, &out);
	} else {
		aeth = (const void *)(bth + 1);
		ok = sroce_comp_ack(qp, sroce_bth_psn(bth),
				    sroce_aeth_syndrome(aeth), &out);
	}
	if (out.progress && out.fail == IB_WC_SUCCESS) {
		if (sroce_psn_before(was, qp->comp.acked_psn)) {
			struct sroce_cwnd *cw = &qp->req.cw;
			bool above = cw->cwnd > cw->max;

			sroce_comp_rtt(qp);
			sroce_cwnd_acked(cw, sroce_psn_diff(qp->comp.acked_psn, was),
					 qp->comp.acked_psn);
			if (!above && cw->cwnd > cw->max)
				sroce_count(to_sdev(qp->ibqp.device),
					    SROCE_CNT_TX_WINDOW_PROBE);
		}
		sroce_retry_progress(qp);
		/*
		 * acked_psn before the bit and the requester's PSN (pairs
		 * with sroce_req_window_ok()). A requester waiting for room
		 * is kicked only once there is some: a READ's responses each
		 * move acked_psn by one, and a kick for each found the next
		 * READ still outside the window.
		 */
		smp_mb();
		if (test_bit(0, &qp->req.window_wait) &&
		    sroce_cwnd_fits(READ_ONCE(qp->req.psn),
				    qp->comp.acked_psn, 1,
				    qp->req.cw.cwnd) &&
		    test_and_clear_bit(0, &qp->req.window_wait))
			out.kick = true;
	}
	head = qp->sq.index;
	out.drained = sroce_qp_sqd_check(qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (out.drained)
		sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);

	if (!ok)
		sroce_count_drop(sdev, SROCE_CNT_RX_BAD_RESPONSE, qp->ibqp.qp_num,
				 skb->len);
	if (out.notify)
		sroce_cq_notify(qp->ibqp.send_cq);
	if (out.fail != IB_WC_SUCCESS)
		sroce_qp_fail_send(qp, head, out.fail);
	else if (out.cq_lost)
		sroce_qp_enter_error(qp, IB_QPS_ERR);
	else if (out.kick)
		sroce_req_kick(&qp->req);
}
