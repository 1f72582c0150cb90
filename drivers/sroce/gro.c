// SPDX-License-Identifier: GPL-2.0
/*
 * Receive offload for the IPv4 tunnel socket (Documentation/datapath.rst,
 * "Receive lists").
 *
 * GRO asks the socket's gro_receive hook about every datagram for port
 * 4791 that a NAPI poll brings in. The hook keeps the first of a flow
 * (same addresses, same ports) and hangs the flow's next datagrams off its
 * frag_list, each still with its own IP and UDP headers in front of its
 * BTH: nothing in a datagram is rewritten or merged with another. The IP
 * stack then routes the list and finds the socket once, and the encap hook
 * takes it apart again (sroce_gro_split()): recv.c sees every datagram on
 * its own, with its own ICRC over its own headers, as without GRO.
 */
#include <kunit/visibility.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/sizes.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/gro.h>
#include <net/ip.h>

#include "net.h"

/* Read per datagram, so it can be flipped between two runs in one boot. */
static bool sroce_gro = true;
module_param_named(gro, sroce_gro, bool, 0644);
MODULE_PARM_DESC(gro, "gather a flow's datagrams in GRO, one IP and UDP pass per list (default: on)");

/* The IPv4 header (no options) and the UDP header before a BTH. */
#define SROCE_GRO_HDRS	(sizeof(struct iphdr) + sizeof(struct udphdr))

/* The IPv4 header of the datagram whose BTH is at @bth. */
static struct iphdr *sroce_gro_iph(u8 *bth)
{
	return (struct iphdr *)(bth - SROCE_GRO_HDRS);
}

/*
 * May the datagram GRO holds (@p, linear up to its BTH at @off) start a
 * list? IPv4 without options, UDP without a checksum, to an address of
 * this host: a datagram routed on to another host must leave as it came.
 */
static bool sroce_gro_head_ok(struct sock *sk, struct sk_buff *p,
			      unsigned int off)
{
	const struct iphdr *iph;
	const struct udphdr *uh;

	if (off < SROCE_GRO_HDRS || skb_headlen(p) < off || p->sk)
		return false;
	iph = sroce_gro_iph(p->data + off);
	uh = (const struct udphdr *)(iph + 1);
	return iph->version == 4 && iph->ihl == 5 &&
	       iph->protocol == IPPROTO_UDP && !uh->check &&
	       __ip_dev_find(sock_net(sk), iph->daddr, false);
}

/*
 * The fields of two datagrams' IP headers that the stack acts on once for
 * the whole list must agree: all but the length, the ID and the checksum.
 * The UDP ports already do (GRO's flow match), and both checksums are 0.
 */
static bool sroce_gro_same_hdrs(const struct iphdr *a, const struct iphdr *b)
{
	const struct udphdr *ua = (const struct udphdr *)(a + 1);
	const struct udphdr *ub = (const struct udphdr *)(b + 1);

	return a->version == b->version && a->ihl == b->ihl &&
	       a->tos == b->tos && a->frag_off == b->frag_off && a->ttl == b->ttl &&
	       a->protocol == b->protocol && a->saddr == b->saddr &&
	       a->daddr == b->daddr && ua->source == ub->source &&
	       ua->dest == ub->dest && !ub->check;
}

/* Hang @skb, its headers pulled up to its BTH at @off, off @p's list. */
static void sroce_gro_append(struct sk_buff *p, struct sk_buff *skb,
			     unsigned int off)
{
	skb_set_network_header(skb, off - SROCE_GRO_HDRS);
	skb_set_transport_header(skb, off - sizeof(struct udphdr));
	__skb_pull(skb, off);
	if (NAPI_GRO_CB(p)->last == p)
		skb_shinfo(p)->frag_list = skb;
	else
		NAPI_GRO_CB(p)->last->next = skb;
	NAPI_GRO_CB(p)->last = skb;
	NAPI_GRO_CB(p)->count++;
	p->len += skb->len;
	p->data_len += skb->len;
	p->truesize += skb->truesize;
	skb_shinfo(p)->flags |= skb_shinfo(skb)->flags & SKBFL_SHARED_FRAG;
	NAPI_GRO_CB(skb)->same_flow = 1;
}

struct sk_buff *sroce_gro_receive(struct sock *sk, struct list_head *head,
				  struct sk_buff *skb)
{
	unsigned int off = skb_gro_offset(skb);
	struct sk_buff *p;

