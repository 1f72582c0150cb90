// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging. The RDMA core's ib_umem_odp watches the range with an
 * MMU interval notifier and faults pages in with hmm_range_fault(); sroce
 * keeps the pages present in its own array, read and written under a
 * spinlock so that the softirq data path can use them:
 *
 *   access      (any context) under odp->lock: all pages present, copy;
 *               one missing, queue a fault and answer -EFAULT
 *   fault       (process context) umem_mutex held by the core's helper,
 *               the notifier sequence checked: enter the pages found
 *   invalidate  (the notifier) umem_mutex, the sequence moved on, the
 *               pages cleared under odp->lock, then unmapped by the core
 *
 * Who waits for a fault, and how, is Documentation/verbs.rst,
 * "On-demand paging".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/highmem.h>
#include <linux/hmm.h>
#include <linux/mmu_notifier.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem_odp.h>

#include "odp.h"
#include "sroce.h"

void sroce_odp_span(u32 lead, u64 off, u64 len, unsigned long *first,
		    unsigned long *last)
{
	*first = (lead + off) >> PAGE_SHIFT;
	*last = (lead + off + len - 1) >> PAGE_SHIFT;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_odp_span);

#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)

/* A fault queued by the data path. */
struct sroce_odp_fault {
	struct work_struct work;
	struct sroce_odp *odp;
	u64 off;
	u32 len;
};

/*
 * A writable MR takes only pages it may write: a page faulted for
 * reading may be the shared zero page.
 */
int sroce_odp_map(struct sroce_odp *odp, u64 off, u64 len, bool fault)
{
	struct ib_umem_odp *umem = odp->umem;
	unsigned long first, last, i;
	u64 mask = odp->writable ? SROCE_ODP_MASK_WRITE : SROCE_ODP_MASK_READ;
	unsigned long *pfns;
	int ret;

	if (!len)
		return 0;
	ret = ib_umem_odp_map_dma_and_lock(umem, umem->umem.address + off, len,
					   mask, fault);
	if (ret < 0)
		return ret;
	/* umem_mutex held: the pfns are current until we let it go. */
	pfns = sroce_odp_pfns(umem);
	sroce_odp_span(odp->lead, off, len, &first, &last);
	spin_lock_irq(&odp->lock);
	for (i = first; i <= last && i < odp->npages; i++) {
		if (!(pfns[i] & HMM_PFN_VALID) ||
		    (odp->writable && !(pfns[i] & HMM_PFN_WRITE)))
			continue;
		odp->pages[i] = hmm_pfn_to_page(pfns[i]);
	}
	spin_unlock_irq(&odp->lock);
	mutex_unlock(&umem->umem_mutex);
	return 0;
}

static void sroce_odp_fault_work(struct work_struct *work)
{
	struct sroce_odp_fault *f = container_of(work, struct sroce_odp_fault,
						 work);
	struct sroce_odp *odp = f->odp;
	int err;

	err = sroce_odp_map(odp, f->off, f->len, true);
	if (err)
		pr_debug_ratelimited("ODP fault of %u bytes failed: %d\n",
				     f->len, err);
	kfree(f);
	/* The last one lets sroce_odp_free() go on. */
	if (atomic_dec_and_test(&odp->queued))
		wake_up_var(&odp->queued);
}

/* Queue a fault of @len bytes at @off; dropped when too many wait. */
static void sroce_odp_fault_queue(struct sroce_odp *odp, u64 off, u32 len)
{
	struct sroce_odp_fault *f;

	if (atomic_inc_return(&odp->queued) > SROCE_ODP_MAX_QUEUED)
		goto err_drop;
	f = kzalloc_obj(*f, GFP_ATOMIC);
	if (!f)
		goto err_drop;
	INIT_WORK(&f->work, sroce_odp_fault_work);
	f->odp = odp;
	f->off = off;
	f->len = len;
	queue_work(system_unbound_wq, &f->work);
	return;

err_drop:
	/* Whoever wanted the pages asks again, and queues another. */
	if (atomic_dec_and_test(&odp->queued))
		wake_up_var(&odp->queued);
}

