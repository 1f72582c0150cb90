/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs: the object with its rings and engines, and what the packet
 * path asks of it (qp.c): lookup by number, and the move to ERR or SQE.
 */
#ifndef _SROCE_QP_H
#define _SROCE_QP_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

#include "comp.h"
#include "req.h"
#include "resp.h"
#include "queue.h"
#include "sroce.h"
#include "wqe.h"

struct sroce_dev;
struct sroce_tx_acct;

/*
 * The high bit of a Q_Key: a controlled Q_Key, which only the kernel may
 * give a QP; in a send WR it means "the QP's own" (IBTA 10.2.5).
 */
#define SROCE_QKEY_CONTROLLED	0x80000000U

/**
 * struct sroce_qp_params - what modify_qp set and query_qp reports
 * @qkey: Q_Key (UD, GSI)
 * @pkey_index: index into the port's P_Key table: the QP's partition;
 *	written under @lock, read locklessly by the packet path
 * @sq_psn: next PSN the send queue uses
 * @rq_psn: PSN the receive side expects
 * @dest_qpn: the remote QP (RC, UC)
 * @path_mtu: path MTU
 * @timeout: local ACK timeout exponent
 * @retry_cnt: transport retries
 * @rnr_retry: RNR retries (7: infinite)
 * @min_rnr_timer: RNR NAK timer code
 * @max_rd_atomic: outstanding RDMA READ/atomic as initiator
 * @max_dest_rd_atomic: outstanding RDMA READ/atomic as responder
 * @access: IB_ACCESS_REMOTE_* granted to the peer
 * @sqd_notify: SQD entered with EN_SQD_ASYNC_NOTIFY: its drain raises
 *	IB_EVENT_SQ_DRAINED
 * @av: the primary path (RC, UC)
 */
struct sroce_qp_params {
	u32 qkey;
	u16 pkey_index;
	u32 sq_psn;
	u32 rq_psn;
	u32 dest_qpn;
	enum ib_mtu path_mtu;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	int access;
	bool sqd_notify;
	struct rdma_ah_attr av;
};

/**
 * struct sroce_qp - a queue pair
 * @ibqp: the RDMA core's QP; must stay first
 * @lock: serialises the verbs on this QP (modify, query, destroy)
 * @sq_lock: serialises posting sends and taking WQEs off the send ring;
 *	@state changes under it (taken before @rq_lock)
 * @rq_lock: serialises kernel consumers posting receives and taking WQEs
 *	off the receive ring; @state changes under it
 * @state: current state, written under @lock, @sq_lock and @rq_lock
 * @user: the rings are mapped by user space
 * @sq: send ring (struct rxe_send_wqe elements)
 * @rq: receive ring (struct rxe_recv_wqe elements); unused with an SRQ
 * @cap: capabilities granted at creation
 * @params: attributes set by modify_qp
 * @flush_wqe: room for one receive WQE while flushing, under @rq_lock
 * @refs: one for the device's QP table, one per packet-path user found by
 *	sroce_qp_get()
 * @idle: completed when @refs drops to zero; destroy waits for it
 * @sig_all: every send WR completes (IB_SIGNAL_ALL_WR)
 * @fail_pos: send ring index of the WQE that failed, when @fail_set
 * @fail_status: the status it completes with (the others flush)
 * @fail_set: a send WQE failed; set with the state ERR, under @sq_lock
 * @sqd_boundary: in SQD, the requester has stopped before a WQE not
 *	started (or none posted); a rewind clears it (under @sq_lock)
 * @sq_drained: in SQD, nothing started is outstanding any more: the
 *	"SQ drained" of IBTA 11.2.5 (under @sq_lock; cleared entering SQD)
 * @gone: its destroy has begun, under @sq_lock: the resource dump reads
 *	nothing more of it (its rings and accounting are being freed)
 * @id: a number no other QP of this module's life gets (QP numbers are
 *	reused); what a type 2 memory window remembers of its QP
 * @req: requester state (req.c)
 * @comp: completer state (comp.c)
 * @resp: responder state (resp.c, reply.c)
 * @tx: requests and read responses handed to the IP stack and not yet
 *	freed by it (tx.c)
 * @cc: congestion control: reaction point, pacer, notification point
 *	(cc.c, cnp.c)
 */
struct sroce_qp {
	struct ib_qp ibqp;
	struct mutex lock;	/* see the kernel-doc above */
	spinlock_t sq_lock;	/* see the kernel-doc above */
	spinlock_t rq_lock;	/* see the kernel-doc above */
	enum ib_qp_state state;
	bool user;
	struct sroce_queue sq;
	struct sroce_queue rq;
	struct ib_qp_cap cap;
	struct sroce_qp_params params;
	struct sroce_rwqe flush_wqe;
	refcount_t refs;
	struct completion idle;
	bool sig_all;
	u32 fail_pos;
	enum ib_wc_status fail_status;
	bool fail_set;
	bool sqd_boundary;
	bool sq_drained;
	bool gone;
	u64 id;
	struct sroce_req req;
	struct sroce_comp comp;
	struct sroce_resp resp;
	struct sroce_tx_acct *tx;
	struct sroce_cc_qp cc;
};

