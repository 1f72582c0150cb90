// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit accounting. Every packet an engine sends is charged to its QP
 * (skb truesize) until the stack frees it; a QP stops at its share of its
 * device's pool and is woken by the destructor that drains it to half
 * that share. The accounting outlives its QP, so that a destroy never
 * waits for the stack. Documentation/datapath.rst, "Pacing".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "cc.h"
#include "net.h"
#include "qp.h"
#include "req.h"
#include "sroce.h"
#include "tx.h"

/*
 * Off until make bench shows it gains: Documentation/datapath.rst,
 * "Payload without a copy". Read per packet, so it can be flipped between
 * two runs in one boot.
 */
bool sroce_tx_zcopy;
module_param_named(tx_zcopy, sroce_tx_zcopy, bool, 0644);
MODULE_PARM_DESC(tx_zcopy, "send user QPs' payloads from their pages, without a copy (default: off)");

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
			sroce_req_kick(&qp->req);
			queue_work(system_highpri_wq, &qp->resp.work);
			sroce_qp_put(qp);
		}
	}
	sroce_tx_acct_release(tx);
	rcu_read_unlock();
}

int sroce_tx_acct_new(struct sroce_qp *qp)
{
	struct sroce_tx_acct *tx = kzalloc(sizeof(*tx), SROCE_GFP_ACCOUNT);

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
	unsigned int i, bytes = 0;
	struct sk_buff *head;

	if (READ_ONCE(qp->cc.paced)) {
		for (i = 0; i < n; i++)
			bytes += pkts[i]->len;
		sroce_cc_tx_sent(qp, bytes);
	}
	head = n > 1 ? sroce_net_chain(sdev, &req->path, pkts, n) : pkts[0];
	sroce_tx_charge(qp, head);
	/* A packet lost here or later comes back as a timeout or a NAK. */
	if (n > 1)
		return sroce_net_xmit_chain(sdev, &req->path, &req->dst_cache, head);
	return sroce_net_xmit(sdev, &req->path, &req->dst_cache, head);
}

bool sroce_tx_over(const struct sroce_tx_acct *tx)
{
	return sroce_tx_state_bytes(atomic64_read(&tx->state)) > sroce_tx_acct_limit(tx);
}

bool sroce_tx_throttled(struct sroce_qp *qp)
{
	struct sroce_tx_acct *tx = qp->tx;

	/* The QP's rate first: its wake timer kicks the same engines. */
	if (sroce_cc_tx_wait(qp))
		return true;
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
