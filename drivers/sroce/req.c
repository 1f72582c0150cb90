// SPDX-License-Identifier: GPL-2.0
/*
 * Requester: send WQEs to packets. Runs in the QP's work item, one WQE at
 * a time in ring order: the WQE is copied out of the send ring once and
 * checked there (sroce_swqe), its PSNs are assigned, and it is cut into
 * packets of the path MTU, each built and sent at once, or a few at a
 * time in one chain where the path takes chains. The completer
 * retires WQEs as ACKs cover their last PSN.
 *
 * Supported here: RC SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE,
 * RDMA_WRITE_WITH_IMM (inline or gathered through lkeys), RDMA_READ and
 * the two atomics; and the local operations REG_MR (kernel QPs) and
 * LOCAL_INV, done when the requester reaches them, which take no PSN and
 * complete in order behind what came before. Anything else completes in
 * error.
 *
 * UC QPs (SEND and WRITE, with immediate or without) take the same path
 * without what acknowledgments drive: no AckReq, no window, no ACK timer,
 * no rewind. A UC WQE completes once its last packet is handed to the
 * network, and its payload is always copied (the buffer is the user's
 * again from then on). The transmit pool paces UC as it paces RC.
 *
 * An RDMA READ or atomic is one request packet; the responder answers
 * with read responses or an atomic ACK, which the completer places.
 * At most max_rd_atomic of them are outstanding (0 counts as 1, as the
 * hardware drivers read it), and a fenced WQE waits until none is: the
 * requester stops at such a WQE and the completer kicks it when one ends.
 *
 * Loss (Documentation/datapath.rst, "Loss recovery" and "Pacing"): a
 * packet asks for an ACK at a message's end and every eighth of the
 * window within one, and no more than the window (req.cw, which shrinks
 * on loss and grows back with ACKs) are sent and not acknowledged. A
 * timeout, a sequence error NAK or a gap the completer sees sets
 * req.rewind; the next pass goes back to the first WQE not completed
 * and sends again, from the PSN the NAK named or the last one
 * acknowledged, rebuilding each packet from the copied WQE and the MR
 * (a READ asks only for the rest of its data). An RNR NAK pauses the
 * requester for the time it names, then rewinds the same way.
 *
 * In SQD the requester sends only what it started: a message to its end,
 * and what a rewind sends again; it stops before the next WQE, and the
 * QP is drained once all it started is completed (sroce_qp_sqd_check()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/wait_bit.h>

#include "comp.h"
#include "cwnd.h"
#include "ext.h"
#include "mr.h"
#include "mw.h"
#include "net.h"
#include "opcode.h"
#include "psn.h"
#include "qp.h"
#include "req.h"
#include "retry.h"
#include "sroce.h"
#include "trace.h"
#include "tx.h"
#include "ud.h"
#include "wire.h"
#include "wqe.h"

/* Packets per run of the work item before it yields and requeues. */
#define SROCE_REQ_BUDGET	64

/*
 * Packets of one WQE built before they go, as one chain when the path
 * takes chains (sroce_net_chain()): one pass through the IP stack and one
 * doorbell of the NIC for them all. 32 against 8 took WRITE of 1 MiB
 * from 130 to 151 MB/s with 1 QP in one boot (Documentation/datapath.rst,
 * "Chains").
 */
#define SROCE_REQ_CHAIN		32

/**
 * struct sroce_req_batch - request packets built and not yet sent
 * @pkts: the packets, in PSN order
 * @n: how many
 * @psn: the PSN of the first
 */
struct sroce_req_batch {
	struct sk_buff *pkts[SROCE_REQ_CHAIN];
	unsigned int n;
	u32 psn;
};

void sroce_req_free(struct sroce_qp *qp)
{
	unsigned long flags;

	/*
	 * Timers first, told to do nothing (and not armed again), then
	 * cancelled; the requester stops, and what its last run armed goes.
	 */
	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->req.timers_off = true;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	hrtimer_cancel(&qp->req.rnr_timer);
	hrtimer_cancel(&qp->req.ack_timer);
	sroce_req_stop(qp);
	hrtimer_cancel(&qp->req.ack_timer);
	kvfree(qp->req.swqes);
}

/* Nothing fetched or started: the next WQE is the ring's head. */
static void sroce_req_at_head(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	req->pos = qp->sq.index;
	req->fetched_to = qp->sq.index;
	req->offset = 0;
	req->sge = 0;
	req->sge_off = 0;
}

