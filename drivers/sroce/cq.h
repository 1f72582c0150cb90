/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues: the verbs and the engines' way of adding completions
 * (cq.c).
 */
#ifndef _SROCE_CQ_H
#define _SROCE_CQ_H

#include <rdma/ib_verbs.h>

/**
 * sroce_set_cq_ops() - install the CQ verbs on a device
 * @ibdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_set_cq_ops(struct ib_device *ibdev);

/**
 * sroce_cq_add() - add a completion to a CQ, leaving the notification
 * @ibcq: the CQ
 * @wc: the completion, in the kernel's terms
 * @qpn: number of the QP it belongs to (for user CQs)
 * @solicited: the completion is for a solicited event
 *
 * Every caller holds locks the consumer's completion handler might need
 * (a QP's posting or engine locks), so the handler is left to
 * sroce_cq_notify(), called once they are dropped. A full CQ is an
 * overflow: the CQ goes to error, its event handler gets IB_EVENT_CQ_ERR,
 * and this and every later add fail.
 *
 * Context: any; takes the CQ's lock with interrupts saved.
 * Return: 1 when the CQ was armed for this completion (call
 * sroce_cq_notify()), 0 when not, -ENOSPC after an overflow.
 */
int sroce_cq_add(struct ib_cq *ibcq, const struct ib_wc *wc, u32 qpn,
		 bool solicited);

/**
 * sroce_cq_notify() - call a CQ's completion handler
 * @ibcq: the CQ, for which sroce_cq_add() answered 1
 *
 * Context: any; no lock of the CQ's producers held.
 */
void sroce_cq_notify(struct ib_cq *ibcq);

#endif /* _SROCE_CQ_H */
