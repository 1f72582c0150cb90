/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ingress: every received RoCEv2 datagram checked once and handed to
 * its engine (recv.c).
 */
#ifndef _SROCE_RECV_H
#define _SROCE_RECV_H

#include <linux/skbuff.h>

struct sroce_dev;

/**
 * sroce_recv() - take one received RoCEv2 datagram
 * @sdev: device of the netdev the datagram came in on
 * @skb: the datagram, UDP header pulled; consumed
 *
 * Context: softirq.
 */
void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb);

/**
 * sroce_recv_local() - take one datagram sent by this host to itself
 * @sdev: the device it was sent on
 * @skb: as for sroce_recv(); consumed
 *
 * Every check of sroce_recv() but the ICRC's: the datagram comes from
 * sroce_net_xmit(), never from a wire, so it carries none (zeros).
 * Nothing received from a socket or a netdev may be passed here.
 *
 * Context: softirqs disabled.
 */
void sroce_recv_local(struct sroce_dev *sdev, struct sk_buff *skb);

#endif /* _SROCE_RECV_H */
