/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's counters as the RDMA core reads them: `rdma statistic`
 * (hw stats) and the port's sysfs counters/ directory, which the core
 * fills by asking a Performance Management Agent (counters.c).
 */
#ifndef _SROCE_COUNTERS_H
#define _SROCE_COUNTERS_H

#include <linux/types.h>

#include "sroce.h"

struct ib_device;
struct ib_mad;

/**
 * struct sroce_pma_counts - what the Performance Management Agent reports
 * @tx_bytes: bytes sent, BTH to ICRC
 * @rx_bytes: bytes received, BTH to ICRC
 * @tx_packets: packets sent
 * @rx_packets: packets received
 * @tx_discards: packets that could not be sent
 * @rx_errors: packets dropped as malformed (short, bad header, bad ICRC)
 * @rx_constraint: packets dropped for their P_Key
 * @link_downed: times the port went down
 */
struct sroce_pma_counts {
	u64 tx_bytes;
	u64 rx_bytes;
	u64 tx_packets;
	u64 rx_packets;
	u64 tx_discards;
	u64 rx_errors;
	u64 rx_constraint;
	u64 link_downed;
};

/**
 * sroce_pma_answer() - answer a Performance Management MAD
 * @pc: the counters to report
 * @port: the port the MAD is for
 * @in: the MAD received
 * @out: room for a whole &struct ib_mad, the answer
 *
 * Gets of ClassPortInfo, PortCounters and PortCountersExtended are
 * answered, each field saturated to its width; a Set, another attribute,
 * another port or class version gets a response with the status IBTA
 * names. Any other class or method is not the PMA's.
 *
 * Context: any context.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY with @out filled,
 * or IB_MAD_RESULT_SUCCESS alone for a MAD that is not the PMA's.
 */
int sroce_pma_answer(const struct sroce_pma_counts *pc, u32 port,
		     const struct ib_mad *in, struct ib_mad *out);

/**
 * sroce_set_counter_ops() - give a device the counters' ib_device_ops
 * @ibdev: the device being set up, not yet registered
 */
void sroce_set_counter_ops(struct ib_device *ibdev);

/**
 * sroce_count_drop() - count a received packet dropped, and trace it
 * @sdev: the device
 * @why: the drop counter (one of the rx_drop_* or rx_bad_response)
 * @qpn: the QP it was for, or U32_MAX before one is known
 * @len: its length
 *
 * Context: any context.
 */
void sroce_count_drop(struct sroce_dev *sdev, enum sroce_counter why,
		      u32 qpn, u32 len);

/**
 * sroce_counter_sat() - a device counter, saturated to a narrower field
 * @sdev: the device
 * @c: its counter (an &enum sroce_counter)
 * @max: the largest value the field holds
 *
 * IBTA counters stop at their largest value instead of wrapping.
 *
 * Context: any context.
 * Return: the counter's value, at most @max.
 */
u64 sroce_counter_sat(struct sroce_dev *sdev, enum sroce_counter c, u64 max);

#endif /* _SROCE_COUNTERS_H */
