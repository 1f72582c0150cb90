/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control: the device's knobs (sysfs cc/), each QP's reaction
 * point (DCQCN) and pacer, the notification point's CNPs (cc.c, cnp.c).
 * Documentation/congestion.rst.
 */
#ifndef _SROCE_CC_H
#define _SROCE_CC_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "dcqcn.h"

struct ib_device;
struct sk_buff;
struct sroce_dev;
struct sroce_path;
struct sroce_qp;

/**
 * enum sroce_cc_knob - a device's congestion control parameters
 * @SROCE_CC_NP_ENABLE: priorities (bit n: skb priority n) whose QPs send
 *	CNPs for CE-marked packets
 * @SROCE_CC_RP_ENABLE: priorities whose QPs send ECN-capable and react
 *	to CNPs
 * @SROCE_CC_NP_MIN_TIME: microseconds between two CNPs of one QP, at least
 * @SROCE_CC_NP_CNP_DSCP: the CNPs' DSCP
 * @SROCE_CC_NP_CNP_PRIO: the CNPs' skb priority (a VLAN's PCP)
 * @SROCE_CC_RP_MAX_RATE: the line rate, Mbit/s
 * @SROCE_CC_RP_MIN_RATE: the lowest rate a cut leaves, Mbit/s
 * @SROCE_CC_RP_AI_RATE: additive increase, Mbit/s
 * @SROCE_CC_RP_HAI_RATE: hyper increase, Mbit/s
 * @SROCE_CC_RP_G: α's gain g, in 1/1024
 * @SROCE_CC_RP_INITIAL_ALPHA: α of a new QP, in 1/1024
 * @SROCE_CC_RP_ALPHA_TIME: α's decay period, microseconds
 * @SROCE_CC_RP_TIME_RESET: the rate increase timer, microseconds
 * @SROCE_CC_RP_BYTE_RESET: the byte counter, bytes
 * @SROCE_CC_RP_THRESHOLD: F, increase events before additive increase
 * @SROCE_CC_RP_REDUCE_PERIOD: microseconds between two cuts, at least
 * @SROCE_CC_ACK_DSCP: the DSCP of ACKs and NAKs, 64 for the QP's own
 * @SROCE_CC_NUM_KNOBS: how many
 */
enum sroce_cc_knob {
	SROCE_CC_NP_ENABLE,
	SROCE_CC_RP_ENABLE,
	SROCE_CC_NP_MIN_TIME,
	SROCE_CC_NP_CNP_DSCP,
	SROCE_CC_NP_CNP_PRIO,
	SROCE_CC_RP_MAX_RATE,
	SROCE_CC_RP_MIN_RATE,
	SROCE_CC_RP_AI_RATE,
	SROCE_CC_RP_HAI_RATE,
	SROCE_CC_RP_G,
	SROCE_CC_RP_INITIAL_ALPHA,
	SROCE_CC_RP_ALPHA_TIME,
	SROCE_CC_RP_TIME_RESET,
	SROCE_CC_RP_BYTE_RESET,
	SROCE_CC_RP_THRESHOLD,
	SROCE_CC_RP_REDUCE_PERIOD,
	SROCE_CC_ACK_DSCP,
	SROCE_CC_NUM_KNOBS
};

/*
 * The range IB_QP_RATE_LIMIT takes, kbit/s (0 lifts the limit); the
 * bucket that enforces it and DCQCN's rate bursts sroce_tbf_burst().
 */
#define SROCE_CC_RATE_LIMIT_MIN	1000
#define SROCE_CC_RATE_LIMIT_MAX	100000000

/**
 * struct sroce_cc_dev - a device's congestion control parameters
 * @knob: by &enum sroce_cc_knob; written by sysfs, read with READ_ONCE()
 *	when a QP enters RTR (and for CNPs, when one is sent)
 */
struct sroce_cc_dev {
	u32 knob[SROCE_CC_NUM_KNOBS];
};

