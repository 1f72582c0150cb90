/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC engines: requester (req.c: send WQEs to packets), responder
 * (resp.c: requests to memory, receive completions and ACKs) and completer
 * (comp.c: ACKs to send completions). Documentation/datapath.rst.
 */
#ifndef _SROCE_ENGINE_H
#define _SROCE_ENGINE_H

#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "net.h"
#include "opcode.h"

struct sroce_qp;
struct sroce_recv;

/**
 * struct sroce_swqe - a send WQE, copied out of the send ring and checked
 * @wr_id: the consumer's work request id
 * @opcode: IB_WR_* (user and kernel opcodes agree)
 * @send_flags: IB_SEND_*
 * @imm: immediate data (wire order)
 * @remote_addr: RDMA or atomic target address
 * @rkey: RDMA or atomic target key; the key to invalidate of a
 *	SEND_WITH_INV or LOCAL_INV; the new key of a REG_MR
 * @swap_add: atomic: the value to swap in, or to add
 * @compare: compare and swap: the value to compare with
 * @length: bytes of the message (RDMA READ: to read; atomic: 8)
 * @num_sge: entries in @sge (0 for inline data)
 * @is_inline: the data is in @inline_data, not behind @sge
 * @reg_mr: REG_MR: the MR (kernel QPs only)
 * @reg_access: REG_MR: the access it grants
 * @executed: a local operation (REG_MR, LOCAL_INV) was done: a rewind
 *	that passes over it again does not do it twice
 * @first_psn: PSN of the message's first packet
 * @last_psn: PSN of its last packet (a local operation takes none: the
 *	PSN before @first_psn)
 * @sge: gather list, or inline data (@inline_data)
 * @inline_data: the inline bytes
 */
