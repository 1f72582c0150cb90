/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit: RoCEv2 packets from the engines to the IP stack.
 */
#ifndef _SROCE_NET_H
#define _SROCE_NET_H

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;

/**
 * struct sroce_path - where and how a QP's packets are sent
 * @ipv6: IPv6, else IPv4 (the addresses are then IPv4-mapped)
 * @saddr: our address (the source GID)
 * @daddr: the peer's address (the destination GID)
 * @tclass: IPv4 TOS or IPv6 traffic class
 * @hop_limit: TTL or hop limit
 * @flow_label: IPv6 flow label
 * @sport: UDP source port
 * @lqpn: the sending QP (what a datagram to this host says it came from)
 * @ifindex: the netdev of the source GID when it is not the device's own
 *	(a VLAN device on it: packets leave there, tagged), else 0
 * @priority: skb->priority of the packets, which a VLAN device's egress
 *	map turns into the tag's PCP
 * @v1: RoCE v1 (the source GID's type is IB_GID_TYPE_ROCE): Ethernet
 *	frames with a GRH (v1.c), not UDP datagrams; @ipv6, @sport and the
 *	route are not used
 * @dmac: the peer's MAC address (the address vector's), for RoCE v1
 */
struct sroce_path {
	bool ipv6;
	struct in6_addr saddr;
	struct in6_addr daddr;
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;
	__be16 sport;
	u32 lqpn;
	int ifindex;
	u32 priority;
	bool v1;
	u8 dmac[ETH_ALEN];
};

/**
 * struct sroce_skb_cb - what a datagram this host sends itself carries
 * @src_qpn: the QP that sent it (the path's @lqpn)
 *
 * Such a datagram never passes the IP stack (sroce_net_xmit()): the
 * receive side learns its sender from here, where a datagram off the wire
 * has only its addresses.
 */
struct sroce_skb_cb {
	u32 src_qpn;
};

#define SROCE_SKB_CB(skb)	((struct sroce_skb_cb *)(skb)->cb)

/**
 * sroce_path_from_av() - derive a path from an address vector
 * @path: filled
 * @av: a RoCE address with a GRH
 * @sgid: the source GID of @av
 * @lqpn: the sending QP
 * @rqpn: the destination QP
 *
 * The UDP source port comes from the flow label, or from both QPNs when
 * the address has none (rdma_get_udp_sport()). The packets' priority is
 * the address's SL when it is not 0, else what the traffic class gives an
 * IP socket (rt_tos2priority()). The path leaves by the device's netdev
 * until sroce_path_set_netdev() names another.
 *
 * Context: any.
 */
void sroce_path_from_av(struct sroce_path *path, const struct rdma_ah_attr *av,
			const union ib_gid *sgid, u32 lqpn, u32 rqpn);

/**
 * sroce_path_set_netdev() - make a path leave by its source GID's netdev
 * @path: from sroce_path_from_av()
 * @sdev: the device
 * @attr: the source GID's attribute
 *
 * The GID's type decides RoCE v1 or v2 (@path->v1).
 * A GID the RDMA core added for an upper VLAN device of our netdev has
 * that device as its netdev: the path is routed out of it, so that the
 * frames are tagged. A GID of our netdev itself, or of a netdev in
 * another network namespace (whose ifindex means nothing in ours),
 * leaves the path on the device's netdev.
 *
 * Context: any.
 */
void sroce_path_set_netdev(struct sroce_path *path, struct sroce_dev *sdev,
			   const struct ib_gid_attr *attr);

/**
 * sroce_net_alloc_skb() - an skb for one packet, headroom for IP and UDP
 * @sdev: the sending device
 * @len: bytes from the BTH to the end of the pad (the ICRC is added)
 *
 * Up to 2 KiB in all, the room is a piece of a pool page, which holds an
 * earlier packet's bytes: the caller writes every byte it puts.
 *
 * Context: any (GFP_ATOMIC).
 * Return: an empty skb, or NULL.
 */
struct sk_buff *sroce_net_alloc_skb(struct sroce_dev *sdev, unsigned int len);

/**
 * sroce_net_pages_init() - give a device its pool of packet pages
 * @sdev: the device, not yet registered
 *
 * On a kernel without page pools (CONFIG_PAGE_POOL off) the device has
 * none, and sroce_net_alloc_skb_reuse() is sroce_net_alloc_skb().
 *
 * Context: process.
 * Return: 0 or a negative errno.
 */
int sroce_net_pages_init(struct sroce_dev *sdev);

/**
 * sroce_net_pages_free() - let a device's pool of packet pages go
 * @sdev: the device, none of its QPs left
 *
 * Pages still in packets return to the kernel when the stack frees them.
 *
 * Context: process.
 */
void sroce_net_pages_free(struct sroce_dev *sdev);