void sroce_req_reset(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	hrtimer_cancel(&req->ack_timer);
	hrtimer_cancel(&req->rnr_timer);
	sroce_req_at_head(qp);
	req->psn = qp->params.sq_psn;
	req->unacked = 0;
	req->rd_sent = 0;
	req->rd_done = 0;
	req->rewind = false;
	req->rnr_wait = false;
	memset(&qp->comp, 0, sizeof(qp->comp));
}

void sroce_req_resume(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	sroce_req_at_head(qp);
}

void sroce_req_start(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->sq_lock);
	req->psn = qp->params.sq_psn;
	req->high_psn = req->psn;
	qp->comp.acked_psn = sroce_psn_add(req->psn, SROCE_PSN_MASK);
	req->retry_left = qp->params.retry_cnt;
	req->rnr_left = qp->params.rnr_retry;
	req->rnr_streak = 0;
	req->hold_left = SROCE_ACK_HOLD;
	sroce_cwnd_init(&req->cw,
			sroce_cwnd_ceiling(ib_mtu_enum_to_int(qp->params.path_mtu)),
			sroce_ack_timeout_usecs(qp->params.timeout));
	req->rtt_on = false;
}

static u8 sroce_req_opcode(const struct sroce_swqe *w, u8 tr, bool first,
			   bool last)
{
	bool imm = w->opcode == IB_WR_SEND_WITH_IMM ||
		   w->opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	bool inv = w->opcode == IB_WR_SEND_WITH_INV;
	enum sroce_op op;

	if (w->opcode == IB_WR_SEND || w->opcode == IB_WR_SEND_WITH_IMM || inv) {
		if (first && last)
			op = imm ? SROCE_OP_SEND_ONLY_IMM :
			     inv ? SROCE_OP_SEND_ONLY_INV : SROCE_OP_SEND_ONLY;
		else if (first)
			op = SROCE_OP_SEND_FIRST;
		else if (last)
			op = imm ? SROCE_OP_SEND_LAST_IMM :
			     inv ? SROCE_OP_SEND_LAST_INV : SROCE_OP_SEND_LAST;
		else
			op = SROCE_OP_SEND_MIDDLE;
	} else {
		if (first && last)
			op = imm ? SROCE_OP_WRITE_ONLY_IMM : SROCE_OP_WRITE_ONLY;
		else if (first)
			op = SROCE_OP_WRITE_FIRST;
		else if (last)
			op = imm ? SROCE_OP_WRITE_LAST_IMM : SROCE_OP_WRITE_LAST;
		else
			op = SROCE_OP_WRITE_MIDDLE;
	}
	return SROCE_OPCODE(tr, op);
}

/* Unreliable connected: nothing is acknowledged, nothing sent again. */
static bool sroce_req_uc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UC;
}

/*
 * Time PSN @psn (sent for the first time, asking for an ACK) to its
 * acknowledgment, unless another one is being timed.
 */
static void sroce_req_rtt_start(struct sroce_req *req, u32 psn)
{
	if (READ_ONCE(req->rtt_on) || sroce_psn_before(psn, req->high_psn))
		return;
	req->rtt_psn = psn;
	req->rtt_t0 = ktime_get_ns();
	/* PSN and time before the flag (pairs with sroce_comp_rtt()). */
	smp_store_release(&req->rtt_on, true);
}

/*
 * @n packets from PSN @psn go out: those before the highest PSN sent are
 * sent again and counted so; the rest move the highest PSN on.
 */
static void sroce_req_psns_out(struct sroce_qp *qp, u32 psn, u32 n)
{
	struct sroce_req *req = &qp->req;
	u32 again = 0;

	if (sroce_psn_before(psn, req->high_psn))
		again = min_t(u32, n, sroce_psn_diff(req->high_psn, psn));
	if (again)
		sroce_count_n(to_sdev(qp->ibqp.device), SROCE_CNT_TX_RETRANSMIT, again);
	if (again < n)
		WRITE_ONCE(req->high_psn, sroce_psn_add(psn, n));
}

/* Hand @n built packets of consecutive PSNs from @psn to the network. */
static void sroce_req_xmit(struct sroce_qp *qp, struct sk_buff **pkts,
			   unsigned int n, u32 psn)
{
	sroce_req_psns_out(qp, psn, n);
	sroce_tx_send(qp, pkts, n);
	if (!sroce_req_uc(qp))
		sroce_retry_arm(qp, false);
}

