// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 over UDP, transmit side: the engines build the transport headers
 * and payload in an skb from sroce_net_alloc_skb(); sroce_net_xmit()
 * routes it, adds the UDP and IP headers and the ICRC and hands it to the
 * IP stack, whose neighbour layer resolves the next hop. A packet for an
 * address of our own host would leave by the loopback device, where no
 * sroce device listens, and the IP stack would not take it back on our
 * netdev (a local source is a martian there); it goes straight to the
 * receive path instead, through the function udp.c registered, with
 * every check.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/sizes.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
/* The page pool's header split in two in 6.6. */
#ifdef SROCE_HAVE_PAGE_POOL_HELPERS
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif
#include <net/udp_tunnel.h>
#include <rdma/ib_cache.h>

#include "icrc.h"
#include "net.h"
#include "opcode.h"
#include "sroce.h"
#include "v1.h"
#include "wire.h"

/* Where datagrams to this host go: sroce_net_set_local_rx(). */
static sroce_net_rx_fn sroce_net_local_rx __read_mostly;

void sroce_net_set_local_rx(sroce_net_rx_fn rx)
{
	WRITE_ONCE(sroce_net_local_rx, rx);
}

/* Pieces of pool pages for packets: sroce_net_alloc_frag(). */
#define SROCE_TX_FRAG_MIN	512
#define SROCE_TX_FRAG_MAX	SZ_2K
#define SROCE_TX_FRAG_PAGES	(SZ_1M / PAGE_SIZE)

/* Headroom for the UDP and IP headers and what @ndev puts before them. */
static unsigned int sroce_net_headroom(const struct net_device *ndev)
{
	return LL_RESERVED_SPACE(ndev) + sizeof(struct ipv6hdr) +
	       sizeof(struct udphdr);
}

/*
 * Packets of up to 2 KiB, skb_shared_info included, take a piece of a
 * pool page (sroce_net_pages_init()) instead of a kmalloc() object: a
 * piece of 512, 1024 or 2048 bytes, as kmalloc() would round it, so the
 * truesize a QP is charged stays what it was, but nothing is cleared
 * first. Debian's kernels clear every kmalloc() object (init_on_alloc):
 * at path MTU 1024 that memset of 2 KiB a packet took a fifth of a WRITE
 * sender's time, twice its copy of the payload. As with the pages of
 * sroce_net_alloc_skb_reuse(), every byte a packet carries is written.
 * NULL when there is no pool, with interrupts off (the pool's lock is
 * taken with softirqs off), or when the pool has no page.
 */
static struct sk_buff *sroce_net_alloc_frag(struct sroce_dev *sdev,
					    unsigned int room)
{
#ifdef CONFIG_PAGE_POOL
	unsigned int size = SKB_DATA_ALIGN(room) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	unsigned int offset;
	struct sk_buff *skb;
	struct page *page;

	if (!sdev->tx_frags || size > SROCE_TX_FRAG_MAX || irqs_disabled())
		return NULL;
	size = roundup_pow_of_two(max_t(unsigned int, size, SROCE_TX_FRAG_MIN));
	spin_lock_bh(&sdev->tx_pages_lock);
	page = page_pool_dev_alloc_frag(sdev->tx_frags, &offset, size);
	spin_unlock_bh(&sdev->tx_pages_lock);
	if (!page)
		return NULL;
	skb = build_skb((u8 *)page_address(page) + offset, size);
	if (!skb) {
		page_pool_put_full_page(sdev->tx_frags, page, false);
		return NULL;
	}
	/* The piece goes back to the pool when the stack frees the packet. */
	skb_mark_for_recycle(skb);
	return skb;
#else
	return NULL;
#endif
}

struct sk_buff *sroce_net_alloc_skb(struct sroce_dev *sdev, unsigned int len)
{
	unsigned int head = sroce_net_headroom(sdev->ndev);
	unsigned int room = head + len + SROCE_ICRC_BYTES;
	struct sk_buff *skb;

