/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC engines: requester (req.c: send WQEs to packets), responder
 * (resp.c: requests to memory, receive completions and ACKs) and completer
 * (comp.c: ACKs to send completions). Documentation/datapath.rst.
 */
#ifndef _SROCE_ENGINE_H
#define _SROCE_ENGINE_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "net.h"
#include "opcode.h"

struct sroce_qp;
struct sroce_recv;

/**
 * struct sroce_swqe - a send WQE, copied out of the send ring and checked
 * @wr_id: the consumer's work request id
 * @opcode: IB_WR_* (user and kernel opcodes agree)
 * @send_flags: IB_SEND_*
 * @imm: immediate data (wire order)
 * @remote_addr: RDMA target address
 * @rkey: RDMA target key
 * @length: bytes of the message
 * @num_sge: entries in @sge (0 for inline data)
 * @is_inline: the data is in @inline_data, not behind @sge
 * @first_psn: PSN of the message's first packet
 * @last_psn: PSN of its last packet
 * @sge: gather list, or inline data (@inline_data)
 * @inline_data: the inline bytes
 */
struct sroce_swqe {
	u64 wr_id;
	u32 opcode;
	u32 send_flags;
	__be32 imm;
	u64 remote_addr;
	u32 rkey;
	u32 length;
	u32 num_sge;
	bool is_inline;
	u32 first_psn;
	u32 last_psn;
	union {
		DECLARE_FLEX_ARRAY(struct ib_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

/**
 * struct sroce_req - requester state of a QP
 * @work: runs the requester; a work item never runs concurrently with itself
 * @swqes: one &struct sroce_swqe per send ring slot
 * @stride: bytes per entry of @swqes
 * @pos: send ring index of the WQE being sent, or next to be; the WQEs
 *	before it are fully sent (the completer reads it with acquire)
 * @fetched: the WQE at @pos was copied into @swqes
 * @offset: bytes of that WQE sent
 * @sge: gather entry the next byte comes from
 * @sge_off: offset in that entry
 * @psn: next PSN to send
 * @path: where packets go, set on entering RTR
 */
struct sroce_req {
	struct work_struct work;
	u8 *swqes;
	size_t stride;
	u32 pos;
	bool fetched;
	u32 offset;
	u32 sge;
	u32 sge_off;
	u32 psn;
	struct sroce_path path;
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
 * @wqe_active: @wqe holds the receive WQE of the message in progress
 * @wqe: that receive WQE, copied out of its ring
 * @received: bytes of the message placed so far
 * @va: next address of the RDMA WRITE in progress
 * @rkey: its key
 * @remaining: its bytes still to come
 */
struct sroce_resp {
	spinlock_t lock;	/* see the kernel-doc above */
	u32 psn;
	u32 msn;
	int prev;
	bool nak_sent;
	bool wqe_active;
	struct sroce_recv *wqe;
	u32 received;
	u64 va;
	u32 rkey;
	u32 remaining;
};

/**
 * sroce_req_init() - prepare the requester of a new QP
 * @qp: the QP, its send ring made
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int sroce_req_init(struct sroce_qp *qp);

/**
 * sroce_req_free() - stop the requester and free its memory
 * @qp: the QP, no longer reachable by posts or packets
 *
 * Context: process context.
 */
void sroce_req_free(struct sroce_qp *qp);

/**
 * sroce_req_executes() - whether the requester executes a send opcode
 * @opcode: IB_WR_* (user and kernel opcodes agree)
 *
 * Context: any.
 * Return: true for the opcodes the RC requester sends.
 */
bool sroce_req_executes(u32 opcode);

/**
 * sroce_req_kick() - have the requester look at the send ring
 * @qp: the QP
 *
 * Context: any.
 */
void sroce_req_kick(struct sroce_qp *qp);

/**
 * sroce_req_reset() - forget the send ring's contents (entering RESET)
 * @qp: the QP
 *
 * Context: process context, the QP in RESET and its work item idle.
 */
void sroce_req_reset(struct sroce_qp *qp);

/**
 * sroce_comp_recv() - take an ACK or NAK for a QP (completer)
 * @qp: the QP, held
 * @skb: the packet, checked by recv.c, data at its BTH; not consumed
 *
 * Context: softirq.
 */
void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb);

/**
 * sroce_resp_init() - prepare the responder of a new QP
 * @qp: the QP
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int sroce_resp_init(struct sroce_qp *qp);

/**
 * sroce_resp_free() - free the responder's memory
 * @qp: the QP, no longer reachable by packets
 *
 * Context: process context.
 */
void sroce_resp_free(struct sroce_qp *qp);

/**
 * sroce_resp_recv() - take a request packet for a QP (responder)
 * @qp: the QP, held
 * @skb: the packet, checked by recv.c, data at its BTH; not consumed
 *
 * Context: softirq.
 */
void sroce_resp_recv(struct sroce_qp *qp, struct sk_buff *skb);

#endif /* _SROCE_ENGINE_H */
