/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce: a software RoCEv2 device. What every file of the module shares:
 * the device's limits, its counters, the device object itself and the
 * count of its objects. Each .c file declares its own interface in the
 * header of its name.
 */
#ifndef _SROCE_H
#define _SROCE_H

#include <linux/atomic.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "cc.h"
#include "pkey.h"

#define SROCE_UDP_PORT		4791	/* IANA RoCEv2 */
#define SROCE_PORT_NUM		1
#define SROCE_GID_TABLE_LEN	1024
#define SROCE_MAX_MSG_SIZE	BIT(31)	/* IBTA limit for one message */
#define SROCE_UVERBS_ABI	2	/* rdma-core's rxe provider */

/*
 * Memory a verb takes on its caller's behalf, in amounts the caller picks
 * or multiplies: charged to the caller's memory cgroup. A cgroup at its
 * limit fails the verb with -ENOMEM, quietly, instead of waking its OOM
 * killer (a user asking for too much is not an emergency).
 */
#define SROCE_GFP_ACCOUNT	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* Device limits: what query_device reports and every create enforces. */
#define SROCE_MAX_PD		0x10000
#define SROCE_MAX_CQ		0x4000
#define SROCE_MAX_CQE		0x7fff
#define SROCE_QUEUE_MAX_SLOTS	0x8000	/* any ring, one slot kept empty */
#define SROCE_MAX_MR		0x10000	/* in a table of 2^24 key indexes */
#define SROCE_MAX_MW		0x10000	/* in the same table */
#define SROCE_MAX_AH		0x8000
#define SROCE_MAX_MCAST_GRP	256
#define SROCE_MAX_MCAST_QP_ATTACH 32	/* per group */
#define SROCE_MAX_QP		0x4000
#define SROCE_MAX_QP_WR		0x4000
#define SROCE_MAX_SGE		32
#define SROCE_MAX_INLINE	512
#define SROCE_MAX_RD_ATOMIC	128	/* per QP, each direction */
#define SROCE_MAX_SRQ		0x4000
#define SROCE_MAX_SRQ_WR	SROCE_MAX_QP_WR
#define SROCE_MAX_SRQ_SGE	SROCE_MAX_SGE
/*
 * The GSI QP's number, and the BTH destination QP of every multicast
 * datagram (IBTA 9.5.1).
 */
#define SROCE_QPN_GSI		1
#define SROCE_QPN_MULTICAST	0xffffff

