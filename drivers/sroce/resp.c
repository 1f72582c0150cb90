// SPDX-License-Identifier: GPL-2.0
/*
 * Responder: RC requests to memory, receive completions and ACKs. Runs in
 * the receive softirq under the QP's responder lock, one packet at a time,
 * in PSN order:
 *
 *   PSN expected    execute; the PSN moves on; ACK when the packet asks
 *   PSN behind      a duplicate: SEND and WRITE are ACKed again, never
 *                   executed twice
 *   PSN ahead       a gap: one sequence error NAK, then silence until the
 *                   expected PSN comes
 *
 * Execution: a SEND's first packet takes a receive WQE (from the QP's ring
 * or its SRQ; none is an RNR NAK), its packets scatter through the WQE's
 * lkeys, its last completes the WQE. An RDMA WRITE's first packet checks
 * the rkey, the QP's remote access and the whole range once; its packets
 * land in order; WRITE with immediate completes a receive WQE. Errors end
 * in the NAK IBTA 9.7.5 names and the QP in ERR.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "engine.h"
#include "mr.h"
#include "psn.h"
#include "qp.h"
#include "sroce.h"
#include "srq.h"
#include "wire.h"

/* The outcome of one request packet. */
enum sroce_resp_verdict {
	SROCE_RESP_DONE,	/* executed */
	SROCE_RESP_RNR,		/* no receive WQE: RNR NAK, PSN kept */
	SROCE_RESP_INV_REQ,	/* NAK invalid request, QP to ERR */
	SROCE_RESP_ACCESS,	/* NAK remote access error, QP to ERR */
	SROCE_RESP_OP_ERR,	/* NAK remote operational error, QP to ERR */
};

int sroce_resp_init(struct sroce_qp *qp)
{
	spin_lock_init(&qp->resp.lock);
	qp->resp.prev = SROCE_OPCODE_NONE;
	qp->resp.wqe = kzalloc_obj(*qp->resp.wqe, GFP_KERNEL);
	return qp->resp.wqe ? 0 : -ENOMEM;
}

void sroce_resp_free(struct sroce_qp *qp)
{
	kfree(qp->resp.wqe);
}

static void sroce_resp_ack(struct sroce_qp *qp, u32 psn, u8 syndrome)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_aeth *aeth;
	struct sroce_bth *bth;
	struct sk_buff *skb;

	skb = sroce_net_alloc_skb(sdev, sizeof(*bth) + sizeof(*aeth));
	if (!skb) {
		sroce_count(sdev, SROCE_CNT_TX_DROP);
		return;
	}
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_ACK), false, 0,
		       SROCE_PKEY_DEFAULT, qp->params.dest_qpn, psn, false);
	aeth = skb_put(skb, sizeof(*aeth));
	sroce_aeth_set(aeth, syndrome, qp->resp.msn);
	if (sroce_net_xmit(sdev, &qp->req.path, skb))
		sroce_count(sdev, SROCE_CNT_TX_DROP);
	else
		sroce_count(sdev, SROCE_CNT_TX_PACKETS);
}

/* Take the receive WQE a message consumes, from the RQ or the SRQ. */
static int sroce_resp_take_wqe(struct sroce_qp *qp)
{
	struct sroce_recv *wqe = qp->resp.wqe;
	int err;

	if (qp->ibqp.srq)
		return sroce_srq_take(to_ssrq(qp->ibqp.srq), wqe);
	spin_lock(&qp->rq_lock);
	err = sroce_recv_take(&qp->rq, qp->cap.max_recv_sge, wqe);
	spin_unlock(&qp->rq_lock);
	return err;
}

struct sroce_scatter {
	const struct sk_buff *skb;
	unsigned int off;
};

static void sroce_scatter_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_scatter *s = ctx;

	/* recv.c checked the lengths: the bytes are in the skb. */
	WARN_ON_ONCE(skb_copy_bits(s->skb, s->off, kaddr, len));
	s->off += len;
}

/* Place @len payload bytes at @off of @skb into the WQE at @at. */
static int sroce_resp_scatter(struct sroce_qp *qp, const struct sk_buff *skb,
			      unsigned int off, u32 at, u32 len)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_recv *wqe = qp->resp.wqe;
	struct sroce_scatter s = { .skb = skb, .off = off };
	struct sroce_mr *mr;
	u32 i, in, n;

	for (i = 0; i < wqe->num_sge && len; i++) {
		if (at >= wqe->sge[i].length) {
			at -= wqe->sge[i].length;
			continue;
		}
		in = at;
		n = min(len, wqe->sge[i].length - in);
		mr = sroce_mr_get(sdev, wqe->sge[i].lkey, qp->ibqp.pd,
				  IB_ACCESS_LOCAL_WRITE, wqe->sge[i].addr + in, n);
		if (IS_ERR(mr))
			return -EACCES;
		sroce_mr_walk(mr, wqe->sge[i].addr + in, n, sroce_scatter_piece, &s);
		sroce_mr_put(mr);
		len -= n;
		at = 0;
	}
	return len ? -EMSGSIZE : 0;
}

