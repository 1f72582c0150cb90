// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v1 (IBTA annex A16), transmit side, on a device created with the
 * roce_v1 module parameter on: an IB packet from its GRH on is the payload
 * of an Ethernet frame of EtherType 0x8915 (ETH_P_IBOE). There is no IP
 * and no route: the frame goes to the MAC address the RDMA core resolved
 * into the QP's or AH's address, out of the source GID's netdev
 * (Documentation/verbs.rst, "RoCE v1"). The receive side is v1_recv.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "icrc.h"
#include "net.h"
#include "sroce.h"
#include "v1.h"
#include "wire.h"

static_assert(sizeof(struct ib_grh) == SROCE_GRH_BYTES);

/*
 * Put the GRH before the BTH and the ICRC (@crc) or zeros after the pad,
 * in the room left for it as in sroce_net_xmit().
 */
static int sroce_v1_seal(struct sk_buff *skb, const struct sroce_path *path,
			 bool crc)
{
	struct ib_grh *grh;
	u32 icrc = 0;
	int err = 0;

	if (!skb_is_nonlinear(skb))
		skb_put(skb, SROCE_ICRC_BYTES);
	grh = skb_push(skb, sizeof(*grh));
	skb_reset_network_header(skb);
	grh->version_tclass_flow = cpu_to_be32(SROCE_GRH_IPVER << 28 |
					       (u32)path->tclass << 20 |
					       (path->flow_label & 0xfffff));
	/* From the BTH to the end of the ICRC. */
	grh->paylen = cpu_to_be16(skb->len - sizeof(*grh));
	grh->next_hdr = SROCE_GRH_NEXT_HDR;
	grh->hop_limit = path->hop_limit;
	memcpy(grh->sgid.raw, &path->saddr, sizeof(grh->sgid.raw));
	memcpy(grh->dgid.raw, &path->daddr, sizeof(grh->dgid.raw));
	skb->protocol = htons(ETH_P_IBOE);
	/* Linear or in pages: the GRH and BTH are linear either way. */
	if (crc)
		err = sroce_icrc_skb(skb, &icrc);
	return sroce_net_store_icrc(skb, err ? 0 : icrc) ?: err;
}

bool sroce_v1_is_local(struct sroce_dev *sdev, const struct sroce_path *path)
{
	netdevice_tracker tracker;
	struct net_device *ndev;
	bool local;

	ndev = sroce_net_netdev_get(sdev, path, &tracker);
	local = ether_addr_equal(path->dmac, ndev->dev_addr);
	netdev_put(ndev, &tracker);
	return local;
}

/*
 * A multicast frame reaches the group's QPs in this host too, as RoCEv2's
 * IP multicast loops back: a copy goes to the receive path. Without memory
 * for it, only those QPs miss the datagram (UD is unreliable).
 */
static void sroce_v1_loop_mcast(struct sroce_dev *sdev,
				const struct sroce_path *path,
				const struct sk_buff *skb)
{
	struct sk_buff *copy;

	if (!is_multicast_ether_addr(path->dmac))
		return;
	copy = skb_copy(skb, GFP_ATOMIC);
	if (!copy)
		return;
	__skb_pull(copy, sizeof(struct ib_grh));
	sroce_net_deliver_local(sdev, path, copy);
}

int sroce_v1_xmit(struct sroce_dev *sdev, const struct sroce_path *path,
		  struct sk_buff *skb, unsigned int *bytes)
{
	netdevice_tracker tracker;
	struct net_device *ndev;
	bool local;
	int err;

	ndev = sroce_net_netdev_get(sdev, path, &tracker);
	local = ether_addr_equal(path->dmac, ndev->dev_addr);
	err = sroce_v1_seal(skb, path, !local);
	if (WARN_ON_ONCE(err))
		goto err_put;
	*bytes = skb->len - sizeof(struct ib_grh);
	if (local) {
		netdev_put(ndev, &tracker);
		__skb_pull(skb, sizeof(struct ib_grh));
		return sroce_net_deliver_local(sdev, path, skb);
	}
	sroce_v1_loop_mcast(sdev, path, skb);
	/* The Ethernet header, and a VLAN tag's room, before the GRH. */
	err = skb_cow_head(skb, LL_RESERVED_SPACE(ndev));
	if (err)
		goto err_put;
	skb->dev = ndev;
	skb->priority = path->priority;
	skb->ip_summed = CHECKSUM_NONE;
	if (dev_hard_header(skb, ndev, ETH_P_IBOE, path->dmac, ndev->dev_addr,
			    skb->len) < 0) {
		err = -EINVAL;
		goto err_put;
	}
	skb_reset_mac_header(skb);
	err = dev_queue_xmit(skb);
	netdev_put(ndev, &tracker);
	return net_xmit_eval(err) ? -ENOBUFS : 0;

err_put:
	netdev_put(ndev, &tracker);
	kfree_skb(skb);
	return err;
}
