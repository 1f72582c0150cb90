// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the ICRC (icrc.c) against packets upstream rdma_rxe put on the
 * wire between two 7.3 guests (scripts/tools/capture-rxe-vectors.sh, then
 * frames-to-c.py): each vector is the packet from its IP header to its
 * ICRC, whose last four bytes are the ICRC rdma_rxe sent, little endian.
 */
#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/gso.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <linux/unaligned.h>

#include "icrc.h"
#include "net.h"
#include "opcode.h"
#include "sroce.h"
#include "sroce_test_skb.h"
#include "wire.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

struct icrc_vector {
	const char *name;
	unsigned int len;
	u8 pkt[128];
};

static const struct icrc_vector icrc_vectors[] = {
	{ "ipv4-send-only", 84, {
		0x45, 0x00, 0x00, 0x54, 0x39, 0xce, 0x40, 0x00, 0x40, 0x11, 0x7c, 0xc7,
		0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02, 0xc1, 0x21, 0x12, 0xb7,
		0x00, 0x40, 0x00, 0x00, 0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
		0x80, 0x9a, 0xb5, 0x16, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b,
		0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b,
		0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b,
		0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0xad, 0xf9, 0xf8, 0xca,
	} },
	{ "ipv4-ack", 48, {
		0x45, 0x00, 0x00, 0x30, 0xf4, 0xa6, 0x40, 0x00, 0x40, 0x11, 0xc2, 0x12,
		0xc0, 0x00, 0x02, 0x02, 0xc0, 0x00, 0x02, 0x01, 0xc1, 0x21, 0x12, 0xb7,
		0x00, 0x1c, 0x00, 0x00, 0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
		0x00, 0x9a, 0xb5, 0x16, 0x1f, 0x00, 0x00, 0x01, 0xed, 0x63, 0x13, 0x22,
	} },
	{ "ipv6-send-only", 104, {
		0x60, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x02, 0xc1, 0x44, 0x12, 0xb7, 0x00, 0x40, 0x00, 0x00,
		0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x12, 0x80, 0x32, 0x63, 0xa2,
		0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b,
		0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b,
		0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b,
		0x7b, 0x7b, 0x7b, 0x7b, 0xd9, 0xfc, 0xc0, 0x7a,
	} },
	{ "ipv6-ack", 68, {
		0x60, 0x00, 0x00, 0x00, 0x00, 0x1c, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
		0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x01, 0xc1, 0x44, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00,
		0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x12, 0x00, 0x32, 0x63, 0xa2,
		0x1f, 0x00, 0x00, 0x01, 0x6a, 0x45, 0x39, 0x9d,
	} },
	{ "ipv4-read-request", 60, {
		0x45, 0x00, 0x00, 0x3c, 0x3a, 0xf1, 0x40, 0x00, 0x40, 0x11, 0x7b, 0xbc,
		0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02, 0xc1, 0x69, 0x12, 0xb7,
		0x00, 0x28, 0x00, 0x00, 0x0c, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x13,
		0x80, 0x6b, 0xc9, 0xc4, 0x00, 0x00, 0x55, 0x7a, 0x3d, 0x4b, 0xd0, 0x00,
		0x00, 0x00, 0x04, 0xe0, 0x00, 0x00, 0x00, 0x20, 0x7b, 0x2f, 0xd7, 0x6a,
	} },
	{ "ipv4-read-resp-only", 80, {
		0x45, 0x00, 0x00, 0x50, 0xf8, 0x36, 0x40, 0x00, 0x40, 0x11, 0xbe, 0x62,
		0xc0, 0x00, 0x02, 0x02, 0xc0, 0x00, 0x02, 0x01, 0xc1, 0x69, 0x12, 0xb7,
		0x00, 0x3c, 0x00, 0x00, 0x10, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x13,
		0x00, 0x6b, 0xc9, 0xc4, 0x1f, 0x00, 0x00, 0x01, 0x6d, 0x19, 0x7d, 0x22,
		0xe8, 0xe1, 0x99, 0xaa, 0xc2, 0x8f, 0xff, 0x2b, 0x47, 0xf6, 0x4e, 0x4b,
		0x33, 0xf1, 0xe8, 0xd3, 0x9e, 0x23, 0x12, 0x45, 0x17, 0xcd, 0xa1, 0xc0,
		0x32, 0x9b, 0x39, 0x9f, 0x49, 0x42, 0x23, 0xe7,
	} },
	{ "ipv4-write-only", 92, {
		0x45, 0x00, 0x00, 0x5c, 0xfb, 0xd0, 0x40, 0x00, 0x40, 0x11, 0xba, 0xbc,
		0xc0, 0x00, 0x02, 0x02, 0xc0, 0x00, 0x02, 0x01, 0xc1, 0x90, 0x12, 0xb7,
		0x00, 0x48, 0x00, 0x00, 0x0a, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x14,
		0x80, 0x46, 0x23, 0xf1, 0x00, 0x00, 0x55, 0xfc, 0xe4, 0xcd, 0x90, 0x00,
		0x00, 0x00, 0x05, 0x96, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x01, 0x7c, 0xc0, 0x9e, 0xfa,
	} },
	{ "ipv4-fetch-add", 72, {
		0x45, 0x00, 0x00, 0x48, 0x3e, 0xc1, 0x40, 0x00, 0x40, 0x11, 0x77, 0xe0,
		0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02, 0xc1, 0xb9, 0x12, 0xb7,
		0x00, 0x34, 0x00, 0x00, 0x14, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x15,
		0x80, 0xb4, 0xfe, 0xe8, 0x00, 0x00, 0x55, 0xb3, 0x52, 0xa9, 0x80, 0x00,
		0x00, 0x00, 0x06, 0x34, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xec, 0xdf, 0x24, 0x44,
	} },
	{ "ipv4-atomic-ack", 56, {
		0x45, 0x00, 0x00, 0x38, 0xfd, 0x5d, 0x40, 0x00, 0x40, 0x11, 0xb9, 0x53,
		0xc0, 0x00, 0x02, 0x02, 0xc0, 0x00, 0x02, 0x01, 0xc1, 0xb9, 0x12, 0xb7,
		0x00, 0x24, 0x00, 0x00, 0x12, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x15,
		0x00, 0xb4, 0xfe, 0xe8, 0x1f, 0x00, 0x00, 0x01, 0x5d, 0x24, 0x99, 0x8d,
		0xe2, 0x0d, 0x8c, 0xc7, 0xca, 0xfd, 0x26, 0x47,
	} },
};