int sroce_odp_walk(struct sroce_odp *odp, u64 off, u32 len,
		   sroce_mr_chunk_fn fn, void *ctx)
{
	unsigned long first, last, i;
	u64 at = odp->lead + off;
	unsigned long flags;
	u32 in, n;
	u8 *kaddr;

	if (!len)
		return 0;
	sroce_odp_span(odp->lead, off, len, &first, &last);
	if (WARN_ON_ONCE(last >= odp->npages))
		return -EINVAL;
	spin_lock_irqsave(&odp->lock, flags);
	for (i = first; i <= last; i++)
		if (!odp->pages[i])
			goto err_missing;
	/* No invalidation can take a page while we hold the lock. */
	for (; fn && len; len -= n, at += n) {
		in = at & ~PAGE_MASK;
		n = min_t(u32, len, PAGE_SIZE - in);
		kaddr = kmap_local_page(odp->pages[at >> PAGE_SHIFT]);
		fn(ctx, kaddr + in, n);
		kunmap_local(kaddr);
	}
	spin_unlock_irqrestore(&odp->lock, flags);
	return 0;

err_missing:
	spin_unlock_irqrestore(&odp->lock, flags);
	sroce_odp_fault_queue(odp, off, len);
	return -EFAULT;
}

/*
 * The MMU notifier: pages of the range are going. Once the sequence has
 * moved on no fault can enter them again, and once they are cleared
 * under odp->lock no copy uses them; only then may the core unmap them.
 */
static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						notifier);
	struct sroce_odp *odp = umem->private;
	unsigned long start, end, first, last, i;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max(range->start, ib_umem_start(umem));
	end = min(range->end, ib_umem_end(umem));
	/* Not yet set while sroce_odp_new() registers: nothing entered. */
	if (start < end && odp) {
		first = (start - ib_umem_start(umem)) >> PAGE_SHIFT;
		last = min(DIV_ROUND_UP(end - ib_umem_start(umem), PAGE_SIZE),
			   odp->npages);
		/* Written through the MR, maybe: the bytes must be kept. */
		for (i = first; odp->writable && i < last; i++)
			if (odp->pages[i])
				set_page_dirty(compound_head(odp->pages[i]));
		spin_lock_irq(&odp->lock);
		for (i = first; i < last; i++)
			odp->pages[i] = NULL;
		spin_unlock_irq(&odp->lock);
	}
	if (start < end)
		ib_umem_odp_unmap_dma_pages(umem, start, end);
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_ops = {
	.invalidate = sroce_odp_invalidate,
};

struct sroce_odp *sroce_odp_new(struct ib_device *ibdev, u64 start, u64 length,
				int access)
{
	struct ib_umem_odp *umem;
	struct sroce_odp *odp;
	int err;

	odp = kzalloc_obj(*odp, SROCE_GFP_ACCOUNT);
	if (!odp)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&odp->lock);
	atomic_set(&odp->queued, 0);
	odp->writable = ib_access_writable(access);
	odp->lead = start & ~PAGE_MASK;
	umem = ib_umem_odp_get(ibdev, start, length, access, &sroce_odp_ops);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free;
	}
	odp->npages = ib_umem_odp_num_pages(umem);
	odp->pages = kvcalloc(odp->npages, sizeof(*odp->pages),
			      SROCE_GFP_ACCOUNT);
	if (!odp->pages) {
		err = -ENOMEM;
		goto err_release;
	}
	odp->umem = umem;
	/* Under umem_mutex: the notifier sees all of it or nothing. */
	mutex_lock(&umem->umem_mutex);
	umem->private = odp;
	mutex_unlock(&umem->umem_mutex);
	return odp;

err_release:
	ib_umem_odp_release(umem);
err_free:
	kfree(odp);
	return ERR_PTR(err);
}

void sroce_odp_free(struct sroce_odp *odp)
{
	/* The faults still queued use the pages array and the umem. */
	wait_var_event(&odp->queued, !atomic_read(&odp->queued));
	/* Removes the notifier: no invalidation runs after this. */
	ib_umem_odp_release(odp->umem);
	kvfree(odp->pages);
	kfree(odp);
}

#else /* !CONFIG_INFINIBAND_ON_DEMAND_PAGING */

int sroce_odp_map(struct sroce_odp *odp, u64 off, u64 len, bool fault)
{
	return -EOPNOTSUPP;
}

int sroce_odp_walk(struct sroce_odp *odp, u64 off, u32 len,
		   sroce_mr_chunk_fn fn, void *ctx)
{
	return -EINVAL;
}

struct sroce_odp *sroce_odp_new(struct ib_device *ibdev, u64 start, u64 length,
				int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

void sroce_odp_free(struct sroce_odp *odp)
{
}

#endif /* CONFIG_INFINIBAND_ON_DEMAND_PAGING */