	skb = sroce_net_alloc_frag(sdev, room) ?: alloc_skb(room, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	return skb;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_alloc_skb);

/*
 * A device's pool of packet pages: each holds a packet of a path MTU's
 * payload with its headroom and skb_shared_info (8 KiB with 4 KiB pages),
 * and the pool keeps 2 MiB of them for reuse, twice what its QPs may
 * have queued together (SROCE_TX_POOL, tx.h), so that pages the stack
 * frees in a burst are not given back to the kernel.
 *
 * Every packet asked for here that needs more than SROCE_TX_PAGE_MIN
 * bytes takes a page, a short one too, and is charged the page (truesize;
 * the requester asks only above a path MTU of 2048, req.c). alloc_skb() clears
 * what it gives (Debian's kernels set init_on_alloc): at path MTU 1024
 * that memset was 8 % of a READ responder's time. And a page a packet
 * holds a QP's share (SROCE_TX_POOL) to as many packets at path MTU 1024
 * as at 4096, about 128 for a device, where the 2.3 KiB of alloc_skb()
 * let four QPs queue 450: READ of 64 KiB with 4 QPs at path MTU 1024 ran
 * about 9 % faster than with alloc_skb() below a page, and than with
 * the same pages split among packets (Documentation/datapath.rst,
 * "Packet pages"). Acknowledgements and the like, with little more than
 * their headers, keep alloc_skb().
 */
#define SROCE_TX_PAGE_ORDER	get_order(SZ_8K)
#define SROCE_TX_PAGE_BYTES	(PAGE_SIZE << SROCE_TX_PAGE_ORDER)
#define SROCE_TX_PAGES		(SZ_2M / SROCE_TX_PAGE_BYTES)
#define SROCE_TX_PAGE_MIN	512

int sroce_net_pages_init(struct sroce_dev *sdev)
{
	spin_lock_init(&sdev->tx_pages_lock);
#ifdef CONFIG_PAGE_POOL
	{
		struct page_pool_params pp = {
			.order = SROCE_TX_PAGE_ORDER,
			.pool_size = SROCE_TX_PAGES,
			.nid = NUMA_NO_NODE,
		};
		/* Single pages, cut into pieces (sroce_net_alloc_frag()). */
		struct page_pool_params frags = {
			.pool_size = SROCE_TX_FRAG_PAGES,
			.nid = NUMA_NO_NODE,
#ifdef PP_FLAG_PAGE_FRAG
			.flags = PP_FLAG_PAGE_FRAG,
#endif
		};
		struct page_pool *pool;
		int err;

		pool = page_pool_create(&pp);
		if (IS_ERR(pool))
			return PTR_ERR(pool);
		sdev->tx_pages = pool;
		pool = page_pool_create(&frags);
		if (IS_ERR(pool)) {
			err = PTR_ERR(pool);
			goto err_pages;
		}
		sdev->tx_frags = pool;
		return 0;

err_pages:
		page_pool_destroy(sdev->tx_pages);
		sdev->tx_pages = NULL;
		return err;
	}
#endif
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_pages_init);

void sroce_net_pages_free(struct sroce_dev *sdev)
{
#ifdef CONFIG_PAGE_POOL
	if (sdev->tx_frags)
		page_pool_destroy(sdev->tx_frags);
	if (sdev->tx_pages)
		page_pool_destroy(sdev->tx_pages);
#endif
	sdev->tx_frags = NULL;
	sdev->tx_pages = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_pages_free);

struct sk_buff *sroce_net_alloc_skb_reuse(struct sroce_dev *sdev,
					  unsigned int len)
{
#ifdef CONFIG_PAGE_POOL
	unsigned int head = sroce_net_headroom(sdev->ndev);
	unsigned int size = SKB_DATA_ALIGN(head + len + SROCE_ICRC_BYTES) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb;
	struct page *page;

	if (!sdev->tx_pages || size <= SROCE_TX_PAGE_MIN ||
	    size > SROCE_TX_PAGE_BYTES)
		return sroce_net_alloc_skb(sdev, len);
	/* A page pool takes one consumer at a time. */
	spin_lock_bh(&sdev->tx_pages_lock);
	page = page_pool_dev_alloc_pages(sdev->tx_pages);
	spin_unlock_bh(&sdev->tx_pages_lock);
	if (!page)
		return sroce_net_alloc_skb(sdev, len);
	skb = build_skb(page_address(page), SROCE_TX_PAGE_BYTES);
	if (!skb) {
		page_pool_put_full_page(sdev->tx_pages, page, false);
		return NULL;
	}
	/* Back to the pool when the stack frees the packet. */
	skb_mark_for_recycle(skb);
	skb_reserve(skb, head);
	return skb;
#else
	return sroce_net_alloc_skb(sdev, len);
#endif
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_alloc_skb_reuse);

int sroce_net_put_trailer(struct sk_buff *skb, unsigned int pad)
{
	unsigned int nr = skb_shinfo(skb)->nr_frags;
	struct page *head;
	u8 *tail;

	if (WARN_ON_ONCE(nr >= MAX_SKB_FRAGS))
		return -EMSGSIZE;
	tail = netdev_alloc_frag(pad + SROCE_ICRC_BYTES);
	if (!tail)
		return -ENOMEM;
	memset(tail, 0, pad + SROCE_ICRC_BYTES);
	/*
	 * The cache's pages are compound: the offset is from the head page,
	 * past its first 4 KiB if need be (offset_in_page() would point
	 * every subpage's trailer at the first one's bytes).
	 */
	head = virt_to_head_page(tail);
	skb_fill_page_desc(skb, nr, head, tail - (u8 *)page_address(head),
			   pad + SROCE_ICRC_BYTES);
	skb_len_add(skb, pad + SROCE_ICRC_BYTES);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_put_trailer);

void sroce_path_from_av(struct sroce_path *path, const struct rdma_ah_attr *av,
			const union ib_gid *sgid, u32 lqpn, u32 rqpn)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(av);

