// SPDX-License-Identifier: GPL-2.0
/*
 * The device's counters as two readers see them.
 *
 * `rdma statistic` reads every &enum sroce_counter by name through the hw
 * stats ops. The port's sysfs counters/ directory (and any Performance
 * Management client on the fabric) reads the IBTA PortCounters and
 * PortCountersExtended attributes: the RDMA core creates that directory
 * only for a device with a process_mad op, and fills each file by sending
 * it a PerfMgt Get. sroce answers those Gets from the same counters,
 * mapped as IBTA 16.1.3.5 defines the fields; every other MAD (CM, SA
 * replies) goes on to its agent untouched.
 */
#include <kunit/visibility.h>
#include <linux/minmax.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "counters.h"
#include "sroce.h"
#include "trace.h"

static const struct rdma_stat_desc sroce_counter_descs[] = {
	[SROCE_CNT_RX_PACKETS] = { .name = "rx_packets" },
	[SROCE_CNT_RX_BYTES] = { .name = "rx_bytes" },
	[SROCE_CNT_RX_DROP_SHORT] = { .name = "rx_drop_short" },
	[SROCE_CNT_RX_DROP_HEADER] = { .name = "rx_drop_header" },
	[SROCE_CNT_RX_DROP_OPCODE] = { .name = "rx_drop_opcode" },
	[SROCE_CNT_RX_DROP_ICRC] = { .name = "rx_drop_icrc" },
	[SROCE_CNT_RX_DROP_PKEY] = { .name = "rx_drop_pkey" },
	[SROCE_CNT_RX_DROP_NO_QP] = { .name = "rx_drop_no_qp" },
	[SROCE_CNT_RX_DROP_QP_STATE] = { .name = "rx_drop_qp_state" },
	[SROCE_CNT_RX_DROP_PATH] = { .name = "rx_drop_path" },
	[SROCE_CNT_RX_DROP_QKEY] = { .name = "rx_drop_qkey" },
	[SROCE_CNT_RX_DROP_NO_RECV] = { .name = "rx_drop_no_recv" },
	[SROCE_CNT_RX_DROP_LENGTH] = { .name = "rx_drop_length" },
	[SROCE_CNT_RX_DROP_MCAST] = { .name = "rx_drop_mcast" },
	[SROCE_CNT_RX_UNHANDLED] = { .name = "rx_unhandled" },
	[SROCE_CNT_RX_DUP_REQUEST] = { .name = "rx_dup_request" },
	[SROCE_CNT_RX_SEQ_GAP] = { .name = "rx_seq_gap" },
	[SROCE_CNT_RX_NAK_SEQ] = { .name = "rx_nak_seq" },
	[SROCE_CNT_RX_RNR_NAK] = { .name = "rx_rnr_nak" },
	[SROCE_CNT_RX_BAD_RESPONSE] = { .name = "rx_bad_response" },
	[SROCE_CNT_RX_NAK_ERROR] = { .name = "rx_nak_error" },
	[SROCE_CNT_RX_DUP_RESPONSE] = { .name = "rx_dup_response" },
	[SROCE_CNT_RX_IMPLIED_NAK] = { .name = "rx_implied_nak" },
	[SROCE_CNT_RX_READ_AHEAD] = { .name = "rx_read_ahead" },
	[SROCE_CNT_ACK_TIMEOUT] = { .name = "ack_timeout" },
	[SROCE_CNT_ACK_HELD] = { .name = "ack_timeout_held" },
	[SROCE_CNT_TX_REWIND] = { .name = "tx_rewind" },
	[SROCE_CNT_TX_RETRANSMIT] = { .name = "tx_retransmit" },
	[SROCE_CNT_TX_NAK_SEQ] = { .name = "tx_nak_seq" },
	[SROCE_CNT_TX_NAK_ERROR] = { .name = "tx_nak_error" },
	[SROCE_CNT_TX_RNR_NAK] = { .name = "tx_rnr_nak" },
	[SROCE_CNT_TX_PACKETS] = { .name = "tx_packets" },
	[SROCE_CNT_TX_BYTES] = { .name = "tx_bytes" },
	[SROCE_CNT_TX_DROP] = { .name = "tx_drop" },
	[SROCE_CNT_TX_WAIT_WINDOW] = { .name = "tx_wait_window" },
	[SROCE_CNT_TX_WAIT_QUEUE] = { .name = "tx_wait_queue" },
	[SROCE_CNT_TX_WINDOW_PROBE] = { .name = "tx_window_probe" },
	[SROCE_CNT_TX_ZCOPY] = { .name = "tx_zcopy" },
	[SROCE_CNT_RX_GRO] = { .name = "rx_gro" },
	[SROCE_CNT_RX_DROP_UC_MSG] = { .name = "rx_drop_uc_msg" },
	[SROCE_CNT_LINK_DOWNED] = { .name = "link_downed" },
	[SROCE_CNT_NP_ECN_MARKED] = { .name = "np_ecn_marked_roce_packets" },
	[SROCE_CNT_NP_CNP_SENT] = { .name = "np_cnp_sent" },
	[SROCE_CNT_RP_CNP_HANDLED] = { .name = "rp_cnp_handled" },
	[SROCE_CNT_RP_CNP_IGNORED] = { .name = "rp_cnp_ignored" },
	[SROCE_CNT_TX_WAIT_RATE] = { .name = "tx_wait_rate" },
};

