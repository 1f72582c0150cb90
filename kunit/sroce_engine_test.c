// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: pure pieces of the RC engines. How many PSNs a send WQE takes
 * (the requester's and the responder's count must agree, or the next
 * request looks like a gap), and the atomic operations' arithmetic,
 * including wrap-around and a compare that fails; the RNR NAK timer codes
 * and the local ACK timeout; the responder's decision table by PSN (in
 * order, ahead, behind, far behind, across the wrap); the requester's
 * window, and how it adapts to loss; each QP's share of its device's
 * transmit pool; which responder resource a duplicate RDMA READ restarts.
 */
#include <kunit/test.h>

#include "cwnd.h"
#include "psn.h"
#include "reply.h"
#include "resp.h"
#include "retry.h"
#include "tx.h"
#include "wqe.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

static void npsn_test(struct kunit *test)
{
	static const struct {
		u32 opcode, length, mtu, npsn;
	} cases[] = {
		{ IB_WR_SEND, 0, 1024, 1 },
		{ IB_WR_SEND, 1, 1024, 1 },
		{ IB_WR_SEND, 1024, 1024, 1 },
		{ IB_WR_SEND, 1025, 1024, 2 },
		{ IB_WR_RDMA_WRITE, 65536, 4096, 16 },
		{ IB_WR_RDMA_WRITE, 65537, 4096, 17 },
		{ IB_WR_RDMA_READ, 0, 256, 1 },
		{ IB_WR_RDMA_READ, 257, 256, 2 },
		{ IB_WR_RDMA_READ, 1U << 31, 256, 1U << 23 },
		{ IB_WR_ATOMIC_FETCH_AND_ADD, 8, 256, 1 },
		{ IB_WR_ATOMIC_CMP_AND_SWP, 8, 4096, 1 },
		/* One request packet whatever the range: IBTA 1.5. */
		{ IB_WR_ATOMIC_WRITE, 8, 256, 1 },
		{ IB_WR_FLUSH, 12345678, 256, 1 },
		{ IB_WR_FLUSH, 0, 4096, 1 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, sroce_wqe_npsn(cases[i].opcode,
							 cases[i].length,
							 cases[i].mtu),
				    cases[i].npsn, "case %u", i);
}

static void atomic_fetch_add_test(struct kunit *test)
{
	u64 *v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, v);
	*v = 40;
	KUNIT_EXPECT_EQ(test, sroce_atomic_exec(v, false, 2, 0), 40ULL);
	KUNIT_EXPECT_EQ(test, *v, 42ULL);
	/* The compare operand means nothing to fetch and add. */
	KUNIT_EXPECT_EQ(test, sroce_atomic_exec(v, false, 0, 42), 42ULL);
	KUNIT_EXPECT_EQ(test, *v, 42ULL);
	*v = U64_MAX;
	KUNIT_EXPECT_EQ(test, sroce_atomic_exec(v, false, 3, 0), U64_MAX);
	KUNIT_EXPECT_EQ(test, *v, 2ULL);
}

static void atomic_cmp_swap_test(struct kunit *test)
{
	u64 *v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, v);
	*v = 0x1122334455667788ULL;
	/* A compare that fails returns the value and writes nothing. */
	KUNIT_EXPECT_EQ(test, sroce_atomic_exec(v, true, 5, 6),
			0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, *v, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, sroce_atomic_exec(v, true, 5,
						0x1122334455667788ULL),
			0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, *v, 5ULL);
}

static void rnr_timer_test(struct kunit *test)
{
	/* IBTA table 45: code 0 is the longest, then 0.01 ms and up. */
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_usecs(0), 655360U);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_usecs(1), 10U);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_usecs(5), 60U);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_usecs(12), 640U);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_usecs(14), 1280U);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_usecs(24), 40960U);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_usecs(31), 491520U);
}

static void rnr_wait_test(struct kunit *test)
{
	u8 streak;

	/* Every wait of a finite rnr_retry (6 at most) is the code's time. */
	for (streak = 1; streak <= SROCE_RNR_EXACT; streak++) {
		KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(1, streak), 10U);
		KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(12, streak), 640U);
	}
	/* Then, retrying for ever, twice as long each time... */
	KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(1, 8), 20U);
	KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(1, 9), 40U);
	KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(12, 10), 5120U);
	/* ...up to the cap, however long the streak, */
	KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(12, 11),
			(u32)SROCE_RNR_BACKOFF_MAX_US);
	KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(1, 255),
			(u32)SROCE_RNR_BACKOFF_MAX_US);
	/* never below the code's own time. */
	KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(0, 255), 655360U);
	KUNIT_EXPECT_EQ(test, sroce_retry_rnr_wait(24, 100), 40960U);
}

