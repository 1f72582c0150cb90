// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups of UD QPs. Documentation/datapath.rst, "Multicast".
 *
 * A group is a multicast GID: an IPv6 multicast address, or an IPv4 one
 * in IPv4-mapped form. The first QP attached to a group joins the IP
 * group on the netdev (IGMP or MLD reports go out, and the IP stack then
 * accepts the group's datagrams, from other hosts and looped back from
 * our own sends); the last one detached leaves it. A datagram for the
 * multicast QPN (0xffffff) to a group's address is handed to every QP
 * attached to it, the sender's own included.
 *
 * Attach and detach sleep (the joins take RTNL) and are serialised by
 * mcg_mutex; the packet path reads the groups under mcg_lock, which the
 * writers take around each change.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "mcast.h"
#include "sroce.h"

/**
 * struct sroce_mcg - a multicast group with QPs attached
 * @node: in &sroce_dev.mcgs
 * @mgid: the group's GID
 * @nqp: QPs attached
 * @qpn: their numbers, the first @nqp used
 */
struct sroce_mcg {
	struct list_head node;
	union ib_gid mgid;
	u32 nqp;
	u32 qpn[SROCE_MAX_MCAST_QP_ATTACH];
};

/* An IPv4 group in IPv4-mapped form, or an IPv6 multicast address. */
static bool sroce_mgid_valid(const union ib_gid *mgid)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

bool sroce_mcast_dest(const struct sk_buff *skb, union ib_gid *mgid)
{
	/* RoCE v1: the GRH's DGID, a group in either form. */
	if (skb->protocol == htons(ETH_P_IBOE)) {
		*mgid = ((const struct ib_grh *)skb_network_header(skb))->dgid;
		return sroce_mgid_valid(mgid);
	}
	if (skb->protocol == htons(ETH_P_IP)) {
		if (!ipv4_is_multicast(ip_hdr(skb)->daddr))
			return false;
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)mgid->raw);
		return true;
	}
	if (!ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr))
		return false;
	memcpy(mgid->raw, &ipv6_hdr(skb)->daddr, sizeof(mgid->raw));
	return true;
}

