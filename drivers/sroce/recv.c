// SPDX-License-Identifier: GPL-2.0
/*
 * Ingress: every RoCEv2 datagram is checked here once before anything in
 * it is trusted. Until QPs exist, each well-formed one is counted and
 * dropped for want of a destination.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/skbuff.h>

#include "sroce.h"
#include "wire.h"

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_count(sdev, SROCE_CNT_RX_PACKETS);

	/* A BTH and an ICRC are the least a packet carries. */
	if (skb->len < sizeof(struct sroce_bth) + SROCE_ICRC_BYTES) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_SHORT);
		goto drop;
	}
	sroce_count(sdev, SROCE_CNT_RX_DROP_NO_QP);
drop:
	kfree_skb(skb);
}
