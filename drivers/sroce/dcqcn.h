/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCQCN's rate arithmetic, the token bucket that enforces a rate, and the
 * notification point's CNP spacing (dcqcn.c): pure functions on plain
 * structs, no locks, no clocks of their own (every call is given "now").
 * Documentation/congestion.rst has the state machine and its defaults.
 */
#ifndef _SROCE_DCQCN_H
#define _SROCE_DCQCN_H

#include <linux/types.h>

/* α and g are fractions of SROCE_DCQCN_ONE (1024 is 1.0, as hardware has it). */
#define SROCE_DCQCN_ONE		1024

/**
 * struct sroce_dcqcn_params - one reaction point's parameters
 * @max_rate: the line rate, kbit/s: the rate starts and recovers to it
 * @min_rate: no cut goes below it, kbit/s
 * @ai_rate: additive increase of the target rate, kbit/s
 * @hai_rate: hyper increase step of the target rate, kbit/s
 * @g: α's gain, in 1/SROCE_DCQCN_ONE
 * @initial_alpha: α of a fresh QP, in 1/SROCE_DCQCN_ONE
 * @alpha_us: α's period: α decays by (1 - g) for each such period
 *	without a CNP
 * @time_reset_us: the rate increase timer's period
 * @byte_reset: bytes sent per byte counter event
 * @threshold: F, the increase events of a kind before fast recovery ends
 * @reduce_us: at most one cut per this many microseconds; a CNP within
 *	it still raises α
 */
struct sroce_dcqcn_params {
	u32 max_rate;
	u32 min_rate;
	u32 ai_rate;
	u32 hai_rate;
	u32 g;
	u32 initial_alpha;
	u32 alpha_us;
	u32 time_reset_us;
	u32 byte_reset;
	u32 threshold;
	u32 reduce_us;
};

/**
 * struct sroce_dcqcn - one reaction point's state
 * @rc: the current rate, kbit/s: what the pacer enforces
 * @rt: the target rate, kbit/s: what recovery climbs back toward
 * @alpha: the congestion estimate, in 1/SROCE_DCQCN_ONE
 * @timer_events: rate timer expiries since the last cut (T in the paper)
 * @byte_events: byte counter expiries since the last cut (BC)
 * @bytes: bytes sent toward the next byte counter event
 * @alpha_ns: when @alpha was last brought up to date; whole α periods
 *	after it are decays still to apply. 0 until the first CNP: α
 *	stays at its initial value until then
 * @cut_ns: the last cut, 0 for none yet
 */
struct sroce_dcqcn {
	u32 rc;
	u32 rt;
	u32 alpha;
	u32 timer_events;
	u32 byte_events;
	u64 bytes;
	u64 alpha_ns;
	u64 cut_ns;
};

/**
 * enum sroce_dcqcn_stage - how an increase event moved the rates
 * @SROCE_DCQCN_FAST: fast recovery: halfway back to the target
 * @SROCE_DCQCN_AI: additive increase of the target by @ai_rate
 * @SROCE_DCQCN_HAI: hyper increase of the target by a multiple of @hai_rate
 */
enum sroce_dcqcn_stage {
	SROCE_DCQCN_FAST,
	SROCE_DCQCN_AI,
	SROCE_DCQCN_HAI,
};

/**
 * sroce_dcqcn_init() - a reaction point at line rate, α at its initial value
 * @st: the state
 * @p: its parameters
 *
 * Context: any; the caller serialises the users of @st.
 */
void sroce_dcqcn_init(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p);

/**
 * sroce_dcqcn_limited() - whether the rate is below the line rate
 * @st: the state
 * @p: its parameters
 *
 * Only then does the reaction point need its timer (and the pacer its
 * bucket): a QP back at line rate costs nothing.
 *
 * Context: any; the caller serialises the users of @st.
 * Return: true while recovery is not over.
 */
bool sroce_dcqcn_limited(const struct sroce_dcqcn *st,
			 const struct sroce_dcqcn_params *p);

/**
 * sroce_dcqcn_alpha_decay() - α after @periods periods without a CNP
 * @alpha: α now, in 1/SROCE_DCQCN_ONE
 * @g: the gain, in 1/SROCE_DCQCN_ONE
 * @periods: how many
 *
 * α * (1 - g)^periods, rounded down at every step, computed by squaring.
 *
 * Context: any.
 * Return: the decayed α.
 */
u32 sroce_dcqcn_alpha_decay(u32 alpha, u32 g, u64 periods);

/**
 * sroce_dcqcn_age() - apply the α decays due by @now
 * @st: the state
 * @p: its parameters
 * @now: nanoseconds
 *
 * The α timer of the paper ticks here, lazily: nothing runs while a QP is
 * idle, and the next event applies the periods that passed. Before the
 * first CNP α does not decay: the first CNP finds the initial value.
 *
 * Context: any; the caller serialises the users of @st.
 */
void sroce_dcqcn_age(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p,
		     u64 now);

