// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation with their rings, the IBTA modify_qp state machine
 * (IBTA 10.3.1), query and destroy.
 *
 * A modify is three steps: ib_modify_qp_is_ok() decides whether the
 * transition is legal and takes exactly these attributes (the core's table
 * of IBTA 11.2.5); sroce_qp_check_params() checks every value; then the
 * attributes are stored and the handler of the state entered runs. All
 * three under the QP's mutex, so a modify is all or nothing.
 */
#include <kunit/visibility.h>
#include <linux/random.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include "ah.h"
#include "cc.h"
#include "cq.h"
#include "mcast.h"
#include "net.h"
#include "opcode.h"
#include "psn.h"
#include "qp.h"
#include "qp_verbs.h"
#include "queue.h"
#include "reply.h"
#include "req.h"
#include "sroce.h"
#include "srq.h"
#include "trace.h"
#include "tx.h"
#include "wqe.h"

/* QPNs 0 and 1 are special, 0xffffff is the multicast QPN. */
#define SROCE_QPN_FIRST		2
#define SROCE_QPN_LAST		(SROCE_PSN_MASK - 1)
#define SROCE_QPN_TRIES		64

/*
 * Remote access a QP may grant: the IBTA 1.4 four, and the two FLUSH
 * permissions of IBTA 1.5, which a FLUSH's placement type needs (ext.c).
 * IB_ACCESS_ON_DEMAND means nothing for a QP (pyverbs' ODP tests set
 * it): taken, and ignored.
 */
#define SROCE_QP_ACCESS_FLUSH	(IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT)
#define SROCE_QP_ACCESS_KNOWN	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 SROCE_QP_ACCESS_FLUSH | IB_ACCESS_ON_DEMAND)

static struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

int sroce_qp_check_cap(const struct ib_qp_cap *cap, bool has_srq)
{
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	if (has_srq)
		return 0;
	if (cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_sge > SROCE_MAX_SGE)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_qp_check_cap);

int sroce_qp_check_params(const struct ib_qp_attr *attr, int mask,
			  enum ib_qp_type type, enum ib_mtu active_mtu)
{
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE))
		return -EOPNOTSUPP;
	/* The limit holds RC and UC requests (cc.c); UD has DCQCN's rate alone. */
	if ((mask & IB_QP_RATE_LIMIT) &&
	    ((type != IB_QPT_RC && type != IB_QPT_UC) ||
	     sroce_cc_check_rate_limit(attr->rate_limit)))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT_NUM)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SROCE_PKEY_TABLE_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > active_mtu))
		return -EINVAL;
	if ((mask & IB_QP_SQ_PSN) && attr->sq_psn > SROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_RQ_PSN) && attr->rq_psn > SROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~SROCE_QP_ACCESS_KNOWN))
		return -EINVAL;
	/* RoCE needs a GRH in every address. */
	if ((mask & IB_QP_AV) &&
	    (attr->ah_attr.type != RDMA_AH_ATTR_TYPE_ROCE ||
	     !(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH)))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_qp_check_params);

/* Forget every posted work request: no completions (IBTA 10.3.1, Reset). */
static void sroce_qp_enter_reset(struct sroce_qp *qp)
{
	struct sroce_queue *q[] = { &qp->sq, &qp->rq };
	unsigned int i;

	lockdep_assert_held(&qp->sq_lock);
	lockdep_assert_held(&qp->rq_lock);
	for (i = 0; i < ARRAY_SIZE(q); i++) {
		if (!q[i]->ring)
			continue;
		/* Consumer catches up with the producer: the ring is empty. */
		q[i]->index = smp_load_acquire(&q[i]->ring->producer) & q[i]->mask;
		/* Release: the producer sees the slots free only after we left them. */
		smp_store_release(&q[i]->ring->consumer, q[i]->index);
	}
	qp->params.sqd_notify = false;
}

