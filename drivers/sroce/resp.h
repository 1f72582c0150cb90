/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC responder: request packets to memory, receive completions and
 * replies (resp.c; the replies are built and sent by reply.c).
 */
#ifndef _SROCE_RESP_H
#define _SROCE_RESP_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "opcode.h"

struct sroce_qp;
struct sroce_rwqe;

/**
 * enum sroce_res_kind - what a responder resource holds
 * @SROCE_RES_READ: an RDMA READ request, answered by read responses
 * @SROCE_RES_ATOMIC: an executed atomic, answered by its original value
 * @SROCE_RES_EMPTY: an executed ATOMIC WRITE or FLUSH, answered by an
 *	RDMA READ response ONLY without payload (IBTA 1.5, as rdma_rxe)
 */
enum sroce_res_kind {
	SROCE_RES_READ,
	SROCE_RES_ATOMIC,
	SROCE_RES_EMPTY,
};

/**
 * enum sroce_resp_verdict - the outcome of one request packet
 * @SROCE_RESP_DONE: executed
 * @SROCE_RESP_RNR: no receive WQE: RNR NAK, PSN kept
 * @SROCE_RESP_INV_REQ: NAK invalid request, QP to ERR
 * @SROCE_RESP_ACCESS: NAK remote access error, QP to ERR
 * @SROCE_RESP_OP_ERR: NAK remote operational error, QP to ERR
 */
enum sroce_resp_verdict {
	SROCE_RESP_DONE,
	SROCE_RESP_RNR,
	SROCE_RESP_INV_REQ,
	SROCE_RESP_ACCESS,
	SROCE_RESP_OP_ERR,
};

/**
 * struct sroce_res - a responder resource (IBTA 9.5: max_dest_rd_atomic)
 * @kind: &enum sroce_res_kind
 * @pending: its responses are not all sent yet
 * @psn: PSN of the request (the first response's)
 * @va: READ: next address to read
 * @rkey: READ: the key
 * @left: READ: bytes still to send
 * @next_psn: READ: PSN of the next response
 * @first: READ: no response sent yet
 * @orig: atomic: the value before the operation, kept for a replay
 * @replay: taken again for a duplicate request: the requester may have
 *	had every response of it already (sroce_res_take())
 */
struct sroce_res {
	enum sroce_res_kind kind;
	bool pending;
	bool replay;
	u32 psn;
	u64 va;
	u32 rkey;
	u32 left;
	u32 next_psn;
	bool first;
	u64 orig;
};

/**
 * struct sroce_resp - responder state of a QP
 * @lock: serialises the responder (packets of one QP may arrive on
 *	several CPUs)
 * @psn: PSN expected next
 * @msn: messages completed, 24 bits
 * @prev: opcode of the previous packet, or SROCE_OPCODE_NONE between
 *	messages
 * @nak_sent: a sequence error NAK went out for the current gap
 * @uc_dropping: UC: the rest of a message is being dropped, until a FIRST
 *	or ONLY packet starts the next one
 * @wqe_active: @wqe holds the receive WQE of the message in progress;
 *	set and cleared under the QP's rq_lock, so that the responder's
 *	completion and a move to ERR's flush complete it once between them
 * @wqe_kept: RC: the message was RNR NAKed for an ODP page after it took
 *	@wqe: the packet sent again uses @wqe, it takes no other
 * @wqe: that receive WQE, copied out of its ring
 * @received: bytes of the message placed so far
 * @va: next address of the RDMA WRITE in progress
 * @rkey: its key
 * @remaining: its bytes still to come
 * @res: the responder resources, a ring of @nres in an array of @res_cap
 * @nres: resources in use (max_dest_rd_atomic, at least 1), set at RTR
 * @res_cap: the entries @res has room for, grown to max_dest_rd_atomic
 *	before RTR (sroce_reply_size())
 * @res_head: the slot the next READ or atomic takes
 * @res_pending: resources from @res_head backwards with responses to send
 * @ack_psn: an ACK deferred behind pending responses, when @ack_pending
 * @ack_pending: @ack_psn waits for the responses before it
 * @cq_lost: a receive completion found its CQ in error (overflowed): the
 *	request is answered with a NAK, not an ACK, and the QP goes to ERR
 * @work: sends the pending responses when softirq context cannot
 */
struct sroce_resp {
	spinlock_t lock;	/* see the kernel-doc above */
	u32 psn;
	u32 msn;
	int prev;
	bool nak_sent;
	bool uc_dropping;
	bool wqe_active;
	bool wqe_kept;
	struct sroce_rwqe *wqe;
	u32 received;
	u64 va;
	u32 rkey;
	u32 remaining;
	struct sroce_res *res;
	u32 nres;
	u32 res_cap;
	u32 res_head;
	u32 res_pending;
	u32 ack_psn;
	bool ack_pending;
	bool cq_lost;
	struct work_struct work;
};

