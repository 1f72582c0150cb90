// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: DCQCN's arithmetic (dcqcn.c) against values worked out by hand:
 * the cut on a CNP, α's rise and decay, fast recovery, additive and hyper
 * increase, the minimum rate, the byte counter; the token bucket; the
 * spacing of CNPs; the range IB_QP_RATE_LIMIT takes; which datagram
 * sources a UD QP's CNP may go to, and the addresses it takes.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/time64.h>
#include <net/ipv6.h>

#include "cc.h"
#include "dcqcn.h"
#include "net.h"

/* Round numbers: line 100000 kbit/s, g = 1/16, F = 2, periods of 10 us. */
static const struct sroce_dcqcn_params test_params = {
	.max_rate = 100000,
	.min_rate = 1000,
	.ai_rate = 500,
	.hai_rate = 2000,
	.g = 64,
	.initial_alpha = SROCE_DCQCN_ONE,
	.alpha_us = 10,
	.time_reset_us = 50,
	.byte_reset = 10000,
	.threshold = 2,
	.reduce_us = 4,
};

#define US(n)	((u64)(n) * NSEC_PER_USEC)

static void dcqcn_init_test(struct kunit *test)
{
	struct sroce_dcqcn st;

	sroce_dcqcn_init(&st, &test_params);
	KUNIT_EXPECT_EQ(test, st.rc, 100000U);
	KUNIT_EXPECT_EQ(test, st.rt, 100000U);
	KUNIT_EXPECT_EQ(test, st.alpha, 1024U);
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_limited(&st, &test_params));
}

/*
 * First CNP, α = 1: α stays 1 (1024 - 64 + 64), the rate halves, the
 * target keeps the old rate. A second CNP 2 us later is inside the
 * reduce period: α rises (it is 1 already) but the rate stays. 4 us
 * after the first, a cut again: 50000 - 50000 * 1024 / 2048 = 25000.
 */
static void dcqcn_cnp_cut_test(struct kunit *test)
{
	struct sroce_dcqcn st;

	sroce_dcqcn_init(&st, &test_params);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_cnp(&st, &test_params, US(2)));
	KUNIT_EXPECT_EQ(test, st.rc, 50000U);
	KUNIT_EXPECT_EQ(test, st.rt, 100000U);
	KUNIT_EXPECT_EQ(test, st.alpha, 1024U);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_limited(&st, &test_params));

	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_cnp(&st, &test_params, US(4)));
	KUNIT_EXPECT_EQ(test, st.rc, 50000U);

	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_cnp(&st, &test_params, US(6)));
	KUNIT_EXPECT_EQ(test, st.rc, 25000U);
	KUNIT_EXPECT_EQ(test, st.rt, 50000U);
}

/*
 * α decays by (1 - g) per period: 1024 * 15/16 = 960, then 900, then
 * 843 (843.75 rounded down); the squaring gives the same as stepping.
 */
static void dcqcn_alpha_decay_test(struct kunit *test)
{
	u32 a = 1024, i;

	KUNIT_EXPECT_EQ(test, sroce_dcqcn_alpha_decay(1024, 64, 0), 1024U);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_alpha_decay(1024, 64, 1), 960U);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_alpha_decay(1024, 64, 2), 900U);
	for (i = 0; i < 3; i++)
		a = a * (1024 - 64) / 1024;
	KUNIT_EXPECT_EQ(test, a, 843U);
	/* By squaring the factor is rounded, not α: within one of stepping. */
	KUNIT_EXPECT_LE(test, sroce_dcqcn_alpha_decay(1024, 64, 3), 844U);
	KUNIT_EXPECT_GE(test, sroce_dcqcn_alpha_decay(1024, 64, 3), 842U);
	/* Long idle: nothing left, however long. */
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_alpha_decay(1024, 64, 100000), 0U);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_alpha_decay(1024, 64, U64_MAX), 0U);
	/* g = 1: gone in one period. g = 0 (not settable): unchanged. */
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_alpha_decay(700, 1024, 1), 0U);
}