/* Receiving starts: the responder's sequence and the path to the peer. */
static void sroce_qp_enter_rtr(struct sroce_qp *qp)
{
	const struct ib_gid_attr *sgid = qp->params.av.grh.sgid_attr;

	spin_lock_bh(&qp->resp.lock);
	qp->resp.psn = qp->params.rq_psn;
	qp->resp.msn = 0;
	qp->resp.prev = SROCE_OPCODE_NONE;
	qp->resp.nak_sent = false;
	qp->resp.uc_dropping = false;
	qp->resp.wqe_active = false;
	sroce_reply_reset(qp);
	spin_unlock_bh(&qp->resp.lock);
	if (sgid) {
		sroce_path_from_av(&qp->req.path, &qp->params.av, &sgid->gid,
				   qp->ibqp.qp_num, qp->params.dest_qpn);
		sroce_path_set_netdev(&qp->req.path, to_sdev(qp->ibqp.device),
				      sgid);
		sroce_cc_qp_start(qp);
	} else if (qp->ibqp.qp_type == IB_QPT_UD) {
		/* No path: each datagram's AH gives its own. */
		sroce_cc_qp_start(qp);
	}
	/* The old path's route is no good for the new one. */
	dst_cache_reset(&qp->req.dst_cache);
	/*
	 * Looked at once: a route that later starts or stops ending here
	 * only moves where the requester runs, not what it does.
	 */
	WRITE_ONCE(qp->req.peer_local,
		   sgid && qp->ibqp.qp_type != IB_QPT_UD &&
		   sroce_net_is_local(to_sdev(qp->ibqp.device), &qp->req.path,
				      &qp->req.dst_cache));
}

/*
 * The work of entering a state. It takes both posting locks, so that the
 * posting verbs see the state and the rings change together. The states
 * not named here (INIT, RTR) only take the attributes; those that flush
 * are qp.c's.
 */
static int sroce_qp_enter(struct sroce_qp *qp, enum ib_qp_state next,
			  const struct ib_qp_attr *attr, int mask)
{
	unsigned long flags;

	/* The states that flush are the packet path's too (qp.c). */
	if (next == IB_QPS_ERR || next == IB_QPS_SQE) {
		sroce_qp_enter_error(qp, next);
		return 0;
	}
	/* No packet reaches a QP in INIT: the responder is ours to set. */
	if (next == IB_QPS_RTR && qp->state == IB_QPS_INIT) {
		if (sroce_reply_size(qp))
			return -ENOMEM;
		sroce_qp_enter_rtr(qp);
	}

	spin_lock_irqsave(&qp->sq_lock, flags);
	spin_lock(&qp->rq_lock);
	/*
	 * The packet path or a timer moved the QP to ERR since the modify was
	 * checked: ERR is left through RESET only (IBTA 10.3.1), and what
	 * it flushed stays flushed.
	 */
	if (qp->state == IB_QPS_ERR && next != IB_QPS_RESET) {
		spin_unlock(&qp->rq_lock);
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return -EINVAL;
	}
	switch (next) {
	case IB_QPS_RESET:
		sroce_qp_enter_reset(qp);
		qp->fail_set = false;
		break;
	case IB_QPS_RTS:
		if (qp->state == IB_QPS_RTR)
			sroce_req_start(qp);
		/* Out of SQD: the WQEs left posted go (IBTA 10.3.1). */
		qp->sqd_boundary = false;
		qp->sq_drained = false;
		/* Out of SQE: the failed WQE is told; a new one may fail. */
		if (qp->state == IB_QPS_SQE && qp->ibqp.qp_type == IB_QPT_UC)
			sroce_req_resume(qp);
		qp->fail_set = false;
		break;
	case IB_QPS_SQD:
		/* SQD to SQD changes attributes only: the drain goes on. */
		if (qp->state == IB_QPS_SQD)
			break;
		qp->params.sqd_notify = mask & IB_QP_EN_SQD_ASYNC_NOTIFY &&
					attr->en_sqd_async_notify;
		qp->sqd_boundary = false;
		qp->sq_drained = false;
		break;
	default:
		break;
	}
	trace_sroce_qp_state(&qp->ibqp, qp->state, next, 0);
	WRITE_ONCE(qp->state, next);
	spin_unlock(&qp->rq_lock);
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	/*
	 * Posted sends wait for RTS; a drained SQ may take more. Into SQD,
	 * the requester finds its message boundary (and may find the QP
	 * drained at once).
	 */
	if (next == IB_QPS_RTS || next == IB_QPS_SQD)
		sroce_req_kick(&qp->req);
	return 0;
}

