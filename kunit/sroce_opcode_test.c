// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the opcode table (opcode.c): which opcodes exist on which
 * transport, their header lengths, which QP types take them, and which
 * packet may follow which. The expectations are written out from IBTA
 * 1.4 tables 36-38 and 1.5's annex A19 (FLUSH 0x1c, ATOMIC WRITE 0x1d,
 * RC only), not derived from the table under test.
 */
#include <kunit/test.h>

#include "opcode.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

static bool expected_valid(unsigned int opc)
{
	unsigned int op = opc & 0x1f;

	switch (opc >> 5) {
	case SROCE_TR_RC:
		return op <= 0x14 || op == 0x16 || op == 0x17 || op == 0x1c ||
		       op == 0x1d;
	case SROCE_TR_XRC:
		return op <= 0x14 || op == 0x16 || op == 0x17;
	case SROCE_TR_UC:
		return op <= 0x0b;
	case SROCE_TR_UD:
		return op == 0x04 || op == 0x05;
	default:
		return opc == 0x81;	/* CNP; RD and the rest unsupported */
	}
}

static void decode_every_opcode_test(struct kunit *test)
{
	struct sroce_opcode_info info;
	unsigned int opc, known = 0;

	for (opc = 0; opc <= 0xff; opc++) {
		bool ok = sroce_opcode_decode(opc, &info);

		KUNIT_EXPECT_EQ_MSG(test, ok, expected_valid(opc), "opcode %#x", opc);
		known += ok;
	}
	/* RC 25 + UC 12 + UD 2 + XRC 23 + CNP 1 */
	KUNIT_EXPECT_EQ(test, known, 63U);
}

struct hdr_len_case {
	u8 opcode;
	u8 hdr_len;
	u16 hdrs;
};

static const struct hdr_len_case hdr_len_cases[] = {
	{ 0x04, 12, SROCE_HDR_PAYLOAD },			/* RC SEND only */
	{ 0x01, 12, SROCE_HDR_PAYLOAD },			/* RC SEND middle */
	{ 0x05, 16, SROCE_HDR_IMM | SROCE_HDR_PAYLOAD },
	{ 0x17, 16, SROCE_HDR_IETH | SROCE_HDR_PAYLOAD },
	{ 0x06, 28, SROCE_HDR_RETH | SROCE_HDR_PAYLOAD },
	{ 0x0b, 32, SROCE_HDR_RETH | SROCE_HDR_IMM | SROCE_HDR_PAYLOAD },
	{ 0x0c, 28, SROCE_HDR_RETH },				/* READ request */
	{ 0x0e, 12, SROCE_HDR_PAYLOAD },			/* READ resp middle */
	{ 0x10, 16, SROCE_HDR_AETH | SROCE_HDR_PAYLOAD },
	{ 0x11, 16, SROCE_HDR_AETH },				/* ACK */
	{ 0x12, 24, SROCE_HDR_AETH | SROCE_HDR_ATOMIC_ACK },
	{ 0x13, 40, SROCE_HDR_ATOMIC },
	{ 0x14, 40, SROCE_HDR_ATOMIC },
	{ 0x1c, 32, SROCE_HDR_FETH | SROCE_HDR_RETH },		/* FLUSH */
	{ 0x1d, 28, SROCE_HDR_RETH | SROCE_HDR_PAYLOAD },	/* ATOMIC WRITE */
	{ 0x2a, 28, SROCE_HDR_RETH | SROCE_HDR_PAYLOAD },	/* UC WRITE only */
	{ 0x64, 20, SROCE_HDR_DETH | SROCE_HDR_PAYLOAD },	/* UD SEND only */
	{ 0x65, 24, SROCE_HDR_DETH | SROCE_HDR_IMM | SROCE_HDR_PAYLOAD },
	{ 0xa4, 16, SROCE_HDR_XRCETH | SROCE_HDR_PAYLOAD },	/* XRC SEND only */
	{ 0xac, 32, SROCE_HDR_XRCETH | SROCE_HDR_RETH },	/* XRC READ req */
	{ 0xb3, 44, SROCE_HDR_XRCETH | SROCE_HDR_ATOMIC },
	{ 0xb0, 16, SROCE_HDR_AETH | SROCE_HDR_PAYLOAD },	/* no XRCETH */
	{ 0xb1, 16, SROCE_HDR_AETH },
	{ 0x81, 28, 0 },					/* CNP */
};

