// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the transport header codecs of wire.h: exact bytes of known
 * headers, encode/decode round trips, field limits and independence.
 */
#include <kunit/test.h>

#include "wire.h"

struct bth_case {
	const char *name;
	u8 opcode;
	bool se, ackreq;
	u8 pad;
	u16 pkey;
	u32 qpn, psn;
	u8 bytes[12];
};

static const struct bth_case bth_cases[] = {
	{ "all-zero", 0x00, false, false, 0, 0x0000, 0, 0,
	  { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "rc-send-only", 0x04, true, true, 2, 0xffff, 0x123456, 0xabcdef,
	  { 0x04, 0xa0, 0xff, 0xff, 0x00, 0x12, 0x34, 0x56, 0x80, 0xab, 0xcd, 0xef } },
	{ "field-maxima", 0xff, true, true, 3, 0xffff, 0xffffff, 0xffffff,
	  { 0xff, 0xb0, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0x80, 0xff, 0xff, 0xff } },
	{ "ud-qp1", 0x64, false, false, 1, 0x8001, 1, 0x000100,
	  { 0x64, 0x10, 0x80, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00 } },
};

static void bth_case_desc(const struct bth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bth, bth_cases, bth_case_desc);

static void bth_encode_decode_test(struct kunit *test)
{
	const struct bth_case *c = test->param_value;
	struct sroce_bth bth;

	sroce_bth_init(&bth, c->opcode, c->se, c->pad, c->pkey, c->qpn, c->psn,
		       c->ackreq);
	KUNIT_EXPECT_MEMEQ(test, &bth, c->bytes, sizeof(bth));

	KUNIT_EXPECT_EQ(test, bth.opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, sroce_bth_se(&bth), c->se);
	KUNIT_EXPECT_FALSE(test, sroce_bth_mig(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_pad(&bth), c->pad);
	KUNIT_EXPECT_EQ(test, sroce_bth_tver(&bth), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(bth.pkey), c->pkey);
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(&bth), c->qpn);
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(&bth), c->psn);
	KUNIT_EXPECT_EQ(test, sroce_bth_ackreq(&bth), c->ackreq);
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(&bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_becn(&bth));
}

static void bth_fields_truncate_test(struct kunit *test)
{
	struct sroce_bth bth;

	sroce_bth_init(&bth, 0x04, false, 7, 0xffff, 0x1abcdef, 0x2fedcba, false);
	KUNIT_EXPECT_EQ(test, sroce_bth_pad(&bth), 3);
	KUNIT_EXPECT_FALSE(test, sroce_bth_se(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(&bth), 0xabcdefU);
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(&bth), 0xfedcbaU);
	KUNIT_EXPECT_FALSE(test, sroce_bth_ackreq(&bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(&bth));
}

static void bth_setters_keep_neighbours_test(struct kunit *test)
{
	struct sroce_bth bth;

	sroce_bth_init(&bth, 0x0a, false, 0, 0xffff, 0x11, 0x22, true);
	sroce_bth_set_fecn(&bth, true);
	sroce_bth_set_becn(&bth, true);
	sroce_bth_set_qpn(&bth, 0xfffffe);
	KUNIT_EXPECT_TRUE(test, sroce_bth_fecn(&bth));
	KUNIT_EXPECT_TRUE(test, sroce_bth_becn(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(&bth), 0xfffffeU);

	sroce_bth_set_psn(&bth, 0x1000005);
	KUNIT_EXPECT_TRUE(test, sroce_bth_ackreq(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(&bth), 5U);
	sroce_bth_set_ackreq(&bth, false);
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(&bth), 5U);
	KUNIT_EXPECT_FALSE(test, sroce_bth_ackreq(&bth));

	sroce_bth_set_fecn(&bth, false);
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(&bth));
	KUNIT_EXPECT_TRUE(test, sroce_bth_becn(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(&bth), 0xfffffeU);
}

static void aeth_test(struct kunit *test)
{
	static const u8 nak_bytes[4] = { 0x62, 0xff, 0xff, 0xff };
	struct sroce_aeth aeth;

	sroce_aeth_set(&aeth, SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS, 0xffffff);
	KUNIT_EXPECT_MEMEQ(test, &aeth, nak_bytes, sizeof(aeth));
	KUNIT_EXPECT_EQ(test, sroce_aeth_syndrome(&aeth), 0x62);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(&aeth), 0xffffffU);

	sroce_aeth_set(&aeth, SROCE_AETH_ACK | 0x1f, 0x1000001);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syndrome(&aeth), 0x1f);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(&aeth), 1U);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syndrome(&aeth) & SROCE_AETH_TYPE_MASK,
			SROCE_AETH_ACK);
}