static void icrc_vector_desc(const struct icrc_vector *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(icrc, icrc_vectors, icrc_vector_desc);

static void icrc_rxe_vector_test(struct kunit *test)
{
	const struct icrc_vector *v = test->param_value;
	u32 icrc = 0;

	KUNIT_ASSERT_EQ(test, sroce_icrc(v->pkt, v->len - 4, &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, get_unaligned_le32(v->pkt + v->len - 4));
}

/*
 * The same packets with the headers linear and the rest (payload and ICRC)
 * in a page fragment: as received, data at the BTH as the UDP hook leaves
 * it (@sent false); as sroce_net_xmit() sends a packet whose payload is in
 * fragments, data at the IP header (@sent true).
 */
static void icrc_skb_vector_check(struct kunit *test, bool sent)
{
	const struct icrc_vector *v = test->param_value;
	unsigned int iplen = v->pkt[0] >> 4 == 4 ? 20 : 40;
	unsigned int hdr = iplen + 8 + 12;
	struct sk_buff *skb;
	u32 icrc = 0;

	skb = sroce_test_skb_frag(test, v->pkt, v->len, hdr);
	if (!skb)
		return;
	if (!sent)
		__skb_pull(skb, iplen + 8);
	KUNIT_EXPECT_EQ(test, sroce_icrc_skb(skb, &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, get_unaligned_le32(v->pkt + v->len - 4));
	kfree_skb(skb);
}

static void icrc_skb_vector_test(struct kunit *test)
{
	icrc_skb_vector_check(test, false);
}

static void icrc_skb_sent_vector_test(struct kunit *test)
{
	icrc_skb_vector_check(test, true);
}

/*
 * A 9000-byte-MTU sized packet the way a receive path may hand it over:
 * part of the payload linear after the BTH, the rest over two page
 * fragments (one spanning a page boundary of a compound page) and a
 * fragment list whose skb holds the tail and the ICRC. The ICRC over the
 * pieces must be the one over the same bytes laid flat, again after a byte
 * is flipped in each piece in turn (a piece the walk skipped, or the ICRC
 * read as payload, would then tell).
 */
#define ICRC_SCATTER_LEN	8000

static struct sk_buff *icrc_scatter_skb(struct kunit *test, const u8 *pkt)
{
	static const unsigned int cut[] = { 20 + 8 + 12 + 100, 3000, 7000 };
	struct sk_buff *skb, *tail;
	struct page *page;

	skb = alloc_skb(cut[0], GFP_KERNEL);
	tail = alloc_skb(ICRC_SCATTER_LEN - cut[2], GFP_KERNEL);
	page = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
	if (!skb || !tail || !page) {
		kfree_skb(skb);
		kfree_skb(tail);
		if (page)
			__free_pages(page, 1);
		KUNIT_FAIL(test, "no memory");
		return NULL;
	}
	skb_put_data(skb, pkt, cut[0]);
	skb_reset_network_header(skb);
	/* Both fragments in one two-page compound page: one reference each. */
	memcpy(page_address(page) + 10, pkt + cut[0], cut[1] - cut[0]);
	memcpy(page_address(page) + 10 + cut[1] - cut[0], pkt + cut[1],
	       cut[2] - cut[1]);
	get_page(page);
	skb_add_rx_frag(skb, 0, page, 10, cut[1] - cut[0], cut[1] - cut[0]);
	skb_add_rx_frag(skb, 1, page, 10 + cut[1] - cut[0], cut[2] - cut[1],
			cut[2] - cut[1]);
	skb_put_data(tail, pkt + cut[2], ICRC_SCATTER_LEN - cut[2]);
	skb_shinfo(skb)->frag_list = tail;
	skb->len += tail->len;
	skb->data_len += tail->len;
	skb->truesize += tail->truesize;
	__skb_pull(skb, 20 + 8);
	return skb;
}

static void icrc_skb_scattered_test(struct kunit *test)
{
	static const unsigned int flip[] = { 20 + 8 + 12 + 50, 2000, 6500,
					     ICRC_SCATTER_LEN - 5 };
	const struct icrc_vector *v = &icrc_vectors[0];
	u8 *pkt = kunit_kmalloc(test, ICRC_SCATTER_LEN, GFP_KERNEL);
	struct sk_buff *skb;
	unsigned int i;
	u32 want, got;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	/* The IPv4 SEND_ONLY's headers, lengths made to fit, then a pattern. */
	memcpy(pkt, v->pkt, 20 + 8 + 12);
	put_unaligned_be16(ICRC_SCATTER_LEN, pkt + 2);
	put_unaligned_be16(ICRC_SCATTER_LEN - 20, pkt + 24);
	for (i = 20 + 8 + 12; i < ICRC_SCATTER_LEN; i++)
		pkt[i] = i * 7 + (i >> 8);
	for (i = 0; i <= ARRAY_SIZE(flip); i++) {
		if (i)
			pkt[flip[i - 1]] ^= 0x10;
		KUNIT_ASSERT_EQ(test, sroce_icrc(pkt, ICRC_SCATTER_LEN - 4, &want), 0);
		skb = icrc_scatter_skb(test, pkt);
		if (!skb)
			return;
		KUNIT_EXPECT_EQ_MSG(test, sroce_icrc_skb(skb, &got), 0, "flip %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got, want, "flip %u", i);
		kfree_skb(skb);
	}
}

/*
 * The trailers of many packets at once (sroce_net_put_trailer(): the pad
 * and the ICRC's room in a fragment of the page-fragment cache) each keep
 * their own bytes: the pad zeroed, and an ICRC written through one skb
 * read back from it alone. The cache's pages are compound; a fragment
 * that named its subpage offset from the head page once made trailers
 * 4 KiB apart share bytes, and packets held in a queue (netem delay) went
 * out with another packet's ICRC. 256 trailers span several subpages.
 */
#define ICRC_TRAILERS	256

static void icrc_trailer_test(struct kunit *test)
{
	struct sk_buff **skbs = kunit_kcalloc(test, ICRC_TRAILERS, sizeof(*skbs),
					      GFP_KERNEL);
	u8 got[3 + SROCE_ICRC_BYTES];
	unsigned int i, pad, n;
	__le32 v;

	KUNIT_ASSERT_NOT_NULL(test, skbs);
	for (n = 0; n < ICRC_TRAILERS; n++) {
		skbs[n] = alloc_skb(32, GFP_KERNEL);
		if (!skbs[n]) {
			KUNIT_FAIL(test, "no skb");
			break;
		}
		skb_put_zero(skbs[n], 16);
		pad = n & 3;
		KUNIT_EXPECT_EQ(test, sroce_net_put_trailer(skbs[n], pad), 0);
		KUNIT_EXPECT_EQ(test, skbs[n]->len, 16 + pad + SROCE_ICRC_BYTES);
		v = cpu_to_le32(0x5a000000 | n);
		KUNIT_EXPECT_EQ(test, skb_store_bits(skbs[n], skbs[n]->len - sizeof(v),
						     &v, sizeof(v)), 0);
	}
	for (i = 0; i < n; i++) {
		pad = i & 3;
		KUNIT_EXPECT_EQ(test, skb_copy_bits(skbs[i], 16, got,
						    pad + SROCE_ICRC_BYTES), 0);
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(got, 0, pad), "skb %u", i);
		KUNIT_EXPECT_EQ_MSG(test, get_unaligned_le32(got + pad),
				    0x5a000000 | i, "skb %u", i);
		kfree_skb(skbs[i]);
	}
}

/* Offsets in the IPv4 vector: TOS, TTL, IP checksum, UDP checksum, FECN. */
static const unsigned int ipv4_variant[] = { 1, 8, 10, 11, 26, 27, 32 };
/* IPv6: traffic class and flow label, hop limit, UDP checksum, FECN. */
static const unsigned int ipv6_variant[] = { 0, 1, 2, 3, 7, 46, 47, 52 };

static void icrc_ignores_variant_fields_test(struct kunit *test)
{
	const struct icrc_vector *v4 = &icrc_vectors[0], *v6 = &icrc_vectors[2];
	u8 *pkt = kunit_kmalloc(test, sizeof(v4->pkt), GFP_KERNEL);
	u32 want, got;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	want = get_unaligned_le32(v4->pkt + v4->len - 4);
	for (i = 0; i < ARRAY_SIZE(ipv4_variant); i++) {
		memcpy(pkt, v4->pkt, v4->len);
		pkt[ipv4_variant[i]] ^= 0x5a;
		KUNIT_ASSERT_EQ(test, sroce_icrc(pkt, v4->len - 4, &got), 0);
		KUNIT_EXPECT_EQ_MSG(test, got, want, "IPv4 byte %u", ipv4_variant[i]);
	}
	want = get_unaligned_le32(v6->pkt + v6->len - 4);
	for (i = 0; i < ARRAY_SIZE(ipv6_variant); i++) {
		memcpy(pkt, v6->pkt, v6->len);
		/* Keep the IP version nibble: only the rest is variant. */
		pkt[ipv6_variant[i]] ^= ipv6_variant[i] ? 0x5a : 0x05;
		KUNIT_ASSERT_EQ(test, sroce_icrc(pkt, v6->len - 4, &got), 0);
		KUNIT_EXPECT_EQ_MSG(test, got, want, "IPv6 byte %u", ipv6_variant[i]);
	}
}

static void icrc_covers_invariant_bytes_test(struct kunit *test)
{
	const struct icrc_vector *v = &icrc_vectors[0];
	u8 *pkt = kunit_kmalloc(test, sizeof(v->pkt), GFP_KERNEL);
	u32 want = get_unaligned_le32(v->pkt + v->len - 4), got;
	unsigned int i, j;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	for (i = 0; i < v->len - 4; i++) {
		bool variant = false;

		for (j = 0; j < ARRAY_SIZE(ipv4_variant); j++)
			variant |= ipv4_variant[j] == i;
		if (variant)
			continue;
		memcpy(pkt, v->pkt, v->len);
		pkt[i] ^= 0x01;
		/* A flipped version nibble may make it not IPv4 at all. */
		if (sroce_icrc(pkt, v->len - 4, &got))
			continue;
		KUNIT_EXPECT_NE_MSG(test, got, want, "byte %u", i);
	}
}

/*
 * rdma_rxe's FLUSH ICRC covers the transport headers twice, the second
 * time as they are: the IBTA ICRC of the packet followed by those 32
 * bytes again (the second copy is not masked, being "payload").
 */
static void icrc_rxe_flush_test(struct kunit *test)
{
	const unsigned int hdrs = 20 + 8, tr = 12 + 4 + 16;
	u8 *pkt = kunit_kzalloc(test, 2 * (hdrs + tr), GFP_KERNEL);
	u32 ibta, twice, rxe;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	pkt[0] = 0x45;					/* IPv4, no options */
	pkt[9] = IPPROTO_UDP;
	pkt[hdrs] = SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_FLUSH);
	pkt[hdrs + 4] = 0x80;				/* FECN: masked once */
	pkt[hdrs + 15] = 0x11;				/* FETH: MR, global */
	pkt[hdrs + 20] = 0x12;				/* RETH va, rkey */
	pkt[hdrs + 31] = 0x34;
	memcpy(pkt + hdrs + tr, pkt + hdrs, tr);
	KUNIT_ASSERT_EQ(test, sroce_icrc(pkt, hdrs + tr, &ibta), 0);
	KUNIT_ASSERT_EQ(test, sroce_icrc(pkt, hdrs + 2 * tr, &twice), 0);
	rxe = sroce_icrc_rxe_flush(ibta, pkt + hdrs, tr);
	KUNIT_EXPECT_EQ(test, rxe, twice);
	KUNIT_EXPECT_NE(test, rxe, ibta);
	/* The second copy's FECN byte is covered as it is. */
	pkt[hdrs + 4] = 0;
	KUNIT_EXPECT_NE(test, sroce_icrc_rxe_flush(ibta, pkt + hdrs, tr), rxe);
}

static void icrc_rejects_malformed_test(struct kunit *test)
{
	const struct icrc_vector *v = &icrc_vectors[0];
	u8 *pkt = kunit_kmalloc(test, sizeof(v->pkt), GFP_KERNEL);
	u32 got;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	memcpy(pkt, v->pkt, v->len);
	/* Too short for IP + UDP + BTH. */
	KUNIT_EXPECT_EQ(test, sroce_icrc(pkt, 20 + 8 + 11, &got), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_icrc(pkt, 3, &got), -EINVAL);
	/* IPv4 with options. */
	pkt[0] = 0x46;
	KUNIT_EXPECT_EQ(test, sroce_icrc(pkt, v->len - 4, &got), -EINVAL);
	/* Neither IPv4 nor IPv6. */
	pkt[0] = 0x55;
	KUNIT_EXPECT_EQ(test, sroce_icrc(pkt, v->len - 4, &got), -EINVAL);
	/* Exactly the headers is enough. */
	memcpy(pkt, v->pkt, v->len);
	KUNIT_EXPECT_EQ(test, sroce_icrc(pkt, 20 + 8 + 12, &got), 0);
}

/*
 * The table CRC (sroce_crc32_table()) against the CRC-32 check value,
 * then against the kernel's crc32_le(), whichever of the two the module
 * chose for the ICRC: every length to 64 bytes from every alignment to
 * eight (its sixteen-byte steps and the bytes left after them), and some
 * longer runs, each from a random running CRC.
 */
static void icrc_table_crc_test(struct kunit *test)
{
	static const size_t longs[] = { 255, 256, 1021, 4096 };
	u8 *buf = kunit_kmalloc(test, 4096 + 8, GFP_KERNEL);
	size_t off, len, i;
	u32 seed;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, ~sroce_crc32_table(~0U, (const u8 *)"123456789", 9),
			0xcbf43926);
	KUNIT_EXPECT_EQ(test, sroce_crc32_table(0x1234, buf, 0), 0x1234);
	get_random_bytes(buf, 4096 + 8);
	for (off = 0; off < 8; off++) {
		for (len = 0; len <= 64; len++) {
			seed = get_random_u32();
			KUNIT_EXPECT_EQ_MSG(test, sroce_crc32_table(seed, buf + off, len),
					    crc32_le(seed, buf + off, len),
					    "offset %zu, %zu bytes", off, len);
		}
		for (i = 0; i < ARRAY_SIZE(longs); i++) {
			seed = get_random_u32();
			KUNIT_EXPECT_EQ_MSG(test, sroce_crc32_table(seed, buf + off, longs[i]),
					    crc32_le(seed, buf + off, longs[i]),
					    "offset %zu, %zu bytes", off, longs[i]);
		}
	}
}

/*
 * A chain (sroce_net_chain()) split as the stack splits it before a NIC
 * without fraglist GSO (skb_gso_segment(), then skb_segment_list()): the
 * packets built, each with the IP ID segmentation gave it, its own BTH,
 * pad and payload, UDP length and zero checksum, and an ICRC that matches
 * those final bytes. The last packet is shorter than the others, as a
 * message's last often is, and the first may be longer, as a READ's
 * FIRST response with its AETH. Its packets linear (the responder's), or
 * with the payload in a page and the ICRC in a trailer fragment (the
 * requester's zero copy), segmented for a NIC that takes fragments; a
 * few short packets, or as many full ones as the engines chain, more
 * than 64 KiB in all.
 */
#define CHAIN_MAX	32

struct icrc_chain_case {
	const char *name;
	bool paged;
	unsigned int pkts;
	u32 first_pay;
	u32 pay;
	u32 last_pay;
};

static const struct icrc_chain_case icrc_chain_cases[] = {
	{ "linear", false, 3, 256, 256, 250 },
	{ "paged", true, 3, 256, 256, 250 },
	{ "linear, 32 of 4 KiB", false, CHAIN_MAX, 4100, 4096, 4090 },
	{ "paged, 32 of 4 KiB", true, CHAIN_MAX, 4096, 4092, 4090 },
};

/* The payload of packet @i of the chain of @c. */
static u32 icrc_chain_pay(const struct icrc_chain_case *c, unsigned int i)
{
	if (!i)
		return c->first_pay;
	return i < c->pkts - 1 ? c->pay : c->last_pay;
}

static void icrc_chain_desc(const struct icrc_chain_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(icrc_chain, icrc_chain_cases, icrc_chain_desc);

/* Packet @i of the chain: BTH, @pay bytes of 0xa0 + @i, @pad zeros. */
static struct sk_buff *icrc_chain_pkt(struct kunit *test, struct sroce_dev *sdev,
				      bool paged, unsigned int i, u32 pay, u32 pad)
{
	struct sk_buff *skb;
	struct page *page;
	int err;

	skb = sroce_net_alloc_skb(sdev, sizeof(struct sroce_bth) +
				  (paged ? 0 : pay + pad));
	KUNIT_ASSERT_NOT_NULL(test, skb);
	sroce_bth_init(skb_put(skb, sizeof(struct sroce_bth)),
		       SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_WRITE_MIDDLE),
		       false, pad, SROCE_PKEY_DEFAULT, 0x11, 100 + i, false);
	if (!paged) {
		memset(skb_put(skb, pay), 0xa0 + i, pay);
		skb_put_zero(skb, pad);
		return skb;
	}
	page = alloc_page(GFP_KERNEL);
	if (!page)
		kfree_skb(skb);
	KUNIT_ASSERT_NOT_NULL(test, page);
	memset(page_address(page), 0xa0 + i, pay);
	skb_fill_page_desc(skb, 0, page, 0, pay);
	skb_len_add(skb, pay);
	err = sroce_net_put_trailer(skb, pad);
	if (err)
		kfree_skb(skb);
	KUNIT_ASSERT_EQ(test, err, 0);
	return skb;
}

static void icrc_chain_segments_test(struct kunit *test)
{
	const struct icrc_chain_case *c = test->param_value;
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	struct sroce_path path = { .hop_limit = 64, .sport = htons(49153) };
	unsigned int hdrs = sizeof(struct sroce_bth) + SROCE_ICRC_BYTES;
	struct sk_buff *pkts[CHAIN_MAX], *head, *segs, *skb, *next;
	unsigned int i, n = 0, total = 0;
	const struct sroce_bth *bth;
	struct iphdr *ip4;
	struct udphdr *uh;
	u32 icrc, pay;
	u16 id;

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	sdev->ndev = init_net.loopback_dev;
	ipv6_addr_set_v4mapped(htonl(0xc0000201), &path.saddr);
	ipv6_addr_set_v4mapped(htonl(0xc0000202), &path.daddr);
	for (i = 0; i < c->pkts; i++) {
		pay = icrc_chain_pay(c, i);
		pkts[i] = icrc_chain_pkt(test, sdev, c->paged, i, pay, -pay & 3);
		total += hdrs + ALIGN(pay, 4);
	}
	head = sroce_net_chain(sdev, &path, pkts, c->pkts);
	KUNIT_EXPECT_EQ(test, skb_shinfo(head)->gso_size, hdrs + c->first_pay);
	KUNIT_EXPECT_EQ(test, head->len, sizeof(*ip4) + sizeof(*uh) + total);
	id = ntohs(ip_hdr(head)->id);

	/* What the stack adds before the NIC: an Ethernet header. */
	memset(skb_push(head, ETH_HLEN), 0, ETH_HLEN);
	skb_reset_mac_header(head);
	segs = skb_gso_segment(head, c->paged ? NETIF_F_SG : 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(segs));
	/* As validate_xmit_skb(): the first packet is the head, referenced again. */
	consume_skb(head);
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		KUNIT_EXPECT_EQ_MSG(test, skb_is_nonlinear(skb), c->paged,
				    "packet %u", n);
		if (skb_linearize(skb)) {
			KUNIT_FAIL(test, "packet %u: cannot linearize", n);
			kfree_skb(skb);
			continue;
		}
		pay = icrc_chain_pay(c, n);
		ip4 = ip_hdr(skb);
		uh = udp_hdr(skb);
		bth = (const void *)(uh + 1);
		KUNIT_EXPECT_EQ_MSG(test, ntohs(ip4->id), (u16)(id + n), "packet %u", n);
		KUNIT_EXPECT_EQ(test, ntohs(ip4->tot_len),
				sizeof(*ip4) + sizeof(*uh) + hdrs + ALIGN(pay, 4));
		KUNIT_EXPECT_EQ(test, ntohs(uh->len), sizeof(*uh) + hdrs + ALIGN(pay, 4));
		KUNIT_EXPECT_EQ(test, uh->check, 0);
		KUNIT_EXPECT_EQ(test, sroce_bth_psn(bth), 100 + n);
		KUNIT_EXPECT_EQ(test, ((const u8 *)(bth + 1))[pay - 1], 0xa0 + n);
		KUNIT_EXPECT_EQ(test, ((const u8 *)(bth + 1))[ALIGN(pay, 4) - 1],
				pay & 3 ? 0 : 0xa0 + n);
		KUNIT_EXPECT_EQ(test, sroce_icrc((const u8 *)ip4, ntohs(ip4->tot_len) -
						 SROCE_ICRC_BYTES, &icrc), 0);
		KUNIT_EXPECT_EQ_MSG(test, icrc, get_unaligned_le32((const u8 *)ip4 +
				    ntohs(ip4->tot_len) - SROCE_ICRC_BYTES),
				    "packet %u", n);
		kfree_skb(skb);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, c->pkts);
}

