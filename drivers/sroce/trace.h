/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce's tracepoints: the events behind the counters, with the QP and
 * PSN they happened to. Each costs a patched-out branch until enabled:
 *   echo 1 > /sys/kernel/tracing/events/sroce/enable
 * or `perf trace -e 'sroce:*'`, `trace-cmd record -e sroce`.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(_SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#define SROCE_TRACE_DEV(entry, ibdev) \
	strscpy((entry)->dev, dev_name(&(ibdev)->dev), sizeof((entry)->dev))

#define sroce_show_qp_state(s)					\
	__print_symbolic(s, { IB_QPS_RESET, "RESET" },		\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

/*
 * The QP events: three values each, which their own format names (the
 * class's is sroce_nak's).
 * @ibqp: the QP
 * @a, @b, @c: the event's values, in its TP_printk's order
 */
DECLARE_EVENT_CLASS(sroce_qp_event,
		    TP_PROTO(struct ib_qp *ibqp, u32 a, u32 b, u32 c),
		    TP_ARGS(ibqp, a, b, c),
		    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
				     __field(u32, qpn)
				     __field(u32, a)
				     __field(u32, b)
				     __field(u32, c)),
		    TP_fast_assign(SROCE_TRACE_DEV(__entry, ibqp->device);
				   __entry->qpn = ibqp->qp_num;
				   __entry->a = a;
				   __entry->b = b;
				   __entry->c = c;),
		    TP_printk("%s qpn=%u %s psn=%u syndrome=%#x", __entry->dev,
			      __entry->qpn, __entry->a ? "sent" : "received",
			      __entry->b, __entry->c)
);

/* A QP moves from @a to @b: by modify_qp, or an error of its own. */
DEFINE_EVENT_PRINT(sroce_qp_event, sroce_qp_state,
		   TP_PROTO(struct ib_qp *ibqp, u32 a, u32 b, u32 c),
		   TP_ARGS(ibqp, a, b, c),
		   TP_printk("%s qpn=%u %s -> %s", __entry->dev, __entry->qpn,
			     sroce_show_qp_state(__entry->a),
			     sroce_show_qp_state(__entry->b))
);

/* The requester goes back to send again from PSN @a; @b was next. */
DEFINE_EVENT_PRINT(sroce_qp_event, sroce_rewind,
		   TP_PROTO(struct ib_qp *ibqp, u32 a, u32 b, u32 c),
		   TP_ARGS(ibqp, a, b, c),
		   TP_printk("%s qpn=%u from psn=%u (next was %u)", __entry->dev,
			     __entry->qpn, __entry->a, __entry->b)
);

/*
 * A NAK sent by the responder (@a 1) or received by the requester (@a 0),
 * for PSN @b, with AETH syndrome @c (sequence, RNR or error).
 */
DEFINE_EVENT(sroce_qp_event, sroce_nak,
	     TP_PROTO(struct ib_qp *ibqp, u32 a, u32 b, u32 c),
	     TP_ARGS(ibqp, a, b, c)
);

/*
 * The QP's DCQCN rate changed (a CNP's cut, a timer or byte counter
 * increase): current rate @a and target rate @b in kbit/s, alpha @c in
 * 1/1024.
 */
DEFINE_EVENT_PRINT(sroce_qp_event, sroce_cc_rate,
		   TP_PROTO(struct ib_qp *ibqp, u32 a, u32 b, u32 c),
		   TP_ARGS(ibqp, a, b, c),
		   TP_printk("%s qpn=%u rate=%ukbps target=%ukbps alpha=%u/1024",
			     __entry->dev, __entry->qpn, __entry->a, __entry->b,
			     __entry->c)
);

/* An RNR NAK makes the requester wait @a us; @b retries remain. */
DEFINE_EVENT_PRINT(sroce_qp_event, sroce_rnr_wait,
		   TP_PROTO(struct ib_qp *ibqp, u32 a, u32 b, u32 c),
		   TP_ARGS(ibqp, a, b, c),
		   TP_printk("%s qpn=%u wait=%uus retries_left=%u", __entry->dev,
			     __entry->qpn, __entry->a, __entry->b)
);

/* The ACK timer expired: @a acknowledged last, @b next, @c retries left. */
DEFINE_EVENT_PRINT(sroce_qp_event, sroce_ack_timeout,
		   TP_PROTO(struct ib_qp *ibqp, u32 a, u32 b, u32 c),
		   TP_ARGS(ibqp, a, b, c),
		   TP_printk("%s qpn=%u acked=%u next=%u retries_left=%u",
			     __entry->dev, __entry->qpn, __entry->a, __entry->b,
			     __entry->c)
);

/* A received packet dropped, counted under @reason; @qpn U32_MAX: none. */
TRACE_EVENT(sroce_drop,
	    TP_PROTO(struct ib_device *ibdev, const char *reason, u32 qpn,
		     u32 len),
	    TP_ARGS(ibdev, reason, qpn, len),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __array(char, reason, 24)
			     __field(u32, qpn)
			     __field(u32, len)),
	    TP_fast_assign(SROCE_TRACE_DEV(__entry, ibdev);
			   strscpy(__entry->reason, reason, sizeof(__entry->reason));
			   __entry->qpn = qpn;
			   __entry->len = len;),
	    TP_printk("%s %s qpn=%d len=%u", __entry->dev, __entry->reason,
		      (int)__entry->qpn, __entry->len)
);

#endif /* _SROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
