/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC completer: ACKs and read and atomic responses to send
 * completions (comp.c).
 */
#ifndef _SROCE_COMP_H
#define _SROCE_COMP_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct sroce_qp;

/*
 * Read responses held ahead of a missing one before it is taken as lost
 * and the READ asked for again from it (as TCP's duplicate ACK count).
 */
#define SROCE_READ_REORDER	4
/* How far ahead a read response is held: the bits of comp.read_held. */
#define SROCE_READ_HELD_MAX	64

/**
 * struct sroce_comp - completer state of a QP, under the QP's sq_lock
 * @read_off: bytes of the RDMA READ at the head of the send ring placed
 *	in order so far
 * @read_held: responses of that READ placed ahead of the one awaited (the
 *	PSN at @read_off): bit i is the PSN i + 1 after it
 * @acked_psn: the last PSN acknowledged
 * @nak_psn: the PSN of the last sequence error NAK acted on, when
 *	@nak_set. The responder NAKs a gap once, so another NAK of that PSN
 *	with nothing acknowledged since is a copy (a duplicated or delayed
 *	packet): dropped, no retry counted, no rewind
 * @nak_set: see @nak_psn
 * @gap_set: a rewind was asked for a gap the completer saw (a read
 *	response or ACK past what it waits for); not asked again until
 *	progress
 */
struct sroce_comp {
	u32 read_off;
	u64 read_held;
	u32 acked_psn;
	u32 nak_psn;
	bool nak_set;
	bool gap_set;
};

/**
 * sroce_comp_local() - complete what the acknowledged PSN covers now
 * @qp: the QP; the requester just did a local operation
 *
 * A local operation completes in order, once every WQE before it has: at
 * once when they all have, else with the ACK that completes them.
 *
 * Context: the requester, no lock held.
 */
void sroce_comp_local(struct sroce_qp *qp);

/**
 * sroce_comp_sent() - complete the UC WQEs sent up to a PSN
 * @qp: the UC QP; the requester just handed a WQE's last packet to the
 *	network
 * @psn: that packet's PSN
 *
 * UC is not acknowledged: a WQE completes once its last packet is sent,
 * in ring order with the local operations behind it.
 *
 * Context: the requester, no lock held.
 */
void sroce_comp_sent(struct sroce_qp *qp, u32 psn);

/**
 * sroce_comp_recv() - take an ACK or NAK for a QP (completer)
 * @qp: the QP, held
 * @skb: the packet, checked by recv.c, data at its BTH; not consumed
 *
 * Context: softirq.
 */
void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb);

#endif /* _SROCE_COMP_H */
