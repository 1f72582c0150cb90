/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requester's window of PSNs in flight: how it grows with ACKs and
 * shrinks on loss (cwnd.c). Documentation/datapath.rst, "Pacing".
 */
#ifndef _SROCE_CWND_H
#define _SROCE_CWND_H

#include <linux/types.h>

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
 * The completer and the ACK timer change the window under the QP's
 * sq_lock and assert it (comp.c, retry.c); the functions below only
 * compute.
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
 * Context: any; the caller serialises the users of @c.
 */
void sroce_cwnd_init(struct sroce_cwnd *c, u32 ceiling, u64 timeout_us);

/**
 * sroce_cwnd_rtt() - a round-trip sample
 * @c: the window
 * @us: microseconds from a PSN's first sending to its acknowledgment
 *	(never a PSN sent again: its ACK could answer either copy)
 *
 * Context: any; the caller serialises the users of @c.
 */
void sroce_cwnd_rtt(struct sroce_cwnd *c, u32 us);

/**
 * sroce_cwnd_acked() - PSNs newly acknowledged
 * @c: the window
 * @n: how many (the acknowledged PSN moved by @n)
 * @acked: the last PSN acknowledged now
 *
 * Context: any; the caller serialises the users of @c.
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
 * Context: any; the caller serialises the users of @c.
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
 * sroce_cwnd_fits() - whether a packet fits in the window
 * @psn: the packet's first PSN
 * @acked: the last PSN acknowledged
 * @n: PSNs the packet needs room for
 * @window: the window now (&sroce_cwnd.cwnd)
 *
 * Return: true when @psn .. @psn + @n - 1 lie within @window PSNs after
 * @acked, or when nothing is outstanding (what is larger than the window
 * still goes, alone).
 */
bool sroce_cwnd_fits(u32 psn, u32 acked, u32 n, u32 window);

#endif /* _SROCE_CWND_H */