/* @skb was given, from the pool when there is one, with @room and the ICRC. */
static bool alloc_fits(struct kunit *test, struct sk_buff *skb,
		       unsigned int room, unsigned int pool)
{
	KUNIT_EXPECT_NOT_NULL(test, skb);
	if (!skb)
		return false;
	KUNIT_EXPECT_EQ(test, (unsigned int)skb->pp_recycle, pool);
	KUNIT_EXPECT_GE(test, skb_tailroom(skb), room + SROCE_ICRC_BYTES);
	return true;
}

/*
 * Packets in pages of the device's pool (sroce_net_alloc_skb_reuse()),
 * without a pool and with one: linear, the headroom and the room asked
 * for (the ICRC's included), marked for their page to go back to the
 * pool; one with a path MTU of 1024's payload in a page too, charged the
 * whole page; one too long for the pool's page from alloc_skb() instead;
 * a short one (an ACK's headers) and one of path MTU 1024 from pieces of
 * the second pool's pages (sroce_net_alloc_skb()), charged no more than
 * kmalloc() would. A packet freed after the pool is gone returns its
 * page to the kernel (KASAN and kmemleak watch that on the debug kernel).
 */
static void net_alloc_reuse_test(struct kunit *test)
{
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	const size_t shinfo = sizeof(struct skb_shared_info);
	struct sk_buff *skb, *big, *small, *tiny;
	unsigned int pool;

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	sdev->ndev = init_net.loopback_dev;
	for (pool = 0; pool < 2; pool++) {
		if (pool)
			KUNIT_ASSERT_EQ(test, sroce_net_pages_init(sdev), 0);
		KUNIT_EXPECT_EQ(test, !!sdev->tx_pages, pool);
		skb = sroce_net_alloc_skb_reuse(sdev, 4096 + 16);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ(test, skb->len, 0);
		KUNIT_EXPECT_FALSE(test, skb_is_nonlinear(skb));
		KUNIT_EXPECT_GE(test, skb_headroom(skb), sizeof(struct iphdr) +
				sizeof(struct udphdr) + ETH_HLEN);
		KUNIT_EXPECT_GE(test, skb_tailroom(skb), 4096 + 16 + SROCE_ICRC_BYTES);
		KUNIT_EXPECT_EQ(test, (unsigned int)skb->pp_recycle, pool);
		KUNIT_EXPECT_EQ(test, (unsigned int)skb->head_frag, pool);
		memset(skb_put(skb, 4096 + 16), 0x5a, 4096 + 16);
		big = sroce_net_alloc_skb_reuse(sdev, 3 * PAGE_SIZE);
		KUNIT_EXPECT_NOT_NULL(test, big);
		if (big) {
			KUNIT_EXPECT_FALSE(test, big->pp_recycle);
			KUNIT_EXPECT_GE(test, skb_tailroom(big), 3 * PAGE_SIZE);
			kfree_skb(big);
		}
		small = sroce_net_alloc_skb_reuse(sdev, 1024 + 16);
		if (alloc_fits(test, small, 1024 + 16, pool)) {
			if (pool)
				KUNIT_EXPECT_GE(test, small->truesize, 2 * PAGE_SIZE);
			else
				KUNIT_EXPECT_LT(test, small->truesize, PAGE_SIZE);
			kfree_skb(small);
		}
		/* Headers alone: a 512-byte piece of a pool page, or kmalloc. */
		tiny = sroce_net_alloc_skb_reuse(sdev, 12 + 4);
		if (alloc_fits(test, tiny, 12 + 4, pool)) {
			KUNIT_EXPECT_EQ(test, (unsigned int)tiny->head_frag, pool);
			KUNIT_EXPECT_LT(test, tiny->truesize, 1024U);
			kfree_skb(tiny);
		}
		/* A path MTU 1024 packet: a 2 KiB piece, charged as kmalloc's. */
		small = sroce_net_alloc_skb(sdev, 1024 + 28);
		if (alloc_fits(test, small, 1024 + 28, pool)) {
			KUNIT_EXPECT_LE(test, small->truesize,
					SKB_TRUESIZE(SZ_2K - SKB_DATA_ALIGN(shinfo)));
			kfree_skb(small);
		}
		if (pool)
			sroce_net_pages_free(sdev);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_NULL(test, sdev->tx_pages);
}

/*
 * A datagram as it reaches GRO: IPv4 (ID @id), UDP to port 4791 with no
 * checksum, then @plen bytes of a pattern from @seed standing for the BTH
 * on. Its data starts at the IP header.
 */
static struct sk_buff *gro_datagram(struct kunit *test, u16 id,
				    unsigned int plen, u8 seed)
{
	unsigned int i, len = sizeof(struct iphdr) + sizeof(struct udphdr) + plen;
	struct sk_buff *skb = alloc_skb(64 + len, GFP_KERNEL);
	struct udphdr *uh;
	struct iphdr *iph;
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 64);
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(len);
	iph->id = htons(id);
	iph->frag_off = htons(IP_DF);
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = htonl(0xc0000201);
	iph->daddr = htonl(0xc0000202);
	ip_send_check(iph);
	skb_set_transport_header(skb, sizeof(*iph));
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(49152);
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(sizeof(*uh) + plen);
	p = skb_put(skb, plen);
	for (i = 0; i < plen; i++)
		p[i] = seed + i;
	skb->protocol = htons(ETH_P_IP);
	skb->dev = init_net.loopback_dev;
	return skb;
}

