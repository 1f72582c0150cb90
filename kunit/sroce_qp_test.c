// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the modify_qp decision (qp_verbs.c): every state transition of every
 * QP type sroce has, the attributes transitions require and refuse, and
 * the range of each value. Expectations come from IBTA 1.4 figure 124 and
 * table 91 (11.2.5.2), not from the code under test.
 */
#include <kunit/test.h>

#include "qp.h"
#include "qp_verbs.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

static const enum ib_qp_type qp_types[] = {
	IB_QPT_RC, IB_QPT_UC, IB_QPT_UD, IB_QPT_GSI,
};

/*
 * Transitions legal with no attribute but the new state: into RESET from
 * anywhere, into ERR from anywhere but RESET, the self-loops of INIT, RTS
 * and SQD, RTS and SQD either way, SQE back to RTS, and for datagram QPs
 * INIT to RTR, which requires nothing there.
 */
static bool bare_transition_legal(enum ib_qp_type type, enum ib_qp_state cur,
				  enum ib_qp_state next)
{
	bool datagram = type == IB_QPT_UD || type == IB_QPT_GSI;

	if (next == IB_QPS_RESET)
		return true;
	if (next == IB_QPS_ERR)
		return cur != IB_QPS_RESET;
	return (cur == IB_QPS_INIT && next == IB_QPS_INIT) ||
	       (datagram && cur == IB_QPS_INIT && next == IB_QPS_RTR) ||
	       (cur == IB_QPS_RTS && (next == IB_QPS_RTS || next == IB_QPS_SQD)) ||
	       (cur == IB_QPS_SQD && (next == IB_QPS_SQD || next == IB_QPS_RTS)) ||
	       (cur == IB_QPS_SQE && next == IB_QPS_RTS);
}

static void every_bare_transition_test(struct kunit *test)
{
	struct ib_qp_attr attr = {};
	unsigned int t, legal, want;
	int cur, next;

	for (t = 0; t < ARRAY_SIZE(qp_types); t++) {
		legal = 0;
		for (cur = IB_QPS_RESET; cur <= IB_QPS_ERR; cur++) {
			for (next = IB_QPS_RESET; next <= IB_QPS_ERR; next++) {
				int err;

				attr.qp_state = next;
				err = sroce_qp_modify_check(cur, &attr, IB_QP_STATE,
							    qp_types[t], IB_MTU_1024);
				KUNIT_EXPECT_EQ_MSG(test, err == 0,
						    bare_transition_legal(qp_types[t], cur, next),
						    "type %d: %d -> %d", qp_types[t], cur, next);
				legal += !err;
			}
		}
		/* 7 into RESET, 6 into ERR, 6 more; INIT to RTR for UD and GSI. */
		want = qp_types[t] == IB_QPT_UD || qp_types[t] == IB_QPT_GSI ? 20 : 19;
		KUNIT_EXPECT_EQ(test, legal, want);
	}
}

struct mask_case {
	const char *name;
	enum ib_qp_type type;
	enum ib_qp_state cur, next;
	int mask;
	int err;
};

#define RC_INIT	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
#define UD_INIT	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY)
#define RC_RTR	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN | \
		 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define UC_RTR	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN)
#define RC_RTS	(IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
		 IB_QP_MAX_QP_RD_ATOMIC)