/*
 * The bytes a built packet takes on the wire from its BTH on: a linear
 * one has yet to grow its ICRC, a paged one carries it in its trailer.
 */
static unsigned int sroce_req_wire_len(const struct sk_buff *skb)
{
	return skb->len + (skb_is_nonlinear(skb) ? 0 : SROCE_ICRC_BYTES);
}

/*
 * Send what @b holds, in PSN order, as chains: a chain ends before a
 * packet longer than its first (segmentation sizes every packet by the
 * head); a chain of one goes alone.
 */
static void sroce_req_flush(struct sroce_qp *qp, struct sroce_req_batch *b)
{
	unsigned int i = 0, k;
	u32 psn;

	while (i < b->n) {
		psn = sroce_psn_add(b->psn, i);
		for (k = i + 1; k < b->n; k++)
			if (sroce_req_wire_len(b->pkts[k]) > sroce_req_wire_len(b->pkts[i]))
				break;
		sroce_req_xmit(qp, b->pkts + i, k - i, psn);
		i = k;
	}
	b->n = 0;
}

/* The WQE's work is all sent: the completer may retire it from now on. */
static void sroce_req_wqe_sent(struct sroce_qp *qp, const struct sroce_swqe *w)
{
	struct sroce_req *req = &qp->req;

	req->psn = sroce_psn_add(w->last_psn, 1);
	req->offset = 0;
	req->sge = 0;
	req->sge_off = 0;
	/*
	 * Before it is on the wire: its response may come back at once (on
	 * another CPU, or from within the send for a local peer), and the
	 * completer must find the WQE theirs.
	 * Release: the completer reads the WQE after seeing this.
	 */
	smp_store_release(&req->pos, (req->pos + 1) & qp->sq.mask);
}

/* Build and send the one request packet of a READ, atomic, or ext.c's. */
static int sroce_req_rd_atomic(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	bool read = w->opcode == IB_WR_RDMA_READ;
	struct sroce_atomic_eth *ateth;
	struct sroce_reth *reth;
	struct sroce_bth *bth;
	struct sk_buff *skb;
	enum sroce_op op;
	u32 psn;
	int err;

	if (sroce_wr_ext(w->opcode)) {
		skb = sroce_ext_request(qp, w);
		if (!skb)
			return -ENOMEM;
		goto sent;
	}
	/* ODP: where the responses land is faulted in before they come. */
	err = sroce_wqe_ready(qp, w);
	if (err)
		return err;
	if (read)
		op = SROCE_OP_READ_REQUEST;
	else if (w->opcode == IB_WR_ATOMIC_CMP_AND_SWP)
		op = SROCE_OP_CMP_SWAP;
	else
		op = SROCE_OP_FETCH_ADD;
	skb = sroce_net_alloc_skb(sdev, sizeof(*bth) +
				  (read ? sizeof(*reth) : sizeof(*ateth)));
	if (!skb)
		return -ENOMEM;
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, SROCE_OPCODE(SROCE_TR_RC, op), false, 0,
		       sroce_qp_pkey(qp), qp->params.dest_qpn, qp->req.psn, true);
	if (read) {
		/* After a rewind, only what the completer has not placed. */
		reth = skb_put(skb, sizeof(*reth));
		reth->va = cpu_to_be64(w->remote_addr + qp->req.offset);
		reth->rkey = cpu_to_be32(w->rkey);
		reth->dma_len = cpu_to_be32(w->length - qp->req.offset);
	} else {
		ateth = skb_put(skb, sizeof(*ateth));
		ateth->va = cpu_to_be64(w->remote_addr);
		ateth->rkey = cpu_to_be32(w->rkey);
		ateth->swap_add = cpu_to_be64(w->swap_add);
		ateth->compare = cpu_to_be64(w->compare);
	}
sent:
	qp->req.rd_sent++;
	qp->req.unacked = 0;
	psn = qp->req.psn;
	/* Its first response acknowledges it: a round trip, not the READ. */
	sroce_req_rtt_start(&qp->req, psn);
	sroce_req_wqe_sent(qp, w);
	/* A READ's responses take PSNs too: the next request comes after. */
	sroce_req_xmit(qp, &skb, 1,
		       read ? sroce_psn_add(qp->req.psn, SROCE_PSN_MASK) : psn);
	return 0;
}