static void ack_timeout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_ack_timeout_usecs(0), 0ULL);	/* infinite */
	KUNIT_EXPECT_EQ(test, sroce_ack_timeout_usecs(1), 9ULL);	/* 8.192 us */
	KUNIT_EXPECT_EQ(test, sroce_ack_timeout_usecs(14), 67109ULL);	/* 67.1 ms */
	KUNIT_EXPECT_EQ(test, sroce_ack_timeout_usecs(31), 8796093023ULL);
}

static void psn_verdict_test(struct kunit *test)
{
	static const struct {
		u32 psn, expected;
		bool nak_sent;
		enum sroce_op_class cls;
		bool ack_wanted;
		enum sroce_psn_verdict v;
	} cases[] = {
		/* In order, whatever the class; also across the wrap. */
		{ 100, 100, false, SROCE_CLASS_SEND, false, SROCE_PSN_EXECUTE },
		{ 100, 100, true, SROCE_CLASS_WRITE, true, SROCE_PSN_EXECUTE },
		{ 0xffffff, 0xffffff, false, SROCE_CLASS_READ_REQ, true, SROCE_PSN_EXECUTE },
		/* Ahead: NAK the first of a gap, then silence. */
		{ 101, 100, false, SROCE_CLASS_SEND, false, SROCE_PSN_NAK_SEQ },
		{ 101, 100, true, SROCE_CLASS_SEND, false, SROCE_PSN_SILENT },
		{ 2, 0xfffffe, false, SROCE_CLASS_WRITE, true, SROCE_PSN_NAK_SEQ },
		{ 100 + 0x7fffff, 100, false, SROCE_CLASS_ATOMIC, true, SROCE_PSN_NAK_SEQ },
		{ 100 + 0x7fffff, 100, true, SROCE_CLASS_READ_REQ, true, SROCE_PSN_SILENT },
		/* Behind by one: a duplicate, by class. */
		{ 99, 100, false, SROCE_CLASS_SEND, true, SROCE_PSN_DUP_ACK },
		{ 99, 100, false, SROCE_CLASS_SEND, false, SROCE_PSN_DUP_DROP },
		{ 99, 100, true, SROCE_CLASS_WRITE, true, SROCE_PSN_DUP_ACK },
		{ 99, 100, false, SROCE_CLASS_WRITE, false, SROCE_PSN_DUP_DROP },
		{ 99, 100, false, SROCE_CLASS_READ_REQ, true, SROCE_PSN_DUP_READ },
		{ 99, 100, false, SROCE_CLASS_ATOMIC, true, SROCE_PSN_DUP_ATOMIC },
		{ 99, 100, false, SROCE_CLASS_ATOMIC_WRITE, true, SROCE_PSN_DUP_ATOMIC },
		{ 98, 100, false, SROCE_CLASS_FLUSH, true, SROCE_PSN_DUP_ATOMIC },
		{ 100, 100, false, SROCE_CLASS_FLUSH, true, SROCE_PSN_EXECUTE },
		/* Behind across the wrap. */
		{ 0xffffff, 0, false, SROCE_CLASS_WRITE, true, SROCE_PSN_DUP_ACK },
		{ 0xfffff0, 5, false, SROCE_CLASS_ATOMIC, true, SROCE_PSN_DUP_ATOMIC },
		/* Far behind: half the PSN space back is still a duplicate. */
		{ 100 + 0x800000, 100, false, SROCE_CLASS_READ_REQ, true, SROCE_PSN_DUP_READ },
		{ 100 + 0x800000, 100, false, SROCE_CLASS_SEND, false, SROCE_PSN_DUP_DROP },
		{ 0x800000, 0, true, SROCE_CLASS_WRITE, true, SROCE_PSN_DUP_ACK },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_resp_psn_verdict(cases[i].psn,
							   cases[i].expected,
							   cases[i].nak_sent,
							   cases[i].cls,
							   cases[i].ack_wanted),
				    cases[i].v, "case %u", i);
}

#define UC(op)	SROCE_OPCODE(SROCE_TR_UC, SROCE_OP_##op)
#define NONE	SROCE_OPCODE_NONE

