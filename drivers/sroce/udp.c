// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 over UDP, receive side: one IPv4 and one IPv6 tunnel socket on
 * port 4791 in each network namespace. Datagrams are taken in the UDP
 * encap hook (softirq), as one datagram or one GRO list (gro.c), matched
 * to the device of the netdev they arrived on (or of the netdev under
 * that VLAN device) and handed to recv.c one by one. Datagrams the host
 * sends to itself never reach a socket: net.c hands them to the function
 * registered here (sroce_recv_local()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/udp.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "device.h"
#include "net.h"
#include "recv.h"
#include "sroce.h"
#include "udp.h"

/**
 * struct sroce_udp_ns - sroce's state in one network namespace
 * @sock4: IPv4 tunnel socket, or NULL if it could not be opened
 * @sock6: IPv6 tunnel socket, or NULL without IPv6
 */
struct sroce_udp_ns {
	struct socket *sock4;
	struct socket *sock6;
};

static unsigned int sroce_udp_net_id;

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev = sroce_dev_get_by_rx_netdev(skb->dev);
	struct sk_buff *list, *next;
	unsigned int bad, n;

	if (!sdev) {
		kfree_skb(skb);
		return 0;
	}
	/* The hook sees the datagram, or GRO's list, from its UDP header on. */
	list = sroce_gro_split(skb, &bad);
	if (bad) {
		/* Not whole datagrams of the flow: counted as received, and dropped. */
		sroce_count_n(sdev, SROCE_CNT_RX_PACKETS, bad);
		sroce_count_n(sdev, SROCE_CNT_RX_DROP_HEADER, bad);
	}
	__skb_pull(skb, sizeof(struct udphdr));
	sroce_recv(sdev, skb);
	for (n = 0; list; list = next, n++) {
		next = list->next;
		skb_mark_not_on_list(list);
		sroce_recv(sdev, list);
	}
	if (n || bad)
		sroce_count_n(sdev, SROCE_CNT_RX_GRO, 1 + n + bad);
	ib_device_put(&sdev->ibdev);
	return 0;
}

static struct socket *sroce_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tunnel = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg port = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.ipv6_v6only = ipv6,
		.local_udp_port = htons(SROCE_UDP_PORT),
	};
	struct socket *sock;
	int err;

	/* GRO's lists: IPv4 only, as the transmit chains. */
	if (!ipv6) {
		tunnel.gro_receive = sroce_gro_receive;
		tunnel.gro_complete = sroce_gro_complete;
	}
	err = udp_sock_create(net, &port, &sock);
	if (err)
		return ERR_PTR(err);
	sroce_setup_udp_tunnel_sock(net, sock, &tunnel);
	return sock;
}

static void __net_exit sroce_udp_ns_exit(struct net *net)
{
	struct sroce_udp_ns *sn = net_generic(net, sroce_udp_net_id);

	if (sn->sock6)
		sroce_udp_tunnel_sock_release(sn->sock6);
	if (sn->sock4)
		sroce_udp_tunnel_sock_release(sn->sock4);
	sn->sock6 = NULL;
	sn->sock4 = NULL;
}

static int __net_init sroce_udp_ns_init(struct net *net)
{
	struct sroce_udp_ns *sn = net_generic(net, sroce_udp_net_id);
	struct socket *sock;
	int err;

	sock = sroce_udp_open(net, false);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		goto err_sock4;
	}
	sn->sock4 = sock;

	sock = sroce_udp_open(net, true);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		/* A kernel or namespace without IPv6 still carries IPv4. */
		if (err != -EAFNOSUPPORT)
			goto err_sock6;
		sock = NULL;
	}
	sn->sock6 = sock;
	return 0;

err_sock6:
	sroce_udp_tunnel_sock_release(sn->sock4);
	sn->sock4 = NULL;
err_sock4:
	if (err == -EADDRINUSE) {
		pr_err("UDP port %d is in use (by rdma_rxe?)\n", SROCE_UDP_PORT);
		err = -EBUSY;
	} else {
		pr_err("cannot open UDP port %d: %d\n", SROCE_UDP_PORT, err);
	}
	/*
	 * Only the initial namespace may fail the module; another namespace
	 * must still be creatable, it just carries no RoCE traffic.
	 */
	return net_eq(net, &init_net) ? err : 0;
}

static struct pernet_operations sroce_udp_net_ops = {
	.init = sroce_udp_ns_init,
	.exit = sroce_udp_ns_exit,
	.id = &sroce_udp_net_id,
	.size = sizeof(struct sroce_udp_ns),
};

int sroce_udp_init(void)
{
	/* Before any device can send: the first socket opens next. */
	sroce_net_set_local_rx(sroce_recv_local);
	return register_pernet_subsys(&sroce_udp_net_ops);
}

void sroce_udp_exit(void)
{
	unregister_pernet_subsys(&sroce_udp_net_ops);
}
