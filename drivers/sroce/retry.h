/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Retransmission: the local ACK timeout, RNR waits and the retry counts
 * of the RC requester (retry.c). Documentation/datapath.rst, "Loss
 * recovery".
 */
#ifndef _SROCE_RETRY_H
#define _SROCE_RETRY_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct sroce_qp;

/*
 * Local ACK timeouts held back between two progresses because the QP
 * still had packets in this host's qdisc or NIC ring: what it waits for
 * may not have left yet (TCP does not send again a segment still in the
 * host's queue either). Bounded, so that a ring that never moves again
 * still fails the QP, SROCE_ACK_HOLD periods later.
 */
#define SROCE_ACK_HOLD		3

/**
 * sroce_retry_arm() - (re)start the local ACK timeout
 * @qp: the QP
 * @restart: push the deadline back even when the timer is pending
 *	(progress was made); else only start it when it is not
 *
 * A restart only moves &sroce_req.ack_due: the timer stays queued and,
 * fired early, moves itself on. Progress comes with every ACK; a
 * restart each time re-queued the hrtimer and could reprogram the CPU's
 * clock event.
 *
 * Context: any.
 */
void sroce_retry_arm(struct sroce_qp *qp, bool restart);

/**
 * sroce_retry_again() - ask the requester to send again (a timeout or NAK)
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
enum ib_wc_status sroce_retry_again(struct sroce_qp *qp, bool at_psn, u32 psn,
				    int rnr_code);

/**
 * sroce_retry_progress() - the peer acknowledged something new
 * @qp: the QP
 *
 * Resets the retry counts and restarts or stops the ACK timeout.
 *
 * Context: any, under the QP's sq_lock.
 */
void sroce_retry_progress(struct sroce_qp *qp);

/**
 * sroce_rnr_timer_usecs() - the wait an RNR NAK timer code stands for
 * @code: the 5-bit code (IBTA table 45)
 *
 * Context: any.
 * Return: microseconds.
 */
u32 sroce_rnr_timer_usecs(u8 code);

/* RNR waits as asked, in a row; then they double up to the cap. */
#define SROCE_RNR_EXACT			7
#define SROCE_RNR_BACKOFF_MAX_US	10000

/**
 * sroce_retry_rnr_wait() - how long the requester waits after an RNR NAK
 * @code: the NAK's 5-bit timer code (IBTA table 45)
 * @streak: RNR NAKs in a row without progress, this one included
 *
 * The time @code stands for, for the first SROCE_RNR_EXACT NAKs of a
 * streak: every wait of a finite rnr_retry (6 at most). A QP that retries
 * for ever (rnr_retry 7) then doubles it each time, up to
 * SROCE_RNR_BACKOFF_MAX_US (or the code's own time when that is longer):
 * IBTA sets the least wait, not the most, and a QP left waiting on a
 * receiver that never posts should not send a packet every few
 * microseconds for as long as it lives.
 *
 * Context: any.
 * Return: microseconds.
 */
u32 sroce_retry_rnr_wait(u8 code, u8 streak);

/**
 * sroce_ack_timeout_usecs() - the local ACK timeout a QP attribute means
 * @timeout: the 5-bit exponent: 4.096 us << @timeout; 0 is infinite
 *
 * Context: any.
 * Return: microseconds, 0 for infinite.
 */
u64 sroce_ack_timeout_usecs(u8 timeout);

/**
 * sroce_retry_init() - set up the ACK and RNR timers of a new QP
 * @qp: the QP, being created
 *
 * Context: process context.
 */
void sroce_retry_init(struct sroce_qp *qp);

#endif /* _SROCE_RETRY_H */
