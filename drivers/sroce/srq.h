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

/* Device limits for SRQs (query_device reports them, create enforces). */
#define SROCE_MAX_SRQ		0x4000
#define SROCE_MAX_SRQ_WR	SROCE_MAX_QP_WR
#define SROCE_MAX_SRQ_SGE	SROCE_MAX_SGE

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
 * sroce_recv_post() - write a kernel consumer's receive WR into a ring
 * @q: a receive ring the kernel consumes and the caller produces
 * @max_sge: scatter entries a WQE of @q holds
 * @wr: the work request (only this one, not its successors)
 *
 * Context: the caller serialises the producers of @q.
 * Return: 0, -EINVAL for too many scatter entries or a total length that
 * overflows 32 bits, -ENOMEM when the ring is full.
 */
int sroce_recv_post(struct sroce_queue *q, u32 max_sge,
		    const struct ib_recv_wr *wr);

/**
 * sroce_recv_take() - take the oldest WQE of a receive ring
 * @q: a receive ring the kernel consumes
 * @max_sge: scatter entries a WQE of @q holds
 * @wqe: where the copy goes
 * @need: bytes the WQE must hold (0: any size will do)
 *
 * The WQE is copied out of the (maybe user-writable) ring once and checked
 * in the copy: the scatter count against @max_sge, the total length
 * against overflow. The slot is given back to the producer, except when
 * the WQE is well formed but smaller than @need: then it stays in the
 * ring for a later message (a UD datagram too large for it is dropped).
 *
 * Context: the caller serialises the consumers of @q.
 * Return: 0; -ENOENT when the ring is empty; -EINVAL for a malformed WQE,
 * of which only @wqe->wr_id is then valid; -EMSGSIZE when it is too small.
 */
int sroce_recv_take(struct sroce_queue *q, u32 max_sge, struct sroce_recv *wqe,
		    u32 need);

/**
 * sroce_srq_take() - take the oldest WQE of an SRQ for a received message
 * @srq: the SRQ
 * @wqe: where the copy goes
 * @need: as for sroce_recv_take()
 *
 * As sroce_recv_take(). When the WQEs left fall below an armed limit, the
 * limit is disarmed and the SRQ's event handler gets
 * IB_EVENT_SRQ_LIMIT_REACHED (IBTA 10.2.9.3).
 *
 * Context: any; takes the SRQ's lock with interrupts saved.
 * Return: as sroce_recv_take().
 */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_recv *wqe, u32 need);

/**
 * sroce_set_srq_ops() - install the SRQ verbs on a device
 * @ibdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_set_srq_ops(struct ib_device *ibdev);

#endif /* _SROCE_SRQ_H */