/**
 * sroce_net_alloc_skb_reuse() - sroce_net_alloc_skb(), in a recycled page
 * @sdev: the sending device
 * @len: bytes from the BTH to the end of the pad (the ICRC is added)
 *
 * Unless the packet is short (headers and little more), the skb's linear
 * room is a page of the device's pool, charged whole to the skb's
 * truesize: one the stack freed before is taken again as it is, not
 * cleared, so the caller must write every byte it puts. A short packet,
 * one too long for the pool's page, or one that finds no page free gets
 * sroce_net_alloc_skb().
 *
 * Context: any (GFP_ATOMIC).
 * Return: an empty skb, or NULL.
 */
struct sk_buff *sroce_net_alloc_skb_reuse(struct sroce_dev *sdev,
					  unsigned int len);

/**
 * sroce_net_put_trailer() - end a packet whose payload is in fragments
 * @skb: from sroce_net_alloc_skb(), its payload added as page fragments
 * @pad: pad bytes after the payload (0 to 3)
 *
 * The pad and the ICRC's room go into one more fragment of their own
 * (the linear part cannot grow past fragments); the pad is zeroed and
 * sroce_net_xmit() writes the ICRC there.
 *
 * Context: any (GFP_ATOMIC).
 * Return: 0, -ENOMEM, or -EMSGSIZE when @skb has no fragment slot left.
 */
int sroce_net_put_trailer(struct sk_buff *skb, unsigned int pad);

/**
 * sroce_net_store_icrc() - write a packet's ICRC into its last four bytes
 * @skb: the packet, its room for the ICRC at its end (linear, or the
 *	trailer fragment of sroce_net_put_trailer())
 * @icrc: the ICRC (sroce_icrc()), or 0 when it could not be computed:
 *	never the room's old bytes on the wire, a zero the peer drops
 *
 * Context: any.
 * Return: 0, or -EFAULT when @skb is shorter than the ICRC.
 */
int sroce_net_store_icrc(struct sk_buff *skb, u32 icrc);

/**
 * sroce_net_xmit() - send one RoCEv2 packet
 * @sdev: the sending device
 * @path: where to
 * @cache: the route to @path kept from the last packet (a QP's), or NULL
 * @skb: from sroce_net_alloc_skb(), holding the BTH to the pad, linear or
 *       ended with sroce_net_put_trailer(); consumed
 *
 * Routes (through @cache when it holds a route still valid), adds the
 * UDP and IP headers and the ICRC, and sends. A packet
 * for a local address goes straight to sroce_recv_local(), softirqs
 * disabled, without an ICRC (no wire in between): the caller must not
 * hold a lock the receive path takes. The packet is counted as sent
 * (tx_packets, tx_bytes) or dropped (tx_drop).
 *
 * Context: any; softirqs may run.
 * Return: 0, -EHOSTUNREACH (or another routing errno) without a route,
 * -ENOBUFS when the stack dropped the packet.
 */
int sroce_net_xmit(struct sroce_dev *sdev, const struct sroce_path *path,
		   struct dst_cache *cache, struct sk_buff *skb);

/**
 * sroce_net_deliver_local() - hand a packet for this host to its receive path
 * @sdev: the sending device
 * @path: the path it was sent on
 * @skb: the packet, data at its BTH, no ICRC (zeros); consumed
 *
 * As sroce_net_xmit() does for a packet whose route ends here: received
 * on the path's netdev, the sending QP beside it (&struct sroce_skb_cb).
 *
 * Context: any; softirqs may run. No lock the receive path takes.
 * Return: 0, or -ENODEV when no receive path is registered.
 */
int sroce_net_deliver_local(struct sroce_dev *sdev,
			    const struct sroce_path *path, struct sk_buff *skb);

/**
 * sroce_net_netdev_get() - the netdev a path's packets leave by, held
 * @sdev: the device
 * @path: the path
 * @tracker: tracks the reference
 *
 * The source GID's netdev (a VLAN device on ours), while it exists in
 * the device's namespace, else the device's netdev.
 *
 * Context: any.
 * Return: the netdev; the caller puts it with netdev_put().
 */
struct net_device *sroce_net_netdev_get(struct sroce_dev *sdev,
					const struct sroce_path *path,
					netdevice_tracker *tracker);

/**
 * sroce_net_can_chain() - whether @path's packets may go as one chain
 * @sdev: the device
 * @path: the QP's path
 * @cache: the QP's route cache
 *
 * A chain is a GSO skb of whole RoCEv2 packets (sroce_net_chain()): one
 * pass through the IP stack and the qdisc, and one doorbell of the NIC,
 * for all of them. Only IPv4 paths leaving by a netdev that splits the
 * chain before the wire (one that cannot send it whole, under any VLAN
 * devices): an IPv6 packet, one for our own host and one through a
 * netdev that passes chains on whole (veth, bridge, bond) go one by one
 * through sroce_net_xmit().
 *
 * Context: any; softirqs may run.
 * Return: true if sroce_net_chain() and sroce_net_xmit_chain() may be used.
 */
