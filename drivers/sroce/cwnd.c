// SPDX-License-Identifier: GPL-2.0
/*
 * The requester's window of PSNs in flight, adapting to loss: pure
 * arithmetic on a struct sroce_cwnd, no locks of its own (the caller's
 * sq_lock serialises the updates; the requester reads @cwnd locklessly).
 * Documentation/datapath.rst, "Pacing", has the table of events.
 */
#include <kunit/visibility.h>
#include <linux/minmax.h>

#include "engine.h"
#include "psn.h"

u32 sroce_cwnd_ceiling(u32 mtu)
{
	return max_t(u32, SROCE_CWND_BYTES / mtu, SROCE_CWND_PSNS);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_ceiling);

void sroce_cwnd_init(struct sroce_cwnd *c, u32 ceiling)
{
	c->max = ceiling;
	c->ssthresh = ceiling;
	c->grow = 0;
	c->recover = 0;
	c->recovering = false;
	WRITE_ONCE(c->cwnd, ceiling);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_init);

void sroce_cwnd_acked(struct sroce_cwnd *c, u32 n, u32 acked)
{
	u32 w = c->cwnd;

	/* The loss is behind us once what was in flight then is acknowledged. */
	if (c->recovering && !sroce_psn_before(acked, c->recover))
		c->recovering = false;
	if (w < c->ssthresh) {
		w = min(w + n, c->ssthresh);
	} else if (!c->recovering) {
		c->grow += n;
		while (c->grow >= w && w < c->max) {
			c->grow -= w;
			w++;
		}
		if (w == c->max)
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
	 * floor (and doubles back quickly below the threshold).
	 */
	u32 floor = max_t(u32, c->max / 2, SROCE_CWND_MIN);
	u32 w = c->cwnd;

	if (!c->recovering) {
		c->ssthresh = max(w / 2, floor);
		c->recovering = true;
		c->recover = last_sent;
		w = min(w, c->ssthresh);
	}
	if (timeout)
		w = SROCE_CWND_MIN;
	c->grow = 0;
	WRITE_ONCE(c->cwnd, w);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_cut);

u32 sroce_cwnd_ack_every(u32 cwnd)
{
	return max_t(u32, cwnd / 16, 2);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cwnd_ack_every);
