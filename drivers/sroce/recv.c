// SPDX-License-Identifier: GPL-2.0
/*
 * Ingress: every RoCEv2 datagram is checked here, once, before anything in
 * it is trusted. The checks run in this order; the first that fails drops
 * the packet and counts it under its reason (`rdma statistic`):
 *
 *  1. a BTH and an ICRC fit                               rx_drop_short
 *  2. transport version 0                                 rx_drop_header
 *  3. the opcode exists on a transport sroce speaks       rx_drop_opcode
 *  4. the opcode's headers, pad and ICRC fit              rx_drop_short
 *     and pad only where there is payload                 rx_drop_header
 *  5. the ICRC                                            rx_drop_icrc
 *  6. the P_Key is valid: its partition is not 0          rx_drop_pkey
 *  7. the destination QP exists                           rx_drop_no_qp
 *     the multicast QPN goes with a multicast address,    rx_drop_mcast
 *     of a group with a QP of ours attached
 *  8. the opcode belongs to the QP's transport            rx_drop_opcode
 *  9. the QP's state receives (RTR, RTS, SQD, SQE)        rx_drop_qp_state
 * 10. the P_Key matches the QP's partition (pkey.c;       rx_drop_pkey
 *     for the GSI QP, any entry of the port's table)
 * 11. a connected QP's packet comes from its peer:        rx_drop_path
 *     source and destination address are the QP's path
 *     (reversed), in RoCE v1 frames for a RoCE v1 QP
 *     and in UDP for a RoCEv2 one; in this host, the
 *     sender is the QP's destination QP
 *
 * A packet that passes goes to the QP's engines: requests to the responder
 * (RC, UC), responses to the completer (RC), datagrams to ud.c (UD, GSI),
 * CNPs to the QP's reaction point (cc.c); a packet off the wire marked CE
 * is first shown to the QP's notification point (cnp.c). The QP is held
 * (sroce_qp_get()) for as long as the packet is with it, so a destroy
 * waits.
 *
 * Check 11 is what keeps an off-path sender from injecting into, or
 * completing the requests of, a connected QP whose PSNs and QPN it has
 * learned: IBTA gives RoCE no more than the addresses (a sender that can
 * forge the peer's address is beyond it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>

#include "cc.h"
#include "comp.h"
#include "counters.h"
#include "icrc.h"
#include "mcast.h"
#include "net.h"
#include "opcode.h"
#include "pkey.h"
#include "qp.h"
#include "recv.h"
#include "resp.h"
#include "sroce.h"
#include "ud.h"
#include "wire.h"

static enum sroce_counter
sroce_recv_check_headers(struct sk_buff *skb, struct sroce_opcode_info *info)
{
	const struct sroce_bth *bth;
	unsigned int pad;

	if (skb->len < sizeof(*bth) + SROCE_ICRC_BYTES ||
	    !pskb_may_pull(skb, sizeof(*bth)))
		return SROCE_CNT_RX_DROP_SHORT;
	bth = (const struct sroce_bth *)skb->data;
	if (sroce_bth_tver(bth) != SROCE_BTH_TVER)
		return SROCE_CNT_RX_DROP_HEADER;
	if (!sroce_opcode_decode(bth->opcode, info))
		return SROCE_CNT_RX_DROP_OPCODE;
	pad = sroce_bth_pad(bth);
	if (skb->len < info->hdr_len + pad + SROCE_ICRC_BYTES ||
	    !pskb_may_pull(skb, info->hdr_len))
		return SROCE_CNT_RX_DROP_SHORT;
	if (pad && !(info->hdrs & SROCE_HDR_PAYLOAD))
		return SROCE_CNT_RX_DROP_HEADER;
	return SROCE_NUM_COUNTERS;
}

/* The ICRC IBTA defines; for a FLUSH, rdma_rxe's too (sroce_icrc_rxe_flush()). */
static bool sroce_recv_icrc_ok(struct sk_buff *skb,
			       const struct sroce_opcode_info *info)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	__le32 wire;
	u32 icrc;

	if (sroce_icrc_skb(skb, &icrc) ||
	    skb_copy_bits(skb, skb->len - SROCE_ICRC_BYTES, &wire, sizeof(wire)))
		return false;
	if (le32_to_cpu(wire) == icrc)
		return true;
	return bth->opcode == SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_FLUSH) &&
	       skb->len == info->hdr_len + SROCE_ICRC_BYTES &&
	       le32_to_cpu(wire) == sroce_icrc_rxe_flush(icrc, skb->data,
							 info->hdr_len);
}