	memset(path, 0, sizeof(*path));
	path->ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	memcpy(&path->saddr, sgid->raw, sizeof(path->saddr));
	memcpy(&path->daddr, grh->dgid.raw, sizeof(path->daddr));
	path->tclass = grh->traffic_class;
	path->hop_limit = grh->hop_limit ?: 64;
	path->flow_label = grh->flow_label;
	/* ECMP entropy: from the flow label if set, else from both QPNs. */
	path->sport = cpu_to_be16(rdma_get_udp_sport(grh->flow_label, lqpn, rqpn));
	path->lqpn = lqpn;
	/* SL 0 is also "none given": the class decides, as for a socket. */
	path->priority = rdma_ah_get_sl(av) & 7 ?: rt_tos2priority(path->tclass);
	/* RoCE v1's next hop: the core resolved it into the address. */
	memcpy(path->dmac, av->roce.dmac, ETH_ALEN);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_path_from_av);

void sroce_path_set_netdev(struct sroce_path *path, struct sroce_dev *sdev,
			   const struct ib_gid_attr *attr)
{
	struct net_device *ndev;

	path->ifindex = 0;
	path->v1 = attr->gid_type == IB_GID_TYPE_ROCE;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev) && ndev != sdev->ndev &&
	    net_eq(dev_net(ndev), dev_net(sdev->ndev)))
		path->ifindex = ndev->ifindex;
	rcu_read_unlock();
}

/* The netdev @path leaves by: its GID's, if that is still there. */
static struct net_device *sroce_path_netdev_rcu(struct sroce_dev *sdev,
						const struct sroce_path *path)
{
	struct net_device *ndev = NULL;

	if (path->ifindex)
		ndev = dev_get_by_index_rcu(dev_net(sdev->ndev), path->ifindex);
	return ndev ?: sdev->ndev;
}

struct net_device *sroce_net_netdev_get(struct sroce_dev *sdev,
					const struct sroce_path *path,
					netdevice_tracker *tracker)
{
	struct net_device *ndev;

	rcu_read_lock();
	ndev = sroce_path_netdev_rcu(sdev, path);
	netdev_hold(ndev, tracker, GFP_ATOMIC);
	rcu_read_unlock();
	return ndev;
}

static struct dst_entry *sroce_route(struct net *net, struct net_device *ndev,
				     const struct sroce_path *path)
{
	struct flowi6 fl6 = {};
	struct flowi4 fl4 = {};
	struct dst_entry *dst;
	struct rtable *rt;

	if (!path->ipv6) {
		fl4.flowi4_oif = path->ifindex ?: ndev->ifindex;
		fl4.flowi4_proto = IPPROTO_UDP;
		fl4.saddr = path->saddr.s6_addr32[3];
		fl4.daddr = path->daddr.s6_addr32[3];
		rt = ip_route_output_key(net, &fl4);
		return IS_ERR(rt) ? ERR_CAST(rt) : &rt->dst;
	}
	if (!IS_ENABLED(CONFIG_IPV6))
		return ERR_PTR(-EAFNOSUPPORT);
	fl6.flowi6_oif = path->ifindex ?: ndev->ifindex;
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.saddr = path->saddr;
	fl6.daddr = path->daddr;
	dst = ip6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (!IS_ERR(dst) && dst->error) {
		dst_release(dst);
		return ERR_PTR(-EHOSTUNREACH);
	}
	return dst;
}

