// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: MR bounds and access checks and key composition (mr.c): the
 * range check at the region's first and last byte, one past it, zero
 * lengths, and regions that end at 2^64; the states of a
 * fast-registration MR through REG_MR and invalidation, and how its page
 * list maps addresses; an invalidation that waits for the MR's users;
 * a user MR's range attached to an skb.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/skbuff.h>
#include <rdma/ib_umem.h>

#include "mr.h"
#include "sroce.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

struct range_case {
	const char *name;
	u64 start, size, addr, len;
	bool within;
};

static const struct range_case range_cases[] = {
	{ "whole", 0x1000, 0x100, 0x1000, 0x100, true },
	{ "first-byte", 0x1000, 0x100, 0x1000, 1, true },
	{ "last-byte", 0x1000, 0x100, 0x10ff, 1, true },
	{ "one-past-end", 0x1000, 0x100, 0x1100, 1, false },
	{ "one-before", 0x1000, 0x100, 0xfff, 1, false },
	{ "one-too-long", 0x1000, 0x100, 0x1000, 0x101, false },
	{ "straddles-end", 0x1000, 0x100, 0x10f0, 0x20, false },
	{ "zero-len-inside", 0x1000, 0x100, 0x1080, 0, true },
	{ "zero-len-at-end", 0x1000, 0x100, 0x1100, 0, true },
	{ "zero-len-past-end", 0x1000, 0x100, 0x1101, 0, false },
	{ "zero-size-region", 0x1000, 0, 0x1000, 1, false },
	{ "ends-at-2^64", U64_MAX - 9, 10, U64_MAX, 1, true },
	{ "wraps-past-2^64", U64_MAX - 9, 10, U64_MAX, 2, false },
	{ "huge-len-wraps", 0x1000, 0x100, 0x1010, U64_MAX, false },
	{ "huge-addr", 0x1000, 0x100, U64_MAX, 1, false },
	{ "everything", 0, U64_MAX, 0, U64_MAX, true },
	{ "everything-but-last", 0, U64_MAX, U64_MAX, 1, false },
};

static void range_case_desc(const struct range_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(range, range_cases, range_case_desc);

static void range_within_test(struct kunit *test)
{
	const struct range_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, sroce_range_within(c->start, c->size, c->addr, c->len),
			c->within);
}

static void access_check_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_LOCAL_WRITE |
						    IB_ACCESS_REMOTE_WRITE |
						    IB_ACCESS_REMOTE_ATOMIC |
						    IB_ACCESS_REMOTE_READ), 0);
	/* Remote write or atomic without local write: IBTA forbids it. */
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_REMOTE_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_REMOTE_ATOMIC), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_REMOTE_READ |
						    IB_ACCESS_REMOTE_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_ON_DEMAND), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ZERO_BASED), -EOPNOTSUPP);
	/* Optional flags are hints. */
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(IB_ACCESS_RELAXED_ORDERING), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_access_check(BIT(19)), -EINVAL);
}

static void key_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_key_make(1, 0), 0x100U);
	KUNIT_EXPECT_EQ(test, sroce_key_make(0xffffff, 0xff), 0xffffffffU);
	KUNIT_EXPECT_EQ(test, sroce_key_index(0xabcdef12), 0xabcdefU);
	KUNIT_EXPECT_EQ(test, sroce_key_index(sroce_key_make(0x123456, 0x78)), 0x123456U);
	/* The variant byte never moves the index (ib_inc_rkey). */
	KUNIT_EXPECT_EQ(test, sroce_key_index(ib_inc_rkey(sroce_key_make(0x42, 0xff))),
			0x42U);
}

/* One MR, every way an access through it can be refused, and one way in. */
static void mr_check_test(struct kunit *test)
{
	struct sroce_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	struct ib_pd *pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	struct ib_pd *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	const u32 key = sroce_key_make(0x123456, 0x9a);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, other);
	mr->key = key;
	mr->pd = pd;
	mr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	mr->ibmr.iova = 0x10000;
	mr->ibmr.length = 0x2000;

	/* Not valid yet (a fast-registration MR before REG_MR). */
	mr->state = SROCE_MR_FREE;
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x10000, 1), -EINVAL);
	mr->state = SROCE_MR_VALID;
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x10000, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_LOCAL_WRITE,
					     0x10000, 0x2000), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_READ,
					     0x11fff, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_READ,
					     0x12000, 0), 0);
	/* Same index, other variant byte: a stale or guessed key. */
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key ^ 1, pd, 0, 0x10000, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, other, 0, 0x10000, 1), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_WRITE,
					     0x10000, 1), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_ATOMIC,
					     0x10000, 8), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x12000, 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0xffff, 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x10001, 0x2000), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, U64_MAX, 2), -ERANGE);
}

