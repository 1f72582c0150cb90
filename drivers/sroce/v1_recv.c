// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v1 (IBTA annex A16), receive side: one handler for EtherType
 * 0x8915 on every netdev. A frame for a device with RoCE v1 on is checked
 * here up to its GRH, then goes through recv.c as a RoCEv2 datagram does,
 * with the same checks and counters; the GRH stays at the network header
 * (the ICRC, the connected QPs' peer check and UD's receive buffers read
 * it). The GRH checks, in order; a frame that fails is counted as
 * received and under its reason:
 *
 *  1. a GRH fits                                          rx_drop_short
 *  2. IPVer 6, NxtHdr 0x1B (a BTH follows)                rx_drop_header
 *  3. PayLen within the frame (Ethernet padding after     rx_drop_short
 *     it is cut off)
 *  4. a unicast DGID is a RoCE v1 GID of the port         rx_drop_path
 *
 * Frames for other hosts (promiscuous mode) and for netdevs without a
 * device with RoCE v1 on are freed uncounted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "counters.h"
#include "device.h"
#include "mcast.h"
#include "recv.h"
#include "sroce.h"
#include "v1.h"
#include "wire.h"

/* Whether @dgid is a RoCE v1 GID of @sdev's port. */
static bool sroce_v1_gid_ours(struct sroce_dev *sdev, const union ib_gid *dgid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(&sdev->ibdev, dgid, IB_GID_TYPE_ROCE,
				     SROCE_PORT_NUM, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/*
 * Checks 1 to 4. A frame that passes has its GRH at the network header
 * and its data at the BTH; one that fails, its data still at the GRH.
 * Returns the drop counter, or SROCE_NUM_COUNTERS to go on.
 */
static enum sroce_counter sroce_v1_check_grh(struct sroce_dev *sdev,
					     struct sk_buff *skb)
{
	const struct ib_grh *grh;
	union ib_gid mgid;
	unsigned int len;

	if (!pskb_may_pull(skb, sizeof(*grh)))
		return SROCE_CNT_RX_DROP_SHORT;
	grh = (const struct ib_grh *)skb->data;
	if (be32_to_cpu(grh->version_tclass_flow) >> 28 != SROCE_GRH_IPVER ||
	    grh->next_hdr != SROCE_GRH_NEXT_HDR)
		return SROCE_CNT_RX_DROP_HEADER;
	len = sizeof(*grh) + be16_to_cpu(grh->paylen);
	if (len > skb->len)
		return SROCE_CNT_RX_DROP_SHORT;
	if (pskb_trim_rcsum(skb, len))
		return SROCE_CNT_RX_DROP_SHORT;
	skb_reset_network_header(skb);
	grh = (const struct ib_grh *)skb->data;
	if (!sroce_mcast_dest(skb, &mgid) && !sroce_v1_gid_ours(sdev, &grh->dgid))
		return SROCE_CNT_RX_DROP_PATH;
	__skb_pull(skb, sizeof(*grh));
	return SROCE_NUM_COUNTERS;
}

static int sroce_v1_rcv(struct sk_buff *skb, struct net_device *ndev,
			struct packet_type *pt, struct net_device *orig_dev)
{
	struct sroce_dev *sdev;
	enum sroce_counter why;

	if (skb->pkt_type == PACKET_OTHERHOST ||
	    skb->pkt_type == PACKET_LOOPBACK) {
		kfree_skb(skb);
		return NET_RX_DROP;
	}
	sdev = sroce_dev_get_by_rx_netdev(ndev);
	if (!sdev || !sdev->roce_v1) {
		kfree_skb(skb);
		goto out;
	}
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		goto out;
	why = sroce_v1_check_grh(sdev, skb);
	if (why != SROCE_NUM_COUNTERS) {
		sroce_count(sdev, SROCE_CNT_RX_PACKETS);
		sroce_count_n(sdev, SROCE_CNT_RX_BYTES, skb->len);
		sroce_count_drop(sdev, why, U32_MAX, skb->len);
		kfree_skb(skb);
		goto out;
	}
	sroce_recv(sdev, skb);
	ib_device_put(&sdev->ibdev);
	return NET_RX_SUCCESS;

out:
	if (sdev)
		ib_device_put(&sdev->ibdev);
	return NET_RX_DROP;
}

static struct packet_type sroce_v1_packet_type __read_mostly = {
	.type = cpu_to_be16(ETH_P_IBOE),
	.func = sroce_v1_rcv,
};

void sroce_v1_init(void)
{
	dev_add_pack(&sroce_v1_packet_type);
}

void sroce_v1_exit(void)
{
	/* Waits for the handlers running (synchronize_net()). */
	dev_remove_pack(&sroce_v1_packet_type);
}
