// SPDX-License-Identifier: GPL-2.0
/*
 * The QP as the packet path sees it: found by number and held while a
 * packet or a timer uses it, and moved to ERR (or, for a datagram QP's
 * failed send, SQE) with every posted WR flushed (IBTA 10.3.1). The
 * verbs that create, modify and destroy QPs are qp_verbs.c's; the engines
 * call only down, into this file.
 */
#include <kunit/visibility.h>

#include "cq.h"
#include "qp.h"
#include "queue.h"
#include "sroce.h"
#include "srq.h"
#include "trace.h"
#include "wqe.h"

/* The completion opcode of a send WR (kernel and user opcodes agree). */
enum ib_wc_opcode sroce_wr_to_wc_opcode(u32 opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_ATOMIC_WRITE:
		return IB_WC_ATOMIC_WRITE;
	case IB_WR_FLUSH:
		return IB_WC_FLUSH;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_UVERBS_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/*
 * IBTA 10.3.1, Error: every outstanding WR completes with a flush error,
 * signaled or not. Only the WQEs there at the start are taken: a user
 * producer that keeps posting cannot keep us here.
 */
bool sroce_qp_flush_sq(struct sroce_qp *qp)
{
	bool notify = false;
	struct ib_wc wc = { .status = IB_WC_WR_FLUSH_ERR, .qp = &qp->ibqp };
	const struct rxe_send_wqe *wqe;
	u32 n;

	lockdep_assert_held(&qp->sq_lock);
	for (n = sroce_queue_count(&qp->sq); n; n--) {
		wqe = sroce_queue_slot(&qp->sq);
		wc.wr_id = READ_ONCE(wqe->wr.wr_id);
		wc.opcode = sroce_wr_to_wc_opcode(READ_ONCE(wqe->wr.opcode));
		/* The WQE that failed says why; the others are flushed. */
		wc.status = qp->fail_set && qp->sq.index == qp->fail_pos ?
			    qp->fail_status : IB_WC_WR_FLUSH_ERR;
		sroce_queue_advance(&qp->sq);
		/* A CQ that overflowed is in error: nothing more to tell. */
		notify |= sroce_cq_add(qp->ibqp.send_cq, &wc, qp->ibqp.qp_num,
				       false) > 0;
	}
	return notify;
}

bool sroce_qp_flush_rq(struct sroce_qp *qp)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};
	struct sroce_rwqe *wqe = &qp->flush_wqe;
	bool notify = false;
	u32 n;

	lockdep_assert_held(&qp->rq_lock);
	for (n = sroce_queue_count(&qp->rq); n; n--) {
		/* A malformed WQE still has its wr_id: flush it too. */
		if (sroce_rwqe_take(&qp->rq, qp->cap.max_recv_sge, wqe, 0) == -ENOENT)
			break;
		wc.wr_id = wqe->wr_id;
		notify |= sroce_cq_add(qp->ibqp.recv_cq, &wc, qp->ibqp.qp_num,
				       false) > 0;
	}
	return notify;
}

/*
 * Enter @next (ERR or SQE) for the requesters first: from here on they
 * read no WQE's memory (sroce_wqe_gather() looks at the state), and the
 * read one may be doing ends before its WQE is flushed; a consumer frees
 * what a flushed WQE pointed to. The read is short (a packet's payload)
 * and takes none of the QP's locks.
 */
static void sroce_qp_stop_gather(struct sroce_qp *qp, enum ib_qp_state next)
{
	lockdep_assert_held(&qp->sq_lock);
	trace_sroce_qp_state(&qp->ibqp, qp->state, next, 0);
	WRITE_ONCE(qp->state, next);
	/* The state before the flag (pairs with sroce_wqe_gather()). */
	smp_mb();
	while (READ_ONCE(qp->req.gathering))
		cpu_relax();
}

/*
 * The receive WQE the responder took for a message that never ended (a
 * SEND cut after its FIRST) is off the ring already: it completes flushed
 * here, or it would never complete at all. Who clears wqe_active under
 * rq_lock completes the WQE, this flush or the responder: it completes
 * once. (Not the responder's lock: a responder holding its own sends
 * to a QP of this host, whose completer may fail that QP in the call.)
 */
