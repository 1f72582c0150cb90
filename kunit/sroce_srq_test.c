// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: receive rings (srq.c, queue.c). Posting and taking WQEs in order,
 * a full ring, WQEs a hostile producer made malformed, the move of posted
 * WQEs into a resized ring, a WQE too small for a datagram left in place,
 * the SRQ limit event firing once, when the WQEs left fall below the
 * armed limit, and a ring's shadow made once, on its first use.
 */
#include <kunit/test.h>

#include "srq.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

#define TEST_SGE	2

static struct sroce_queue *ring_new(struct kunit *test, u32 slots)
{
	struct sroce_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, sroce_queue_init(q, slots, sizeof(struct rxe_recv_wqe) +
					       TEST_SGE * sizeof(struct rxe_sge),
					       SROCE_KERNEL_CONSUMES), 0);
	return q;
}

static int post(struct sroce_queue *q, u64 wr_id, u32 len0, u32 len1)
{
	struct ib_sge sge[TEST_SGE] = {
		{ .addr = 0x1000, .length = len0, .lkey = 0x100 },
		{ .addr = 0x2000, .length = len1, .lkey = 0x200 },
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = 2 };

	return sroce_rwqe_post(q, TEST_SGE, &wr);
}

static struct rxe_recv_wqe *producer_slot(struct sroce_queue *q)
{
	return (struct rxe_recv_wqe *)(q->ring->data +
				       ((size_t)q->ring->producer << q->log2_elem));
}

static void post_take_test(struct kunit *test)
{
	struct sroce_queue *q = ring_new(test, 3);
	struct sroce_rwqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);
	u64 i;

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	KUNIT_EXPECT_EQ(test, sroce_queue_slots(q), 3U);
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 0), -ENOENT);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, post(q, 10 + i, 100, (u32)i), 0);
	KUNIT_EXPECT_EQ(test, post(q, 13, 1, 1), -ENOMEM);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 0), 0);
		KUNIT_EXPECT_EQ(test, wqe->wr_id, 10 + i);
		KUNIT_EXPECT_EQ(test, wqe->num_sge, 2U);
		KUNIT_EXPECT_EQ(test, wqe->length, 100 + (u32)i);
		KUNIT_EXPECT_EQ(test, wqe->sge[1].lkey, 0x200U);
	}
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 0), -ENOENT);
	/* Around the ring's end: indexes wrap at the mask. */
	for (i = 0; i < 7; i++) {
		KUNIT_ASSERT_EQ(test, post(q, i, 1, 1), 0);
		KUNIT_ASSERT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 0), 0);
		KUNIT_EXPECT_EQ(test, wqe->wr_id, i);
	}
	sroce_queue_release(q);
}

static void bad_wqe_test(struct kunit *test)
{
	struct sroce_queue *q = ring_new(test, 7);
	struct sroce_rwqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);
	struct ib_recv_wr wr = { .num_sge = TEST_SGE + 1 };
	struct rxe_recv_wqe *slot;

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	/* Refused when posted by the kernel... */
	KUNIT_EXPECT_EQ(test, sroce_rwqe_post(q, TEST_SGE, &wr), -EINVAL);
	KUNIT_EXPECT_EQ(test, post(q, 1, U32_MAX, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 0U);

	/* ...and caught when written straight into the ring, as users can. */
	KUNIT_ASSERT_EQ(test, post(q, 2, 8, 8), 0);
	slot = producer_slot(q);
	KUNIT_ASSERT_EQ(test, post(q, 3, 8, 8), 0);
	slot->dma.num_sge = 0xffffffff;
	slot = producer_slot(q);
	KUNIT_ASSERT_EQ(test, post(q, 4, 8, 8), 0);
	slot->dma.sge[0].length = U32_MAX;
	KUNIT_ASSERT_EQ(test, post(q, 5, 8, 8), 0);

	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 0), 0);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 4ULL);
	/* A bad WQE is consumed: the next one is intact. */
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 0), 0);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 5ULL);
	KUNIT_EXPECT_EQ(test, wqe->length, 16U);
	sroce_queue_release(q);
}

static void too_small_test(struct kunit *test)
{
	struct sroce_queue *q = ring_new(test, 3);
	struct sroce_rwqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	KUNIT_ASSERT_EQ(test, post(q, 1, 40, 24), 0);
	KUNIT_ASSERT_EQ(test, post(q, 2, 40, 200), 0);
	/* 64 bytes do not hold 65: the WQE stays, and stays first. */
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 65), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 2U);
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 65), -EMSGSIZE);
	/* Exactly its size fits. */
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 64), 0);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(q, TEST_SGE, wqe, 65), 0);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 0U);
	sroce_queue_release(q);
}

