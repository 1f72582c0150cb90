/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IBTA 1.5 operations (annex A19): ATOMIC WRITE and FLUSH, at the
 * requester (the packet; wqe.c fetches the WQE), the responder (check and
 * execute) and in the rules both share (pure, for KUnit).
 */
#ifndef _SROCE_EXT_H
#define _SROCE_EXT_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "resp.h"

struct sroce_qp;
struct sroce_swqe;

/* Every placement type sroce knows; the rest of the FETH's 4 bits reserved. */
#define SROCE_FLUSH_PLT_KNOWN	(IB_FLUSH_GLOBAL | IB_FLUSH_PERSISTENT)

/**
 * sroce_flush_access() - the rights a FLUSH of a placement type needs
 * @plt: the FETH's placement type, IB_FLUSH_* bits
 *
 * Both bits set ask for both rights.
 *
 * Context: any.
 * Return: IB_ACCESS_FLUSH_GLOBAL and/or IB_ACCESS_FLUSH_PERSISTENT, or 0
 * for a placement type that is empty or has a reserved bit (an invalid
 * request).
 */
static inline int sroce_flush_access(u8 plt)
{
	int access = 0;

	if (!plt || (plt & ~SROCE_FLUSH_PLT_KNOWN))
		return 0;
	if (plt & IB_FLUSH_GLOBAL)
		access |= IB_ACCESS_FLUSH_GLOBAL;
	if (plt & IB_FLUSH_PERSISTENT)
		access |= IB_ACCESS_FLUSH_PERSISTENT;
	return access;
}

/**
 * sroce_atomic_write_ok() - the shape of an ATOMIC WRITE request
 * @va: the RETH's virtual address
 * @dma_len: the RETH's length
 * @pay: payload bytes in the packet
 * @pad: the BTH's pad count
 *
 * IBTA oA19-28: exactly 8 bytes, naturally aligned, no padding.
 *
 * Context: any.
 * Return: true when the request may execute.
 */
bool sroce_atomic_write_ok(u64 va, u32 dma_len, u32 pay, u8 pad);

/**
 * sroce_ext_request() - build the one request packet of @w
 * @qp: the QP
 * @w: an ATOMIC WRITE or FLUSH WQE
 *
 * Context: the requester.
 * Return: the packet, BTH first, or NULL without memory.
 */
struct sk_buff *sroce_ext_request(struct sroce_qp *qp,
				  const struct sroce_swqe *w);

/**
 * sroce_resp_atomic_write() - check and execute an ATOMIC WRITE request
 * @qp: the RC QP
 * @skb: the request, headers linear
 * @info: its opcode's &struct sroce_opcode_info
 * @pay: its payload bytes
 *
 * The 8 bytes land with one 64-bit store; a responder resource keeps the
 * request, for its empty READ response and for a duplicate's replay.
 *
 * Context: softirq, under the responder lock.
 * Return: the verdict, as for the other requests.
 */
enum sroce_resp_verdict
sroce_resp_atomic_write(struct sroce_qp *qp, const struct sk_buff *skb,
			const struct sroce_opcode_info *info, u32 pay);

/**
 * sroce_resp_flush() - check and execute a FLUSH request
 * @qp: the RC QP
 * @skb: the request, headers linear
 * @pay: its payload bytes (must be none)
 *
 * Context: softirq, under the responder lock.
 * Return: the verdict, as for the other requests.
 */
enum sroce_resp_verdict
sroce_resp_flush(struct sroce_qp *qp, const struct sk_buff *skb, u32 pay);

#endif /* _SROCE_EXT_H */
