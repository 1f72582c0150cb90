// SPDX-License-Identifier: GPL-2.0
/*
 * The datagram engine: UD QPs and the GSI QP (QP1, which carries the
 * MADs of the RDMA core's CM). Documentation/datapath.rst, "Datagrams".
 *
 * Send: each WQE is one SEND_ONLY packet (with immediate data: one
 * SEND_ONLY_IMM), addressed by the AH whose number the WQE carries, and
 * completes as soon as it is handed to the network; nothing is
 * acknowledged and nothing is sent again. The DETH names our QP and the
 * Q_Key: the WQE's, or the QP's own when the WQE's has its high bit set
 * (IBTA 10.2.5). A message larger than the port MTU sends nothing and
 * completes without error (IBTA C10-93.1.1); it is counted as tx_drop.
 * A WQE the requester cannot execute (an opcode other than SEND, an AH
 * that is not the QP's PD's, an lkey that does not cover the data)
 * completes in error and the QP enters SQE: its receive side goes on.
 *
 * Receive: a datagram whose Q_Key is not the QP's, whose payload is
 * larger than the port MTU, or that finds no receive WQE large enough
 * for it (40 bytes of GRH and the payload) is dropped and counted; the
 * WQE stays posted. Otherwise the WQE gets the packet's IP header in its
 * first 40 bytes, where the RDMA core and libibverbs look for the
 * sender's address (an IPv4 header in the last 20 bytes, an IPv6 header
 * in all 40; a RoCE v1 packet's GRH), then the payload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_addr.h>

#include "ah.h"
#include "cc.h"
#include "counters.h"
#include "cq.h"
#include "mr.h"
#include "net.h"
#include "opcode.h"
#include "psn.h"
#include "qp.h"
#include "queue.h"
#include "req.h"
#include "sroce.h"
#include "srq.h"
#include "tx.h"
#include "ud.h"
#include "wire.h"
#include "wqe.h"

/* Packets per pass before the work item yields, as for RC. */
#define SROCE_UD_BUDGET		64

/* Where a UD send WQE goes: out of its ring slot. */
struct sroce_ud_dest {
	u32 qpn;
	u32 qkey;
	u32 ah_num;
	u16 pkey;
};

/*
 * The partition a datagram goes in: for the GSI QP, the one its WR names
 * (the MAD layer answers in the partition a request came in); for a UD
 * QP, its own (the rxe user ABI has no P_Key index in a WQE).
 */
static u16 sroce_ud_pkey(const struct sroce_qp *qp,
			 const struct rxe_send_wqe *slot)
{
	u16 index = READ_ONCE(slot->wr.wr.ud.pkey_index);

	if (qp->ibqp.qp_type != IB_QPT_GSI || index >= SROCE_PKEY_TABLE_LEN)
		return sroce_qp_pkey(qp);
	return sroce_pkey_get(&to_sdev(qp->ibqp.device)->pkeys, index);
}

static u32 sroce_ud_mtu(struct sroce_qp *qp)
{
	return ib_mtu_enum_to_int(READ_ONCE(to_sdev(qp->ibqp.device)->active_mtu));
}

/*
 * Build and send the packet of @w. Returns 0 with the WQE's status in
 * *@status, -ENOMEM when it should be tried again, or -EFAULT when an
 * ODP page of its payload is to be faulted in first (sroce_wqe_gather()).
 */
