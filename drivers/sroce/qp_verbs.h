/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QP verbs: create, modify (the IBTA state machine), query, destroy,
 * post_send and post_recv, and the resource dump (qp_verbs.c).
 */
#ifndef _SROCE_QP_VERBS_H
#define _SROCE_QP_VERBS_H

#include <rdma/ib_verbs.h>

/**
 * sroce_qp_check_params() - validate the attribute values of a modify
 * @attr: the attributes
 * @mask: IB_QP_* present in @attr
 * @type: the QP's type
 * @active_mtu: the port's active MTU
 *
 * Only the values: which attributes a transition takes is
 * ib_modify_qp_is_ok()'s business.
 *
 * Context: any.
 * Return: 0, -EINVAL for a value out of its range, -EOPNOTSUPP for an
 * attribute sroce does not implement (alternate path, rate limit).
 */
int sroce_qp_check_params(const struct ib_qp_attr *attr, int mask,
			  enum ib_qp_type type, enum ib_mtu active_mtu);

/**
 * sroce_qp_modify_check() - whether a modify_qp may go ahead
 * @cur: the QP's current state
 * @attr: the attributes
 * @mask: IB_QP_* present in @attr
 * @type: the QP's type
 * @active_mtu: the port's active MTU
 *
 * The transition must be legal for @type and take exactly the required
 * and allowed attributes (ib_modify_qp_is_ok()), every value must be in
 * range (sroce_qp_check_params()), and a given current state must be the
 * real one.
 *
 * Context: any.
 * Return: 0, -EINVAL, or -EOPNOTSUPP for attributes sroce lacks.
 */
int sroce_qp_modify_check(enum ib_qp_state cur, const struct ib_qp_attr *attr,
			  int mask, enum ib_qp_type type, enum ib_mtu active_mtu);

/**
 * sroce_qp_check_cap() - validate the capabilities asked at creation
 * @cap: max WRs, SGEs and inline data asked for
 * @has_srq: receives come from an SRQ (no receive ring)
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int sroce_qp_check_cap(const struct ib_qp_cap *cap, bool has_srq);

/**
 * sroce_fill_res_qp_entry() - the driver's attributes of a QP for restrack
 * @msg: the netlink message being filled
 * @ibqp: the QP
 *
 * Context: process context; takes the QP's sq_lock.
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

/**
 * sroce_set_qp_ops() - install the QP verbs on a device
 * @ibdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_set_qp_ops(struct ib_device *ibdev);

#endif /* _SROCE_QP_VERBS_H */
