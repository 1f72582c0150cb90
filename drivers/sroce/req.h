/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC requester: send WQEs to packets (req.c).
 */
#ifndef _SROCE_REQ_H
#define _SROCE_REQ_H

#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>

#include "cwnd.h"
#include "psn.h"
#include "net.h"
#include "wqe.h"

struct sroce_qp;

/* Bits of &sroce_req.flags. */
enum {
	SROCE_REQ_BUSY,		/* a pass is running (work item or doorbell) */
	SROCE_REQ_AGAIN,	/* a pass was asked for */
};

/**
 * struct sroce_req - requester state of a QP
 * @work: runs the requester when the caller cannot (kicks from softirq,
 *	kernel posts, timers, what a budget left)
 * @flags: SROCE_REQ_BUSY and SROCE_REQ_AGAIN: one pass at a time
 * @swqes: one &struct sroce_swqe per send ring slot; a user QP's are made
 *	on its first doorbell (NULL before: the requester does not run)
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
 * @rnr_streak: RNR NAKs in a row, with no progress between (up to 255):
 *	from the eighth the wait doubles (sroce_retry_rnr_wait()); reset by
 *	progress
 * @rnr_left: RNR retries left (ignored when rnr_retry is 7); reset by
 *	progress
 * @hold_left: local ACK timeouts that may still be held back because the
 *	QP's packets are still in this host (SROCE_ACK_HOLD); reset by
 *	progress
 * @timers_off: the QP is going away: @ack_timer does nothing and
 *	@rnr_timer is not armed (under sq_lock)
 * @ack_due: when the local ACK timeout is due: the last arming plus the
 *	timeout. Progress moves it and leaves @ack_timer queued where it
 *	was; fired before it, @ack_timer only moves itself on to it
 * @ack_timer: the local ACK timeout, pending while packets are unanswered
 *	or posted WQEs wait behind the QP's full transmit share; an
 *	hrtimer, because IBTA bounds the time to RETRY_EXC_ERR by
 *	(retry_cnt + 1) timeouts (SROCE_ACK_HOLD more while our own packets
 *	cannot leave this host) and the timer wheel's slack at these
 *	periods is up to an eighth
 * @rnr_timer: the RNR NAK's wait; an hrtimer, because the codes go down
 *	a hundredfold below a jiffy of a HZ=100 kernel (0.01 to 655 ms), and
 *	a wait of a jiffy for perftest's 0.64 ms held its sends ten times as
 *	long as asked. Armed under sq_lock, never once @timers_off is set
 * @path: where packets go, set on entering RTR
 * @dst_cache: the route to @path, for the requester's and the responder's
 *	packets (RC); reset when @path changes
 * @gathering: the requester reads the memory of a WQE now
 *	(sroce_wqe_gather()); a move to ERR or SQE waits for it to fall
 * @peer_local: an RC QP whose @path, on entering RTR, was routed to this
 *	host: a user's doorbell queues @work rather than running the pass
 *	(Documentation/datapath.rst, "Requester")
 * @cpu: the CPU of the last post_send, where @work runs
 *	(WORK_CPU_UNBOUND before the first)
 * @fault: a piece of an ODP MR whose pages a packet's payload lacked
 *	(sroce_wqe_gather()); @fault.len 0 when none. Written by a pass,
 *	taken by @work, which faults it in before its next pass; @fault.pos
 *	is the WQE that wanted it
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
	u8 rnr_streak;
	u8 rnr_left;
	u8 hold_left;
	bool timers_off;
	ktime_t ack_due;
	struct hrtimer ack_timer;
	struct hrtimer rnr_timer;
	struct sroce_path path;
	struct dst_cache dst_cache;
	bool gathering;
	bool peer_local;
	int cpu;
	struct {
		u32 lkey;
		u64 addr;
		u32 len;
		u32 pos;
	} fault;
};

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
 * sroce_req_kick() - have the requester look at the send ring
 * @req: the requester of the QP
 *
 * The work item runs on the CPU that last posted to the send queue: an
 * ACK or a drained queue (both seen on the CPU that takes the NIC's
 * interrupts) then has the sending done next to the application, and
 * the receiving and the sending of a busy QP use two CPUs, not one.
 *
 * Context: any.
 */
static inline void sroce_req_kick(struct sroce_req *req)
{
	int cpu = READ_ONCE(req->cpu);

	/* Gone offline: the local CPU. */
	if (cpu != WORK_CPU_UNBOUND && !cpu_online(cpu))
		cpu = WORK_CPU_UNBOUND;
	queue_work_on(cpu, system_highpri_wq, &req->work);
}

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
 * sroce_req_last_sent() - the last PSN the requester has sent so far
 * @req: the requester of the QP
 *
 * Context: any (reads &sroce_req.high_psn once).
 * Return: the PSN before &sroce_req.high_psn.
 */
static inline u32 sroce_req_last_sent(const struct sroce_req *req)
{
	return sroce_psn_add(READ_ONCE(req->high_psn), SROCE_PSN_MASK);
}

/**
 * sroce_req_reset() - forget the send ring's contents (entering RESET)
 * @qp: the QP
 *
 * Context: process context, the QP in RESET and its work item idle.
 */
void sroce_req_reset(struct sroce_qp *qp);

/**
 * sroce_req_resume() - start again at the send ring's head (SQE to RTS)
 * @qp: the UC QP; its sq_lock held
 *
 * The move to SQE flushed every WQE, the failed one included: the next
 * WQE is the first posted after. Its PSN follows the last one used, so a
 * message cut short leaves the responder a gap it drops.
 *
 * Context: any, under the QP's sq_lock, the QP in SQE.
 */
void sroce_req_resume(struct sroce_qp *qp);

#endif /* _SROCE_REQ_H */
