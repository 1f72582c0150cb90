// SPDX-License-Identifier: GPL-2.0
/*
 * ICRC: the headers are copied once into a small buffer where their variant
 * fields are set to ones; the CRC runs over that buffer, then straight
 * over the rest of the packet.
 */
#include <kunit/visibility.h>
#include <linux/crc32.h>
#include <linux/export.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <linux/udp.h>

#include "icrc.h"
#include "wire.h"

/* Longest masked span: IPv6 header, UDP header, BTH. */
#define SROCE_ICRC_MASKED_MAX	(sizeof(struct ipv6hdr) + sizeof(struct udphdr) + \
				 sizeof(struct sroce_bth))

/*
 * The CRC over the absent LRH and the masked IP, UDP and BTH headers; the
 * rest of the packet is covered as it is. @len: contiguous bytes at @l3.
 */
static int sroce_icrc_start(const u8 *l3, unsigned int len, u32 *crc,
			    unsigned int *span)
{
	static const u8 lrh_ones[8] = { 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff };
	u8 hdr[SROCE_ICRC_MASKED_MAX];
	unsigned int iplen;

	if (len < sizeof(struct iphdr))
		return -EINVAL;
	switch (l3[0] >> 4) {
	case 4:
		iplen = (l3[0] & 0x0f) * 4;
		if (iplen != sizeof(struct iphdr))
			return -EINVAL;	/* RoCEv2 sends no IP options */
		break;
	case 6:
		iplen = sizeof(struct ipv6hdr);
		break;
	default:
		return -EINVAL;
	}
	*span = iplen + sizeof(struct udphdr) + sizeof(struct sroce_bth);
	if (len < *span)
		return -EINVAL;

	memcpy(hdr, l3, *span);
	if (iplen == sizeof(struct iphdr)) {
		struct iphdr *ip4 = (struct iphdr *)hdr;

		ip4->tos = 0xff;
		ip4->ttl = 0xff;
		memset(&ip4->check, 0xff, sizeof(ip4->check));
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)hdr;

		ip6->priority = 0xf;
		memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
		ip6->hop_limit = 0xff;
	}
	memset(&((struct udphdr *)(hdr + iplen))->check, 0xff, sizeof(__sum16));
	hdr[iplen + sizeof(struct udphdr) + SROCE_BTH_VARIANT_BYTE] = 0xff;

	*crc = crc32_le(~0U, lrh_ones, sizeof(lrh_ones));
	*crc = crc32_le(*crc, hdr, *span);
	return 0;
}

int sroce_icrc(const u8 *l3, unsigned int len, u32 *icrc)
{
	unsigned int span;
	u32 crc;
	int err;

	err = sroce_icrc_start(l3, len, &crc, &span);
	if (err)
		return err;
	crc = crc32_le(crc, l3 + span, len - span);
	*icrc = ~crc;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc);

int sroce_icrc_skb(struct sk_buff *skb, u32 *icrc)
{
	const u8 *l3 = skb_network_header(skb);
	unsigned int before = skb->data - l3, span, from, todo, done, n;
	struct skb_seq_state seq;
	const u8 *p;
	u32 crc;
	int err;

	if (skb->len < SROCE_ICRC_BYTES)
		return -EINVAL;
	err = sroce_icrc_start(l3, before + skb_headlen(skb), &crc, &span);
	if (err)
		return err;
	/*
	 * The headers were linear; the payload may sit in page fragments. The
	 * CRC reads each piece where it lies: a bounce buffer cost a copy of
	 * every received byte, and a CRC call (an FPU section) per 256 bytes.
	 */
	from = span - before;
	todo = skb->len - SROCE_ICRC_BYTES;
	todo = todo > from ? todo - from : 0;
	skb_prepare_seq_read(skb, from, from + todo, &seq);
	for (done = 0; done < todo; done += n) {
		n = skb_seq_read(done, &p, &seq);
		if (!n)
			break;	/* fragments the CPU cannot read */
		/* A piece may run past the end asked for: over the ICRC. */
		n = min(n, todo - done);
		crc = crc32_le(crc, p, n);
	}
	skb_abort_seq_read(&seq);
	if (done < todo)
		return -EINVAL;
	*icrc = ~crc;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc_skb);