/*
 * What GRO and the IP and UDP layers make of @n datagrams of one flow
 * (gro.c): the first from its UDP header on, the others hung off its
 * frag_list from their BTH on, the first's IP and UDP lengths covering
 * them all, a UDP tunnel GSO skb.
 */
static struct sk_buff *gro_list(struct kunit *test, struct sk_buff **d,
				unsigned int n)
{
	struct sk_buff *head = d[0], **tail = &skb_shinfo(head)->frag_list;
	struct iphdr *iph = ip_hdr(head);
	unsigned int i;

	for (i = 1; i < n; i++) {
		skb_set_network_header(d[i], 0);
		skb_set_transport_header(d[i], sizeof(struct iphdr));
		__skb_pull(d[i], sizeof(struct iphdr) + sizeof(struct udphdr));
		*tail = d[i];
		tail = &d[i]->next;
		head->len += d[i]->len;
		head->data_len += d[i]->len;
		head->truesize += d[i]->truesize;
	}
	csum_replace2(&iph->check, iph->tot_len, htons(head->len));
	iph->tot_len = htons(head->len);
	__skb_pull(head, sizeof(*iph));
	udp_hdr(head)->len = htons(head->len);
	skb_shinfo(head)->gso_size = 100;
	skb_shinfo(head)->gso_segs = n;
	skb_shinfo(head)->gso_type = SKB_GSO_UDP_TUNNEL;
	return head;
}