static_assert(ARRAY_SIZE(sroce_counter_descs) == SROCE_NUM_COUNTERS);

static struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						       u32 port_num)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs,
					  SROCE_NUM_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int sroce_get_hw_stats(struct ib_device *ibdev,
			      struct rdma_hw_stats *stats, u32 port, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int i;

	for (i = 0; i < SROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&sdev->counters[i]);
	return SROCE_NUM_COUNTERS;
}

void sroce_count_drop(struct sroce_dev *sdev, enum sroce_counter why,
		      u32 qpn, u32 len)
{
	sroce_count(sdev, why);
	trace_sroce_drop(&sdev->ibdev, sroce_counter_descs[why].name, qpn, len);
}

u64 sroce_counter_sat(struct sroce_dev *sdev, enum sroce_counter c, u64 max)
{
	return min_t(u64, atomic64_read(&sdev->counters[c]), max);
}

static void sroce_pma_snapshot(struct sroce_dev *sdev,
			       struct sroce_pma_counts *pc)
{
	atomic64_t *c = sdev->counters;

	pc->tx_bytes = atomic64_read(&c[SROCE_CNT_TX_BYTES]);
	pc->rx_bytes = atomic64_read(&c[SROCE_CNT_RX_BYTES]);
	pc->tx_packets = atomic64_read(&c[SROCE_CNT_TX_PACKETS]);
	pc->rx_packets = atomic64_read(&c[SROCE_CNT_RX_PACKETS]);
	pc->tx_discards = atomic64_read(&c[SROCE_CNT_TX_DROP]);
	/* Malformed on arrival: what a link would count as receive errors. */
	pc->rx_errors = atomic64_read(&c[SROCE_CNT_RX_DROP_SHORT]) +
			atomic64_read(&c[SROCE_CNT_RX_DROP_HEADER]) +
			atomic64_read(&c[SROCE_CNT_RX_DROP_ICRC]);
	/* The partition check is the constraint a RoCE port enforces. */
	pc->rx_constraint = atomic64_read(&c[SROCE_CNT_RX_DROP_PKEY]);
	pc->link_downed = atomic64_read(&c[SROCE_CNT_LINK_DOWNED]);
}

/* PortCounters: the narrow IBTA 1.0 fields; data in 4-byte words. */
static void sroce_pma_counters(const struct sroce_pma_counts *pc,
			       struct ib_pma_portcounters *p)
{
	p->link_downed_counter = min_t(u64, pc->link_downed, U8_MAX);
	p->port_rcv_errors = cpu_to_be16(min_t(u64, pc->rx_errors, U16_MAX));
	p->port_xmit_discards = cpu_to_be16(min_t(u64, pc->tx_discards, U16_MAX));
	p->port_rcv_constraint_errors = min_t(u64, pc->rx_constraint, U8_MAX);
	p->port_xmit_data = cpu_to_be32(min_t(u64, pc->tx_bytes / 4, U32_MAX));
	p->port_rcv_data = cpu_to_be32(min_t(u64, pc->rx_bytes / 4, U32_MAX));
	p->port_xmit_packets = cpu_to_be32(min_t(u64, pc->tx_packets, U32_MAX));
	p->port_rcv_packets = cpu_to_be32(min_t(u64, pc->rx_packets, U32_MAX));
}