	/* Off: nothing is held, and a list held from before goes first. */
	if (!READ_ONCE(sroce_gro))
		NAPI_GRO_CB(skb)->flush = 1;
	list_for_each_entry(p, head, list)
		if (NAPI_GRO_CB(p)->same_flow)
			goto found;
	/* The flow's first datagram: GRO holds it unless it is flushed. */
	return NULL;

found:
	/*
	 * A datagram that may not join goes after the list, never before:
	 * the list is delivered first (returned), and the datagram is held
	 * to start the next one, or delivered at once if GRO flushes it.
	 */
	if (NAPI_GRO_CB(skb)->flush || NAPI_GRO_CB(p)->flush || skb->sk)
		goto deliver;
	if (NAPI_GRO_CB(p)->count == 1 && !sroce_gro_head_ok(sk, p, off))
		goto deliver;
	if (p->len + skb_gro_len(skb) >= SZ_64K ||
	    NAPI_GRO_CB(p)->count >= SROCE_GRO_MAX_SEGS)
		goto deliver;
	if (!pskb_may_pull(skb, off)) {
		NAPI_GRO_CB(skb)->flush = 1;
		goto deliver;
	}
	if (!sroce_gro_same_hdrs(sroce_gro_iph(p->data + off),
				 sroce_gro_iph(skb->data + off)))
		goto deliver;
	sroce_gro_append(p, skb, off);
	return NAPI_GRO_CB(p)->count < SROCE_GRO_MAX_SEGS ? NULL : p;

deliver:
	return p;
}

/*
 * The IP and UDP lengths now cover the list, and the UDP layer made it a
 * UDP tunnel GSO skb, which it hands to the encap hook whole.
 */
int sroce_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff)
{
	skb_shinfo(skb)->gso_segs = NAPI_GRO_CB(skb)->count;
	return 0;
}

/*
 * Is @m, taken off the list of the datagram whose IPv4 header is @hiph,
 * a whole datagram of the same flow, linear up to its BTH at m->data?
 */
static bool sroce_gro_member_ok(const struct iphdr *hiph, struct sk_buff *m)
{
	const struct udphdr *uh;
	const struct iphdr *iph;

	if (skb_headroom(m) < SROCE_GRO_HDRS ||
	    skb_network_header(m) != m->data - SROCE_GRO_HDRS ||
	    skb_transport_header(m) != m->data - sizeof(*uh))
		return false;
	iph = ip_hdr(m);
	uh = udp_hdr(m);
	return sroce_gro_same_hdrs(hiph, iph) &&
	       ntohs(iph->tot_len) == m->len + SROCE_GRO_HDRS &&
	       ntohs(uh->len) == m->len + sizeof(*uh);
}

struct sk_buff *sroce_gro_split(struct sk_buff *skb, unsigned int *bad)
{
	struct sk_buff *list, *m, *next, **tail;
	struct iphdr *iph = ip_hdr(skb);
	struct udphdr *uh = udp_hdr(skb);
	__be16 len;

	*bad = 0;
	if (!skb_is_gso(skb) || !skb_has_frag_list(skb) ||
	    !(skb_shinfo(skb)->gso_type & SKB_GSO_UDP_TUNNEL) ||
	    skb->protocol != htons(ETH_P_IP) ||
	    (u8 *)uh != skb->data || (u8 *)(iph + 1) != (u8 *)uh ||
	    iph->version != 4 || iph->ihl != 5)
		return NULL;

	list = skb_shinfo(skb)->frag_list;
	skb_shinfo(skb)->frag_list = NULL;
	for (m = list; m; m = m->next) {
		skb->len -= m->len;
		skb->data_len -= m->len;
		skb->truesize -= m->truesize;
	}
	skb_shinfo(skb)->gso_size = 0;
	skb_shinfo(skb)->gso_segs = 0;
	skb_shinfo(skb)->gso_type = 0;
	skb->encapsulation = 0;
	/* Its checksum, if any, covered the list. */
	skb->ip_summed = CHECKSUM_NONE;
	len = htons(skb->len + sizeof(*iph));
	csum_replace2(&iph->check, iph->tot_len, len);
	iph->tot_len = len;
	uh->len = htons(skb->len);

	tail = &list;
	for (m = list; m; m = next) {
		next = m->next;
		skb_mark_not_on_list(m);
		if (!sroce_gro_member_ok(iph, m)) {
			kfree_skb(m);
			(*bad)++;
			continue;
		}
		m->dev = skb->dev;
		m->protocol = skb->protocol;
		*tail = m;
		tail = &m->next;
	}
	*tail = NULL;
	return list;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_gro_split);
