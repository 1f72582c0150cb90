/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast groups: attach and detach, and the receive path's lookup
 * (mcast.c).
 */
#ifndef _SROCE_MCAST_H
#define _SROCE_MCAST_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;

/**
 * sroce_mcast_init() - prepare a device's multicast groups and verbs
 * @sdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_mcast_init(struct sroce_dev *sdev);

/**
 * sroce_mcast_dest() - whether a datagram was sent to a multicast group
 * @skb: a received RoCEv2 datagram, its IP header at the network header,
 *	or a RoCE v1 packet (ETH_P_IBOE), its GRH there
 * @mgid: filled with the group's GID when it was
 *
 * Context: any.
 * Return: true for an IPv4 or IPv6 multicast destination (for RoCE v1, a
 * DGID that is an IPv6 multicast address or an IPv4 one, mapped).
 */
bool sroce_mcast_dest(const struct sk_buff *skb, union ib_gid *mgid);

/**
 * sroce_mcast_members() - the QPs attached to a group, now
 * @sdev: the device
 * @mgid: the group
 * @qpn: room for SROCE_MAX_MCAST_QP_ATTACH numbers, filled
 *
 * Context: any (softirq on the packet path).
 * Return: how many QPs are attached (0 for a group we do not know).
 */
u32 sroce_mcast_members(struct sroce_dev *sdev, const union ib_gid *mgid,
			u32 *qpn);

/**
 * sroce_mcast_qp_gone() - detach a QP being destroyed from every group
 * @sdev: the device
 * @qpn: the QP's number
 *
 * Consumers detach before they destroy; this covers one that did not.
 *
 * Context: process context.
 */
void sroce_mcast_qp_gone(struct sroce_dev *sdev, u32 qpn);

#endif /* _SROCE_MCAST_H */
