// SPDX-License-Identifier: GPL-2.0
/*
 * sroce module entry: the "sroce" link type of `rdma link add` and the
 * netdev notifier that keeps each device in step with its netdev.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/namei.h>
#include <linux/netdevice.h>
#include <rdma/rdma_netlink.h>

#include "device.h"
#include "icrc.h"
#include "opcode.h"
#include "sroce.h"
#include "tx.h"
#include "udp.h"
#include "v1.h"

static int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return sroce_dev_add(ibdev_name, ndev);
}

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;

	sdev = sroce_dev_get_by_netdev(ndev);
	if (!sdev)
		return NOTIFY_DONE;
	sroce_dev_netdev_event(sdev, event);
	ib_device_put(&sdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};

/*
 * rdma_rxe uses our driver id and our UDP port. Recent rdma_rxe opens the
 * port only when its first link is added, so the port alone does not tell
 * whether it is loaded; its sysfs node does.
 */
static bool sroce_rxe_loaded(void)
{
	struct path path;

	if (kern_path("/sys/module/rdma_rxe", LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}

static int __init sroce_init(void)
{
	int err;

	if (sroce_rxe_loaded()) {
		pr_err("rdma_rxe is loaded; it shares our driver id and UDP port %d: unload it first\n",
		       SROCE_UDP_PORT);
		return -EBUSY;
	}

	sroce_icrc_init();
	sroce_opcode_init();
	err = sroce_udp_init();
	if (err)
		return err;

	err = register_netdevice_notifier(&sroce_netdev_notifier);
	if (err)
		goto err_udp;

	sroce_v1_init();
	rdma_link_register(&sroce_link_ops);
	pr_info("loaded\n");
	return 0;

err_udp:
	sroce_udp_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	/* No new links, then no devices (this also waits for queued ones). */
	rdma_link_unregister(&sroce_link_ops);
	ib_unregister_driver(RDMA_DRIVER_RXE);
	/* Nothing left for netdev events to find, nor for packets to reach. */
	unregister_netdevice_notifier(&sroce_netdev_notifier);
	sroce_v1_exit();
	sroce_udp_exit();
	/* Packets of destroyed QPs still in the stack run our destructor. */
	sroce_tx_drain();
	pr_info("unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("The sroce authors");
MODULE_DESCRIPTION("Software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("sroce");
