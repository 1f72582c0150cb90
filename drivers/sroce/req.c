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
 * An RDMA READ or atomic is one request packet; the responder answers
 * with read responses or an atomic ACK, which the completer places.
 * At most max_rd_atomic of them are outstanding (0 counts as 1, as the
 * hardware drivers read it), and a fenced WQE waits until none is: the
 * requester stops at such a WQE and the completer kicks it when one ends.
 *
 * Loss (Documentation/datapath.rst, "Loss recovery" and "Pacing"): a
 * packet asks for an ACK at a message's end and every sixteenth of the
 * window within one, and no more than the window (req.cw, which shrinks
 * on loss and grows back with ACKs) are sent and not acknowledged. A
 * timeout, a sequence error NAK or a gap the completer sees sets
 * req.rewind; the next pass goes back to the first WQE not completed
 * and sends again, from the PSN the NAK named or the last one
 * acknowledged, rebuilding each packet from the copied WQE and the MR
 * (a READ asks only for the rest of its data). An RNR NAK pauses the
 * requester for the time it names, then rewinds the same way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/wait_bit.h>

#include "engine.h"
#include "mr.h"
#include "psn.h"
#include "qp.h"
#include "sroce.h"
#include "wire.h"

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
	 * Timers first, so they cannot kick the requester again: the RNR
	 * timer shut down, the ACK timer told to do nothing. Then the
	 * requester stops, and what its last run armed is cancelled.
	 */
	timer_shutdown_sync(&qp->req.rnr_timer);
	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->req.timers_off = true;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	hrtimer_cancel(&qp->req.ack_timer);
	sroce_req_stop(qp);
	hrtimer_cancel(&qp->req.ack_timer);
	kvfree(qp->req.swqes);
}

void sroce_req_kick(struct sroce_qp *qp)
{
	int cpu = READ_ONCE(qp->req.cpu);

	/* Gone offline: the local CPU. */
	if (cpu != WORK_CPU_UNBOUND && !cpu_online(cpu))
		cpu = WORK_CPU_UNBOUND;
	queue_work_on(cpu, system_highpri_wq, &qp->req.work);
}

/* Accountings alive, of QPs or of packets outliving theirs: module exit. */
static atomic_t sroce_tx_live = ATOMIC_INIT(0);

struct sroce_tx_pool *sroce_tx_pool_new(void)
{
	struct sroce_tx_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);

	if (pool)
		refcount_set(&pool->refs, 1);
	return pool;
}

void sroce_tx_pool_put(struct sroce_tx_pool *pool)
{
	if (refcount_dec_and_test(&pool->refs))
		kfree(pool);
}

u32 sroce_tx_limit(int busy)
{
	return clamp_t(u32, SROCE_TX_POOL / max(busy, 1), SROCE_TX_LIMIT_MIN,
		       SROCE_TX_LIMIT);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_tx_limit);

/* The QP's share now: the pool's QPs with packets queued may change it. */
static u32 sroce_tx_acct_limit(const struct sroce_tx_acct *tx)
{
	return sroce_tx_limit(atomic_read(&tx->pool->busy));
}

static void sroce_tx_acct_release(struct sroce_tx_acct *tx)
{
	if (!refcount_dec_and_test(&tx->refs))
		return;
	sroce_tx_pool_put(tx->pool);
	kfree(tx);
	if (atomic_dec_and_test(&sroce_tx_live))
		wake_up_var(&sroce_tx_live);
}

/*
 * Under RCU as a whole: the QP's memory while it is used here, and the
 * module's text until the last wake_up_var() (sroce_tx_drain()).
 */
