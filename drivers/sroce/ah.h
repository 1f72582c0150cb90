/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address handles (ah.c).
 */
#ifndef _SROCE_AH_H
#define _SROCE_AH_H

#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_path;

/**
 * sroce_set_ah_ops() - install the address handle verbs on a device
 * @ibdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_set_ah_ops(struct ib_device *ibdev);

/**
 * sroce_ah_num() - the number of an AH (what UD send WQEs carry)
 * @ibah: an AH of a sroce device
 *
 * Context: any.
 * Return: its number, from 1.
 */
u32 sroce_ah_num(const struct ib_ah *ibah);

/**
 * sroce_ah_path() - the path behind an AH number, for a UD send
 * @sdev: the device
 * @ah_num: the number from the send WQE
 * @pd: the sending QP's PD: an AH of another PD is not found
 * @lqpn: the sending QP
 * @rqpn: the destination QP
 * @path: filled (sroce_path_from_av() and sroce_path_set_netdev())
 *
 * Context: any.
 * Return: 0, or -EINVAL when @pd has no AH of that number.
 */
int sroce_ah_path(struct sroce_dev *sdev, u32 ah_num, const struct ib_pd *pd,
		  u32 lqpn, u32 rqpn, struct sroce_path *path);

#endif /* _SROCE_AH_H */