/**
 * enum sroce_counter - per-device counters shown by `rdma statistic`
 * @SROCE_CNT_RX_PACKETS: RoCEv2 datagrams received for this device
 * @SROCE_CNT_RX_BYTES: their bytes, BTH to ICRC (the UDP payload)
 * @SROCE_CNT_RX_DROP_SHORT: dropped: shorter than its headers, pad and ICRC
 * @SROCE_CNT_RX_DROP_HEADER: dropped: transport version not 0, or pad
 *	without payload
 * @SROCE_CNT_RX_DROP_OPCODE: dropped: opcode unknown, or not of the
 *	destination QP's transport
 * @SROCE_CNT_RX_DROP_ICRC: dropped: ICRC mismatch
 * @SROCE_CNT_RX_DROP_PKEY: dropped: P_Key invalid (partition 0), or not
 *	matching the destination QP's partition (for the GSI QP: any entry of
 *	the port's table)
 * @SROCE_CNT_RX_DROP_NO_QP: dropped: no QP to deliver to
 * @SROCE_CNT_RX_DROP_QP_STATE: dropped: the QP is not in a receiving state
 * @SROCE_CNT_RX_DROP_PATH: dropped: for a connected (RC, UC) QP, but not
 *	from its peer (source and destination address, or in this host the
 *	sending QP, not the QP's path)
 * @SROCE_CNT_RX_DROP_QKEY: UD datagrams dropped: Q_Key not the QP's
 * @SROCE_CNT_RX_DROP_NO_RECV: UD datagrams and UC messages dropped: no
 *	receive WQE posted
 * @SROCE_CNT_RX_DROP_LENGTH: UD datagrams dropped: payload larger than
 *	the port MTU, or than the receive WQE (which stays posted)
 * @SROCE_CNT_RX_DROP_MCAST: multicast datagrams dropped: no QP of ours
 *	attached to the group, or the multicast QPN to a unicast address (or
 *	the reverse)
 * @SROCE_CNT_RX_UNHANDLED: passed every check; no engine takes it yet
 * @SROCE_CNT_RX_DUP_REQUEST: duplicate requests (PSN behind), ACKed again
 * @SROCE_CNT_RX_SEQ_GAP: RC requests past the expected PSN (a gap); UC packets
 *	at any PSN but the expected one
 * @SROCE_CNT_RX_NAK_SEQ: sequence error NAKs received
 * @SROCE_CNT_RX_RNR_NAK: RNR NAKs received
 * @SROCE_CNT_RX_BAD_RESPONSE: responses matching no outstanding request
 *	(PSN, kind or length; an error or RNR NAK of a PSN acknowledged
 *	already), dropped
 * @SROCE_CNT_RX_NAK_ERROR: NAKs received for a remote error (invalid
 *	request, remote access, remote operational); each fails a send WQE
 * @SROCE_CNT_RX_DUP_RESPONSE: responses for what was already completed
 *	or placed (after a retransmission), dropped
 * @SROCE_CNT_RX_IMPLIED_NAK: responses past the one awaited (IBTA's
 *	implied NAK), each asking for a retransmission
 * @SROCE_CNT_RX_READ_AHEAD: read responses that arrived ahead of the one
 *	awaited and were placed all the same (reordering)
 * @SROCE_CNT_ACK_TIMEOUT: local ACK timeouts that led to a retransmission
 * @SROCE_CNT_ACK_HELD: local ACK timeouts held back: the QP's packets were
 *	still in this host's qdisc or NIC ring (SROCE_ACK_HOLD)
 * @SROCE_CNT_TX_REWIND: times the requester went back to send again
 * @SROCE_CNT_TX_RETRANSMIT: request packets sent again
 * @SROCE_CNT_TX_NAK_SEQ: sequence error NAKs sent
 * @SROCE_CNT_TX_NAK_ERROR: NAKs sent for an error of the request; each
 *	puts the QP in ERR
 * @SROCE_CNT_TX_RNR_NAK: RNR NAKs sent (no receive WQE posted)
 * @SROCE_CNT_TX_PACKETS: packets handed to the IP stack (or, for an
 *	address of this host, to the receive path)
 * @SROCE_CNT_TX_BYTES: their bytes, BTH to ICRC (the UDP payload)
 * @SROCE_CNT_TX_DROP: packets that could not be sent (no route, no
 *	memory), and UD sends larger than the port MTU (IBTA C10-93.1.1:
 *	completed, nothing sent)
 * @SROCE_CNT_TX_WAIT_WINDOW: times a requester stopped with the window of
 *	unacknowledged PSNs full
 * @SROCE_CNT_TX_WAIT_QUEUE: times an engine stopped with its limit
 *	(sroce_tx_limit()) of its packets in the IP stack and the NIC
 * @SROCE_CNT_TX_WINDOW_PROBE: times a requester's window grew past its
 *	ceiling (a clean path with a short round trip)
 * @SROCE_CNT_TX_ZCOPY: packets whose payload went out of a user MR's pages
 *	without a copy (the tx_zcopy parameter)
 * @SROCE_CNT_RX_GRO: datagrams that came in a list GRO gathered (the gro
 *	parameter), the first of each list included
 * @SROCE_CNT_RX_DROP_UC_MSG: UC messages dropped whole: a PSN gap or a
 *	packet out of sequence, no receive WQE, or a remote error (rkey,
 *	access, length); UC has no NAK
 * @SROCE_CNT_LINK_DOWNED: times the port went from active to down (the
 *	netdev lost its carrier or was set down)
 * @SROCE_CNT_NP_ECN_MARKED: packets off the wire for a QP with CE in
 *	their IP header (Documentation/congestion.rst)
 * @SROCE_CNT_NP_CNP_SENT: CNPs sent for them
 * @SROCE_CNT_RP_CNP_HANDLED: CNPs received by a QP whose reaction point
 *	is on (each raises α; the rate falls unless it fell just before)
 * @SROCE_CNT_RP_CNP_IGNORED: CNPs received by a QP whose reaction point
 *	is off
 * @SROCE_CNT_TX_WAIT_RATE: times an engine stopped for its QP's rate
 *	(DCQCN or IB_QP_RATE_LIMIT)
 * @SROCE_NUM_COUNTERS: number of counters
 *
 * The order of the ingress checks is recv.c's.
 */