/*
 * Before the first CNP α does not age: the first CNP finds it at its
 * initial value however long the QP waited. After it α ages lazily: 25 us
 * after the CNP two whole periods (20 us) have passed and α is 900; the
 * remaining 5 us count toward the next. A CNP then: α = 900 - 900 * 64 /
 * 1024 + 64 = 900 - 56 + 64 = 908, and the cut from 50000 is 50000 * 908
 * / 2048 = 22167 (rounded down).
 */
static void dcqcn_alpha_age_test(struct kunit *test)
{
	struct sroce_dcqcn st;

	sroce_dcqcn_init(&st, &test_params);
	sroce_dcqcn_age(&st, &test_params, US(1000));
	KUNIT_EXPECT_EQ(test, st.alpha, 1024U);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_cnp(&st, &test_params, US(1005)));
	KUNIT_EXPECT_EQ(test, st.alpha, 1024U);
	KUNIT_EXPECT_EQ(test, st.rc, 50000U);

	sroce_dcqcn_age(&st, &test_params, US(1030));
	KUNIT_EXPECT_EQ(test, st.alpha, 900U);
	KUNIT_EXPECT_EQ(test, st.alpha_ns, US(1025));
	sroce_dcqcn_age(&st, &test_params, US(1034));
	KUNIT_EXPECT_EQ(test, st.alpha, 900U);

	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_cnp(&st, &test_params, US(1034)));
	KUNIT_EXPECT_EQ(test, st.alpha, 908U);
	KUNIT_EXPECT_EQ(test, st.rt, 50000U);
	KUNIT_EXPECT_EQ(test, st.rc, 50000U - 22167U);
	KUNIT_EXPECT_EQ(test, st.alpha_ns, US(1034));
}

struct dcqcn_step {
	u32 timer_events, byte_events;
	enum sroce_dcqcn_stage stage;
	u32 rc, rt;
};

/*
 * From rc 40000 / rt 60000, F = 2: events below F on both counts are
 * fast recovery (rc halfway up); at F on either, additive (rt + 500);
 * past F on both, hyper (rt + 2000 per event past F on the fewer).
 */
static const struct dcqcn_step dcqcn_steps[] = {
	{ 1, 0, SROCE_DCQCN_FAST, 50000, 60000 },
	{ 1, 1, SROCE_DCQCN_FAST, 55000, 60000 },
	{ 2, 1, SROCE_DCQCN_AI, 57750, 60500 },
	{ 3, 2, SROCE_DCQCN_AI, 59375, 61000 },
	{ 3, 3, SROCE_DCQCN_HAI, 61188, 63000 },
	{ 5, 4, SROCE_DCQCN_HAI, 64094, 67000 },
};

static void dcqcn_increase_test(struct kunit *test)
{
	struct sroce_dcqcn st;
	unsigned int i;

	sroce_dcqcn_init(&st, &test_params);
	st.rc = 40000;
	st.rt = 60000;
	for (i = 0; i < ARRAY_SIZE(dcqcn_steps); i++) {
		const struct dcqcn_step *s = &dcqcn_steps[i];

		st.timer_events = s->timer_events;
		st.byte_events = s->byte_events;
		KUNIT_EXPECT_EQ_MSG(test, sroce_dcqcn_increase(&st, &test_params),
				    s->stage, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.rc, s->rc, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.rt, s->rt, "step %u", i);
	}
}

/* The line rate caps both; the timer stops once it is reached. */
static void dcqcn_recovery_to_line_test(struct kunit *test)
{
	struct sroce_dcqcn st;
	unsigned int ticks = 0;

	sroce_dcqcn_init(&st, &test_params);
	sroce_dcqcn_cnp(&st, &test_params, US(1));
	while (sroce_dcqcn_timer(&st, &test_params, US(1 + 50 * ++ticks)))
		KUNIT_ASSERT_LT(test, ticks, 200U);
	KUNIT_EXPECT_EQ(test, st.rc, 100000U);
	KUNIT_EXPECT_EQ(test, st.rt, 100000U);
	/* halfway steps from 50000 to 100000 end within 17 (rounding up) */
	KUNIT_EXPECT_LE(test, ticks, 17U);
	/* At line rate a tick does nothing and asks for no more. */
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_timer(&st, &test_params, US(10000)));
	KUNIT_EXPECT_EQ(test, st.timer_events, ticks);
}

