// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control around the arithmetic of dcqcn.c: the device's
 * knobs (sysfs cc/), each QP's reaction point and its pacer, the rate
 * increase timer that runs only while a QP is below the line rate, and
 * IB_QP_RATE_LIMIT. The notification point is cnp.c.
 * Documentation/congestion.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/export.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include <net/inet_ecn.h>
#include <rdma/rdma_netlink.h>

#include "cc.h"
#include "qp.h"
#include "req.h"
#include "sroce.h"
#include "trace.h"

/*
 * Whether new devices start with congestion control on every priority
 * (both points). Read at `rdma link add`; the knobs change it per device.
 */
static bool sroce_cc_default;
module_param_named(cc, sroce_cc_default, bool, 0644);
MODULE_PARM_DESC(cc, "new devices start with ECN/CNP/DCQCN on every priority (default: off)");

/**
 * struct sroce_cc_knob_desc - one knob's default and range (its file
 *	under cc/ is named in sroce_cc_attrs)
 * @def: its default
 * @min: the lowest value a write may set
 * @max: the highest
 */
struct sroce_cc_knob_desc {
	u32 def, min, max;
};

/* Documentation/congestion.rst, "Parameters", says where each default comes from. */
static const struct sroce_cc_knob_desc sroce_cc_knobs[SROCE_CC_NUM_KNOBS] = {
	[SROCE_CC_NP_ENABLE] = { 0, 0, 0xff },
	[SROCE_CC_RP_ENABLE] = { 0, 0, 0xff },
	[SROCE_CC_NP_MIN_TIME] = { 50, 0, USEC_PER_SEC },
	[SROCE_CC_NP_CNP_DSCP] = { 48, 0, 63 },
	[SROCE_CC_NP_CNP_PRIO] = { 6, 0, 7 },
	[SROCE_CC_RP_MAX_RATE] = { 10000, 1, 400000 },
	[SROCE_CC_RP_MIN_RATE] = { 10, 1, 400000 },
	[SROCE_CC_RP_AI_RATE] = { 10, 0, 400000 },
	[SROCE_CC_RP_HAI_RATE] = { 100, 0, 400000 },
	[SROCE_CC_RP_G] = { 4, 1, SROCE_DCQCN_ONE },
	[SROCE_CC_RP_INITIAL_ALPHA] = { SROCE_DCQCN_ONE, 0, SROCE_DCQCN_ONE },
	[SROCE_CC_RP_ALPHA_TIME] = { 55, 1, USEC_PER_SEC },
	[SROCE_CC_RP_TIME_RESET] = { 300, 10, USEC_PER_SEC },
	[SROCE_CC_RP_BYTE_RESET] = { SZ_1M, 0, SZ_1G },
	[SROCE_CC_RP_THRESHOLD] = { 5, 0, 64 },
	[SROCE_CC_RP_REDUCE_PERIOD] = { 50, 0, USEC_PER_SEC },
	[SROCE_CC_ACK_DSCP] = { 64, 0, 64 },
};

void sroce_cc_dev_init(struct sroce_cc_dev *cc)
{
	u32 on = READ_ONCE(sroce_cc_default) ? 0xff : 0;
	int i;

	for (i = 0; i < SROCE_CC_NUM_KNOBS; i++)
		cc->knob[i] = sroce_cc_knobs[i].def;
	cc->knob[SROCE_CC_NP_ENABLE] = on;
	cc->knob[SROCE_CC_RP_ENABLE] = on;
}

static u32 sroce_cc_knob(struct sroce_dev *sdev, enum sroce_cc_knob k)
{
	return READ_ONCE(sdev->cc.knob[k]);
}

/* The device's knobs as DCQCN takes them: rates in kbit/s. */
static void sroce_cc_params(struct sroce_dev *sdev, struct sroce_dcqcn_params *p)
{
	p->max_rate = sroce_cc_knob(sdev, SROCE_CC_RP_MAX_RATE) * 1000;
	p->min_rate = sroce_cc_knob(sdev, SROCE_CC_RP_MIN_RATE) * 1000;
	p->ai_rate = sroce_cc_knob(sdev, SROCE_CC_RP_AI_RATE) * 1000;
	p->hai_rate = sroce_cc_knob(sdev, SROCE_CC_RP_HAI_RATE) * 1000;
	p->g = sroce_cc_knob(sdev, SROCE_CC_RP_G);
	p->initial_alpha = sroce_cc_knob(sdev, SROCE_CC_RP_INITIAL_ALPHA);
	p->alpha_us = sroce_cc_knob(sdev, SROCE_CC_RP_ALPHA_TIME);
	p->time_reset_us = sroce_cc_knob(sdev, SROCE_CC_RP_TIME_RESET);
	p->byte_reset = sroce_cc_knob(sdev, SROCE_CC_RP_BYTE_RESET);
	p->threshold = sroce_cc_knob(sdev, SROCE_CC_RP_THRESHOLD);
	p->reduce_us = sroce_cc_knob(sdev, SROCE_CC_RP_REDUCE_PERIOD);
}

