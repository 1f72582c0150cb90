// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues. An SRQ's ring holds the same elements as a QP's
 * receive ring (struct rxe_recv_wqe and its scatter list, wqe.c):
 * kernel consumers post through sroce_rwqe_post(), user space writes its
 * mapping directly, and the receive side takes WQEs with sroce_srq_take().
 *
 * SRQ verbs: create, modify (arm the limit, resize), query, destroy and
 * the kernel post. A user SRQ's resize hands the provider a new ring
 * through the mminfo pointer of its modify command; the old ring lives on
 * until the provider unmaps it.
 */
#include <kunit/visibility.h>
#include <linux/overflow.h>
#include <rdma/uverbs_ioctl.h>

#include "queue.h"
#include "sroce.h"
#include "srq.h"
#include "wqe.h"

static_assert(sizeof(struct rxe_sge) == sizeof(struct ib_sge));
static_assert(offsetof(struct rxe_sge, length) == offsetof(struct ib_sge, length));
static_assert(offsetof(struct rxe_sge, lkey) == offsetof(struct ib_sge, lkey));

int sroce_srq_take(struct sroce_srq *srq, struct sroce_rwqe *wqe, u32 need)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	struct ib_event ev;
	unsigned long flags;
	bool fire = false;
	int err;

	spin_lock_irqsave(&srq->lock, flags);
	err = sroce_rwqe_take(&srq->rq, srq->max_sge, wqe, need);
	if (err != -ENOENT && err != -EMSGSIZE && srq->limit &&
	    sroce_queue_count(&srq->rq) < srq->limit) {
		srq->limit = 0;		/* one event per arming */
		fire = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (fire && ibsrq->event_handler) {
		ev.device = ibsrq->device;
		ev.element.srq = ibsrq;
		ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
		ibsrq->event_handler(&ev, ibsrq->srq_context);
	}
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_take);

static int sroce_srq_check_size(u32 max_wr)
{
	return max_wr >= 1 && max_wr <= SROCE_MAX_SRQ_WR ? 0 : -EINVAL;
}

static int sroce_create_srq(struct ib_srq *ibsrq,
			    struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct rxe_create_srq_resp resp = {};
	struct ib_ucontext *uctx;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (sroce_srq_check_size(init->attr.max_wr) ||
	    init->attr.max_sge > SROCE_MAX_SRQ_SGE)
		return -EINVAL;
	if (udata && (udata->inlen || udata->outlen < sizeof(resp)))
		return -EINVAL;

	err = sroce_obj_take(sdev, SROCE_OBJ_SRQ);
	if (err)
		return err;
	spin_lock_init(&srq->lock);
	srq->user = udata;
	srq->max_sge = init->attr.max_sge;
	/* The limit is armed by modify_srq only (IBTA 11.2.3.1). */
	srq->limit = 0;
	err = xa_alloc(&sdev->srqs, &srq->srq_num, srq,
		       XA_LIMIT(1, SROCE_MAX_SRQ), GFP_KERNEL);
	if (err)
		goto err_count;
	err = sroce_queue_init(&srq->rq, init->attr.max_wr,
			       sroce_rwqe_bytes(srq->max_sge),
			       SROCE_KERNEL_CONSUMES);
	if (err)
		goto err_num;
	if (udata) {
		uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
		err = sroce_queue_share(&srq->rq, uctx, &resp.mi);
		if (err)
			goto err_ring;
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}
	init->attr.max_wr = sroce_queue_slots(&srq->rq);
	return 0;

err_ring:
	sroce_queue_release(&srq->rq);
err_num:
	xa_erase(&sdev->srqs, srq->srq_num);
err_count:
	sroce_obj_put(sdev, SROCE_OBJ_SRQ);
	return err;
}

/*
 * Allocate the bigger (or smaller) ring before taking the lock; a user
 * SRQ's provider learns where to map it through its command's pointer.
 */
static int sroce_srq_new_ring(struct sroce_srq *srq, u32 max_wr,
			      struct ib_udata *udata, struct sroce_queue *next)
{
	struct rxe_modify_srq_cmd cmd = {};
	struct ib_ucontext *uctx;
	struct mminfo mi = {};
	int err;

	if (srq->user) {
		if (!udata || udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}
	err = sroce_queue_init(next, max_wr, sroce_rwqe_bytes(srq->max_sge),
			       SROCE_KERNEL_CONSUMES);
	if (err)
		return err;
	if (!srq->user)
		return 0;

	uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	err = sroce_queue_share(next, uctx, &mi);
	if (err)
		goto err_ring;
	if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi, sizeof(mi))) {
		err = -EFAULT;
		goto err_ring;
	}
	return 0;

err_ring:
	sroce_queue_release(next);
	return err;
}

static int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_queue next = {}, old = {};
	u32 slots;
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if ((mask & IB_SRQ_MAX_WR) && sroce_srq_check_size(attr->max_wr))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		err = sroce_srq_new_ring(srq, attr->max_wr, udata, &next);
		if (err)
			return err;
	}

	spin_lock_irq(&srq->lock);
	slots = sroce_queue_slots(next.ring ? &next : &srq->rq);
	/* A limit of at least the ring's size could never be left. */
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit >= slots) {
		err = -EINVAL;
		goto out;
	}
	if (next.ring) {
		/* Posted WQEs move; more than fit is an error (IBTA 11.2.3.3). */
		err = sroce_queue_copy(&srq->rq, &next);
		if (err)
			goto out;
		old = srq->rq;
		srq->rq = next;
		next.ring = NULL;
	}
	if (mask & IB_SRQ_LIMIT)
		srq->limit = attr->srq_limit;
out:
	spin_unlock_irq(&srq->lock);
	if (next.ring)
		sroce_queue_release(&next);
	if (old.ring)
		sroce_queue_release(&old);
	return err;
}

static int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	spin_lock_irq(&srq->lock);
	attr->max_wr = sroce_queue_slots(&srq->rq);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irq(&srq->lock);
	return 0;
}

static int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);

	/* The core destroys an SRQ only once no QP uses it. */
	xa_erase(&sdev->srqs, srq->srq_num);
	sroce_queue_release(&srq->rq);
	sroce_obj_put(sdev, SROCE_OBJ_SRQ);
	return 0;
}

static int sroce_post_srq_recv(struct ib_srq *ibsrq,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	/* User space posts into its own mapping. */
	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_rwqe_post(&srq->rq, srq->max_sge, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

static const struct ib_device_ops sroce_srq_ops = {
	.create_srq = sroce_create_srq,
	.modify_srq = sroce_modify_srq,
	.query_srq = sroce_query_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.destroy_srq = sroce_destroy_srq,
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
};

void sroce_set_srq_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_srq_ops);
}
