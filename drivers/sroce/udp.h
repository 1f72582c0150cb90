/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 UDP sockets of every network namespace and the encap hook
 * that receives through them (udp.c).
 */
#ifndef _SROCE_UDP_H
#define _SROCE_UDP_H

/**
 * sroce_udp_init() - open the RoCEv2 UDP sockets in every namespace
 *
 * Context: process context (module init).
 * Return: 0, or -EBUSY when UDP port 4791 is already taken (rdma_rxe).
 */
int sroce_udp_init(void);

/**
 * sroce_udp_exit() - close every socket sroce_udp_init() opened
 *
 * Context: process context (module exit).
 */
void sroce_udp_exit(void);

#endif /* _SROCE_UDP_H */
