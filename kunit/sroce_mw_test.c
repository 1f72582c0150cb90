// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the rules of memory windows (mw.c): which binds go through
 * (PDs, the MR's access, the range, the window's type and state, its
 * key), and which remote accesses a bound window lets through (key,
 * state, PD, rights, the QP of a type 2 window, the bound range) and
 * where in the MR they land (zero-based windows).
 */
#include <kunit/test.h>

#include "mr.h"
#include "mw.h"
#include "sroce.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

#define MW_INDEX	0x1234
#define MR_KEY		0x00abcd07
#define MR_START	0x10000
#define MR_LEN		0x4000

/* One bind, as a change of a good one. */
struct bind_case {
	const char *name;
	enum ib_mw_type type;
	enum sroce_mw_state state;
	bool other_pd;		/* the MW's PD is not the QP's */
	bool mr_other_pd;	/* the MR's PD is not the QP's */
	bool no_mr;		/* no MR found (length 0) */
	int mr_access;
	u64 addr, length;
	int access;
	int rkey_delta;		/* new rkey minus the window's (0: same) */
	bool other_index;	/* new rkey with another index */
	int err;
};

#define MR_RW	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		 IB_ACCESS_REMOTE_READ | IB_ACCESS_MW_BIND)
#define RW	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)

static const struct bind_case bind_cases[] = {
	{ "t1-ok", IB_MW_TYPE_1, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START, .length = MR_LEN, .access = RW, .rkey_delta = 1 },
	{ "t1-rebind-valid", IB_MW_TYPE_1, SROCE_MW_VALID, .mr_access = MR_RW,
	  .addr = MR_START + 8, .length = 8, .access = RW, .rkey_delta = 1 },
	{ "t1-same-key", IB_MW_TYPE_1, SROCE_MW_VALID, .mr_access = MR_RW,
	  .addr = MR_START, .length = 8, .access = RW },
	{ "t1-zero-length", IB_MW_TYPE_1, SROCE_MW_VALID, .no_mr = true,
	  .mr_access = MR_RW, .addr = MR_START, .rkey_delta = 1 },
	{ "t1-zero-based", IB_MW_TYPE_1, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START, .length = 8, .access = RW | IB_ZERO_BASED,
	  .rkey_delta = 1, .err = -EINVAL },
	{ "t2-ok", IB_MW_TYPE_2, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START, .length = MR_LEN, .access = RW, .rkey_delta = 1 },
	{ "t2-not-free", IB_MW_TYPE_2, SROCE_MW_VALID, .mr_access = MR_RW,
	  .addr = MR_START, .length = 8, .access = RW, .rkey_delta = 1,
	  .err = -EINVAL },
	{ "t2-zero-length", IB_MW_TYPE_2, SROCE_MW_FREE, .no_mr = true,
	  .mr_access = MR_RW, .addr = MR_START, .rkey_delta = 1,
	  .err = -EINVAL },
	{ "t2-same-key", IB_MW_TYPE_2, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START, .length = 8, .access = RW, .err = -EINVAL },
	{ "t2-zero-based", IB_MW_TYPE_2, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START, .length = 8, .access = RW | IB_ZERO_BASED,
	  .rkey_delta = 1 },
	{ "other-index", IB_MW_TYPE_2, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START, .length = 8, .access = RW, .rkey_delta = 1,
	  .other_index = true, .err = -EINVAL },
	{ "mw-other-pd", IB_MW_TYPE_1, SROCE_MW_FREE, .other_pd = true,
	  .mr_access = MR_RW, .addr = MR_START, .length = 8, .access = RW,
	  .rkey_delta = 1, .err = -EINVAL },
	{ "mr-other-pd", IB_MW_TYPE_2, SROCE_MW_FREE, .mr_other_pd = true,
	  .mr_access = MR_RW, .addr = MR_START, .length = 8, .access = RW,
	  .rkey_delta = 1, .err = -EINVAL },
	{ "mr-no-bind", IB_MW_TYPE_2, SROCE_MW_FREE,
	  .mr_access = MR_RW & ~IB_ACCESS_MW_BIND, .addr = MR_START,
	  .length = 8, .access = IB_ACCESS_REMOTE_READ, .rkey_delta = 1,
	  .err = -EINVAL },
	{ "write-no-local-write", IB_MW_TYPE_1, SROCE_MW_FREE,
	  .mr_access = IB_ACCESS_REMOTE_READ | IB_ACCESS_MW_BIND,
	  .addr = MR_START, .length = 8, .access = IB_ACCESS_REMOTE_WRITE,
	  .rkey_delta = 1, .err = -EINVAL },
	{ "atomic-no-local-write", IB_MW_TYPE_2, SROCE_MW_FREE,
	  .mr_access = IB_ACCESS_REMOTE_READ | IB_ACCESS_MW_BIND,
	  .addr = MR_START, .length = 8, .access = IB_ACCESS_REMOTE_ATOMIC,
	  .rkey_delta = 1, .err = -EINVAL },
	{ "read-no-local-write", IB_MW_TYPE_2, SROCE_MW_FREE,
	  .mr_access = IB_ACCESS_REMOTE_READ | IB_ACCESS_MW_BIND,
	  .addr = MR_START, .length = 8, .access = IB_ACCESS_REMOTE_READ,
	  .rkey_delta = 1 },
	{ "wider-than-mr-access", IB_MW_TYPE_2, SROCE_MW_FREE,
	  .mr_access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND,
	  .addr = MR_START, .length = 8, .access = RW, .rkey_delta = 1 },
	{ "before-mr", IB_MW_TYPE_2, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START - 1, .length = 8, .access = RW, .rkey_delta = 1,
	  .err = -EINVAL },
	{ "past-mr-end", IB_MW_TYPE_2, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START + MR_LEN - 4, .length = 8, .access = RW,
	  .rkey_delta = 1, .err = -EINVAL },
	{ "wraps", IB_MW_TYPE_1, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START + 8, .length = U64_MAX, .access = RW,
	  .rkey_delta = 1, .err = -EINVAL },
	{ "unknown-access", IB_MW_TYPE_2, SROCE_MW_FREE, .mr_access = MR_RW,
	  .addr = MR_START, .length = 8, .access = RW | IB_ACCESS_MW_BIND,
	  .rkey_delta = 1, .err = -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(bind, bind_cases, name);

static void mw_setup(struct sroce_mw *mw, enum ib_mw_type type,
		     struct ib_pd *pd, enum sroce_mw_state state, u32 key)
{
	mw->ibmw.type = type;
	mw->ibmw.pd = pd;
	mw->state = state;
	mw->key = key;
}

static void bind_check_test(struct kunit *test)
{
	const struct bind_case *c = test->param_value;
	struct ib_pd pd = {}, other = {};
	struct sroce_mw mw = {};
	struct sroce_mr mr = {};
	struct sroce_mw_bind b = {};

	mw_setup(&mw, c->type, c->other_pd ? &other : &pd, c->state,
		 sroce_key_make(MW_INDEX, 0x10));
	mr.pd = c->mr_other_pd ? &other : &pd;
	mr.key = MR_KEY;
	mr.access = c->mr_access;
	mr.state = SROCE_MR_VALID;
	mr.ibmr.iova = MR_START;
	mr.ibmr.length = MR_LEN;

	b.addr = c->addr;
	b.length = c->length;
	b.mr_lkey = MR_KEY;
	b.mw_rkey = mw.key;
	b.rkey = sroce_key_make(c->other_index ? MW_INDEX + 1 : MW_INDEX,
				0x10 + c->rkey_delta);
	b.access = c->access;

	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(&mw, &pd, c->no_mr ? NULL : &mr, &b),
			c->err);
}

/* The window is named by its rkey's index; the MR must be usable. */
static void bind_stale_rkey_test(struct kunit *test)
{
	struct ib_pd pd = {};
	struct sroce_mw mw = { .ibmw = { .type = IB_MW_TYPE_1, .pd = &pd } };
	struct sroce_mr mr = { .pd = &pd, .key = MR_KEY, .state = SROCE_MR_VALID,
			       .access = MR_RW };
	struct sroce_mw_bind b = { .addr = MR_START, .length = 8,
				   .mr_lkey = MR_KEY, .access = RW };

	mr.ibmr.iova = MR_START;
	mr.ibmr.length = MR_LEN;
	mw.key = sroce_key_make(MW_INDEX, 3);
	b.mw_rkey = sroce_key_make(MW_INDEX + 1, 3);
	b.rkey = sroce_key_make(MW_INDEX, 4);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(&mw, &pd, &mr, &b), -EINVAL);
	/* Another variant byte: the rkey libibverbs kept from alloc_mw. */
	b.mw_rkey = sroce_key_make(MW_INDEX, 2);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(&mw, &pd, &mr, &b), 0);
	/* An MR not valid (invalidated, being reregistered) is refused. */
	mr.state = SROCE_MR_FREE;
	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(&mw, &pd, &mr, &b), -EINVAL);
	/* The lkey must be the MR's whole key. */
	mr.state = SROCE_MR_VALID;
	b.mr_lkey = MR_KEY + 1;
	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(&mw, &pd, &mr, &b), -EINVAL);
}

