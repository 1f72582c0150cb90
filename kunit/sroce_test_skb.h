/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit helpers shared by the suites that build packets in skbs.
 */
#ifndef _SROCE_TEST_SKB_H
#define _SROCE_TEST_SKB_H

#include <kunit/test.h>
#include <linux/skbuff.h>

/**
 * sroce_test_skb_frag() - a packet with its headers linear, the rest paged
 * @test: the test, failed when memory runs out
 * @pkt: the packet's bytes
 * @len: how many
 * @hdr: how many of them go into the linear part, the network header at
 *	its start; the others go into one page fragment
 *
 * Return: the skb, its data at the network header, or NULL.
 */
static inline struct sk_buff *sroce_test_skb_frag(struct kunit *test,
						  const u8 *pkt,
						  unsigned int len,
						  unsigned int hdr)
{
	struct sk_buff *skb;
	struct page *page;

	skb = alloc_skb(hdr, GFP_KERNEL);
	page = skb ? alloc_page(GFP_KERNEL) : NULL;
	if (!page) {
		kfree_skb(skb);
		KUNIT_FAIL(test, "out of memory");
		return NULL;
	}
	skb_put_data(skb, pkt, hdr);
	skb_reset_network_header(skb);
	memcpy(page_address(page), pkt + hdr, len - hdr);
	skb_add_rx_frag(skb, 0, page, 0, len - hdr, PAGE_SIZE);
	return skb;
}

#endif /* _SROCE_TEST_SKB_H */
