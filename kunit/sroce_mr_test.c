// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: MR bounds and access checks and key composition (mr.c): the
 * range check at the region's first and last byte, one past it, zero
 * lengths, and regions that end at 2^64.
 */
#include <kunit/test.h>

#include "mr.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

struct range_case {
	const char *name;
	u64 start, size, addr, len;
	bool within;
};

static const struct range_case range_cases[] = {
	{ "whole", 0x1000, 0x100, 0x1000, 0x100, true },
	{ "first-byte", 0x1000, 0x100, 0x1000, 1, true },
	{ "last-byte", 0x1000, 0x100, 0x10ff, 1, true },
	{ "one-past-end", 0x1000, 0x100, 0x1100, 1, false },
	{ "one-before", 0x1000, 0x100, 0xfff, 1, false },
	{ "one-too-long", 0x1000, 0x100, 0x1000, 0x101, false },
	{ "straddles-end", 0x1000, 0x100, 0x10f0, 0x20, false },
	{ "zero-len-inside", 0x1000, 0x100, 0x1080, 0, true },
	{ "zero-len-at-end", 0x1000, 0x100, 0x1100, 0, true },
	{ "zero-len-past-end", 0x1000, 0x100, 0x1101, 0, false },
	{ "zero-size-region", 0x1000, 0, 0x1000, 1, false },
	{ "ends-at-2^64", U64_MAX - 9, 10, U64_MAX, 1, true },
	{ "wraps-past-2^64", U64_MAX - 9, 10, U64_MAX, 2, false },
	{ "huge-len-wraps", 0x1000, 0x100, 0x1010, U64_MAX, false },
	{ "huge-addr", 0x1000, 0x100, U64_MAX, 1, false },
	{ "everything", 0, U64_MAX, 0, U64_MAX, true },
	{ "everything-but-last", 0, U64_MAX, U64_MAX, 1, false },
};

static void range_case_desc(const struct range_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(range, range_cases, range_case_desc);

static void range_within_test(struct kunit *test)
{
	const struct range_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, sroce_range_within(c->start, c->size, c->addr, c->len),
			c->within);
}

static void access_check_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_LOCAL_WRITE |
						    IB_ACCESS_REMOTE_WRITE |
						    IB_ACCESS_REMOTE_ATOMIC |
						    IB_ACCESS_REMOTE_READ), 0);
	/* Remote write or atomic without local write: IBTA forbids it. */
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_REMOTE_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_REMOTE_ATOMIC), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_REMOTE_READ |
						    IB_ACCESS_REMOTE_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_ON_DEMAND), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ZERO_BASED), -EOPNOTSUPP);
	/* Optional flags are hints. */
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_RELAXED_ORDERING), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(BIT(19)), -EINVAL);
}

static void key_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_key_make(1, 0), 0x100U);
	KUNIT_EXPECT_EQ(test, sroce_key_make(0xffffff, 0xff), 0xffffffffU);
	KUNIT_EXPECT_EQ(test, sroce_key_index(0xabcdef12), 0xabcdefU);
	KUNIT_EXPECT_EQ(test, sroce_key_index(sroce_key_make(0x123456, 0x78)), 0x123456U);
	/* The variant byte never moves the index (ib_inc_rkey). */
	KUNIT_EXPECT_EQ(test, sroce_key_index(ib_inc_rkey(sroce_key_make(0x42, 0xff))),
			0x42U);
}

/* One MR, every way an access through it can be refused, and one way in. */
static void mr_check_test(struct kunit *test)
{
	struct sroce_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	struct ib_pd *pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	struct ib_pd *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	const u32 key = sroce_key_make(0x123456, 0x9a);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, other);
	mr->key = key;
	mr->pd = pd;
	mr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	mr->ibmr.iova = 0x10000;
	mr->ibmr.length = 0x2000;

	/* Not valid yet (a fast-registration MR before REG_MR). */
	mr->state = SROCE_MR_FREE;
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x10000, 1), -EINVAL);
	mr->state = SROCE_MR_VALID;
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x10000, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_LOCAL_WRITE,
					     0x10000, 0x2000), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_READ,
					     0x11fff, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_READ,
					     0x12000, 0), 0);
	/* Same index, other variant byte: a stale or guessed key. */
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key ^ 1, pd, 0, 0x10000, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, other, 0, 0x10000, 1), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_WRITE,
					     0x10000, 1), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_ATOMIC,
					     0x10000, 8), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x12000, 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0xffff, 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x10001, 0x2000), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, U64_MAX, 2), -ERANGE);
}

static struct kunit_case sroce_mr_cases[] = {
	KUNIT_CASE_PARAM(range_within_test, range_gen_params),
	KUNIT_CASE(access_check_test),
	KUNIT_CASE(key_test),
	KUNIT_CASE(mr_check_test),
	{}
};

static struct kunit_suite sroce_mr_suite = {
	.name = "sroce_mr",
	.test_cases = sroce_mr_cases,
};

kunit_test_suite(sroce_mr_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's MR checks and keys");
MODULE_LICENSE("GPL");
