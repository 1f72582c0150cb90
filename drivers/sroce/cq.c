// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues. A CQ is a ring the kernel produces into: for a user
 * CQ it holds struct ib_uverbs_wc elements and user space consumes them
 * through its mapping; for a kernel CQ it holds struct ib_wc and
 * sroce_poll_cq() consumes them.
 *
 * Locking: cq->lock covers the producer side (posting, resize, arming).
 * A kernel CQ's consumer index is also kernel memory, moved under the
 * same lock by poll.
 */
#include <linux/spinlock.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include "cq.h"
#include "queue.h"
#include "sroce.h"

/**
 * struct sroce_cq - a completion queue
 * @ibcq: the RDMA core's CQ; must stay first
 * @lock: serialises producers, resize, arming and kernel polling
 * @queue: the ring
 * @user: the ring is mapped by user space
 * @armed: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP armed by req_notify, or 0
 * @overflowed: a completion found the ring full; the CQ is in error
 * @gone: its destroy has begun (under @lock): a resource dump reads no more
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* see the kernel-doc above */
	struct sroce_queue queue;
	bool user;
	u8 armed;
	bool overflowed;
	bool gone;
};

static struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

static size_t sroce_cqe_bytes(bool user)
{
	return user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

/*
 * Offer a CQ ring to the caller's user context and answer with where to
 * map it: both the create and the resize response are just that mminfo.
 */
static int sroce_cq_share(struct sroce_queue *q, struct ib_udata *udata)
{
	struct ib_ucontext *uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	struct mminfo mi = {};
	int err;

	static_assert(sizeof(struct rxe_create_cq_resp) == sizeof(mi));
	static_assert(sizeof(struct rxe_resize_cq_resp) == sizeof(mi));
	err = sroce_queue_share(q, uctx, &mi);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &mi, sizeof(mi));
}

static int sroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   SROCE_CREATE_CQ_UARG)
{
	struct ib_udata *udata = SROCE_CREATE_CQ_UDATA;
	struct sroce_cq *cq = to_scq(ibcq);
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SROCE_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata && (udata->inlen ||
		      udata->outlen < sizeof(struct rxe_create_cq_resp)))
		return -EINVAL;

	err = sroce_obj_take(to_sdev(ibcq->device), SROCE_OBJ_CQ);
	if (err)
		return err;
	spin_lock_init(&cq->lock);
	cq->user = udata;
	err = sroce_queue_init(&cq->queue, attr->cqe, sroce_cqe_bytes(cq->user),
			       SROCE_KERNEL_PRODUCES);
	if (err)
		goto err_count;
	if (udata) {
		err = sroce_cq_share(&cq->queue, udata);
		if (err)
			goto err_release;
	}
	ibcq->cqe = sroce_queue_slots(&cq->queue);
	return 0;

err_release:
	sroce_queue_release(&cq->queue);
err_count:
	sroce_obj_put(to_sdev(ibcq->device), SROCE_OBJ_CQ);
	return err;
}

static int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	/* The core destroys a CQ only once no QP or SRQ refers to it. */
	spin_lock_irq(&cq->lock);
	cq->gone = true;	/* what a resource dump beside us looks at */
	spin_unlock_irq(&cq->lock);
	sroce_queue_release(&cq->queue);
	sroce_obj_put(to_sdev(ibcq->device), SROCE_OBJ_CQ);
	return 0;
}

static int sroce_resize_cq(struct ib_cq *ibcq, SROCE_RESIZE_CQ_SIZE cqe,
			   struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue next, old;
	int err;

	if (!cq->user || !udata)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > SROCE_MAX_CQE ||
	    udata->outlen < sizeof(struct rxe_resize_cq_resp))
		return -EINVAL;

	err = sroce_queue_init(&next, cqe, sroce_cqe_bytes(true),
			       SROCE_KERNEL_PRODUCES);
	if (err)
		return err;
	/* The provider holds its CQ lock: its consumer index stays put. */
	err = sroce_cq_share(&next, udata);
	if (err)
		goto err_release;

	spin_lock_irq(&cq->lock);
	/* Completions not polled yet move; more than fit is an error. */
	err = sroce_queue_copy(&cq->queue, &next);
	if (err) {
		spin_unlock_irq(&cq->lock);
		goto err_release;
	}
	old = cq->queue;
	cq->queue = next;
	ibcq->cqe = sroce_queue_slots(&next);
	spin_unlock_irq(&cq->lock);

	sroce_queue_release(&old);
	return 0;