/**
 * sroce_qp_pkey() - the P_Key of a QP's partition, as the table has it now
 * @qp: the QP
 *
 * Context: any (each read once, without a lock: modify_qp and the
 * administrator may change either meanwhile).
 * Return: the entry of the port's P_Key table that @qp's pkey_index names,
 * 0 when it is empty.
 */
static inline u16 sroce_qp_pkey(const struct sroce_qp *qp)
{
	return sroce_pkey_get(&to_sdev(qp->ibqp.device)->pkeys,
			      READ_ONCE(qp->params.pkey_index));
}

/**
 * sroce_qp_get() - find a QP by number for the packet path, and hold it
 * @sdev: the device
 * @qpn: the QP number
 *
 * Context: any (RCU lookup, no lock taken).
 * Return: the QP, held until sroce_qp_put(), or NULL when there is no
 * such QP or it is being destroyed.
 */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);

/**
 * sroce_qp_put() - drop a reference taken by sroce_qp_get()
 * @qp: the QP
 *
 * Context: any.
 */
void sroce_qp_put(struct sroce_qp *qp);

/**
 * sroce_qp_fail_all() - flush every QP of a device whose netdev is gone
 * @sdev: the device
 *
 * Moves each QP but QP1 that is not in ERR yet to ERR, so that every work
 * request posted to it completes, flushed, now and not when its consumer
 * gives up waiting, and raises IB_EVENT_QP_FATAL on it. A QP created
 * meanwhile may be missed; the device's unregistration, already on its
 * way, takes care of those.
 *
 * Context: process context; no QP lock held.
 */
void sroce_qp_fail_all(struct sroce_dev *sdev);

/**
 * sroce_qp_enter_error() - move a QP to ERR, or its send queue to SQE
 * @qp: the QP
 * @next: IB_QPS_ERR (every WR posted is flushed) or IB_QPS_SQE (a datagram
 *	QP's sends only; a QP already in ERR or RESET stays there)
 *
 * The one way into the flushing states, for the packet path, the timers
 * and modify_qp alike. Completion handlers and the LAST_WQE_REACHED event
 * run once the QP's locks are dropped.
 *
 * Context: any; none of the QP's posting locks held.
 */
void sroce_qp_enter_error(struct sroce_qp *qp, enum ib_qp_state next);

/**
 * sroce_qp_event() - raise an asynchronous event of the QP
 * @qp: the QP
 * @type: the event
 *
 * Context: any; none of the QP's posting locks held (the handler may
 * take them, and post).
 */
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);

/**
 * sroce_qp_sqd_check() - whether the QP has just drained in SQD
 * @qp: the QP
 *
 * Drained (IBTA 10.3.1): in SQD, the requester stopped at a message
 * boundary, no rewind asked for, and every WQE before it completed.
 * Records it, once per entry into SQD.
 *
 * Context: any, under the QP's sq_lock.
 * Return: whether IB_EVENT_SQ_DRAINED is to be raised (the modify asked
 * for it), by the caller once the lock is dropped.
 */
bool sroce_qp_sqd_check(struct sroce_qp *qp);

/**
 * sroce_qp_sqd_boundary() - the requester stops in SQD at a WQE boundary
 * @qp: the QP
 *
 * Marks the stop and raises IB_EVENT_SQ_DRAINED if that drains the QP.
 *
 * Context: process or softirq; none of the QP's posting locks held.
 */
void sroce_qp_sqd_boundary(struct sroce_qp *qp);

/**
 * sroce_qp_flush_sq() - complete every WQE on the send ring, flushed
 * @qp: the QP, in ERR or SQE
 *
 * The WQE that failed (sroce_qp_fail_send()) completes with its own
 * status, the others with IB_WC_WR_FLUSH_ERR, signaled or not (IBTA
 * 10.3.1). Only the WQEs there at the start are taken: a user producer
 * that keeps posting cannot keep the caller here.
 *
 * Context: any, under the QP's sq_lock.
 * Return: whether the send CQ's handler is to be called
 * (sroce_cq_notify(), once the lock is dropped).
 */
bool sroce_qp_flush_sq(struct sroce_qp *qp);

/**
 * sroce_qp_flush_rq() - complete every WQE on the receive ring, flushed
 * @qp: the QP, in ERR, with a receive ring of its own
 *
 * Context: any, under the QP's rq_lock.
 * Return: whether the receive CQ's handler is to be called.
 */
bool sroce_qp_flush_rq(struct sroce_qp *qp);

/**
 * sroce_qp_fail_send() - fail a send WQE and move the QP to ERR
 * @qp: the QP
 * @pos: send ring index of the WQE
 * @status: its completion status; the WQEs after it flush
 *
 * Context: any; none of the QP's posting locks held.
 */
void sroce_qp_fail_send(struct sroce_qp *qp, u32 pos, enum ib_wc_status status);

/**
 * sroce_wr_to_wc_opcode() - the completion opcode of a send WR opcode
 * @opcode: IB_WR_* (user and kernel opcodes agree)
 *
 * Context: any.
 * Return: the IB_WC_* opcode.
 */
enum ib_wc_opcode sroce_wr_to_wc_opcode(u32 opcode);

#endif /* _SROCE_QP_H */
