// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 over UDP: one IPv4 and one IPv6 tunnel socket on port 4791 in each
 * network namespace. Datagrams are taken in the UDP encap hook (softirq),
 * matched to the device of the netdev they arrived on and handed to recv.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/udp.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "sroce.h"

/**
 * struct sroce_net - sroce's state in one network namespace
 * @sock4: IPv4 tunnel socket, or NULL if it could not be opened
 * @sock6: IPv6 tunnel socket, or NULL without IPv6
 */
struct sroce_net {
	struct socket *sock4;
	struct socket *sock6;
};

static unsigned int sroce_net_id;

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev = sroce_dev_get_by_netdev(skb->dev);

	if (!sdev) {
		kfree_skb(skb);
		return 0;
	}
	/* The hook sees the datagram from its UDP header on. */
	__skb_pull(skb, sizeof(struct udphdr));
	sroce_recv(sdev, skb);
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
		.local_udp_port = htons(SROCE_UDP_PORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		port.family = AF_INET6;
		port.ipv6_v6only = 1;
	} else {
		port.family = AF_INET;
	}
	err = udp_sock_create(net, &port, &sock);
	if (err)
		return ERR_PTR(err);
	sroce_setup_udp_tunnel_sock(net, sock, &tunnel);
	return sock;
}

static void __net_exit sroce_net_ns_exit(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	if (sn->sock6)
		sroce_udp_tunnel_sock_release(sn->sock6);
	if (sn->sock4)
		sroce_udp_tunnel_sock_release(sn->sock4);
	sn->sock6 = NULL;
	sn->sock4 = NULL;
}

static int __net_init sroce_net_ns_init(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);
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

static struct pernet_operations sroce_net_ops = {
	.init = sroce_net_ns_init,
	.exit = sroce_net_ns_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_net),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
