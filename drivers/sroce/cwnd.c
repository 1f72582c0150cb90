// SPDX-License-Identifier: GPL-2.0
/*
 * The requester's window of PSNs in flight, adapting to loss: pure
 * arithmetic on a struct sroce_cwnd, no locks of its own (the caller's
 * sq_lock serialises the updates; the requester reads @cwnd locklessly).
 * Documentation/datapath.rst, "Pacing", has the table of events.
 */
#include <kunit/visibility.h>
#include <linux/limits.h>
#include <linux/minmax.h>

#include "cwnd.h"
#include "psn.h"

u32 sroce_cwnd_ceiling(u32 mtu)
{
	return max_t(u32, SROCE_CWND_BYTES / mtu, SROCE_CWND_PSNS);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_ceiling);

void sroce_cwnd_init(struct sroce_cwnd *c, u32 ceiling, u64 timeout_us)
{
	c->max = ceiling;
	c->ssthresh = ceiling;
	c->grow = 0;
	c->quiet = ceiling;
	c->srtt_us = 0;
	c->rtt_us = 0;
	c->rtt_limit_us = min_t(u64, timeout_us / 4, U32_MAX);
	if (timeout_us && !c->rtt_limit_us)
		c->rtt_limit_us = 1;
	c->recover = 0;
	c->recovering = false;
	WRITE_ONCE(c->cwnd, ceiling);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_init);

void sroce_cwnd_rtt(struct sroce_cwnd *c, u32 us)
{
	us = max(us, 1U);
	c->rtt_us = us;
	/* An average over about eight samples, as TCP's SRTT. */
	if (!c->srtt_us)
		c->srtt_us = us;
	else
		c->srtt_us = c->srtt_us - c->srtt_us / 8 + us / 8;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_rtt);

/*
 * The round trip the window is judged by: the average, or the last
 * sample when longer (the average lags a window that grew this round).
 */
static u32 sroce_cwnd_rtt_now(const struct sroce_cwnd *c)
{
	return max(c->srtt_us, c->rtt_us);
}

/*
 * Past the ceiling only with a round trip known and short: a window
 * beyond what the path holds only queues at the peer, and a peer that
 * falls a timeout behind gets the same packets again on top.
 */
static bool sroce_cwnd_may_probe(const struct sroce_cwnd *c)
{
	return !c->quiet && c->srtt_us &&
	       (!c->rtt_limit_us || sroce_cwnd_rtt_now(c) < c->rtt_limit_us);
}

void sroce_cwnd_acked(struct sroce_cwnd *c, u32 n, u32 acked)
{
	u32 w = c->cwnd;

	/* The loss is behind us once what was in flight then is acknowledged. */
	if (c->recovering && !sroce_psn_before(acked, c->recover))
		c->recovering = false;
	c->quiet -= min(n, c->quiet);
	if (w < c->ssthresh) {
		w = min(w + n, c->ssthresh);
	} else if (c->recovering) {
		/* no growth until the loss is behind us */
	} else if (w < c->max) {
		c->grow += n;
		while (c->grow >= w && w < c->max) {
			c->grow -= w;
			w++;
		}
		if (w == c->max)
			c->grow = 0;
	} else if (sroce_cwnd_may_probe(c)) {
		/* Half a PSN for each acknowledged: 1.5 times per round trip. */
		c->grow += n;
		w = min(w + c->grow / 2, c->max * SROCE_CWND_PROBE);
		c->grow &= 1;
	}
	/* A round trip half the timeout long: one hiccup from spurious ones. */
	if (w > c->max && c->rtt_limit_us &&
	    sroce_cwnd_rtt_now(c) >= 2 * (u64)c->rtt_limit_us) {
		w = c->max;
		c->grow = 0;
	}
	WRITE_ONCE(c->cwnd, w);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_acked);

void sroce_cwnd_cut(struct sroce_cwnd *c, u32 last_sent, bool timeout)
{
	/*
	 * A NAK halves the window, not below half the ceiling: loss on the
	 * wire is mostly not congestion, and a window much smaller than the
	 * ceiling gave less goodput under random loss on the rig. A timeout
	 * is different: what is queued ahead of the retransmission kept its
	 * ACK out past the timeout, so the window starts again from the
	 * floor (and doubles back quickly below the threshold). A probed
	 * window comes back to the ceiling at most, and stays there a while.
	 */
	u32 floor = max_t(u32, c->max / 2, SROCE_CWND_MIN);
	u32 w = c->cwnd;

	if (!c->recovering) {
		c->ssthresh = min(max(w / 2, floor), c->max);
		c->recovering = true;
		c->recover = last_sent;
		w = min(w, c->ssthresh);
	}
	if (timeout)
		w = SROCE_CWND_MIN;
	c->grow = 0;
	c->quiet = c->max * (timeout ? SROCE_CWND_QUIET_TIMEOUT : SROCE_CWND_QUIET_NAK);
	WRITE_ONCE(c->cwnd, w);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_cut);

u32 sroce_cwnd_ack_every(u32 cwnd)
{
	return max_t(u32, cwnd / 8, 2);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_ack_every);

bool sroce_cwnd_fits(u32 psn, u32 acked, u32 n, u32 window)
{
	s32 ahead = sroce_psn_diff(psn, sroce_psn_add(acked, 1));

	if (ahead <= 0)
		return true;
	return (u32)ahead + n <= window;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_fits);