/* Cuts stop at the minimum rate; the minimum never passes the line. */
static void dcqcn_min_rate_test(struct kunit *test)
{
	struct sroce_dcqcn_params p = test_params;
	struct sroce_dcqcn st;
	unsigned int i;

	sroce_dcqcn_init(&st, &p);
	for (i = 1; i <= 20; i++)
		sroce_dcqcn_cnp(&st, &p, US(10 * i));
	KUNIT_EXPECT_EQ(test, st.rc, 1000U);
	p.min_rate = 200000;
	sroce_dcqcn_init(&st, &p);
	sroce_dcqcn_cnp(&st, &p, US(10));
	KUNIT_EXPECT_EQ(test, st.rc, 100000U);
}

/* Every 10000 bytes is a byte event while limited; none at line rate. */
static void dcqcn_byte_counter_test(struct kunit *test)
{
	struct sroce_dcqcn st;

	sroce_dcqcn_init(&st, &test_params);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_sent(&st, &test_params, 50000), 0U);
	KUNIT_EXPECT_EQ(test, st.bytes, 0ULL);
	sroce_dcqcn_cnp(&st, &test_params, US(1));
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_sent(&st, &test_params, 9999), 0U);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_sent(&st, &test_params, 10001), 2U);
	KUNIT_EXPECT_EQ(test, st.byte_events, 2U);
	KUNIT_EXPECT_EQ(test, st.bytes, 0ULL);
	/* 50000 -> 75000 (fast recovery) -> 87500 (additive: B reached F). */
	KUNIT_EXPECT_EQ(test, st.rc, 87500U);
	/* A cut starts the count over. */
	sroce_dcqcn_cnp(&st, &test_params, US(100));
	KUNIT_EXPECT_EQ(test, st.byte_events, 0U);
	KUNIT_EXPECT_EQ(test, st.timer_events, 0U);
}

/*
 * 8000 kbit/s is 1 byte/us. Burst 4000 bytes: a fresh bucket takes 4000
 * at once, then waits; an idle bucket holds no more than its burst.
 */
static void tbf_test(struct kunit *test)
{
	struct sroce_tbf b = {};
	u64 now = US(1000000);

	KUNIT_EXPECT_EQ(test, sroce_tbf_ns(1000, 8000), US(1000));
	KUNIT_EXPECT_EQ(test, sroce_tbf_ns(1, 3), 2666667ULL);
	KUNIT_EXPECT_EQ(test, sroce_tbf_wait(&b, now), 0ULL);
	sroce_tbf_take(&b, now, 8000, 4000, 3000);
	KUNIT_EXPECT_EQ(test, sroce_tbf_wait(&b, now), 0ULL);
	sroce_tbf_take(&b, now, 8000, 4000, 1000);
	KUNIT_EXPECT_EQ(test, sroce_tbf_wait(&b, now), 0ULL);
	sroce_tbf_take(&b, now, 8000, 4000, 1500);
	KUNIT_EXPECT_EQ(test, sroce_tbf_wait(&b, now), US(1500));
	KUNIT_EXPECT_EQ(test, sroce_tbf_wait(&b, now + US(1000)), US(500));
	KUNIT_EXPECT_EQ(test, sroce_tbf_wait(&b, now + US(1500)), 0ULL);
	/* Idle a second: only the burst again. */
	now += US(1000000);
	sroce_tbf_take(&b, now, 8000, 4000, 4000);
	KUNIT_EXPECT_EQ(test, sroce_tbf_wait(&b, now), 0ULL);
	sroce_tbf_take(&b, now, 8000, 4000, 1);
	KUNIT_EXPECT_EQ(test, sroce_tbf_wait(&b, now), US(1));
	/* Over a long run the rate holds: 8 MB in 8 s at 1 byte/us. */
	KUNIT_EXPECT_EQ(test, sroce_tbf_ns(8000000, 8000), US(8000000));

	/* The depth: a millisecond of the rate, between 4 KiB and 64 KiB. */
	KUNIT_EXPECT_EQ(test, sroce_tbf_burst(1000), 4096U);
	KUNIT_EXPECT_EQ(test, sroce_tbf_burst(10000), 4096U);
	KUNIT_EXPECT_EQ(test, sroce_tbf_burst(100000), 12500U);
	KUNIT_EXPECT_EQ(test, sroce_tbf_burst(524288), 65536U);
	KUNIT_EXPECT_EQ(test, sroce_tbf_burst(100000000), 65536U);
}