/* Complete the message's receive WQE. Returns: notify the CQ. */
static bool sroce_resp_complete(struct sroce_qp *qp, enum ib_wc_status status,
				enum ib_wc_opcode opcode, u32 byte_len,
				const __be32 *imm, bool solicited)
{
	struct ib_wc wc = {
		.wr_id = qp->resp.wqe->wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp = &qp->ibqp,
		.src_qp = qp->params.dest_qpn,
		.port_num = SROCE_PORT_NUM,
	};

	if (imm) {
		wc.ex.imm_data = *imm;
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	qp->resp.wqe_active = false;
	return sroce_cq_add(qp->ibqp.recv_cq, &wc, qp->ibqp.qp_num,
			    solicited) > 0;
}

static enum sroce_resp_verdict
sroce_resp_send(struct sroce_qp *qp, const struct sk_buff *skb,
		const struct sroce_opcode_info *info, u32 pay, bool *notify)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	const __be32 *imm = NULL;
	int err;

	if (info->pos == SROCE_POS_FIRST || info->pos == SROCE_POS_ONLY) {
		err = sroce_resp_take_wqe(qp);
		if (err == -ENOENT)
			return SROCE_RESP_RNR;
		resp->wqe_active = true;
		resp->received = 0;
		if (err) {
			*notify |= sroce_resp_complete(qp, IB_WC_LOC_QP_OP_ERR,
						       IB_WC_RECV, 0, NULL, false);
			return SROCE_RESP_OP_ERR;
		}
	}
	if (!resp->wqe_active)
		return SROCE_RESP_INV_REQ;
	if (pay > resp->wqe->length - resp->received) {
		*notify |= sroce_resp_complete(qp, IB_WC_LOC_LEN_ERR, IB_WC_RECV,
					       0, NULL, false);
		return SROCE_RESP_INV_REQ;
	}
	err = sroce_resp_scatter(qp, skb, info->hdr_len, resp->received, pay);
	if (err) {
		*notify |= sroce_resp_complete(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV,
					       0, NULL, false);
		return SROCE_RESP_OP_ERR;
	}
	resp->received += pay;
	if (info->pos == SROCE_POS_LAST || info->pos == SROCE_POS_ONLY) {
		if (info->hdrs & SROCE_HDR_IMM)
			imm = &((const struct sroce_immdt *)(skb->data +
				info->hdr_len - sizeof(struct sroce_immdt)))->imm;
		*notify |= sroce_resp_complete(qp, IB_WC_SUCCESS, IB_WC_RECV,
					       resp->received, imm,
					       sroce_bth_se(bth));
	}
	return SROCE_RESP_DONE;
}

static enum sroce_resp_verdict
sroce_resp_write(struct sroce_qp *qp, const struct sk_buff *skb,
		 const struct sroce_opcode_info *info, u32 pay, bool *notify)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	const struct sroce_reth *reth;
	struct sroce_scatter s = { .skb = skb, .off = info->hdr_len };
	bool last = info->pos == SROCE_POS_LAST || info->pos == SROCE_POS_ONLY;
	struct sroce_mr *mr;
	int err;

	if (info->hdrs & SROCE_HDR_RETH) {
		reth = (const void *)(bth + 1);
		resp->va = be64_to_cpu(reth->va);
		resp->rkey = be32_to_cpu(reth->rkey);
		resp->remaining = be32_to_cpu(reth->dma_len);
		resp->received = 0;
		if (!(qp->params.access & IB_ACCESS_REMOTE_WRITE))
			return SROCE_RESP_ACCESS;
		/* The whole range, once, before any byte lands. */
		if (resp->remaining) {
			mr = sroce_mr_get(sdev, resp->rkey, qp->ibqp.pd,
					  IB_ACCESS_REMOTE_WRITE, resp->va,
					  resp->remaining);
			if (IS_ERR(mr))
				return SROCE_RESP_ACCESS;
			sroce_mr_put(mr);
		}
	}
	if (pay > resp->remaining || (last && pay != resp->remaining))
		return SROCE_RESP_INV_REQ;
	if (pay) {
		mr = sroce_mr_get(sdev, resp->rkey, qp->ibqp.pd,
				  IB_ACCESS_REMOTE_WRITE, resp->va, pay);
		if (IS_ERR(mr))
			return SROCE_RESP_ACCESS;
		sroce_mr_walk(mr, resp->va, pay, sroce_scatter_piece, &s);
		sroce_mr_put(mr);
	}
	resp->va += pay;
	resp->remaining -= pay;
	resp->received += pay;
	if (!last || !(info->hdrs & SROCE_HDR_IMM))
		return SROCE_RESP_DONE;

	/* WRITE with immediate: the data is placed, a receive WQE completes. */
	err = sroce_resp_take_wqe(qp);
	if (err == -ENOENT)
		return SROCE_RESP_RNR;
	resp->wqe_active = true;
	*notify |= sroce_resp_complete(qp, err ? IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS,
				       IB_WC_RECV_RDMA_WITH_IMM, resp->received,
				       &((const struct sroce_immdt *)(skb->data +
					 info->hdr_len - sizeof(struct sroce_immdt)))->imm,
				       sroce_bth_se(bth));
	return err ? SROCE_RESP_OP_ERR : SROCE_RESP_DONE;
}