/*
 * Whether @w must wait before its first packet: an RDMA READ or atomic
 * when max_rd_atomic are outstanding, a fenced WQE while any is.
 */
static bool sroce_req_must_wait(struct sroce_qp *qp, const struct sroce_swqe *w)
{
	int out = qp->req.rd_sent - READ_ONCE(qp->req.rd_done);

	if (!qp->req.offset && (w->send_flags & IB_SEND_FENCE) && out)
		return true;
	/* READ responses may still land in the MR it invalidates. */
	if (w->opcode == IB_WR_LOCAL_INV && out)
		return true;
	if (!sroce_wr_rd_atomic(w->opcode))
		return false;
	return out >= max_t(int, qp->params.max_rd_atomic, 1);
}

/*
 * Whether the next packet fits in the window. A READ request is
 * one packet like any other: it goes once what is outstanding (earlier
 * READs' responses included) leaves room for it, so the next READ is
 * asked for while the last responses of the one before are still on
 * their way, and the responder goes from one to the next without an
 * idle round trip. (Asking room for all of a READ's responses kept a
 * READ larger than the window waiting until nothing was outstanding.)
 * max_rd_atomic bounds how many are outstanding. When the packet does
 * not fit, the completer kicks us once its progress makes room: our PSN
 * is stored and the bit set before the second look, and the completer
 * stores the PSN acknowledged before it tests the bit and reads our PSN
 * (full barriers on both sides), so one of the two sees the room.
 */
static bool sroce_req_window_ok(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (sroce_cwnd_fits(req->psn, READ_ONCE(qp->comp.acked_psn), 1,
			    READ_ONCE(req->cw.cwnd)))
		return true;
	set_bit(0, &req->window_wait);
	/* The bit before the second look (pairs with sroce_comp_recv()). */
	smp_mb__after_atomic();
	if (sroce_cwnd_fits(req->psn, READ_ONCE(qp->comp.acked_psn), 1,
			    READ_ONCE(req->cw.cwnd)))
		return true;
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_TX_WAIT_WINDOW);
	return false;
}

/*
 * The next @len bytes of the message, referenced where they are as page
 * fragments of @skb: a user QP's lkeys name user MRs, whole pinned pages.
 * Then the trailer (@pad). The cursor moves only once all is attached.
 * Returns 0, -EACCES for an lkey that does not cover its SGE, -ENOMEM,
 * -EAGAIN when the bytes must be copied instead (not a user MR, or more
 * pieces than fragments).
 */
static int sroce_req_attach(struct sroce_qp *qp, const struct sroce_swqe *w,
			    struct sk_buff *skb, u32 len, u32 pad)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *req = &qp->req;
	u32 i = req->sge, off = req->sge_off, n;
	const struct ib_sge *sge;
	struct sroce_mr *mr;
	int err;

	while (len) {
		if (WARN_ON_ONCE(i >= w->num_sge))
			return -EINVAL;
		sge = &w->sge[i];
		n = min(len, sge->length - off);
		if (n) {
			mr = sroce_mr_get(sdev, sge->lkey, qp->ibqp.pd, 0,
					  sge->addr + off, n);
			if (IS_ERR(mr))
				return -EACCES;
			/* The last fragment is the trailer's. */
			err = sroce_mr_attach(mr, sge->addr + off, n, skb,
					      MAX_SKB_FRAGS - 1);
			sroce_mr_put(mr);
			if (err)
				return -EAGAIN;
		}
		len -= n;
		off += n;
		if (off == sge->length) {
			i++;
			off = 0;
		}
	}
	err = sroce_net_put_trailer(skb, pad);
	if (err)
		return err;
	req->sge = i;
	req->sge_off = off;
	sroce_count(sdev, SROCE_CNT_TX_ZCOPY);
	return 0;
}

/*
 * Build the next packet of @w into @b, its payload attached from the
 * user's pages (@zcopy) or copied. Returns -EAGAIN, with nothing changed,
 * when the payload cannot be attached.
 */