static int sroce_ud_xmit(struct sroce_qp *qp, struct sroce_swqe *w,
			 const struct sroce_ud_dest *d,
			 enum ib_wc_status *status)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	bool imm = w->opcode == IB_WR_SEND_WITH_IMM;
	struct sroce_opcode_info info;
	struct sroce_path path;
	struct sroce_bth *bth;
	struct sk_buff *skb;
	u32 qkey, pad;
	u8 opcode;
	int err;

	*status = IB_WC_SUCCESS;
	if (sroce_ah_path(sdev, d->ah_num, qp->ibqp.pd, qp->ibqp.qp_num, d->qpn,
			  &path)) {
		*status = IB_WC_LOC_QP_OP_ERR;
		return 0;
	}
	sroce_cc_ud_path(qp, &path);
	if (w->length > sroce_ud_mtu(qp)) {
		sroce_count(sdev, SROCE_CNT_TX_DROP);
		return 0;
	}
	opcode = SROCE_OPCODE(SROCE_TR_UD, imm ? SROCE_OP_SEND_ONLY_IMM :
						 SROCE_OP_SEND_ONLY);
	if (WARN_ON_ONCE(!sroce_opcode_decode(opcode, &info)))
		return -EINVAL;
	pad = (4 - (w->length & 3)) & 3;
	skb = sroce_net_alloc_skb(sdev, info.hdr_len + w->length + pad);
	if (!skb)
		return -ENOMEM;
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, opcode, w->send_flags & IB_SEND_SOLICITED, pad,
		       d->pkey, d->qpn, qp->req.psn, false);
	qkey = d->qkey & SROCE_QKEY_CONTROLLED ? qp->params.qkey : d->qkey;
	sroce_deth_set(skb_put(skb, sizeof(struct sroce_deth)), qkey,
		       qp->ibqp.qp_num);
	if (imm)
		((struct sroce_immdt *)skb_put(skb, sizeof(struct sroce_immdt)))->imm = w->imm;
	qp->req.offset = 0;
	qp->req.sge = 0;
	qp->req.sge_off = 0;
	err = sroce_wqe_gather(qp, w, skb_put(skb, w->length), w->length);
	if (err) {
		kfree_skb(skb);
		/* ODP: the work item faults the pages in, then sends it. */
		if (err == -EFAULT)
			return err;
		*status = IB_WC_LOC_PROT_ERR;
		return 0;
	}
	skb_put_zero(skb, pad);
	qp->req.psn = sroce_psn_add(qp->req.psn, 1);

	/* The bucket and DCQCN, when the QP is paced; a no-op when not. */
	sroce_cc_tx_sent(qp, skb->len);
	sroce_tx_charge(qp, skb);
	/* Unreliable: a datagram the stack drops is simply lost. */
	sroce_net_xmit(sdev, &path, NULL, skb);
	return 0;
}

/*
 * Complete the WQE at send ring index @idx, unless a flush (SQE, ERR) or
 * a reset took it meanwhile. Returns: 1 to notify the CQ, 0 not,
 * -ENOSPC when the CQ overflowed (the QP is then to go to ERR).
 */
static int sroce_ud_complete(struct sroce_qp *qp, u32 idx,
			     const struct sroce_swqe *w)
{
	struct ib_wc wc = {
		.wr_id = w->wr_id,
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_SEND,
		.byte_len = w->length,
		.qp = &qp->ibqp,
	};
	bool signaled = qp->sig_all || (w->send_flags & IB_SEND_SIGNALED);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->sq.index == idx && (qp->state == IB_QPS_RTS ||
				    qp->state == IB_QPS_SQD)) {
		/* The slot back first: sroce_comp_done() says why. */
		sroce_queue_advance(&qp->sq);
		qp->req.pos = qp->sq.index;
		if (signaled)
			ret = sroce_cq_add(qp->ibqp.send_cq, &wc,
					   qp->ibqp.qp_num, false);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return ret;
}