static void cnp_due_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_cnp_due(0, US(1), 50));
	KUNIT_EXPECT_FALSE(test, sroce_cnp_due(US(100), US(149), 50));
	KUNIT_EXPECT_TRUE(test, sroce_cnp_due(US(100), US(150), 50));
	KUNIT_EXPECT_TRUE(test, sroce_cnp_due(US(100), US(100), 0));
}

static void rate_limit_range_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_cc_check_rate_limit(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_cc_check_rate_limit(999), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_cc_check_rate_limit(1000), 0);
	KUNIT_EXPECT_EQ(test, sroce_cc_check_rate_limit(100000000), 0);
	KUNIT_EXPECT_EQ(test, sroce_cc_check_rate_limit(100000001), -EINVAL);
}

/* A new skb holding a zeroed network header of @len bytes alone. */
static void *cnp_skb(struct kunit *test, struct sk_buff **skb,
		     unsigned int len, u16 proto)
{
	*skb = alloc_skb(len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *skb);
	skb_reset_network_header(*skb);
	(*skb)->protocol = htons(proto);
	return skb_put_zero(*skb, len);
}

/* An IPv4 datagram's header, from @src to @dst. */
static struct sk_buff *cnp_skb4(struct kunit *test, __be32 src, __be32 dst)
{
	struct sk_buff *skb;
	struct iphdr *ip4 = cnp_skb(test, &skb, sizeof(*ip4), ETH_P_IP);

	ip4->version = 4;
	ip4->ihl = 5;
	ip4->saddr = src;
	ip4->daddr = dst;
	return skb;
}

static struct sk_buff *cnp_skb6(struct kunit *test, const char *src,
				const char *dst)
{
	struct sk_buff *skb;
	struct ipv6hdr *ip6 = cnp_skb(test, &skb, sizeof(*ip6), ETH_P_IPV6);

	ip6->version = 6;
	KUNIT_ASSERT_EQ(test, in6_pton(src, -1, ip6->saddr.s6_addr, -1, NULL), 1);
	KUNIT_ASSERT_EQ(test, in6_pton(dst, -1, ip6->daddr.s6_addr, -1, NULL), 1);
	return skb;
}

/* Whether a UD QP would send a CNP back to @skb's source; frees @skb. */
static bool cnp_takes(struct sk_buff *skb)
{
	struct sroce_path path = {};
	bool ok = sroce_cnp_ud_addrs(skb, &path);

	kfree_skb(skb);
	return ok;
}

static bool cnp_to4(struct kunit *test, __be32 src)
{
	return cnp_takes(cnp_skb4(test, src, htonl(0xc0000202)));
}

static bool cnp_to6(struct kunit *test, const char *src)
{
	return cnp_takes(cnp_skb6(test, src, "2001:db8::2"));
}