static int sroce_req_build(struct sroce_qp *qp, struct sroce_swqe *w,
			   bool zcopy, struct sroce_req_batch *b)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *req = &qp->req;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	u32 left = w->length - req->offset, pay = min(left, mtu), pad;
	bool first = !req->offset, last = pay == left, ackreq;
	struct sroce_opcode_info info;
	struct sroce_immdt *immdt;
	struct sroce_reth *reth;
	struct sroce_bth *bth;
	struct sk_buff *skb;
	u8 opcode;
	u32 psn;
	int err;

	opcode = sroce_req_opcode(w, sroce_req_uc(qp) ? SROCE_TR_UC : SROCE_TR_RC,
				  first, last);
	if (WARN_ON_ONCE(!sroce_opcode_decode(opcode, &info)))
		return -EINVAL;
	pad = (4 - (pay & 3)) & 3;
	/*
	 * Every byte it puts is written: a reused page holds old ones. Up to
	 * a path MTU of 2048, alloc_skb(): a pool page, charged whole, made
	 * WRITE of 4 KiB with 4 QPs at path MTU 1024 a fifth slower (its
	 * share held too few packets; datapath.rst, "Packet pages").
	 */
	if (zcopy)
		skb = sroce_net_alloc_skb(sdev, info.hdr_len);
	else if (pay <= SZ_2K)
		skb = sroce_net_alloc_skb(sdev, info.hdr_len + pay + pad);
	else
		skb = sroce_net_alloc_skb_reuse(sdev, info.hdr_len + pay + pad);
	if (!skb)
		return -ENOMEM;
	/* At the end, and now and then within a long message; UC never. */
	ackreq = !sroce_req_uc(qp) &&
		 (last || req->unacked + 1 >=
			  sroce_cwnd_ack_every(READ_ONCE(req->cw.cwnd)));
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, opcode, last && (w->send_flags & IB_SEND_SOLICITED),
		       pad, sroce_qp_pkey(qp), qp->params.dest_qpn, req->psn, ackreq);
	if (info.hdrs & SROCE_HDR_RETH) {
		reth = skb_put(skb, sizeof(*reth));
		reth->va = cpu_to_be64(w->remote_addr);
		reth->rkey = cpu_to_be32(w->rkey);
		reth->dma_len = cpu_to_be32(w->length);
	}
	if (info.hdrs & SROCE_HDR_IMM) {
		immdt = skb_put(skb, sizeof(*immdt));
		immdt->imm = w->imm;
	}
	if (info.hdrs & SROCE_HDR_IETH)
		((struct sroce_ieth *)skb_put(skb, sizeof(struct sroce_ieth)))->rkey =
			cpu_to_be32(w->rkey);
	if (zcopy) {
		err = sroce_req_attach(qp, w, skb, pay, pad);
	} else {
		err = sroce_wqe_gather(qp, w, skb_put(skb, pay), pay);
		skb_put_zero(skb, pad);
	}
	if (err) {
		kfree_skb(skb);
		return err;
	}
	req->unacked = ackreq ? 0 : req->unacked + 1;
	req->offset += pay;
	psn = req->psn;
	if (ackreq)
		sroce_req_rtt_start(req, psn);
	if (last)
		sroce_req_wqe_sent(qp, w);
	else
		req->psn = sroce_psn_add(req->psn, 1);
	if (!b->n)
		b->psn = psn;
	b->pkts[b->n++] = skb;
	return 0;
}

/*
 * Build the next packet of @w into @b. With tx_zcopy, a user QP's payload
 * of SROCE_TX_ZCOPY_MIN bytes or more goes out of its own pages: no copy,
 * and no zeroed buffer to copy into (datapath.rst, "Payload without a
 * copy"); else, or when that fails, it is copied into the skb.
 */
static int sroce_req_packet(struct sroce_qp *qp, struct sroce_swqe *w,
			    struct sroce_req_batch *b)
{
	u32 left = w->length - qp->req.offset;
	int err = -EAGAIN;

	if (!w->is_inline && !sroce_req_uc(qp) &&
	    sroce_tx_zcopy_ok(qp->ibqp.uobject,
			      min_t(u32, left, ib_mtu_enum_to_int(qp->params.path_mtu))))
		err = sroce_req_build(qp, w, true, b);
	if (err == -EAGAIN)
		err = sroce_req_build(qp, w, false, b);
	return err;
}

/*
 * Build and send the next packets of @w: one, or, on a path that takes
 * chains, as many more as SROCE_REQ_CHAIN, the WQE, the window and
 * @budget (which they are taken from) allow. A packet that fails is
 * not sent; those built before it are. A UC WQE whose last packet went
 * completes. Returns as sroce_req_packet().
 */