/**
 * enum sroce_psn_verdict - what the responder does with a request, by PSN
 * @SROCE_PSN_EXECUTE: the PSN expected: execute the request
 * @SROCE_PSN_NAK_SEQ: ahead of it, the first packet past a gap: NAK
 *	"PSN sequence error" at the PSN expected
 * @SROCE_PSN_SILENT: ahead of it, a gap already NAKed: drop
 * @SROCE_PSN_DUP_ACK: behind it, a SEND or WRITE packet that wants an
 *	ACK (AckReq or the last of its message): ACK it at its own PSN
 * @SROCE_PSN_DUP_DROP: behind it, a SEND or WRITE packet that does not:
 *	drop
 * @SROCE_PSN_DUP_READ: behind it, an RDMA READ request: respond again
 * @SROCE_PSN_DUP_ATOMIC: behind it, an atomic: answer from its saved
 *	result, never execute it twice
 *
 * "Behind" is the half of the PSN space before the PSN expected (IBTA
 * 9.7.5.1.2, the duplicate region); "ahead" the other half. A duplicate
 * never executes again, and nothing ahead is placed.
 */
enum sroce_psn_verdict {
	SROCE_PSN_EXECUTE,
	SROCE_PSN_NAK_SEQ,
	SROCE_PSN_SILENT,
	SROCE_PSN_DUP_ACK,
	SROCE_PSN_DUP_DROP,
	SROCE_PSN_DUP_READ,
	SROCE_PSN_DUP_ATOMIC,
};

/**
 * enum sroce_uc_verdict - what a UC responder does with a request packet
 * @SROCE_UC_EXECUTE: the PSN expected, in sequence: execute it
 * @SROCE_UC_RESTART: a FIRST or ONLY out of sequence: a new message at
 *	its own PSN; any message in progress is dropped
 * @SROCE_UC_DROP: dropped, with the rest of its message
 */
enum sroce_uc_verdict {
	SROCE_UC_EXECUTE,
	SROCE_UC_RESTART,
	SROCE_UC_DROP,
};

/**
 * sroce_resp_uc_verdict() - the UC responder's decision table (IBTA 9.8.3)
 * @psn: the request packet's PSN
 * @expected: the PSN the responder expects next
 * @dropping: the rest of a message is being dropped
 * @prev: the opcode of the previous packet, or SROCE_OPCODE_NONE between
 *	messages
 * @opcode: the packet's opcode, one of UC's
 *
 * UC has no duplicates and no NAKs: a packet is executed only at the
 * expected PSN and in sequence with @prev; otherwise a FIRST or ONLY
 * starts a new message where it is, and anything else is dropped until
 * one does.
 *
 * Return: the verdict (no side effect).
 */
enum sroce_uc_verdict sroce_resp_uc_verdict(u32 psn, u32 expected,
					    bool dropping, int prev, u8 opcode);

/**
 * sroce_resp_psn_verdict() - the responder's decision table, by PSN
 * @psn: the request packet's PSN
 * @expected: the PSN the responder expects next
 * @nak_sent: a sequence error NAK went out for the current gap
 * @cls: the packet's class (SEND, WRITE, READ request or atomic)
 * @ack_wanted: AckReq is set or the packet ends its message
 *
 * Return: the verdict (no side effect).
 */
enum sroce_psn_verdict sroce_resp_psn_verdict(u32 psn, u32 expected,
					      bool nak_sent,
					      enum sroce_op_class cls,
					      bool ack_wanted);

/**
 * sroce_atomic_exec() - perform an atomic on 8 aligned bytes
 * @p: the target, 8-byte aligned
 * @cmp_swap: compare and swap; else fetch and add
 * @swap_add: the value to swap in, or to add
 * @compare: the value to compare with
 *
 * Atomic against every CPU touching the same memory.
 *
 * Context: any.
 * Return: the value before the operation.
 */
u64 sroce_atomic_exec(u64 *p, bool cmp_swap, u64 swap_add, u64 compare);

/**
 * sroce_resp_recv() - take a request packet for a QP (responder)
 * @qp: the QP, held
 * @skb: the packet, checked by recv.c, data at its BTH; not consumed
 *
 * Context: softirq.
 */
void sroce_resp_recv(struct sroce_qp *qp, struct sk_buff *skb);

#endif /* _SROCE_RESP_H */
