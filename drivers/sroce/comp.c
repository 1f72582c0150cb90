// SPDX-License-Identifier: GPL-2.0
/*
 * Completer: ACKs and NAKs to send completions. An ACK of PSN p retires,
 * in ring order, every fully sent WQE whose last PSN is not after p: a
 * completion for those signaled, the slot given back to the producer. A
 * NAK for a remote error retires what came before it, fails the WQE it
 * names with the status IBTA 11.6.2 maps the NAK to, and puts the QP in
 * ERR. Sequence error and RNR NAKs are counted; recovering from them is
 * the retransmission work's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "engine.h"
#include "psn.h"
#include "qp.h"
#include "sroce.h"
#include "wire.h"

static struct sroce_swqe *sroce_comp_swqe(struct sroce_qp *qp, u32 idx)
{
	return (struct sroce_swqe *)(qp->req.swqes + (size_t)idx * qp->req.stride);
}

static enum ib_wc_opcode sroce_comp_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	default:
		return IB_WC_SEND;
	}
}

/* Retire the sent WQEs an ACK of @psn covers. Returns: notify the CQ. */
static bool sroce_comp_retire(struct sroce_qp *qp, u32 psn, bool before_only)
{
	bool all = qp->sig_all, notify = false;
	struct ib_wc wc = { .status = IB_WC_SUCCESS, .qp = &qp->ibqp };
	struct sroce_swqe *w;
	u32 pos;

	lockdep_assert_held(&qp->sq_lock);
	/* Acquire pairs with the requester's release of its position. */
	pos = smp_load_acquire(&qp->req.pos);
	while (qp->sq.index != pos) {
		w = sroce_comp_swqe(qp, qp->sq.index);
		if (before_only ? !sroce_psn_before(w->last_psn, psn) :
				  sroce_psn_before(psn, w->last_psn))
			break;
		if (all || (w->send_flags & IB_SEND_SIGNALED)) {
			wc.wr_id = w->wr_id;
			wc.opcode = sroce_comp_wc_opcode(w->opcode);
			wc.byte_len = w->length;
			notify |= sroce_cq_add(qp->ibqp.send_cq, &wc,
					       qp->ibqp.qp_num, false) > 0;
		}
		sroce_queue_advance(&qp->sq);
	}
	return notify;
}

static enum ib_wc_status sroce_comp_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_INV_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SROCE_NAK_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_bth *bth = (const void *)skb->data;
	const struct sroce_aeth *aeth = (const void *)(bth + 1);
	u32 psn = sroce_bth_psn(bth);
	u8 syndrome = sroce_aeth_syndrome(aeth);
	unsigned long flags;
	bool notify = false;

	if (bth->opcode != SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_ACK)) {
		/* Read and atomic responses: with RDMA READ and atomics. */
		sroce_count(sdev, SROCE_CNT_RX_UNHANDLED);
		return;
	}
	switch (syndrome & SROCE_AETH_TYPE_MASK) {
	case SROCE_AETH_ACK:
		spin_lock_irqsave(&qp->sq_lock, flags);
		if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD)
			notify = sroce_comp_retire(qp, psn, false);
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		break;
	case SROCE_AETH_NAK:
		if ((syndrome & ~SROCE_AETH_TYPE_MASK) == SROCE_NAK_PSN_SEQ_ERR) {
			sroce_count(sdev, SROCE_CNT_RX_NAK_SEQ);
			return;
		}
		spin_lock_irqsave(&qp->sq_lock, flags);
		if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD)
			notify = sroce_comp_retire(qp, psn, true);
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		if (notify)
			sroce_cq_notify(qp->ibqp.send_cq);
		sroce_qp_fail_send(qp, qp->sq.index,
				   sroce_comp_nak_status(syndrome & ~SROCE_AETH_TYPE_MASK));
		return;
	default:
		sroce_count(sdev, SROCE_CNT_RX_RNR_NAK);
		return;
	}
	if (notify)
		sroce_cq_notify(qp->ibqp.send_cq);
}