static void resize_copy_test(struct kunit *test)
{
	struct sroce_queue *from = ring_new(test, 7), *to = ring_new(test, 31);
	struct sroce_queue *small = ring_new(test, 3);
	struct sroce_rwqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);
	u64 i;

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	/* Move the consumer off zero so that the waiting WQEs wrap. */
	for (i = 0; i < 6; i++) {
		KUNIT_ASSERT_EQ(test, post(from, 0, 1, 1), 0);
		KUNIT_ASSERT_EQ(test, sroce_rwqe_take(from, TEST_SGE, wqe, 0), 0);
	}
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, post(from, 100 + i, 1, 2), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_copy(from, small), -EINVAL);
	KUNIT_ASSERT_EQ(test, sroce_queue_copy(from, to), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(to), 5U);
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_EQ(test, sroce_rwqe_take(to, TEST_SGE, wqe, 0), 0);
		KUNIT_EXPECT_EQ(test, wqe->wr_id, 100 + i);
		KUNIT_EXPECT_EQ(test, wqe->length, 3U);
	}
	/* The producer index moved too: posting goes on after them. */
	KUNIT_EXPECT_EQ(test, post(to, 200, 1, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_rwqe_take(to, TEST_SGE, wqe, 0), 0);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 200ULL);
	sroce_queue_release(from);
	sroce_queue_release(to);
	sroce_queue_release(small);
}

struct event_log {
	struct kunit *test;
	int events;
};

static void count_event(struct ib_event *ev, void *ctx)
{
	struct event_log *log = ctx;

	KUNIT_EXPECT_EQ(log->test, ev->event, IB_EVENT_SRQ_LIMIT_REACHED);
	log->events++;
}

static void limit_test(struct kunit *test)
{
	struct sroce_srq *srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);
	struct sroce_rwqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);
	struct event_log log = { .test = test };
	u64 i;

	KUNIT_ASSERT_NOT_NULL(test, srq);
	KUNIT_ASSERT_NOT_NULL(test, wqe);
	spin_lock_init(&srq->lock);
	srq->max_sge = TEST_SGE;
	srq->ibsrq.event_handler = count_event;
	srq->ibsrq.srq_context = &log;
	srq->rq = *ring_new(test, 15);
	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, post(&srq->rq, i, 1, 1), 0);

	/* Not armed: no event however low it gets. */
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, wqe, 0), 0);
	KUNIT_EXPECT_EQ(test, log.events, 0);
	/* 9 left, limit 7: 8 and 7 are not below it, 6 is. */
	srq->limit = 7;
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, wqe, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, wqe, 0), 0);
	KUNIT_EXPECT_EQ(test, log.events, 0);
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, wqe, 0), 0);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, log.events, 1);
	KUNIT_EXPECT_EQ(test, srq->limit, 0U);
	/* One event per arming. */
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, wqe, 0), 0);
	KUNIT_EXPECT_EQ(test, log.events, 1);
	/* An empty SRQ takes nothing and tells nothing. */
	srq->limit = 15;
	while (sroce_srq_take(srq, wqe, 0) != -ENOENT)
		;
	KUNIT_EXPECT_EQ(test, log.events, 2);
	srq->limit = 1;
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, wqe, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, log.events, 2);
	sroce_queue_release(&srq->rq);
}

/* The first call makes the shadow, zeroed, an entry a slot; later ones keep it. */
static void shadow_test(struct kunit *test)
{
	struct sroce_queue *q = ring_new(test, 255);
	const size_t stride = 136, bytes = ((size_t)q->mask + 1) * stride;
	u8 *shadow = NULL, *first;
	size_t i;

	KUNIT_ASSERT_EQ(test, sroce_queue_shadow_get(q, stride, &shadow), 0);
	KUNIT_ASSERT_NOT_NULL(test, shadow);
	for (i = 0; i < bytes; i++)
		KUNIT_ASSERT_EQ(test, shadow[i], 0);
	/* Every slot's entry is there, the last one too (KASAN would see). */
	memset(shadow, 0xa5, bytes);
	first = shadow;
	KUNIT_EXPECT_EQ(test, sroce_queue_shadow_get(q, stride, &shadow), 0);
	KUNIT_EXPECT_PTR_EQ(test, shadow, first);
	KUNIT_EXPECT_EQ(test, shadow[0], 0xa5);
	kvfree(shadow);
	sroce_queue_release(q);
}

static struct kunit_case sroce_srq_cases[] = {
	KUNIT_CASE(post_take_test),
	KUNIT_CASE(bad_wqe_test),
	KUNIT_CASE(too_small_test),
	KUNIT_CASE(resize_copy_test),
	KUNIT_CASE(limit_test),
	KUNIT_CASE(shadow_test),
	{}
};

static struct kunit_suite sroce_srq_suite = {
	.name = "sroce_srq",
	.test_cases = sroce_srq_cases,
};

kunit_test_suite(sroce_srq_suite);

MODULE_DESCRIPTION("KUnit tests of sroce's receive rings and SRQ limit");
MODULE_LICENSE("GPL");