static void sroce_qp_store(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			   int mask)
{
	struct sroce_qp_params *p = &qp->params;

	if (mask & IB_QP_QKEY)
		p->qkey = attr->qkey;
	if (mask & IB_QP_PKEY_INDEX)
		WRITE_ONCE(p->pkey_index, attr->pkey_index);
	if (mask & IB_QP_SQ_PSN)
		p->sq_psn = attr->sq_psn;
	if (mask & IB_QP_RQ_PSN)
		p->rq_psn = attr->rq_psn;
	if (mask & IB_QP_DEST_QPN)
		p->dest_qpn = attr->dest_qp_num;
	if (mask & IB_QP_PATH_MTU)
		p->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		p->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		p->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		p->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		p->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		p->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		p->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_ACCESS_FLAGS)
		p->access = attr->qp_access_flags;
	if (mask & IB_QP_RATE_LIMIT)
		sroce_cc_set_rate_limit(qp, attr->rate_limit);
	if (mask & IB_QP_AV)
		rdma_replace_ah_attr(&p->av, &attr->ah_attr);
}

int sroce_qp_modify_check(enum ib_qp_state cur, const struct ib_qp_attr *attr,
			  int mask, enum ib_qp_type type, enum ib_mtu active_mtu)
{
	enum ib_qp_state next = mask & IB_QP_STATE ? attr->qp_state : cur;

	if (mask & ~(IB_QP_ATTR_STANDARD_BITS | IB_QP_RATE_LIMIT))
		return -EOPNOTSUPP;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return -EINVAL;
	if (!ib_modify_qp_is_ok(cur, next, type, mask))
		return -EINVAL;
	return sroce_qp_check_params(attr, mask, type, active_mtu);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_qp_modify_check);

static int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	int err;

	if (udata && udata->inlen)
		return -EINVAL;
	/* Controlled Q_Keys are for the kernel's consumers (IBTA 10.2.5). */
	if (udata && (mask & IB_QP_QKEY) && (attr->qkey & SROCE_QKEY_CONTROLLED))
		return -EPERM;

	mutex_lock(&qp->lock);
	err = sroce_qp_modify_check(qp->state, attr, mask, ibqp->qp_type,
				    READ_ONCE(sdev->active_mtu));
	if (!err) {
		sroce_qp_store(qp, attr, mask);
		err = sroce_qp_enter(qp, mask & IB_QP_STATE ? attr->qp_state :
							    qp->state, attr, mask);
	}
	if (!err && qp->state == IB_QPS_RESET) {
		/* Running engines see RESET and stop; then forget it all. */
		sroce_req_stop(qp);
		cancel_work_sync(&qp->resp.work);
		sroce_req_reset(qp);
	}
	mutex_unlock(&qp->lock);
	return err;
}