/* The rate the bucket enforces now, kbit/s; 0 for none. */
static u32 sroce_cc_rate(const struct sroce_cc_qp *cc)
{
	u32 rate = cc->rate_limit ?: U32_MAX;

	lockdep_assert_held(&cc->lock);
	if (cc->rp_on && sroce_dcqcn_limited(&cc->rp, &cc->p))
		rate = min(rate, cc->rp.rc);
	return rate == U32_MAX ? 0 : rate;
}

static void sroce_cc_trace(struct sroce_qp *qp)
{
	trace_sroce_cc_rate(&qp->ibqp, qp->cc.rp.rc, qp->cc.rp.rt, qp->cc.rp.alpha);
}

/* The rate increase timer's period. */
static ktime_t sroce_cc_period(const struct sroce_cc_qp *cc)
{
	return ns_to_ktime((u64)cc->p.time_reset_us * NSEC_PER_USEC);
}

/* The rate increase timer: recovery by time, while the rate is limited. */
static enum hrtimer_restart sroce_cc_rate_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, cc.rate_timer);
	struct sroce_cc_qp *cc = &qp->cc;
	enum hrtimer_restart again = HRTIMER_NORESTART;
	unsigned long flags;
	bool more;

	spin_lock_irqsave(&cc->lock, flags);
	more = sroce_dcqcn_timer(&cc->rp, &cc->p, ktime_get_ns());
	sroce_cc_trace(qp);
	/* A CNP may have started it again meanwhile: that one stands. */
	if (more && !cc->dead && !hrtimer_is_queued(t)) {
		hrtimer_forward_now(t, sroce_cc_period(cc));
		again = HRTIMER_RESTART;
	}
	spin_unlock_irqrestore(&cc->lock, flags);
	return again;
}

/* The bucket has refilled: the engines that stopped for it go on. */
static enum hrtimer_restart sroce_cc_wake_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, cc.wake_timer);

	sroce_req_kick(&qp->req);
	queue_work(system_highpri_wq, &qp->resp.work);
	return HRTIMER_NORESTART;
}

void sroce_cc_qp_init(struct sroce_qp *qp)
{
	struct sroce_cc_qp *cc = &qp->cc;

	spin_lock_init(&cc->lock);
	atomic64_set(&cc->np_last, 0);
	hrtimer_setup(&cc->rate_timer, sroce_cc_rate_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	hrtimer_setup(&cc->wake_timer, sroce_cc_wake_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
}

/*
 * The priorities whose enable bits turn a QP's points on: a connected
 * QP's path's; any for a UD QP, whose datagrams go where their AHs say;
 * none for the GSI QP, whose MADs are left alone.
 */
static u32 sroce_cc_qp_prios(const struct sroce_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
		return BIT(qp->req.path.priority & 7);
	case IB_QPT_UD:
		return 0xff;
	default:
		return 0;
	}
}

void sroce_cc_qp_start(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_path *path = &qp->req.path;
	u32 prios = sroce_cc_qp_prios(qp);
	struct sroce_cc_qp *cc = &qp->cc;

	lockdep_assert_held(&qp->lock);
	/* From an earlier connection of the QP (through RESET). */
	hrtimer_cancel(&cc->rate_timer);
	spin_lock_bh(&cc->lock);
	cc->np_on = sroce_cc_knob(sdev, SROCE_CC_NP_ENABLE) & prios;
	cc->rp_on = sroce_cc_knob(sdev, SROCE_CC_RP_ENABLE) & prios;
	sroce_cc_params(sdev, &cc->p);
	sroce_dcqcn_init(&cc->rp, &cc->p);
	cc->tbf.next_ns = 0;
	WRITE_ONCE(cc->paced, cc->rp_on || cc->rate_limit);
	spin_unlock_bh(&cc->lock);
	atomic64_set(&cc->np_last, 0);
	if (cc->rp_on && qp->ibqp.qp_type != IB_QPT_UD)
		path->tclass = (path->tclass & ~INET_ECN_MASK) | INET_ECN_ECT_0;
}

void sroce_cc_ud_path(struct sroce_qp *qp, struct sroce_path *path)
{
	/* rp_on is written at RTR, before the QP sends. */
	if (READ_ONCE(qp->cc.rp_on) & BIT(path->priority & 7))
		path->tclass = (path->tclass & ~INET_ECN_MASK) | INET_ECN_ECT_0;
}

void sroce_cc_qp_stop(struct sroce_qp *qp)
{
	struct sroce_cc_qp *cc = &qp->cc;

	spin_lock_bh(&cc->lock);
	cc->dead = true;
	spin_unlock_bh(&cc->lock);
	hrtimer_cancel(&cc->rate_timer);
	hrtimer_cancel(&cc->wake_timer);
}

int sroce_cc_check_rate_limit(u32 kbps)
{
	if (kbps && (kbps < SROCE_CC_RATE_LIMIT_MIN || kbps > SROCE_CC_RATE_LIMIT_MAX))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_check_rate_limit);

void sroce_cc_set_rate_limit(struct sroce_qp *qp, u32 kbps)
{
	struct sroce_cc_qp *cc = &qp->cc;

	lockdep_assert_held(&qp->lock);
	spin_lock_bh(&cc->lock);
	cc->rate_limit = kbps;
	/* A new limit starts from a full bucket. */
	cc->tbf.next_ns = 0;
	WRITE_ONCE(cc->paced, cc->rp_on || cc->rate_limit);
	spin_unlock_bh(&cc->lock);
}

bool sroce_cc_tx_wait(struct sroce_qp *qp)
{
	struct sroce_cc_qp *cc = &qp->cc;
	unsigned long flags;
	u64 wait;

	if (!READ_ONCE(cc->paced))
		return false;
	spin_lock_irqsave(&cc->lock, flags);
	wait = sroce_cc_rate(cc) ? sroce_tbf_wait(&cc->tbf, ktime_get_ns()) : 0;
	if (wait && !cc->dead && !hrtimer_is_queued(&cc->wake_timer))
		hrtimer_start(&cc->wake_timer, ns_to_ktime(wait), HRTIMER_MODE_REL_SOFT);
	spin_unlock_irqrestore(&cc->lock, flags);
	if (wait)
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_TX_WAIT_RATE);
	return wait;
}

