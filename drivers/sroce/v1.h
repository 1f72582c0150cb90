/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCE v1 (IBTA annex A16): Ethernet frames of EtherType 0x8915 carrying a
 * GRH, the BTH and the rest of an IB packet, on devices created with the
 * roce_v1 module parameter on (v1.c transmits, v1_recv.c receives).
 */
#ifndef _SROCE_V1_H
#define _SROCE_V1_H

#include <linux/skbuff.h>

struct sroce_dev;
struct sroce_path;

/**
 * sroce_v1_xmit() - send one RoCE v1 packet
 * @sdev: the sending device
 * @path: where to; @path->v1 set
 * @skb: as for sroce_net_xmit(); consumed
 * @bytes: set to the bytes from the BTH to the ICRC when sent
 *
 * Adds the GRH and the ICRC and sends the frame, with an Ethernet header
 * to @path->dmac, through the source GID's netdev (a VLAN device tags it).
 * A frame to that netdev's own MAC address stays in this host: it goes to
 * the receive path as sroce_net_xmit() hands a local datagram, no ICRC.
 *
 * Context: any; softirqs may run. No lock the receive path takes.
 * Return: 0, -ENOBUFS when the netdev dropped the frame, another errno
 * when it could not be built.
 */
int sroce_v1_xmit(struct sroce_dev *sdev, const struct sroce_path *path,
		  struct sk_buff *skb, unsigned int *bytes);

/**
 * sroce_v1_is_local() - whether a RoCE v1 path ends in this host
 * @sdev: the device
 * @path: the path; @path->v1 set
 *
 * Context: any.
 * Return: true when the peer's MAC address is that of the path's netdev.
 */
bool sroce_v1_is_local(struct sroce_dev *sdev, const struct sroce_path *path);

/**
 * sroce_v1_init() - start receiving RoCE v1 frames
 *
 * One handler for EtherType 0x8915 on every netdev; frames that reach no
 * sroce device with RoCE v1 on are freed uncounted.
 *
 * Context: process context (module init).
 */
void sroce_v1_init(void);

/**
 * sroce_v1_exit() - stop receiving RoCE v1 frames
 *
 * Returns once no frame is in the handler any more.
 *
 * Context: process context (module exit).
 */
void sroce_v1_exit(void);

#endif /* _SROCE_V1_H */
