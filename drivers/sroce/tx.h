/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit accounting: what each QP, and each device's QPs together, have
 * below them in the IP stack and the NIC, and the engines' way of sending
 * (tx.c). Documentation/datapath.rst, "Pacing".
 */
#ifndef _SROCE_TX_H
#define _SROCE_TX_H

#include <linux/atomic.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>

struct sroce_qp;

/*
 * With the tx_zcopy parameter on, a user QP's payloads from this size on
 * are not copied: the packet references the pages of its MRs (req.c).
 * Below it a copy costs less than the page references and the trailer's
 * fragment.
 */
#define SROCE_TX_ZCOPY_MIN	1024

extern bool sroce_tx_zcopy;

/* Whether a payload of @len bytes of a user QP (@user) goes out of its pages. */
static inline bool sroce_tx_zcopy_ok(bool user, u32 len)
{
	return READ_ONCE(sroce_tx_zcopy) && user && len >= SROCE_TX_ZCOPY_MIN;
}

/*
 * Bytes (skb truesize) of packets one QP may have below it in the IP
 * stack, the qdisc and the NIC. More would only wait there, and a queue
 * that waits too long drops (fq_codel), which costs a retransmission; the
 * engines wait here instead, like TCP's small queues. Less starves the
 * NIC between the destructor's wakeup and the next pass: at 128 KiB (15
 * packets at path MTU 4096) WRITE stopped here ~1000 times a run, with
 * its guests' vCPUs and the host half idle (Documentation/datapath.rst,
 * "Pacing").
 */
#define SROCE_TX_LIMIT	(512 * 1024)

/*
 * What a device's QPs may have below them together, shared evenly by the
 * QPs that have packets queued (each between SROCE_TX_LIMIT_MIN and
 * SROCE_TX_LIMIT: past eight such QPs the floor lets the sum pass it,
 * 2 MiB for sixteen). With SROCE_TX_LIMIT each, four QPs kept four times
 * that in one qdisc, their ACKs came back behind it after perftest's
 * 67 ms ACK timeout, and every timeout sent again behind the same queue;
 * with half of this pool, four QPs at 128 KiB each stopped at their
 * share 230 to 414 times per 80 MiB WRITE (Documentation/datapath.rst,
 * "Pacing").
 */
#define SROCE_TX_POOL		(1024 * 1024)
#define SROCE_TX_LIMIT_MIN	(128 * 1024)

/**
 * struct sroce_tx_pool - what the QPs of one device have below them
 * @refs: one for the device, one per &struct sroce_tx_acct of its QPs
 * @busy: QPs of the device with packets below them now
 *
 * Outlives the device as the accountings outlive their QPs: a packet's
 * destructor may run after the device is gone.
 */
struct sroce_tx_pool {
	refcount_t refs;
	atomic_t busy;
};

/**
 * sroce_tx_pool_new() - a device's transmit pool
 *
 * Context: process.
 * Return: the pool with one reference, the device's, or NULL.
 */
struct sroce_tx_pool *sroce_tx_pool_new(void);

/**
 * sroce_tx_pool_put() - drop a reference on a transmit pool
 * @pool: the pool
 *
 * Context: any.
 */
void sroce_tx_pool_put(struct sroce_tx_pool *pool);

/**
 * sroce_tx_limit() - what one QP may have queued
 * @busy: how many QPs of its device have packets queued (itself included)
 *
 * Its share of SROCE_TX_POOL, not below SROCE_TX_LIMIT_MIN nor above
 * SROCE_TX_LIMIT.
 *
 * Context: any.
 * Return: bytes (skb truesize).
 */
u32 sroce_tx_limit(int busy);

/*
 * A QP's packets below it and their bytes (skb truesize as charged), in
 * one word so that a packet's free updates both at once: the packets in
 * the high half, the bytes in the low half. The bytes stay far below
 * 4 GiB: a QP stops at its share of SROCE_TX_POOL.
 */
#define SROCE_TX_PACKET		BIT_ULL(32)

/* What charging one packet of @size bytes adds to a state word. */
static inline u64 sroce_tx_state_one(u32 size)
{
	return SROCE_TX_PACKET + size;
}

/* Packets in a &struct sroce_tx_acct state word. */
static inline u32 sroce_tx_state_packets(u64 state)
{
	return upper_32_bits(state);
}

/* Bytes in a &struct sroce_tx_acct state word. */
static inline u32 sroce_tx_state_bytes(u64 state)
{
	return lower_32_bits(state);
}

/**
 * sroce_tx_state_free() - a QP's transmit state once a packet is freed
 * @state: the state word before
 * @size: the packet's truesize now
 *
 * The stack may reallocate the head of a packet below us (a netdev
 * without scatter-gather linearizing it, a driver wanting more headroom),
 * and truesize then grows: the packet comes back bigger than it was
 * charged. Subtracting that as it is would drift the bytes down with
 * every such packet until they wrapped, and the QP would stay
 * stopped at its limit with nothing queued to wake it. So the bytes never
 * go below zero, and the last packet empties the state exactly, which
 * also undoes a drift the other way.
 *
 * Context: any.
 * Return: the state word after.
 */