err_release:
	sroce_queue_release(&next);
	return err;
}

static int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_ring *ring = cq->queue.ring;
	unsigned long flags;
	u32 cons, mask;
	int n = 0;

	if (cq->user)
		return -EINVAL;	/* user space polls its own mapping */

	spin_lock_irqsave(&cq->lock, flags);
	/* A kernel ring: both indices are ours, in kernel memory. */
	mask = cq->queue.mask;
	cons = ring->consumer;
	while (n < num_entries && cons != cq->queue.index) {
		memcpy(&wc[n++], ring->data + ((size_t)cons << cq->queue.log2_elem),
		       sizeof(*wc));
		cons = (cons + 1) & mask;
	}
	ring->consumer = cons;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	u8 want = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP covers SOLICITED: never weaken an armed CQ. */
	if (cq->armed != IB_CQ_NEXT_COMP)
		cq->armed = want;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && sroce_queue_count(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/* libibverbs' IBV_WC_WITH_INV; the kernel's IB_WC_WITH_INVALIDATE is 4. */
#define SROCE_UWC_WITH_INV	BIT(3)

/* The user ABI's completion, from the kernel's. */
static void sroce_wc_to_user(const struct ib_wc *wc, u32 qpn,
			     struct ib_uverbs_wc *uwc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = qpn;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = (wc->wc_flags & (IB_WC_GRH | IB_WC_WITH_IMM)) |
			(wc->wc_flags & IB_WC_WITH_INVALIDATE ? SROCE_UWC_WITH_INV : 0);
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}

int sroce_cq_add(struct ib_cq *ibcq, const struct ib_wc *wc, u32 qpn,
		 bool solicited)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct ib_event ev;
	unsigned long flags;
	bool notify;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflowed ||
	    sroce_queue_count(&cq->queue) == sroce_queue_slots(&cq->queue)) {
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (ibcq->event_handler) {
			ev.device = ibcq->device;
			ev.element.cq = ibcq;
			ev.event = IB_EVENT_CQ_ERR;
			ibcq->event_handler(&ev, ibcq->cq_context);
		}
		return -ENOSPC;
	}
	if (cq->user)
		sroce_wc_to_user(wc, qpn, sroce_queue_slot(&cq->queue));
	else
		memcpy(sroce_queue_slot(&cq->queue), wc, sizeof(*wc));
	sroce_queue_advance(&cq->queue);
	notify = cq->armed == IB_CQ_NEXT_COMP ||
		 (cq->armed == IB_CQ_SOLICITED && (solicited || wc->status));
	if (notify)
		cq->armed = 0;
	spin_unlock_irqrestore(&cq->lock, flags);
	return notify;
}

void sroce_cq_notify(struct ib_cq *ibcq)
{
	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

/* `rdma resource show cq -dd`: completions not polled yet, overflow. */
static int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct nlattr *table;
	unsigned long flags;
	int err = 0;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	/*
	 * Under the CQ's lock: a resize swaps the ring, and a destroy may
	 * run beside a dump (the restrack reference keeps only the CQ).
	 */
	spin_lock_irqsave(&cq->lock, flags);
	if (!cq->gone &&
	    (rdma_nl_put_driver_u32(msg, "cqe_waiting", sroce_queue_count(&cq->queue)) ||
	     rdma_nl_put_driver_u32(msg, "overflowed", cq->overflowed)))
		err = -EMSGSIZE;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}

static const struct ib_device_ops sroce_cq_ops = {
	.create_cq = sroce_create_cq,
	.SROCE_RESIZE_CQ_OP = sroce_resize_cq,
	.req_notify_cq = sroce_req_notify_cq,
	.poll_cq = sroce_poll_cq,
	.destroy_cq = sroce_destroy_cq,
	.fill_res_cq_entry = sroce_fill_res_cq_entry,
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
};

void sroce_set_cq_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_cq_ops);
}