/*
 * The route through @cache: a QP sends every packet the same way, and a
 * lookup per packet was a tenth of the sender's kernel time (profile.sh).
 * The cache is per CPU and wants softirqs off; a route the stack has
 * since changed or killed (its netdev gone) is dropped by
 * dst_cache_get(), and looked up again.
 */
static struct dst_entry *sroce_route_cached(struct net *net,
					    struct net_device *ndev,
					    const struct sroce_path *path,
					    struct dst_cache *cache)
{
	struct dst_entry *dst;

	if (!cache || irqs_disabled())
		return sroce_route(net, ndev, path);
	local_bh_disable();
	dst = dst_cache_get(cache);
	if (dst)
		goto out;
	dst = sroce_route(net, ndev, path);
	if (IS_ERR(dst))
		goto out;
	if (!path->ipv6)
		dst_cache_set_ip4(cache, dst, path->saddr.s6_addr32[3]);
#if IS_ENABLED(CONFIG_IPV6)
	else
		dst_cache_set_ip6(cache, dst, &path->saddr);
#endif
out:
	local_bh_enable();
	return dst;
}

static void sroce_push_udp(struct sk_buff *skb, __be16 sport)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = sport;
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(skb->len);
	/* The ICRC protects the datagram; RoCEv2 sends no UDP checksum. */
	uh->check = 0;
}

/*
 * The IP header. An IPv4 packet draws @ids IDs and takes the first; with
 * @ids 0 it takes @id, one of those its chain's head drew.
 */
static void sroce_push_ip(struct net *net, struct sk_buff *skb,
			  const struct sroce_path *path, u32 ids, u16 id)
{
	struct ipv6hdr *ip6;
	struct iphdr *ip4;

	if (path->ipv6) {
		__skb_push(skb, sizeof(*ip6));
		skb_reset_network_header(skb);
		ip6 = ipv6_hdr(skb);
		ip6_flow_hdr(ip6, path->tclass, htonl(path->flow_label & 0xfffff));
		ip6->payload_len = htons(skb->len - sizeof(*ip6));
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = path->hop_limit;
		ip6->saddr = path->saddr;
		ip6->daddr = path->daddr;
		skb->protocol = htons(ETH_P_IPV6);
		return;
	}
	__skb_push(skb, sizeof(*ip4));
	skb_reset_network_header(skb);
	ip4 = ip_hdr(skb);
	ip4->version = 4;
	ip4->ihl = sizeof(*ip4) / 4;
	ip4->tos = path->tclass;
	ip4->tot_len = htons(skb->len);
	ip4->frag_off = htons(IP_DF);
	ip4->ttl = path->hop_limit;
	ip4->protocol = IPPROTO_UDP;
	ip4->saddr = path->saddr.s6_addr32[3];
	ip4->daddr = path->daddr.s6_addr32[3];
	/* The ID is covered by the ICRC: fixed before it is computed. */
	if (ids)
		__ip_select_ident(net, ip4, ids);
	else
		ip4->id = htons(id);
	ip_send_check(ip4);
	skb->protocol = htons(ETH_P_IP);
}

int sroce_net_store_icrc(struct sk_buff *skb, u32 icrc)
{
	__le32 wire = cpu_to_le32(icrc);

	return skb_store_bits(skb, skb->len - SROCE_ICRC_BYTES, &wire,
			      sizeof(wire));
}

/*
 * Finish a packet built from its BTH on: the UDP and IP headers (@ids,
 * @id as for sroce_push_ip()) and the ICRC, stored in the room left for
 * it at the linear end or in the trailer fragment of a packet whose
 * payload is in pages (sroce_net_put_trailer()). Without @crc the room
 * holds zeros: the packet stays in this host, handed to
 * sroce_recv_local(), which has no wire to guard against.
 */
static int sroce_net_seal(struct net *net, struct sk_buff *skb,
			  const struct sroce_path *path, u32 ids, u16 id,
			  bool crc)
{
	bool paged = skb_is_nonlinear(skb);
	const u8 *bth;
	u32 icrc = 0;
	int err = 0;

	if (!paged)
		skb_put(skb, SROCE_ICRC_BYTES);
	sroce_push_udp(skb, path->sport);
	sroce_push_ip(net, skb, path, ids, id);
	if (crc && paged)
		err = sroce_icrc_skb(skb, &icrc);
	else if (crc)
		err = sroce_icrc(skb_network_header(skb),
				 skb->len - SROCE_ICRC_BYTES, &icrc);
	bth = skb_transport_header(skb) + sizeof(struct udphdr);
	/* A FLUSH (linear, no payload) as rdma_rxe takes it: icrc.h. */
	if (crc && !err && !paged &&
	    ((const struct sroce_bth *)bth)->opcode ==
	    SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_FLUSH))
		icrc = sroce_icrc_rxe_flush(icrc, bth, skb_tail_pointer(skb) -
						  SROCE_ICRC_BYTES - bth);
	return sroce_net_store_icrc(skb, err ? 0 : icrc) ?: err;
}

