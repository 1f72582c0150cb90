/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions: what the verbs create and what the data path will look
 * up by key.
 */
#ifndef _SROCE_MR_H
#define _SROCE_MR_H

#include <rdma/ib_verbs.h>

/* Largest user registration: the IBTA message limit. */
#define SROCE_MAX_MR_SIZE		BIT_ULL(31)
/* Pages a fast-registration MR can map. */
#define SROCE_MAX_FAST_REG_PAGES	512
/* Access flags sroce understands; the optional range is ignored. */
#define SROCE_MR_ACCESS_KNOWN	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND | IB_ACCESS_HUGETLB)

/**
 * enum sroce_mr_kind - what memory an MR describes
 * @SROCE_MR_DMA: all kernel memory (get_dma_mr)
 * @SROCE_MR_USER: pinned user memory (reg_user_mr)
 * @SROCE_MR_FAST: a page list set by map_mr_sg, for REG_MR work requests
 */
enum sroce_mr_kind {
	SROCE_MR_DMA,
	SROCE_MR_USER,
	SROCE_MR_FAST,
};

/**
 * struct sroce_mr - a memory region
 * @ibmr: the RDMA core's MR (keys, iova, length); must stay first
 * @kind: &enum sroce_mr_kind
 * @access: IB_ACCESS_* granted
 * @umem: pinned pages of a user MR
 * @pages: page addresses of a fast-registration MR
 * @max_pages: size of @pages
 * @npages: entries of @pages in use
 *
 * Lifetime: freed by dereg_mr, which the core calls once no other object
 * refers to the MR. The data path, when it comes, must hold a reference
 * across its use of an MR found by key.
 */
struct sroce_mr {
	struct ib_mr ibmr;
	enum sroce_mr_kind kind;
	int access;
	struct ib_umem *umem;
	u64 *pages;
	u32 max_pages;
	u32 npages;
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

#endif /* _SROCE_MR_H */