/* Back to the sender, from the address it sent to, mapped as a GID. */
static void cnp_ud_addrs_test(struct kunit *test)
{
	struct sroce_path path = { .ipv6 = true };
	struct in6_addr want;
	struct sk_buff *skb;

	skb = cnp_skb4(test, htonl(0xc0000201), htonl(0xc0000202));
	KUNIT_EXPECT_TRUE(test, sroce_cnp_ud_addrs(skb, &path));
	kfree_skb(skb);
	KUNIT_EXPECT_FALSE(test, path.ipv6);
	ipv6_addr_set_v4mapped(htonl(0xc0000202), &want);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&path.saddr, &want));
	ipv6_addr_set_v4mapped(htonl(0xc0000201), &want);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&path.daddr, &want));

	skb = cnp_skb6(test, "2001:db8::1", "2001:db8::2");
	KUNIT_EXPECT_TRUE(test, sroce_cnp_ud_addrs(skb, &path));
	kfree_skb(skb);
	KUNIT_EXPECT_TRUE(test, path.ipv6);
	KUNIT_ASSERT_EQ(test, in6_pton("2001:db8::2", -1, want.s6_addr, -1, NULL), 1);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&path.saddr, &want));
	KUNIT_ASSERT_EQ(test, in6_pton("2001:db8::1", -1, want.s6_addr, -1, NULL), 1);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&path.daddr, &want));
}

/* Sources no CNP may go to, and the path left as it was. */
static void cnp_ud_bad_source_test(struct kunit *test)
{
	struct sroce_path path = { .hop_limit = 7 };
	struct sk_buff *skb;

	KUNIT_EXPECT_TRUE(test, cnp_to4(test, htonl(0x0a000001)));
	KUNIT_EXPECT_FALSE(test, cnp_to4(test, htonl(0xe0000001)));
	KUNIT_EXPECT_FALSE(test, cnp_to4(test, htonl(0xffffffff)));
	KUNIT_EXPECT_FALSE(test, cnp_to4(test, htonl(0)));
	KUNIT_EXPECT_FALSE(test, cnp_to4(test, htonl(0x00000005)));
	KUNIT_EXPECT_FALSE(test, cnp_to4(test, htonl(0x7f000001)));
	KUNIT_EXPECT_TRUE(test, cnp_to6(test, "fe80::1"));
	KUNIT_EXPECT_FALSE(test, cnp_to6(test, "::"));
	KUNIT_EXPECT_FALSE(test, cnp_to6(test, "::1"));
	KUNIT_EXPECT_FALSE(test, cnp_to6(test, "ff02::1"));
	KUNIT_EXPECT_FALSE(test, cnp_to6(test, "::ffff:192.0.2.1"));

	/* RoCE v1 (a GRH, no IP): no CNP. */
	skb = cnp_skb6(test, "2001:db8::1", "2001:db8::2");
	skb->protocol = htons(ETH_P_IBOE);
	KUNIT_EXPECT_FALSE(test, sroce_cnp_ud_addrs(skb, &path));
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, path.hop_limit, 7);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_any(&path.daddr));
}

static struct kunit_case sroce_dcqcn_cases[] = {
	KUNIT_CASE(dcqcn_init_test),
	KUNIT_CASE(dcqcn_cnp_cut_test),
	KUNIT_CASE(dcqcn_alpha_decay_test),
	KUNIT_CASE(dcqcn_alpha_age_test),
	KUNIT_CASE(dcqcn_increase_test),
	KUNIT_CASE(dcqcn_recovery_to_line_test),
	KUNIT_CASE(dcqcn_min_rate_test),
	KUNIT_CASE(dcqcn_byte_counter_test),
	KUNIT_CASE(tbf_test),
	KUNIT_CASE(cnp_due_test),
	KUNIT_CASE(rate_limit_range_test),
	KUNIT_CASE(cnp_ud_addrs_test),
	KUNIT_CASE(cnp_ud_bad_source_test),
	{}
};

static struct kunit_suite sroce_dcqcn_suite = {
	.name = "sroce_dcqcn",
	.test_cases = sroce_dcqcn_cases,
};

kunit_test_suite(sroce_dcqcn_suite);

MODULE_DESCRIPTION("KUnit tests for sroce's DCQCN arithmetic");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
