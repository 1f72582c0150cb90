/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rings of fixed-size elements, shared with user space through mmap for
 * user objects (the rdma-core rxe provider's layout) and private for
 * kernel objects.
 *
 * Trust: for a user ring, everything in the buffer is writable by user
 * space at any time. The kernel keeps the geometry and its own index in
 * struct sroce_queue, reads the other side's index once per use, masks it,
 * and never takes anything else from the header.
 */
#ifndef _SROCE_QUEUE_H
#define _SROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

/**
 * struct sroce_ring - the shared ring as laid out for the rxe provider
 * @log2_elem_size: log2 of the element stride (for user space)
 * @index_mask: slots - 1 (for user space)
 * @pad0: keeps @producer on its own cache lines
 * @producer: producer index, stored masked
 * @pad1: keeps @consumer on its own cache lines
 * @consumer: consumer index, stored masked
 * @pad2: up to the elements
 * @data: the elements
 */
struct sroce_ring {
	u32 log2_elem_size;
	u32 index_mask;
	u32 pad0[30];
	u32 producer;
	u32 pad1[31];
	u32 consumer;
	u32 pad2[31];
	u8 data[];
};

/**
 * enum sroce_queue_side - which index the kernel owns
 * @SROCE_KERNEL_PRODUCES: the kernel writes elements (CQ)
 * @SROCE_KERNEL_CONSUMES: the kernel reads elements (SQ, RQ, SRQ)
 */
enum sroce_queue_side {
	SROCE_KERNEL_PRODUCES,
	SROCE_KERNEL_CONSUMES,
};

/**
 * struct sroce_queue - the kernel's view of one ring
 * @ring: the buffer (vmalloc memory, charged to the creator's cgroup)
 * @bytes: size of @ring, page aligned
 * @log2_elem: log2 of the element stride
 * @mask: slots - 1; usable slots are @mask
 * @side: which index is ours
 * @index: our index, the authoritative copy
 * @mmap: the user mapping's entry, or NULL for a kernel ring
 */
struct sroce_queue {
	struct sroce_ring *ring;
	size_t bytes;
	u32 log2_elem;
	u32 mask;
	enum sroce_queue_side side;
	u32 index;
	struct rdma_user_mmap_entry *mmap;
};

/**
 * sroce_queue_shadow_get() - the kernel's copies of a ring's elements
 * @q: the ring, set up
 * @stride: bytes an element
 * @shadow: where the copies are, NULL until this makes them
 *
 * Makes *@shadow zeroed memory of one element a slot of @q, unless it
 * is there already; safe against another caller doing the same (one
 * allocation stays, published with release; readers load *@shadow with
 * acquire). Past a page the memory is allocated page by page, not as
 * the power of two of pages kmalloc would take. Freed with kvfree().
 *
 * Context: process context, may sleep.
 * Return: 0 (*@shadow is set) or -ENOMEM.
 */
int sroce_queue_shadow_get(const struct sroce_queue *q, size_t stride,
			   u8 **shadow);

/**
 * sroce_queue_init() - allocate a ring
 * @q: queue to set up
 * @min_slots: usable slots wanted; rounded up so that a power of two
 *	minus one is at least this
 * @elem_bytes: element size; the stride is its next power of two
 * @side: which index the kernel owns
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for zero or oversized requests, -ENOMEM (also when
 * the ring would take the caller's memory cgroup over its limit).
 */
int sroce_queue_init(struct sroce_queue *q, u32 min_slots, size_t elem_bytes,
		     enum sroce_queue_side side);

/**
 * sroce_queue_share() - make a ring mappable by a user context
 * @q: an initialised queue
 * @uctx: the user context that may map it
 * @mi: filled with what the provider passes to mmap()
 *
 * Context: process context.
 * Return: 0 or a negative errno; on error the ring stays private.
 */
int sroce_queue_share(struct sroce_queue *q, struct ib_ucontext *uctx,
		      struct mminfo *mi);

/**
 * sroce_queue_release() - drop a ring
 * @q: queue, initialised or zeroed
 *
 * A shared ring's pages live on until the last user mapping goes.
 *
 * Context: process context.
 */
void sroce_queue_release(struct sroce_queue *q);

/**
 * sroce_queue_count() - elements waiting for the consumer
 * @q: the queue
 *
 * Reads the other side's index once (acquire) and masks it.
 *
 * Context: the caller serialises users of @q's own index.
 * Return: number of elements between consumer and producer.
 */
u32 sroce_queue_count(const struct sroce_queue *q);

/**
 * sroce_queue_slot() - the element at our own index
 * @q: the queue
 *
 * For a producing queue the slot to fill next, for a consuming one the
 * oldest element.
 *
 * Context: the caller serialises users of @q's own index.
 * Return: the element's address inside the ring.
 */
void *sroce_queue_slot(const struct sroce_queue *q);

/**
 * sroce_queue_advance() - move our own index by one and publish it
 * @q: the queue
 *
 * Publishes with release semantics: the element written (or read) before
 * is complete when the other side sees the index move.
 *
 * Context: the caller serialises users of @q's own index.
 */
void sroce_queue_advance(struct sroce_queue *q);

/**
 * sroce_queue_copy() - move the waiting elements of a ring into a new one
 * @from: the ring being replaced
 * @to: a new, empty ring of the same side and element size or larger
 *
 * The elements between consumer and producer of @from land at the start
 * of @to, in order; @to's indices are set to match. Used by resize.
 *
 * Context: the caller keeps both sides of @from still.
 * Return: 0, or -EINVAL when they do not fit.
 */
int sroce_queue_copy(const struct sroce_queue *from, struct sroce_queue *to);

/**
 * sroce_queue_slots() - usable slots of a ring
 * @q: the queue
 *
 * Context: any.
 * Return: number of elements the ring holds at once.
 */
static inline u32 sroce_queue_slots(const struct sroce_queue *q)
{
	return q->mask;
}

/**
 * sroce_mmap() - map a ring into user space (ib_device_ops.mmap)
 * @uctx: the caller's user context
 * @vma: the mapping; its offset names the ring
 *
 * Context: process context.
 * Return: 0, or -EINVAL for an unknown offset or a size that is not the
 * ring's.
 */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);

/**
 * sroce_mmap_free() - free a ring once nothing refers to it
 * @entry: the ring's mmap entry (ib_device_ops.mmap_free)
 *
 * Context: process context.
 */
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* _SROCE_QUEUE_H */
