// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which pages of an ODP MR a piece touches (sroce_odp_span()): the
 * MR's lead into its first page, pieces within a page, across pages,
 * ending exactly on a page boundary, one byte.
 */
#include <kunit/test.h>

#include "odp.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

struct odp_span_case {
	u32 lead;
	u64 off, len;
	unsigned long first, last;
};

#define P PAGE_SIZE

static const struct odp_span_case odp_span_cases[] = {
	{ 0, 0, 1, 0, 0 },			/* one byte */
	{ 0, 0, P, 0, 0 },			/* the whole first page */
	{ 0, 0, P + 1, 0, 1 },			/* one byte over */
	{ 0, P - 1, 2, 0, 1 },			/* straddles a boundary */
	{ 100, 0, P - 100, 0, 0 },		/* lead: ends on the boundary */
	{ 100, 0, P - 99, 0, 1 },		/* lead: one byte over */
	{ 100, P - 100, 1, 1, 1 },		/* lead: first byte of page 1 */
	{ P - 1, 0, 1, 0, 0 },			/* last byte of the first page */
	{ P - 1, 1, 1, 1, 1 },
	{ 100, 3 * P, 4 * P, 3, 7 },		/* several pages, unaligned */
	{ 0, 1ULL << 31, P, 1UL << (31 - PAGE_SHIFT),
	  1UL << (31 - PAGE_SHIFT) },		/* 2 GiB in: the largest MR */
};

static void odp_span_test(struct kunit *test)
{
	unsigned long first, last;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(odp_span_cases); i++) {
		const struct odp_span_case *c = &odp_span_cases[i];

		sroce_odp_span(c->lead, c->off, c->len, &first, &last);
		KUNIT_EXPECT_EQ_MSG(test, first, c->first, "case %u first", i);
		KUNIT_EXPECT_EQ_MSG(test, last, c->last, "case %u last", i);
	}
}

static struct kunit_case sroce_odp_cases[] = {
	KUNIT_CASE(odp_span_test),
	{}
};

static struct kunit_suite sroce_odp_suite = {
	.name = "sroce_odp",
	.test_cases = sroce_odp_cases,
};

kunit_test_suite(sroce_odp_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's ODP page arithmetic");
MODULE_LICENSE("GPL");