/*
 * sroce_gro_split() gives back the first datagram with its own lengths
 * (and a valid IP checksum) and the others in order, each with its own
 * headers and ID; one that is not a whole datagram of the flow (a wrong IP
 * length, another source) is dropped and counted; an skb with a frag_list
 * that is not GRO's (IP reassembly's) is left as it is.
 */
static void gro_split_test(struct kunit *test)
{
	static const unsigned int plen[] = { 1040, 1036, 1036, 1028, 1036 };
	struct sk_buff *d[ARRAY_SIZE(plen)], *head, *list, *m;
	unsigned int bad, i, n, truesize;

	for (i = 0; i < ARRAY_SIZE(plen); i++)
		d[i] = gro_datagram(test, 100 + i, plen[i], i);
	truesize = d[0]->truesize;
	/* The third's IP length is one short; the fifth is from elsewhere. */
	ip_hdr(d[2])->tot_len = htons(ntohs(ip_hdr(d[2])->tot_len) - 1);
	ip_hdr(d[4])->saddr = htonl(0xc0000203);
	head = gro_list(test, d, ARRAY_SIZE(plen));

	list = sroce_gro_split(head, &bad);
	KUNIT_EXPECT_EQ(test, bad, 2);
	KUNIT_EXPECT_EQ(test, head->len, sizeof(struct udphdr) + plen[0]);
	KUNIT_EXPECT_EQ(test, head->data_len, 0);
	KUNIT_EXPECT_FALSE(test, skb_has_frag_list(head));
	KUNIT_EXPECT_FALSE(test, skb_is_gso(head));
	KUNIT_EXPECT_EQ(test, ntohs(ip_hdr(head)->tot_len),
			sizeof(struct iphdr) + sizeof(struct udphdr) + plen[0]);
	KUNIT_EXPECT_EQ(test, ntohs(udp_hdr(head)->len),
			sizeof(struct udphdr) + plen[0]);
	KUNIT_EXPECT_EQ(test, ip_fast_csum(ip_hdr(head), 5), 0);
	KUNIT_EXPECT_EQ(test, head->truesize, truesize);
	n = 0;
	for (m = list; m; m = m->next, n++) {
		i = n ? 3 : 1;	/* d[2] and d[4] were dropped */
		KUNIT_EXPECT_PTR_EQ(test, m, d[i]);
		KUNIT_EXPECT_EQ(test, m->len, plen[i]);
		KUNIT_EXPECT_EQ(test, m->data[0], (u8)i);
		KUNIT_EXPECT_EQ(test, ntohs(ip_hdr(m)->id), 100 + i);
		KUNIT_EXPECT_PTR_EQ(test, (u8 *)udp_hdr(m),
				    m->data - sizeof(struct udphdr));
		KUNIT_EXPECT_PTR_EQ(test, m->dev, head->dev);
	}
	KUNIT_EXPECT_EQ(test, n, 2);
	kfree_skb_list(list);
	kfree_skb(head);

	/* Reassembled fragments: a frag_list, no GSO. */
	d[0] = gro_datagram(test, 7, 600, 0);
	d[1] = gro_datagram(test, 7, 600, 1);
	head = gro_list(test, d, 2);
	skb_shinfo(head)->gso_size = 0;
	skb_shinfo(head)->gso_type = 0;
	n = head->len;
	KUNIT_EXPECT_NULL(test, sroce_gro_split(head, &bad));
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, head->len, n);
	KUNIT_EXPECT_PTR_EQ(test, skb_shinfo(head)->frag_list, d[1]);
	kfree_skb(head);
}