struct sroce_swqe {
	u64 wr_id;
	u32 opcode;
	u32 send_flags;
	__be32 imm;
	u64 remote_addr;
	u32 rkey;
	u64 swap_add;
	u64 compare;
	u32 length;
	u32 num_sge;
	bool is_inline;
	struct ib_mr *reg_mr;
	int reg_access;
	bool executed;
	u32 first_psn;
	u32 last_psn;
	union {
		DECLARE_FLEX_ARRAY(struct ib_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

/**
 * struct sroce_reg_slot - a REG_MR in a kernel QP's send ring
 * @mr: the &struct ib_mr
 * @key: the key the MR takes
 * @access: the access it grants
 *
 * The rxe ABI has no room for a REG_MR (user space cannot post one): in
 * rings only the kernel writes, it sits in &rxe_send_wr.wr.
 */
struct sroce_reg_slot {
	u64 mr;
	u32 key;
	u32 access;
};

/**
 * sroce_wr_local() - whether a send opcode is a local operation
 * @opcode: IB_WR_*
 *
 * REG_MR and LOCAL_INV change an MR and send nothing.
 *
 * Context: any.
 * Return: true for them.
 */
static inline bool sroce_wr_local(u32 opcode)
{
	return opcode == IB_WR_REG_MR || opcode == IB_WR_LOCAL_INV;
}

/* Bits of &sroce_req.flags. */
enum {
	SROCE_REQ_BUSY,		/* a pass is running (work item or doorbell) */
	SROCE_REQ_AGAIN,	/* a pass was asked for */
};

/*
 * The adaptive window's ceiling: SROCE_CWND_BYTES worth of PSNs, but no
 * fewer than SROCE_CWND_PSNS (as many as rdma_rxe's requester leaves
 * unacknowledged); and the window's floor in PSNs.
 */
#define SROCE_CWND_BYTES	(128 * 1024)
#define SROCE_CWND_PSNS		128
#define SROCE_CWND_MIN		4

/*
 * Probing: how far past the ceiling the window may grow while the path
 * shows no loss and its round trip stays short against the ACK timeout;
 * and for how many windows' worth of PSNs (at the ceiling) acknowledged
 * after a NAK or a timeout it may not.
 */
#define SROCE_CWND_PROBE	4
#define SROCE_CWND_QUIET_NAK	16
#define SROCE_CWND_QUIET_TIMEOUT 64

/*
 * Read responses held ahead of a missing one before it is taken as lost
 * and the READ asked for again from it (as TCP's duplicate ACK count).
 */
#define SROCE_READ_REORDER	4
/* How far ahead a read response is held: the bits of comp.read_held. */
#define SROCE_READ_HELD_MAX	64

/*
 * Local ACK timeouts held back between two progresses because the QP
 * still had packets in this host's qdisc or NIC ring: what it waits for
 * may not have left yet (TCP does not send again a segment still in the
 * host's queue either). Bounded, so that a ring that never moves again
 * still fails the QP, SROCE_ACK_HOLD periods later.
 */
#define SROCE_ACK_HOLD		3

/**
 * struct sroce_cwnd - the requester's window of PSNs in flight
 * @cwnd: PSNs that may be sent and not acknowledged now (written under
 *	sq_lock, read by the requester with READ_ONCE())
 * @ssthresh: below it the window grows by each PSN acknowledged, at or
 *	above it by one PSN per window's worth
 * @grow: PSNs acknowledged toward the next growth
 * @max: the ceiling, from sroce_cwnd_ceiling()
 * @quiet: PSNs still to be acknowledged before the window may pass @max,
 *	up to SROCE_CWND_PROBE * @max (after a cut, and one window's worth
 *	from the start)
 * @srtt_us: smoothed round trip (a PSN sent for the first time until it
 *	is acknowledged), 0 before the first sample
 * @rtt_us: the last sample (it follows a growing window sooner)
 * @rtt_limit_us: no probing while @srtt_us or @rtt_us is at or above it,
 *	and the window falls back to @max at twice it (a quarter and a half
 *	of the local ACK timeout); 0 when the QP has no ACK timer
 * @recover: the last PSN sent when the window was last cut
 * @recovering: the cut's loss is not behind us (@recover not acknowledged):
 *	no further cut, no growth above @ssthresh
 *
 * Documentation/datapath.rst, "Pacing", has the events and why.
 */
struct sroce_cwnd {
	u32 cwnd;
	u32 ssthresh;
	u32 grow;
	u32 max;
	u32 quiet;
	u32 srtt_us;
	u32 rtt_us;
	u32 rtt_limit_us;
	u32 recover;
	bool recovering;
};

/**
 * sroce_cwnd_ceiling() - the largest window for a path MTU
 * @mtu: the path MTU in bytes
 *
 * Context: any.
 * Return: SROCE_CWND_BYTES worth of PSNs, at least SROCE_CWND_PSNS.
 */
u32 sroce_cwnd_ceiling(u32 mtu);

/**
 * sroce_cwnd_init() - a window for a QP entering RTS
 * @c: the window
 * @ceiling: from sroce_cwnd_ceiling(); the window starts there
 * @timeout_us: the QP's local ACK timeout, 0 for none
 *
 * Context: the QP's sq_lock held (or the QP not yet running).
 */
void sroce_cwnd_init(struct sroce_cwnd *c, u32 ceiling, u64 timeout_us);

/**
 * sroce_cwnd_rtt() - a round-trip sample
 * @c: the window
 * @us: microseconds from a PSN's first sending to its acknowledgment
 *	(never a PSN sent again: its ACK could answer either copy)
 *
 * Context: the QP's sq_lock held.
 */
void sroce_cwnd_rtt(struct sroce_cwnd *c, u32 us);

/**
 * sroce_cwnd_acked() - PSNs newly acknowledged
 * @c: the window
 * @n: how many (the acknowledged PSN moved by @n)
 * @acked: the last PSN acknowledged now
 *
 * Context: the QP's sq_lock held.
 */
void sroce_cwnd_acked(struct sroce_cwnd *c, u32 n, u32 acked);

/**
 * sroce_cwnd_cut() - a loss: a sequence error or implied NAK, a timeout
 * @c: the window
 * @last_sent: the last PSN sent so far; losses until it is acknowledged
 *	are this one
 * @timeout: the local ACK timer fired (the window falls to the minimum)
 *
 * The threshold becomes half the window, not below half the ceiling nor
 * above the ceiling; a NAK brings the window down to it, a timeout to
 * SROCE_CWND_MIN. Either keeps the window from probing past the ceiling
 * for a while (SROCE_CWND_QUIET_NAK, SROCE_CWND_QUIET_TIMEOUT).
 *
 * Context: the QP's sq_lock held.
 */
void sroce_cwnd_cut(struct sroce_cwnd *c, u32 last_sent, bool timeout);

/**
 * sroce_cwnd_ack_every() - packets between two that ask for an ACK
 * @cwnd: the current window
 *
 * Context: any.
 * Return: an eighth of @cwnd, at least 2, so that ACKs keep the window
 * moving and come well within the timeout even from a slow responder.
 */
u32 sroce_cwnd_ack_every(u32 cwnd);

/**
 * struct sroce_req - requester state of a QP
 * @work: runs the requester when the caller cannot (kicks from softirq,
 *	kernel posts, timers, what a budget left)
 * @flags: SROCE_REQ_BUSY and SROCE_REQ_AGAIN: one pass at a time
 * @swqes: one &struct sroce_swqe per send ring slot
 * @stride: bytes per entry of @swqes
 * @pos: send ring index of the WQE being sent, or next to be; the WQEs
 *	before it are fully sent (the completer reads it with acquire)
 * @fetched_to: send ring index of the first WQE not yet copied into
 *	@swqes; a rewind goes back over copies, never reads the ring twice
 * @offset: bytes of the WQE at @pos sent (a READ: requested)
 * @sge: gather entry the next byte comes from
 * @sge_off: offset in that entry
 * @psn: next PSN to send
 * @high_psn: the first PSN never sent (what is before it and sent again
 *	is a retransmission)
 * @unacked: packets sent since the last one that asked for an ACK
 * @cw: the window of PSNs sent and not acknowledged (the completer and
 *	the ACK timer change it under sq_lock)
 * @window_wait: bit 0 set while the requester waits for the window to
 *	open; the completer clears it and kicks the requester once its
 *	progress leaves room for the next packet
 * @rtt_on: a round-trip sample is on its way: @rtt_psn, sent at @rtt_t0
 *	(set with release by the requester, cleared by the completer when
 *	the PSN is acknowledged and by a rewind, under sq_lock)
 * @rtt_psn: see @rtt_on
 * @rtt_t0: see @rtt_on, in ktime_get_ns() time
 * @rd_sent: RDMA READs and atomics sent, counting up (requester's)
 * @rd_done: RDMA READs and atomics completed, counting up (completer's,
 *	under sq_lock); @rd_sent - @rd_done are outstanding
 * @rewind: send again from the first WQE not completed (set under
 *	sq_lock by the completer and the timers, done by the requester)
 * @rewind_at: the rewind starts at @rewind_psn (a NAK said where), not at
 *	the last PSN acknowledged
 * @rewind_psn: see @rewind_at
 * @rnr_wait: an RNR NAK came; nothing is sent until @rnr_timer fires
 * @retry_left: transport retries left (timeouts, sequence NAKs); reset by
 *	progress
 * @rnr_left: RNR retries left (ignored when rnr_retry is 7); reset by
 *	progress
 * @hold_left: local ACK timeouts that may still be held back because the
 *	QP's packets are still in this host (SROCE_ACK_HOLD); reset by
 *	progress
 * @timers_off: the QP is going away: @ack_timer does nothing (under sq_lock)
 * @ack_timer: the local ACK timeout, pending while packets are unanswered
 *	or posted WQEs wait behind the QP's full transmit share; an
 *	hrtimer, because IBTA bounds the time to RETRY_EXC_ERR by
 *	(retry_cnt + 1) timeouts (SROCE_ACK_HOLD more while our own packets
 *	cannot leave this host) and the timer wheel's slack at these
 *	periods is up to an eighth
 * @rnr_timer: the RNR NAK's wait
 * @path: where packets go, set on entering RTR
 * @dst_cache: the route to @path, for the requester's and the responder's
 *	packets (RC); reset when @path changes
 * @peer_local: an RC QP whose @path, on entering RTR, was routed to this
 *	host: a user's doorbell queues @work rather than running the pass
 *	(Documentation/datapath.rst, "Requester")
 * @cpu: the CPU of the last post_send, where @work runs
 *	(WORK_CPU_UNBOUND before the first)
 *
 * Fields the completer and the timers share (@rewind to @hold_left) are
 * under the QP's sq_lock; the rest is the requester's own.
 */
struct sroce_req {
	struct work_struct work;
	unsigned long flags;
	u8 *swqes;
	size_t stride;
	u32 pos;
	u32 fetched_to;
	u32 offset;
	u32 sge;
	u32 sge_off;
	u32 psn;
	u32 high_psn;
	u32 unacked;
	struct sroce_cwnd cw;
	unsigned long window_wait;
	bool rtt_on;
	u32 rtt_psn;
	u64 rtt_t0;
	u32 rd_sent;
	u32 rd_done;
	bool rewind;
	bool rewind_at;
	u32 rewind_psn;
	bool rnr_wait;
	u8 retry_left;
	u8 rnr_left;
	u8 hold_left;
	bool timers_off;
	struct hrtimer ack_timer;
	struct timer_list rnr_timer;
	struct sroce_path path;
	struct dst_cache dst_cache;
	bool peer_local;
	int cpu;
};

/**
 * struct sroce_comp - completer state of a QP, under the QP's sq_lock
 * @read_off: bytes of the RDMA READ at the head of the send ring placed
 *	in order so far
 * @read_held: responses of that READ placed ahead of the one awaited (the
 *	PSN at @read_off): bit i is the PSN i + 1 after it
 * @acked_psn: the last PSN acknowledged
 * @nak_psn: the PSN of the last sequence error NAK acted on, when
 *	@nak_set. The responder NAKs a gap once, so another NAK of that PSN
 *	with nothing acknowledged since is a copy (a duplicated or delayed
 *	packet): dropped, no retry counted, no rewind
 * @nak_set: see @nak_psn
 * @gap_set: a rewind was asked for a gap the completer saw (a read
 *	response or ACK past what it waits for); not asked again until
 *	progress
 */
struct sroce_comp {
	u32 read_off;
	u64 read_held;
	u32 acked_psn;
	u32 nak_psn;
	bool nak_set;
	bool gap_set;
};

/**
 * enum sroce_res_kind - what a responder resource holds
 * @SROCE_RES_READ: an RDMA READ request, answered by read responses
 * @SROCE_RES_ATOMIC: an executed atomic, answered by its original value
 */
enum sroce_res_kind {
	SROCE_RES_READ,
	SROCE_RES_ATOMIC,
};

/**
 * struct sroce_res - a responder resource (IBTA 9.5: max_dest_rd_atomic)
 * @kind: READ or atomic
 * @pending: its responses are not all sent yet
 * @psn: PSN of the request (the first response's)
 * @va: READ: next address to read
 * @rkey: READ: the key
 * @left: READ: bytes still to send
 * @next_psn: READ: PSN of the next response
 * @first: READ: no response sent yet
 * @orig: atomic: the value before the operation, kept for a replay
 */
struct sroce_res {
	enum sroce_res_kind kind;
	bool pending;
	u32 psn;
	u64 va;
	u32 rkey;
	u32 left;
	u32 next_psn;
	bool first;
	u64 orig;
};

/**
 * struct sroce_resp - responder state of a QP
 * @lock: serialises the responder (packets of one QP may arrive on
 *	several CPUs)
 * @psn: PSN expected next
 * @msn: messages completed, 24 bits
 * @prev: opcode of the previous packet, or SROCE_OPCODE_NONE between
 *	messages
 * @nak_sent: a sequence error NAK went out for the current gap
 * @wqe_active: @wqe holds the receive WQE of the message in progress
 * @wqe: that receive WQE, copied out of its ring
 * @received: bytes of the message placed so far
 * @va: next address of the RDMA WRITE in progress
 * @rkey: its key
 * @remaining: its bytes still to come
 * @res: the responder resources, a ring of @nres
 * @nres: resources in use (max_dest_rd_atomic, at least 1), set at RTR
 * @res_head: the slot the next READ or atomic takes
 * @res_pending: resources from @res_head backwards with responses to send
 * @ack_psn: an ACK deferred behind pending responses, when @ack_pending
 * @ack_pending: @ack_psn waits for the responses before it
 * @work: sends the pending responses when softirq context cannot
 */
struct sroce_resp {
	spinlock_t lock;	/* see the kernel-doc above */
	u32 psn;
	u32 msn;
	int prev;
	bool nak_sent;
	bool wqe_active;
	struct sroce_recv *wqe;
	u32 received;
	u64 va;
	u32 rkey;
	u32 remaining;
	struct sroce_res *res;
	u32 nres;
	u32 res_head;
	u32 res_pending;
	u32 ack_psn;
	bool ack_pending;
	struct work_struct work;
};

/**
 * sroce_res_take() - a resource for a new RDMA READ or atomic
 * @resp: the responder, its lock held
 *
 * The slot at @resp->res_head, cleared and pending, the newest of the
 * ring.
 *
 * Context: softirq, under the responder's lock.
 * Return: the resource, or NULL when all @resp->nres are pending.
 */
struct sroce_res *sroce_res_take(struct sroce_resp *resp);

/**
 * sroce_res_find_read() - the READ resource a response PSN belongs to
 * @resp: the responder, its lock held
 * @psn: a PSN of the READ's responses
 * @mtu: the path MTU, in bytes
 *
 * Several may hold @psn when a READ asked for again took a resource of
 * its own: the newest is the one still in use.
 *
 * Context: softirq, under the responder's lock.
 * Return: the newest READ resource whose responses (sent or to send)
 * include @psn, or NULL.
 */
struct sroce_res *sroce_res_find_read(struct sroce_resp *resp, u32 psn,
				      u32 mtu);

/**
 * sroce_res_restart() - the resource a duplicate RDMA READ restarts in
 * @resp: the responder, its lock held
 * @r: the READ's resource (sroce_res_find_read()), or NULL
 * @psn: the duplicate request's PSN
 *
 * @r itself when it is still pending. Otherwise the requester went back
 * to @psn and sends every request after it again: the pending responses
 * of requests from @psn on are dropped, those before it stay (it still
 * waits for them) and go out first. @r is then pending again when it is
 * the newest resource left, else the READ takes a new one behind them.
 * The caller fills the READ in from the request.
 *
 * Context: softirq, under the responder's lock.
 * Return: a pending resource, or NULL when none is free.
 */
struct sroce_res *sroce_res_restart(struct sroce_resp *resp,
				    struct sroce_res *r, u32 psn);

/**
 * struct sroce_skb_cursor - the next payload bytes of a received packet
 * @skb: the packet
 * @off: offset of the next byte in @skb
 */
struct sroce_skb_cursor {
	const struct sk_buff *skb;
	unsigned int off;
};

/**
 * sroce_skb_copy_piece() - copy packet bytes to a piece of memory
 * @ctx: a &struct sroce_skb_cursor, advanced by @len
 * @kaddr: the piece
 * @len: its bytes, all present in the packet
 *
 * A &sroce_mr_chunk_fn, for sroce_mr_walk() and sroce_sge_walk().
 *
 * Context: any.
 */
void sroce_skb_copy_piece(void *ctx, void *kaddr, u32 len);

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

/**
 * sroce_wr_rd_atomic() - whether a send opcode is an RDMA READ or atomic
 * @opcode: IB_WR_*
 *
 * Those are answered by their own responses and count against
 * max_rd_atomic.
 *
 * Context: any.
 * Return: true for RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD.
 */
static inline bool sroce_wr_rd_atomic(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ || opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/**
 * sroce_req_swqe() - the requester's copy of the WQE in a send ring slot
 * @req: the requester
 * @idx: the slot's index
 *
 * Context: any.
 * Return: the copy (meaningful once fetched).
 */
static inline struct sroce_swqe *sroce_req_swqe(struct sroce_req *req, u32 idx)
{
	return (struct sroce_swqe *)(req->swqes + (size_t)idx * req->stride);
}

/**
 * sroce_req_init() - prepare the requester of a new QP
 * @qp: the QP, its send ring made
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int sroce_req_init(struct sroce_qp *qp);

/**
 * sroce_req_free() - stop the requester and free its memory
 * @qp: the QP, no longer reachable by posts or packets
 *
 * Context: process context.
 */
void sroce_req_free(struct sroce_qp *qp);

/**
 * sroce_req_executes() - whether the requester executes a send opcode
 * @opcode: IB_WR_* (user and kernel opcodes agree)
 *
 * Context: any.
 * Return: true for the opcodes the RC requester sends.
 */
bool sroce_req_executes(u32 opcode);

/**
 * sroce_req_fetch() - copy the send WQE at &sroce_req.pos out of the ring
 * @qp: the QP
 * @w: where the copy goes (the requester's slot for that WQE)
 *
 * Each field is read once and checked in the copy: the opcode, the
 * gather list against max_send_sge and overflow, inline data against
 * max_inline_data, the length against the largest message.
 *
 * Context: the requester (one pass at a time).
 * Return: 0; -EOPNOTSUPP for an opcode the requester does not execute;
 * -EINVAL for a malformed WQE.
 */
int sroce_req_fetch(struct sroce_qp *qp, struct sroce_swqe *w);

/**
 * sroce_req_gather() - the next bytes of a send WQE's data
 * @qp: the QP
 * @w: the WQE; &sroce_req.sge and &sroce_req.sge_off say where the
 *	bytes start, and advance past them
 * @dst: where they go
 * @len: how many
 *
 * Context: the requester.
 * Return: 0, or -EACCES when an lkey does not cover them or their memory
 * cannot be read.
 */
int sroce_req_gather(struct sroce_qp *qp, const struct sroce_swqe *w,
		     u8 *dst, u32 len);

/**
 * sroce_ud_pass() - one pass of the datagram requester (UD and GSI QPs)
 * @qp: the QP
 *
 * Sends and completes the WQEs posted, in order (ud.c).
 *
 * Context: the requester (sroce_req_run()), process context.
 * Return: work remains (budget spent, or no memory for a packet).
 */
bool sroce_ud_pass(struct sroce_qp *qp);

/**
 * sroce_ud_recv() - take a datagram for a UD or GSI QP
 * @qp: the QP, held
 * @skb: the packet, checked by recv.c, data at its BTH; not consumed
 * @info: its opcode's decoding
 *
 * Context: softirq.
 */
void sroce_ud_recv(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_opcode_info *info);

/**
 * sroce_req_kick() - have the requester look at the send ring
 * @qp: the QP
 *
 * The work item runs on the CPU that last posted to the send queue: an
 * ACK or a drained queue (both seen on the CPU that takes the NIC's
 * interrupts) then has the sending done next to the application, and
 * the receiving and the sending of a busy QP use two CPUs, not one.
 *
 * Context: any.
 */
void sroce_req_kick(struct sroce_qp *qp);

/**
 * sroce_req_run() - run the requester in the caller's context
 * @qp: the QP
 *
 * For a user's doorbell whose peer is not in this host (@qp's
 * req.peer_local false): the send costs the poster's time, not a context
 * switch. If the requester already runs, that runner makes another pass.
 *
 * Context: process context, no lock held.
 */
void sroce_req_run(struct sroce_qp *qp);

/**
 * sroce_req_stop() - wait until the requester runs nowhere
 * @qp: the QP, in a state where the requester does not send (RESET)
 *
 * Context: process context.
 */
void sroce_req_stop(struct sroce_qp *qp);

/**
 * sroce_req_start() - the requester enters RTS
 * @qp: the QP; its send PSN and retry counts set
 *
 * Context: process context, under the QP's sq_lock.
 */
void sroce_req_start(struct sroce_qp *qp);

/**
 * sroce_req_arm() - (re)start the local ACK timeout
 * @qp: the QP
 * @restart: push the deadline back even when the timer is pending
 *	(progress was made); else only start it when it is not
 *
 * Context: any.
 */
void sroce_req_arm(struct sroce_qp *qp, bool restart);

/**
 * sroce_req_retry() - ask the requester to send again (a timeout or NAK)
 * @qp: the QP
 * @at_psn: resend from this PSN when it falls in the first WQE not
 *	completed
 * @psn: that PSN
 * @rnr_code: for an RNR NAK, its timer code (0-31); else -1
 *
 * Counts the retry against retry_cnt (or rnr_retry). When none is left,
 * returns the status the first WQE not completed must fail with.
 *
 * Context: any, under the QP's sq_lock.
 * Return: IB_WC_SUCCESS, or IB_WC_RETRY_EXC_ERR / IB_WC_RNR_RETRY_EXC_ERR.
 */
enum ib_wc_status sroce_req_retry(struct sroce_qp *qp, bool at_psn, u32 psn,
				  int rnr_code);

/**
 * sroce_req_last_sent() - the last PSN the requester has sent so far
 * @qp: the QP
 *
 * Context: any (reads &sroce_req.high_psn once).
 * Return: the PSN before &sroce_req.high_psn.
 */
u32 sroce_req_last_sent(struct sroce_qp *qp);

/**
 * sroce_req_progress() - the peer acknowledged something new
 * @qp: the QP
 *
 * Resets the retry counts and restarts or stops the ACK timeout.
 *
 * Context: any, under the QP's sq_lock.
 */
void sroce_req_progress(struct sroce_qp *qp);

/**
 * sroce_rnr_timer_usecs() - the wait an RNR NAK timer code stands for
 * @code: the 5-bit code (IBTA table 45)
 *
 * Context: any.
 * Return: microseconds.
 */
u32 sroce_rnr_timer_usecs(u8 code);

/**
 * sroce_ack_timeout_usecs() - the local ACK timeout a QP attribute means
 * @timeout: the 5-bit exponent: 4.096 us << @timeout; 0 is infinite
 *
 * Context: any.
 * Return: microseconds, 0 for infinite.
 */
u64 sroce_ack_timeout_usecs(u8 timeout);

/**
 * sroce_req_reset() - forget the send ring's contents (entering RESET)
 * @qp: the QP
 *
 * Context: process context, the QP in RESET and its work item idle.
 */
void sroce_req_reset(struct sroce_qp *qp);

/**
 * sroce_comp_local() - complete what the acknowledged PSN covers now
 * @qp: the QP; the requester just did a local operation
 *
 * A local operation completes in order, once every WQE before it has: at
 * once when they all have, else with the ACK that completes them.
 *
 * Context: the requester, no lock held.
 */
void sroce_comp_local(struct sroce_qp *qp);

/**
 * sroce_comp_recv() - take an ACK or NAK for a QP (completer)
 * @qp: the QP, held
 * @skb: the packet, checked by recv.c, data at its BTH; not consumed
 *
 * Context: softirq.
 */
void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb);

/**
 * enum sroce_psn_verdict - what the responder does with a request, by PSN
 * @SROCE_PSN_EXECUTE: the PSN expected: execute the request
 * @SROCE_PSN_NAK_SEQ: ahead of it, the first packet past a gap: NAK
 *	"PSN sequence error" at the PSN expected
 * @SROCE_PSN_SILENT: ahead of it, a gap already NAKed: drop
 * @SROCE_PSN_DUP_ACK: behind it, a SEND or WRITE packet that wants an
 *	ACK (AckReq or the last of its message): ACK it at its own PSN
 * @SROCE_PSN_DUP_DROP: behind it, a SEND or WRITE packet that does not:
 *	drop
 * @SROCE_PSN_DUP_READ: behind it, an RDMA READ request: respond again
 * @SROCE_PSN_DUP_ATOMIC: behind it, an atomic: answer from its saved
 *	result, never execute it twice
 *
 * "Behind" is the half of the PSN space before the PSN expected (IBTA
 * 9.7.5.1.2, the duplicate region); "ahead" the other half. A duplicate
 * never executes again, and nothing ahead is placed.
 */
enum sroce_psn_verdict {
	SROCE_PSN_EXECUTE,
	SROCE_PSN_NAK_SEQ,
	SROCE_PSN_SILENT,
	SROCE_PSN_DUP_ACK,
	SROCE_PSN_DUP_DROP,
	SROCE_PSN_DUP_READ,
	SROCE_PSN_DUP_ATOMIC,
};

/**
 * sroce_resp_psn_verdict() - the responder's decision table, by PSN
 * @psn: the request packet's PSN
 * @expected: the PSN the responder expects next
 * @nak_sent: a sequence error NAK went out for the current gap
 * @cls: the packet's class (SEND, WRITE, READ request or atomic)
 * @ack_wanted: AckReq is set or the packet ends its message
 *
 * Return: the verdict (no side effect).
 */
enum sroce_psn_verdict sroce_resp_psn_verdict(u32 psn, u32 expected,
					      bool nak_sent,
					      enum sroce_op_class cls,
					      bool ack_wanted);

/**
 * sroce_resp_reset() - forget the responder resources (entering RTR or
 * RESET)
 * @qp: the QP; its responder lock held
 *
 * Context: any.
 */
void sroce_resp_reset(struct sroce_qp *qp);

/**
 * sroce_req_window_open() - whether a packet fits in the window
 * @psn: the packet's first PSN
 * @acked: the last PSN acknowledged
 * @n: PSNs the packet needs room for
 * @window: the window now (&sroce_cwnd.cwnd)
 *
 * Return: true when @psn .. @psn + @n - 1 lie within @window PSNs after
 * @acked, or when nothing is outstanding (what is larger than the window
 * still goes, alone).
 */
bool sroce_req_window_open(u32 psn, u32 acked, u32 n, u32 window);

/**
 * sroce_req_npsn() - PSNs a send WQE takes
 * @opcode: IB_WR_*
 * @length: its bytes
 * @mtu: path MTU in bytes
 *
 * Context: any.
 * Return: the packets of a SEND or WRITE, the read responses of a READ
 * (at least one each), 1 for an atomic.
 */
u32 sroce_req_npsn(u32 opcode, u32 length, u32 mtu);

/**
 * sroce_atomic_exec() - perform an atomic on 8 aligned bytes
 * @p: the target, 8-byte aligned
 * @cmp_swap: compare and swap; else fetch and add
 * @swap_add: the value to swap in, or to add
 * @compare: the value to compare with
 *
 * Atomic against every CPU touching the same memory.
 *
 * Context: any.
 * Return: the value before the operation.
 */
u64 sroce_atomic_exec(u64 *p, bool cmp_swap, u64 swap_add, u64 compare);

/**
 * sroce_resp_init() - prepare the responder of a new QP
 * @qp: the QP
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int sroce_resp_init(struct sroce_qp *qp);

/**
 * sroce_resp_free() - free the responder's memory
 * @qp: the QP, no longer reachable by packets
 *
 * Context: process context.
 */
void sroce_resp_free(struct sroce_qp *qp);

/**
 * sroce_resp_recv() - take a request packet for a QP (responder)
 * @qp: the QP, held
 * @skb: the packet, checked by recv.c, data at its BTH; not consumed
 *
 * Context: softirq.
 */
void sroce_resp_recv(struct sroce_qp *qp, struct sk_buff *skb);

#endif /* _SROCE_ENGINE_H */