static void hdr_len_test(struct kunit *test)
{
	struct sroce_opcode_info info;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hdr_len_cases); i++) {
		const struct hdr_len_case *c = &hdr_len_cases[i];

		KUNIT_ASSERT_TRUE(test, sroce_opcode_decode(c->opcode, &info));
		KUNIT_EXPECT_EQ_MSG(test, info.hdr_len, c->hdr_len, "opcode %#x",
				    c->opcode);
		KUNIT_EXPECT_EQ_MSG(test, info.hdrs, c->hdrs, "opcode %#x",
				    c->opcode);
	}
}

static void valid_for_qp_type_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_opcode_valid_for(0x04, IB_QPT_RC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x24, IB_QPT_RC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x64, IB_QPT_RC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x15, IB_QPT_RC));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_valid_for(0x1c, IB_QPT_RC));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_valid_for(0x1d, IB_QPT_RC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x3d, IB_QPT_UC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0xbc, IB_QPT_XRC_TGT));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_valid_for(0x2b, IB_QPT_UC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x2c, IB_QPT_UC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x31, IB_QPT_UC));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_valid_for(0x64, IB_QPT_UD));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_valid_for(0x65, IB_QPT_GSI));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x60, IB_QPT_UD));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x04, IB_QPT_UD));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_valid_for(0xa0, IB_QPT_XRC_TGT));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_valid_for(0xb1, IB_QPT_XRC_INI));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x44, IB_QPT_RC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_valid_for(0x04, IB_QPT_RAW_PACKET));
}

struct next_case {
	int prev;
	u8 next;
	bool ok;
};

#define NONE SROCE_OPCODE_NONE
static const struct next_case next_cases[] = {
	{ NONE, 0x00, true },	/* a message may start with FIRST */
	{ NONE, 0x04, true },	/* or be ONLY */
	{ NONE, 0x01, false },	/* but not start in the middle */
	{ NONE, 0x02, false },
	{ NONE, 0x15, false },	/* reserved */
	{ 0x00, 0x01, true },	/* SEND first, middle */
	{ 0x00, 0x02, true },
	{ 0x00, 0x03, true },	/* ... last with immediate */
	{ 0x00, 0x16, true },	/* ... last with invalidate */
	{ 0x00, 0x04, false },	/* a new message inside one */
	{ 0x00, 0x07, false },	/* a WRITE middle inside a SEND */
	{ 0x01, 0x0c, false },	/* a READ request inside a SEND */
	{ 0x01, 0x1d, false },	/* an ATOMIC WRITE inside a SEND */
	{ 0x1d, 0x1c, true },	/* ATOMIC WRITE, then FLUSH */
	{ 0x1c, 0x01, false },
	{ 0x02, 0x0c, true },
	{ 0x06, 0x09, true },	/* WRITE first, last with immediate */
	{ 0x06, 0x02, false },
	{ 0x0a, 0x0a, true },
	{ 0x0d, 0x0e, true },	/* READ response first, middle */
	{ 0x0d, 0x11, false },	/* an ACK inside a READ response */
	{ 0x0f, 0x11, true },
	{ 0x11, 0x0e, false },
	{ 0x00, 0x21, false },	/* RC then UC */
	{ 0x20, 0x21, true },	/* UC SEND first, middle */
	{ 0xa0, 0xa2, true },	/* XRC too */
	{ 0x15, 0x04, false },	/* reserved previous */
	{ 0x100, 0x04, false },	/* not an opcode */
	{ -2, 0x04, false },
};

static void next_cases_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(next_cases); i++) {
		const struct next_case *c = &next_cases[i];

		KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_next_ok(c->prev, c->next),
				    c->ok, "%#x then %#x", c->prev, c->next);
	}
}

/*
 * Over every pair of RC opcodes: 19 that end a message (13 ONLY, 6 LAST)
 * may each be followed by the 16 that open one (FIRST or ONLY): 304; the
 * two open SENDs by 4 SEND continuations, the two open WRITEs by 3, the
 * two open READ responses by 2: 18 more.
 */
static void next_all_rc_pairs_test(struct kunit *test)
{
	unsigned int prev, next, allowed = 0;

	for (prev = 0; prev < 0x20; prev++)
		for (next = 0; next < 0x20; next++)
			allowed += sroce_opcode_next_ok(prev, next);
	KUNIT_EXPECT_EQ(test, allowed, 322U);
}

static struct kunit_case sroce_opcode_cases[] = {
	KUNIT_CASE(decode_every_opcode_test),
	KUNIT_CASE(hdr_len_test),
	KUNIT_CASE(valid_for_qp_type_test),
	KUNIT_CASE(next_cases_test),
	KUNIT_CASE(next_all_rc_pairs_test),
	{}
};

static struct kunit_suite sroce_opcode_suite = {
	.name = "sroce_opcode",
	.test_cases = sroce_opcode_cases,
};

kunit_test_suite(sroce_opcode_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's opcode table");
MODULE_LICENSE("GPL");