static bool sroce_qp_flush_active(struct sroce_qp *qp)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};

	lockdep_assert_held(&qp->rq_lock);
	if (!qp->resp.wqe_active)
		return false;
	WRITE_ONCE(qp->resp.wqe_active, false);
	wc.wr_id = qp->resp.wqe->wr_id;
	return sroce_cq_add(qp->ibqp.recv_cq, &wc, qp->ibqp.qp_num, false) > 0;
}

void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

bool sroce_qp_sqd_check(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	if (qp->state != IB_QPS_SQD || !qp->sqd_boundary || qp->sq_drained ||
	    qp->req.rewind || qp->sq.index != READ_ONCE(qp->req.pos))
		return false;
	qp->sq_drained = true;
	return qp->params.sqd_notify;
}

void sroce_qp_sqd_boundary(struct sroce_qp *qp)
{
	unsigned long flags;
	bool event;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->state == IB_QPS_SQD)
		qp->sqd_boundary = true;
	event = sroce_qp_sqd_check(qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (event)
		sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

void sroce_qp_enter_error(struct sroce_qp *qp, enum ib_qp_state next)
{
	bool last_wqe = false, notify_s = false, notify_r = false;
	unsigned long flags;

	/* Both posting locks: the posting verbs see the state and the rings change together. */
	spin_lock_irqsave(&qp->sq_lock, flags);
	spin_lock(&qp->rq_lock);
	switch (next) {
	case IB_QPS_SQE:
		/* A failed send racing a move to ERR or RESET: that one stands. */
		if (qp->state == IB_QPS_ERR || qp->state == IB_QPS_RESET) {
			next = qp->state;
			break;
		}
		/* UD and UC: the send queue alone is in error (IBTA 10.3.1). */
		if (qp->state != IB_QPS_SQE) {
			sroce_qp_stop_gather(qp, next);
			notify_s = sroce_qp_flush_sq(qp);
		}
		break;
	case IB_QPS_ERR:
		if (qp->state == IB_QPS_ERR)
			break;
		sroce_qp_stop_gather(qp, next);
		notify_s = sroce_qp_flush_sq(qp);
		/* Taken before anything still on the ring: flushed first. */
		notify_r = sroce_qp_flush_active(qp);
		if (qp->rq.ring)
			notify_r |= sroce_qp_flush_rq(qp);
		/* SRQ WQEs are not the QP's to flush; it takes no more. */
		last_wqe = qp->ibqp.srq;
		break;
	default:
		WARN_ON_ONCE(1);
		next = qp->state;
		break;
	}
	trace_sroce_qp_state(&qp->ibqp, qp->state, next, 0);
	WRITE_ONCE(qp->state, next);
	spin_unlock(&qp->rq_lock);
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	/* Handlers may post again: they run with our locks dropped. */
	if (notify_s)
		sroce_cq_notify(qp->ibqp.send_cq);
	if (notify_r)
		sroce_cq_notify(qp->ibqp.recv_cq);
	if (last_wqe)
		sroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

void sroce_qp_fail_send(struct sroce_qp *qp, u32 pos, enum ib_wc_status status)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->state != IB_QPS_ERR && qp->state != IB_QPS_SQE && !qp->fail_set) {
		qp->fail_pos = pos;
		qp->fail_status = status;
		qp->fail_set = true;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	/* A datagram QP's receive side does not depend on its sends. */
	sroce_qp_enter_error(qp, qp->ibqp.qp_type == IB_QPT_RC ? IB_QPS_ERR :
							       IB_QPS_SQE);
}

struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sdev->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refs))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->refs))
		complete(&qp->idle);
}

void sroce_qp_fail_all(struct sroce_dev *sdev)
{
	struct sroce_qp *qp;
	unsigned long qpn;
	void *entry;

	xa_for_each(&sdev->qps, qpn, entry) {
		/* Held, or skipped when a destroy got there first. */
		qp = sroce_qp_get(sdev, qpn);
		if (!qp)
			continue;
		/* QP1 is the MAD layer's; it goes with the device. */
		if (qp->ibqp.qp_type != IB_QPT_GSI &&
		    READ_ONCE(qp->state) != IB_QPS_ERR) {
			sroce_qp_enter_error(qp, IB_QPS_ERR);
			sroce_qp_event(qp, IB_EVENT_QP_FATAL);
		}
		sroce_qp_put(qp);
	}
}