static int sroce_req_packets(struct sroce_qp *qp, struct sroce_swqe *w,
			     unsigned int *budget)
{
	struct sroce_req *req = &qp->req;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	u32 left = DIV_ROUND_UP(w->length - req->offset, mtu);
	struct sroce_req_batch b = {};
	bool uc = sroce_req_uc(qp);
	u32 last_psn = w->last_psn;
	unsigned int most = 1;
	int err;

	if (left > 1 && *budget &&
	    sroce_net_can_chain(to_sdev(qp->ibqp.device), &req->path,
				&req->dst_cache))
		most = min3(SROCE_REQ_CHAIN, left, *budget + 1);
	do {
		err = sroce_req_packet(qp, w, &b);
		/* Without the window's bit: the pass looks again, and waits. */
	} while (!err && b.n < most &&
		 (uc || sroce_cwnd_fits(req->psn, READ_ONCE(qp->comp.acked_psn),
					1, READ_ONCE(req->cw.cwnd))));
	if (b.n)
		*budget -= b.n - 1;
	/* The last packet built moved the position on (sroce_req_wqe_sent()). */
	uc = uc && b.n && !req->offset;
	sroce_req_flush(qp, &b);
	if (uc)
		sroce_comp_sent(qp, last_psn);
	return err;
}

/*
 * Do a REG_MR, BIND_MW or LOCAL_INV, once (a rewind passes over it again), and
 * complete it when what came before it has. Returns 0, or the status the
 * WQE fails with.
 */
static enum ib_wc_status sroce_req_local(struct sroce_qp *qp,
					 struct sroce_swqe *w)
{
	int err;

	if (!w->executed) {
		if (w->opcode == IB_WR_BIND_MW)
			err = sroce_mw_bind(qp, &w->bind);
		else if (w->opcode == IB_WR_REG_MR)
			err = sroce_mr_fast_reg(w->reg_mr, qp->ibqp.pd, w->rkey,
						w->reg_access);
		else
			err = sroce_key_invalidate(qp, w->rkey, false);
		if (err)
			return w->opcode == IB_WR_BIND_MW ? IB_WC_MW_BIND_ERR :
							    IB_WC_LOC_PROT_ERR;
		w->executed = true;
	}
	sroce_req_wqe_sent(qp, w);
	sroce_comp_local(qp);
	return IB_WC_SUCCESS;
}

/* Point the gather cursor at byte @offset of the WQE's data. */
static void sroce_req_seek(struct sroce_req *req, const struct sroce_swqe *w,
			   u32 offset)
{
	u32 i;

	req->offset = offset;
	req->sge = 0;
	req->sge_off = 0;
	if (w->is_inline)
		return;
	for (i = 0; i < w->num_sge && offset >= w->sge[i].length; i++)
		offset -= w->sge[i].length;
	req->sge = i;
	req->sge_off = offset;
}

/*
 * Go back to the first WQE not completed and send again from there: from
 * the PSN a NAK named when it falls in that WQE, else from the first PSN
 * not acknowledged (a READ: the first byte not placed). The WQEs after it
 * follow from their copies. READs and atomics stepped back over are
 * outstanding no more until sent again.
 *
 * An acknowledgment may also come for PSNs sent before the last rewind
 * and not yet sent again (it was on its way when the timer fired; or the
 * peer's answer to a duplicate names the last PSN it has). Then the
 * rewind goes forward: SENDs and WRITEs that PSN covers whole, and the
 * local operations done among them, are passed over, not sent again.
 * Returns: whether any was passed over (the caller retires them).
 */