static inline u64 sroce_tx_state_free(u64 state, u32 size)
{
	u32 packets = sroce_tx_state_packets(state);
	u32 bytes = sroce_tx_state_bytes(state);

	if (packets <= 1)
		return 0;
	return (u64)(packets - 1) << 32 | (bytes > size ? bytes - size : 0);
}

/**
 * struct sroce_tx_acct - what one QP has below it in the IP stack
 * @refs: one for the QP until its destroy has stopped its engines, one
 *	per packet the stack has not freed yet
 * @state: those packets and their bytes (skb truesize when charged):
 *	sroce_tx_state_packets(), sroce_tx_state_bytes()
 * @waiting: bit 0: an engine stopped at its limit (sroce_tx_limit()); the
 *	destructor that brings the bytes to half the limit as it is then,
 *	or frees the last packet, wakes the QP's engines
 * @qp: the QP; NULL from the start of its destroy on (RCU)
 * @pool: its device's pool, referenced
 *
 * Kept apart from the QP so that a destroy never waits for the stack: a
 * netdev whose transmit queue has stopped for good holds this, not the
 * QP, its memory and the process destroying it.
 */
struct sroce_tx_acct {
	refcount_t refs;
	atomic64_t state;
	unsigned long waiting;
	struct sroce_qp __rcu *qp;
	struct sroce_tx_pool *pool;
};

/**
 * sroce_tx_acct_new() - give a new QP its transmit accounting
 * @qp: the QP, being created
 *
 * Context: process.
 * Return: 0 or -ENOMEM.
 */
int sroce_tx_acct_new(struct sroce_qp *qp);

/**
 * sroce_tx_acct_detach() - stop the destructors of a QP's packets waking it
 * @qp: the QP, being destroyed
 *
 * A grace period must pass before @qp is freed: a destructor may have
 * read the pointer just before.
 *
 * Context: any.
 */
void sroce_tx_acct_detach(struct sroce_qp *qp);

/**
 * sroce_tx_acct_put() - drop a QP's reference on its transmit accounting
 * @qp: the QP, its engines stopped: nothing charges any more
 *
 * The accounting lives on while the stack holds packets of the QP.
 *
 * Context: any.
 */
void sroce_tx_acct_put(struct sroce_qp *qp);

/**
 * sroce_tx_drain() - wait until the stack has freed every packet sroce sent
 *
 * Their destructors are this module's code: called at module exit, after
 * the devices are gone. Says every ten seconds what it waits for.
 *
 * Context: process.
 */
void sroce_tx_drain(void);

/**
 * sroce_tx_charge() - account a packet to its QP until the stack frees it
 * @qp: the QP
 * @skb: the packet, about to go to sroce_net_xmit()
 *
 * The skb holds a reference on the QP's &struct sroce_tx_acct until then,
 * not on the QP.
 *
 * Context: any; the QP's engines are not stopped.
 */
void sroce_tx_charge(struct sroce_qp *qp, struct sk_buff *skb);

/**
 * sroce_tx_send() - send packets of a QP over its path, counted
 * @qp: the QP
 * @pkts: @n packets built for sroce_net_xmit(); consumed
 * @n: how many, at least one; more go as one chain, which the path must
 *	take (sroce_net_can_chain()) and whose first packet must be at
 *	least as long as each of the others
 *
 * Charged to the QP (sroce_tx_charge(), a chain as one packet) and
 * counted as sent or dropped (tx_packets, tx_drop).
 *
 * Context: any; the QP's engines are not stopped; no lock the receive
 * path takes (a packet for our own host is received in the call).
 * Return: 0, or the errno of sroce_net_xmit() or sroce_net_xmit_chain().
 */
int sroce_tx_send(struct sroce_qp *qp, struct sk_buff **pkts, unsigned int n);

/**
 * sroce_tx_over() - whether a QP has more than its share queued now
 * @tx: the QP's accounting
 *
 * Context: any.
 * Return: true when its bytes below it pass sroce_tx_limit() of the
 * device's busy QPs.
 */
bool sroce_tx_over(const struct sroce_tx_acct *tx);

/**
 * sroce_tx_throttled() - whether a QP has its limit queued
 * @qp: the QP
 *
 * When true, the caller stops sending; the requester and the responder
 * work item are kicked once the queue has drained to half the limit as
 * it is then, or has emptied.
 *
 * Context: any.
 * Return: true to stop.
 */
bool sroce_tx_throttled(struct sroce_qp *qp);

#endif /* _SROCE_TX_H */