/* A fast-registration MR through REG_MR, invalidation and REG_MR again. */
static void fast_reg_test(struct kunit *test)
{
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	struct sroce_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	struct ib_pd *pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	struct ib_pd *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	const u32 key = sroce_key_make(0x4242, 0x01), next = sroce_key_make(0x4242, 0x02);
	const int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, other);
	xa_init(&sdev->mr_keys);
	mr->kind = SROCE_MR_FAST;
	mr->state = SROCE_MR_FREE;
	mr->pd = pd;
	mr->key = key;
	mr->ibmr.iova = 0x1000;
	mr->ibmr.length = 0x1000;
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&sdev->mr_keys, 0x4242, mr, GFP_KERNEL)), 0);

	/* Refused: another PD, another index, remote write without local. */
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(&mr->ibmr, other, key, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(&mr->ibmr, pd, sroce_key_make(0x4243, 1), rw),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(&mr->ibmr, pd, key, IB_ACCESS_REMOTE_WRITE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mr->state, SROCE_MR_FREE);
	/* Registered: valid under its key with its access; not twice. */
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(&mr->ibmr, pd, key, rw), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, IB_ACCESS_REMOTE_WRITE, 0x1000, 8), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(&mr->ibmr, pd, next, rw), -EINVAL);
	/* Invalidation needs the exact key and the PD. */
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(sdev, next, pd), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(sdev, key, other), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(sdev, sroce_key_make(0x777, 1), pd), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(sdev, key, pd), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x1000, 8), -EINVAL);
	/* Invalidating a free MR again changes nothing and is no error. */
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(sdev, key, pd), 0);
	/* A new variant: the old key no longer reaches it. */
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(&mr->ibmr, pd, next, IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, key, pd, 0, 0x1000, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, next, pd, IB_ACCESS_REMOTE_WRITE, 0x1000, 8),
			-EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(sdev, key, pd), -EINVAL);
	/* While a REG_MR changes it, nothing else may. */
	mr->state = SROCE_MR_BUSY;
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(sdev, next, pd), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(&mr->ibmr, pd, next, rw), -EINVAL);
	/* Other kinds of MR are neither registered nor invalidated so. */
	mr->state = SROCE_MR_VALID;
	mr->kind = SROCE_MR_USER;
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(sdev, next, pd), -EINVAL);
	KUNIT_EXPECT_EQ(test, mr->state, SROCE_MR_VALID);
	xa_destroy(&sdev->mr_keys);
}

/* All a LOCAL_INV needs; not kunit memory: see invalidate_waits_test(). */
struct invalidate_ctx {
	struct sroce_dev sdev;
	struct sroce_mr mr;
	struct ib_pd pd;
	u32 key;
	int err;
	struct completion done;
};

static int invalidate_thread(void *arg)
{
	struct invalidate_ctx *c = arg;

	c->err = sroce_mr_invalidate(&c->sdev, c->key, &c->pd);
	complete(&c->done);
	return 0;
}

/*
 * LOCAL_INV while the packet path holds the MR (a WRITE being placed, a
 * READ chain being built): the invalidation ends only once that user has
 * let go, and no new user finds the MR meanwhile.
 */