/* UC (IBTA 9.8.3): no duplicates, no NAKs; a FIRST or ONLY restarts. */
static void uc_verdict_test(struct kunit *test)
{
	static const struct {
		u32 psn, expected;
		bool dropping;
		int prev;
		u8 opcode;
		enum sroce_uc_verdict v;
	} cases[] = {
		/* In sequence at the expected PSN, across the wrap too. */
		{ 100, 100, false, NONE, UC(SEND_ONLY), SROCE_UC_EXECUTE },
		{ 100, 100, false, NONE, UC(WRITE_FIRST), SROCE_UC_EXECUTE },
		{ 101, 101, false, UC(WRITE_FIRST), UC(WRITE_MIDDLE), SROCE_UC_EXECUTE },
		{ 0, 0, false, UC(SEND_MIDDLE), UC(SEND_LAST_IMM), SROCE_UC_EXECUTE },
		{ 7, 7, false, UC(SEND_LAST), UC(WRITE_ONLY_IMM), SROCE_UC_EXECUTE },
		/* A gap: FIRST and ONLY start anew where they are. */
		{ 105, 100, false, NONE, UC(SEND_FIRST), SROCE_UC_RESTART },
		{ 105, 100, false, UC(SEND_MIDDLE), UC(WRITE_ONLY), SROCE_UC_RESTART },
		{ 99, 100, false, NONE, UC(SEND_ONLY_IMM), SROCE_UC_RESTART },
		{ 0xffffff, 2, false, NONE, UC(SEND_ONLY), SROCE_UC_RESTART },
		/* ... the rest is dropped. */
		{ 105, 100, false, UC(SEND_FIRST), UC(SEND_MIDDLE), SROCE_UC_DROP },
		{ 105, 100, false, UC(WRITE_MIDDLE), UC(WRITE_LAST_IMM), SROCE_UC_DROP },
		{ 99, 100, false, UC(SEND_FIRST), UC(SEND_LAST), SROCE_UC_DROP },
		/* Out of sequence at the expected PSN: a lost LAST, a lost FIRST. */
		{ 100, 100, false, UC(SEND_MIDDLE), UC(SEND_FIRST), SROCE_UC_RESTART },
		{ 100, 100, false, UC(WRITE_FIRST), UC(SEND_ONLY), SROCE_UC_RESTART },
		{ 100, 100, false, NONE, UC(SEND_MIDDLE), SROCE_UC_DROP },
		{ 100, 100, false, UC(SEND_FIRST), UC(WRITE_LAST), SROCE_UC_DROP },
		{ 100, 100, false, UC(SEND_LAST), UC(WRITE_MIDDLE), SROCE_UC_DROP },
		/* Dropping: until a FIRST or ONLY, even at the expected PSN. */
		{ 100, 100, true, NONE, UC(SEND_MIDDLE), SROCE_UC_DROP },
		{ 100, 100, true, NONE, UC(WRITE_LAST), SROCE_UC_DROP },
		{ 100, 100, true, NONE, UC(SEND_FIRST), SROCE_UC_RESTART },
		{ 140, 100, true, NONE, UC(WRITE_ONLY_IMM), SROCE_UC_RESTART },
		/* Another transport's opcode is never in sequence. */
		{ 101, 101, false, UC(SEND_FIRST),
		  SROCE_OPCODE(SROCE_TR_RC, SROCE_OP_SEND_LAST), SROCE_UC_DROP },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_resp_uc_verdict(cases[i].psn,
							  cases[i].expected,
							  cases[i].dropping,
							  cases[i].prev,
							  cases[i].opcode),
				    cases[i].v, "case %u", i);
}

#undef UC
#undef NONE

static void window_test(struct kunit *test)
{
	static const struct {
		u32 psn, acked, n, window;
		bool open;
	} cases[] = {
		/* Nothing outstanding: anything goes, a huge READ too. */
		{ 100, 99, 1, 128, true },
		{ 100, 99, 1024, 128, true },
		{ 0, 0xffffff, 2048, 32, true },
		/* Up to the window's edge, and not one PSN past it. */
		{ 227, 99, 1, 128, true },
		{ 228, 99, 1, 128, false },
		{ 200, 99, 28, 128, true },
		{ 200, 99, 29, 128, false },
		/* Across the wrap. */
		{ 0x7e, 0xffffff, 1, 128, true },
		{ 0x80, 0xffffff, 1, 128, false },
		/* After a rewind the next PSN may be the first unacknowledged. */
		{ 500, 499, 64, 16, true },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_cwnd_fits(cases[i].psn, cases[i].acked,
						    cases[i].n, cases[i].window),
				    cases[i].open, "case %u", i);
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ceiling(1024), 128U);
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ceiling(2048), 128U);
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ceiling(4096), 128U);
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ceiling(256), 512U);
	/* Past 1 KiB the PSN count holds: a larger MTU, a larger window. */
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ceiling(1U << 20), 128U);
}

