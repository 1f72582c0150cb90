/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The datagram engine: UD and GSI sends and receives (ud.c).
 */
#ifndef _SROCE_UD_H
#define _SROCE_UD_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "opcode.h"

struct sroce_qp;

/**
 * sroce_ud_pass() - one pass of the datagram requester (UD and GSI QPs)
 * @qp: the QP
 *
 * Sends and completes the WQEs posted, in order (ud.c).
 *
 * Context: the requester (sroce_req_run()), process context.
 * Return: work remains (budget spent, or no memory for a packet).
 */
bool sroce_ud_pass(struct sroce_qp *qp);

/**
 * sroce_ud_recv() - take a datagram for a UD or GSI QP
 * @qp: the QP, held
 * @skb: the packet, checked by recv.c, data at its BTH; not consumed
 * @info: its opcode's decoding
 *
 * Context: softirq.
 */
void sroce_ud_recv(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_opcode_info *info);

#endif /* _SROCE_UD_H */
