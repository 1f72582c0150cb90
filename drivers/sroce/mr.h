/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions: what the verbs create and what the data path will look
 * up by key.
 */
#ifndef _SROCE_MR_H
#define _SROCE_MR_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

struct sk_buff;
struct sroce_dev;
struct sroce_odp;

/* Largest user registration: the IBTA message limit. */
#define SROCE_MAX_MR_SIZE		BIT_ULL(31)
/* Pages a fast-registration MR can map. */
#define SROCE_MAX_FAST_REG_PAGES	512
/* Access flags sroce understands; the optional range is ignored. */
#define SROCE_MR_ACCESS_KNOWN	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND | IB_ACCESS_HUGETLB | \
				 IB_ACCESS_FLUSH_GLOBAL)

/**
 * enum sroce_mr_kind - what memory an MR describes
 * @SROCE_MR_DMA: all kernel memory (get_dma_mr)
 * @SROCE_MR_USER: pinned user memory (reg_user_mr)
 * @SROCE_MR_FAST: a page list set by map_mr_sg, for REG_MR work requests
 * @SROCE_MR_ODP: user memory paged on demand (reg_user_mr with
 *	%IB_ACCESS_ON_DEMAND; odp.c)
 */
enum sroce_mr_kind {
	SROCE_MR_DMA,
	SROCE_MR_USER,
	SROCE_MR_FAST,
	SROCE_MR_ODP,
};

/**
 * enum sroce_mr_state - whether an MR can be used
 * @SROCE_MR_FREE: not usable: a fast-registration MR before REG_MR or
 *	after invalidation, or any MR while rereg_mr changes it
 * @SROCE_MR_VALID: usable through its key
 * @SROCE_MR_BUSY: a REG_MR is changing a fast-registration MR's key and
 *	access (not usable, and no other REG_MR or invalidation may start)
 */
enum sroce_mr_state {
	SROCE_MR_FREE,
	SROCE_MR_VALID,
	SROCE_MR_BUSY,
};

/**
 * struct sroce_mr - a memory region
 * @ibmr: the RDMA core's MR (keys, iova, length); must stay first
 * @kind: &enum sroce_mr_kind
 * @state: &enum sroce_mr_state; written with release, read with acquire;
 *	a fast-registration MR changes state by cmpxchg (REG_MR and the
 *	invalidations of several QPs may race)
 * @key: the key that reaches the MR now (a REG_MR may change its variant)
 * @pd: the MR's PD (the core sets @ibmr.pd only after the create returns)
 * @access: IB_ACCESS_* granted
 * @umem: pinned pages of a user MR
 * @upages: @umem's pages in order, for access by offset
 * @odp: the pages present of an ODP MR
 * @nupages: entries in @upages
 * @pages: page addresses of a fast-registration MR
 * @max_pages: size of @pages
 * @npages: entries of @pages in use
 * @refs: one for the key table while the MR is usable, one per user
 *	found by sroce_mr_get()
 * @mw_bound: memory windows bound to the MR (mw.c); -1 once dereg_mr
 *	has begun, when no bind may take the MR any more
 * @idle: completed when @refs drops to zero
 * @rcu: the MR is freed after a grace period: lookups run under RCU
 *
 * Lifetime: dereg_mr takes the MR out of the key table, drops the table's
 * reference, waits for the users to drop theirs, and frees it after an
 * RCU grace period. rereg_mr waits the same way, with the MR left in the
 * table but %SROCE_MR_FREE, before it changes what the MR describes.
 */
struct sroce_mr {
	struct ib_mr ibmr;
	enum sroce_mr_kind kind;
	enum sroce_mr_state state;
	u32 key;
	struct ib_pd *pd;
	int access;
	struct ib_umem *umem;
	struct page **upages;
	struct sroce_odp *odp;
	size_t nupages;
	u64 *pages;
	u32 max_pages;
	u32 npages;
	refcount_t refs;
	atomic_t mw_bound;
	struct completion idle;
	struct rcu_head rcu;
};

/**
 * sroce_range_within() - whether [addr, addr + len) lies in [start, start + size)
 * @start: first byte of the region
 * @size: bytes in the region
 * @addr: first byte asked for
 * @len: bytes asked for; 0 asks for nothing and fits anywhere inside,
 *	including at the end
 *
 * Safe for every value: nothing is summed, so no wrap at 2^64.
 *
 * Context: any.
 * Return: true when the range is inside the region.
 */
bool sroce_range_within(u64 start, u64 size, u64 addr, u64 len);

