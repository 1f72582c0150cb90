/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA device: its creation on a netdev, the port it follows, the
 * queries of ib_device_ops (device.c).
 */
#ifndef _SROCE_DEVICE_H
#define _SROCE_DEVICE_H

#include <linux/netdevice.h>

struct sroce_dev;

/**
 * sroce_dev_add() - create and register the RDMA device of a netdev
 * @ibdev_name: name asked for by `rdma link add`
 * @ndev: an Ethernet netdev, referenced by the caller
 *
 * Context: process context, RTNL not held.
 * Return: 0, or -EINVAL for a netdev that is not Ethernet, -EEXIST when
 * the netdev already has an RDMA device, another errno from the RDMA core.
 */
int sroce_dev_add(const char *ibdev_name, struct net_device *ndev);

/**
 * sroce_dev_netdev_event() - follow a change of the netdev under a device
 * @sdev: the device bound to the netdev
 * @event: a NETDEV_* notifier event
 *
 * When the netdev goes away (deleted, or moved to another namespace), the
 * port goes down, every QP is flushed to ERR with IB_EVENT_QP_FATAL and
 * the device's unregistration is queued; the IB port events follow the
 * port up and down, and a carrier drop leaves the QPs alone.
 *
 * Context: process context, RTNL held.
 */
void sroce_dev_netdev_event(struct sroce_dev *sdev, unsigned long event);

/**
 * sroce_dev_get_by_netdev() - look up the device bound to a netdev
 * @ndev: any netdev
 *
 * Context: any context.
 * Return: the device with a reference the caller drops with
 * ib_device_put(), or NULL.
 */
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev);

/**
 * sroce_dev_get_by_rx_netdev() - the device a received packet is for
 * @ndev: the netdev it arrived on
 *
 * That of @ndev, or of the netdev below when @ndev is a VLAN device in the
 * same network namespace (the RDMA core puts a VLAN's GIDs on the lower
 * netdev's port).
 *
 * Context: any context.
 * Return: as sroce_dev_get_by_netdev().
 */
struct sroce_dev *sroce_dev_get_by_rx_netdev(struct net_device *ndev);

#endif /* _SROCE_DEVICE_H */
