// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs entry points: the user context, the PD, and the installation of
 * every object's verbs (cq.c, mr.c, qp.c, srq.c, ah.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/uverbs_ioctl.h>

#include "ah.h"
#include "cq.h"
#include "mr.h"
#include "mw.h"
#include "qp_verbs.h"
#include "queue.h"
#include "sroce.h"
#include "srq.h"
#include "verbs.h"

/**
 * struct sroce_ucontext - per-process context of a user of the device
 * @ibuc: the RDMA core's context; must stay first
 */
struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

/* The RDMA core allocates the objects; we declare their sizes. */
struct sroce_pd {
	struct ib_pd ibpd;
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

/*
 * The device is going (netdev or namespace gone, rmmod) or moving to
 * another namespace while a process has it open: the core destroys the
 * context's objects now and tells the process (IBV_EVENT_DEVICE_FATAL)
 * instead of waiting for it to close the device. Nothing is left to
 * revoke: each page of a ring was mapped with a reference of its own
 * (queue.c), so the process's mappings keep their pages, which the
 * kernel no longer reads or writes, until it unmaps them.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int sroce_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	/* A PD is only a name that other objects are checked against. */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	return sroce_obj_take(to_sdev(pd->device), SROCE_OBJ_PD);
}

static int sroce_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	sroce_obj_put(to_sdev(pd->device), SROCE_OBJ_PD);
	return 0;
}

/* Grouped by object, in the order a consumer meets them. */
static const struct ib_device_ops sroce_verbs_ops = {
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),

	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),

};

void sroce_set_verbs_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_verbs_ops);
	sroce_set_cq_ops(ibdev);
	sroce_set_mr_ops(ibdev);
	sroce_set_mw_ops(ibdev);
	sroce_set_qp_ops(ibdev);
	sroce_set_srq_ops(ibdev);
	sroce_set_ah_ops(ibdev);
	/* Legacy write() commands the rxe provider still issues. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
}
