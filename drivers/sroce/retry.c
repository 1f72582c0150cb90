// SPDX-License-Identifier: GPL-2.0
/*
 * Retransmission for the RC requester. The local ACK timeout runs while
 * packets are unanswered; when it fires, or a NAK asks for it, the retry
 * counts are spent and the requester is told to rewind (req.rewind), or
 * the first WQE not completed fails. An RNR NAK holds the requester for
 * the time it names. Documentation/datapath.rst, "Loss recovery".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>

#include "cwnd.h"
#include "psn.h"
#include "qp.h"
#include "req.h"
#include "retry.h"
#include "sroce.h"
#include "trace.h"
#include "tx.h"

u32 sroce_rnr_timer_usecs(u8 code)
{
	/* IBTA table 45, in units of 10 us: code 0 is the longest. */
	static const u16 tens[32] = {
		65535, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152,
	};

	if (!code)
		return 655360;	/* 655.36 ms, more than a u16 of tens */
	return tens[code & 31] * 10;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rnr_timer_usecs);

u64 sroce_ack_timeout_usecs(u8 timeout)
{
	if (!timeout)
		return 0;
	/* 4.096 us << timeout, rounded up to whole microseconds. */
	return DIV_ROUND_UP(4096ULL << (timeout & 31), 1000);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_ack_timeout_usecs);

void sroce_retry_arm(struct sroce_qp *qp, bool restart)
{
	struct hrtimer *t = &qp->req.ack_timer;
	u64 us = sroce_ack_timeout_usecs(qp->params.timeout);
	ktime_t due;

	if (!us || (!restart && hrtimer_is_queued(t)))
		return;
	due = ktime_add_us(ktime_get(), us);
	WRITE_ONCE(qp->req.ack_due, due);
	/* Queued to fire no later than due: it moves itself on then. */
	if (hrtimer_is_queued(t) && !ktime_after(hrtimer_get_expires(t), due))
		return;
	hrtimer_start(t, due, HRTIMER_MODE_ABS_SOFT);
}

void sroce_retry_progress(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->sq_lock);
	req->retry_left = qp->params.retry_cnt;
	req->rnr_left = qp->params.rnr_retry;
	req->rnr_streak = 0;
	req->hold_left = SROCE_ACK_HOLD;
	qp->comp.gap_set = false;
	/*
	 * Restarted, never cancelled here: the requester may be sending at
	 * this moment, and a cancel could undo the arming of its packet.
	 * Fired with nothing outstanding, the timer does nothing.
	 */
	sroce_retry_arm(qp, true);
}

u32 sroce_retry_rnr_wait(u8 code, u8 streak)
{
	u32 us = sroce_rnr_timer_usecs(code);

	if (streak <= SROCE_RNR_EXACT || us >= SROCE_RNR_BACKOFF_MAX_US)
		return us;
	streak = min_t(u8, streak - SROCE_RNR_EXACT, 20);
	return min_t(u64, (u64)us << streak, SROCE_RNR_BACKOFF_MAX_US);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_retry_rnr_wait);

/*
 * The wait, at least as long as asked: up to an eighth more, 50 us at
 * least, is slack the kernel may use to fire it with another timer.
 */
static void sroce_retry_rnr_arm(struct sroce_req *req, int rnr_code)
{
	u64 ns = (u64)sroce_retry_rnr_wait(rnr_code, req->rnr_streak) *
		 NSEC_PER_USEC;

	hrtimer_start_range_ns(&req->rnr_timer, ns_to_ktime(ns),
			       max_t(u64, ns / 8, 50 * NSEC_PER_USEC),
			       HRTIMER_MODE_REL_SOFT);
}

enum ib_wc_status sroce_retry_again(struct sroce_qp *qp, bool at_psn, u32 psn,
				    int rnr_code)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->sq_lock);
	if (rnr_code >= 0) {
		/* rnr_retry 7 retries for ever. */
		if (qp->params.rnr_retry != 7) {
			if (!req->rnr_left)
				return IB_WC_RNR_RETRY_EXC_ERR;
			req->rnr_left--;
		}
		req->rnr_wait = true;
		if (req->rnr_streak < U8_MAX)
			req->rnr_streak++;
		trace_sroce_rnr_wait(&qp->ibqp,
				     sroce_retry_rnr_wait(rnr_code, req->rnr_streak),
				     req->rnr_left, 0);
		hrtimer_try_to_cancel(&req->ack_timer);
		if (!req->timers_off)
			sroce_retry_rnr_arm(req, rnr_code);
	} else {
		if (!req->retry_left)
			return IB_WC_RETRY_EXC_ERR;
		req->retry_left--;
	}
	req->rewind = true;
	req->rewind_at = at_psn;
	req->rewind_psn = psn;
	/* The sampled PSN may be sent again: its ACK would time neither. */
	WRITE_ONCE(req->rtt_on, false);
	return IB_WC_SUCCESS;
}