static u8 sroce_resp_nak(enum sroce_resp_verdict v)
{
	switch (v) {
	case SROCE_RESP_INV_REQ:
		return SROCE_AETH_NAK | SROCE_NAK_INV_REQ;
	case SROCE_RESP_ACCESS:
		return SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS;
	default:
		return SROCE_AETH_NAK | SROCE_NAK_REM_OP_ERR;
	}
}

void sroce_resp_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	struct sroce_resp *resp = &qp->resp;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	u32 psn = sroce_bth_psn(bth), pay;
	enum sroce_resp_verdict v;
	struct sroce_opcode_info info;
	bool notify = false, last;
	s32 d;

	if (!sroce_opcode_decode(bth->opcode, &info))
		return;
	pay = skb->len - info.hdr_len - sroce_bth_pad(bth) - SROCE_ICRC_BYTES;
	last = info.pos == SROCE_POS_LAST || info.pos == SROCE_POS_ONLY;

	spin_lock(&resp->lock);
	d = sroce_psn_diff(psn, resp->psn);
	if (d < 0) {
		/* Executed before: say so again (its ACK may have been lost). */
		sroce_count(sdev, SROCE_CNT_RX_DUP_REQUEST);
		sroce_resp_ack(qp, sroce_psn_add(resp->psn, SROCE_PSN_MASK),
			       SROCE_AETH_ACK | SROCE_AETH_NO_CREDIT);
		goto out;
	}
	if (d > 0) {
		if (!resp->nak_sent)
			sroce_resp_ack(qp, resp->psn,
				       SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR);
		resp->nak_sent = true;
		sroce_count(sdev, SROCE_CNT_RX_SEQ_GAP);
		goto out;
	}
	resp->nak_sent = false;

	/* Inside a message every packet but the last is exactly one MTU. */
	if (!sroce_opcode_next_ok(resp->prev, bth->opcode) ||
	    (!last && pay != mtu) || pay > mtu) {
		v = SROCE_RESP_INV_REQ;
	} else {
		switch (info.cls) {
		case SROCE_CLASS_SEND:
			v = sroce_resp_send(qp, skb, &info, pay, &notify);
			break;
		case SROCE_CLASS_WRITE:
			v = sroce_resp_write(qp, skb, &info, pay, &notify);
			break;
		default:
			/* RDMA READ and atomics: not executed yet. */
			v = SROCE_RESP_INV_REQ;
			break;
		}
	}

	switch (v) {
	case SROCE_RESP_DONE:
		resp->psn = sroce_psn_add(resp->psn, 1);
		resp->prev = last ? SROCE_OPCODE_NONE : bth->opcode;
		if (last)
			resp->msn = sroce_psn_add(resp->msn, 1);
		if (sroce_bth_ackreq(bth))
			sroce_resp_ack(qp, psn, SROCE_AETH_ACK | SROCE_AETH_NO_CREDIT);
		break;
	case SROCE_RESP_RNR:
		sroce_count(sdev, SROCE_CNT_TX_RNR_NAK);
		sroce_resp_ack(qp, psn, SROCE_AETH_RNR_NAK | qp->params.min_rnr_timer);
		break;
	default:
		sroce_resp_ack(qp, psn, sroce_resp_nak(v));
		spin_unlock(&resp->lock);
		if (notify)
			sroce_cq_notify(qp->ibqp.recv_cq);
		sroce_qp_to_error(qp);
		return;
	}
out:
	spin_unlock(&resp->lock);
	if (notify)
		sroce_cq_notify(qp->ibqp.recv_cq);
}