/* One remote access through a bound window. */
struct access_case {
	const char *name;
	enum ib_mw_type type;
	enum sroce_mw_state state;
	bool no_mr;
	int rkey_delta;
	bool other_pd;
	u64 qp_id;
	bool zero_based;	/* the window was bound with IB_ZERO_BASED */
	int access;
	u64 addr, len;
	int err;
	u64 mr_addr;		/* where the access lands, when it may */
};

#define WIN_ADDR	(MR_START + 0x100)
#define WIN_LEN		0x200
#define BOUND_QP	0x11

static const struct access_case access_cases[] = {
	{ "t1-read", IB_MW_TYPE_1, SROCE_MW_VALID, .qp_id = 0x99,
	  .access = IB_ACCESS_REMOTE_READ, .addr = WIN_ADDR, .len = WIN_LEN,
	  .mr_addr = WIN_ADDR },
	{ "t2-write-bound-qp", IB_MW_TYPE_2, SROCE_MW_VALID, .qp_id = BOUND_QP,
	  .access = IB_ACCESS_REMOTE_WRITE, .addr = WIN_ADDR, .len = 1,
	  .mr_addr = WIN_ADDR },
	{ "t2-other-qp", IB_MW_TYPE_2, SROCE_MW_VALID, .qp_id = BOUND_QP + 1,
	  .access = IB_ACCESS_REMOTE_WRITE, .addr = WIN_ADDR, .len = 1,
	  .err = -EACCES },
	{ "free", IB_MW_TYPE_2, SROCE_MW_FREE, .qp_id = BOUND_QP,
	  .access = IB_ACCESS_REMOTE_READ, .addr = WIN_ADDR, .len = 1,
	  .err = -EINVAL },
	{ "no-mr", IB_MW_TYPE_1, SROCE_MW_VALID, .no_mr = true,
	  .access = IB_ACCESS_REMOTE_READ, .addr = WIN_ADDR, .len = 1,
	  .err = -EINVAL },
	{ "old-key", IB_MW_TYPE_1, SROCE_MW_VALID, .rkey_delta = -1,
	  .access = IB_ACCESS_REMOTE_READ, .addr = WIN_ADDR, .len = 1,
	  .err = -EINVAL },
	{ "other-pd", IB_MW_TYPE_1, SROCE_MW_VALID, .other_pd = true,
	  .access = IB_ACCESS_REMOTE_READ, .addr = WIN_ADDR, .len = 1,
	  .err = -EACCES },
	{ "atomic-not-granted", IB_MW_TYPE_1, SROCE_MW_VALID,
	  .access = IB_ACCESS_REMOTE_ATOMIC, .addr = WIN_ADDR, .len = 8,
	  .err = -EACCES },
	{ "before-window", IB_MW_TYPE_1, SROCE_MW_VALID,
	  .access = IB_ACCESS_REMOTE_READ, .addr = WIN_ADDR - 1, .len = 2,
	  .err = -ERANGE },
	{ "past-window", IB_MW_TYPE_1, SROCE_MW_VALID,
	  .access = IB_ACCESS_REMOTE_READ, .addr = WIN_ADDR, .len = WIN_LEN + 1,
	  .err = -ERANGE },
	{ "last-byte", IB_MW_TYPE_2, SROCE_MW_VALID, .qp_id = BOUND_QP,
	  .access = IB_ACCESS_REMOTE_WRITE, .addr = WIN_ADDR + WIN_LEN - 1,
	  .len = 1, .mr_addr = WIN_ADDR + WIN_LEN - 1 },
	{ "whole", IB_MW_TYPE_1, SROCE_MW_VALID,
	  .access = IB_ACCESS_REMOTE_READ, .addr = 5, .len = SROCE_MR_WHOLE,
	  .mr_addr = WIN_ADDR },
	{ "zero-based-first", IB_MW_TYPE_2, SROCE_MW_VALID, .qp_id = BOUND_QP,
	  .zero_based = true, .access = IB_ACCESS_REMOTE_READ, .addr = 0,
	  .len = 16, .mr_addr = WIN_ADDR },
	{ "zero-based-last", IB_MW_TYPE_2, SROCE_MW_VALID, .qp_id = BOUND_QP,
	  .zero_based = true, .access = IB_ACCESS_REMOTE_WRITE,
	  .addr = WIN_LEN - 1, .len = 1, .mr_addr = WIN_ADDR + WIN_LEN - 1 },
	{ "zero-based-past", IB_MW_TYPE_2, SROCE_MW_VALID, .qp_id = BOUND_QP,
	  .zero_based = true, .access = IB_ACCESS_REMOTE_READ,
	  .addr = WIN_LEN - 1, .len = 2, .err = -ERANGE },
	{ "zero-based-mr-address", IB_MW_TYPE_2, SROCE_MW_VALID,
	  .qp_id = BOUND_QP, .zero_based = true,
	  .access = IB_ACCESS_REMOTE_READ, .addr = WIN_ADDR, .len = 1,
	  .err = -ERANGE },
	{ "zero-based-wraps", IB_MW_TYPE_2, SROCE_MW_VALID, .qp_id = BOUND_QP,
	  .zero_based = true, .access = IB_ACCESS_REMOTE_READ,
	  .addr = U64_MAX, .len = 2, .err = -ERANGE },
};

