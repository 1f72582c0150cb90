// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles. An AH is a RoCEv2 address: the source GID entry (held
 * by the RDMA core for the AH's life), the destination GID, flow label,
 * hop limit, traffic class and the destination MAC. The RDMA core fills
 * the MAC before we are called: for user AHs from the neighbour table
 * (ib_resolve_eth_dmac()), for kernel ones the consumer's address
 * resolution (rdma_cm) did. Packets are sent through the IP stack, whose
 * neighbour layer resolves the next hop again at transmit time.
 *
 * Every AH has a number, unique on the device: the rxe provider puts it
 * into UD send WQEs instead of a full address (rxe_create_ah_resp). The
 * table is read in the packet path, so it is IRQ-safe and an AH is copied
 * out under its lock: a destroy returns only once no reader holds it.
 */
#include <uapi/rdma/rdma_user_rxe.h>

#include "ah.h"
#include "net.h"
#include "sroce.h"

/**
 * struct sroce_ah - an address handle
 * @ibah: the RDMA core's AH; must stay first
 * @av: the address, without a GID reference of its own (@ibah holds it)
 * @ah_num: number of the AH in the device's table, from 1
 */
struct sroce_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr av;
	u32 ah_num;
};

static struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

static int sroce_ah_check(const struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *sgid = attr->grh.sgid_attr;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(attr) != SROCE_PORT_NUM)
		return -EINVAL;
	/*
	 * RoCEv2 GIDs, and RoCE v1 ones on a device with roce_v1: the core
	 * adds no other type to our port, so anything else is a bug upstream.
	 */
	if (!sgid || (sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP &&
		      sgid->gid_type != IB_GID_TYPE_ROCE))
		return -EINVAL;
	return 0;
}

static int sroce_ah_number(struct sroce_dev *sdev, struct sroce_ah *ah,
			   bool sleepable)
{
	const struct xa_limit range = XA_LIMIT(1, SROCE_MAX_AH);
	unsigned long flags;
	int err;

	if (sleepable) {
		err = xa_alloc_irq(&sdev->ahs, &ah->ah_num, ah, range, GFP_KERNEL);
	} else {
		xa_lock_irqsave(&sdev->ahs, flags);
		err = __xa_alloc(&sdev->ahs, &ah->ah_num, ah, range, GFP_ATOMIC);
		xa_unlock_irqrestore(&sdev->ahs, flags);
	}
	/* A full table is the device's AH limit (query_device max_ah). */
	return err == -EBUSY ? -ENOMEM : err;
}

static int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct rxe_create_ah_resp resp = {};
	unsigned long flags;
	int err;

	err = sroce_ah_check(init->ah_attr);
	if (err)
		return err;
	if (udata && (udata->inlen || udata->outlen < sizeof(resp)))
		return -EINVAL;

	err = sroce_ah_number(sdev, ah, init->flags & RDMA_CREATE_AH_SLEEPABLE);
	if (err)
		return err;
	ah->av = *init->ah_attr;
	ah->av.grh.sgid_attr = NULL;
	if (udata) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_num;
	}
	return 0;

err_num:
	xa_lock_irqsave(&sdev->ahs, flags);
	__xa_erase(&sdev->ahs, ah->ah_num);
	xa_unlock_irqrestore(&sdev->ahs, flags);
	return err;
}

static int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	/* The core puts no GID reference into a queried address. */
	*attr = to_sah(ibah)->av;
	return 0;
}

static int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	unsigned long irqflags;

	/* May be called in atomic context (no RDMA_DESTROY_AH_SLEEPABLE). */
	xa_lock_irqsave(&sdev->ahs, irqflags);
	__xa_erase(&sdev->ahs, to_sah(ibah)->ah_num);
	xa_unlock_irqrestore(&sdev->ahs, irqflags);
	return 0;
}

u32 sroce_ah_num(const struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah)->ah_num;
}

int sroce_ah_path(struct sroce_dev *sdev, u32 ah_num, const struct ib_pd *pd,
		  u32 lqpn, u32 rqpn, struct sroce_path *path)
{
	const struct ib_gid_attr *sgid;
	struct sroce_ah *ah;
	unsigned long flags;
	int err = -EINVAL;

	/* Under the table's lock the AH cannot be destroyed and freed. */
	xa_lock_irqsave(&sdev->ahs, flags);
	ah = xa_load(&sdev->ahs, ah_num);
	/* AH numbers are device-wide: another process's are not ours. */
	sgid = ah && ah->ibah.pd == pd ? ah->ibah.sgid_attr : NULL;
	if (sgid) {
		sroce_path_from_av(path, &ah->av, &sgid->gid, lqpn, rqpn);
		sroce_path_set_netdev(path, sdev, sgid);
		err = 0;
	}
	xa_unlock_irqrestore(&sdev->ahs, flags);
	return err;
}

static const struct ib_device_ops sroce_ah_ops = {
	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_ah,
	.query_ah = sroce_query_ah,
	.destroy_ah = sroce_destroy_ah,
	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
};

void sroce_set_ah_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_ah_ops);
}