static void invalidate_waits_test(struct kunit *test)
{
	const int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct invalidate_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);
	struct sroce_mr *mr, *user;
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, c);
	mr = &c->mr;
	c->key = sroce_key_make(0x4343, 0x01);
	xa_init(&c->sdev.mr_keys);
	mr->kind = SROCE_MR_FAST;
	mr->state = SROCE_MR_FREE;
	mr->pd = &c->pd;
	mr->key = c->key;
	mr->ibmr.iova = 0x1000;
	mr->ibmr.length = 0x1000;
	refcount_set(&mr->refs, 1);
	init_completion(&mr->idle);
	init_completion(&c->done);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&c->sdev.mr_keys, 0x4343, mr, GFP_KERNEL)), 0);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(&mr->ibmr, &c->pd, c->key, rw), 0);
	user = sroce_mr_get(&c->sdev, c->key, &c->pd, IB_ACCESS_REMOTE_WRITE, 0x1000, 8);
	KUNIT_ASSERT_FALSE(test, IS_ERR(user));

	t = kthread_run(invalidate_thread, c, "sroce-inv-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	msleep(200);
	KUNIT_EXPECT_FALSE(test, completion_done(&c->done));
	KUNIT_EXPECT_TRUE(test, IS_ERR(sroce_mr_get(&c->sdev, c->key, &c->pd,
						    IB_ACCESS_REMOTE_WRITE, 0x1000, 8)));
	sroce_mr_put(user);
	if (!wait_for_completion_timeout(&c->done, msecs_to_jiffies(5000))) {
		/* Leaked on purpose: the thread may still read it. */
		KUNIT_FAIL(test, "the invalidation did not end after its user let go");
		return;
	}
	KUNIT_EXPECT_EQ(test, c->err, 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->refs), 1);
	xa_destroy(&c->sdev.mr_keys);
	kfree(c);
}

struct walk_log {
	u8 *p[8];
	u32 len[8];
	int n;
};

static void log_piece(void *ctx, void *kaddr, u32 len)
{
	struct walk_log *log = ctx;

	if (log->n < ARRAY_SIZE(log->p)) {
		log->p[log->n] = kaddr;
		log->len[log->n] = len;
	}
	log->n++;
}

/* Addresses of a fast-registration MR to its pages, page by page. */
static void fast_walk_test(struct kunit *test)
{
	struct sroce_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	u8 *a = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u8 *b = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u64 pages[2];
	struct walk_log log = {};

	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	pages[0] = (uintptr_t)a;
	pages[1] = (uintptr_t)b;
	mr->kind = SROCE_MR_FAST;
	mr->pages = pages;
	mr->npages = 2;
	mr->ibmr.page_size = 4096;
	/* The MR starts 0x100 into its first page, as map_mr_sg leaves it. */
	mr->ibmr.iova = 0x7000100;
	mr->ibmr.length = 2 * 4096 - 0x100;
	KUNIT_EXPECT_EQ(test, sroce_mr_walk(mr, 0x7000100, 16, log_piece, &log), 0);
	KUNIT_EXPECT_EQ(test, log.n, 1);
	KUNIT_EXPECT_PTR_EQ(test, log.p[0], a + 0x100);
	/* Across the page boundary: two pieces. */
	log.n = 0;
	KUNIT_EXPECT_EQ(test, sroce_mr_walk(mr, 0x7000ff0, 0x20, log_piece, &log), 0);
	KUNIT_EXPECT_EQ(test, log.n, 2);
	KUNIT_EXPECT_PTR_EQ(test, log.p[0], a + 0xff0);
	KUNIT_EXPECT_EQ(test, log.len[0], 0x10U);
	KUNIT_EXPECT_PTR_EQ(test, log.p[1], b);
	KUNIT_EXPECT_EQ(test, log.len[1], 0x10U);
	/* The last byte. */
	log.n = 0;
	KUNIT_EXPECT_EQ(test, sroce_mr_walk(mr, 0x7001fff, 1, log_piece, &log), 0);
	KUNIT_EXPECT_PTR_EQ(test, log.p[0], b + 0xfff);
}

/*
 * A user MR's range attached to an skb as page fragments: the pages
 * referenced while the skb lives, a piece that goes on in the same page
 * merged with the fragment before it, the bytes those of the pages, the
 * fragment limit and the MR kinds that have no pages to lend refused.
 */
