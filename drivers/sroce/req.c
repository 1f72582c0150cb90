// SPDX-License-Identifier: GPL-2.0
/*
 * Requester: send WQEs to packets. Runs in the QP's work item, one WQE at
 * a time in ring order: the WQE is copied out of the send ring once and
 * checked there (sroce_swqe), its PSNs are assigned, and it is cut into
 * packets of the path MTU, each built and sent at once. The completer
 * retires WQEs as ACKs cover their last PSN.
 *
 * Supported here: RC SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM,
 * inline or gathered through lkeys. Anything else completes in error.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/slab.h>

#include "engine.h"
#include "mr.h"
#include "psn.h"
#include "qp.h"
#include "sroce.h"
#include "wire.h"

/* Packets per run of the work item before it yields and requeues. */
#define SROCE_REQ_BUDGET	64

static struct sroce_swqe *sroce_swqe_at(struct sroce_qp *qp, u32 idx)
{
	return (struct sroce_swqe *)(qp->req.swqes + (size_t)idx * qp->req.stride);
}

void sroce_req_free(struct sroce_qp *qp)
{
	cancel_work_sync(&qp->req.work);
	kvfree(qp->req.swqes);
}

void sroce_req_kick(struct sroce_qp *qp)
{
	queue_work(system_highpri_wq, &qp->req.work);
}

void sroce_req_reset(struct sroce_qp *qp)
{
	qp->req.pos = qp->sq.index;
	qp->req.fetched = false;
	qp->req.psn = qp->params.sq_psn;
}

bool sroce_req_executes(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return true;
	default:
		return false;
	}
}

/* Copy the WQE at the requester's position out of the ring and check it. */
static int sroce_req_fetch(struct sroce_qp *qp, struct sroce_swqe *w)
{
	const struct rxe_send_wqe *slot = (const void *)(qp->sq.ring->data +
		((size_t)qp->req.pos << qp->sq.log2_elem));
	u32 i, n, len = 0, mtu, npkts;

	w->wr_id = READ_ONCE(slot->wr.wr_id);
	w->opcode = READ_ONCE(slot->wr.opcode);
	w->send_flags = READ_ONCE(slot->wr.send_flags);
	if (!sroce_req_executes(w->opcode))
		return -EOPNOTSUPP;
	w->imm = READ_ONCE(slot->wr.ex.imm_data);
	w->remote_addr = READ_ONCE(slot->wr.wr.rdma.remote_addr);
	w->rkey = READ_ONCE(slot->wr.wr.rdma.rkey);
	if (w->send_flags & IB_SEND_INLINE) {
		len = READ_ONCE(slot->dma.length);
		if (len > qp->cap.max_inline_data)
			return -EINVAL;
		memcpy(w->inline_data, slot->dma.inline_data, len);
		w->is_inline = true;
		w->num_sge = 0;
	} else {
		n = READ_ONCE(slot->dma.num_sge);
		if (n > qp->cap.max_send_sge)
			return -EINVAL;
		memcpy(w->sge, slot->dma.sge, n * sizeof(w->sge[0]));
		for (i = 0; i < n; i++)
			if (check_add_overflow(len, w->sge[i].length, &len))
				return -EINVAL;
		w->is_inline = false;
		w->num_sge = n;
	}
	if (len > SROCE_MAX_MSG_SIZE)
		return -EINVAL;
	w->length = len;
	mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	npkts = len ? DIV_ROUND_UP(len, mtu) : 1;
	w->first_psn = qp->req.psn;
	w->last_psn = sroce_psn_add(qp->req.psn, npkts - 1);
	return 0;
}

struct sroce_gather {
	u8 *dst;
};

static void sroce_gather_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_gather *g = ctx;

	memcpy(g->dst, kaddr, len);
	g->dst += len;
}

/* The next @len bytes of the message, through its lkeys, into @dst. */
static int sroce_req_gather(struct sroce_qp *qp, const struct sroce_swqe *w,
			    u8 *dst, u32 len)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *req = &qp->req;
	struct sroce_gather g = { .dst = dst };
	const struct ib_sge *sge;
	struct sroce_mr *mr;
	u32 n;

	if (w->is_inline) {
		memcpy(dst, w->inline_data + req->offset, len);
		return 0;
	}
	while (len) {
		if (WARN_ON_ONCE(req->sge >= w->num_sge))
			return -EINVAL;
		sge = &w->sge[req->sge];
		n = min(len, sge->length - req->sge_off);
		if (n) {
			mr = sroce_mr_get(sdev, sge->lkey, qp->ibqp.pd, 0,
					  sge->addr + req->sge_off, n);
			if (IS_ERR(mr))
				return -EACCES;
			sroce_mr_walk(mr, sge->addr + req->sge_off, n,
				      sroce_gather_piece, &g);
			sroce_mr_put(mr);
		}
		len -= n;
		req->sge_off += n;
		if (req->sge_off == sge->length) {
			req->sge++;
			req->sge_off = 0;
		}
	}
	return 0;
}