/*
 * Whether an ACK timeout comes too early to count: the QP still has
 * packets in this host, so the request waited for may still be queued
 * behind them (SROCE_ACK_HOLD). A loss of what did leave is still seen
 * sooner, by the sequence NAK the packets behind it bring.
 */
static bool sroce_retry_hold(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	if (!qp->req.hold_left ||
	    !sroce_tx_state_packets(atomic64_read(&qp->tx->state)))
		return false;
	qp->req.hold_left--;
	return true;
}

/*
 * Whether posted WQEs wait unsent because the QP's packets fill its share
 * of the transmit queue. Its queue then times them as if they had been
 * sent: packets held below us for good (a netdev whose ring has stopped,
 * or copies of PSNs acknowledged since, still queued) must not stop the
 * QP for ever with no error, as a link that is down does not on an HCA.
 * In RTS only: in SQD the WQEs wait because the queue is drained.
 */
static bool sroce_retry_stuck(struct sroce_qp *qp, u32 pos)
{
	u32 posted;

	lockdep_assert_held(&qp->sq_lock);
	if (qp->state != IB_QPS_RTS)
		return false;
	/* Acquire pairs with the producer's release, as in the requester. */
	posted = smp_load_acquire(&qp->sq.ring->producer) & qp->sq.mask;
	return pos != posted && sroce_tx_over(qp->tx);
}

static enum hrtimer_restart sroce_retry_ack_timeout(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, req.ack_timer);
	enum ib_wc_status fail = IB_WC_SUCCESS;
	unsigned long flags;
	bool kick = false;
	ktime_t due;
	u32 head, pos;

	spin_lock_irqsave(&qp->sq_lock, flags);
	/*
	 * Progress since it was queued: on to the deadline that progress set
	 * (started, not set_expires: the requester may start it meanwhile).
	 */
	due = READ_ONCE(qp->req.ack_due);
	if (ktime_before(ktime_get(), due)) {
		hrtimer_start(t, due, HRTIMER_MODE_ABS_SOFT);
		goto out;
	}
	head = qp->sq.index;
	/* Acquire pairs with the requester's release of its position. */
	pos = smp_load_acquire(&qp->req.pos);
	/*
	 * Nothing unanswered (any more): no WQE fully sent and not done, no
	 * PSN sent and not acknowledged (a WQE being sent), no WQE held
	 * back by a full queue. Or an RNR wait owns the clock.
	 */
	if ((qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) &&
	    (head != pos ||
	     sroce_psn_diff(READ_ONCE(qp->req.psn), qp->comp.acked_psn) > 1 ||
	     sroce_retry_stuck(qp, pos)) &&
	    !qp->req.rnr_wait && !qp->req.timers_off) {
		if (sroce_retry_hold(qp)) {
			sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_ACK_HELD);
			sroce_retry_arm(qp, true);
			goto out;
		}
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_ACK_TIMEOUT);
		trace_sroce_ack_timeout(&qp->ibqp, qp->comp.acked_psn,
					READ_ONCE(qp->req.psn), qp->req.retry_left);
		sroce_cwnd_cut(&qp->req.cw, sroce_req_last_sent(&qp->req), true);
		fail = sroce_retry_again(qp, false, 0, -1);
		kick = fail == IB_WC_SUCCESS;
		/*
		 * The next round starts now, not when the requester gets to
		 * send again: retry_cnt + 1 timeouts take that many periods.
		 */
		if (kick)
			sroce_retry_arm(qp, true);
	}
out:
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (fail != IB_WC_SUCCESS)
		sroce_qp_fail_send(qp, head, fail);
	else if (kick)
		sroce_req_kick(&qp->req);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart sroce_retry_rnr_expired(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, req.rnr_timer);
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->req.rnr_wait = false;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	sroce_req_kick(&qp->req);
	return HRTIMER_NORESTART;
}

void sroce_retry_init(struct sroce_qp *qp)
{
	hrtimer_setup(&qp->req.ack_timer, sroce_retry_ack_timeout, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	hrtimer_setup(&qp->req.rnr_timer, sroce_retry_rnr_expired, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
}