/**
 * sroce_dcqcn_cnp() - a CNP reached the reaction point
 * @st: the state
 * @p: its parameters
 * @now: nanoseconds
 *
 * α rises: α = (1 - g) α + g, and its period restarts. Unless the last
 * cut is less than @reduce_us old, the target takes the current rate, the
 * current rate falls by α/2 (not below @min_rate) and recovery starts
 * over (both event counts and the byte count zeroed).
 *
 * Context: any; the caller serialises the users of @st.
 * Return: true if the rate was cut, false if the CNP only raised α.
 */
bool sroce_dcqcn_cnp(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p,
		     u64 now);

/**
 * sroce_dcqcn_increase() - one rate increase event
 * @st: the state, its event counts already advanced
 * @p: its parameters
 *
 * Below @threshold events of both kinds, fast recovery: the current rate
 * goes halfway to the target. Past it with both kinds, hyper increase:
 * the target grows by @hai_rate times the smaller count past @threshold.
 * Otherwise additive increase: the target grows by @ai_rate. The
 * current rate then goes halfway to the target; both stay at or below
 * @max_rate.
 *
 * Context: any; the caller serialises the users of @st.
 * Return: the stage the event was in.
 */
enum sroce_dcqcn_stage sroce_dcqcn_increase(struct sroce_dcqcn *st,
					    const struct sroce_dcqcn_params *p);

/**
 * sroce_dcqcn_timer() - the rate increase timer expired
 * @st: the state
 * @p: its parameters
 * @now: nanoseconds
 *
 * Context: any; the caller serialises the users of @st.
 * Return: true if the rate is still limited (the timer goes on).
 */
bool sroce_dcqcn_timer(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p,
		       u64 now);

/**
 * sroce_dcqcn_sent() - bytes went out at the current rate
 * @st: the state
 * @p: its parameters
 * @bytes: how many
 *
 * Every @byte_reset bytes is a byte counter event (and an increase),
 * while the rate is limited; at line rate nothing is counted.
 *
 * Context: any; the caller serialises the users of @st.
 * Return: how many increase events the bytes made.
 */
u32 sroce_dcqcn_sent(struct sroce_dcqcn *st, const struct sroce_dcqcn_params *p,
		     u32 bytes);

/**
 * struct sroce_tbf - a token bucket, kept as the time its tokens run out
 * @next_ns: when the bucket is empty: before it, sending waits; a bucket
 *	idle for longer than its burst's worth holds only the burst
 */
struct sroce_tbf {
	u64 next_ns;
};

/**
 * sroce_tbf_wait() - how long a sender waits for the bucket
 * @b: the bucket
 * @now: nanoseconds
 *
 * Context: any; the caller serialises the users of @b.
 * Return: 0 when sending may go on now, else nanoseconds to wait.
 */
u64 sroce_tbf_wait(const struct sroce_tbf *b, u64 now);

/* What sroce_tbf_burst() keeps the bucket's depth between. */
#define SROCE_TBF_BURST_MIN	4096
#define SROCE_TBF_BURST_MAX	(64 * 1024)

/**
 * sroce_tbf_burst() - how much a bucket filling at a rate may hold
 * @rate: kbit/s
 *
 * A millisecond of @rate (@rate / 8 bytes), no less than 4 KiB (a packet
 * at the largest path MTU) and no more than 64 KiB: a QP paced down to a slow bottleneck does not
 * hand it tens of milliseconds of data at once after a pause, yet at the
 * rates of a fast link the bucket still bursts enough to keep timers rare.
 *
 * Context: any.
 * Return: the bucket's depth in bytes.
 */
u32 sroce_tbf_burst(u32 rate);

/**
 * sroce_tbf_take() - charge bytes sent to the bucket
 * @b: the bucket
 * @now: nanoseconds
 * @rate: kbit/s, not 0
 * @burst: bytes the bucket holds when full
 * @bytes: bytes sent
 *
 * The bucket refills at @rate up to @burst; what is sent past its
 * tokens puts it in debt, which sroce_tbf_wait() makes the sender wait out.
 *
 * Context: any; the caller serialises the users of @b.
 */
void sroce_tbf_take(struct sroce_tbf *b, u64 now, u32 rate, u32 burst,
		    u32 bytes);

/**
 * sroce_tbf_ns() - time to send bytes at a rate
 * @bytes: bytes
 * @rate: kbit/s, not 0
 *
 * Context: any.
 * Return: nanoseconds, rounded up.
 */
u64 sroce_tbf_ns(u64 bytes, u32 rate);

/**
 * sroce_cnp_due() - whether a notification point may send a CNP now
 * @last_ns: when the QP sent its last CNP, 0 for never
 * @now: nanoseconds
 * @gap_us: np_min_time_between_cnps
 *
 * Context: any.
 * Return: true when no CNP went out for the QP in the last @gap_us.
 */
bool sroce_cnp_due(u64 last_ns, u64 now, u32 gap_us);

#endif /* _SROCE_DCQCN_H */