static const struct mask_case mask_cases[] = {
	{ "rc-init", IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT, RC_INIT, 0 },
	{ "rc-init-no-port", IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT,
	  RC_INIT & ~IB_QP_PORT, -EINVAL },
	{ "rc-init-with-qkey", IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT,
	  RC_INIT | IB_QP_QKEY, -EINVAL },
	{ "uc-init", IB_QPT_UC, IB_QPS_RESET, IB_QPS_INIT, RC_INIT, 0 },
	{ "ud-init", IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT, UD_INIT, 0 },
	{ "ud-init-no-qkey", IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT,
	  UD_INIT & ~IB_QP_QKEY, -EINVAL },
	{ "ud-init-with-access", IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT,
	  UD_INIT | IB_QP_ACCESS_FLAGS, -EINVAL },
	{ "rc-rtr", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR, 0 },
	{ "rc-rtr-no-av", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR & ~IB_QP_AV,
	  -EINVAL },
	{ "ud-rtr", IB_QPT_UD, IB_QPS_INIT, IB_QPS_RTR, 0, 0 },
	{ "uc-rtr", IB_QPT_UC, IB_QPS_INIT, IB_QPS_RTR, UC_RTR, 0 },
	{ "uc-rtr-no-dest-qpn", IB_QPT_UC, IB_QPS_INIT, IB_QPS_RTR,
	  UC_RTR & ~IB_QP_DEST_QPN, -EINVAL },
	{ "uc-rtr-with-rd-atomic", IB_QPT_UC, IB_QPS_INIT, IB_QPS_RTR,
	  UC_RTR | IB_QP_MAX_DEST_RD_ATOMIC, -EINVAL },
	{ "uc-rtr-with-rnr-timer", IB_QPT_UC, IB_QPS_INIT, IB_QPS_RTR,
	  UC_RTR | IB_QP_MIN_RNR_TIMER, -EINVAL },
	{ "uc-rts", IB_QPT_UC, IB_QPS_RTR, IB_QPS_RTS, IB_QP_SQ_PSN, 0 },
	{ "uc-rts-with-timeout", IB_QPT_UC, IB_QPS_RTR, IB_QPS_RTS,
	  IB_QP_SQ_PSN | IB_QP_TIMEOUT, -EINVAL },
	{ "uc-rts-with-retry", IB_QPT_UC, IB_QPS_RTR, IB_QPS_RTS,
	  IB_QP_SQ_PSN | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY, -EINVAL },
	{ "uc-rts-with-rd-atomic", IB_QPT_UC, IB_QPS_RTR, IB_QPS_RTS,
	  IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC, -EINVAL },
	{ "rc-rts", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, RC_RTS, 0 },
	{ "rc-rts-no-sq-psn", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS,
	  RC_RTS & ~IB_QP_SQ_PSN, -EINVAL },
	{ "ud-rts", IB_QPT_UD, IB_QPS_RTR, IB_QPS_RTS, IB_QP_SQ_PSN, 0 },
	{ "reset-to-rtr", IB_QPT_RC, IB_QPS_RESET, IB_QPS_RTR, RC_RTR, -EINVAL },
	{ "init-to-rts", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTS, RC_RTS, -EINVAL },
	{ "err-to-rts", IB_QPT_RC, IB_QPS_ERR, IB_QPS_RTS, RC_RTS, -EINVAL },
	{ "alt-path", IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS, IB_QP_ALT_PATH, -EOPNOTSUPP },
	{ "vendor-bit", IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS, BIT(30), -EOPNOTSUPP },
	/* A rate limit paces RC and UC requests; datagrams go unpaced. */
	{ "rc-rate-limit", IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS, IB_QP_RATE_LIMIT, 0 },
	{ "uc-rate-limit", IB_QPT_UC, IB_QPS_RTS, IB_QPS_RTS, IB_QP_RATE_LIMIT, 0 },
	{ "ud-rate-limit", IB_QPT_UD, IB_QPS_RTS, IB_QPS_RTS, IB_QP_RATE_LIMIT, -EINVAL },
};

static void mask_case_desc(const struct mask_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mask, mask_cases, mask_case_desc);

/* Attributes whose every value is in range, so only the mask decides. */
static void fill_valid(struct ib_qp_attr *attr, enum ib_qp_state next)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = next;
	attr->port_num = 1;
	attr->path_mtu = IB_MTU_1024;
	attr->timeout = 14;
	attr->retry_cnt = 7;
	attr->rnr_retry = 7;
	attr->max_rd_atomic = 16;
	attr->max_dest_rd_atomic = 16;
	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	attr->ah_attr.ah_flags = IB_AH_GRH;
}

static void mask_test(struct kunit *test)
{
	const struct mask_case *c = test->param_value;
	struct ib_qp_attr attr;

	fill_valid(&attr, c->next);
	KUNIT_EXPECT_EQ(test, sroce_qp_modify_check(c->cur, &attr, IB_QP_STATE | c->mask,
						    c->type, IB_MTU_1024), c->err);
}