static bool sroce_qp_state_receives(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/*
 * Check 10: the packet is in the QP's partition (IBTA 10.9.3); the GSI
 * QP's partitions are all those of the port.
 */
static bool sroce_recv_pkey_ok(const struct sroce_qp *qp,
			       const struct sroce_bth *bth)
{
	u16 pkey = be16_to_cpu(bth->pkey);

	if (qp->ibqp.qp_type == IB_QPT_GSI)
		return sroce_pkey_find(&to_sdev(qp->ibqp.device)->pkeys,
				       pkey) >= 0;
	return sroce_pkey_match(pkey, sroce_qp_pkey(qp));
}

/* Checks 7 to 10: the QP. Returns the held QP, or NULL with *why set. */
static struct sroce_qp *sroce_recv_find_qp(struct sroce_dev *sdev,
					   const struct sroce_bth *bth,
					   enum sroce_counter *why)
{
	struct sroce_qp *qp;

	qp = sroce_qp_get(sdev, sroce_bth_qpn(bth));
	if (!qp) {
		*why = SROCE_CNT_RX_DROP_NO_QP;
		return NULL;
	}
	if (bth->opcode != SROCE_OPCODE_CNP &&
	    !sroce_opcode_valid_for(bth->opcode, qp->ibqp.qp_type)) {
		*why = SROCE_CNT_RX_DROP_OPCODE;
		goto err_put;
	}
	if (!sroce_qp_state_receives(READ_ONCE(qp->state))) {
		*why = SROCE_CNT_RX_DROP_QP_STATE;
		goto err_put;
	}
	if (!sroce_recv_pkey_ok(qp, bth)) {
		*why = SROCE_CNT_RX_DROP_PKEY;
		goto err_put;
	}
	return qp;

err_put:
	sroce_qp_put(qp);
	return NULL;
}

/*
 * Check 11: a connected QP takes packets from its peer only. Off the wire
 * that is the addresses: from the QP's destination GID to its source GID
 * (IPv4 ones mapped). In this host, where every address is ours, it is
 * the sending QP, which net.c wrote beside the datagram.
 */
static bool sroce_recv_from_peer(const struct sroce_qp *qp,
				 const struct sk_buff *skb, bool wire)
{
	const struct sroce_path *p = &qp->req.path;
	bool v1 = skb->protocol == htons(ETH_P_IBOE);
	const struct ipv6hdr *ip6;
	const struct iphdr *ip4;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return true;
	if (!wire)
		return SROCE_SKB_CB(skb)->src_qpn == qp->params.dest_qpn;
	/* A RoCE v1 QP takes RoCE v1 frames, a RoCEv2 one UDP datagrams. */
	if (p->v1 != v1)
		return false;
	if (v1) {
		/* The GRH has an IPv6 header's layout, and GIDs its addresses. */
		ip6 = ipv6_hdr(skb);
		return ipv6_addr_equal(&ip6->saddr, &p->daddr) &&
		       ipv6_addr_equal(&ip6->daddr, &p->saddr);
	}
	if (skb->protocol == htons(ETH_P_IP)) {
		ip4 = ip_hdr(skb);
		return !p->ipv6 && ip4->saddr == p->daddr.s6_addr32[3] &&
		       ip4->daddr == p->saddr.s6_addr32[3];
	}
	if (skb->protocol != htons(ETH_P_IPV6))
		return false;
	ip6 = ipv6_hdr(skb);
	return p->ipv6 && ipv6_addr_equal(&ip6->saddr, &p->daddr) &&
	       ipv6_addr_equal(&ip6->daddr, &p->saddr);
}

/* Requests go to the responder, responses to the completer. */
static void sroce_recv_dispatch(struct sroce_qp *qp, struct sk_buff *skb,
				const struct sroce_opcode_info *info)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);

	/* Check 8 let a CNP through to a QP of any type. */
	if (info->cls == SROCE_CLASS_CNP) {
		sroce_cc_cnp_recv(qp);
		return;
	}
	/* UC has no responses: check 8 kept them out. */
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		sroce_ud_recv(qp, skb, info);
		return;
	}
	switch (info->cls) {
	case SROCE_CLASS_SEND:
	case SROCE_CLASS_WRITE:
	case SROCE_CLASS_READ_REQ:
	case SROCE_CLASS_ATOMIC:
	case SROCE_CLASS_ATOMIC_WRITE:
	case SROCE_CLASS_FLUSH:
		sroce_resp_recv(qp, skb);
		break;
	case SROCE_CLASS_ACK:
	case SROCE_CLASS_READ_RESP:
	case SROCE_CLASS_ATOMIC_ACK:
		sroce_comp_recv(qp, skb);
		break;
	default:
		sroce_count(sdev, SROCE_CNT_RX_UNHANDLED);
		break;
	}
}