static struct kunit_case sroce_icrc_cases[] = {
	KUNIT_CASE_PARAM(icrc_rxe_vector_test, icrc_gen_params),
	KUNIT_CASE_PARAM(icrc_skb_vector_test, icrc_gen_params),
	KUNIT_CASE_PARAM(icrc_skb_sent_vector_test, icrc_gen_params),
	KUNIT_CASE(icrc_skb_scattered_test),
	KUNIT_CASE(icrc_trailer_test),
	KUNIT_CASE(icrc_ignores_variant_fields_test),
	KUNIT_CASE(icrc_covers_invariant_bytes_test),
	KUNIT_CASE(icrc_rejects_malformed_test),
	KUNIT_CASE(icrc_rxe_flush_test),
	KUNIT_CASE(icrc_table_crc_test),
	KUNIT_CASE_PARAM(icrc_chain_segments_test, icrc_chain_gen_params),
	KUNIT_CASE(net_alloc_reuse_test),
	KUNIT_CASE(gro_split_test),
	{}
};

static struct kunit_suite sroce_icrc_suite = {
	.name = "sroce_icrc",
	.test_cases = sroce_icrc_cases,
};

kunit_test_suite(sroce_icrc_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's ICRC against rdma_rxe's packets");
MODULE_LICENSE("GPL");
