// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and their keys.
 *
 * A key is 32 bits: a 24-bit index drawn at random, under which the MR is
 * found in the device's key table, and an 8-bit variant byte the consumer
 * may change (ib_update_fast_reg_key). A remote peer that does not know a
 * key has to guess 24 random bits of index and 8 of variant. lkey and rkey
 * are the same value; whether it admits remote access is decided by the
 * MR's access flags, not by the key.
 *
 * The key table is read under RCU by the packet path (sroce_mr_get()): an
 * index is reserved when the key is drawn, and the MR is stored under it
 * only once it is complete. Users hold references; see struct sroce_mr for
 * how dereg and rereg wait for them.
 */
#include <kunit/visibility.h>
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "mr.h"
#include "odp.h"
#include "sroce.h"

#define SROCE_KEY_INDEX_SHIFT	8
#define SROCE_KEY_INDEX_MAX	(BIT(24) - 1)
/* Attempts at a free random index before giving up: the table is sparse. */
#define SROCE_KEY_TRIES		64

bool sroce_range_within(u64 start, u64 size, u64 addr, u64 len)
{
	/* No sums: nothing here can wrap around 2^64. */
	return addr >= start && len <= size && addr - start <= size - len;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_range_within);

int sroce_mr_access_check(int access)
{
	/* Remote write or atomic access needs local write (IBTA 10.6.3.1). */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (access & (IB_ACCESS_ON_DEMAND | IB_ZERO_BASED))
		return -EOPNOTSUPP;
	/*
	 * No persistent memory to flush to: refused as rdma_rxe refuses it
	 * on pages that are not pmem, so no FLUSH is told it persisted.
	 */
	if (access & IB_ACCESS_FLUSH_PERSISTENT)
		return -EINVAL;
	if (access & ~(SROCE_MR_ACCESS_KNOWN | IB_ACCESS_OPTIONAL))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_access_check);

u32 sroce_key_make(u32 index, u8 variant)
{
	return index << SROCE_KEY_INDEX_SHIFT | variant;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_key_make);

u32 sroce_key_index(u32 key)
{
	return key >> SROCE_KEY_INDEX_SHIFT;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_key_index);

int sroce_mr_check(const struct sroce_mr *mr, u32 key, const struct ib_pd *pd,
		   int access, u64 addr, u64 len)
{
	/* Acquire pairs with the release that made the MR valid. */
	if (smp_load_acquire(&mr->state) != SROCE_MR_VALID || mr->key != key)
		return -EINVAL;
	if (mr->pd != pd || (access & mr->access) != access)
		return -EACCES;
	if (len != SROCE_MR_WHOLE &&
	    !sroce_range_within(mr->ibmr.iova, mr->ibmr.length, addr, len))
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_check);

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key,
			      const struct ib_pd *pd, int access,
			      u64 addr, u64 len)
{
	struct sroce_mr *mr;
	int err;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_keys, sroce_key_index(key));
	/* No reference left: being deregistered or reregistered. */
	if (mr && !refcount_inc_not_zero(&mr->refs))
		mr = NULL;
	rcu_read_unlock();
	/* The reference before the state (pairs with sroce_mr_invalidate()). */
	smp_mb__after_atomic();
	if (!mr)
		return ERR_PTR(-EINVAL);
	err = sroce_mr_check(mr, key, pd, access, addr, len);
	if (err) {
		sroce_mr_put(mr);
		return ERR_PTR(err);
	}
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_get);

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->refs))
		complete(&mr->idle);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_put);

/*
 * A fast-registration MR: its pages are kernel addresses (the RDMA core
 * maps for a device without a DMA device by the virtual address), each
 * of the MR's page size; the iova's offset in the first page is where
 * the MR starts in it.
 */