/* A fast retransmit halves the window once per loss, down to half the ceiling. */
static void cwnd_nak_test(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, 256, 0);
	KUNIT_EXPECT_EQ(test, c.cwnd, 256U);
	/* At the ceiling, ACKs add nothing. */
	sroce_cwnd_acked(&c, 1000, 1000);
	KUNIT_EXPECT_EQ(test, c.cwnd, 256U);
	sroce_cwnd_cut(&c, 1255, false);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 128U);
	/* More NAKs of what was in flight then: the same loss. */
	sroce_cwnd_cut(&c, 1300, false);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	/* No growth until the last PSN sent at the cut is acknowledged. */
	sroce_cwnd_acked(&c, 254, 1254);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	/* Then one PSN per window's worth acknowledged. */
	sroce_cwnd_acked(&c, 1, 1255);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	KUNIT_EXPECT_FALSE(test, c.recovering);
	sroce_cwnd_acked(&c, 127, 1382);
	KUNIT_EXPECT_EQ(test, c.cwnd, 129U);
	sroce_cwnd_acked(&c, 129 + 130, 1641);
	KUNIT_EXPECT_EQ(test, c.cwnd, 131U);
	/* A new loss cuts again, never below half the ceiling... */
	sroce_cwnd_cut(&c, 1700, false);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 128U);
	/* ...and never raises a window that is below it. */
	c.recovering = false;
	c.cwnd = 5;
	sroce_cwnd_cut(&c, 1800, false);
	KUNIT_EXPECT_EQ(test, c.cwnd, 5U);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 128U);
	/* Recovery ends across the PSN wrap too. */
	sroce_cwnd_init(&c, 64, 0);
	sroce_cwnd_cut(&c, 0xfffffe, false);
	sroce_cwnd_acked(&c, 10, 0xfffffd);
	KUNIT_EXPECT_TRUE(test, c.recovering);
	sroce_cwnd_acked(&c, 3, 0);
	KUNIT_EXPECT_FALSE(test, c.recovering);
}

/* A timeout drops to the floor; ACKs double the window up to the threshold. */
static void cwnd_timeout_test(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, 256, 0);
	sroce_cwnd_cut(&c, 500, true);
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_CWND_MIN);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 128U);
	/* A second timeout in the same loss keeps the threshold. */
	sroce_cwnd_acked(&c, 4, 250);
	KUNIT_EXPECT_EQ(test, c.cwnd, 8U);
	sroce_cwnd_cut(&c, 520, true);
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_CWND_MIN);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 128U);
	/* Slow start, even before the loss is behind us: capped there. */
	sroce_cwnd_acked(&c, 4, 260);
	sroce_cwnd_acked(&c, 8, 268);
	sroce_cwnd_acked(&c, 16, 284);
	KUNIT_EXPECT_EQ(test, c.cwnd, 32U);
	sroce_cwnd_acked(&c, 200, 484);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	sroce_cwnd_acked(&c, 30, 514);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	/* Without a round trip measured, growth never passes the ceiling. */
	sroce_cwnd_acked(&c, 1U << 20, 0x100000 + 514);
	KUNIT_EXPECT_EQ(test, c.cwnd, 256U);
}

/*
 * Past the ceiling: only with a round trip measured and short against the
 * ACK timeout, not for a while after a loss, never past SROCE_CWND_PROBE
 * times the ceiling; back to the ceiling when the round trip grows long.
 */
static void cwnd_probe_test(struct kunit *test)
{
	struct sroce_cwnd c;

	/* perftest's timeout 14: 67109 us, probing below 16777 us. */
	sroce_cwnd_init(&c, 128, 67109);
	KUNIT_EXPECT_EQ(test, c.rtt_limit_us, 16777U);
	/* A window's worth at the ceiling first, and a sample. */
	sroce_cwnd_rtt(&c, 5000);
	sroce_cwnd_acked(&c, 127, 127);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	sroce_cwnd_acked(&c, 1, 128);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	/* Then half a PSN per PSN acknowledged. */
	sroce_cwnd_acked(&c, 100, 228);
	KUNIT_EXPECT_EQ(test, c.cwnd, 178U);
	sroce_cwnd_acked(&c, 1, 229);
	KUNIT_EXPECT_EQ(test, c.cwnd, 179U);
	sroce_cwnd_acked(&c, 10000, 10229);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U * SROCE_CWND_PROBE);
	/* A NAK: back to the ceiling, quiet for 16 windows' worth. */
	sroce_cwnd_cut(&c, 10741, false);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 128U);
	sroce_cwnd_acked(&c, 512, 10741);
	KUNIT_EXPECT_FALSE(test, c.recovering);
	sroce_cwnd_acked(&c, 128 * SROCE_CWND_QUIET_NAK - 512 - 1, 12276);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	sroce_cwnd_acked(&c, 2, 12278);
	KUNIT_EXPECT_EQ(test, c.cwnd, 129U);
	/* A round trip of a quarter of the timeout stops the growth... */
	c.srtt_us = 16777;
	sroce_cwnd_acked(&c, 100, 12379);
	KUNIT_EXPECT_EQ(test, c.cwnd, 129U);
	/* ...half of it brings the window back to the ceiling... */
	c.srtt_us = 2 * 16777;
	sroce_cwnd_acked(&c, 1, 12380);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	/* ...and so does the last sample alone (the average lags it). */
	c.srtt_us = 1000;
	c.cwnd = 200;
	sroce_cwnd_rtt(&c, 2 * 16777);
	KUNIT_EXPECT_LT(test, c.srtt_us, 16777U);
	sroce_cwnd_acked(&c, 1, 12381);
	KUNIT_EXPECT_EQ(test, c.cwnd, 128U);
	c.cwnd = 200;
	sroce_cwnd_rtt(&c, 16777);
	sroce_cwnd_acked(&c, 100, 12481);
	KUNIT_EXPECT_EQ(test, c.cwnd, 200U);
	/* A timeout: quiet for 64 windows' worth. */
	sroce_cwnd_cut(&c, 12500, true);
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_CWND_MIN);
	KUNIT_EXPECT_EQ(test, c.quiet, 128U * SROCE_CWND_QUIET_TIMEOUT);

	/* No ACK timer: no bound on the round trip. */
	sroce_cwnd_init(&c, 128, 0);
	KUNIT_EXPECT_EQ(test, c.rtt_limit_us, 0U);
	sroce_cwnd_rtt(&c, 10000000);
	sroce_cwnd_acked(&c, 127, 127);
	sroce_cwnd_acked(&c, 101, 228);
	KUNIT_EXPECT_EQ(test, c.cwnd, 178U);
	/* A timeout shorter than 4 us still bounds it. */
	sroce_cwnd_init(&c, 128, 1);
	KUNIT_EXPECT_EQ(test, c.rtt_limit_us, 1U);
}

