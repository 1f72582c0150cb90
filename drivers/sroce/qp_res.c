// SPDX-License-Identifier: GPL-2.0
/*
 * A QP's driver attributes in `rdma resource show qp -dd`: its PSNs, its
 * rings' fill, what a stalled requester waits for and its congestion
 * control rate (Documentation/admin-guide.rst).
 */
#include <linux/hrtimer.h>
#include <rdma/rdma_netlink.h>

#include "cc.h"
#include "qp.h"
#include "qp_verbs.h"
#include "queue.h"
#include "req.h"
#include "tx.h"

static int sroce_fill_res_qp_attrs(struct sk_buff *msg, struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	if (rdma_nl_put_driver_u32_hex(msg, "sq_next_psn", READ_ONCE(qp->req.psn)) ||
	    rdma_nl_put_driver_u32_hex(msg, "sq_acked_psn", qp->comp.acked_psn) ||
	    rdma_nl_put_driver_u32_hex(msg, "rq_expected_psn", READ_ONCE(qp->resp.psn)) ||
	    rdma_nl_put_driver_u32(msg, "sq_posted", sroce_queue_count(&qp->sq)) ||
	    rdma_nl_put_driver_u32(msg, "sq_slots", sroce_queue_slots(&qp->sq)))
		return -EMSGSIZE;
	/* What a stalled requester waits for. */
	if (qp->ibqp.qp_type == IB_QPT_RC &&
	    (rdma_nl_put_driver_u32(msg, "sq_unsent",
				    (READ_ONCE(qp->sq.ring->producer) -
				     READ_ONCE(qp->req.pos)) & qp->sq.mask) ||
	     rdma_nl_put_driver_u32(msg, "rd_outstanding",
				    READ_ONCE(qp->req.rd_sent) - qp->req.rd_done) ||
	     rdma_nl_put_driver_u32(msg, "cwnd", qp->req.cw.cwnd) ||
	     rdma_nl_put_driver_u32(msg, "tx_queued",
				    sroce_tx_state_bytes(atomic64_read(&qp->tx->state))) ||
	     rdma_nl_put_driver_u32(msg, "ack_timer", hrtimer_is_queued(&qp->req.ack_timer)) ||
	     rdma_nl_put_driver_u32(msg, "req_flags", READ_ONCE(qp->req.flags) |
				    qp->req.rewind << 4 | qp->req.rnr_wait << 5 |
				    (READ_ONCE(qp->req.window_wait) & 1) << 6)))
		return -EMSGSIZE;
	if (sroce_cc_fill_res(msg, qp))
		return -EMSGSIZE;
	if (qp->rq.ring &&
	    (rdma_nl_put_driver_u32(msg, "rq_posted", sroce_queue_count(&qp->rq)) ||
	     rdma_nl_put_driver_u32(msg, "rq_slots", sroce_queue_slots(&qp->rq))))
		return -EMSGSIZE;
	return 0;
}

/*
 * The restrack reference keeps the QP's memory, not what its destroy
 * frees (rings, transmit accounting): on kernels whose core calls
 * destroy_qp before it waits for the dumps, a dump may run beside it.
 * So this takes sq_lock to read the attributes, and reads none once the
 * destroy has begun.
 */
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = container_of(ibqp, struct sroce_qp, ibqp);
	struct nlattr *table;
	unsigned long flags;
	int err = 0;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	spin_lock_irqsave(&qp->sq_lock, flags);
	if (!qp->gone)
		err = sroce_fill_res_qp_attrs(msg, qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}
