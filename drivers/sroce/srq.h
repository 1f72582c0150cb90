/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive queues: the receive ring of a QP and the shared receive queue
 * (SRQ), both rings of struct rxe_recv_wqe, and the SRQ verbs.
 */
#ifndef _SROCE_SRQ_H
#define _SROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "qp.h"
#include "queue.h"

/**
 * struct sroce_srq - a shared receive queue
 * @ibsrq: the RDMA core's SRQ; must stay first
 * @lock: serialises the ring's producer (kernel SRQs) and its consumer,
 *	resize and the limit
 * @rq: the ring (struct rxe_recv_wqe elements)
 * @user: the ring is mapped by user space
 * @max_sge: scatter entries per WQE, fixed at creation
 * @limit: armed limit (IB_SRQ_LIMIT), 0 when not armed
 * @srq_num: the SRQ's number, unique on the device
 */
struct sroce_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;	/* see the kernel-doc above */
	struct sroce_queue rq;
	bool user;
	u32 max_sge;
	u32 limit;
	u32 srq_num;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

/**
 * sroce_srq_take() - take the oldest WQE of an SRQ for a received message
 * @srq: the SRQ
 * @wqe: where the copy goes
 * @need: as for sroce_rwqe_take()
 *
 * As sroce_rwqe_take(). When the WQEs left fall below an armed limit, the
 * limit is disarmed and the SRQ's event handler gets
 * IB_EVENT_SRQ_LIMIT_REACHED (IBTA 10.2.9.3).
 *
 * Context: any; takes the SRQ's lock with interrupts saved.
 * Return: as sroce_rwqe_take().
 */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_rwqe *wqe, u32 need);

/**
 * sroce_set_srq_ops() - install the SRQ verbs on a device
 * @ibdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_set_srq_ops(struct ib_device *ibdev);

#endif /* _SROCE_SRQ_H */