/* The round trip: the first sample, then an eighth of each new one. */
static void cwnd_rtt_test(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, 128, 0);
	KUNIT_EXPECT_EQ(test, c.srtt_us, 0U);
	sroce_cwnd_rtt(&c, 800);
	KUNIT_EXPECT_EQ(test, c.srtt_us, 800U);
	sroce_cwnd_rtt(&c, 1600);
	KUNIT_EXPECT_EQ(test, c.srtt_us, 900U);
	KUNIT_EXPECT_EQ(test, c.rtt_us, 1600U);
	sroce_cwnd_init(&c, 128, 0);
	sroce_cwnd_rtt(&c, 0);
	KUNIT_EXPECT_EQ(test, c.srtt_us, 1U);
	sroce_cwnd_rtt(&c, 0);
	KUNIT_EXPECT_EQ(test, c.srtt_us, 1U);
}

static void cwnd_ack_every_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ack_every(256), 32U);
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ack_every(128), 16U);
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ack_every(20), 2U);
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ack_every(SROCE_CWND_MIN), 2U);
	KUNIT_EXPECT_EQ(test, sroce_cwnd_ack_every(1), 2U);
}

/* The even share of the pool, within the per-QP floor and ceiling. */
static void tx_limit_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_tx_limit(0), (u32)SROCE_TX_LIMIT);
	KUNIT_EXPECT_EQ(test, sroce_tx_limit(1), (u32)SROCE_TX_LIMIT);
	KUNIT_EXPECT_EQ(test, sroce_tx_limit(2), (u32)SROCE_TX_POOL / 2);
	KUNIT_EXPECT_EQ(test, sroce_tx_limit(4), (u32)SROCE_TX_POOL / 4);
	KUNIT_EXPECT_EQ(test, sroce_tx_limit(64), (u32)SROCE_TX_LIMIT_MIN);
}

/* Charge a packet of @size bytes to a state word, as sroce_tx_charge(). */
static u64 tx_state_charge(u64 state, u32 size)
{
	return state + sroce_tx_state_one(size);
}

/* Packets freed at the size they were charged: back to exactly empty. */
static void tx_state_exact_test(struct kunit *test)
{
	u64 s = 0;

	s = tx_state_charge(s, 9000);
	s = tx_state_charge(s, 768);
	s = tx_state_charge(s, 9000);
	KUNIT_EXPECT_EQ(test, sroce_tx_state_packets(s), 3U);
	KUNIT_EXPECT_EQ(test, sroce_tx_state_bytes(s), 18768U);
	s = sroce_tx_state_free(s, 768);
	KUNIT_EXPECT_EQ(test, sroce_tx_state_packets(s), 2U);
	KUNIT_EXPECT_EQ(test, sroce_tx_state_bytes(s), 18000U);
	s = sroce_tx_state_free(s, 9000);
	KUNIT_EXPECT_EQ(test, sroce_tx_state_bytes(s), 9000U);
	s = sroce_tx_state_free(s, 9000);
	KUNIT_EXPECT_EQ(test, s, 0ULL);
}

