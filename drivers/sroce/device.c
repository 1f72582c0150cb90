// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA device: registration with the RDMA core, the device and port
 * queries and the port's life with its netdev (its counters: counters.c).
 *
 * Lifetime: sroce_dev_add() takes a netdev reference and registers the
 * device. It ends in one of three ways, all through the RDMA core: `rdma
 * link delete` (IBK_ALLOW_USER_UNREG), the netdev going away (queued
 * unregistration from the notifier) or module exit (ib_unregister_driver).
 * In each the core calls sroce_dealloc_driver(), which drops the netdev
 * reference, and then frees the memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#include "cc.h"
#include "counters.h"
#include "device.h"
#include "mcast.h"
#include "mr.h"
#include "net.h"
#include "odp.h"
#include "pkey.h"
#include "qp.h"
#include "sroce.h"
#include "tx.h"
#include "verbs.h"

/*
 * What the device offers; every create checks against the same limits.
 * Only what exists is claimed.
 */
static const struct ib_device_attr sroce_caps = {
	.vendor_id = 0xffffff,		/* IEEE: no OUI assigned */
	.hw_ver = 1,
	.page_size_cap = ~(u64)(SZ_4K - 1),
	.device_cap_flags = IB_DEVICE_SYS_IMAGE_GUID | IB_DEVICE_MEM_MGT_EXTENSIONS |
			    IB_DEVICE_SRQ_RESIZE | IB_DEVICE_RC_RNR_NAK_GEN |
			    IB_DEVICE_PORT_ACTIVE_EVENT | IB_DEVICE_BAD_PKEY_CNTR |
			    IB_DEVICE_BAD_QKEY_CNTR | IB_DEVICE_MEM_WINDOW |
			    IB_DEVICE_MEM_WINDOW_TYPE_2B | IB_DEVICE_FLUSH_GLOBAL |
			    IB_DEVICE_FLUSH_PERSISTENT | IB_DEVICE_ATOMIC_WRITE,
	.kernel_cap_flags = IBK_ALLOW_USER_UNREG | SROCE_ODP_KERNEL_CAP,
	/* RC, and UD sends; explicit MRs only (Documentation/verbs.rst). */
	.odp_caps = {
		.general_caps = SROCE_ODP_GENERAL_CAPS,
		.per_transport_caps.rc_odp_caps = SROCE_ODP_RC_CAPS,
		.per_transport_caps.ud_odp_caps = SROCE_ODP_UD_CAPS,
	},
	.atomic_cap = IB_ATOMIC_HCA,
	.local_ca_ack_delay = 15,
	.max_pkeys = SROCE_PKEY_TABLE_LEN,

	.max_pd = SROCE_MAX_PD,
	.max_cq = SROCE_MAX_CQ,
	.max_cqe = SROCE_MAX_CQE,
	.max_mr = SROCE_MAX_MR,
	.max_mr_size = SROCE_MAX_MR_SIZE,
	.max_mw = SROCE_MAX_MW,
	.max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES,
	.max_qp = SROCE_MAX_QP,
	.max_qp_wr = SROCE_MAX_QP_WR,
	.max_send_sge = SROCE_MAX_SGE,
	.max_recv_sge = SROCE_MAX_SGE,
	.max_sge_rd = SROCE_MAX_SGE,
	.max_qp_rd_atom = SROCE_MAX_RD_ATOMIC,
	.max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC,
	.max_srq = SROCE_MAX_SRQ,
	.max_srq_wr = SROCE_MAX_SRQ_WR,
	.max_srq_sge = SROCE_MAX_SRQ_SGE,
	.max_ah = SROCE_MAX_AH,
	.max_mcast_grp = SROCE_MAX_MCAST_GRP,
	.max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH,
	.max_total_mcast_qp_attach = SROCE_MAX_MCAST_GRP * SROCE_MAX_MCAST_QP_ATTACH,
};

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	/* The rxe ABI defines no driver data for this command. */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	*attr = sroce_caps;
	attr->sys_image_guid = ibdev->node_guid;
	return 0;
}