static void sroce_tx_destructor(struct sk_buff *skb)
{
	struct sroce_tx_acct *tx = skb_shinfo(skb)->destructor_arg;
	struct sroce_qp *qp;
	u64 old, new;
	bool empty;
	u32 left;

	rcu_read_lock();
	old = atomic64_read(&tx->state);
	do {
		new = sroce_tx_state_free(old, skb->truesize);
		/* Fully ordered when it succeeds: before the bit test. */
	} while (!atomic64_try_cmpxchg(&tx->state, &old, new));
	empty = !sroce_tx_state_packets(new);
	left = sroce_tx_state_bytes(new);
	if (empty)
		atomic_dec(&tx->pool->busy);
	/*
	 * The share (a read of the pool) only when someone waits. An empty
	 * queue always wakes: whatever the share, a waiter goes.
	 */
	if (test_bit(0, &tx->waiting) &&
	    (empty || left <= sroce_tx_acct_limit(tx) / 2) &&
	    test_and_clear_bit(0, &tx->waiting)) {
		qp = rcu_dereference(tx->qp);
		/*
		 * Not NULL: its destroy has not passed the grace period, the
		 * table's reference still holds (the test only guards that).
		 */
		if (qp && refcount_inc_not_zero(&qp->refs)) {
			sroce_req_kick(qp);
			queue_work(system_highpri_wq, &qp->resp.work);
			sroce_qp_put(qp);
		}
	}
	sroce_tx_acct_release(tx);
	rcu_read_unlock();
}

int sroce_tx_acct_new(struct sroce_qp *qp)
{
	struct sroce_tx_acct *tx = kzalloc(sizeof(*tx), GFP_KERNEL);

	if (!tx)
		return -ENOMEM;
	refcount_set(&tx->refs, 1);
	RCU_INIT_POINTER(tx->qp, qp);
	tx->pool = to_sdev(qp->ibqp.device)->tx_pool;
	refcount_inc(&tx->pool->refs);
	atomic_inc(&sroce_tx_live);
	qp->tx = tx;
	return 0;
}

void sroce_tx_acct_detach(struct sroce_qp *qp)
{
	RCU_INIT_POINTER(qp->tx->qp, NULL);
}

void sroce_tx_acct_put(struct sroce_qp *qp)
{
	sroce_tx_acct_release(qp->tx);
	qp->tx = NULL;
}

void sroce_tx_drain(void)
{
	int left;

	while (!wait_var_event_timeout(&sroce_tx_live, !atomic_read(&sroce_tx_live),
				       10 * HZ)) {
		left = atomic_read(&sroce_tx_live);
		if (left)
			pr_info("waiting for the network stack to free the packets of %d QPs\n",
				left);
	}
	/* Every destructor past its rcu_read_unlock(). */
	synchronize_rcu();
}

void sroce_tx_charge(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_tx_acct *tx = qp->tx;

	refcount_inc(&tx->refs);
	if (sroce_tx_state_packets(atomic64_add_return(sroce_tx_state_one(skb->truesize),
						       &tx->state)) == 1)
		atomic_inc(&tx->pool->busy);
	skb_shinfo(skb)->destructor_arg = tx;
	skb->destructor = sroce_tx_destructor;
}

int sroce_tx_send(struct sroce_qp *qp, struct sk_buff **pkts, unsigned int n)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *req = &qp->req;
	struct sk_buff *head;
	int err;

	head = n > 1 ? sroce_net_chain(sdev, &req->path, pkts, n) : pkts[0];
	sroce_tx_charge(qp, head);
	/* A packet lost here or later comes back as a timeout or a NAK. */
	if (n > 1)
		err = sroce_net_xmit_chain(sdev, &req->path, &req->dst_cache, head);
	else
		err = sroce_net_xmit(sdev, &req->path, &req->dst_cache, head);
	sroce_count_n(sdev, err ? SROCE_CNT_TX_DROP : SROCE_CNT_TX_PACKETS, n);
	return err;
}

/* Whether the QP has more than its share queued below it now. */
static bool sroce_tx_over(const struct sroce_tx_acct *tx)
{
	return sroce_tx_state_bytes(atomic64_read(&tx->state)) > sroce_tx_acct_limit(tx);
}

bool sroce_tx_throttled(struct sroce_qp *qp)
{
	struct sroce_tx_acct *tx = qp->tx;

	if (!sroce_tx_over(tx))
		return false;
	set_bit(0, &tx->waiting);
	/* The bit before the second look (pairs with the destructor's). */
	smp_mb__after_atomic();
	if (!sroce_tx_over(tx))
		return false;
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_TX_WAIT_QUEUE);
	return true;
}