enum sroce_counter {
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_RX_BYTES,
	SROCE_CNT_RX_DROP_SHORT,
	SROCE_CNT_RX_DROP_HEADER,
	SROCE_CNT_RX_DROP_OPCODE,
	SROCE_CNT_RX_DROP_ICRC,
	SROCE_CNT_RX_DROP_PKEY,
	SROCE_CNT_RX_DROP_NO_QP,
	SROCE_CNT_RX_DROP_QP_STATE,
	SROCE_CNT_RX_DROP_PATH,
	SROCE_CNT_RX_DROP_QKEY,
	SROCE_CNT_RX_DROP_NO_RECV,
	SROCE_CNT_RX_DROP_LENGTH,
	SROCE_CNT_RX_DROP_MCAST,
	SROCE_CNT_RX_UNHANDLED,
	SROCE_CNT_RX_DUP_REQUEST,
	SROCE_CNT_RX_SEQ_GAP,
	SROCE_CNT_RX_NAK_SEQ,
	SROCE_CNT_RX_RNR_NAK,
	SROCE_CNT_RX_BAD_RESPONSE,
	SROCE_CNT_RX_NAK_ERROR,
	SROCE_CNT_RX_DUP_RESPONSE,
	SROCE_CNT_RX_IMPLIED_NAK,
	SROCE_CNT_RX_READ_AHEAD,
	SROCE_CNT_ACK_TIMEOUT,
	SROCE_CNT_ACK_HELD,
	SROCE_CNT_TX_REWIND,
	SROCE_CNT_TX_RETRANSMIT,
	SROCE_CNT_TX_NAK_SEQ,
	SROCE_CNT_TX_NAK_ERROR,
	SROCE_CNT_TX_RNR_NAK,
	SROCE_CNT_TX_PACKETS,
	SROCE_CNT_TX_BYTES,
	SROCE_CNT_TX_DROP,
	SROCE_CNT_TX_WAIT_WINDOW,
	SROCE_CNT_TX_WAIT_QUEUE,
	SROCE_CNT_TX_WINDOW_PROBE,
	SROCE_CNT_TX_ZCOPY,
	SROCE_CNT_RX_GRO,
	SROCE_CNT_RX_DROP_UC_MSG,
	SROCE_CNT_LINK_DOWNED,
	SROCE_CNT_NP_ECN_MARKED,
	SROCE_CNT_NP_CNP_SENT,
	SROCE_CNT_RP_CNP_HANDLED,
	SROCE_CNT_RP_CNP_IGNORED,
	SROCE_CNT_TX_WAIT_RATE,
	SROCE_NUM_COUNTERS
};

/**
 * enum sroce_obj - objects whose number per device is limited
 * @SROCE_OBJ_PD: protection domains
 * @SROCE_OBJ_CQ: completion queues
 * @SROCE_OBJ_MR: memory regions
 * @SROCE_OBJ_QP: queue pairs
 * @SROCE_OBJ_SRQ: shared receive queues
 * @SROCE_OBJ_MW: memory windows
 * @SROCE_NUM_OBJ: number of kinds
 */
enum sroce_obj {
	SROCE_OBJ_PD,
	SROCE_OBJ_CQ,
	SROCE_OBJ_MR,
	SROCE_OBJ_QP,
	SROCE_OBJ_SRQ,
	SROCE_OBJ_MW,
	SROCE_NUM_OBJ
};

struct sroce_tx_pool;
struct page_pool;

