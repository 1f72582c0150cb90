// SPDX-License-Identifier: GPL-2.0
/*
 * IBTA 1.5 (annex A19) on RC, as rdma_rxe and the rdma-core rxe provider
 * speak it:
 *
 *   ATOMIC WRITE  BTH, RETH, 8 bytes of payload: the 8 bytes land in the
 *                 responder's memory with one aligned 64-bit store. The
 *                 QP and MR need remote write. Answered, once executed,
 *                 by an RDMA READ response ONLY without payload.
 *   FLUSH         BTH, FETH, RETH, no payload: every write the responder
 *                 executed before it is made visible at the placement the
 *                 FETH names (global visibility, or persistence), for the
 *                 RETH's range or the whole MR (the selectivity level).
 *                 The QP and MR need the FLUSH right of each placement
 *                 type asked. Answered like an ATOMIC WRITE.
 *
 * Both take a responder resource like an RDMA READ (max_dest_rd_atomic),
 * are counted against the requester's max_rd_atomic, and a duplicate is
 * answered again from its resource, never executed twice.
 *
 * Persistence: sroce registers no MR with IB_ACCESS_FLUSH_PERSISTENT
 * (mr.c: it has no persistent memory to promise it for, as rdma_rxe
 * refuses it on memory that is not pmem), so a FLUSH asking for it finds
 * no MR with the right: a remote access error, never a false promise.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>

#include "ext.h"
#include "mr.h"
#include "mw.h"
#include "net.h"
#include "psn.h"
#include "qp.h"
#include "reply.h"
#include "sroce.h"
#include "wire.h"
#include "wqe.h"

bool sroce_atomic_write_ok(u64 va, u32 dma_len, u32 pay, u8 pad)
{
	return dma_len == sizeof(u64) && pay == sizeof(u64) && !pad &&
	       IS_ALIGNED(va, sizeof(u64));
}
EXPORT_SYMBOL_IF_KUNIT(sroce_atomic_write_ok);

struct sk_buff *sroce_ext_request(struct sroce_qp *qp, const struct sroce_swqe *w)
{
	bool flush = w->opcode == IB_WR_FLUSH;
	u8 opcode = SROCE_OPCODE(SROCE_TR_RC, flush ? SROCE_OP_FLUSH :
						      SROCE_OP_ATOMIC_WRITE);
	struct sroce_opcode_info info;
	struct sroce_reth *reth;
	struct sroce_bth *bth;
	struct sk_buff *skb;
	u32 pay;

	if (WARN_ON_ONCE(!sroce_opcode_decode(opcode, &info)))
		return NULL;
	pay = flush ? 0 : sizeof(u64);
	skb = sroce_net_alloc_skb(to_sdev(qp->ibqp.device), info.hdr_len + pay);
	if (!skb)
		return NULL;
	bth = skb_put(skb, sizeof(*bth));
	sroce_bth_init(bth, opcode, false, 0, sroce_qp_pkey(qp),
		       qp->params.dest_qpn, qp->req.psn, true);
	if (flush)
		sroce_feth_set(skb_put(skb, sizeof(struct sroce_feth)),
			       w->flush_type, w->flush_level);
	reth = skb_put(skb, sizeof(*reth));
	reth->va = cpu_to_be64(w->remote_addr);
	reth->rkey = cpu_to_be32(w->rkey);
	/* FLUSH: the range (ignored for the whole MR); oA19-2: no payload. */
	reth->dma_len = cpu_to_be32(w->length);
	if (!flush)
		skb_put_data(skb, &w->swap_add, pay);
	return skb;
}

/* Keep an executed request for its response and a duplicate's replay. */
static enum sroce_resp_verdict sroce_ext_keep(struct sroce_qp *qp, u32 psn)
{
	struct sroce_res *r;