void sroce_req_reset(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	hrtimer_cancel(&req->ack_timer);
	timer_delete_sync(&req->rnr_timer);
	req->pos = qp->sq.index;
	req->fetched_to = qp->sq.index;
	req->offset = 0;
	req->sge = 0;
	req->sge_off = 0;
	req->psn = qp->params.sq_psn;
	req->unacked = 0;
	req->rd_sent = 0;
	req->rd_done = 0;
	req->rewind = false;
	req->rnr_wait = false;
	memset(&qp->comp, 0, sizeof(qp->comp));
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
	req->hold_left = SROCE_ACK_HOLD;
	sroce_cwnd_init(&req->cw,
			sroce_cwnd_ceiling(ib_mtu_enum_to_int(qp->params.path_mtu)),
			sroce_ack_timeout_usecs(qp->params.timeout));
	req->rtt_on = false;
}

bool sroce_req_window_open(u32 psn, u32 acked, u32 n, u32 window)
{
	s32 ahead = sroce_psn_diff(psn, sroce_psn_add(acked, 1));

	if (ahead <= 0)
		return true;
	return (u32)ahead + n <= window;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_req_window_open);

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

void sroce_req_arm(struct sroce_qp *qp, bool restart)
{
	struct hrtimer *t = &qp->req.ack_timer;
	u64 us = sroce_ack_timeout_usecs(qp->params.timeout);

	if (!us || (!restart && hrtimer_is_queued(t)))
		return;
	hrtimer_start(t, ns_to_ktime(us * NSEC_PER_USEC), HRTIMER_MODE_REL_SOFT);
}

void sroce_req_progress(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->sq_lock);
	req->retry_left = qp->params.retry_cnt;
	req->rnr_left = qp->params.rnr_retry;
	req->hold_left = SROCE_ACK_HOLD;
	qp->comp.gap_set = false;
	/*
	 * Restarted, never cancelled here: the requester may be sending at
	 * this moment, and a cancel could undo the arming of its packet.
	 * Fired with nothing outstanding, the timer does nothing.
	 */
	sroce_req_arm(qp, true);
}

enum ib_wc_status sroce_req_retry(struct sroce_qp *qp, bool at_psn, u32 psn,
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
		hrtimer_try_to_cancel(&req->ack_timer);
		mod_timer(&req->rnr_timer, jiffies +
			  max_t(unsigned long, 1,
				usecs_to_jiffies(sroce_rnr_timer_usecs(rnr_code))));
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

u32 sroce_req_last_sent(struct sroce_qp *qp)
{
	return sroce_psn_add(READ_ONCE(qp->req.high_psn), SROCE_PSN_MASK);
}

/*
 * Whether an ACK timeout comes too early to count: the QP still has
 * packets in this host, so the request waited for may still be queued
 * behind them (SROCE_ACK_HOLD). A loss of what did leave is still seen
 * sooner, by the sequence NAK the packets behind it bring.
 */
static bool sroce_req_hold_timeout(struct sroce_qp *qp)
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
static bool sroce_req_stuck(struct sroce_qp *qp, u32 pos)
{
	u32 posted;

	lockdep_assert_held(&qp->sq_lock);
	if (qp->state != IB_QPS_RTS)
		return false;
	/* Acquire pairs with the producer's release, as in the requester. */
	posted = smp_load_acquire(&qp->sq.ring->producer) & qp->sq.mask;
	return pos != posted && sroce_tx_over(qp->tx);
}

static enum hrtimer_restart sroce_req_ack_timeout(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, req.ack_timer);
	enum ib_wc_status fail = IB_WC_SUCCESS;
	unsigned long flags;
	bool kick = false;
	u32 head, pos;

	spin_lock_irqsave(&qp->sq_lock, flags);
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
	     sroce_req_stuck(qp, pos)) &&
	    !qp->req.rnr_wait && !qp->req.timers_off) {
		if (sroce_req_hold_timeout(qp)) {
			sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_ACK_HELD);
			sroce_req_arm(qp, true);
			goto out;
		}
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_ACK_TIMEOUT);
		sroce_cwnd_cut(&qp->req.cw, sroce_req_last_sent(qp), true);
		fail = sroce_req_retry(qp, false, 0, -1);
		kick = fail == IB_WC_SUCCESS;
		/*
		 * The next round starts now, not when the requester gets to
		 * send again: retry_cnt + 1 timeouts take that many periods.
		 */
		if (kick)
			sroce_req_arm(qp, true);
	}
out:
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (fail != IB_WC_SUCCESS)
		sroce_qp_fail_send(qp, head, fail);
	else if (kick)
		sroce_req_kick(qp);
	return HRTIMER_NORESTART;
}