static bool sroce_req_rewind(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	u32 head = qp->sq.index, acked = qp->comp.acked_psn, i, psn, k = 0;
	u32 next = req->psn;
	struct sroce_swqe *w;

	lockdep_assert_held(&qp->sq_lock);
	req->rewind = false;
	/* In SQD: what was sent goes again before the QP can be drained. */
	qp->sqd_boundary = false;
	for (i = head; i != req->pos; i = (i + 1) & qp->sq.mask)
		if (sroce_wr_rd_atomic(sroce_req_swqe(&qp->req, i)->opcode))
			req->rd_sent--;
	if (head == req->fetched_to)
		return false;	/* nothing sent that is not completed */
	req->pos = head;
	req->unacked = 0;
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_TX_REWIND);
	for (; req->pos != req->fetched_to && !req->rewind_at;
	     req->pos = (req->pos + 1) & qp->sq.mask) {
		w = sroce_req_swqe(&qp->req, req->pos);
		if (sroce_wr_rd_atomic(w->opcode) ||
		    (sroce_wr_local(w->opcode) && !w->executed) ||
		    sroce_psn_before(acked, w->last_psn))
			break;
		req->psn = sroce_psn_add(w->last_psn, 1);
	}
	if (req->pos == req->fetched_to) {
		trace_sroce_rewind(&qp->ibqp, req->psn, next, 0);
		return true;	/* the next WQE is fetched from req.psn */
	}
	w = sroce_req_swqe(&qp->req, req->pos);
	if (w->opcode == IB_WR_RDMA_READ) {
		k = qp->comp.read_off / mtu;
	} else if (!sroce_wr_atomic(w->opcode)) {
		psn = req->rewind_at ? req->rewind_psn : sroce_psn_add(acked, 1);
		if (!sroce_psn_before(psn, w->first_psn) &&
		    !sroce_psn_before(w->last_psn, psn))
			k = sroce_psn_diff(psn, w->first_psn);
	}
	sroce_req_seek(req, w, k * mtu);
	req->psn = sroce_psn_add(w->first_psn, k);
	trace_sroce_rewind(&qp->ibqp, req->psn, next, 0);
	return req->pos != head;
}

/*
 * In SQD, whether the requester stops before the WQE at req.pos (@posted:
 * there is one): it does before one not started, whose first packet was
 * never sent (a local operation: not done), and where none is posted.
 * A WQE started is sent to its end, and sent again after a rewind, so a
 * message is never cut. Stopped there, the QP may be drained.
 */
static bool sroce_req_sqd_stop(struct sroce_qp *qp, bool posted)
{
	struct sroce_req *req = &qp->req;
	const struct sroce_swqe *w;

	if (READ_ONCE(qp->state) != IB_QPS_SQD)
		return false;
	if (posted && req->pos != req->fetched_to) {
		w = sroce_req_swqe(req, req->pos);
		if (sroce_wr_local(w->opcode) ? w->executed :
		    sroce_psn_before(w->first_psn, req->high_psn))
			return false;
	}
	sroce_qp_sqd_boundary(qp);
	return true;
}

/* One pass over the send ring. Returns: work remains (budget, memory). */
static bool sroce_req_pass(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	unsigned int budget = SROCE_REQ_BUDGET;
	enum ib_wc_status status;
	enum ib_qp_state state;
	struct sroce_swqe *w;
	unsigned long flags;
	bool passed, posted;
	int err;

	while (budget--) {
		state = READ_ONCE(qp->state);
		if (state != IB_QPS_RTS && state != IB_QPS_SQD)
			return false;
		if (READ_ONCE(req->rewind) || READ_ONCE(req->rnr_wait)) {
			spin_lock_irqsave(&qp->sq_lock, flags);
			passed = req->rewind && !req->rnr_wait &&
				 sroce_req_rewind(qp);
			spin_unlock_irqrestore(&qp->sq_lock, flags);
			if (passed)
				sroce_comp_local(qp);
			if (READ_ONCE(req->rnr_wait))
				return false;	/* the RNR timer kicks us */
		}
		/* Acquire pairs with the producer's release: the WQE is whole. */
		posted = req->pos != (smp_load_acquire(&qp->sq.ring->producer) &
				      qp->sq.mask);
		if (sroce_req_sqd_stop(qp, posted) || !posted)
			return false;
		if (sroce_tx_throttled(qp)) {
			/* Time the wait (sroce_retry_stuck()); a drain kicks us. */
			if (!sroce_req_uc(qp))
				sroce_retry_arm(qp, false);
			return false;
		}
		w = sroce_req_swqe(&qp->req, req->pos);
		if (req->pos == req->fetched_to) {
			err = sroce_wqe_fetch(qp, w);
			if (err) {
				sroce_qp_fail_send(qp, req->pos, err == -EOPNOTSUPP ?
						   IB_WC_LOC_QP_OP_ERR : IB_WC_LOC_LEN_ERR);
				return false;
			}
			req->fetched_to = (req->fetched_to + 1) & qp->sq.mask;
			sroce_req_seek(req, w, 0);
		}
		if (sroce_req_must_wait(qp, w))
			return false;	/* the completer kicks us */
		if (sroce_wr_local(w->opcode)) {
			status = sroce_req_local(qp, w);
			if (status != IB_WC_SUCCESS) {
				sroce_qp_fail_send(qp, req->pos, status);
				return false;
			}
			continue;
		}
		if (!sroce_req_uc(qp) && !sroce_req_window_ok(qp))
			return false;	/* the completer kicks us */
		if (sroce_wr_rd_atomic(w->opcode))
			err = sroce_req_rd_atomic(qp, w);
		else
			err = sroce_req_packets(qp, w, &budget);
		/* -EFAULT: the work item faults an ODP piece in first. */
		if (err == -ENOMEM || err == -EFAULT)
			return true;	/* try again in a moment */
		if (err) {
			sroce_qp_fail_send(qp, req->pos, IB_WC_LOC_PROT_ERR);
			return false;
		}
	}
	return true;
}