static void values_test(struct kunit *test)
{
	struct ib_qp_attr a;

#define BAD(field, value, bit) do {					\
		fill_valid(&a, IB_QPS_RTS);				\
		a.field = (value);					\
		KUNIT_EXPECT_EQ_MSG(test, sroce_qp_check_params(&a, bit, IB_QPT_RC, \
								IB_MTU_1024), -EINVAL, \
				    #field " = " #value);		\
	} while (0)
	BAD(port_num, 2, IB_QP_PORT);
	BAD(pkey_index, SROCE_PKEY_TABLE_LEN, IB_QP_PKEY_INDEX);
	BAD(path_mtu, IB_MTU_2048, IB_QP_PATH_MTU);	/* above the port's */
	BAD(path_mtu, 0, IB_QP_PATH_MTU);
	BAD(sq_psn, 0x1000000, IB_QP_SQ_PSN);
	BAD(rq_psn, 0xffffffff, IB_QP_RQ_PSN);
	BAD(dest_qp_num, 0x1000000, IB_QP_DEST_QPN);
	BAD(timeout, 32, IB_QP_TIMEOUT);
	BAD(retry_cnt, 8, IB_QP_RETRY_CNT);
	BAD(rnr_retry, 8, IB_QP_RNR_RETRY);
	BAD(min_rnr_timer, 32, IB_QP_MIN_RNR_TIMER);
	BAD(max_rd_atomic, SROCE_MAX_RD_ATOMIC + 1, IB_QP_MAX_QP_RD_ATOMIC);
	BAD(max_dest_rd_atomic, SROCE_MAX_RD_ATOMIC + 1, IB_QP_MAX_DEST_RD_ATOMIC);
	BAD(qp_access_flags, IB_ACCESS_MW_BIND, IB_QP_ACCESS_FLAGS);
	BAD(ah_attr.ah_flags, 0, IB_QP_AV);		/* RoCE needs a GRH */
	BAD(ah_attr.type, RDMA_AH_ATTR_TYPE_IB, IB_QP_AV);
	BAD(rate_limit, 999, IB_QP_RATE_LIMIT);		/* kbit/s, 1 Mbit/s at least */
	BAD(rate_limit, 100000001, IB_QP_RATE_LIMIT);
#undef BAD

	/* The edges that are still in range. */
	fill_valid(&a, IB_QPS_RTS);
	a.sq_psn = 0xffffff;
	a.rq_psn = 0xffffff;
	a.timeout = 31;
	a.min_rnr_timer = 31;
	a.max_rd_atomic = SROCE_MAX_RD_ATOMIC;
	a.path_mtu = IB_MTU_256;
	KUNIT_EXPECT_EQ(test, sroce_qp_check_params(&a, IB_QP_SQ_PSN | IB_QP_RQ_PSN |
						    IB_QP_TIMEOUT | IB_QP_MIN_RNR_TIMER |
						    IB_QP_MAX_QP_RD_ATOMIC | IB_QP_PATH_MTU,
						    IB_QPT_RC, IB_MTU_1024), 0);
	/* A stale current state is refused. */
	fill_valid(&a, IB_QPS_ERR);
	a.cur_qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, sroce_qp_modify_check(IB_QPS_INIT, &a,
						    IB_QP_STATE | IB_QP_CUR_STATE,
						    IB_QPT_RC, IB_MTU_1024), -EINVAL);
}

static void cap_test(struct kunit *test)
{
	struct ib_qp_cap cap = {
		.max_send_wr = SROCE_MAX_QP_WR, .max_recv_wr = SROCE_MAX_QP_WR,
		.max_send_sge = SROCE_MAX_SGE, .max_recv_sge = SROCE_MAX_SGE,
		.max_inline_data = SROCE_MAX_INLINE,
	};

	KUNIT_EXPECT_EQ(test, sroce_qp_check_cap(&cap, false), 0);
	cap.max_send_wr++;
	KUNIT_EXPECT_EQ(test, sroce_qp_check_cap(&cap, false), -EINVAL);
	cap.max_send_wr--;
	cap.max_inline_data++;
	KUNIT_EXPECT_EQ(test, sroce_qp_check_cap(&cap, false), -EINVAL);
	cap.max_inline_data--;
	cap.max_recv_sge++;
	KUNIT_EXPECT_EQ(test, sroce_qp_check_cap(&cap, false), -EINVAL);
	/* With an SRQ the receive side is not the QP's. */
	KUNIT_EXPECT_EQ(test, sroce_qp_check_cap(&cap, true), 0);
	cap.max_send_sge = SROCE_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, sroce_qp_check_cap(&cap, true), -EINVAL);
}

static struct kunit_case sroce_qp_cases[] = {
	KUNIT_CASE(every_bare_transition_test),
	KUNIT_CASE_PARAM(mask_test, mask_gen_params),
	KUNIT_CASE(values_test),
	KUNIT_CASE(cap_test),
	{}
};

static struct kunit_suite sroce_qp_suite = {
	.name = "sroce_qp",
	.test_cases = sroce_qp_cases,
};

kunit_test_suite(sroce_qp_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's QP state machine and checks");
MODULE_LICENSE("GPL");
