// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the path a QP's packets take, from its address vector
 * (sroce_path_from_av(), net.c): the family from the GID, the hop limit,
 * the UDP source port, and the priority a VLAN device's egress map turns
 * into the tag's PCP: the SL when set, else the class as for a socket.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/pkt_sched.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <rdma/ib_verbs.h>

#include "net.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

/* An IPv4 RoCEv2 address (192.0.2.2) with SL @sl and traffic class @tc. */
static void path_av(struct rdma_ah_attr *av, u8 sl, u8 tc, u32 flow)
{
	memset(av, 0, sizeof(*av));
	av->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_sl(av, sl);
	rdma_ah_set_ah_flags(av, IB_AH_GRH);
	av->grh.traffic_class = tc;
	av->grh.flow_label = flow;
	ipv6_addr_set_v4mapped(htonl(0xc0000202),
			       (struct in6_addr *)av->grh.dgid.raw);
}

static void path_sgid(union ib_gid *gid)
{
	ipv6_addr_set_v4mapped(htonl(0xc0000201), (struct in6_addr *)gid->raw);
}

struct path_prio_case {
	u8 sl, tc;
	u32 priority;
};

static const struct path_prio_case path_prio_cases[] = {
	{ 0, 0, 0 },
	{ 3, 0, 3 },
	{ 7, 0, 7 },
	{ 5, IPTOS_LOWDELAY, 5 },		/* the SL wins over the class */
	{ 0, IPTOS_LOWDELAY, TC_PRIO_INTERACTIVE },
	{ 0, IPTOS_THROUGHPUT, TC_PRIO_BULK },
	{ 0, 0xb8, TC_PRIO_INTERACTIVE_BULK },	/* DSCP EF: its TOS bits */
	{ 8, 0, 0 },				/* only 3 bits of an SL */
};

static void path_priority_test(struct kunit *test)
{
	struct rdma_ah_attr av;
	struct sroce_path path;
	union ib_gid sgid;
	unsigned int i;

	path_sgid(&sgid);
	for (i = 0; i < ARRAY_SIZE(path_prio_cases); i++) {
		const struct path_prio_case *c = &path_prio_cases[i];

		path_av(&av, c->sl, c->tc, 0);
		sroce_path_from_av(&path, &av, &sgid, 17, 18);
		KUNIT_EXPECT_EQ_MSG(test, path.priority, c->priority,
				    "SL %u class %#x", c->sl, c->tc);
		KUNIT_EXPECT_EQ(test, path.tclass, c->tc);
	}
	/* The table above matches what an IP socket's TOS gives. */
	KUNIT_EXPECT_EQ(test, (u32)rt_tos2priority(IPTOS_LOWDELAY),
			(u32)TC_PRIO_INTERACTIVE);
}

static void path_fields_test(struct kunit *test)
{
	struct rdma_ah_attr av;
	struct sroce_path path;
	union ib_gid sgid;

	path_sgid(&sgid);
	path_av(&av, 0, 0, 0);
	sroce_path_from_av(&path, &av, &sgid, 17, 18);
	KUNIT_EXPECT_FALSE(test, path.ipv6);
	KUNIT_EXPECT_EQ(test, path.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, path.lqpn, 17U);
	/* Not routed out of a VLAN device until sroce_path_set_netdev(). */
	KUNIT_EXPECT_EQ(test, path.ifindex, 0);
	KUNIT_EXPECT_TRUE(test, path.saddr.s6_addr32[3] == htonl(0xc0000201));
	KUNIT_EXPECT_TRUE(test, path.daddr.s6_addr32[3] == htonl(0xc0000202));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(path.sport),
			(u16)rdma_get_udp_sport(0, 17, 18));

	/* A flow label picks the source port; an IPv6 GID makes it IPv6. */
	path_av(&av, 0, 0, 0x12345);
	av.grh.hop_limit = 5;
	memset(av.grh.dgid.raw, 0, sizeof(av.grh.dgid.raw));
	av.grh.dgid.raw[0] = 0x20;
	av.grh.dgid.raw[15] = 2;
	sroce_path_from_av(&path, &av, &sgid, 17, 18);
	KUNIT_EXPECT_TRUE(test, path.ipv6);
	KUNIT_EXPECT_EQ(test, path.hop_limit, 5);
	KUNIT_EXPECT_EQ(test, path.flow_label, 0x12345U);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(path.sport),
			(u16)rdma_get_udp_sport(0x12345, 17, 18));
}

static struct kunit_case sroce_path_cases[] = {
	KUNIT_CASE(path_priority_test),
	KUNIT_CASE(path_fields_test),
	{}
};

static struct kunit_suite sroce_path_suite = {
	.name = "sroce_path",
	.test_cases = sroce_path_cases,
};

kunit_test_suite(sroce_path_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's paths from address vectors");
MODULE_LICENSE("GPL");