/*
 * A packet freed bigger than it was charged (its head reallocated below
 * us) takes the bytes to zero, not below; one freed smaller leaves some,
 * and the last packet empties the word either way.
 */
static void tx_state_resized_test(struct kunit *test)
{
	u64 s = tx_state_charge(tx_state_charge(0, 5000), 5000);

	s = sroce_tx_state_free(s, 13000);
	KUNIT_EXPECT_EQ(test, sroce_tx_state_packets(s), 1U);
	KUNIT_EXPECT_EQ(test, sroce_tx_state_bytes(s), 0U);
	s = sroce_tx_state_free(s, 13000);
	KUNIT_EXPECT_EQ(test, s, 0ULL);

	s = tx_state_charge(tx_state_charge(0, 9000), 9000);
	s = sroce_tx_state_free(s, 8000);
	KUNIT_EXPECT_EQ(test, sroce_tx_state_bytes(s), 10000U);
	s = sroce_tx_state_free(s, 8000);
	KUNIT_EXPECT_EQ(test, s, 0ULL);
}

/*
 * A stream that never empties its queue, every packet charged 5 KiB and
 * freed at 13 KiB (zero-copy over a netdev without scatter-gather, as
 * measured): 2^31 bytes of drift come after some 260000 packets, and the
 * bytes must still never pass what is really queued.
 */
static void tx_state_drift_test(struct kunit *test)
{
	const u32 charged = 5 * 1024, freed = 13 * 1024, depth = 16;
	u64 s = 0;
	u32 i;

	for (i = 0; i < depth; i++)
		s = tx_state_charge(s, charged);
	for (i = 0; i < 400000; i++) {
		s = sroce_tx_state_free(s, freed);
		s = tx_state_charge(s, charged);
		if (sroce_tx_state_bytes(s) > depth * charged ||
		    sroce_tx_state_packets(s) != depth)
			break;
	}
	KUNIT_EXPECT_EQ(test, i, 400000U);
	KUNIT_EXPECT_LE(test, sroce_tx_state_bytes(s), depth * charged);
	for (i = 0; i < depth; i++)
		s = sroce_tx_state_free(s, freed);
	KUNIT_EXPECT_EQ(test, s, 0ULL);
}

#define RES_MTU		4096
#define RES_READ_PSNS	256	/* a 1 MiB READ at RES_MTU */

/* A READ of RES_READ_PSNS responses from @psn, in a new resource. */
static struct sroce_res *res_read(struct kunit *test, struct sroce_resp *resp,
				  u32 psn)
{
	struct sroce_res *r = sroce_res_take(resp);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->kind = SROCE_RES_READ;
	r->psn = psn;
	r->next_psn = psn;
	r->left = RES_READ_PSNS * RES_MTU;
	return r;
}

/* The oldest pending resource sends @n responses; the last ends it. */
static void res_send(struct sroce_resp *resp, u32 n)
{
	struct sroce_res *r = &resp->res[(resp->res_head + resp->nres -
					  resp->res_pending) % resp->nres];

	r->next_psn = sroce_psn_add(r->next_psn, n);
	r->left -= n * RES_MTU;
	if (!r->left) {
		r->pending = false;
		resp->res_pending--;
	}
}

/*
 * Duplicate READs: which resource answers, and what stays pending. The
 * case that once cut a READ short: READs 1 and 2 sent in full, 3 under
 * way; the requester goes back into READ 1 (its tail was lost), then
 * asks for READ 2 again while READ 1's rest is still going out. READ 1
 * must stay pending, ahead of READ 2.
 */
