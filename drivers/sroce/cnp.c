// SPDX-License-Identifier: GPL-2.0
/*
 * The notification point: a CE-marked packet for a connected QP is
 * answered with a CNP to the QP's peer (annex A17.9.2), at most one per
 * QP per np_min_time_between_cnps, on the CNP's own DSCP and priority.
 * Documentation/congestion.rst.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/inet_ecn.h>

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

/* BTH (CNP opcode, BECN, the peer QP), 16 zero bytes; the ICRC is net.c's. */
static void sroce_cnp_send(struct sroce_dev *sdev, struct sroce_qp *qp)
{
	struct sroce_path path = qp->req.path;
	struct sroce_bth *bth;
	struct sk_buff *skb;

	skb = sroce_net_alloc_skb(sdev, sizeof(*bth) + SROCE_CNP_RESERVED);
	if (!skb) {
		sroce_count(sdev, SROCE_CNT_TX_DROP);
		return;
	}
	path.tclass = READ_ONCE(sdev->cc.knob[SROCE_CC_NP_CNP_DSCP]) << 2;
	path.priority = READ_ONCE(sdev->cc.knob[SROCE_CC_NP_CNP_PRIO]);
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, SROCE_OPCODE_CNP, false, 0, SROCE_PKEY_DEFAULT,
		       qp->params.dest_qpn, 0, false);
	sroce_bth_set_becn(bth, true);
	skb_put_zero(skb, SROCE_CNP_RESERVED);
	/* The QP's route cache is keyed to its own priority: none here. */
	if (!sroce_net_xmit(sdev, &path, NULL, skb))
		sroce_count(sdev, SROCE_CNT_NP_CNP_SENT);
}

void sroce_cc_np_recv(struct sroce_qp *qp, const struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_cc_qp *cc = &qp->cc;
	u64 now, last;

	if ((qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC) ||
	    !sroce_cnp_ce(skb))
		return;
	sroce_count(sdev, SROCE_CNT_NP_ECN_MARKED);
	if (!READ_ONCE(cc->np_on))
		return;
	now = ktime_get_ns();
	last = atomic64_read(&cc->np_last);
	if (!sroce_cnp_due(last, now,
			   READ_ONCE(sdev->cc.knob[SROCE_CC_NP_MIN_TIME])))
		return;
	/* One CPU wins the slot; a packet racing it on another sends none. */
	if (!atomic64_try_cmpxchg(&cc->np_last, &last, now))
		return;
	sroce_cnp_send(sdev, qp);
}
