/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Invariant CRC of RoCEv2 packets (IBTA annex A17.3.3) and of RoCE v1
 * packets (annex A16: IB's ICRC over the GRH, the LRH absent).
 */
#ifndef _SROCE_ICRC_H
#define _SROCE_ICRC_H

#include <linux/skbuff.h>
#include <linux/types.h>

/**
 * sroce_icrc() - compute the ICRC of a RoCEv2 packet
 * @l3: the packet from its IPv4 or IPv6 header on, contiguous
 * @len: bytes from @l3 up to the ICRC (headers, payload and pad)
 * @icrc: the ICRC, as the 32-bit value whose little-endian bytes are sent
 *
 * The CRC-32 covers 64 one-bits standing for the absent LRH, then the IP,
 * UDP and transport headers with their variant fields (IPv4 TOS, TTL and
 * checksum; IPv6 traffic class, flow label and hop limit; the UDP checksum;
 * the BTH FECN/BECN byte) taken as ones, then the payload and pad.
 *
 * Context: any.
 * Return: 0, or -EINVAL when @l3 does not hold an IP, UDP and BTH header.
 */
int sroce_icrc(const u8 *l3, unsigned int len, u32 *icrc);

/**
 * sroce_icrc_v1() - compute the ICRC of a RoCE v1 packet
 * @grh: the packet from its GRH on (the Ethernet payload), contiguous
 * @len: bytes from @grh up to the ICRC (GRH, BTH, payload and pad)
 * @icrc: the ICRC, as for sroce_icrc()
 *
 * As sroce_icrc() with the GRH in place of the IP header and no UDP
 * header: 64 one-bits for the absent LRH, the GRH with its traffic class,
 * flow label and hop limit taken as ones, the BTH with its FECN/BECN byte
 * taken as ones, then the payload and pad.
 *
 * Context: any.
 * Return: 0, or -EINVAL when @grh does not hold a GRH (IPVer 6) and a BTH.
 */
int sroce_icrc_v1(const u8 *grh, unsigned int len, u32 *icrc);

/**
 * sroce_icrc_skb() - compute the ICRC of a RoCEv2 or RoCE v1 packet
 * @skb: the packet: network header set (the IP header, or the GRH when
 *	skb->protocol is ETH_P_IBOE), data at the BTH, the headers up to
 *	the end of the BTH linear, the ICRC its last four bytes
 * @icrc: the ICRC, as for sroce_icrc()
 *
 * As sroce_icrc() or sroce_icrc_v1(), over an skb whose payload may be in page fragments or
 * a fragment list, read in place (the skb is not changed; it is not const
 * only because skb_seq_read() takes it so).
 *
 * Context: any.
 * Return: 0, or -EINVAL when the headers are not there or a fragment is
 * not readable by the CPU.
 */
int sroce_icrc_skb(struct sk_buff *skb, u32 *icrc);

/**
 * sroce_icrc_rxe_flush() - the ICRC rdma_rxe puts on a FLUSH
 * @icrc: the packet's ICRC by IBTA (sroce_icrc(), sroce_icrc_skb())
 * @bth: the packet's transport headers, BTH to RETH, as on the wire
 * @len: their bytes (32)
 *
 * rdma_rxe (6.2 to 7.3 at least) takes a FLUSH, which has no payload, as
 * if its payload began at the BTH: its ICRC goes on over the transport
 * headers a second time, unmasked. sroce sends a FLUSH with that ICRC,
 * the only one rdma_rxe accepts, and takes either on receive.
 *
 * Context: any.
 * Return: rdma_rxe's ICRC, as for sroce_icrc().
 */
u32 sroce_icrc_rxe_flush(u32 icrc, const u8 *bth, unsigned int len);

/**
 * sroce_icrc_init() - choose how the CRC is computed
 *
 * Builds the tables of sroce_crc32_table(), then, unless the icrc_impl
 * module parameter names one ("kernel" or "table"; anything but those
 * and "auto" fails the load), times it and crc32_le() over 4 KiB and
 * keeps the faster for every ICRC from then on; icrc_impl then reads
 * the one taken.
 *
 * Context: module load, before any packet is sent or received.
 */
void sroce_icrc_init(void);

/**
 * sroce_crc32_table() - CRC-32 (IEEE 802.3, bit-reflected) by tables
 * @crc: the CRC so far (~0 to start)
 * @p: the bytes
 * @len: how many
 *
 * Equal to crc32_le(): sixteen bytes a step, each byte's share read from
 * a table (sroce_icrc_init() builds them).
 *
 * Context: any, once the module is loaded.
 * Return: the CRC after @p, not inverted.
 */
u32 sroce_crc32_table(u32 crc, const u8 *p, size_t len);

#endif /* _SROCE_ICRC_H */