static void res_dup_read_test(struct kunit *test)
{
	struct sroce_res ring[4] = {};
	struct sroce_resp resp = { .res = ring, .nres = ARRAY_SIZE(ring) };
	struct sroce_res *r1, *r2, *r3, *again1, *again2;
	/* The ring is the responder's, under its lock. */
	spin_lock_init(&resp.lock);
	spin_lock(&resp.lock);

	r1 = res_read(test, &resp, 0);
	r2 = res_read(test, &resp, 256);
	r3 = res_read(test, &resp, 512);
	res_send(&resp, 256);
	res_send(&resp, 256);
	res_send(&resp, 10);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 1U);

	/* Into READ 1, finished and not the newest: a new resource. */
	KUNIT_EXPECT_PTR_EQ(test, sroce_res_find_read(&resp, 200, RES_MTU), r1);
	again1 = sroce_res_restart(&resp, r1, 200);
	KUNIT_ASSERT_NOT_NULL(test, again1);
	KUNIT_EXPECT_EQ(test, again1->psn, 200U);
	/*
	 * READ 3's responses are dropped (the requester asks again) and
	 * its slot is taken again: one pending, READ 1's.
	 */
	KUNIT_EXPECT_PTR_EQ(test, again1, r3);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 1U);
	again1->kind = SROCE_RES_READ;
	again1->next_psn = 200;
	again1->left = 56 * RES_MTU;
	res_send(&resp, 30);

	/* READ 2 again while READ 1's last 26 are still to go. */
	KUNIT_EXPECT_PTR_EQ(test, sroce_res_find_read(&resp, 256, RES_MTU), r2);
	again2 = sroce_res_restart(&resp, r2, 256);
	KUNIT_ASSERT_NOT_NULL(test, again2);
	KUNIT_EXPECT_TRUE(test, again1->pending);
	KUNIT_EXPECT_TRUE(test, again2->pending);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 2U);
	/* Oldest first: READ 1's rest goes out before READ 2. */
	KUNIT_EXPECT_PTR_EQ(test, &resp.res[(resp.res_head + resp.nres - 2) %
					    resp.nres], again1);
	/* The newest resource holding a PSN is the one in use. */
	KUNIT_EXPECT_PTR_EQ(test, sroce_res_find_read(&resp, 230, RES_MTU), again1);

	/* A READ still pending restarts in place; nothing else moves. */
	KUNIT_EXPECT_PTR_EQ(test, sroce_res_restart(&resp, again1, 210), again1);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 2U);
	spin_unlock(&resp.lock);
}

/* The newest READ, finished, is asked for again: pending in place. */
static void res_dup_newest_test(struct kunit *test)
{
	struct sroce_res ring[2] = {};
	struct sroce_resp resp = { .res = ring, .nres = ARRAY_SIZE(ring) };
	struct sroce_res *r1, *r2;
	/* The ring is the responder's, under its lock. */
	spin_lock_init(&resp.lock);
	spin_lock(&resp.lock);

	r1 = res_read(test, &resp, 0xfffff0);
	res_send(&resp, 256);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 0U);
	/* Across the PSN wrap. */
	KUNIT_EXPECT_PTR_EQ(test, sroce_res_find_read(&resp, 5, RES_MTU), r1);
	KUNIT_EXPECT_PTR_EQ(test, sroce_res_restart(&resp, r1, 5), r1);
	KUNIT_EXPECT_TRUE(test, r1->pending);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 1U);

	KUNIT_EXPECT_TRUE(test, r1->replay);

	/*
	 * Both slots pending, the oldest (READ 1) a replay, and a READ after
	 * both asked for, one never seen: a requester keeping to two READs
	 * has had all of READ 1 (the first answers came late), so READ 1
	 * gives its slot; READ 2 keeps its place.
	 */
	r2 = res_read(test, &resp, 240);
	KUNIT_EXPECT_FALSE(test, r2->replay);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 2U);
	KUNIT_EXPECT_NULL(test, sroce_res_find_read(&resp, 600, RES_MTU));
	KUNIT_EXPECT_PTR_EQ(test, sroce_res_restart(&resp, NULL, 600), r1);
	KUNIT_EXPECT_EQ(test, r1->psn, 600U);
	KUNIT_EXPECT_TRUE(test, r1->pending && r2->pending);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 2U);
	/* Now the oldest is READ 2, no replay: a third is over the limit. */
	KUNIT_EXPECT_NULL(test, sroce_res_take(&resp));
	KUNIT_EXPECT_EQ(test, resp.res_pending, 2U);

	/* Back before both: both dropped, the requester asks again. */
	KUNIT_EXPECT_NOT_NULL(test, sroce_res_restart(&resp, NULL, 0xffff00));
	KUNIT_EXPECT_EQ(test, resp.res_pending, 1U);
	spin_unlock(&resp.lock);
}

/* An executed atomic at @psn, its answer not yet sent. */
static struct sroce_res *res_atomic(struct kunit *test, struct sroce_resp *resp,
				    u32 psn)
{
	struct sroce_res *r = sroce_res_take(resp);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->kind = SROCE_RES_ATOMIC;
	r->psn = psn;
	return r;
}

/*
 * The span bound (sroce_res_fits()): from the oldest request with answers
 * to send to the last PSN of the new one, at most half the PSN space.
 */