/* The UDP payload, BTH to ICRC, of a sealed packet (or chain's head). */
static unsigned int sroce_net_roce_len(const struct sk_buff *skb)
{
	return skb->len - skb_transport_offset(skb) - sizeof(struct udphdr);
}

/* Every packet handed over counted once: sent with its bytes, or dropped. */
static int sroce_net_count(struct sroce_dev *sdev, int err, unsigned int n,
			   unsigned int bytes)
{
	if (err) {
		sroce_count_n(sdev, SROCE_CNT_TX_DROP, n);
		return err;
	}
	sroce_count_n(sdev, SROCE_CNT_TX_PACKETS, n);
	sroce_count_n(sdev, SROCE_CNT_TX_BYTES, bytes);
	return 0;
}

static int sroce_net_xmit_one(struct sroce_dev *sdev,
			      const struct sroce_path *path,
			      struct dst_cache *cache, struct sk_buff *skb,
			      unsigned int *bytes)
{
	struct net_device *ndev = sdev->ndev;
	struct net *net = dev_net(ndev);
	struct dst_entry *dst;
	bool local;
	int err;

	dst = sroce_route_cached(net, ndev, path, cache);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	local = dst->dev->flags & IFF_LOOPBACK;
	err = sroce_net_seal(net, skb, path, 1, 0, !local);
	if (WARN_ON_ONCE(err)) {
		dst_release(dst);
		kfree_skb(skb);
		return err;
	}

	*bytes = sroce_net_roce_len(skb);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb->ip_summed = CHECKSUM_NONE;
	if (local) {
		/*
		 * Ours: the IP stack would drop it as a martian (a local source
		 * arriving on our netdev), so it goes straight to ingress, as
		 * the UDP hook would hand it over, with no ICRC to check.
		 */
		dst_release(dst);
		__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
		return sroce_net_deliver_local(sdev, path, skb);
	}
	skb_dst_set(skb, dst);
	skb->dev = dst->dev;
	skb->priority = path->priority;
	if (path->ipv6)
		err = ip6_local_out(net, NULL, skb);
	else
		err = ip_local_out(net, NULL, skb);
	return net_xmit_eval(err) ? -ENOBUFS : 0;
}

int sroce_net_deliver_local(struct sroce_dev *sdev,
			    const struct sroce_path *path, struct sk_buff *skb)
{
	sroce_net_rx_fn rx;

	BUILD_BUG_ON(sizeof(struct sroce_skb_cb) > sizeof(skb->cb));
	SROCE_SKB_CB(skb)->src_qpn = path->lqpn;
	rx = READ_ONCE(sroce_net_local_rx);
	if (WARN_ON_ONCE(!rx)) {
		kfree_skb(skb);
		return -ENODEV;
	}
	local_bh_disable();
	/* Received on the GID's netdev: a VLAN's tag is in the completion. */
	rcu_read_lock();
	skb->dev = sroce_path_netdev_rcu(sdev, path);
	rx(sdev, skb);
	rcu_read_unlock();
	local_bh_enable();
	return 0;
}

int sroce_net_xmit(struct sroce_dev *sdev, const struct sroce_path *path,
		   struct dst_cache *cache, struct sk_buff *skb)
{
	unsigned int bytes = 0;
	int err;

	if (path->v1)
		err = sroce_v1_xmit(sdev, path, skb, &bytes);
	else
		err = sroce_net_xmit_one(sdev, path, cache, skb, &bytes);
	return sroce_net_count(sdev, err, 1, bytes);
}

/* Where @path's route leaves: 1 to this host, 0 a netdev, or an errno. */
static int sroce_net_route_local(struct sroce_dev *sdev,
				 const struct sroce_path *path,
				 struct dst_cache *cache)
{
	struct dst_entry *dst;
	int local;

	dst = sroce_route_cached(dev_net(sdev->ndev), sdev->ndev, path, cache);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	local = !!(dst->dev->flags & IFF_LOOPBACK);
	dst_release(dst);
	return local;
}