static int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	const struct sroce_qp_params *p = &qp->params;
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	mutex_lock(&qp->lock);
	/*
	 * Under the lock that a move to ERR holds while it flushes: one who
	 * has polled a flushed completion must not then read RTS.
	 */
	spin_lock_irqsave(&qp->sq_lock, flags);
	attr->qp_state = qp->state;
	attr->sq_draining = qp->state == IB_QPS_SQD && !qp->sq_drained;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = p->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = p->qkey;
	attr->rq_psn = p->rq_psn;
	attr->sq_psn = p->sq_psn;
	attr->dest_qp_num = p->dest_qpn;
	attr->rate_limit = READ_ONCE(qp->cc.rate_limit);
	attr->qp_access_flags = p->access;
	attr->cap = qp->cap;
	/* Queries hand out no GID reference (ib_query_qp() callers put none). */
	attr->ah_attr = p->av;
	attr->ah_attr.grh.sgid_attr = NULL;
	attr->pkey_index = p->pkey_index;
	attr->en_sqd_async_notify = p->sqd_notify;
	attr->max_rd_atomic = p->max_rd_atomic;
	attr->max_dest_rd_atomic = p->max_dest_rd_atomic;
	attr->min_rnr_timer = p->min_rnr_timer;
	attr->port_num = SROCE_PORT_NUM;
	attr->timeout = p->timeout;
	attr->retry_cnt = p->retry_cnt;
	attr->rnr_retry = p->rnr_retry;
	mutex_unlock(&qp->lock);

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->ibqp.qp_type == IB_QPT_GSI ? IB_SIGNAL_ALL_WR :
			    IB_SIGNAL_REQ_WR;
	init->port_num = SROCE_PORT_NUM;
	return 0;
}

/* Source of &sroce_qp.id: 64 bits, never wraps. */
static atomic64_t sroce_qp_ids = ATOMIC64_INIT(0);

/*
 * A random QPN, unique on the device; QP1 is the GSI QP's own. The number
 * is reserved (lookups find nothing) until the QP is complete. And the
 * QP's id, which no other QP gets.
 */
static int sroce_qpn_alloc(struct sroce_dev *sdev, struct sroce_qp *qp)
{
	unsigned int i;
	u32 qpn;
	int err;

	qp->id = atomic64_inc_return(&sroce_qp_ids);
	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		err = xa_insert(&sdev->qps, SROCE_QPN_GSI, NULL, GFP_KERNEL);
		qpn = SROCE_QPN_GSI;
		goto out;
	}
	for (i = 0; i < SROCE_QPN_TRIES; i++) {
		qpn = get_random_u32_inclusive(SROCE_QPN_FIRST, SROCE_QPN_LAST);
		err = xa_insert(&sdev->qps, qpn, NULL, GFP_KERNEL);
		if (err != -EBUSY)
			goto out;
	}
	return -ENOSPC;
out:
	if (!err)
		qp->ibqp.qp_num = qpn;
	return err;
}

static size_t sroce_sq_elem_bytes(const struct ib_qp_cap *cap)
{
	return sizeof(struct rxe_send_wqe) +
	       max_t(size_t, cap->max_send_sge * sizeof(struct rxe_sge),
		     cap->max_inline_data);
}

static size_t sroce_rq_elem_bytes(const struct ib_qp_cap *cap)
{
	return sizeof(struct rxe_recv_wqe) + cap->max_recv_sge * sizeof(struct rxe_sge);
}

static int sroce_qp_rings(struct sroce_qp *qp, struct ib_qp_init_attr *init,
			  struct ib_udata *udata)
{
	struct rxe_create_qp_resp resp = {};
	struct ib_ucontext *uctx;
	int err;

	/* A ring has at least one usable slot, even for "no WRs". */
	err = sroce_queue_init(&qp->sq, max(1U, init->cap.max_send_wr),
			       sroce_sq_elem_bytes(&init->cap),
			       SROCE_KERNEL_CONSUMES);
	if (err)
		return err;
	if (!init->srq) {
		err = sroce_queue_init(&qp->rq, max(1U, init->cap.max_recv_wr),
				       sroce_rq_elem_bytes(&init->cap),
				       SROCE_KERNEL_CONSUMES);
		if (err)
			goto err_sq;
	}
	if (!udata)
		return 0;

	uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	err = sroce_queue_share(&qp->sq, uctx, &resp.sq_mi);
	if (err)
		goto err_rq;
	if (qp->rq.ring) {
		err = sroce_queue_share(&qp->rq, uctx, &resp.rq_mi);
		if (err)
			goto err_rq;
	}
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_rq;
	return 0;

err_rq:
	if (qp->rq.ring)
		sroce_queue_release(&qp->rq);
err_sq:
	sroce_queue_release(&qp->sq);
	return err;
}

/* Scatter entries a receive WQE of the new QP may have: its SRQ's or its own. */
static u32 sroce_qp_recv_sges(const struct ib_qp_init_attr *init)
{
	return init->srq ? to_ssrq(init->srq)->max_sge : init->cap.max_recv_sge;
}

static int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (udata)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (udata && (udata->inlen || udata->outlen < sizeof(struct rxe_create_qp_resp)))
		return -EINVAL;
	err = sroce_qp_check_cap(&init->cap, init->srq);
	if (err)
		return err;

	err = sroce_obj_take(sdev, SROCE_OBJ_QP);
	if (err)
		return err;
	mutex_init(&qp->lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->state = IB_QPS_RESET;
	qp->user = udata;
	qp->params.path_mtu = IB_MTU_256;
	refcount_set(&qp->refs, 1);
	init_completion(&qp->idle);
	err = sroce_qpn_alloc(sdev, qp);
	if (err)
		goto err_mutex;
	err = sroce_qp_rings(qp, init, udata);
	if (err)
		goto err_qpn;
	/* The WR counts granted are the rings' usable slots. */
	init->cap.max_send_wr = sroce_queue_slots(&qp->sq);
	if (qp->rq.ring)
		init->cap.max_recv_wr = sroce_queue_slots(&qp->rq);
	qp->cap = init->cap;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	sroce_cc_qp_init(qp);
	err = sroce_tx_acct_new(qp);
	if (err)
		goto err_rings;
	err = sroce_req_init(qp);
	if (err)
		goto err_tx;
	err = sroce_reply_init(qp, sroce_qp_recv_sges(init));
	if (err)
		goto err_req;
	/* Complete: packets may find it. The slot is reserved, nothing fails. */
	xa_store(&sdev->qps, qp->ibqp.qp_num, qp, GFP_KERNEL);
	return 0;

err_req:
	sroce_req_free(qp);
	dst_cache_destroy(&qp->req.dst_cache);
err_tx:
	sroce_tx_acct_put(qp);
err_rings:
	if (qp->rq.ring)
		sroce_queue_release(&qp->rq);
	sroce_queue_release(&qp->sq);
err_qpn:
	xa_erase(&sdev->qps, qp->ibqp.qp_num);
err_mutex:
	mutex_destroy(&qp->lock);
	sroce_obj_put(sdev, SROCE_OBJ_QP);
	return err;
}

/*
 * Teardown order: out of the table, so packets no longer find the QP; an
 * RCU grace period, so no lookup still holds its address (the core frees the
 * memory as soon as we return); the table's reference dropped and the
 * packet path's waited for; the requester stopped; then the memory.
 */
static int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	/* A resource dump may run until the core is done with the QP. */
	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->gone = true;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (ibqp->qp_type == IB_QPT_UD)
		sroce_mcast_qp_gone(sdev, ibqp->qp_num);
	xa_erase(&sdev->qps, ibqp->qp_num);
	/* Packets the stack still holds no longer lead here either. */
	sroce_tx_acct_detach(qp);
	/*
	 * Expedited: a normal grace period (tens of ms under load) made each
	 * rdma_cm teardown, which destroys QPs one after the other, wait for
	 * one per QP: 1000 connections took 15 s to rdma_rxe's 1.4.
	 */
	synchronize_rcu_expedited();
	sroce_qp_put(qp);
	wait_for_completion(&qp->idle);
	/* No packet can reach the QP now: its timers, the requester, then free. */
	sroce_cc_qp_stop(qp);
	sroce_req_free(qp);
	sroce_reply_free(qp);
	sroce_tx_acct_put(qp);
	/* Last: the responder sent through it too. */
	dst_cache_destroy(&qp->req.dst_cache);
	if (qp->rq.ring)
		sroce_queue_release(&qp->rq);
	sroce_queue_release(&qp->sq);
	rdma_destroy_ah_attr(&qp->params.av);
	mutex_destroy(&qp->lock);
	sroce_obj_put(sdev, SROCE_OBJ_QP);
	return 0;
}

