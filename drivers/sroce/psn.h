/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet sequence numbers: 24-bit counters that wrap. Two PSNs compare by
 * their distance modulo 2^24, taken as a signed 24-bit number: b is after
 * a when b - a lies in [1, 2^23 - 1], before it when in [-2^23, -1]. So
 * comparisons are meaningful only within half the space (IBTA 9.7.1),
 * which the windows on both sides keep far smaller.
 */
#ifndef _SROCE_PSN_H
#define _SROCE_PSN_H

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/types.h>

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MASK		GENMASK(SROCE_PSN_BITS - 1, 0)
#define SROCE_PSN_HALF		BIT(SROCE_PSN_BITS - 1)

/**
 * sroce_psn_add() - advance a PSN
 * @psn: a PSN
 * @n: how far; any u32, taken modulo 2^24
 *
 * Context: any.
 * Return: (@psn + @n) mod 2^24.
 */
static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/**
 * sroce_psn_diff() - signed distance from one PSN to another
 * @a: a PSN
 * @b: a PSN
 *
 * Context: any.
 * Return: @a - @b as a signed 24-bit value, in [-2^23, 2^23 - 1].
 */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	u32 d = (a - b) & SROCE_PSN_MASK;

	return d & SROCE_PSN_HALF ? (s32)d - (s32)BIT(SROCE_PSN_BITS) : (s32)d;
}

/**
 * sroce_psn_before() - whether a PSN comes before another
 * @a: a PSN
 * @b: a PSN
 *
 * Context: any.
 * Return: true when @a is earlier than @b.
 */
static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

/**
 * sroce_psn_in_window() - whether a PSN lies in [start, start + len)
 * @psn: the PSN to place
 * @start: first PSN of the window
 * @len: window length, at most 2^23
 *
 * Context: any.
 * Return: true when @psn is inside the window.
 */
static inline bool sroce_psn_in_window(u32 psn, u32 start, u32 len)
{
	return ((psn - start) & SROCE_PSN_MASK) < len;
}

/**
 * sroce_psn_held_take() - the PSN awaited arrived: take what is held behind
 * @held: PSNs that arrived ahead of the one awaited, bit i for the PSN
 *	i + 1 after it; left relative to the next PSN awaited
 *
 * Context: any.
 * Return: how many held PSNs follow the one that arrived without a hole.
 */
static inline u32 sroce_psn_held_take(u64 *held)
{
	u32 n = ~*held ? __ffs64(~*held) : 64;

	*held = n < 63 ? *held >> (n + 1) : 0;
	return n;
}

#endif /* _SROCE_PSN_H */