static void deth_xrceth_test(struct kunit *test)
{
	static const u8 deth_bytes[8] = { 0x80, 0x01, 0x00, 0x00,
					  0x00, 0x00, 0x00, 0x01 };
	struct sroce_xrceth x;
	struct sroce_deth d;

	sroce_deth_set(&d, 0x80010000, 1);
	KUNIT_EXPECT_MEMEQ(test, &d, deth_bytes, sizeof(d));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d.qkey), 0x80010000U);
	KUNIT_EXPECT_EQ(test, sroce_deth_sqpn(&d), 1U);
	sroce_deth_set(&d, 0, 0xff123456);
	KUNIT_EXPECT_EQ(test, sroce_deth_sqpn(&d), 0x123456U);

	sroce_xrceth_set(&x, 0xabcdef);
	KUNIT_EXPECT_EQ(test, sroce_xrceth_srqn(&x), 0xabcdefU);
	KUNIT_EXPECT_EQ(test, ((u8 *)&x)[0], 0);
}

static void reth_atomic_layout_test(struct kunit *test)
{
	static const u8 reth_bytes[16] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x00, 0x00 };
	struct sroce_atomic_eth a = {};
	struct sroce_reth r = {
		.va = cpu_to_be64(0x0102030405060708ULL),
		.rkey = cpu_to_be32(0xdeadbeef),
		.dma_len = cpu_to_be32(0x10000),
	};

	KUNIT_EXPECT_MEMEQ(test, &r, reth_bytes, sizeof(r));
	/* Wire offsets of the atomic ETH fields, IBTA 9.3.4. */
	KUNIT_EXPECT_EQ(test, (u8 *)&a.rkey - (u8 *)&a, 8);
	KUNIT_EXPECT_EQ(test, (u8 *)&a.swap_add - (u8 *)&a, 12);
	KUNIT_EXPECT_EQ(test, (u8 *)&a.compare - (u8 *)&a, 20);
}

/* IBTA 1.5 A19.4.3.1: placement type in bits 3-0, selectivity in 5-4. */
static void feth_test(struct kunit *test)
{
	static const u8 mr_persistent[4] = { 0x00, 0x00, 0x00, 0x12 };
	static const u8 range_both[4] = { 0x00, 0x00, 0x00, 0x03 };
	struct sroce_feth f;

	sroce_feth_set(&f, 2, 1);
	KUNIT_EXPECT_MEMEQ(test, &f, mr_persistent, sizeof(f));
	KUNIT_EXPECT_EQ(test, sroce_feth_plt(&f), 2);
	KUNIT_EXPECT_EQ(test, sroce_feth_sel(&f), 1);
	sroce_feth_set(&f, 3, 0);
	KUNIT_EXPECT_MEMEQ(test, &f, range_both, sizeof(f));
	/* Out-of-range values stay in their field. */
	sroce_feth_set(&f, 0xff, 0xff);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(f.bits), 0x3fU);
	/* Reserved bits received are not read as either field. */
	f.bits = cpu_to_be32(0xffffffc1);
	KUNIT_EXPECT_EQ(test, sroce_feth_plt(&f), 1);
	KUNIT_EXPECT_EQ(test, sroce_feth_sel(&f), 0);
}

static struct kunit_case sroce_wire_cases[] = {
	KUNIT_CASE_PARAM(bth_encode_decode_test, bth_gen_params),
	KUNIT_CASE(bth_fields_truncate_test),
	KUNIT_CASE(bth_setters_keep_neighbours_test),
	KUNIT_CASE(aeth_test),
	KUNIT_CASE(deth_xrceth_test),
	KUNIT_CASE(reth_atomic_layout_test),
	KUNIT_CASE(feth_test),
	{}
};

static struct kunit_suite sroce_wire_suite = {
	.name = "sroce_wire",
	.test_cases = sroce_wire_cases,
};

kunit_test_suite(sroce_wire_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's transport header codecs");
MODULE_LICENSE("GPL");