bool sroce_net_can_chain(struct sroce_dev *sdev, const struct sroce_path *path,
			 struct dst_cache *cache);

/**
 * sroce_net_is_local() - whether @path ends in this host
 * @sdev: the device
 * @path: the QP's path
 * @cache: the QP's route cache
 *
 * Context: any; softirqs may run.
 * Return: true if @path's route is to a local address: its packets go
 * straight to sroce_recv_local() from sroce_net_xmit(), and the sender
 * runs the receiving side's work too.
 */
bool sroce_net_is_local(struct sroce_dev *sdev, const struct sroce_path *path,
			struct dst_cache *cache);

/**
 * sroce_net_chain() - finish packets for @path and chain them
 * @sdev: the device
 * @path: where they go; sroce_net_can_chain() said yes
 * @pkts: @n packets from sroce_net_alloc_skb(), BTH to pad built, linear
 *	or ended with sroce_net_put_trailer() as for sroce_net_xmit(); the
 *	first at least as long as each of the others
 * @n: at least 2
 *
 * Each packet gets its UDP and IP headers and its ICRC, computed over the
 * IP ID that segmentation will give it; the others become the first's
 * fraglist, and the first a UDP GSO skb that the stack splits back into
 * the packets just before the NIC (skb_segment_list()). The chain's
 * truesize is all of theirs: charge it as one packet.
 *
 * Return: the chain (@pkts[0]).
 */
struct sk_buff *sroce_net_chain(struct sroce_dev *sdev,
				const struct sroce_path *path,
				struct sk_buff **pkts, unsigned int n);

/**
 * sroce_net_xmit_chain() - hand a chain to the IP stack
 * @sdev: the device
 * @path: where it goes
 * @cache: the QP's route cache
 * @head: from sroce_net_chain(); consumed
 *
 * Counts the chain's packets as sroce_net_xmit() counts one.
 *
 * Context: any; softirqs may run.
 * Return: 0, a routing errno, -EHOSTUNREACH when the route now leads to
 * our own host or a netdev that would not split the chain, -ENOBUFS when
 * the stack dropped the chain.
 */
int sroce_net_xmit_chain(struct sroce_dev *sdev, const struct sroce_path *path,
			 struct dst_cache *cache, struct sk_buff *head);

/* The most datagrams GRO gathers in one list (gro.c). */
#define SROCE_GRO_MAX_SEGS	64

struct list_head;
struct sock;

/**
 * sroce_gro_receive() - the IPv4 tunnel socket's gro_receive hook
 * @sk: the socket
 * @head: the skbs GRO holds; those of @skb's flow have same_flow set
 * @skb: a datagram, its UDP header pulled (GRO's offset at its BTH)
 *
 * Holds the first datagram of a flow and hangs the flow's next ones off
 * its frag_list, unchanged, up to SROCE_GRO_MAX_SEGS or 64 KiB.
 *
 * Context: softirq (NAPI), RCU read side.
 * Return: the held list GRO is to deliver now, or NULL.
 */
struct sk_buff *sroce_gro_receive(struct sock *sk, struct list_head *head,
				  struct sk_buff *skb);

/**
 * sroce_gro_complete() - the IPv4 tunnel socket's gro_complete hook
 * @sk: the socket
 * @skb: a list of more than one datagram
 * @nhoff: the offset of the first datagram's BTH
 *
 * Context: softirq (NAPI).
 * Return: 0.
 */
int sroce_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff);

/**
 * sroce_gro_split() - take a list from GRO apart
 * @skb: a datagram from its UDP header on, as the encap hook gets it
 * @bad: set to the number of datagrams dropped from the list
 *
 * A UDP tunnel GSO skb with a frag_list is a list sroce_gro_receive()
 * gathered; anything else is left as it is. @skb gets back its own length,
 * and its IP and UDP lengths as they were on the wire, which its ICRC
 * covers. The others, each checked to be a whole IPv4 datagram of the same
 * flow, are returned in order from their BTH on, their network and
 * transport headers set; any other is freed and counted in @bad.
 *
 * Context: any.
 * Return: the datagrams that followed @skb's own, or NULL.
 */
struct sk_buff *sroce_gro_split(struct sk_buff *skb, unsigned int *bad);

/**
 * typedef sroce_net_rx_fn - where a datagram this host sends itself goes
 * @sdev: the device it was sent on
 * @skb: the datagram, UDP header pulled, no ICRC (zeros); consumed
 *
 * Context: softirqs disabled.
 */
typedef void (*sroce_net_rx_fn)(struct sroce_dev *sdev, struct sk_buff *skb);

/**
 * sroce_net_set_local_rx() - register the receive path for local datagrams
 * @rx: the function sroce_net_xmit() hands them to
 *
 * The receive side registers itself here, so that transmit never calls
 * up into it by name.
 *
 * Context: process context (module init), before any device exists.
 */
void sroce_net_set_local_rx(sroce_net_rx_fn rx);

#endif /* _SROCE_NET_H */
