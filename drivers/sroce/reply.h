/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC responder's replies: ACKs and NAKs, and the responder resources
 * (IBTA 9.5) whose READ responses and atomic ACKs it builds and sends,
 * now or from its work item (reply.c).
 */
#ifndef _SROCE_REPLY_H
#define _SROCE_REPLY_H

#include <linux/types.h>

#include "resp.h"

struct sroce_qp;

/**
 * sroce_res_fits() - whether a new READ or atomic keeps the PSNs in bounds
 * @resp: the responder, its lock held
 * @psn: the request's PSN (the one expected)
 * @n: the PSNs it takes (a READ's responses; 1 for an atomic)
 *
 * The PSNs from the oldest request whose responses are still to be sent
 * to the last this one takes must stay within half the PSN space (2^23):
 * beyond it, "before" and "after" lose their meaning, and a duplicate
 * could no longer be told from what came after it. A requester keeps no
 * more than that outstanding; a request past it is invalid.
 *
 * Context: softirq, under the responder's lock.
 * Return: true when it fits.
 */
bool sroce_res_fits(struct sroce_resp *resp, u32 psn, u32 n);

/**
 * sroce_res_take() - a resource for a new RDMA READ or atomic
 * @resp: the responder, its lock held
 *
 * The slot at @resp->res_head, cleared and pending, the newest of the
 * ring. When all @resp->nres are pending, the oldest gives way if it is
 * a replay (&sroce_res.replay): the requester, keeping to its
 * max_rd_atomic, has all its responses if it asks for more.
 *
 * Context: softirq, under the responder's lock.
 * Return: the resource, or NULL when all @resp->nres are pending and
 * the oldest is no replay (a request over max_dest_rd_atomic).
 */
struct sroce_res *sroce_res_take(struct sroce_resp *resp);

/**
 * sroce_res_find_read() - the READ resource a response PSN belongs to
 * @resp: the responder, its lock held
 * @psn: a PSN of the READ's responses
 * @mtu: the path MTU, in bytes
 *
 * Several may hold @psn when a READ asked for again took a resource of
 * its own: the newest is the one still in use.
 *
 * Context: softirq, under the responder's lock.
 * Return: the newest READ resource whose responses (sent or to send)
 * include @psn, or NULL.
 */
struct sroce_res *sroce_res_find_read(struct sroce_resp *resp, u32 psn,
				      u32 mtu);

/**
 * sroce_res_restart() - the resource a duplicate RDMA READ restarts in
 * @resp: the responder, its lock held
 * @r: the READ's resource (sroce_res_find_read()), or NULL
 * @psn: the duplicate request's PSN
 *
 * @r itself when it is still pending. Otherwise the requester went back
 * to @psn and sends every request after it again: the pending responses
 * of requests from @psn on are dropped, those before it stay (it still
 * waits for them) and go out first. @r is then pending again when it is
 * the newest resource left, else the READ takes a new one behind them.
 * The caller fills the READ in from the request.
 *
 * Context: softirq, under the responder's lock.
 * Return: a pending resource, or NULL when none is free.
 */
struct sroce_res *sroce_res_restart(struct sroce_resp *resp,
				    struct sroce_res *r, u32 psn);

/**
 * sroce_reply_reset() - forget the responder resources (entering RTR or
 * RESET)
 * @qp: the QP; its responder lock held
 *
 * Context: any.
 */
void sroce_reply_reset(struct sroce_qp *qp);

/**
 * sroce_reply_size() - room for max_dest_rd_atomic responder resources
 * @qp: the QP, in INIT and about to enter RTR with its attributes stored
 *
 * A new QP has room for one; entering RTR, the array grows to the
 * QP's max_dest_rd_atomic (it never shrinks).
 *
 * Context: process context, the QP's mutex held.
 * Return: 0 or -ENOMEM.
 */
int sroce_reply_size(struct sroce_qp *qp);

/**
 * sroce_reply_init() - prepare the responder of a new QP
 * @qp: the QP
 * @max_sge: scatter entries a receive WQE of the QP may have (its RQ's,
 *	or its SRQ's); its responder's copy of a WQE has room for these only
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int sroce_reply_init(struct sroce_qp *qp, u32 max_sge);

/**
 * sroce_reply_free() - free the responder's memory
 * @qp: the QP, no longer reachable by packets
 *
 * Context: process context.
 */
void sroce_reply_free(struct sroce_qp *qp);

/**
 * sroce_reply_ack() - send an ACK or a NAK now
 * @qp: the QP
 * @psn: the PSN it answers
 * @syndrome: the AETH syndrome (ACK, RNR NAK with its timer, or a NAK code)
 *
 * Carries the responder's MSN. A packet that cannot be built or sent is
 * counted as a transmit drop: the requester's timer recovers it.
 *
 * Context: softirq or the responder's work item, under the responder's
 * lock.
 */
void sroce_reply_ack(struct sroce_qp *qp, u32 psn, u8 syndrome);

/**
 * sroce_reply_ack_in_order() - a positive ACK, behind pending responses
 * @qp: the QP
 * @psn: the PSN it acknowledges
 *
 * Sent now when no READ or atomic response is pending, else kept (the
 * newest such ACK only) until sroce_reply_push() has sent them.
 *
 * Context: softirq, under the responder's lock.
 */
void sroce_reply_ack_in_order(struct sroce_qp *qp, u32 psn);

/**
 * sroce_reply_push() - send pending responses, oldest first
 * @qp: the QP
 * @budget: packets at most
 *
 * Then the ACK that waited behind them. A READ whose memory went away is
 * NAKed (remote access error) and every pending response dropped.
 *
 * Context: softirq or the responder's work item, under the responder's
 * lock.
 * Return: 1 when some remain (the caller queues the work item), 0 when all
 * went or the QP has its transmit limit queued, -EACCES after a NAK (the
 * caller moves the QP to ERR once the lock is dropped).
 */
int sroce_reply_push(struct sroce_qp *qp, unsigned int budget);

/**
 * sroce_res_drop_from() - forget the pending responses from a PSN on
 * @resp: the responder, its lock held
 * @psn: the PSN the requester went back to
 *
 * The requester sends every request from @psn on again: their pending
 * responses are dropped, newest first, and their slots free again. Those
 * of requests before @psn stay: it still waits for them.
 *
 * Context: softirq, under the responder's lock.
 */
void sroce_res_drop_from(struct sroce_resp *resp, u32 psn);

#endif /* _SROCE_REPLY_H */