static struct sroce_mcg *sroce_mcg_find(struct sroce_dev *sdev,
					const union ib_gid *mgid)
{
	struct sroce_mcg *g;

	list_for_each_entry(g, &sdev->mcgs, node)
		if (!memcmp(g->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return g;
	return NULL;
}

u32 sroce_mcast_members(struct sroce_dev *sdev, const union ib_gid *mgid,
			u32 *qpn)
{
	struct sroce_mcg *g;
	u32 n = 0;

	spin_lock_bh(&sdev->mcg_lock);
	g = sroce_mcg_find(sdev, mgid);
	if (g) {
		n = g->nqp;
		memcpy(qpn, g->qpn, n * sizeof(*qpn));
	}
	spin_unlock_bh(&sdev->mcg_lock);
	return n;
}

/* Whether the IPv4 stack has @addr among @in_dev's groups. */
static bool sroce_in_dev_joined(struct in_device *in_dev, __be32 addr)
{
	struct ip_mc_list *im;

	ASSERT_RTNL();
	for (im = rtnl_dereference(in_dev->mc_list); im;
	     im = rtnl_dereference(im->next_rcu))
		if (im->multiaddr == addr)
			return true;
	return false;
}

/* Join or leave the IP group on our netdev. */
static int sroce_mcg_ip(struct sroce_dev *sdev, const union ib_gid *mgid,
			bool join)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int err = 0;

	if (ipv6_addr_v4mapped(a)) {
		rtnl_lock();
		in_dev = __in_dev_get_rtnl(sdev->ndev);
		if (!in_dev) {
			err = -ENODEV;
		} else if (join) {
			ip_mc_inc_group(in_dev, a->s6_addr32[3]);
			/* Returns nothing, yet fails when it cannot allocate. */
			if (!sroce_in_dev_joined(in_dev, a->s6_addr32[3]))
				err = -ENOMEM;
		} else {
			ip_mc_dec_group(in_dev, a->s6_addr32[3]);
		}
		rtnl_unlock();
		return err;
	}
	if (!IS_ENABLED(CONFIG_IPV6))
		return -EAFNOSUPPORT;
	/* 6.1 wants RTNL here too; later kernels lock inside, under it. */
	rtnl_lock();
	err = join ? ipv6_dev_mc_inc(sdev->ndev, a) :
		     ipv6_dev_mc_dec(sdev->ndev, a);
	rtnl_unlock();
	return err;
}

/* Take the QP at @i out of @g; an empty group is left and freed. */
static void sroce_mcg_remove(struct sroce_dev *sdev, struct sroce_mcg *g,
			     u32 i)
{
	bool empty;

	lockdep_assert_held(&sdev->mcg_mutex);
	spin_lock_bh(&sdev->mcg_lock);
	g->qpn[i] = g->qpn[--g->nqp];
	empty = !g->nqp;
	if (empty)
		list_del(&g->node);
	spin_unlock_bh(&sdev->mcg_lock);
	if (!empty)
		return;
	/* Out of the list under the lock: no reader sees it any more. */
	sdev->nmcg--;
	sroce_mcg_ip(sdev, &g->mgid, false);
	kfree(g);
}

static int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcg *g;
	int err = 0;
	u32 i;

	if (ibqp->qp_type != IB_QPT_UD || !sroce_mgid_valid(mgid))
		return -EINVAL;
	mutex_lock(&sdev->mcg_mutex);
	g = sroce_mcg_find(sdev, mgid);
	if (!g) {
		if (sdev->nmcg >= SROCE_MAX_MCAST_GRP) {
			err = -ENOMEM;
			goto out;
		}
		g = kzalloc_obj(*g, GFP_KERNEL);
		if (!g) {
			err = -ENOMEM;
			goto out;
		}
		g->mgid = *mgid;
		err = sroce_mcg_ip(sdev, mgid, true);
		if (err) {
			kfree(g);
			goto out;
		}
		spin_lock_bh(&sdev->mcg_lock);
		list_add_tail(&g->node, &sdev->mcgs);
		spin_unlock_bh(&sdev->mcg_lock);
		sdev->nmcg++;
	}
	/* Attaching again changes nothing. */
	for (i = 0; i < g->nqp; i++)
		if (g->qpn[i] == ibqp->qp_num)
			goto out;
	if (g->nqp == SROCE_MAX_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto out;
	}
	spin_lock_bh(&sdev->mcg_lock);
	g->qpn[g->nqp++] = ibqp->qp_num;
	spin_unlock_bh(&sdev->mcg_lock);
out:
	mutex_unlock(&sdev->mcg_mutex);
	return err;
}

static int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcg *g;
	int err = -EINVAL;
	u32 i;

	mutex_lock(&sdev->mcg_mutex);
	g = sroce_mcg_find(sdev, mgid);
	for (i = 0; g && i < g->nqp; i++) {
		if (g->qpn[i] == ibqp->qp_num) {
			sroce_mcg_remove(sdev, g, i);
			err = 0;
			break;
		}
	}
	mutex_unlock(&sdev->mcg_mutex);
	return err;
}

void sroce_mcast_qp_gone(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_mcg *g, *next;
	u32 i;

	mutex_lock(&sdev->mcg_mutex);
	list_for_each_entry_safe(g, next, &sdev->mcgs, node) {
		for (i = 0; i < g->nqp; i++) {
			if (g->qpn[i] == qpn) {
				sroce_mcg_remove(sdev, g, i);
				break;
			}
		}
	}
	mutex_unlock(&sdev->mcg_mutex);
}

static const struct ib_device_ops sroce_mcast_ops = {
	.attach_mcast = sroce_attach_mcast,
	.detach_mcast = sroce_detach_mcast,
};

void sroce_mcast_init(struct sroce_dev *sdev)
{
	mutex_init(&sdev->mcg_mutex);
	spin_lock_init(&sdev->mcg_lock);
	INIT_LIST_HEAD(&sdev->mcgs);
	ib_set_device_ops(&sdev->ibdev, &sroce_mcast_ops);
}