static void attach_test(struct kunit *test)
{
	struct sroce_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	struct ib_umem *umem = kunit_kzalloc(test, sizeof(*umem), GFP_KERNEL);
	u8 *got = kunit_kzalloc(test, 0x1100, GFP_KERNEL);
	struct page *pages[3] = {};
	struct skb_shared_info *sh;
	struct sk_buff *skb = NULL;
	unsigned int i, j;

	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, umem);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i]) {
			KUNIT_FAIL(test, "no page");
			goto out;
		}
		for (j = 0; j < PAGE_SIZE; j++)
			((u8 *)page_address(pages[i]))[j] = i * 0x40 + j * 3;
	}
	/* The registration starts 0x100 into its first page. */
	umem->address = 0x5550100;
	mr->kind = SROCE_MR_USER;
	mr->umem = umem;
	mr->upages = pages;
	mr->nupages = ARRAY_SIZE(pages);
	mr->ibmr.iova = 0x7000100;
	mr->ibmr.length = 3 * PAGE_SIZE - 0x100;

	skb = alloc_skb(64, GFP_KERNEL);
	if (!skb) {
		KUNIT_FAIL(test, "no skb");
		goto out;
	}
	sh = skb_shinfo(skb);
	KUNIT_EXPECT_EQ(test, sroce_mr_attach(mr, 0x7000100, 0x20, skb, 4), 0);
	KUNIT_EXPECT_EQ(test, sh->nr_frags, 1);
	KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&sh->frags[0]), pages[0]);
	KUNIT_EXPECT_EQ(test, skb_frag_off(&sh->frags[0]), 0x100U);
	KUNIT_EXPECT_EQ(test, page_ref_count(pages[0]), 2);
	/* On in the same page: merged, no second reference; then page 1. */
	KUNIT_EXPECT_EQ(test, sroce_mr_attach(mr, 0x7000120, 0x1000, skb, 4), 0);
	KUNIT_EXPECT_EQ(test, sh->nr_frags, 2);
	KUNIT_EXPECT_EQ(test, skb_frag_size(&sh->frags[0]), PAGE_SIZE - 0x100);
	KUNIT_EXPECT_EQ(test, page_ref_count(pages[0]), 2);
	KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&sh->frags[1]), pages[1]);
	KUNIT_EXPECT_EQ(test, skb_frag_size(&sh->frags[1]), 0x120U);
	KUNIT_EXPECT_EQ(test, skb->len, 0x1020U);
	KUNIT_EXPECT_EQ(test, skb->data_len, 0x1020U);
	KUNIT_EXPECT_TRUE(test, skb_has_shared_frag(skb));
	KUNIT_EXPECT_EQ(test, skb_copy_bits(skb, 0, got, 0x1020), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, page_address(pages[0]) + 0x100,
				     PAGE_SIZE - 0x100), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got + PAGE_SIZE - 0x100,
				     page_address(pages[1]), 0x120), 0);
	/* Two more pages' pieces, room for one more fragment: refused. */
	KUNIT_EXPECT_EQ(test, sroce_mr_attach(mr, 0x7001ff0, 0x20, skb, 3), -EMSGSIZE);
	/* Kernel memory has no user pages to lend. */
	mr->kind = SROCE_MR_DMA;
	KUNIT_EXPECT_EQ(test, sroce_mr_attach(mr, 0x7000100, 0x20, skb, 8), -EOPNOTSUPP);
	mr->kind = SROCE_MR_FAST;
	KUNIT_EXPECT_EQ(test, sroce_mr_attach(mr, 0x7000100, 0x20, skb, 8), -EOPNOTSUPP);
	kfree_skb(skb);
	skb = NULL;
	/* Freed with the skb: each page back to its own reference alone. */
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		KUNIT_EXPECT_EQ(test, page_ref_count(pages[i]), 1);
out:
	kfree_skb(skb);
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		if (pages[i])
			__free_page(pages[i]);
}

static struct kunit_case sroce_mr_cases[] = {
	KUNIT_CASE_PARAM(range_within_test, range_gen_params),
	KUNIT_CASE(access_check_test),
	KUNIT_CASE(key_test),
	KUNIT_CASE(mr_check_test),
	KUNIT_CASE(fast_reg_test),
	KUNIT_CASE(invalidate_waits_test),
	KUNIT_CASE(fast_walk_test),
	KUNIT_CASE(attach_test),
	{}
};

static struct kunit_suite sroce_mr_suite = {
	.name = "sroce_mr",
	.test_cases = sroce_mr_cases,
};

kunit_test_suite(sroce_mr_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's MR checks and keys");
MODULE_LICENSE("GPL");