	r = sroce_res_fits(&qp->resp, qp->resp.psn, 1) ?
	    sroce_res_take(&qp->resp) : NULL;
	if (!r)
		return SROCE_RESP_INV_REQ;	/* over max_dest_rd_atomic */
	r->kind = SROCE_RES_EMPTY;
	r->psn = psn;
	r->next_psn = psn;
	return SROCE_RESP_DONE;
}

static void sroce_atomic_write_piece(void *ctx, void *kaddr, u32 len)
{
	/* 8 aligned bytes never straddle a page: one piece, one store. */
	if (WARN_ON_ONCE(len != sizeof(u64)))
		return;
	WRITE_ONCE(*(u64 *)kaddr, *(const u64 *)ctx);
}

enum sroce_resp_verdict
sroce_resp_atomic_write(struct sroce_qp *qp, const struct sk_buff *skb,
			const struct sroce_opcode_info *info, u32 pay)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	const struct sroce_reth *reth = (const void *)(bth + 1);
	u64 va = be64_to_cpu(reth->va), val;
	enum sroce_resp_verdict v;
	struct sroce_mr *mr;

	lockdep_assert_held(&qp->resp.lock);
	/* As rdma_rxe: an ATOMIC WRITE is a write, by its rights. */
	if (!(qp->params.access & IB_ACCESS_REMOTE_WRITE) ||
	    !sroce_atomic_write_ok(va, be32_to_cpu(reth->dma_len), pay,
				   sroce_bth_pad(bth)))
		return SROCE_RESP_INV_REQ;
	if (skb_copy_bits(skb, info->hdr_len, &val, sizeof(val)))
		return SROCE_RESP_INV_REQ;
	mr = sroce_rkey_get(qp, be32_to_cpu(reth->rkey), IB_ACCESS_REMOTE_WRITE,
			    &va, sizeof(u64));
	if (IS_ERR(mr))
		return SROCE_RESP_ACCESS;
	/* A zero-based window may start anywhere: its bytes must align too. */
	if (va & (sizeof(u64) - 1)) {
		sroce_mr_put(mr);
		return SROCE_RESP_INV_REQ;
	}
	v = sroce_ext_keep(qp, sroce_bth_psn(bth));
	if (v == SROCE_RESP_DONE &&
	    sroce_mr_walk(mr, va, sizeof(u64), sroce_atomic_write_piece, &val))
		v = SROCE_RESP_ACCESS;
	sroce_mr_put(mr);
	return v;
}

enum sroce_resp_verdict
sroce_resp_flush(struct sroce_qp *qp, const struct sk_buff *skb, u32 pay)
{
	const struct sroce_bth *bth = (const void *)skb->data;
	const struct sroce_feth *feth = (const void *)(bth + 1);
	const struct sroce_reth *reth = (const void *)(feth + 1);
	int need = sroce_flush_access(sroce_feth_plt(feth));
	u64 va = be64_to_cpu(reth->va);
	u8 sel = sroce_feth_sel(feth);
	struct sroce_mr *mr;

	lockdep_assert_held(&qp->resp.lock);
	/* A QP not enabled for the placement type: an invalid request. */
	if (pay || !need || sel > IB_FLUSH_MR ||
	    (qp->params.access & need) != need)
		return SROCE_RESP_INV_REQ;
	mr = sroce_rkey_get(qp, be32_to_cpu(reth->rkey), need, &va,
			    sel == IB_FLUSH_MR ? SROCE_MR_WHOLE :
						 be32_to_cpu(reth->dma_len));
	if (IS_ERR(mr))
		return SROCE_RESP_ACCESS;
	sroce_mr_put(mr);
	/*
	 * Every earlier request was executed before this one (in PSN order,
	 * in this softirq or an earlier one) by plain stores to the MR's
	 * pages, which the CPU keeps coherent: a full barrier orders them
	 * before the response, and so before anything the requester does
	 * after it. That is global visibility; persistence cannot be asked
	 * (no MR holds the right).
	 */
	smp_mb();
	return sroce_ext_keep(qp, sroce_bth_psn(bth));
}
