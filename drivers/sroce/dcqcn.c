// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015) as arithmetic: the reaction point's rates
 * and α, the token bucket that holds a QP to its rate, the notification
 * point's CNP spacing. Time comes in from the caller, locking is the
 * caller's (cc.c). Documentation/congestion.rst.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>

#include "dcqcn.h"

void sroce_dcqcn_init(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p)
{
	st->rc = p->max_rate;
	st->rt = p->max_rate;
	st->alpha = min_t(u32, p->initial_alpha, SROCE_DCQCN_ONE);
	st->timer_events = 0;
	st->byte_events = 0;
	st->bytes = 0;
	st->alpha_ns = 0;
	st->cut_ns = 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dcqcn_init);

bool sroce_dcqcn_limited(const struct sroce_dcqcn *st,
			 const struct sroce_dcqcn_params *p)
{
	return st->rc < p->max_rate;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dcqcn_limited);

/* One fixed-point product: a * b / ONE, both fractions of ONE. */
static u32 sroce_dcqcn_mul(u32 a, u32 b)
{
	return (u64)a * b / SROCE_DCQCN_ONE;
}

u32 sroce_dcqcn_alpha_decay(u32 alpha, u32 g, u64 periods)
{
	u32 keep = SROCE_DCQCN_ONE - min_t(u32, g, SROCE_DCQCN_ONE);
	u32 factor = SROCE_DCQCN_ONE;

	/* (1 - g)^periods by squaring; zero long before 64 squarings. */
	while (periods && alpha && factor) {
		if (periods & 1)
			factor = sroce_dcqcn_mul(factor, keep);
		keep = sroce_dcqcn_mul(keep, keep);
		periods >>= 1;
		if (!keep && periods)
			return 0;
	}
	return sroce_dcqcn_mul(alpha, factor);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dcqcn_alpha_decay);

void sroce_dcqcn_age(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p,
		     u64 now)
{
	u64 period = (u64)max(p->alpha_us, 1U) * NSEC_PER_USEC;
	u64 periods;

	if (!st->alpha_ns || now <= st->alpha_ns)
		return;
	periods = div64_u64(now - st->alpha_ns, period);
	if (!periods)
		return;
	st->alpha = sroce_dcqcn_alpha_decay(st->alpha, p->g, periods);
	st->alpha_ns += periods * period;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dcqcn_age);

bool sroce_dcqcn_cnp(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p,
		     u64 now)
{
	u32 g = min_t(u32, p->g, SROCE_DCQCN_ONE);
	u32 cut;

	sroce_dcqcn_age(st, p, now);
	st->alpha = st->alpha - sroce_dcqcn_mul(st->alpha, g) + g;
	st->alpha = min_t(u32, st->alpha, SROCE_DCQCN_ONE);
	st->alpha_ns = now ?: 1;
	if (st->cut_ns && now - st->cut_ns < (u64)p->reduce_us * NSEC_PER_USEC)
		return false;
	/* rc * α / 2: α is a fraction of ONE, so over 2 * ONE. */
	cut = (u64)st->rc * st->alpha / (2 * SROCE_DCQCN_ONE);
	st->rt = st->rc;
	st->rc = max(st->rc - cut, min(p->min_rate, p->max_rate));
	st->timer_events = 0;
	st->byte_events = 0;
	st->bytes = 0;
	st->cut_ns = now ?: 1;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dcqcn_cnp);

enum sroce_dcqcn_stage sroce_dcqcn_increase(struct sroce_dcqcn *st,
					    const struct sroce_dcqcn_params *p)
{
	u32 most = max(st->timer_events, st->byte_events);
	u32 least = min(st->timer_events, st->byte_events);
	enum sroce_dcqcn_stage stage;
	u64 rt = st->rt;

	if (most < p->threshold) {
		stage = SROCE_DCQCN_FAST;
	} else if (least > p->threshold) {
		stage = SROCE_DCQCN_HAI;
		rt += (u64)(least - p->threshold) * p->hai_rate;
	} else {
		stage = SROCE_DCQCN_AI;
		rt += p->ai_rate;
	}
	st->rt = min_t(u64, rt, p->max_rate);
	/* Halfway up, rounding up so that the last step reaches the target. */
	st->rc = min_t(u64, ((u64)st->rc + st->rt + 1) / 2, st->rt);
	return stage;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dcqcn_increase);

bool sroce_dcqcn_timer(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p,
		       u64 now)
{
	sroce_dcqcn_age(st, p, now);
	if (!sroce_dcqcn_limited(st, p))
		return false;
	st->timer_events++;
	sroce_dcqcn_increase(st, p);
	return sroce_dcqcn_limited(st, p);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dcqcn_timer);

u32 sroce_dcqcn_sent(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p,
		     u32 bytes)
{
	u32 events = 0;

	if (!p->byte_reset)
		return 0;
	st->bytes += bytes;
	while (st->bytes >= p->byte_reset && sroce_dcqcn_limited(st, p)) {
		st->bytes -= p->byte_reset;
		st->byte_events++;
		sroce_dcqcn_increase(st, p);
		events++;
	}
	if (!sroce_dcqcn_limited(st, p))
		st->bytes = 0;
	return events;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dcqcn_sent);

u64 sroce_tbf_ns(u64 bytes, u32 rate)
{
	/* bytes * 8 bits / (rate * 1000 bit/s) seconds, in nanoseconds. */
	return div64_u64(bytes * 8 * USEC_PER_SEC + rate - 1, rate);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_tbf_ns);

u64 sroce_tbf_wait(const struct sroce_tbf *b, u64 now)
{
	return b->next_ns > now ? b->next_ns - now : 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_tbf_wait);

u32 sroce_tbf_burst(u32 rate)
{
	return clamp_t(u32, rate / 8, SROCE_TBF_BURST_MIN, SROCE_TBF_BURST_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_tbf_burst);

void sroce_tbf_take(struct sroce_tbf *b, u64 now, u32 rate, u32 burst,
		    u32 bytes)
{
	u64 full = sroce_tbf_ns(burst, rate);
	u64 start = b->next_ns;

	/* An idle bucket holds @burst at most: its time runs out @full ago. */
	if (now > full && start < now - full)
		start = now - full;
	b->next_ns = start + sroce_tbf_ns(bytes, rate);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_tbf_take);

bool sroce_cnp_due(u64 last_ns, u64 now, u32 gap_us)
{
	return !last_ns || now - last_ns >= (u64)gap_us * NSEC_PER_USEC;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cnp_due);