/* PortCountersExtended: 64 bits each, no unicast/multicast split. */
static void sroce_pma_counters_ext(const struct sroce_pma_counts *pc,
				   struct ib_pma_portcounters_ext *p)
{
	p->port_xmit_data = cpu_to_be64(pc->tx_bytes / 4);
	p->port_rcv_data = cpu_to_be64(pc->rx_bytes / 4);
	p->port_xmit_packets = cpu_to_be64(pc->tx_packets);
	p->port_rcv_packets = cpu_to_be64(pc->rx_packets);
}

/* The PMA's attributes start 40 bytes into the MAD's data (IBTA 16.1.1). */
#define SROCE_PMA_DATA	40

/* Fill in the attribute a Get asks for; the MAD status of the answer. */
static u16 sroce_pma_get(const struct sroce_pma_counts *pc, u32 port,
			 const struct ib_mad *in, void *attr)
{
	const struct ib_mad_hdr *hdr = &in->mad_hdr;
	struct ib_class_port_info *cpi = attr;

	if (hdr->attr_id == IB_PMA_CLASS_PORT_INFO) {
		cpi->base_version = IB_MGMT_BASE_VERSION;
		cpi->class_version = 1;
		cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF;
		ib_set_cpi_resp_time(cpi, 18);	/* 4.096 us * 2^18: ~1 s */
		return 0;
	}
	if (hdr->attr_id != IB_PMA_PORT_COUNTERS &&
	    hdr->attr_id != IB_PMA_PORT_COUNTERS_EXT)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	/* Echo the selection (both attributes start alike): clients check it. */
	memcpy(attr, in->data + SROCE_PMA_DATA, 4);
	/* PortSelect, the second byte of either. */
	if (in->data[SROCE_PMA_DATA + 1] != port)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (hdr->attr_id == IB_PMA_PORT_COUNTERS)
		sroce_pma_counters(pc, attr);
	else
		sroce_pma_counters_ext(pc, attr);
	return 0;
}

int sroce_pma_answer(const struct sroce_pma_counts *pc, u32 port,
		     const struct ib_mad *in, struct ib_mad *out)
{
	const struct ib_mad_hdr *hdr = &in->mad_hdr;
	u16 status;

	if (hdr->mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    (hdr->method != IB_MGMT_METHOD_GET &&
	     hdr->method != IB_MGMT_METHOD_SET))
		return IB_MAD_RESULT_SUCCESS;

	memset(out, 0, sizeof(*out));
	out->mad_hdr = *hdr;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	if (hdr->base_version != IB_MGMT_BASE_VERSION || hdr->class_version != 1)
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	else if (hdr->method == IB_MGMT_METHOD_SET)
		/* Counters are shared with `rdma statistic`: never reset. */
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	else
		status = sroce_pma_get(pc, port, in, out->data + SROCE_PMA_DATA);
	out->mad_hdr.status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_pma_answer);

static int sroce_process_mad(struct ib_device *ibdev, int flags, u32 port,
			     const struct ib_wc *in_wc,
			     const struct ib_grh *in_grh,
			     const struct ib_mad *in, struct ib_mad *out,
			     size_t *out_size, u16 *out_pkey_index)
{
	struct sroce_pma_counts pc;

	if (in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT)
		return IB_MAD_RESULT_SUCCESS;
	if (*out_size < sizeof(*out))
		return IB_MAD_RESULT_FAILURE;
	sroce_pma_snapshot(to_sdev(ibdev), &pc);
	*out_size = sizeof(*out);
	return sroce_pma_answer(&pc, port, in, out);
}

static const struct ib_device_ops sroce_counter_ops = {
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.get_hw_stats = sroce_get_hw_stats,
	.process_mad = sroce_process_mad,
};

void sroce_set_counter_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_counter_ops);
}