void sroce_cc_tx_sent(struct sroce_qp *qp, u32 bytes)
{
	struct sroce_cc_qp *cc = &qp->cc;
	unsigned long flags;
	u32 rate;

	if (!READ_ONCE(cc->paced))
		return;
	spin_lock_irqsave(&cc->lock, flags);
	rate = sroce_cc_rate(cc);
	if (rate)
		sroce_tbf_take(&cc->tbf, ktime_get_ns(), rate,
			       sroce_tbf_burst(rate), bytes);
	if (cc->rp_on && sroce_dcqcn_sent(&cc->rp, &cc->p, bytes))
		sroce_cc_trace(qp);
	spin_unlock_irqrestore(&cc->lock, flags);
}

void sroce_cc_cnp_recv(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_cc_qp *cc = &qp->cc;
	unsigned long flags;
	u64 now;

	if (!READ_ONCE(cc->rp_on)) {
		sroce_count(sdev, SROCE_CNT_RP_CNP_IGNORED);
		return;
	}
	sroce_count(sdev, SROCE_CNT_RP_CNP_HANDLED);
	now = ktime_get_ns();
	spin_lock_irqsave(&cc->lock, flags);
	if (sroce_dcqcn_cnp(&cc->rp, &cc->p, now))
		sroce_cc_trace(qp);
	/* Recovery by time: only now that there is something to recover. */
	if (sroce_dcqcn_limited(&cc->rp, &cc->p) && !cc->dead &&
	    !hrtimer_is_queued(&cc->rate_timer))
		hrtimer_start(&cc->rate_timer, sroce_cc_period(cc), HRTIMER_MODE_REL_SOFT);
	spin_unlock_irqrestore(&cc->lock, flags);
}

int sroce_cc_fill_res(struct sk_buff *msg, struct sroce_qp *qp)
{
	struct sroce_cc_qp *cc = &qp->cc;
	u32 rc, rt, alpha, limit;
	unsigned long flags;
	bool rp_on;

	spin_lock_irqsave(&cc->lock, flags);
	rp_on = cc->rp_on;
	rc = cc->rp.rc;
	rt = cc->rp.rt;
	sroce_dcqcn_age(&cc->rp, &cc->p, ktime_get_ns());
	alpha = cc->rp.alpha;
	limit = cc->rate_limit;
	spin_unlock_irqrestore(&cc->lock, flags);
	if (limit && rdma_nl_put_driver_u32(msg, "rate_limit_kbps", limit))
		return -EMSGSIZE;
	if (!rp_on)
		return 0;
	if (rdma_nl_put_driver_u32(msg, "cc_rate_kbps", rc) ||
	    rdma_nl_put_driver_u32(msg, "cc_target_kbps", rt) ||
	    rdma_nl_put_driver_u32(msg, "cc_alpha", alpha))
		return -EMSGSIZE;
	return 0;
}

u8 sroce_cc_ack_tclass(struct sroce_qp *qp)
{
	u32 dscp = sroce_cc_knob(to_sdev(qp->ibqp.device), SROCE_CC_ACK_DSCP);
	u8 tclass = qp->req.path.tclass;

	if (dscp < 64)
		return dscp << 2;
	/* The ECT(0) the reaction point gave the path is for data only. */
	return READ_ONCE(qp->cc.rp_on) ? tclass & ~INET_ECN_MASK : tclass;
}