static int sroce_mr_walk_fast(const struct sroce_mr *mr, u64 iova, u32 len,
			      sroce_mr_chunk_fn fn, void *ctx)
{
	u32 ps = mr->ibmr.page_size, in, n;
	u64 off, idx;

	if (!is_power_of_2(ps))
		return -EINVAL;
	off = iova - mr->ibmr.iova + (mr->ibmr.iova & (ps - 1));
	for (; len; len -= n, off += n) {
		idx = off / ps;
		in = off & (ps - 1);
		n = min(len, ps - in);
		/* sroce_mr_check() bounded the range; the page list too. */
		if (WARN_ON_ONCE(idx >= mr->npages))
			return -EINVAL;
		fn(ctx, (void *)(uintptr_t)(mr->pages[idx] + in), n);
	}
	return 0;
}

/*
 * Visit the pages of user MR @mr behind @len bytes at @iova: @fn gets
 * each page with the offset and length of the piece in it, in order, and
 * an error it returns ends the walk.
 */
static int sroce_mr_user_pages(const struct sroce_mr *mr, u64 iova, u32 len,
			       int (*fn)(void *ctx, struct page *page, u32 in,
					 u32 n),
			       void *ctx)
{
	u64 off = iova - mr->ibmr.iova + ib_umem_offset(mr->umem);
	u32 n, in;
	int err;

	for (; len; len -= n, off += n) {
		in = off & ~PAGE_MASK;
		n = min_t(u32, len, PAGE_SIZE - in);
		/* sroce_mr_check() bounded the range; the array too. */
		if (WARN_ON_ONCE((off >> PAGE_SHIFT) >= mr->nupages))
			return -EINVAL;
		err = fn(ctx, mr->upages[off >> PAGE_SHIFT], in, n);
		if (err)
			return err;
	}
	return 0;
}

struct sroce_mr_map_ctx {
	sroce_mr_chunk_fn fn;
	void *ctx;
};

static int sroce_mr_map_piece(void *ctx, struct page *page, u32 in, u32 n)
{
	struct sroce_mr_map_ctx *m = ctx;
	u8 *kaddr = kmap_local_page(page);

	m->fn(m->ctx, kaddr + in, n);
	kunmap_local(kaddr);
	return 0;
}

