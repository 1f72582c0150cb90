// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: RoCE v1 framing (IBTA annex A16) and its ICRC (icrc.c). The
 * vector is a UD SEND_ONLY packet from its GRH to its ICRC, the ICRC
 * computed apart from the driver (Python's zlib.crc32 over eight 0xff
 * bytes, the GRH with TClass, FlowLabel and HopLmt set to ones, the BTH
 * with its FECN/BECN byte set to ones, then the rest), little endian.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/skbuff.h>
#include <linux/unaligned.h>
#include <rdma/ib_verbs.h>

#include "icrc.h"
#include "net.h"
#include "sroce_test_skb.h"
#include "wire.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

/* TClass 0x28, FlowLabel 0x12345, HopLmt 1, fe80::250:56ff:fe00:1 to :2. */
static const u8 v1_pkt[] = {
	0x62, 0x81, 0x23, 0x45, 0x00, 0x38, 0x1b, 0x01, 0xfe, 0x80, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x50, 0x56, 0xff, 0xfe, 0x00, 0x00, 0x01,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x50, 0x56, 0xff,
	0xfe, 0x00, 0x00, 0x02, 0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x00, 0x12, 0x34, 0x56, 0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x12,
	0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
	0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
	0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0xf0, 0xd1, 0x87, 0xa5,
};

#define V1_LEN		(sizeof(v1_pkt) - SROCE_ICRC_BYTES)
#define V1_ICRC		get_unaligned_le32(v1_pkt + V1_LEN)
/* GRH and BTH: what sroce_icrc_skb() wants linear. */
#define V1_HDRS		(SROCE_GRH_BYTES + sizeof(struct sroce_bth))

static void v1_icrc_vector_test(struct kunit *test)
{
	u32 icrc = 0;

	KUNIT_ASSERT_EQ(test, sroce_icrc_v1(v1_pkt, V1_LEN, &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, V1_ICRC);
}

/* The GRH's layout is struct ib_grh's, and its fields are where A16 says. */
static void v1_grh_layout_test(struct kunit *test)
{
	const struct ib_grh *grh = (const struct ib_grh *)v1_pkt;
	u32 vtf = be32_to_cpu(grh->version_tclass_flow);

	KUNIT_EXPECT_EQ(test, vtf >> 28, SROCE_GRH_IPVER);
	KUNIT_EXPECT_EQ(test, (vtf >> 20) & 0xff, 0x28);
	KUNIT_EXPECT_EQ(test, vtf & 0xfffff, 0x12345);
	KUNIT_EXPECT_EQ(test, grh->next_hdr, SROCE_GRH_NEXT_HDR);
	/* PayLen: BTH to the end of the ICRC. */
	KUNIT_EXPECT_EQ(test, be16_to_cpu(grh->paylen),
			sizeof(v1_pkt) - SROCE_GRH_BYTES);
}

/* TClass, FlowLabel, HopLmt and the BTH's FECN/BECN byte are variant. */
static void v1_icrc_variant_test(struct kunit *test)
{
	static const unsigned int at[] = { 0, 1, 2, 3, 7, SROCE_GRH_BYTES +
					   SROCE_BTH_VARIANT_BYTE };
	u8 pkt[sizeof(v1_pkt)];
	unsigned int i;
	u32 icrc = 0;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		memcpy(pkt, v1_pkt, sizeof(pkt));
		/* Byte 0's high nibble is IPVer: only its TClass half. */
		pkt[at[i]] ^= at[i] ? 0xff : 0x0f;
		KUNIT_ASSERT_EQ(test, sroce_icrc_v1(pkt, V1_LEN, &icrc), 0);
		KUNIT_EXPECT_EQ_MSG(test, icrc, V1_ICRC, "byte %u", at[i]);
	}
}

/* Everything else is covered: PayLen, NxtHdr, the GIDs, BTH, payload. */
static void v1_icrc_invariant_test(struct kunit *test)
{
	static const unsigned int at[] = { 4, 5, 6, 8, 23, 24, 39, 40, 42,
					   45, 52, V1_LEN - 1 };
	u8 pkt[sizeof(v1_pkt)];
	unsigned int i;
	u32 icrc = 0;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		memcpy(pkt, v1_pkt, sizeof(pkt));
		pkt[at[i]] ^= 0x01;
		KUNIT_ASSERT_EQ(test, sroce_icrc_v1(pkt, V1_LEN, &icrc), 0);
		KUNIT_EXPECT_NE_MSG(test, icrc, V1_ICRC, "byte %u", at[i]);
	}
}