/**
 * struct sroce_cc_qp - a QP's congestion control
 * @lock: guards @rp, @tbf, @dead and the arming of both timers
 * @np_on: CE-marked packets to this QP are answered with CNPs
 * @rp_on: not 0: the QP sends ECN-capable and its rate follows DCQCN;
 *	the priorities it is on for (bit n: skb priority n), the device's
 *	rp_enable at RTR: the path's one, or for a UD QP those its
 *	datagrams leave ECN-capable on
 * @paced: @rp_on or @rate_limit: the requester asks the bucket (read
 *	locklessly; written before RTS)
 * @dead: the QP is being destroyed: no timer is armed again
 * @rate_limit: IB_QP_RATE_LIMIT in kbit/s, 0 for none
 * @p: the device's DCQCN parameters when the QP entered RTR
 * @rp: the reaction point
 * @tbf: the bucket holding the QP to min(DCQCN's rate, @rate_limit)
 * @np_last: when the QP last sent a CNP (ns), 0 for never
 * @rate_timer: DCQCN's rate increase timer, armed only while the rate is
 *	below the line rate
 * @wake_timer: kicks the requester when the bucket it waits for refills
 */
struct sroce_cc_qp {
	spinlock_t lock;	/* see the kernel-doc above */
	bool np_on;
	u8 rp_on;
	bool paced;
	bool dead;
	u32 rate_limit;
	struct sroce_dcqcn_params p;
	struct sroce_dcqcn rp;
	struct sroce_tbf tbf;
	atomic64_t np_last;
	struct hrtimer rate_timer;
	struct hrtimer wake_timer;
};

/**
 * sroce_cc_dev_init() - a new device's parameters, at their defaults
 * @cc: the device's parameters
 *
 * NP and RP are enabled on every priority when the module parameter cc
 * is on when the device is created, else on none.
 *
 * Context: any.
 */
void sroce_cc_dev_init(struct sroce_cc_dev *cc);

/**
 * sroce_cc_sysfs_add() - give a registered device its cc/ sysfs group
 * @ibdev: the device, just registered
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int sroce_cc_sysfs_add(struct ib_device *ibdev);

/**
 * sroce_cc_qp_init() - a new QP's congestion control, off
 * @qp: the QP being created
 *
 * Context: process.
 */
void sroce_cc_qp_init(struct sroce_qp *qp);

/**
 * sroce_cc_qp_start() - decide a QP's congestion control at RTR
 * @qp: the QP: RC or UC, its path to the peer just set; or UD
 *
 * Takes the device's parameters as they are now. A connected QP's points
 * are on when they are for the path's priority, and then the path's ECN
 * field becomes ECT(0). A UD QP's are on when they are for any priority;
 * each datagram's ECN field is then set by sroce_cc_ud_path(). The GSI
 * QP's stay off.
 *
 * Context: process; the QP's mutex held, its engines not sending.
 */
void sroce_cc_qp_start(struct sroce_qp *qp);

/**
 * sroce_cc_ud_path() - the ECN field of a UD QP's datagram
 * @qp: the UD QP
 * @path: the datagram's path, from its AH
 *
 * ECT(0) when the QP's reaction point is on and rp_enable was on for the
 * path's priority when the QP entered RTR.
 *
 * Context: any.
 */
void sroce_cc_ud_path(struct sroce_qp *qp, struct sroce_path *path);

/**
 * sroce_cc_qp_stop() - no timer of a QP runs from now on
 * @qp: the QP being destroyed
 *
 * Context: process.
 */
void sroce_cc_qp_stop(struct sroce_qp *qp);

/**
 * sroce_cc_set_rate_limit() - IB_QP_RATE_LIMIT
 * @qp: the QP
 * @kbps: the limit, 0 to lift it
 *
 * Context: process; the QP's mutex held.
 */
void sroce_cc_set_rate_limit(struct sroce_qp *qp, u32 kbps);