int sroce_mr_walk(const struct sroce_mr *mr, u64 iova, u32 len,
		  sroce_mr_chunk_fn fn, void *ctx)
{
	struct sroce_mr_map_ctx m = { .fn = fn, .ctx = ctx };

	switch (mr->kind) {
	case SROCE_MR_DMA:
		/* Kernel consumers address kernel memory (virtual DMA). */
		if (len)
			fn(ctx, (void *)(uintptr_t)iova, len);
		return 0;
	case SROCE_MR_USER:
		return sroce_mr_user_pages(mr, iova, len, sroce_mr_map_piece, &m);
	case SROCE_MR_FAST:
		return sroce_mr_walk_fast(mr, iova, len, fn, ctx);
	case SROCE_MR_ODP:
		return sroce_odp_walk(mr->odp, iova - mr->ibmr.iova, len, fn, ctx);
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_walk);

int sroce_mr_ready(const struct sroce_mr *mr, u64 iova, u32 len)
{
	if (mr->kind != SROCE_MR_ODP)
		return 0;
	/* No visitor: the pages are only looked up. */
	return sroce_odp_walk(mr->odp, iova - mr->ibmr.iova, len, NULL, NULL);
}

struct sroce_mr_attach_ctx {
	struct sk_buff *skb;
	unsigned int max_frags;
};

static int sroce_mr_attach_piece(void *ctx, struct page *page, u32 in, u32 n)
{
	struct sroce_mr_attach_ctx *a = ctx;
	struct skb_shared_info *shinfo = skb_shinfo(a->skb);
	unsigned int nr = shinfo->nr_frags;

	if (nr && skb_can_coalesce(a->skb, nr, page, in)) {
		/* The bytes go on where the last fragment ends. */
		skb_frag_size_add(&shinfo->frags[nr - 1], n);
	} else {
		if (nr >= a->max_frags)
			return -EMSGSIZE;
		/* Ours while the skb lives, whatever the MR does. */
		get_page(page);
		skb_fill_page_desc_noacc(a->skb, nr, page, in, n);
	}
	skb_len_add(a->skb, n);
	return 0;
}

int sroce_mr_attach(const struct sroce_mr *mr, u64 iova, u32 len,
		    struct sk_buff *skb, unsigned int max_frags)
{
	struct sroce_mr_attach_ctx a = { .skb = skb, .max_frags = max_frags };
	int err;

	if (mr->kind != SROCE_MR_USER)
		return -EOPNOTSUPP;
	err = sroce_mr_user_pages(mr, iova, len, sroce_mr_attach_piece, &a);
	if (err)
		return err;
	/* Pages a user can write: the stack copies before it changes them. */
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_attach);

int sroce_sge_walk(struct sroce_dev *sdev, struct ib_pd *pd,
		   const struct ib_sge *sge, u32 num_sge, u32 at, u32 len,
		   int access, sroce_mr_chunk_fn fn, void *ctx)
{
	struct sroce_mr *mr;
	u32 i, n;
	int err;

	for (i = 0; i < num_sge && len; i++) {
		if (at >= sge[i].length) {
			at -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - at);
		mr = sroce_mr_get(sdev, sge[i].lkey, pd, access,
				  sge[i].addr + at, n);
		if (IS_ERR(mr))
			return -EACCES;
		err = sroce_mr_walk(mr, sge[i].addr + at, n, fn, ctx);
		sroce_mr_put(mr);
		if (err)
			return err == -EFAULT ? err : -EACCES;
		len -= n;
		at = 0;
	}
	return len ? -EMSGSIZE : 0;
}

/* The pages of a user MR, in order, for sroce_mr_walk(). */
static struct page **sroce_mr_page_list(struct ib_umem *umem, size_t *n)
{
	size_t max = DIV_ROUND_UP(ib_umem_offset(umem) + umem->length, PAGE_SIZE);
	struct sg_page_iter it;
	struct page **pages;
	size_t i = 0;

	pages = kvcalloc(max, sizeof(*pages), SROCE_GFP_ACCOUNT);
	if (!pages)
		return NULL;
	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (i == max)
			break;
		pages[i++] = sg_page_iter_page(&it);
	}
	*n = i;
	return pages;
}

/* Take the MR out of use and wait until nobody uses it. */
static void sroce_mr_quiesce(struct sroce_mr *mr)
{
	/* Release pairs with sroce_mr_check()'s acquire; no new user. */
	smp_store_release(&mr->state, SROCE_MR_FREE);
	sroce_mr_put(mr);
	wait_for_completion(&mr->idle);
}

/* Make the MR usable again after sroce_mr_quiesce(). */
static void sroce_mr_resume(struct sroce_mr *mr)
{
	reinit_completion(&mr->idle);
	refcount_set(&mr->refs, 1);
	/* Release: what the MR describes is complete before it is valid. */
	smp_store_release(&mr->state, SROCE_MR_VALID);
}

static struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

int sroce_key_reserve(struct sroce_dev *sdev, u32 *index)
{
	unsigned int i;
	int err;

	for (i = 0; i < SROCE_KEY_TRIES; i++) {
		*index = get_random_u32_inclusive(1, SROCE_KEY_INDEX_MAX);
		/* Reserved (NULL to lookups) until something is stored. */
		err = xa_insert(&sdev->mr_keys, *index, NULL, GFP_KERNEL);
		if (err != -EBUSY)
			return err;
	}
	return -ENOSPC;
}