/**
 * struct sroce_dev - one sroce RDMA device, bound to one Ethernet netdev
 * @ibdev: the RDMA core's device; must stay first (ib_alloc_device)
 * @ndev: the netdev carrying our traffic; a reference is held until the
 *	RDMA core calls dealloc_driver
 * @ndev_tracker: tracker of that reference
 * @port_state: port state last reported by an IB event; written under RTNL
 * @active_mtu: IB MTU derived from the netdev MTU; written under RTNL,
 *	read locklessly
 * @pkeys: the port's P_Key table (pkey.c), read locklessly
 * @counters: &enum sroce_counter values, updated from softirq
 * @mr_keys: MRs by the 24-bit index of their key (mr.c); the indexes of
 *	memory windows are reserved there too
 * @mw_keys: memory windows by the 24-bit index of their rkey (mw.c)
 * @qps: QPs by number (qp.c, qp_verbs.c)
 * @srqs: SRQs by number (srq.c)
 * @ahs: AHs by number (ah.c); IRQ-safe, the packet path reads it
 * @objs: how many of each &enum sroce_obj exist
 * @mcg_mutex: serialises multicast attach and detach (mcast.c)
 * @mcg_lock: guards @mcgs and the groups' members for the packet path
 * @mcgs: the multicast groups with QPs attached
 * @nmcg: how many (under @mcg_mutex)
 * @tx_pool: what its QPs have queued together (tx.h); the device
 *	holds a reference until dealloc_driver
 * @tx_pages: pages for packets sent, recycled when the stack frees them
 *	(sroce_net_alloc_skb_reuse()), or NULL
 * @tx_frags: pages cut into pieces for packets of up to 2 KiB
 *	(sroce_net_alloc_skb()), recycled alike, or NULL
 * @tx_pages_lock: serialises allocations from @tx_pages and @tx_frags (a
 *	page pool takes one consumer at a time)
 * @cc: congestion control parameters (cc.h, the cc/ sysfs files)
 * @roce_v1: the port speaks RoCE v1 too (the roce_v1 module parameter
 *	when the device was added); fixed for the device's life
 */
struct sroce_dev {
	struct ib_device ibdev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;
	struct sroce_pkey_table pkeys;
	atomic64_t counters[SROCE_NUM_COUNTERS];
	struct xarray mr_keys;
	struct xarray mw_keys;
	struct xarray qps;
	struct xarray srqs;
	struct xarray ahs;
	atomic_t objs[SROCE_NUM_OBJ];
	struct mutex mcg_mutex;	/* see the kernel-doc above */
	spinlock_t mcg_lock;	/* see the kernel-doc above */
	struct list_head mcgs;
	u32 nmcg;
	struct sroce_tx_pool *tx_pool;
	struct page_pool *tx_pages;
	struct page_pool *tx_frags;
	spinlock_t tx_pages_lock;	/* see the kernel-doc above */
	struct sroce_cc_dev cc;
	bool roce_v1;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	atomic64_inc(&sdev->counters[c]);
}

static inline void sroce_count_n(struct sroce_dev *sdev, enum sroce_counter c,
				 unsigned int n)
{
	atomic64_add(n, &sdev->counters[c]);
}

/* How many of each &enum sroce_obj a device may have (query_device's). */
static inline u32 sroce_obj_limit(enum sroce_obj kind)
{
	switch (kind) {
	case SROCE_OBJ_PD:
		return SROCE_MAX_PD;
	case SROCE_OBJ_CQ:
		return SROCE_MAX_CQ;
	case SROCE_OBJ_MR:
		return SROCE_MAX_MR;
	case SROCE_OBJ_QP:
		return SROCE_MAX_QP;
	case SROCE_OBJ_SRQ:
		return SROCE_MAX_SRQ;
	case SROCE_OBJ_MW:
		return SROCE_MAX_MW;
	default:
		return 0;
	}
}

/**
 * sroce_obj_take() - count one more object of a kind, within the limit
 * @sdev: the device
 * @kind: the kind of object being created
 *
 * Context: any.
 * Return: 0, or -ENOMEM when the device's limit (query_device) is reached.
 */
static inline int sroce_obj_take(struct sroce_dev *sdev, enum sroce_obj kind)
{
	if (atomic_inc_return(&sdev->objs[kind]) > sroce_obj_limit(kind)) {
		atomic_dec(&sdev->objs[kind]);
		return -ENOMEM;
	}
	return 0;
}

/**
 * sroce_obj_put() - count one object of a kind less
 * @sdev: the device
 * @kind: the kind of object destroyed
 *
 * Context: any.
 */
static inline void sroce_obj_put(struct sroce_dev *sdev, enum sroce_obj kind)
{
	atomic_dec(&sdev->objs[kind]);
}

#endif /* _SROCE_H */