static void sroce_req_rnr_expired(struct timer_list *t)
{
	struct sroce_qp *qp = timer_container_of(qp, t, req.rnr_timer);
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->req.rnr_wait = false;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	sroce_req_kick(qp);
}

bool sroce_req_executes(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return true;
	default:
		return false;
	}
}

static bool sroce_req_is_atomic(u32 opcode)
{
	return opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

u32 sroce_req_npsn(u32 opcode, u32 length, u32 mtu)
{
	if (sroce_req_is_atomic(opcode) || !length)
		return 1;
	return DIV_ROUND_UP(length, mtu);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_req_npsn);

/* A REG_MR or LOCAL_INV: no data, no PSN. */
static int sroce_req_fetch_local(struct sroce_qp *qp, struct sroce_swqe *w,
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

/* Copy the WQE at the requester's position out of the ring and check it. */
int sroce_req_fetch(struct sroce_qp *qp, struct sroce_swqe *w)
{
	const struct rxe_send_wqe *slot = (const void *)(qp->sq.ring->data +
		((size_t)qp->req.pos << qp->sq.log2_elem));
	u32 i, n, len = 0, mtu;
	bool atomic, rd_atomic;

	w->wr_id = READ_ONCE(slot->wr.wr_id);
	w->opcode = READ_ONCE(slot->wr.opcode);
	w->send_flags = READ_ONCE(slot->wr.send_flags);
	w->executed = false;
	if (!sroce_req_executes(w->opcode))
		return -EOPNOTSUPP;
	if (sroce_wr_local(w->opcode))
		return sroce_req_fetch_local(qp, w, slot);
	atomic = sroce_req_is_atomic(w->opcode);
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
				    sroce_req_npsn(w->opcode, len, mtu) - 1);
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

/* The next @len bytes of the message, through its lkeys, into @dst. */
int sroce_req_gather(struct sroce_qp *qp, const struct sroce_swqe *w,
		     u8 *dst, u32 len)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *req = &qp->req;
	struct sroce_gather g = { .dst = dst };
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

static u8 sroce_req_opcode(const struct sroce_swqe *w, bool first, bool last)
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
	return SROCE_OPCODE(SROCE_TR_RC, op);
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
	sroce_req_arm(qp, false);
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

/* Build and send the one request packet of an RDMA READ or atomic. */
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
		       SROCE_PKEY_DEFAULT, qp->params.dest_qpn, qp->req.psn, true);
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

	if (sroce_req_window_open(req->psn, READ_ONCE(qp->comp.acked_psn), 1,
				  READ_ONCE(req->cw.cwnd)))
		return true;
	set_bit(0, &req->window_wait);
	/* The bit before the second look (pairs with sroce_comp_recv()). */
	smp_mb__after_atomic();
	if (sroce_req_window_open(req->psn, READ_ONCE(qp->comp.acked_psn), 1,
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

	opcode = sroce_req_opcode(w, first, last);
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
	/* At the end, and now and then within a long message. */
	ackreq = last ||
		 req->unacked + 1 >= sroce_cwnd_ack_every(READ_ONCE(req->cw.cwnd));
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, opcode, last && (w->send_flags & IB_SEND_SOLICITED),
		       pad, SROCE_PKEY_DEFAULT, qp->params.dest_qpn, req->psn, ackreq);
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
		err = sroce_req_gather(qp, w, skb_put(skb, pay), pay);
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

	if (!w->is_inline &&
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
 * not sent; those built before it are. Returns as sroce_req_packet().
 */
static int sroce_req_packets(struct sroce_qp *qp, struct sroce_swqe *w,
			     unsigned int *budget)
{
	struct sroce_req *req = &qp->req;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	u32 left = DIV_ROUND_UP(w->length - req->offset, mtu);
	struct sroce_req_batch b = {};
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
		 sroce_req_window_open(req->psn, READ_ONCE(qp->comp.acked_psn), 1,
				       READ_ONCE(req->cw.cwnd)));
	if (b.n)
		*budget -= b.n - 1;
	sroce_req_flush(qp, &b);
	return err;
}

/*
 * Do a REG_MR or LOCAL_INV, once (a rewind passes over it again), and
 * complete it when what came before it has. Returns 0, or the status the
 * WQE fails with.
 */
static enum ib_wc_status sroce_req_local(struct sroce_qp *qp,
					 struct sroce_swqe *w)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	int err;

	if (!w->executed) {
		if (w->opcode == IB_WR_REG_MR)
			err = sroce_mr_fast_reg(w->reg_mr, qp->ibqp.pd, w->rkey,
						w->reg_access);
		else
			err = sroce_mr_invalidate(sdev, w->rkey, qp->ibqp.pd);
		if (err)
			return IB_WC_LOC_PROT_ERR;
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
	struct sroce_swqe *w;

	lockdep_assert_held(&qp->sq_lock);
	req->rewind = false;
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
	if (req->pos == req->fetched_to)
		return true;	/* the next WQE is fetched from req.psn */
	w = sroce_req_swqe(&qp->req, req->pos);
	if (w->opcode == IB_WR_RDMA_READ) {
		k = qp->comp.read_off / mtu;
	} else if (!sroce_req_is_atomic(w->opcode)) {
		psn = req->rewind_at ? req->rewind_psn : sroce_psn_add(acked, 1);
		if (!sroce_psn_before(psn, w->first_psn) &&
		    !sroce_psn_before(w->last_psn, psn))
			k = sroce_psn_diff(psn, w->first_psn);
	}
	sroce_req_seek(req, w, k * mtu);
	req->psn = sroce_psn_add(w->first_psn, k);
	return req->pos != head;
}

/* One pass over the send ring. Returns: work remains (budget, memory). */
static bool sroce_req_pass(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	unsigned int budget = SROCE_REQ_BUDGET;
	enum ib_wc_status status;
	struct sroce_swqe *w;
	unsigned long flags;
	bool passed;
	int err;

	while (budget--) {
		if (READ_ONCE(qp->state) != IB_QPS_RTS)
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
		if (req->pos == (smp_load_acquire(&qp->sq.ring->producer) & qp->sq.mask))
			return false;
		if (sroce_tx_throttled(qp)) {
			/* Time the wait (sroce_req_stuck()); a drain kicks us. */
			sroce_req_arm(qp, false);
			return false;
		}
		w = sroce_req_swqe(&qp->req, req->pos);
		if (req->pos == req->fetched_to) {
			err = sroce_req_fetch(qp, w);
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
		if (!sroce_req_window_ok(qp))
			return false;	/* the completer kicks us */
		if (sroce_wr_rd_atomic(w->opcode))
			err = sroce_req_rd_atomic(qp, w);
		else
			err = sroce_req_packets(qp, w, &budget);
		if (err == -ENOMEM)
			return true;	/* try again in a moment */
		if (err) {
			sroce_qp_fail_send(qp, req->pos, IB_WC_LOC_PROT_ERR);
			return false;
		}
	}
	return true;
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

	set_bit(SROCE_REQ_AGAIN, &req->flags);
	/* Our AGAIN before our look at BUSY (pairs with the one below). */
	smp_mb__after_atomic();
	while (test_bit(SROCE_REQ_AGAIN, &req->flags)) {
		if (test_and_set_bit_lock(SROCE_REQ_BUSY, &req->flags))
			return;
		clear_bit(SROCE_REQ_AGAIN, &req->flags);
		more = qp->ibqp.qp_type == IB_QPT_RC ? sroce_req_pass(qp) :
						       sroce_ud_pass(qp);
		clear_bit_unlock(SROCE_REQ_BUSY, &req->flags);
		/* BUSY cleared before AGAIN is looked at (pairs with above). */
		smp_mb__after_atomic();
		if (more) {
			sroce_req_kick(qp);
			return;
		}
	}
}

static void sroce_req_work(struct work_struct *work)
{
	sroce_req_run(container_of(work, struct sroce_qp, req.work));
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
	hrtimer_setup(&req->ack_timer, sroce_req_ack_timeout, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	timer_setup(&req->rnr_timer, sroce_req_rnr_expired, 0);
	req->stride = ALIGN(sizeof(struct sroce_swqe) + room, 8);
	req->swqes = kvcalloc(qp->sq.mask + 1, req->stride, GFP_KERNEL);
	if (!req->swqes)
		return -ENOMEM;
	if (dst_cache_init(&req->dst_cache, GFP_KERNEL)) {
		kvfree(req->swqes);
		return -ENOMEM;
	}
	return 0;
}