static enum ib_port_state sroce_netdev_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static int sroce_query_port(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	enum ib_port_state state = sroce_netdev_port_state(sdev->ndev);

	/* The core has zeroed *attr. */
	attr->state = state;
	attr->phys_state = state == IB_PORT_ACTIVE ?
		IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = READ_ONCE(sdev->active_mtu);
	attr->gid_tbl_len = SROCE_GID_TABLE_LEN;
	attr->pkey_tbl_len = SROCE_PKEY_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SIZE;
	/* PortInfo's P_Key and Q_Key violation counters: 16 bits. */
	attr->bad_pkey_cntr = sroce_counter_sat(sdev, SROCE_CNT_RX_DROP_PKEY,
						U16_MAX);
	attr->qkey_viol_cntr = sroce_counter_sat(sdev, SROCE_CNT_RX_DROP_QKEY,
						 U16_MAX);
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->max_vl_num = 1;
	/*
	 * The core lets go of the port's netdev when it unregisters, before
	 * the unregistration it queued for us has run: the port is down then,
	 * and a query of it must not fail.
	 */
	if (ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			    u16 *pkey)
{
	if (index >= SROCE_PKEY_TABLE_LEN)
		return -EINVAL;
	*pkey = sroce_pkey_get(&to_sdev(ibdev)->pkeys, index);
	return 0;
}

/*
 * RoCE v1 on the devices created from now on: read by sroce_dev_add() only,
 * as the port's capabilities are read once, when the device registers.
 */
static bool sroce_roce_v1;
module_param_named(roce_v1, sroce_roce_v1, bool, 0644);
MODULE_PARM_DESC(roce_v1, "devices added from now on speak RoCE v1 (EtherType 0x8915) beside RoCEv2 (default: off)");

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	/* The RDMA core adds a GID of each type the port has. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	if (to_sdev(ibdev)->roce_v1)
		immutable->core_cap_flags |= RDMA_CORE_PORT_IBA_ROCE;
	immutable->pkey_tbl_len = SROCE_PKEY_TABLE_LEN;
	immutable->gid_tbl_len = SROCE_GID_TABLE_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	if (sdev->ndev)
		netdev_put(sdev->ndev, &sdev->ndev_tracker);
	if (sdev->tx_pool)
		sroce_tx_pool_put(sdev->tx_pool);
	sroce_net_pages_free(sdev);
	/* Every MR was deregistered before the device could go. */
	WARN_ON(!xa_empty(&sdev->mr_keys) || !xa_empty(&sdev->mw_keys) ||
		!xa_empty(&sdev->qps) ||
		!xa_empty(&sdev->srqs) || !xa_empty(&sdev->ahs) ||
		!list_empty(&sdev->mcgs));
	mutex_destroy(&sdev->mcg_mutex);
	xa_destroy(&sdev->mr_keys);
	xa_destroy(&sdev->mw_keys);
	xa_destroy(&sdev->qps);
	xa_destroy(&sdev->srqs);
	xa_destroy(&sdev->ahs);
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SROCE_UVERBS_ABI,
	.dealloc_driver = sroce_dealloc_driver,

	.query_device = sroce_query_device,
	.get_port_immutable = sroce_get_port_immutable,
	.get_link_layer = sroce_get_link_layer,
	.query_port = sroce_query_port,
	.query_pkey = sroce_query_pkey,
	.device_group = &sroce_pkey_attr_group,
};

static bool sroce_netdev_usable(struct net_device *ndev)
{
	return ndev->type == ARPHRD_ETHER && !(ndev->flags & IFF_LOOPBACK) &&
	       ndev->addr_len == ETH_ALEN;
}

struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct ib_device *ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);

	/*
	 * rdma_rxe shares the driver id but cannot be loaded next to us
	 * (main.c), so every device with that id is ours.
	 */
	return ibdev ? to_sdev(ibdev) : NULL;
}

struct sroce_dev *sroce_dev_get_by_rx_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev = sroce_dev_get_by_netdev(ndev);
	struct net_device *lower;

	if (sdev || !is_vlan_dev(ndev))
		return sdev;
	/* A VLAN device moved to another namespace carries that one's traffic. */
	lower = vlan_dev_real_dev(ndev);
	return net_eq(dev_net(lower), dev_net(ndev)) ?
		sroce_dev_get_by_netdev(lower) : NULL;
}