/**
 * sroce_mr_check() - whether an access may go through an MR
 * @mr: the MR found under @key's index
 * @key: the key presented (lkey of an SGE, rkey of a request)
 * @pd: the PD of the QP making the access
 * @access: IB_ACCESS_* the access needs: 0 for a local read,
 *	%IB_ACCESS_LOCAL_WRITE, one %IB_ACCESS_REMOTE_* flag, or the
 *	%IB_ACCESS_FLUSH_* rights a FLUSH asks for
 * @addr: first byte accessed (iova)
 * @len: bytes accessed, or %SROCE_MR_WHOLE for no range check
 *
 * The one place that decides: the whole key (variant byte included), the
 * state, the PD, the access flags and the range (sroce_range_within()).
 *
 * Context: any; the caller holds a reference on @mr.
 * Return: 0, -EINVAL for a key or state that does not match, -EACCES for
 * a PD or access not granted, -ERANGE for bytes outside the MR.
 */
int sroce_mr_check(const struct sroce_mr *mr, u32 key, const struct ib_pd *pd,
		   int access, u64 addr, u64 len);

/* sroce_mr_get()'s length for no range check. */
#define SROCE_MR_WHOLE	U64_MAX

/**
 * sroce_mr_get() - find an MR by key for an access, and hold it
 * @sdev: the device
 * @key: the key presented
 * @pd: the PD of the QP making the access
 * @access: as for sroce_mr_check()
 * @addr: first byte accessed
 * @len: bytes accessed, or %SROCE_MR_WHOLE for no range check (a FLUSH of
 *	the whole MR names no range)
 *
 * Every path that reaches memory through a key goes through here.
 *
 * Context: any (RCU lookup, no lock taken).
 * Return: the MR, held until sroce_mr_put(), or an ERR_PTR: -EINVAL for
 * an unknown key, otherwise as sroce_mr_check().
 */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key,
			      const struct ib_pd *pd, int access,
			      u64 addr, u64 len);

/**
 * sroce_mr_put() - drop a reference taken by sroce_mr_get()
 * @mr: the MR
 *
 * Context: any.
 */
void sroce_mr_put(struct sroce_mr *mr);

/**
 * typedef sroce_mr_chunk_fn - one virtually contiguous piece of an access
 * @ctx: the caller's cursor
 * @kaddr: kernel address of the piece
 * @len: its bytes
 */
typedef void (*sroce_mr_chunk_fn)(void *ctx, void *kaddr, u32 len);

/**
 * sroce_mr_walk() - visit the memory behind a range of an MR
 * @mr: an MR held by sroce_mr_get() for this very range
 * @iova: first byte
 * @len: bytes
 * @fn: called for each piece, in order, with the piece mapped
 * @ctx: passed to @fn
 *
 * Context: any; @fn must not sleep.
 * Return: 0, -EINVAL for an MR kind that cannot be walked, or -EFAULT
 * for an ODP MR with a page of the range missing (nothing visited; a
 * fault is queued: sroce_odp_walk()).
 */
int sroce_mr_walk(const struct sroce_mr *mr, u64 iova, u32 len,
		  sroce_mr_chunk_fn fn, void *ctx);

/**
 * sroce_mr_ready() - whether the pages behind a range of an MR are present
 * @mr: an MR held by sroce_mr_get() for this very range
 * @iova: first byte
 * @len: bytes
 *
 * Only an ODP MR can lack pages; for it a fault of the range is queued.
 *
 * Context: any.
 * Return: 0, or -EFAULT when a page is missing.
 */
int sroce_mr_ready(const struct sroce_mr *mr, u64 iova, u32 len);

/**
 * sroce_mr_fault() - fault in the pages behind an lkey's range
 * @sdev: the device
 * @pd: the PD the lkey must belong to
 * @lkey: the key
 * @iova: first byte
 * @len: bytes; 0 does nothing
 * @access: IB_ACCESS_* the key must grant
 * @fault: fault missing pages in; false only enters those present
 *
 * For advise_mr and the requester's work item (odp.c).
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL when @lkey is not an ODP MR of @pd covering the
 * range with @access; else as sroce_odp_map().
 */
int sroce_mr_fault(struct sroce_dev *sdev, const struct ib_pd *pd, u32 lkey,
		   u64 iova, u64 len, int access, bool fault);

/**
 * sroce_mr_attach() - add a range of a user MR to an skb, without a copy
 * @mr: a user MR held by sroce_mr_get() for this very range
 * @iova: first byte
 * @len: bytes
 * @skb: the packet; the bytes go after its last fragment
 * @max_frags: fragments @skb may have in all when done
 *
 * Each page the range touches becomes a page fragment of @skb, referenced
 * for as long as @skb lives, so that its bytes stay readable after the MR
 * is deregistered; a piece that goes on where the last fragment ends
 * extends it. The fragments are marked shared (the user may write the
 * pages meanwhile). On an error @skb may hold part of the range: free it.
 *
 * Context: any.
 * Return: 0; -EOPNOTSUPP when @mr is not a user MR (its memory is not
 * whole pages to reference); -EMSGSIZE when more than @max_frags
 * fragments would be needed; -EINVAL when the range is not in the MR.
 */
int sroce_mr_attach(const struct sroce_mr *mr, u64 iova, u32 len,
		    struct sk_buff *skb, unsigned int max_frags);

