// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the rules of IBTA 1.5's ATOMIC WRITE and FLUSH (ext.c) as pure
 * functions: which MR and QP rights a FLUSH placement type needs (and
 * which placement types are invalid), and the shape an ATOMIC WRITE must
 * have (oA19-28: 8 bytes, 8-byte aligned, no pad). Expectations written
 * out from annex A19, not from the code under test.
 */
#include <kunit/test.h>

#include "ext.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

static void flush_access_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_flush_access(IB_FLUSH_GLOBAL),
			IB_ACCESS_FLUSH_GLOBAL);
	KUNIT_EXPECT_EQ(test, sroce_flush_access(IB_FLUSH_PERSISTENT),
			IB_ACCESS_FLUSH_PERSISTENT);
	KUNIT_EXPECT_EQ(test, sroce_flush_access(IB_FLUSH_GLOBAL |
						 IB_FLUSH_PERSISTENT),
			IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT);
	/* No placement type, or a reserved bit: an invalid request. */
	KUNIT_EXPECT_EQ(test, sroce_flush_access(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_flush_access(4), 0);
	KUNIT_EXPECT_EQ(test, sroce_flush_access(8 | IB_FLUSH_GLOBAL), 0);
	KUNIT_EXPECT_EQ(test, sroce_flush_access(0xf), 0);
	/* The two rights are IBTA 1.5's bits 8 and 9 of the access flags. */
	KUNIT_EXPECT_EQ(test, IB_ACCESS_FLUSH_GLOBAL, 1 << 8);
	KUNIT_EXPECT_EQ(test, IB_ACCESS_FLUSH_PERSISTENT, 1 << 9);
}

static void atomic_write_shape_test(struct kunit *test)
{
	static const struct {
		u64 va;
		u32 dma_len, pay;
		u8 pad;
		bool ok;
	} cases[] = {
		{ 0x1000, 8, 8, 0, true },
		{ 0xfffffffffffffff8ULL, 8, 8, 0, true },
		{ 0x1004, 8, 8, 0, false },	/* misaligned */
		{ 0x1001, 8, 8, 0, false },
		{ 0x1000, 4, 4, 0, false },	/* short */
		{ 0x1000, 8, 4, 0, false },	/* RETH and payload disagree */
		{ 0x1000, 16, 8, 0, false },
		{ 0x1000, 8, 16, 0, false },
		{ 0x1000, 8, 8, 1, false },	/* padded */
		{ 0x1000, 0, 0, 0, false },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_atomic_write_ok(cases[i].va,
							  cases[i].dma_len,
							  cases[i].pay, cases[i].pad),
				    cases[i].ok, "case %u", i);
}

static struct kunit_case sroce_ext_cases[] = {
	KUNIT_CASE(flush_access_test),
	KUNIT_CASE(atomic_write_shape_test),
	{}
};

static struct kunit_suite sroce_ext_suite = {
	.name = "sroce_ext",
	.test_cases = sroce_ext_cases,
};

kunit_test_suite(sroce_ext_suite);

MODULE_DESCRIPTION("KUnit tests for sroce's ATOMIC WRITE and FLUSH rules");
MODULE_LICENSE("GPL");
