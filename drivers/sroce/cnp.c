// SPDX-License-Identifier: GPL-2.0
/*
 * The notification point: a CE-marked packet for an RC, UC or UD QP is
 * answered with a CNP to its sender (annex A17.9.2): a connected QP's
 * peer, the source a datagram names. At most one per QP per
 * np_min_time_between_cnps, on the CNP's own DSCP and priority.
 * Documentation/congestion.rst.
 */
#include <kunit/visibility.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "cc.h"
#include "net.h"
#include "opcode.h"
#include "qp.h"
#include "sroce.h"
#include "wire.h"

/* Whether the IP header of a packet off the wire says CE. */
static bool sroce_cnp_ce(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	if (skb->protocol == htons(ETH_P_IPV6))
		return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
	return false;
}

bool sroce_cnp_ud_addrs(const struct sk_buff *skb, struct sroce_path *path)
{
	const struct ipv6hdr *ip6;
	const struct iphdr *ip4;

	if (skb->protocol == htons(ETH_P_IP)) {
		ip4 = ip_hdr(skb);
		/* All of 0.0.0.0/8: ipv4_is_zeronet() tests 0.0.0.0 alone. */
		if (ipv4_is_multicast(ip4->saddr) || ipv4_is_lbcast(ip4->saddr) ||
		    !(ip4->saddr & htonl(0xff000000)) ||
		    ipv4_is_loopback(ip4->saddr))
			return false;
		path->ipv6 = false;
		ipv6_addr_set_v4mapped(ip4->daddr, &path->saddr);
		ipv6_addr_set_v4mapped(ip4->saddr, &path->daddr);
		return true;
	}
	if (skb->protocol != htons(ETH_P_IPV6))
		return false;
	ip6 = ipv6_hdr(skb);
	/* IPV6_ADDR_ANY is no bit of ipv6_addr_type(): "::" is asked apart. */
	if (ipv6_addr_any(&ip6->saddr) ||
	    (ipv6_addr_type(&ip6->saddr) &
	     (IPV6_ADDR_MULTICAST | IPV6_ADDR_LOOPBACK | IPV6_ADDR_MAPPED)))
		return false;
	path->ipv6 = true;
	path->saddr = ip6->daddr;
	path->daddr = ip6->saddr;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cnp_ud_addrs);

/*
 * Where a CNP for a datagram goes: back to its sender (the addresses of
 * sroce_cnp_ud_addrs()), on the netdev it came in by, to the QP its DETH
 * names. False for a source no CNP may go to. The DSCP and priority are
 * the caller's.
 */
static bool sroce_cnp_ud_path(struct sroce_dev *sdev, struct sroce_qp *qp,
			      const struct sk_buff *skb, struct sroce_path *path,
			      u32 *dqpn)
{
	const struct sroce_deth *deth = (const void *)(skb->data +
						       sizeof(struct sroce_bth));

	memset(path, 0, sizeof(*path));
	if (!sroce_cnp_ud_addrs(skb, path))
		return false;
	*dqpn = sroce_deth_sqpn(deth);
	path->hop_limit = 64;
	path->lqpn = qp->ibqp.qp_num;
	path->sport = cpu_to_be16(rdma_get_udp_sport(0, path->lqpn, *dqpn));
	/* A VLAN of the device's netdev: the CNP goes back out of it. */
	if (skb->dev && skb->dev != sdev->ndev &&
	    net_eq(dev_net(skb->dev), dev_net(sdev->ndev)))
		path->ifindex = skb->dev->ifindex;
	return true;
}

/* BTH (CNP opcode, BECN, @dqpn), 16 zero bytes; the ICRC is net.c's. */
static void sroce_cnp_send(struct sroce_dev *sdev, struct sroce_path *path,
			   u32 dqpn)
{
	struct sroce_bth *bth;
	struct sk_buff *skb;

	skb = sroce_net_alloc_skb(sdev, sizeof(*bth) + SROCE_CNP_RESERVED);
	if (!skb) {
		sroce_count(sdev, SROCE_CNT_TX_DROP);
		return;
	}
	path->tclass = READ_ONCE(sdev->cc.knob[SROCE_CC_NP_CNP_DSCP]) << 2;
	path->priority = READ_ONCE(sdev->cc.knob[SROCE_CC_NP_CNP_PRIO]);
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, SROCE_OPCODE_CNP, false, 0, SROCE_PKEY_DEFAULT,
		       dqpn, 0, false);
	sroce_bth_set_becn(bth, true);
	skb_put_zero(skb, SROCE_CNP_RESERVED);
	/* The QP's route cache is keyed to its own priority: none here. */
	if (!sroce_net_xmit(sdev, path, NULL, skb))
		sroce_count(sdev, SROCE_CNT_NP_CNP_SENT);
}

/* Whether the QP's CNP interval is over; if so, it starts again now. */
static bool sroce_cnp_slot(struct sroce_dev *sdev, struct sroce_cc_qp *cc)
{
	u64 now = ktime_get_ns();
	u64 last = atomic64_read(&cc->np_last);

	if (!sroce_cnp_due(last, now,
			   READ_ONCE(sdev->cc.knob[SROCE_CC_NP_MIN_TIME])))
		return false;
	/* One CPU wins the slot; a packet racing it on another sends none. */
	return atomic64_try_cmpxchg(&cc->np_last, &last, now);
}

void sroce_cc_np_recv(struct sroce_qp *qp, const struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	enum ib_qp_type type = qp->ibqp.qp_type;
	struct sroce_path path;
	u32 dqpn;

	if ((type != IB_QPT_RC && type != IB_QPT_UC && type != IB_QPT_UD) ||
	    bth->opcode == SROCE_OPCODE_CNP || !sroce_cnp_ce(skb))
		return;
	sroce_count(sdev, SROCE_CNT_NP_ECN_MARKED);
	if (!READ_ONCE(qp->cc.np_on))
		return;
	if (type != IB_QPT_UD) {
		path = qp->req.path;
		dqpn = qp->params.dest_qpn;
	} else if (!sroce_cnp_ud_path(sdev, qp, skb, &path, &dqpn)) {
		return;	/* before the slot: such a source costs no one a CNP */
	}
	if (sroce_cnp_slot(sdev, &qp->cc))
		sroce_cnp_send(sdev, &path, dqpn);
}