bool sroce_ud_pass(struct sroce_qp *qp)
{
	const struct rxe_send_wqe *slot;
	unsigned int budget = SROCE_UD_BUDGET;
	enum ib_wc_status status;
	struct sroce_ud_dest d;
	struct sroce_swqe *w;
	bool notify = false;
	int err = 0;
	u32 idx;

	while (budget--) {
		if (READ_ONCE(qp->state) != IB_QPS_RTS) {
			/* Each WQE completes when sent: stopped, it is drained. */
			if (READ_ONCE(qp->state) == IB_QPS_SQD)
				sroce_qp_sqd_boundary(qp);
			break;
		}
		idx = READ_ONCE(qp->sq.index);
		/* Acquire pairs with the producer's release: the WQE is whole. */
		if (idx == (smp_load_acquire(&qp->sq.ring->producer) & qp->sq.mask))
			break;
		if (sroce_tx_throttled(qp))
			break;	/* the queue's drain kicks us */
		qp->req.pos = idx;
		w = sroce_req_swqe(&qp->req, idx);
		err = sroce_wqe_fetch(qp, w);
		if (!err && w->opcode != IB_WR_SEND && w->opcode != IB_WR_SEND_WITH_IMM)
			err = -EOPNOTSUPP;
		if (err) {
			sroce_qp_fail_send(qp, idx, err == -EOPNOTSUPP ?
					   IB_WC_LOC_QP_OP_ERR : IB_WC_LOC_LEN_ERR);
			break;
		}
		slot = (const void *)(qp->sq.ring->data +
				      ((size_t)idx << qp->sq.log2_elem));
		d.qpn = READ_ONCE(slot->wr.wr.ud.remote_qpn) & SROCE_24BIT_MASK;
		d.qkey = READ_ONCE(slot->wr.wr.ud.remote_qkey);
		d.ah_num = READ_ONCE(slot->wr.wr.ud.ah_num);
		d.pkey = sroce_ud_pkey(qp, slot);
		err = sroce_ud_xmit(qp, w, &d, &status);
		if (err)
			break;
		if (status != IB_WC_SUCCESS) {
			sroce_qp_fail_send(qp, idx, status);
			break;
		}
		err = sroce_ud_complete(qp, idx, w);
		if (err < 0) {
			/* The send CQ overflowed: the QP fails with it. */
			sroce_qp_enter_error(qp, IB_QPS_ERR);
			break;
		}
		notify |= err > 0;
		err = 0;
	}
	if (notify)
		sroce_cq_notify(qp->ibqp.send_cq);
	/* Out of budget or memory, or an ODP fault: the work item goes on. */
	return budget == UINT_MAX || err == -ENOMEM || err == -EFAULT;
}

/*
 * The sender's IP header, where RoCEv2 puts it in the 40 GRH bytes; for
 * RoCE v1, the GRH itself. The type is what the RDMA core turns into the
 * GID type of a reply (ib_network_to_gid_type()): RDMA_NETWORK_IB would
 * say IB_GID_TYPE_IB, which a RoCE port has none of.
 */
static enum rdma_network_type sroce_ud_grh(const struct sk_buff *skb,
					   u8 grh[SROCE_GRH_BYTES])
{
	memset(grh, 0, SROCE_GRH_BYTES);
	if (skb->protocol == htons(ETH_P_IP)) {
		memcpy(grh + SROCE_GRH_BYTES - sizeof(struct iphdr), ip_hdr(skb),
		       sizeof(struct iphdr));
		return RDMA_NETWORK_IPV4;
	}
	memcpy(grh, skb_network_header(skb), SROCE_GRH_BYTES);
	if (skb->protocol == htons(ETH_P_IBOE))
		return RDMA_NETWORK_ROCE_V1;
	return RDMA_NETWORK_IPV6;
}

struct sroce_flat {
	const u8 *src;
};

static void sroce_flat_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_flat *f = ctx;

	memcpy(kaddr, f->src, len);
	f->src += len;
}

static int sroce_ud_take(struct sroce_qp *qp, struct sroce_rwqe *wqe, u32 need)
{
	int err;

	if (qp->ibqp.srq)
		return sroce_srq_take(to_ssrq(qp->ibqp.srq), wqe, need);
	spin_lock(&qp->rq_lock);
	err = sroce_rwqe_take(&qp->rq, qp->cap.max_recv_sge, wqe, need);
	spin_unlock(&qp->rq_lock);
	return err;
}

/* Place the GRH and the payload into @wqe. Returns: the WQE's status. */
static enum ib_wc_status sroce_ud_place(struct sroce_qp *qp,
					const struct sk_buff *skb,
					const struct sroce_rwqe *wqe,
					unsigned int off, u32 pay,
					enum rdma_network_type *type)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_skb_cursor c = { .skb = skb, .off = off };
	u8 grh[SROCE_GRH_BYTES];
	struct sroce_flat f = { .src = grh };

	*type = sroce_ud_grh(skb, grh);
	if (sroce_sge_walk(sdev, qp->ibqp.pd, wqe->sge, wqe->num_sge, 0,
			   SROCE_GRH_BYTES, IB_ACCESS_LOCAL_WRITE,
			   sroce_flat_piece, &f) ||
	    sroce_sge_walk(sdev, qp->ibqp.pd, wqe->sge, wqe->num_sge,
			   SROCE_GRH_BYTES, pay, IB_ACCESS_LOCAL_WRITE,
			   sroce_skb_copy_piece, &c))
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_SUCCESS;
}

