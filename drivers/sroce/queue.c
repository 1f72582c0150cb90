// SPDX-License-Identifier: GPL-2.0
/*
 * Rings and their user mappings. A shared ring's memory belongs to its
 * mmap entry from sroce_queue_share() on: the RDMA core frees it through
 * sroce_mmap_free() once the object is gone and no mmap() is in progress;
 * pages still mapped stay alive through their own references. Rings are
 * charged to the memory cgroup of the task that creates them.
 */
#include <kunit/visibility.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "queue.h"
#include "sroce.h"

/**
 * struct sroce_mmap_entry - a ring offered to one user context
 * @rdma: the RDMA core's entry (offset, size, reference count)
 * @vaddr: the ring's vmalloc memory
 */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;
};

static_assert(offsetof(struct sroce_ring, log2_elem_size) == 0);
static_assert(offsetof(struct sroce_ring, index_mask) == 4);
static_assert(offsetof(struct sroce_ring, producer) == 128);
static_assert(offsetof(struct sroce_ring, consumer) == 256);
static_assert(offsetof(struct sroce_ring, data) == 384);

/* Small elements still get a cache line each, as the provider expects. */
#define SROCE_QUEUE_MIN_STRIDE	64
#define SROCE_QUEUE_MAX_STRIDE	SZ_64K

int sroce_queue_init(struct sroce_queue *q, u32 min_slots, size_t elem_bytes,
		     enum sroce_queue_side side)
{
	size_t stride, bytes;
	u32 slots;

	if (!min_slots || min_slots > SROCE_QUEUE_MAX_SLOTS ||
	    !elem_bytes || elem_bytes > SROCE_QUEUE_MAX_STRIDE)
		return -EINVAL;
	/* One slot always stays empty: full and empty must differ. */
	slots = roundup_pow_of_two(min_slots + 1);
	stride = roundup_pow_of_two(max_t(size_t, elem_bytes, SROCE_QUEUE_MIN_STRIDE));
	if (check_mul_overflow((size_t)slots, stride, &bytes) ||
	    check_add_overflow(bytes, sizeof(struct sroce_ring), &bytes))
		return -EINVAL;
	bytes = PAGE_ALIGN(bytes);
	if (bytes > U32_MAX)	/* mminfo.size is 32 bits */
		return -EINVAL;

	/* vmalloc_user() would not charge the ring to the caller's cgroup. */
	q->ring = __vmalloc(bytes, SROCE_GFP_ACCOUNT | __GFP_ZERO);
	if (!q->ring)
		return -ENOMEM;
	q->bytes = bytes;
	q->log2_elem = ilog2(stride);
	q->mask = slots - 1;
	q->side = side;
	q->index = 0;
	q->mmap = NULL;
	q->ring->log2_elem_size = q->log2_elem;
	q->ring->index_mask = q->mask;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_init);

static void *sroce_queue_shadow(const struct sroce_queue *q, size_t stride)
{
	size_t bytes;

	if (check_mul_overflow((size_t)q->mask + 1, stride, &bytes))
		return NULL;
	/* An SQ of 256 slots of 136 bytes: 34 KiB, not kmalloc's 64. */
	if (bytes <= PAGE_SIZE)
		return kzalloc(bytes, SROCE_GFP_ACCOUNT);
	return __vmalloc(bytes, SROCE_GFP_ACCOUNT | __GFP_ZERO);
}

int sroce_queue_shadow_get(const struct sroce_queue *q, size_t stride,
			   u8 **shadow)
{
	u8 *mem;

	/* Acquire pairs with the release below: the zeroes are seen. */
	if (smp_load_acquire(shadow))
		return 0;
	mem = sroce_queue_shadow(q, stride);
	if (!mem)
		return -ENOMEM;
	/* Two callers at once: the first one's stays, the other is freed. */
	if (cmpxchg_release(shadow, NULL, mem))
		kvfree(mem);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_shadow_get);

int sroce_queue_share(struct sroce_queue *q, struct ib_ucontext *uctx,
		      struct mminfo *mi)
{
	struct sroce_mmap_entry *e;
	int err;

	e = kzalloc_obj(*e, SROCE_GFP_ACCOUNT);
	if (!e)
		return -ENOMEM;
	e->vaddr = q->ring;
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma, q->bytes);
	if (err) {
		kfree(e);
		return err;
	}
	q->mmap = &e->rdma;
	mi->offset = rdma_user_mmap_get_offset(&e->rdma);
	mi->size = q->bytes;
	mi->pad = 0;
	return 0;
}

void sroce_queue_release(struct sroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(q->mmap);	/* frees the ring */
	else
		vfree(q->ring);
	q->ring = NULL;
	q->mmap = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_release);

u32 sroce_queue_count(const struct sroce_queue *q)
{
	bool producing = q->side == SROCE_KERNEL_PRODUCES;
	const u32 *theirs = producing ? &q->ring->consumer : &q->ring->producer;
	u32 other;

	/*
	 * Acquire pairs with the other side's release of its index: the
	 * elements it published (or freed) before are visible to us.
	 */
	other = smp_load_acquire(theirs) & q->mask;
	return (producing ? q->index - other : other - q->index) & q->mask;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_count);

void *sroce_queue_slot(const struct sroce_queue *q)
{
	return q->ring->data + ((size_t)(q->index & q->mask) << q->log2_elem);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_slot);

void sroce_queue_advance(struct sroce_queue *q)
{
	u32 *ours = q->side == SROCE_KERNEL_PRODUCES ? &q->ring->producer :
						       &q->ring->consumer;

	q->index = (q->index + 1) & q->mask;
	/* Release: our element accesses complete before the index moves. */
	smp_store_release(ours, q->index);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_advance);

int sroce_queue_copy(const struct sroce_queue *from, struct sroce_queue *to)
{
	bool producing = from->side == SROCE_KERNEL_PRODUCES;
	u32 n = sroce_queue_count(from), first, i;
	size_t bytes = min(BIT(from->log2_elem), BIT(to->log2_elem));

	if (n > sroce_queue_slots(to))
		return -EINVAL;
	/* Our own index is where the waiting elements end or begin. */
	first = producing ? from->index - n : from->index;
	for (i = 0; i < n; i++)
		memcpy(to->ring->data + ((size_t)i << to->log2_elem),
		       from->ring->data +
		       ((size_t)((first + i) & from->mask) << from->log2_elem),
		       bytes);
	to->index = producing ? n : 0;
	to->ring->producer = n;
	to->ring->consumer = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_copy);

/*
 * Every page of the ring at @vaddr into @vma, which is exactly the ring's
 * size. Page by page: remap_vmalloc_range() takes only vmalloc_user()
 * memory, which no cgroup is charged for. Each page mapped holds a
 * reference of its own, so vfree() leaves it to the mapping.
 */
static int sroce_mmap_ring(struct vm_area_struct *vma, void *vaddr)
{
	unsigned long off, size = vma->vm_end - vma->vm_start;
	int err;

	for (off = 0; off < size; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(vaddr + off));
		if (err)
			return err;
	}
	/* A ring neither grows by mremap() nor belongs in a core dump. */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct sroce_mmap_entry *e;
	int err;

	/* Checks VM_SHARED and that the size is exactly the ring's. */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	e = container_of(entry, struct sroce_mmap_entry, rdma);
	err = sroce_mmap_ring(vma, e->vaddr);
	rdma_user_mmap_entry_put(entry);
	return err;
}

void sroce_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sroce_mmap_entry *e = container_of(entry, struct sroce_mmap_entry, rdma);

	vfree(e->vaddr);
	kfree(e);
}