/*
 * A multicast datagram (checks 7 and 10 for it): a copy to every UD QP
 * attached to the group that is in a receiving state and in the
 * datagram's partition; each QP of another partition counts a P_Key drop.
 */
static void sroce_recv_mcast(struct sroce_dev *sdev, struct sk_buff *skb,
			     const struct sroce_opcode_info *info)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)skb->data;
	u32 qpn[SROCE_MAX_MCAST_QP_ATTACH], n, i;
	bool taken = false;
	struct sroce_qp *qp;
	union ib_gid mgid;

	if (!sroce_opcode_valid_for(bth->opcode, IB_QPT_UD)) {
		sroce_count_drop(sdev, SROCE_CNT_RX_DROP_OPCODE, U32_MAX, skb->len);
		return;
	}
	if (!sroce_mcast_dest(skb, &mgid)) {
		sroce_count_drop(sdev, SROCE_CNT_RX_DROP_MCAST, U32_MAX, skb->len);
		return;
	}
	n = sroce_mcast_members(sdev, &mgid, qpn);
	for (i = 0; i < n; i++) {
		qp = sroce_qp_get(sdev, qpn[i]);
		if (!qp)
			continue;
		if (sroce_qp_state_receives(READ_ONCE(qp->state))) {
			if (sroce_recv_pkey_ok(qp, bth))
				sroce_ud_recv(qp, skb, info);
			else
				sroce_count_drop(sdev, SROCE_CNT_RX_DROP_PKEY,
						 qpn[i], skb->len);
			taken = true;
		}
		sroce_qp_put(qp);
	}
	if (!taken)
		sroce_count_drop(sdev, SROCE_CNT_RX_DROP_MCAST, U32_MAX, skb->len);
}

/* Every check of ingress; the ICRC's only for a datagram off the wire. */
static void sroce_recv_one(struct sroce_dev *sdev, struct sk_buff *skb,
			   bool wire)
{
	struct sroce_opcode_info info;
	const struct sroce_bth *bth;
	enum sroce_counter why;
	union ib_gid mgid;
	struct sroce_qp *qp;

	sroce_count(sdev, SROCE_CNT_RX_PACKETS);
	sroce_count_n(sdev, SROCE_CNT_RX_BYTES, skb->len);

	why = sroce_recv_check_headers(skb, &info);
	if (why != SROCE_NUM_COUNTERS)
		goto drop;
	if (wire && !sroce_recv_icrc_ok(skb, &info)) {
		why = SROCE_CNT_RX_DROP_ICRC;
		goto drop;
	}
	/* pskb_may_pull() may have moved the data: take the BTH now. */
	bth = (const struct sroce_bth *)skb->data;
	if (!(be16_to_cpu(bth->pkey) & SROCE_PKEY_BASE)) {
		why = SROCE_CNT_RX_DROP_PKEY;
		goto drop;
	}
	if (sroce_bth_qpn(bth) == SROCE_QPN_MULTICAST) {
		sroce_recv_mcast(sdev, skb, &info);
		kfree_skb(skb);
		return;
	}
	if (sroce_mcast_dest(skb, &mgid)) {
		why = SROCE_CNT_RX_DROP_MCAST;
		goto drop;
	}
	qp = sroce_recv_find_qp(sdev, bth, &why);
	if (!qp)
		goto drop;
	if (!sroce_recv_from_peer(qp, skb, wire)) {
		sroce_qp_put(qp);
		why = SROCE_CNT_RX_DROP_PATH;
		goto drop;
	}

	if (wire)
		sroce_cc_np_recv(qp, skb);
	sroce_recv_dispatch(qp, skb, &info);
	sroce_qp_put(qp);
	kfree_skb(skb);
	return;

drop:
	sroce_count_drop(sdev, why, U32_MAX, skb->len);
	kfree_skb(skb);
}

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_recv_one(sdev, skb, true);
}

void sroce_recv_local(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_recv_one(sdev, skb, false);
}