/* The cc/ files: one per knob, range-checked on write. */
struct sroce_cc_attr {
	struct device_attribute attr;
	enum sroce_cc_knob knob;
};

static ssize_t sroce_cc_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct sroce_dev *sdev = to_sdev(rdma_device_to_ibdev(dev));
	struct sroce_cc_attr *a = container_of(attr, struct sroce_cc_attr, attr);

	return sysfs_emit(buf, "%u\n", sroce_cc_knob(sdev, a->knob));
}

static ssize_t sroce_cc_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct sroce_dev *sdev = to_sdev(rdma_device_to_ibdev(dev));
	struct sroce_cc_attr *a = container_of(attr, struct sroce_cc_attr, attr);
	const struct sroce_cc_knob_desc *d = &sroce_cc_knobs[a->knob];
	u32 val;
	int err;

	err = kstrtou32(buf, 0, &val);
	if (err)
		return err;
	if (val < d->min || val > d->max)
		return -ERANGE;
	WRITE_ONCE(sdev->cc.knob[a->knob], val);
	return count;
}

/* In any order: each file knows its knob. */
#define SROCE_CC_ATTR(k, n) {						\
	.attr = __ATTR(n, 0644, sroce_cc_show, sroce_cc_store), .knob = (k) }

static struct sroce_cc_attr sroce_cc_attrs[SROCE_CC_NUM_KNOBS] = {
	SROCE_CC_ATTR(SROCE_CC_NP_ENABLE, np_enable),
	SROCE_CC_ATTR(SROCE_CC_RP_ENABLE, rp_enable),
	SROCE_CC_ATTR(SROCE_CC_NP_MIN_TIME, np_min_time_between_cnps),
	SROCE_CC_ATTR(SROCE_CC_NP_CNP_DSCP, np_cnp_dscp),
	SROCE_CC_ATTR(SROCE_CC_NP_CNP_PRIO, np_cnp_prio),
	SROCE_CC_ATTR(SROCE_CC_RP_MAX_RATE, rp_max_rate),
	SROCE_CC_ATTR(SROCE_CC_RP_MIN_RATE, rp_min_rate),
	SROCE_CC_ATTR(SROCE_CC_RP_AI_RATE, rp_ai_rate),
	SROCE_CC_ATTR(SROCE_CC_RP_HAI_RATE, rp_hai_rate),
	SROCE_CC_ATTR(SROCE_CC_RP_G, rp_dce_tcp_g),
	SROCE_CC_ATTR(SROCE_CC_RP_INITIAL_ALPHA, rp_initial_alpha_value),
	SROCE_CC_ATTR(SROCE_CC_RP_ALPHA_TIME, rp_dce_tcp_rtt),
	SROCE_CC_ATTR(SROCE_CC_RP_TIME_RESET, rp_time_reset),
	SROCE_CC_ATTR(SROCE_CC_RP_BYTE_RESET, rp_byte_reset),
	SROCE_CC_ATTR(SROCE_CC_RP_THRESHOLD, rp_threshold),
	SROCE_CC_ATTR(SROCE_CC_RP_REDUCE_PERIOD, rp_rate_reduce_monitor_period),
	SROCE_CC_ATTR(SROCE_CC_ACK_DSCP, ack_dscp),
};

#define SROCE_CC_FILE(k)	(&sroce_cc_attrs[k].attr.attr)

static struct attribute *sroce_cc_attr_list[] = {
	SROCE_CC_FILE(0), SROCE_CC_FILE(1), SROCE_CC_FILE(2), SROCE_CC_FILE(3),
	SROCE_CC_FILE(4), SROCE_CC_FILE(5), SROCE_CC_FILE(6), SROCE_CC_FILE(7),
	SROCE_CC_FILE(8), SROCE_CC_FILE(9), SROCE_CC_FILE(10), SROCE_CC_FILE(11),
	SROCE_CC_FILE(12), SROCE_CC_FILE(13), SROCE_CC_FILE(14), SROCE_CC_FILE(15),
	SROCE_CC_FILE(16), NULL
};

static_assert(ARRAY_SIZE(sroce_cc_attr_list) == SROCE_CC_NUM_KNOBS + 1);

static const struct attribute_group sroce_cc_group = {
	.name = "cc",
	.attrs = sroce_cc_attr_list,
};

int sroce_cc_sysfs_add(struct ib_device *ibdev)
{
	/*
	 * Not the device_group of the ops: that one slot holds the P_Key
	 * table's file. device_del() takes this group away with the device.
	 */
	return device_add_group(&ibdev->dev, &sroce_cc_group);
}