/* No UDP header in RoCE v1: read as RoCEv2 the packet has another ICRC. */
static void v1_icrc_not_v2_test(struct kunit *test)
{
	u8 pkt[sizeof(v1_pkt)];
	u32 icrc = 0;

	KUNIT_ASSERT_EQ(test, sroce_icrc(v1_pkt, V1_LEN, &icrc), 0);
	KUNIT_EXPECT_NE(test, icrc, V1_ICRC);
	/* A GRH must say IPVer 6, and a GRH and a BTH must fit. */
	memcpy(pkt, v1_pkt, sizeof(pkt));
	pkt[0] = 0x45;
	KUNIT_EXPECT_EQ(test, sroce_icrc_v1(pkt, V1_LEN, &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_icrc_v1(v1_pkt, V1_HDRS - 1, &icrc), -EINVAL);
}

/*
 * As the receive path has it: ETH_P_IBOE, the GRH at the network header,
 * data at the BTH, the payload and ICRC in a page fragment. With the data
 * at the GRH instead, as v1.c seals a packet it sends: the same ICRC.
 */
static void v1_icrc_skb_check(struct kunit *test, bool at_bth)
{
	struct sk_buff *skb;
	u32 icrc = 0;

	skb = sroce_test_skb_frag(test, v1_pkt, sizeof(v1_pkt), V1_HDRS);
	if (!skb)
		return;
	if (at_bth)
		__skb_pull(skb, SROCE_GRH_BYTES);
	skb->protocol = htons(ETH_P_IBOE);
	KUNIT_EXPECT_EQ(test, sroce_icrc_skb(skb, &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, V1_ICRC);
	/* The same bytes taken for an IPv6 RoCEv2 datagram: not this ICRC. */
	skb->protocol = htons(ETH_P_IPV6);
	if (!sroce_icrc_skb(skb, &icrc))
		KUNIT_EXPECT_NE(test, icrc, V1_ICRC);
	kfree_skb(skb);
}

static void v1_icrc_skb_test(struct kunit *test)
{
	v1_icrc_skb_check(test, true);
}

static void v1_icrc_skb_sent_test(struct kunit *test)
{
	v1_icrc_skb_check(test, false);
}

/* The peer's MAC address comes with the path, for RoCE v1's frames. */
static void v1_path_dmac_test(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	struct rdma_ah_attr av = {};
	struct sroce_path path;
	union ib_gid sgid;

	memcpy(&sgid, v1_pkt + 8, sizeof(sgid));
	av.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_ah_flags(&av, IB_AH_GRH);
	memcpy(av.grh.dgid.raw, v1_pkt + 24, sizeof(av.grh.dgid.raw));
	memcpy(av.roce.dmac, mac, ETH_ALEN);
	sroce_path_from_av(&path, &av, &sgid, 0x11, 0x12);
	KUNIT_EXPECT_MEMEQ(test, path.dmac, mac, ETH_ALEN);
	KUNIT_EXPECT_MEMEQ(test, &path.saddr, v1_pkt + 8, 16);
	KUNIT_EXPECT_MEMEQ(test, &path.daddr, v1_pkt + 24, 16);
}

static struct kunit_case sroce_v1_cases[] = {
	KUNIT_CASE(v1_icrc_vector_test),
	KUNIT_CASE(v1_grh_layout_test),
	KUNIT_CASE(v1_icrc_variant_test),
	KUNIT_CASE(v1_icrc_invariant_test),
	KUNIT_CASE(v1_icrc_not_v2_test),
	KUNIT_CASE(v1_icrc_skb_test),
	KUNIT_CASE(v1_icrc_skb_sent_test),
	KUNIT_CASE(v1_path_dmac_test),
	{}
};

static struct kunit_suite sroce_v1_suite = {
	.name = "sroce_v1",
	.test_cases = sroce_v1_cases,
};

kunit_test_suite(sroce_v1_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's RoCE v1 framing and ICRC");
MODULE_LICENSE("GPL");
