// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: partitions (pkey.c). The membership rule of IBTA 10.9.3 over a
 * table of P_Key pairs; the table an administrator's line makes, and the
 * lines and entries it refuses; the entry the GSI QP finds for a packet.
 */
#include <kunit/test.h>

#include "pkey.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

struct match_case {
	const char *name;
	u16 pkt;
	u16 own;
	bool match;
};

static const struct match_case match_cases[] = {
	{ "full/full", 0x8001, 0x8001, true },
	{ "full packet, limited QP", 0x8001, 0x0001, true },
	{ "limited packet, full QP", 0x0001, 0x8001, true },
	{ "limited/limited", 0x0001, 0x0001, false },
	{ "different base, both full", 0x8001, 0x8002, false },
	{ "different base, limited", 0x0001, 0x8002, false },
	{ "default full/full", 0xffff, 0xffff, true },
	{ "default limited/full", 0x7fff, 0xffff, true },
	{ "default limited/limited", 0x7fff, 0x7fff, false },
	{ "packet P_Key 0", 0x0000, 0x8000, false },
	{ "packet full of partition 0", 0x8000, 0x8000, false },
	{ "packet full of partition 0, empty entry", 0x8000, 0x0000, false },
	{ "empty entry", 0x8001, 0x0000, false },
	{ "base differs in the top bit only", 0xc001, 0x8001, false },
};

static void match_desc(const struct match_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(match, match_cases, match_desc);

static void match_test(struct kunit *test)
{
	const struct match_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, sroce_pkey_match(c->pkt, c->own), c->match,
			    "packet 0x%04x, QP 0x%04x", c->pkt, c->own);
}

struct parse_case {
	const char *line;
	int err;
	u32 index;
	u16 pkey;
};

static const struct parse_case parse_cases[] = {
	{ "1 0x8001\n", 0, 1, 0x8001 },
	{ "15 32769", 0, 15, 0x8001 },
	{ "  2\t0x7fff\t\n", 0, 2, 0x7fff },
	{ "3 0", 0, 3, 0 },
	{ "1", -EINVAL },
	{ "", -EINVAL },
	{ "x 0x8001", -EINVAL },
	{ "1 0x8001 7", -EINVAL },
	{ "1 8001h", -EINVAL },
	{ "-1 0x8001", -EINVAL },
	{ "1 0x10000", -ERANGE },
	{ "99999999999 1", -ERANGE },
};

static void parse_desc(const struct parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->line);
}

KUNIT_ARRAY_PARAM(parse, parse_cases, parse_desc);

static void parse_test(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	u32 index = 0;
	u16 pkey = 0;

	KUNIT_ASSERT_EQ(test, sroce_pkey_parse(c->line, &index, &pkey), c->err);
	if (c->err)
		return;
	KUNIT_EXPECT_EQ(test, index, c->index);
	KUNIT_EXPECT_EQ(test, pkey, c->pkey);
}

/* A new table, entries set and emptied, and what it refuses. */
static void table_test(struct kunit *test)
{
	struct sroce_pkey_table t;
	u32 i;

	memset(&t, 0xa5, sizeof(t));
	sroce_pkey_table_init(&t);
	KUNIT_EXPECT_EQ(test, sroce_pkey_get(&t, 0), SROCE_PKEY_DEFAULT);
	for (i = 1; i < SROCE_PKEY_TABLE_LEN; i++)
		KUNIT_EXPECT_EQ(test, sroce_pkey_get(&t, i), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_get(&t, SROCE_PKEY_TABLE_LEN), 0);

	KUNIT_EXPECT_EQ(test, sroce_pkey_set(&t, 3, 0x8001), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_get(&t, 3), 0x8001);
	KUNIT_EXPECT_EQ(test, sroce_pkey_set(&t, SROCE_PKEY_TABLE_LEN - 1, 0x0002), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_get(&t, SROCE_PKEY_TABLE_LEN - 1), 0x0002);
	KUNIT_EXPECT_EQ(test, sroce_pkey_set(&t, SROCE_PKEY_TABLE_LEN, 0x8001),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_pkey_set(&t, 4, SROCE_PKEY_FULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_pkey_get(&t, 4), 0);
	/* Entry 0 may change too: the default partition, limited. */
	KUNIT_EXPECT_EQ(test, sroce_pkey_set(&t, 0, 0x7fff), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_get(&t, 0), 0x7fff);
	KUNIT_EXPECT_EQ(test, sroce_pkey_set(&t, 3, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_get(&t, 3), 0);
}

/* The GSI QP's lookup: the first entry a packet's P_Key matches. */
static void find_test(struct kunit *test)
{
	struct sroce_pkey_table t;

	sroce_pkey_table_init(&t);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0xffff), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0x7fff), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0x8001), -ENOENT);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0x8000), -ENOENT);

	KUNIT_ASSERT_EQ(test, sroce_pkey_set(&t, 5, 0x0001), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0x8001), 5);
	/* Limited to limited: no entry takes it. */
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0x0001), -ENOENT);
	KUNIT_ASSERT_EQ(test, sroce_pkey_set(&t, 9, 0x8001), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0x0001), 9);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0x8001), 5);
	/* The default partition gone: its packets find nothing. */
	KUNIT_ASSERT_EQ(test, sroce_pkey_set(&t, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_pkey_find(&t, 0xffff), -ENOENT);
}

static struct kunit_case sroce_pkey_cases[] = {
	KUNIT_CASE_PARAM(match_test, match_gen_params),
	KUNIT_CASE_PARAM(parse_test, parse_gen_params),
	KUNIT_CASE(table_test),
	KUNIT_CASE(find_test),
	{}
};

static struct kunit_suite sroce_pkey_suite = {
	.name = "sroce_pkey",
	.test_cases = sroce_pkey_cases,
};

kunit_test_suite(sroce_pkey_suite);

MODULE_DESCRIPTION("KUnit tests for sroce partitions");
MODULE_LICENSE("GPL");
