// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: 24-bit PSN arithmetic (psn.h): wrap, signed distance, the 2^23
 * half window, window membership, the read responses held ahead of a hole.
 */
#include <kunit/test.h>

#include "psn.h"

struct psn_diff_case {
	u32 a, b;
	s32 diff;
};

static const struct psn_diff_case psn_diff_cases[] = {
	{ 0, 0, 0 },
	{ 1, 0, 1 },
	{ 0, 1, -1 },
	{ 0, 0xffffff, 1 },		/* wrap forward */
	{ 0xffffff, 0, -1 },		/* wrap backward */
	{ 5, 0xfffffd, 8 },
	{ 0x7fffff, 0, 0x7fffff },	/* farthest still after */
	{ 0x800000, 0, -0x800000 },	/* exactly half: taken as before */
	{ 0, 0x800000, -0x800000 },
	{ 0x800001, 0, -0x7fffff },
	{ 0x123456, 0x123456, 0 },
};

static void psn_diff_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(psn_diff_cases); i++) {
		const struct psn_diff_case *c = &psn_diff_cases[i];

		KUNIT_EXPECT_EQ_MSG(test, sroce_psn_diff(c->a, c->b), c->diff,
				    "diff(%#x, %#x)", c->a, c->b);
		KUNIT_EXPECT_EQ_MSG(test, sroce_psn_before(c->a, c->b),
				    c->diff < 0, "before(%#x, %#x)", c->a, c->b);
	}
}

static void psn_diff_ignores_high_bits_test(struct kunit *test)
{
	/* Bits above 24 never take part. */
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0xff000001, 0), 1);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0, 0x01000001), -1);
}

static void psn_add_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0, 1), 1U);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xfffffe, 5), 3U);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0x123456, 0x1000000), 0x123456U);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(1, 0xffffffff), 0U);
}

static void psn_add_then_diff_test(struct kunit *test)
{
	static const u32 starts[] = { 0, 1, 0x7fffff, 0x800000, 0xfffff0, 0xffffff };
	static const u32 steps[] = { 0, 1, 2, 1000, 0x7fffff };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(starts); i++)
		for (j = 0; j < ARRAY_SIZE(steps); j++)
			KUNIT_EXPECT_EQ(test,
					sroce_psn_diff(sroce_psn_add(starts[i], steps[j]),
						       starts[i]),
					(s32)steps[j]);
}

static void psn_window_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(10, 10, 1));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(11, 10, 1));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(9, 10, 5));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(10, 10, 0));
	/* A window across the wrap. */
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(0xfffffe, 0xfffffe, 10));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(0, 0xfffffe, 10));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(7, 0xfffffe, 10));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(8, 0xfffffe, 10));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(0xfffffd, 0xfffffe, 10));
}

/*
 * The read responses held ahead of a hole: what arrives in order takes
 * the run right behind it, and the rest shifts to the next hole.
 */
static void psn_held_take_test(struct kunit *test)
{
	u64 held = 0;

	KUNIT_EXPECT_EQ(test, sroce_psn_held_take(&held), 0U);
	KUNIT_EXPECT_EQ(test, held, 0ULL);
	held = 0x1;
	KUNIT_EXPECT_EQ(test, sroce_psn_held_take(&held), 1U);
	KUNIT_EXPECT_EQ(test, held, 0ULL);
	/* Two held, a hole, one held: two taken, the one left at bit 0. */
	held = 0xb;
	KUNIT_EXPECT_EQ(test, sroce_psn_held_take(&held), 2U);
	KUNIT_EXPECT_EQ(test, held, 0x1ULL);
	/* A hole right behind: nothing taken, the rest one nearer. */
	held = 0x6;
	KUNIT_EXPECT_EQ(test, sroce_psn_held_take(&held), 0U);
	KUNIT_EXPECT_EQ(test, held, 0x3ULL);
	/* The widest runs: no shift by 64 or more. */
	held = ~0ULL >> 1;
	KUNIT_EXPECT_EQ(test, sroce_psn_held_take(&held), 63U);
	KUNIT_EXPECT_EQ(test, held, 0ULL);
	held = ~0ULL;
	KUNIT_EXPECT_EQ(test, sroce_psn_held_take(&held), 64U);
	KUNIT_EXPECT_EQ(test, held, 0ULL);
	held = BIT_ULL(63);
	KUNIT_EXPECT_EQ(test, sroce_psn_held_take(&held), 0U);
	KUNIT_EXPECT_EQ(test, held, BIT_ULL(62));
}

static struct kunit_case sroce_psn_cases[] = {
	KUNIT_CASE(psn_diff_test),
	KUNIT_CASE(psn_diff_ignores_high_bits_test),
	KUNIT_CASE(psn_add_test),
	KUNIT_CASE(psn_add_then_diff_test),
	KUNIT_CASE(psn_window_test),
	KUNIT_CASE(psn_held_take_test),
	{}
};

static struct kunit_suite sroce_psn_suite = {
	.name = "sroce_psn",
	.test_cases = sroce_psn_cases,
};

kunit_test_suite(sroce_psn_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's PSN arithmetic");
MODULE_LICENSE("GPL");