/**
 * sroce_sge_walk() - visit a stretch of a scatter/gather list
 * @sdev: the device
 * @pd: the PD the lkeys must belong to
 * @sge: the list
 * @num_sge: its entries
 * @at: offset of the stretch in the list's bytes
 * @len: bytes of the stretch
 * @access: IB_ACCESS_* each lkey must grant (0: local read)
 * @fn: called for each piece, in order, with the piece mapped
 * @ctx: passed to @fn
 *
 * Each entry touched is checked by sroce_mr_get() for the part visited.
 *
 * Context: any; @fn must not sleep.
 * Return: 0, -EACCES when an lkey does not allow its piece (nothing after
 * it visited), -EFAULT when an ODP page of a piece is missing (likewise;
 * a fault is queued), or -EMSGSIZE when the list ends before @at + @len.
 */
int sroce_sge_walk(struct sroce_dev *sdev, struct ib_pd *pd,
		   const struct ib_sge *sge, u32 num_sge, u32 at, u32 len,
		   int access, sroce_mr_chunk_fn fn, void *ctx);

/**
 * sroce_mr_access_check() - validate the access flags of a registration
 * @access: IB_ACCESS_* asked for
 *
 * Context: any.
 * Return: 0, -EINVAL for remote write or atomic without local write or an
 * unknown flag, -EOPNOTSUPP for on-demand paging or zero-based MRs.
 */
int sroce_mr_access_check(int access);

/**
 * sroce_key_make() - compose a key
 * @index: the MR's index in the key table, 24 bits
 * @variant: the consumer-owned low byte
 *
 * Context: any.
 * Return: the 32-bit lkey/rkey.
 */
u32 sroce_key_make(u32 index, u8 variant);

/**
 * sroce_key_reserve() - reserve a free random index of the key table
 * @sdev: the device
 * @index: where the index goes
 *
 * The slot reads as empty to lookups until something is stored in it;
 * xa_erase() on the device's @mr_keys gives it back. Memory windows take
 * their indexes here too, so that an MR's key and a window's never share
 * an index.
 *
 * Context: process context (may sleep).
 * Return: 0, -ENOSPC when no free index was found, -ENOMEM.
 */
int sroce_key_reserve(struct sroce_dev *sdev, u32 *index);

/**
 * sroce_key_index() - the key table index of a key
 * @key: an lkey or rkey
 *
 * Context: any.
 * Return: its 24-bit index.
 */
u32 sroce_key_index(u32 key);

/**
 * sroce_set_mr_ops() - install the MR verbs on a device
 * @ibdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_set_mr_ops(struct ib_device *ibdev);

/**
 * sroce_mr_fast_reg() - execute a REG_MR work request
 * @ibmr: the MR the work request names
 * @pd: the posting QP's PD
 * @key: the MR's new key: its index unchanged, the variant byte free
 * @access: IB_ACCESS_* the MR grants from now
 *
 * The page list, iova and length are what map_mr_sg set.
 *
 * Context: any.
 * Return: 0; -EINVAL when @ibmr is not a fast-registration MR of @pd,
 * @key has another index, the MR is not free (registered and not
 * invalidated) or @access is refused.
 */
int sroce_mr_fast_reg(struct ib_mr *ibmr, const struct ib_pd *pd, u32 key,
		      int access);

/**
 * sroce_mr_invalidate() - invalidate a fast-registration MR by its key
 * @sdev: the device
 * @key: the key (LOCAL_INV, or the IETH of a SEND with invalidate)
 * @pd: the QP's PD: only an MR of that PD is invalidated
 *
 * An MR already free stays free. No lookup finds it afterwards, and the
 * call returns only once the users that found it before are done with it
 * (a packet being placed, a READ chain being built; they run on other
 * CPUs and hold no reference across a wait).
 *
 * Context: any; the caller holds no reference on the MR.
 * Return: 0, or -EINVAL when no fast-registration MR of @pd has @key,
 * a REG_MR is changing it or memory windows are bound to it.
 */
int sroce_mr_invalidate(struct sroce_dev *sdev, u32 key, const struct ib_pd *pd);

/**
 * struct sroce_skb_cursor - the next payload bytes of a received packet
 * @skb: the packet
 * @off: offset of the next byte in @skb
 */
struct sroce_skb_cursor {
	const struct sk_buff *skb;
	unsigned int off;
};

/**
 * sroce_skb_copy_piece() - copy packet bytes to a piece of memory
 * @ctx: a &struct sroce_skb_cursor, advanced by @len
 * @kaddr: the piece
 * @len: its bytes, all present in the packet
 *
 * A &sroce_mr_chunk_fn, for sroce_mr_walk() and sroce_sge_walk().
 *
 * Context: any.
 */
void sroce_skb_copy_piece(void *ctx, void *kaddr, u32 len);

#endif /* _SROCE_MR_H */