static void sroce_port_event(struct sroce_dev *sdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SROCE_PORT_NUM,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/* Bring the port in step with its netdev; raise an event on a change. */
static void sroce_dev_sync_port(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_netdev_port_state(sdev->ndev);

	ASSERT_RTNL();

	WRITE_ONCE(sdev->active_mtu, iboe_get_mtu(READ_ONCE(sdev->ndev->mtu)));
	if (state == sdev->port_state)
		return;
	if (sdev->port_state == IB_PORT_ACTIVE)
		sroce_count(sdev, SROCE_CNT_LINK_DOWNED);
	sdev->port_state = state;
	sroce_port_event(sdev, state == IB_PORT_ACTIVE ?
			 IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
	ibdev_info(&sdev->ibdev, "port %s\n",
		   state == IB_PORT_ACTIVE ? "active" : "down");
}

/* The netdev is going: the port is down for good, whatever its flags say. */
static void sroce_dev_port_gone(struct sroce_dev *sdev)
{
	ASSERT_RTNL();

	if (sdev->port_state != IB_PORT_ACTIVE)
		return;
	sroce_count(sdev, SROCE_CNT_LINK_DOWNED);
	sdev->port_state = IB_PORT_DOWN;
	sroce_port_event(sdev, IB_EVENT_PORT_ERR);
	ibdev_info(&sdev->ibdev, "port down: netdev going away\n");
}

void sroce_dev_netdev_event(struct sroce_dev *sdev, unsigned long event)
{
	ASSERT_RTNL();

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Deleted, or moved to another namespace (its old one gone
		 * included): the port can never carry a packet again. Flush
		 * every QP now, so that consumers waiting on their work
		 * requests learn it at once and let go of the device, whose
		 * unregistration waits for them. A carrier drop does not come
		 * here: RoCE QPs outlive a link flap.
		 */
		sroce_dev_port_gone(sdev);
		sroce_qp_fail_all(sdev);
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		sroce_dev_sync_port(sdev);
		break;
	default:
		break;
	}
}

static int sroce_dev_setup(struct sroce_dev *sdev, struct net_device *ndev)
{
	struct ib_device *ibdev = &sdev->ibdev;
	int err;

	sdev->ndev = ndev;
	sdev->roce_v1 = READ_ONCE(sroce_roce_v1);
	xa_init(&sdev->mr_keys);
	xa_init(&sdev->mw_keys);
	xa_init(&sdev->qps);
	xa_init_flags(&sdev->srqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, ndev->dev_addr);
	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &sroce_dev_ops);
	sroce_set_counter_ops(ibdev);
	sroce_cc_dev_init(&sdev->cc);
	sroce_set_verbs_ops(ibdev);
	sroce_mcast_init(sdev);
	sroce_pkey_table_init(&sdev->pkeys);

	/* First guesses; sroce_dev_add() syncs them under RTNL. */
	sdev->port_state = sroce_netdev_port_state(ndev);
	sdev->active_mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));

	sdev->tx_pool = sroce_tx_pool_new();
	if (!sdev->tx_pool)
		return -ENOMEM;
	err = sroce_net_pages_init(sdev);
	if (err)
		return err;
	return ib_device_set_netdev(ibdev, ndev, SROCE_PORT_NUM);
}

int sroce_dev_add(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	if (!sroce_netdev_usable(ndev)) {
		pr_err("%s: not an Ethernet device; sroce needs one\n",
		       netdev_name(ndev));
		return -EINVAL;
	}
	sdev = sroce_dev_get_by_netdev(ndev);
	if (sdev) {
		pr_err("%s: already has RDMA device %s\n", netdev_name(ndev),
		       dev_name(&sdev->ibdev.dev));
		ib_device_put(&sdev->ibdev);
		return -EEXIST;
	}

	/* In exclusive mode, in the netdev's namespace where the kernel can. */
	sdev = sroce_ib_alloc_device_in(sroce_dev, ibdev, dev_net(ndev));
	if (!sdev)
		return -ENOMEM;

	err = sroce_dev_setup(sdev, ndev);
	if (err)
		goto err_unbind;

	/* From here on the reference is dropped by sroce_dealloc_driver(). */
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	err = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (err)
		goto err_dealloc;
	err = sroce_cc_sysfs_add(&sdev->ibdev);
	if (err) {
		/* Calls sroce_dealloc_driver() and frees the device. */
		ib_unregister_device(&sdev->ibdev);
		return err;
	}

	/*
	 * Netdev events that came while we registered found no device: the
	 * netdev may even be on its way out. Catch up with it now.
	 */
	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED)
		ib_unregister_device_queued(&sdev->ibdev);
	else
		sroce_dev_sync_port(sdev);
	rtnl_unlock();

	ibdev_info(&sdev->ibdev, "attached to %s%s\n", netdev_name(ndev),
		   sdev->roce_v1 ? ", RoCE v1 and v2" : "");
	return 0;

err_unbind:
	sdev->ndev = NULL;	/* no reference taken yet */
err_dealloc:
	/* Calls sroce_dealloc_driver(). */
	ib_dealloc_device(&sdev->ibdev);
	return err;
}
