// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the per-device object limits (device.c). For every kind, the
 * limit query_device reports is reachable, one more is ENOMEM and leaves
 * the count as it was, and a destroy makes room again.
 */
#include <kunit/test.h>

#include "mr.h"
#include "qp.h"
#include "sroce.h"
#include "srq.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

static const struct {
	enum sroce_obj kind;
	const char *name;
	u32 limit;
} limits[] = {
	{ SROCE_OBJ_PD, "PD", SROCE_MAX_PD },
	{ SROCE_OBJ_CQ, "CQ", SROCE_MAX_CQ },
	{ SROCE_OBJ_MR, "MR", SROCE_MAX_MR },
	{ SROCE_OBJ_QP, "QP", SROCE_MAX_QP },
	{ SROCE_OBJ_SRQ, "SRQ", SROCE_MAX_SRQ },
	{ SROCE_OBJ_MW, "MW", SROCE_MAX_MW },
};

static void obj_limit_test(struct kunit *test)
{
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	unsigned int i;
	u32 n;

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		enum sroce_obj kind = limits[i].kind;

		for (n = 0; n < limits[i].limit; n++)
			if (sroce_obj_take(sdev, kind))
				break;
		KUNIT_EXPECT_EQ_MSG(test, n, limits[i].limit, "%s", limits[i].name);
		KUNIT_EXPECT_EQ_MSG(test, sroce_obj_take(sdev, kind), -ENOMEM,
				    "%s", limits[i].name);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sdev->objs[kind]),
				    (int)limits[i].limit, "%s", limits[i].name);
		sroce_obj_put(sdev, kind);
		KUNIT_EXPECT_EQ_MSG(test, sroce_obj_take(sdev, kind), 0,
				    "%s", limits[i].name);
	}
	/* Kinds are counted apart: all full, none spilled into another. */
	for (i = 0; i < ARRAY_SIZE(limits); i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&sdev->objs[limits[i].kind]),
				(int)limits[i].limit);
}

static struct kunit_case sroce_limits_cases[] = {
	KUNIT_CASE(obj_limit_test),
	{}
};

static struct kunit_suite sroce_limits_suite = {
	.name = "sroce_limits",
	.test_cases = sroce_limits_cases,
};

kunit_test_suite(sroce_limits_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's per-device object limits");
MODULE_LICENSE("GPL");
