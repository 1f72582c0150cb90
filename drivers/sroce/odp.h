/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-demand paging: user MRs whose pages are found when accessed, not
 * pinned at registration (Documentation/verbs.rst, "On-demand paging").
 */
#ifndef _SROCE_ODP_H
#define _SROCE_ODP_H

#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "mr.h"

struct ib_umem_odp;

#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
#define SROCE_ODP_KERNEL_CAP	IBK_ON_DEMAND_PAGING
#define SROCE_ODP_GENERAL_CAPS	IB_ODP_SUPPORT
#define SROCE_ODP_RC_CAPS	(IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV | \
				 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ | \
				 IB_ODP_SUPPORT_ATOMIC)
#define SROCE_ODP_UD_CAPS	IB_ODP_SUPPORT_SEND
#else
#define SROCE_ODP_UD_CAPS	0
#define SROCE_ODP_KERNEL_CAP	0
#define SROCE_ODP_GENERAL_CAPS	0
#define SROCE_ODP_RC_CAPS	0
#endif

/* Most bytes one fault asks for (one softirq look at the pages, too). */
#define SROCE_ODP_FAULT_MAX	SZ_1M
/* Faults one ODP MR may have queued at once. */
#define SROCE_ODP_MAX_QUEUED	32

/**
 * struct sroce_odp - the pages of an ODP MR that are present now
 * @umem: the RDMA core's ODP umem (interval notifier, pfn list, umem_mutex)
 * @lock: guards @pages; held across every copy from or to them; taken
 *	with interrupts off (the loopback path runs with them off)
 * @pages: one entry per page of the range from ib_umem_start(), NULL for
 *	a page not present (never faulted in, or invalidated since)
 * @npages: entries in @pages
 * @lead: offset of the MR's first byte in its first page
 * @writable: the MR grants a write: pages are faulted in for writing
 * @queued: faults queued and not yet run
 */
struct sroce_odp {
	struct ib_umem_odp *umem;
	spinlock_t lock;	/* see the kernel-doc above */
	struct page **pages;
	unsigned long npages;
	u32 lead;
	bool writable;
	atomic_t queued;
};

/**
 * sroce_odp_span() - the pages a piece of an ODP MR touches
 * @lead: offset of the MR's first byte in its first page
 * @off: offset of the piece in the MR
 * @len: bytes of the piece, at least 1
 * @first: set to the index of its first page
 * @last: set to the index of its last page
 *
 * Context: any.
 */
void sroce_odp_span(u32 lead, u64 off, u64 len, unsigned long *first,
		    unsigned long *last);

/**
 * sroce_odp_new() - register the ODP umem of a user MR
 * @ibdev: the device
 * @start: user address of the range
 * @length: its bytes
 * @access: IB_ACCESS_* asked for, %IB_ACCESS_ON_DEMAND among them
 *
 * Nothing is faulted in or pinned.
 *
 * Context: process context, in the registering process.
 * Return: the ODP state or an ERR_PTR (-EOPNOTSUPP without the kernel's
 * ODP support).
 */
struct sroce_odp *sroce_odp_new(struct ib_device *ibdev, u64 start, u64 length,
				int access);

/**
 * sroce_odp_free() - unregister and free an ODP umem
 * @odp: from sroce_odp_new(); the MR has no user left
 *
 * Waits for the faults still queued.
 *
 * Context: process context.
 */
void sroce_odp_free(struct sroce_odp *odp);

/**
 * sroce_odp_walk() - visit a piece of an ODP MR whose pages are present
 * @odp: the MR's ODP state
 * @off: offset of the piece in the MR (range checked by sroce_mr_get())
 * @len: its bytes
 * @fn: called for each virtually contiguous part, under @odp->lock;
 *	NULL only looks the pages up
 * @ctx: passed to @fn
 *
 * When a page of the piece is missing nothing is visited and a fault of
 * the piece is queued to process context.
 *
 * Context: any; @fn must not sleep.
 * Return: 0, or -EFAULT when a page is missing.
 */
int sroce_odp_walk(struct sroce_odp *odp, u64 off, u32 len,
		   sroce_mr_chunk_fn fn, void *ctx);

/**
 * sroce_odp_map() - fault in a piece of an ODP MR and enter its pages
 * @odp: the MR's ODP state
 * @off: offset of the piece in the MR (range checked by the caller)
 * @len: its bytes; 0 does nothing
 * @fault: fault missing pages in; false only enters those present
 *
 * Context: process context, may sleep.
 * Return: 0, or the error of ib_umem_odp_map_dma_and_lock() (-EFAULT for
 * a range no longer mapped, ...).
 */
int sroce_odp_map(struct sroce_odp *odp, u64 off, u64 len, bool fault);

#endif /* _SROCE_ODP_H */