/*
 * Fault in the ODP piece a pass could not send, in process context (the
 * work item), holding the pass's bit: no pass runs meanwhile. A range
 * that cannot come in (unmapped by its owner) fails the WQE that needs
 * it, as a protection error, if it is still the one at the head.
 */
static void sroce_req_odp_fault(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	int err;

	if (!READ_ONCE(req->fault.len) ||
	    test_and_set_bit_lock(SROCE_REQ_BUSY, &req->flags))
		return;
	err = sroce_mr_fault(to_sdev(qp->ibqp.device), qp->ibqp.pd,
			     req->fault.lkey, req->fault.addr, req->fault.len,
			     0, true);
	req->fault.len = 0;
	if (err && req->fault.pos == req->pos)
		sroce_qp_fail_send(qp, req->pos, IB_WC_LOC_PROT_ERR);
	clear_bit_unlock(SROCE_REQ_BUSY, &req->flags);
}

/*
 * Run the requester here, unless it runs elsewhere: then that runner sees
 * SROCE_REQ_AGAIN and makes one more pass. Each side orders its own write
 * before its read of the other's bit with a full barrier, so a request
 * is never lost between them. What the budget leaves goes to the work
 * item.
 */
void sroce_req_run(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	bool more;

	/* No doorbell yet: nothing may be fetched, there is no room to. */
	if (!smp_load_acquire(&req->swqes))
		return;
	set_bit(SROCE_REQ_AGAIN, &req->flags);
	/* Our AGAIN before our look at BUSY (pairs with the one below). */
	smp_mb__after_atomic();
	while (test_bit(SROCE_REQ_AGAIN, &req->flags)) {
		if (test_and_set_bit_lock(SROCE_REQ_BUSY, &req->flags))
			return;
		clear_bit(SROCE_REQ_AGAIN, &req->flags);
		more = qp->ibqp.qp_type == IB_QPT_UD ||
		       qp->ibqp.qp_type == IB_QPT_GSI ? sroce_ud_pass(qp) :
							sroce_req_pass(qp);
		clear_bit_unlock(SROCE_REQ_BUSY, &req->flags);
		/* BUSY cleared before AGAIN is looked at (pairs with above). */
		smp_mb__after_atomic();
		if (more) {
			sroce_req_kick(&qp->req);
			return;
		}
	}
}

static void sroce_req_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, req.work);

	sroce_req_odp_fault(qp);
	sroce_req_run(qp);
}

void sroce_req_stop(struct sroce_qp *qp)
{
	cancel_work_sync(&qp->req.work);
	/* A doorbell's run sees the state and ends within its budget. */
	while (test_bit(SROCE_REQ_BUSY, &qp->req.flags))
		usleep_range(50, 100);
}

int sroce_req_init(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	size_t room = max_t(size_t, qp->cap.max_send_sge * sizeof(struct ib_sge),
			    qp->cap.max_inline_data);

	INIT_WORK(&req->work, sroce_req_work);
	req->cpu = WORK_CPU_UNBOUND;
	sroce_retry_init(qp);
	req->stride = ALIGN(sizeof(struct sroce_swqe) + room, 8);
	/* A user QP's copies come with its first doorbell (qp_verbs.c). */
	if (!qp->user && sroce_queue_shadow_get(&qp->sq, req->stride, &req->swqes))
		return -ENOMEM;
	/* Per CPU: a user with many QPs on a large host adds up. */
	if (dst_cache_init(&req->dst_cache, SROCE_GFP_ACCOUNT)) {
		kvfree(req->swqes);
		return -ENOMEM;
	}
	return 0;
}