/* Give @mr a fresh random key and enter it in the device's table. */
static int sroce_mr_key_alloc(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	u32 index, key;
	int err;

	err = sroce_key_reserve(sdev, &index);
	if (err)
		return err;
	key = sroce_key_make(index, get_random_u8());
	mr->key = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

/* Store a complete MR under its reserved index; valid unless @fast. */
static void sroce_mr_publish(struct sroce_dev *sdev, struct sroce_mr *mr,
			     bool fast)
{
	/* The slot is reserved: storing allocates nothing and cannot fail. */
	xa_store(&sdev->mr_keys, sroce_key_index(mr->key), mr, GFP_KERNEL);
	if (fast)
		return;
	/* Release: the MR is complete before a lookup sees it valid. */
	smp_store_release(&mr->state, SROCE_MR_VALID);
}

static struct sroce_mr *sroce_mr_new(struct ib_pd *pd, enum sroce_mr_kind kind,
				     int access)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	struct sroce_mr *mr;
	int err;

	err = sroce_obj_take(sdev, SROCE_OBJ_MR);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc_obj(*mr, SROCE_GFP_ACCOUNT);
	if (!mr) {
		err = -ENOMEM;
		goto err_count;
	}
	mr->kind = kind;
	mr->state = SROCE_MR_FREE;
	mr->pd = pd;
	mr->access = access;
	refcount_set(&mr->refs, 1);
	init_completion(&mr->idle);
	err = sroce_mr_key_alloc(sdev, mr);
	if (err)
		goto err_free;
	return mr;

err_free:
	kfree(mr);
err_count:
	sroce_obj_put(sdev, SROCE_OBJ_MR);
	return ERR_PTR(err);
}

/*
 * No new lookup finds the MR once it is out of the table; users that found
 * it before drop their references; lookups still holding its address in
 * an RCU section are gone after the grace period kfree_rcu() waits for.
 */
static void sroce_mr_free(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	xa_erase(&sdev->mr_keys, sroce_key_index(mr->key));
	sroce_mr_quiesce(mr);
	ib_umem_release(mr->umem);
	if (mr->odp)
		sroce_odp_free(mr->odp);
	kvfree(mr->upages);
	kfree(mr->pages);
	kfree_rcu(mr, rcu);
	sroce_obj_put(sdev, SROCE_OBJ_MR);
}

static struct ib_mr *sroce_get_dma_mr(struct ib_pd *pd, int access)
{
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_access_check(access);
	if (err)
		return ERR_PTR(err);
	mr = sroce_mr_new(pd, SROCE_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	/* All of kernel virtual memory; the core fills in device and pd. */
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;
	sroce_mr_publish(to_sdev(pd->device), mr, false);
	return &mr->ibmr;
}

/* What every user registration checks; @access without ON_DEMAND. */
static int sroce_mr_reg_check(int access, u64 length, u64 iova,
			      struct ib_udata *udata)
{
	int err;

	err = sroce_mr_access_check(access);
	if (err)
		return err;
	if (!length || length > SROCE_MAX_MR_SIZE ||
	    !sroce_range_within(0, U64_MAX, iova, length - 1))
		return -EINVAL;
	if (udata && udata->inlen)
		return -EINVAL;
	return 0;
}

/* An ODP MR: nothing pinned, pages found when used (odp.c). */
static struct ib_mr *sroce_reg_odp_mr(struct ib_pd *pd, u64 start, u64 length,
				      u64 iova, int access,
				      struct ib_udata *udata)
{
	struct sroce_odp *odp;
	struct sroce_mr *mr;
	int err;

	/* Implicit ODP and huge pages are not claimed (odp_caps). */
	if (!IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING) ||
	    (!start && length == U64_MAX) || (access & IB_ACCESS_HUGETLB))
		return ERR_PTR(-EOPNOTSUPP);
	access &= ~IB_ACCESS_ON_DEMAND;
	err = sroce_mr_reg_check(access, length, iova, udata);
	if (err)
		return ERR_PTR(err);
	odp = sroce_odp_new(pd->device, start, length,
			    access | IB_ACCESS_ON_DEMAND);
	if (IS_ERR(odp))
		return ERR_CAST(odp);
	mr = sroce_mr_new(pd, SROCE_MR_ODP, access);
	if (IS_ERR(mr)) {
		sroce_odp_free(odp);
		return ERR_CAST(mr);
	}
	mr->odp = odp;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	sroce_mr_publish(to_sdev(pd->device), mr, false);
	return &mr->ibmr;
}