/* Receive WRs of kernel consumers go into the RQ ring, as user ones do. */
static int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	bool notify = false;
	unsigned long flags;
	int err = 0;

	/* User space posts into its mapping; an SRQ has its own verb. */
	if (qp->user || !qp->rq.ring) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->state == IB_QPS_RESET)
		err = -EINVAL;
	for (; wr && !err; wr = wr->next) {
		err = sroce_rwqe_post(&qp->rq, qp->cap.max_recv_sge, wr);
		if (err)
			break;
	}
	/* In ERR a receive completes at once, flushed (ib_drain_rq()). */
	if (qp->state == IB_QPS_ERR)
		notify = sroce_qp_flush_rq(qp);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (notify)
		sroce_cq_notify(ibqp->recv_cq);
	if (err)
		*bad_wr = wr;
	return err;
}

/* A UD or GSI QP: its send WRs name an address handle. */
static bool sroce_qp_datagram(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/* The opcode's own fields of a kernel send WR, in the ring's element. */
static void sroce_post_send_fields(struct sroce_qp *qp, const struct ib_send_wr *wr,
				   struct rxe_send_wqe *wqe)
{
	struct sroce_reg_slot *reg;

	static_assert(sizeof(*reg) <= sizeof_field(struct rxe_send_wr, wr));
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		reg = (struct sroce_reg_slot *)&wqe->wr.wr;
		reg->mr = (uintptr_t)reg_wr(wr)->mr;
		reg->key = reg_wr(wr)->key;
		reg->access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
	if (sroce_qp_datagram(qp)) {
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		wqe->wr.wr.ud.ah_num = sroce_ah_num(ud_wr(wr)->ah);
	}
}

/* The data of a kernel send WR: inline bytes, or its gather list. */
static void sroce_post_send_data(const struct ib_send_wr *wr,
				 struct rxe_send_wqe *wqe, u32 len)
{
	u32 off;
	int i;

	if (wr->send_flags & IB_SEND_INLINE) {
		/* Kernel consumers give kernel addresses for inline data. */
		for (i = 0, off = 0; i < wr->num_sge; i++) {
			memcpy(wqe->dma.inline_data + off,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
	} else {
		sroce_wqe_set_sges(&wqe->dma, wr->sg_list, wr->num_sge);
	}
	wqe->dma.length = len;
	wqe->dma.resid = len;
}

/* A kernel consumer's send WR, written into the send ring as users do. */
static int sroce_post_send_one(struct sroce_qp *qp, const struct ib_send_wr *wr)
{
	struct sroce_ring *ring = qp->sq.ring;
	struct rxe_send_wqe *wqe;
	u32 prod, next, len = 0;
	int i;

	/* ATOMIC WRITE and FLUSH: a kernel send WR has no fields for them. */
	if (!sroce_wqe_executes(wr->opcode) || sroce_wr_ext(wr->opcode))
		return -EOPNOTSUPP;
	/* A datagram is a SEND, to the AH's address. */
	if (sroce_qp_datagram(qp) &&
	    ((wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM) ||
	     !ud_wr(wr)->ah))
		return -EINVAL;
	/* UC: no READ, atomic or SEND with invalidate (IBTA 9.8). */
	if (qp->ibqp.qp_type == IB_QPT_UC && !sroce_wqe_uc_executes(wr->opcode))
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > qp->cap.max_send_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		if (check_add_overflow(len, wr->sg_list[i].length, &len))
			return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) && len > qp->cap.max_inline_data)
		return -EINVAL;
	/* A kernel ring: the producer index is ours, in kernel memory. */
	prod = ring->producer & qp->sq.mask;
	next = (prod + 1) & qp->sq.mask;
	/* Acquire pairs with the completer's release: the slot is free. */
	if (next == (smp_load_acquire(&ring->consumer) & qp->sq.mask))
		return -ENOMEM;
	wqe = (struct rxe_send_wqe *)(ring->data + ((size_t)prod << qp->sq.log2_elem));
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	wqe->wr.ex.imm_data = wr->ex.imm_data;
	sroce_post_send_fields(qp, wr, wqe);
	sroce_post_send_data(wr, wqe, len);
	/* Release: the element is complete before the requester sees it. */
	smp_store_release(&ring->producer, next);
	return 0;
}

/* The completion of a send WR posted in ERR: flushed at once. */
static bool sroce_post_send_flush(struct sroce_qp *qp, const struct ib_send_wr *wr)
{
	struct ib_wc wc = {
		.wr_id = wr->wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = sroce_wr_to_wc_opcode(wr->opcode),
		.qp = &qp->ibqp,
	};

	return sroce_cq_add(qp->ibqp.send_cq, &wc, qp->ibqp.qp_num, false) > 0;
}

/*
 * The send side. RC, UD and GSI QPs in RTS or SQD take sends (the
 * requester runs them; in SQD they wait for RTS); a user QP rings the doorbell
 * with no WR. In ERR and SQE, what is posted is flushed at once
 * (ib_drain_sq() relies on it). RESET, INIT and RTR take no sends (IBTA
 * 10.8.2). UC QPs send like RC ones, unacknowledged.
 */
static int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	bool notify = false, kick = false;
	unsigned long flags;
	int err = 0;

	/*
	 * A user QP gets its requester's WQE copies on its first doorbell,
	 * a system call: a QP that never sends never pays for them.
	 */
	if (qp->user && sroce_queue_shadow_get(&qp->sq, qp->req.stride,
					       &qp->req.swqes)) {
		*bad_wr = wr;
		return -ENOMEM;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	switch (qp->state) {
	case IB_QPS_ERR:
	case IB_QPS_SQE:
		/* Older WQEs first: completions keep the posting order. */
		notify = sroce_qp_flush_sq(qp);
		for (; wr; wr = wr->next) {
			if (wr->num_sge < 0 || wr->num_sge > qp->cap.max_send_sge) {
				err = -EINVAL;
				break;
			}
			notify |= sroce_post_send_flush(qp, wr);
		}
		break;
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		err = -EINVAL;
		break;
	default:
		kick = true;
		for (; wr && !qp->user; wr = wr->next) {
			err = sroce_post_send_one(qp, wr);
			if (err)
				break;
		}
		break;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (notify)
		sroce_cq_notify(ibqp->send_cq);
	/* Where the requester's work item runs from now on (req.c). */
	if (kick)
		WRITE_ONCE(qp->req.cpu, raw_smp_processor_id());
	/*
	 * A user's doorbell is a system call: send from it, unless the peer
	 * is in this host. Then the pass would run the peer's receiving too,
	 * all of it in the sender's time slice: the work item runs it
	 * instead (Documentation/datapath.rst, "Requester").
	 */
	if (kick && qp->user && !READ_ONCE(qp->req.peer_local))
		sroce_req_run(qp);
	else if (kick)
		sroce_req_kick(&qp->req);
	if (err)
		*bad_wr = wr;
	return err;
}

static const struct ib_device_ops sroce_qp_ops = {
	.create_qp = sroce_create_qp,
	.modify_qp = sroce_modify_qp,
	.query_qp = sroce_query_qp,
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,
	.destroy_qp = sroce_destroy_qp,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
};

void sroce_set_qp_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_qp_ops);
}