/*
 * The entry of the table a datagram came in by, for its completion: the
 * MAD layer answers a GSI request in the same partition.
 */
static u16 sroce_ud_pkey_index(const struct sroce_qp *qp,
			       const struct sroce_bth *bth)
{
	int i;

	if (qp->ibqp.qp_type != IB_QPT_GSI)
		return READ_ONCE(qp->params.pkey_index);
	i = sroce_pkey_find(&to_sdev(qp->ibqp.device)->pkeys,
			    be16_to_cpu(bth->pkey));
	/* Emptied since recv.c matched it: the default entry. */
	return i < 0 ? 0 : i;
}

void sroce_ud_recv(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_opcode_info *info)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	const struct sroce_deth *deth = (const void *)(bth + 1);
	struct sroce_rwqe *wqe = qp->resp.wqe;
	struct ib_wc wc = {
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.src_qp = sroce_deth_sqpn(deth),
		.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE,
		.port_num = SROCE_PORT_NUM,
		.pkey_index = sroce_ud_pkey_index(qp, bth),
	};
	enum rdma_network_type type;
	bool notify, fail;
	u32 pay;
	int err;

	/* recv.c checked that these fit; UD has only SEND_ONLY opcodes. */
	pay = skb->len - info->hdr_len - sroce_bth_pad(bth) - SROCE_ICRC_BYTES;
	if (be32_to_cpu(deth->qkey) != READ_ONCE(qp->params.qkey)) {
		sroce_count_drop(sdev, SROCE_CNT_RX_DROP_QKEY, qp->ibqp.qp_num, skb->len);
		return;
	}
	if (info->cls != SROCE_CLASS_SEND || info->pos != SROCE_POS_ONLY) {
		sroce_count_drop(sdev, SROCE_CNT_RX_DROP_OPCODE, qp->ibqp.qp_num, skb->len);
		return;
	}
	if (pay > sroce_ud_mtu(qp)) {
		sroce_count_drop(sdev, SROCE_CNT_RX_DROP_LENGTH, qp->ibqp.qp_num, skb->len);
		return;
	}

	/* One datagram at a time: completions in the order WQEs are taken. */
	spin_lock(&qp->resp.lock);
	err = sroce_ud_take(qp, wqe, SROCE_GRH_BYTES + pay);
	if (err == -ENOENT || err == -EMSGSIZE) {
		spin_unlock(&qp->resp.lock);
		sroce_count_drop(sdev, err == -ENOENT ? SROCE_CNT_RX_DROP_NO_RECV :
				 SROCE_CNT_RX_DROP_LENGTH, qp->ibqp.qp_num, skb->len);
		return;
	}
	wc.wr_id = wqe->wr_id;
	wc.status = err ? IB_WC_LOC_QP_OP_ERR :
		    sroce_ud_place(qp, skb, wqe, info->hdr_len, pay, &type);
	fail = wc.status != IB_WC_SUCCESS;
	if (!fail) {
		wc.byte_len = SROCE_GRH_BYTES + pay;
		wc.network_hdr_type = type;
		/* Kernel consumers only: the rxe user ABI has no field for it. */
		if (skb->dev && is_vlan_dev(skb->dev)) {
			wc.wc_flags |= IB_WC_WITH_VLAN;
			wc.vlan_id = vlan_dev_vlan_id(skb->dev);
		}
		if (info->hdrs & SROCE_HDR_IMM) {
			wc.ex.imm_data = ((const struct sroce_immdt *)(skb->data +
				info->hdr_len - sizeof(struct sroce_immdt)))->imm;
			wc.wc_flags |= IB_WC_WITH_IMM;
		}
	} else {
		wc.wc_flags = 0;
	}
	err = sroce_cq_add(qp->ibqp.recv_cq, &wc, qp->ibqp.qp_num, sroce_bth_se(bth));
	notify = err > 0;
	/* An overflowed CQ fails the QP as an unusable receive WQE does. */
	fail |= err < 0;
	spin_unlock(&qp->resp.lock);
	if (notify)
		sroce_cq_notify(qp->ibqp.recv_cq);
	/* A receive WQE that cannot be used is the consumer's error: ERR. */
	if (fail)
		sroce_qp_enter_error(qp, IB_QPS_ERR);
}