static struct ib_mr *sroce_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				       u64 iova, int access,
				       SROCE_REG_USER_MR_DMAH_ARG
				       struct ib_udata *udata)
{
	struct ib_umem *umem;
	struct sroce_mr *mr;
	int err;

	if (access & IB_ACCESS_ON_DEMAND)
		return sroce_reg_odp_mr(pd, start, length, iova, access, udata);
	err = sroce_mr_reg_check(access, length, iova, udata);
	if (err)
		return ERR_PTR(err);

	umem = sroce_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = sroce_mr_new(pd, SROCE_MR_USER, access);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	mr->umem = umem;
	mr->upages = sroce_mr_page_list(umem, &mr->nupages);
	if (!mr->upages) {
		sroce_mr_free(to_sdev(pd->device), mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	sroce_mr_publish(to_sdev(pd->device), mr, false);
	return &mr->ibmr;
}

static struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags,
					 u64 start, u64 length, u64 iova,
					 int access, struct ib_pd *pd,
					 struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct ib_umem *umem = NULL;
	struct page **upages = NULL;
	int new_access = mr->access;
	size_t nupages = 0;
	int err;

	if (mr->kind != SROCE_MR_USER || (flags & ~IB_MR_REREG_SUPPORTED))
		return ERR_PTR(-EOPNOTSUPP);
	if (flags & IB_MR_REREG_ACCESS) {
		err = sroce_mr_access_check(access);
		if (err)
			return ERR_PTR(err);
		new_access = access;
	}
	/*
	 * Pages pinned for reading must not become writable through the MR:
	 * making it writable pins the same range again, for writing.
	 */
	if (!(flags & IB_MR_REREG_TRANS) &&
	    ib_access_writable(new_access) && !ib_access_writable(mr->access)) {
		flags |= IB_MR_REREG_TRANS;
		start = mr->umem->address;
		length = mr->ibmr.length;
		iova = mr->ibmr.iova;
	}
	if (flags & IB_MR_REREG_TRANS) {
		if (!length || length > SROCE_MAX_MR_SIZE ||
		    !sroce_range_within(0, U64_MAX, iova, length - 1))
			return ERR_PTR(-EINVAL);
		umem = sroce_umem_get(ibmr->device, start, length, new_access);
		if (IS_ERR(umem))
			return ERR_CAST(umem);
		upages = sroce_mr_page_list(umem, &nupages);
		if (!upages) {
			ib_umem_release(umem);
			return ERR_PTR(-ENOMEM);
		}
	}

	/* Nothing can fail from here: change the MR while nobody uses it. */
	sroce_mr_quiesce(mr);
	if (umem) {
		swap(mr->umem, umem);
		swap(mr->upages, upages);
		mr->nupages = nupages;
		mr->ibmr.iova = iova;
		mr->ibmr.length = length;
	}
	mr->access = new_access;
	if (flags & IB_MR_REREG_PD)
		mr->pd = pd;
	sroce_mr_resume(mr);
	ib_umem_release(umem);	/* the old pages, if replaced */
	kvfree(upages);
	/* The core records the new PD itself when we answer NULL (in place). */
	return NULL;
}

int sroce_mr_fast_reg(struct ib_mr *ibmr, const struct ib_pd *pd, u32 key,
		      int access)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->kind != SROCE_MR_FAST || mr->pd != pd ||
	    sroce_key_index(key) != sroce_key_index(mr->key) ||
	    sroce_mr_access_check(access))
		return -EINVAL;
	/* FREE to BUSY: one change at a time, and no lookup passes. */
	if (cmpxchg(&mr->state, SROCE_MR_FREE, SROCE_MR_BUSY) != SROCE_MR_FREE)
		return -EINVAL;
	mr->key = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->access = access;
	/* Release: key and access are in place before a lookup sees it. */
	smp_store_release(&mr->state, SROCE_MR_VALID);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_fast_reg);