static void res_fits_test(struct kunit *test)
{
	struct sroce_res ring[4];
	struct sroce_resp resp = { .res = ring, .nres = ARRAY_SIZE(ring) };

	/* The ring is the responder's, under its lock. */
	spin_lock_init(&resp.lock);
	spin_lock(&resp.lock);
	memset(ring, 0, sizeof(ring));
	/* Nothing pending: a READ of 2^31 bytes at MTU 256 is 2^23 PSNs. */
	KUNIT_EXPECT_TRUE(test, sroce_res_fits(&resp, 5, SROCE_PSN_HALF));
	KUNIT_EXPECT_FALSE(test, sroce_res_fits(&resp, 5, SROCE_PSN_HALF + 1));
	/* An atomic pending at 0xfffff0: the span counts from it, across 0. */
	res_atomic(test, &resp, 0xfffff0);
	KUNIT_EXPECT_TRUE(test, sroce_res_fits(&resp, 0xfffff1, SROCE_PSN_HALF - 1));
	KUNIT_EXPECT_FALSE(test, sroce_res_fits(&resp, 0xfffff1, SROCE_PSN_HALF));
	KUNIT_EXPECT_TRUE(test, sroce_res_fits(&resp, 0x10, 100));
	KUNIT_EXPECT_FALSE(test, sroce_res_fits(&resp, 0x10, SROCE_PSN_HALF - 0x10));
	/* A PSN behind the oldest pending one is no new request. */
	KUNIT_EXPECT_FALSE(test, sroce_res_fits(&resp, 0xffffe0, 1));
	spin_unlock(&resp.lock);
}

/*
 * A duplicate atomic while every resource is pending (the audit's model
 * of a crash: sroce_res_take() returning NULL to the duplicate path).
 * It needs a request newer than the atomic whose PSN reads as older: one
 * more than half the PSN space after it. The bound refuses that request,
 * so the duplicate's drop always frees the atomic's own slot.
 */
static void res_dup_atomic_test(struct kunit *test)
{
	struct sroce_res ring[2];
	struct sroce_resp resp = { .res = ring, .nres = ARRAY_SIZE(ring) };
	u32 atomic_psn = 1000, far = sroce_psn_add(1000, SROCE_PSN_HALF + 5);
	struct sroce_res *a, *r;

	/* The ring is the responder's, under its lock. */
	spin_lock_init(&resp.lock);
	spin_lock(&resp.lock);
	memset(ring, 0, sizeof(ring));
	a = res_atomic(test, &resp, atomic_psn);
	/* The far READ is refused while the atomic's answer waits ... */
	KUNIT_EXPECT_FALSE(test, sroce_res_fits(&resp, far, 1));
	/* ... and without the bound, the model holds: the ring stays full. */
	r = res_read(test, &resp, far);
	sroce_res_drop_from(&resp, atomic_psn);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 2U);
	KUNIT_EXPECT_NULL(test, sroce_res_take(&resp));
	KUNIT_EXPECT_TRUE(test, a->pending && r->pending);

	/* Within the bound: a READ after the atomic, then the duplicate. */
	memset(ring, 0, sizeof(ring));
	resp.res_head = 0;
	resp.res_pending = 0;
	a = res_atomic(test, &resp, atomic_psn);
	KUNIT_EXPECT_TRUE(test, sroce_res_fits(&resp, atomic_psn + 1, RES_READ_PSNS));
	r = res_read(test, &resp, atomic_psn + 1);
	sroce_res_drop_from(&resp, atomic_psn);
	KUNIT_EXPECT_EQ(test, resp.res_pending, 0U);
	KUNIT_EXPECT_NOT_NULL(test, sroce_res_take(&resp));
	spin_unlock(&resp.lock);
}

static struct kunit_case sroce_engine_cases[] = {
	KUNIT_CASE(npsn_test),
	KUNIT_CASE(psn_verdict_test),
	KUNIT_CASE(uc_verdict_test),
	KUNIT_CASE(window_test),
	KUNIT_CASE(cwnd_nak_test),
	KUNIT_CASE(cwnd_timeout_test),
	KUNIT_CASE(cwnd_probe_test),
	KUNIT_CASE(cwnd_rtt_test),
	KUNIT_CASE(cwnd_ack_every_test),
	KUNIT_CASE(rnr_timer_test),
	KUNIT_CASE(rnr_wait_test),
	KUNIT_CASE(ack_timeout_test),
	KUNIT_CASE(atomic_fetch_add_test),
	KUNIT_CASE(atomic_cmp_swap_test),
	KUNIT_CASE(tx_limit_test),
	KUNIT_CASE(tx_state_exact_test),
	KUNIT_CASE(tx_state_resized_test),
	KUNIT_CASE(tx_state_drift_test),
	KUNIT_CASE(res_dup_read_test),
	KUNIT_CASE(res_dup_newest_test),
	KUNIT_CASE(res_fits_test),
	KUNIT_CASE(res_dup_atomic_test),
	{}
};

static struct kunit_suite sroce_engine_suite = {
	.name = "sroce_engine",
	.test_cases = sroce_engine_cases,
};

kunit_test_suite(sroce_engine_suite);

MODULE_DESCRIPTION("KUnit tests for sroce's RC and UC engines");
MODULE_LICENSE("GPL");