KUNIT_ARRAY_PARAM_DESC(access, access_cases, name);

static void access_check_test(struct kunit *test)
{
	const struct access_case *c = test->param_value;
	struct ib_pd pd = {}, other = {};
	struct sroce_mw mw = {};
	struct sroce_mr mr = {};
	u32 key = sroce_key_make(MW_INDEX, 0x40);
	u64 addr;

	mw_setup(&mw, c->type, &pd, c->state, key);
	mw.mr = c->no_mr ? NULL : &mr;
	mw.addr = WIN_ADDR;
	mw.length = WIN_LEN;
	mw.access = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
		    (c->zero_based ? IB_ZERO_BASED : 0);
	mw.qp_id = BOUND_QP;
	addr = c->addr;
	KUNIT_EXPECT_EQ(test,
			sroce_mw_access_check(&mw, key + c->rkey_delta,
					      c->other_pd ? &other : &pd,
					      c->qp_id, c->access, &addr,
					      c->len),
			c->err);
	/* Translated on success, untouched on failure. */
	KUNIT_EXPECT_EQ(test, addr, c->err ? c->addr : c->mr_addr);
}

static struct kunit_case sroce_mw_cases[] = {
	KUNIT_CASE_PARAM(bind_check_test, bind_gen_params),
	KUNIT_CASE(bind_stale_rkey_test),
	KUNIT_CASE_PARAM(access_check_test, access_gen_params),
	{}
};

static struct kunit_suite sroce_mw_suite = {
	.name = "sroce_mw",
	.test_cases = sroce_mw_cases,
};

kunit_test_suite(sroce_mw_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's memory window rules");
MODULE_LICENSE("GPL");