int sroce_mr_invalidate(struct sroce_dev *sdev, u32 key, const struct ib_pd *pd)
{
	struct sroce_mr *mr;
	int err = 0;

	/* Under RCU the MR is not freed, whatever its users do. */
	rcu_read_lock();
	mr = xa_load(&sdev->mr_keys, sroce_key_index(key));
	if (!mr || mr->kind != SROCE_MR_FAST || mr->pd != pd ||
	    READ_ONCE(mr->key) != key || atomic_read(&mr->mw_bound) > 0 ||
	    cmpxchg(&mr->state, SROCE_MR_VALID, SROCE_MR_FREE) == SROCE_MR_BUSY)
		err = -EINVAL;
	/*
	 * Once the MR is invalid no new user gets it (the state after the
	 * reference, in sroce_mr_get()); those that have it are a packet
	 * being placed or a READ chain being built, on other CPUs: the
	 * invalidation completes only after them, so the consumer may then
	 * reuse the memory. The cmpxchg orders the state before this read.
	 */
	while (!err && refcount_read(&mr->refs) > 1)
		cpu_relax();
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_invalidate);

static struct ib_mr *sroce_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				    u32 max_num_sg)
{
	struct sroce_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_new(pd, SROCE_MR_FAST, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		sroce_mr_free(to_sdev(pd->device), mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	/* Usable only once a REG_MR work request has made it valid. */
	sroce_mr_publish(to_sdev(pd->device), mr, true);
	return &mr->ibmr;
}

static int sroce_mr_add_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

static int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			   int sg_nents, unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->kind != SROCE_MR_FAST)
		return -EINVAL;
	mr->npages = 0;
	/* ib_sg_to_pages() sets iova, length and page_size of the MR. */
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_mr_add_page);
}

int sroce_mr_fault(struct sroce_dev *sdev, const struct ib_pd *pd, u32 lkey,
		   u64 iova, u64 len, int access, bool fault)
{
	struct sroce_mr *mr;
	int err;

	if (!len)
		return 0;
	mr = sroce_mr_get(sdev, lkey, pd, access, iova, len);
	if (IS_ERR(mr))
		return -EINVAL;
	err = mr->kind == SROCE_MR_ODP ?
	      sroce_odp_map(mr->odp, iova - mr->ibmr.iova, len, fault) : -EINVAL;
	sroce_mr_put(mr);
	return err;
}

/* Prefetch is done before returning: what FLUSH asks, more than a hint. */
static int sroce_advise_mr(struct ib_pd *pd,
			   enum ib_uverbs_advise_mr_advice advice, u32 flags,
			   struct ib_sge *sg_list, u32 num_sge,
			   struct uverbs_attr_bundle *attrs)
{
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	int access = 0;
	u32 i;
	int err;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		access = IB_ACCESS_LOCAL_WRITE;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;
	for (i = 0; i < num_sge; i++) {
		err = sroce_mr_fault(to_sdev(pd->device), pd, sg_list[i].lkey,
				     sg_list[i].addr, sg_list[i].length, access,
				     fault);
		if (err)
			return err;
	}
	return 0;
}

static int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	/* Not while windows are bound to it; and no bind from now on. */
	if (atomic_cmpxchg(&to_smr(ibmr)->mw_bound, 0, -1))
		return -EBUSY;
	sroce_mr_free(to_sdev(ibmr->device), to_smr(ibmr));
	return 0;
}

static const struct ib_device_ops sroce_mr_ops = {
	.get_dma_mr = sroce_get_dma_mr,
	.reg_user_mr = sroce_reg_user_mr,
	.rereg_user_mr = sroce_rereg_user_mr,
	.alloc_mr = sroce_alloc_mr,
	.map_mr_sg = sroce_map_mr_sg,
	.dereg_mr = sroce_dereg_mr,
	.advise_mr = sroce_advise_mr,
};

void sroce_set_mr_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_mr_ops);
}

void sroce_skb_copy_piece(void *ctx, void *kaddr, u32 len)
{
	struct sroce_skb_cursor *c = ctx;

	/* recv.c checked the lengths: the bytes are in the skb. */
	WARN_ON_ONCE(skb_copy_bits(c->skb, c->off, kaddr, len));
	c->off += len;
}