/**
 * sroce_cc_check_rate_limit() - whether IB_QP_RATE_LIMIT takes a value
 * @kbps: kbit/s
 *
 * Context: any.
 * Return: 0, or -EINVAL outside SROCE_CC_RATE_LIMIT_MIN ..
 * SROCE_CC_RATE_LIMIT_MAX (0 is allowed: no limit).
 */
int sroce_cc_check_rate_limit(u32 kbps);

/**
 * sroce_cc_tx_wait() - whether a QP's engine must wait for its bucket
 * @qp: the QP
 *
 * When it must, the wake timer kicks the requester and the responder's
 * work item once the bucket has refilled.
 *
 * Context: any; an engine's pass (sroce_tx_throttled()).
 * Return: true to stop sending now.
 */
bool sroce_cc_tx_wait(struct sroce_qp *qp);

/**
 * sroce_cc_tx_sent() - data bytes went out (requests, read responses,
 *	datagrams)
 * @qp: the QP
 * @bytes: their length from the BTH on
 *
 * Charged to the bucket and to DCQCN's byte counter when the QP is paced
 * (&sroce_cc_qp.paced); nothing else.
 *
 * Context: any; an engine's pass (sroce_tx_send()).
 */
void sroce_cc_tx_sent(struct sroce_qp *qp, u32 bytes);

/**
 * sroce_cc_cnp_recv() - a CNP for a QP passed ingress
 * @qp: the QP (held)
 *
 * Counted as rp_cnp_handled and the rate cut (DCQCN), or as
 * rp_cnp_ignored when the QP's reaction point is off.
 *
 * Context: softirq.
 */
void sroce_cc_cnp_recv(struct sroce_qp *qp);

/**
 * sroce_cc_np_recv() - the notification point's look at a packet
 * @qp: the QP it is for (held), past every ingress check; only an RC, UC
 *	or UD QP's packets are looked at, not the GSI QP's
 * @skb: the packet, off the wire, its IP header in place and its
 *	transport headers pulled
 *
 * A CE-marked packet other than a CNP is counted
 * (np_ecn_marked_roce_packets) and, with the QP's notification point on
 * and its last CNP np_min_time_between_cnps ago, answered with a CNP
 * (np_cnp_sent): to a connected QP's peer; for a UD QP, to the sender the
 * datagram names, its IP source address and the DETH's source QP, on the
 * netdev it came in by. One interval serves all of a UD QP's senders.
 *
 * Context: softirq.
 */
void sroce_cc_np_recv(struct sroce_qp *qp, const struct sk_buff *skb);

/**
 * sroce_cnp_ud_addrs() - the addresses of a CNP for a datagram
 * @skb: the datagram, off the wire, its IP header in place
 * @path: its @ipv6, @saddr and @daddr are set: from the address the
 *	datagram came to, to the one it came from (IPv4 ones mapped)
 *
 * Context: any.
 * Return: false, @path untouched, for a datagram that is neither IPv4
 * nor IPv6 or whose source is multicast, broadcast, unspecified (IPv4:
 * 0.0.0.0/8), loopback or, in an IPv6 header, IPv4-mapped.
 */
bool sroce_cnp_ud_addrs(const struct sk_buff *skb, struct sroce_path *path);

/**
 * sroce_cc_fill_res() - the QP's rates and α for `rdma resource show qp -dd`
 * @msg: the netlink message
 * @qp: the QP
 *
 * Context: any.
 * Return: 0 or -EMSGSIZE.
 */
int sroce_cc_fill_res(struct sk_buff *msg, struct sroce_qp *qp);

/**
 * sroce_cc_ack_tclass() - the traffic class of a QP's ACKs and NAKs
 * @qp: the QP
 *
 * Context: any.
 * Return: the device's ack_dscp with a Not-ECT field when the knob names
 * one (below 64); else the path's, without the ECT(0) of the reaction
 * point.
 */
u8 sroce_cc_ack_tclass(struct sroce_qp *qp);

#endif /* _SROCE_CC_H */
