// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the Performance Management Agent (counters.c). What each Get
 * reports from the counters, saturated to its field's width; the status
 * of what it refuses; and the MADs it must leave to other agents.
 */
#include <kunit/test.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "counters.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

#define PMA_PORT	1
#define PMA_DATA	40

static const struct sroce_pma_counts big = {
	.tx_bytes = 4 * (0x100000000ULL + 5),
	.rx_bytes = 4 * 1000 + 3,
	.tx_packets = 0x123456789ULL,
	.rx_packets = 77,
	.tx_discards = 70000,
	.rx_errors = 12,
	.rx_constraint = 300,
	.link_downed = 2,
};

static struct ib_mad *pma_get(struct kunit *test, __be16 attr, u8 port)
{
	struct ib_mad *mad = kunit_kzalloc(test, sizeof(*mad), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mad);
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	mad->mad_hdr.class_version = 1;
	mad->mad_hdr.method = IB_MGMT_METHOD_GET;
	mad->mad_hdr.attr_id = attr;
	mad->mad_hdr.tid = cpu_to_be64(0xabcdef);
	mad->data[PMA_DATA + 1] = port;
	return mad;
}

static struct ib_mad *pma_out(struct kunit *test)
{
	struct ib_mad *out = kunit_kmalloc(test, sizeof(*out), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, out);
	memset(out, 0xa5, sizeof(*out));
	return out;
}

static void expect_reply(struct kunit *test, int ret, const struct ib_mad *in,
			 const struct ib_mad *out, u16 status)
{
	KUNIT_EXPECT_EQ(test, ret, IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, out->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->mad_hdr.status), status);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(out->mad_hdr.tid), 0xabcdefULL);
	KUNIT_EXPECT_EQ(test, out->mad_hdr.attr_id, in->mad_hdr.attr_id);
}

static void port_counters_test(struct kunit *test)
{
	struct ib_mad *in = pma_get(test, IB_PMA_PORT_COUNTERS, PMA_PORT);
	struct ib_mad *out = pma_out(test);
	struct ib_pma_portcounters *p = (void *)(out->data + PMA_DATA);
	int ret = sroce_pma_answer(&big, PMA_PORT, in, out);

	expect_reply(test, ret, in, out, 0);
	KUNIT_EXPECT_EQ(test, p->port_select, PMA_PORT);
	/* 32-bit data and packet counters stop at their largest value. */
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_xmit_data), U32_MAX);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_rcv_data), 1000U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_xmit_packets), U32_MAX);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_rcv_packets), 77U);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->port_xmit_discards), U16_MAX);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->port_rcv_errors), 12);
	KUNIT_EXPECT_EQ(test, p->port_rcv_constraint_errors, U8_MAX);
	KUNIT_EXPECT_EQ(test, p->link_downed_counter, 2);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->symbol_error_counter), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_xmit_wait), 0U);
}

static void port_counters_ext_test(struct kunit *test)
{
	struct ib_mad *in = pma_get(test, IB_PMA_PORT_COUNTERS_EXT, PMA_PORT);
	struct ib_mad *out = pma_out(test);
	struct ib_pma_portcounters_ext *p = (void *)(out->data + PMA_DATA);
	int ret = sroce_pma_answer(&big, PMA_PORT, in, out);

	expect_reply(test, ret, in, out, 0);
	KUNIT_EXPECT_EQ(test, p->port_select, PMA_PORT);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->port_xmit_data), 0x100000005ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->port_rcv_data), 1000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->port_xmit_packets), 0x123456789ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->port_rcv_packets), 77ULL);
	/* No unicast/multicast split: ClassPortInfo says so (NOIETF). */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->port_unicast_xmit_packets), 0ULL);
}

static void class_port_info_test(struct kunit *test)
{
	struct ib_mad *in = pma_get(test, IB_PMA_CLASS_PORT_INFO, 0);
	struct ib_mad *out = pma_out(test);
	struct ib_class_port_info *cpi = (void *)(out->data + PMA_DATA);
	int ret = sroce_pma_answer(&big, PMA_PORT, in, out);

	expect_reply(test, ret, in, out, 0);
	KUNIT_EXPECT_EQ(test, cpi->capability_mask,
			IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF);
	KUNIT_EXPECT_EQ(test, cpi->class_version, 1);
}

static void refused_test(struct kunit *test)
{
	struct ib_mad *in, *out = pma_out(test);
	int ret;

	/* Counters are never reset from the fabric. */
	in = pma_get(test, IB_PMA_PORT_COUNTERS, PMA_PORT);
	in->mad_hdr.method = IB_MGMT_METHOD_SET;
	ret = sroce_pma_answer(&big, PMA_PORT, in, out);
	expect_reply(test, ret, in, out,
		     IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);

	in = pma_get(test, IB_PMA_PORT_COUNTERS, PMA_PORT + 1);
	ret = sroce_pma_answer(&big, PMA_PORT, in, out);
	expect_reply(test, ret, in, out, IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);

	in = pma_get(test, IB_PMA_PORT_SAMPLES_CONTROL, PMA_PORT);
	ret = sroce_pma_answer(&big, PMA_PORT, in, out);
	expect_reply(test, ret, in, out,
		     IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);

	in = pma_get(test, IB_PMA_PORT_COUNTERS_EXT, PMA_PORT);
	in->mad_hdr.class_version = 2;
	ret = sroce_pma_answer(&big, PMA_PORT, in, out);
	expect_reply(test, ret, in, out, IB_MGMT_MAD_STATUS_BAD_VERSION);
}

static void not_ours_test(struct kunit *test)
{
	struct ib_mad *in = pma_get(test, IB_PMA_PORT_COUNTERS, PMA_PORT);
	struct ib_mad *out = pma_out(test);
	struct ib_mad *copy = pma_out(test);

	/* A response to a Get of ours goes on to the agent that sent it. */
	in->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	KUNIT_EXPECT_EQ(test, sroce_pma_answer(&big, PMA_PORT, in, out),
			IB_MAD_RESULT_SUCCESS);
	/* So does every other class: the CM's MADs above all. */
	in->mad_hdr.method = IB_MGMT_METHOD_GET;
	in->mad_hdr.mgmt_class = IB_MGMT_CLASS_CM;
	KUNIT_EXPECT_EQ(test, sroce_pma_answer(&big, PMA_PORT, in, out),
			IB_MAD_RESULT_SUCCESS);
	KUNIT_EXPECT_MEMEQ(test, out, copy, sizeof(*out));
}

static struct kunit_case sroce_counters_cases[] = {
	KUNIT_CASE(port_counters_test),
	KUNIT_CASE(port_counters_ext_test),
	KUNIT_CASE(class_port_info_test),
	KUNIT_CASE(refused_test),
	KUNIT_CASE(not_ours_test),
	{}
};

static struct kunit_suite sroce_counters_suite = {
	.name = "sroce_counters",
	.test_cases = sroce_counters_cases,
};

kunit_test_suite(sroce_counters_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's Performance Management Agent");
MODULE_LICENSE("GPL");