static u8 sroce_req_opcode(const struct sroce_swqe *w, bool first, bool last)
{
	bool imm = w->opcode == IB_WR_SEND_WITH_IMM ||
		   w->opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	enum sroce_op op;

	if (w->opcode == IB_WR_SEND || w->opcode == IB_WR_SEND_WITH_IMM) {
		if (first && last)
			op = imm ? SROCE_OP_SEND_ONLY_IMM : SROCE_OP_SEND_ONLY;
		else if (first)
			op = SROCE_OP_SEND_FIRST;
		else if (last)
			op = imm ? SROCE_OP_SEND_LAST_IMM : SROCE_OP_SEND_LAST;
		else
			op = SROCE_OP_SEND_MIDDLE;
	} else {
		if (first && last)
			op = imm ? SROCE_OP_WRITE_ONLY_IMM : SROCE_OP_WRITE_ONLY;
		else if (first)
			op = SROCE_OP_WRITE_FIRST;
		else if (last)
			op = imm ? SROCE_OP_WRITE_LAST_IMM : SROCE_OP_WRITE_LAST;
		else
			op = SROCE_OP_WRITE_MIDDLE;
	}
	return SROCE_OPCODE(SROCE_TR_RC, op);
}

/* Build and send the next packet of @w. */
static int sroce_req_packet(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *req = &qp->req;
	u32 mtu = ib_mtu_enum_to_int(qp->params.path_mtu);
	u32 left = w->length - req->offset, pay = min(left, mtu), pad;
	bool first = !req->offset, last = pay == left;
	struct sroce_opcode_info info;
	struct sroce_immdt *immdt;
	struct sroce_reth *reth;
	struct sroce_bth *bth;
	struct sk_buff *skb;
	u8 opcode;
	int err;

	opcode = sroce_req_opcode(w, first, last);
	if (WARN_ON_ONCE(!sroce_opcode_decode(opcode, &info)))
		return -EINVAL;
	pad = (4 - (pay & 3)) & 3;
	skb = sroce_net_alloc_skb(sdev, info.hdr_len + pay + pad);
	if (!skb)
		return -ENOMEM;
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, opcode, last && (w->send_flags & IB_SEND_SOLICITED),
		       pad, SROCE_PKEY_DEFAULT, qp->params.dest_qpn, req->psn, last);
	if (info.hdrs & SROCE_HDR_RETH) {
		reth = skb_put(skb, sizeof(*reth));
		reth->va = cpu_to_be64(w->remote_addr);
		reth->rkey = cpu_to_be32(w->rkey);
		reth->dma_len = cpu_to_be32(w->length);
	}
	if (info.hdrs & SROCE_HDR_IMM) {
		immdt = skb_put(skb, sizeof(*immdt));
		immdt->imm = w->imm;
	}
	err = sroce_req_gather(qp, w, skb_put(skb, pay), pay);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	skb_put_zero(skb, pad);
	req->offset += pay;
	req->psn = sroce_psn_add(req->psn, 1);
	if (last) {
		/*
		 * Fully sent before it is on the wire: its ACK may come back
		 * at once (on another CPU, or from within the send below for
		 * a local peer), and the completer must find the WQE theirs.
		 */
		req->fetched = false;
		/* Release: the completer reads the WQE after seeing this. */
		smp_store_release(&req->pos, (req->pos + 1) & qp->sq.mask);
	}
	/* Loss comes back as a timeout or a NAK (the retransmission work). */
	if (sroce_net_xmit(sdev, &req->path, skb))
		sroce_count(sdev, SROCE_CNT_TX_DROP);
	else
		sroce_count(sdev, SROCE_CNT_TX_PACKETS);
	return 0;
}

static void sroce_req_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, req.work);
	struct sroce_req *req = &qp->req;
	unsigned int budget = SROCE_REQ_BUDGET;
	struct sroce_swqe *w;
	int err;

	while (budget--) {
		if (READ_ONCE(qp->state) != IB_QPS_RTS)
			return;
		/* Acquire pairs with the producer's release: the WQE is whole. */
		if (req->pos == (smp_load_acquire(&qp->sq.ring->producer) & qp->sq.mask))
			return;
		w = sroce_swqe_at(qp, req->pos);
		if (!req->fetched) {
			err = sroce_req_fetch(qp, w);
			if (err) {
				sroce_qp_fail_send(qp, req->pos, err == -EOPNOTSUPP ?
						   IB_WC_LOC_QP_OP_ERR : IB_WC_LOC_LEN_ERR);
				return;
			}
			req->fetched = true;
			req->offset = 0;
			req->sge = 0;
			req->sge_off = 0;
		}
		err = sroce_req_packet(qp, w);
		if (err == -ENOMEM)
			break;	/* try again in a moment */
		if (err) {
			sroce_qp_fail_send(qp, req->pos, IB_WC_LOC_PROT_ERR);
			return;
		}
	}
	sroce_req_kick(qp);
}

int sroce_req_init(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	size_t room = max_t(size_t, qp->cap.max_send_sge * sizeof(struct ib_sge),
			    qp->cap.max_inline_data);

	INIT_WORK(&req->work, sroce_req_work);
	req->stride = ALIGN(sizeof(struct sroce_swqe) + room, 8);
	req->swqes = kvcalloc(qp->sq.mask + 1, req->stride, GFP_KERNEL);
	return req->swqes ? 0 : -ENOMEM;
}
