// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs entry points. A user context can be opened, so that stock
 * rdma-core binds and queries the device; every object verb answers
 * -EOPNOTSUPP until its object exists (PD, MR, CQ, SRQ, QP and AH come
 * with the verbs-objects work).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/uverbs_ioctl.h>

#include "mr.h"
#include "queue.h"
#include "sroce.h"

/**
 * struct sroce_ucontext - per-process context of a user of the device
 * @ibuc: the RDMA core's context; must stay first
 */
struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

/*
 * The RDMA core allocates these objects before it calls us, so their sizes
 * must be declared even while the create verbs refuse.
 */
struct sroce_pd {
	struct ib_pd ibpd;
};

struct sroce_qp {
	struct ib_qp ibqp;
};

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	/* The rxe ABI has no driver data in either direction here. */
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

static int sroce_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	/* A PD is only a name that other objects are checked against. */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	return 0;
}

static int sroce_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int sroce_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int sroce_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int sroce_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

static int sroce_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int sroce_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

/* Grouped by object, in the order a consumer meets them. */
static const struct ib_device_ops sroce_verbs_ops = {
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),

	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),

	.create_qp = sroce_create_qp,
	.modify_qp = sroce_modify_qp,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.destroy_qp = sroce_destroy_qp,
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
};

void sroce_set_verbs_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_verbs_ops);
	sroce_set_cq_ops(ibdev);
	sroce_set_mr_ops(ibdev);
	/* Legacy write() commands the rxe provider still issues. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
}