/*
 * Whether a chain routed by @dst is split into its packets before it
 * leaves the host: by the stack, in front of a NIC that cannot send a
 * list (virtio-net, most hardware), under the VLAN devices on it if any.
 * A netdev that takes lists whole (veth, a bridge, a bond, loopback)
 * could carry one as it is into another namespace's stack, where none of
 * its packets reached the peer device (veth, seen): there the packets go
 * one by one.
 */
static bool sroce_dst_splits_chains(const struct dst_entry *dst)
{
	const struct net_device *dev = dst->dev;

	while (is_vlan_dev(dev))
		dev = vlan_dev_real_dev(dev);
	return !(dev->flags & IFF_LOOPBACK) &&
	       !(dev->features & NETIF_F_GSO_FRAGLIST);
}

bool sroce_net_can_chain(struct sroce_dev *sdev, const struct sroce_path *path,
			 struct dst_cache *cache)
{
	struct dst_entry *dst;
	bool split;

	if (path->ipv6 || path->v1)
		return false;
	dst = sroce_route_cached(dev_net(sdev->ndev), sdev->ndev, path, cache);
	if (IS_ERR(dst))
		return false;
	split = sroce_dst_splits_chains(dst);
	dst_release(dst);
	return split;
}

bool sroce_net_is_local(struct sroce_dev *sdev, const struct sroce_path *path,
			struct dst_cache *cache)
{
	if (path->v1)
		return sroce_v1_is_local(sdev, path);
	return sroce_net_route_local(sdev, path, cache) > 0;
}

struct sk_buff *sroce_net_chain(struct sroce_dev *sdev,
				const struct sroce_path *path,
				struct sk_buff **pkts, unsigned int n)
{
	struct net *net = dev_net(sdev->ndev);
	struct sk_buff *head = pkts[0], *skb, **link;
	unsigned int i;
	u16 id = 0;

	for (i = 0; i < n; i++) {
		skb = pkts[i];
		/*
		 * Segmentation (inet_gso_segment()) gives the i-th packet the
		 * head's ID plus i: each ICRC is computed over that ID. A
		 * packet that cannot be sealed (not RoCEv2 IPv4) goes with a
		 * zero ICRC, and its peer drops it.
		 */
		WARN_ON_ONCE(sroce_net_seal(net, skb, path, i ? 0 : n, id + i,
					    true));
		if (!i)
			id = ntohs(ip_hdr(skb)->id);
		/* No UDP checksum to offload or check: RoCEv2 sends none. */
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	}
	/* What the head carries itself, linear or in pages: each packet's most. */
	skb_shinfo(head)->gso_size = head->len - skb_transport_offset(head) -
				     sizeof(struct udphdr);
	/* The others hang off the head as its UDP payload, headers before. */
	link = &skb_shinfo(head)->frag_list;
	for (i = 1; i < n; i++) {
		skb = pkts[i];
		__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
		*link = skb;
		link = &skb->next;
		head->len += skb->len;
		head->data_len += skb->len;
		head->truesize += skb->truesize;
	}
	*link = NULL;
	skb_shinfo(head)->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
	skb_shinfo(head)->gso_segs = n;
	return head;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_chain);

int sroce_net_xmit_chain(struct sroce_dev *sdev, const struct sroce_path *path,
			 struct dst_cache *cache, struct sk_buff *head)
{
	unsigned int n = skb_shinfo(head)->gso_segs;
	unsigned int bytes = sroce_net_roce_len(head);
	struct net *net = dev_net(sdev->ndev);
	struct dst_entry *dst;
	int err;

	dst = sroce_route_cached(net, sdev->ndev, path, cache);
	if (IS_ERR(dst)) {
		kfree_skb(head);
		return sroce_net_count(sdev, PTR_ERR(dst), n, 0);
	}
	if (!sroce_dst_splits_chains(dst)) {
		/* The route moved since sroce_net_can_chain(): lost, sent again. */
		dst_release(dst);
		kfree_skb(head);
		return sroce_net_count(sdev, -EHOSTUNREACH, n, 0);
	}
	memset(IPCB(head), 0, sizeof(*IPCB(head)));
	skb_dst_set(head, dst);
	head->dev = dst->dev;
	head->priority = path->priority;
	err = ip_local_out(net, NULL, head);
	return sroce_net_count(sdev, net_xmit_eval(err) ? -ENOBUFS : 0, n, bytes);
}
