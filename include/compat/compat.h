/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compatibility with older kernels. The driver is written against the
 * newest kernel of the matrix (design.md §1); every difference with an older
 * one is bridged here, driven by the SROCE_HAVE_* flags that
 * scripts/compat-probe.sh derives from the target's headers. This header is
 * force-included into every file of the module.
 */
#ifndef _SROCE_COMPAT_H
#define _SROCE_COMPAT_H

/*
 * create_cq: since 6.11 the core passes the whole uverbs attribute bundle
 * instead of the driver udata.
 */
#ifdef SROCE_HAVE_CREATE_CQ_ATTR_BUNDLE
#define SROCE_CREATE_CQ_UARG struct uverbs_attr_bundle *sroce_cq_attrs
#define SROCE_CREATE_CQ_UDATA \
	(sroce_cq_attrs ? &sroce_cq_attrs->driver_udata : NULL)
#else
#define SROCE_CREATE_CQ_UARG struct ib_udata *sroce_cq_udata
#define SROCE_CREATE_CQ_UDATA sroce_cq_udata
#endif

/*
 * Resizing a CQ: resize_user_cq with an unsigned size since 7.0, only for
 * user CQs (kernel consumers never resize).
 */
#ifdef SROCE_HAVE_RESIZE_USER_CQ
#define SROCE_RESIZE_CQ_OP resize_user_cq
#define SROCE_RESIZE_CQ_SIZE unsigned int
#else
#define SROCE_RESIZE_CQ_OP resize_cq
#define SROCE_RESIZE_CQ_SIZE int
#endif

/* reg_user_mr: since 6.17 a DMA handle precedes the udata. */
#ifdef SROCE_HAVE_REG_USER_MR_DMAH
#define SROCE_REG_USER_MR_DMAH_ARG struct ib_dmah *dmah,
#else
#define SROCE_REG_USER_MR_DMAH_ARG
#endif

/*
 * setup_udp_tunnel_sock() and udp_tunnel_sock_release() take the struct
 * sock instead of the struct socket since 6.15.
 */
#ifdef SROCE_HAVE_UDP_TUNNEL_SOCK_SK
#define sroce_setup_udp_tunnel_sock(net, sock, cfg) \
	setup_udp_tunnel_sock(net, (sock)->sk, cfg)
#define sroce_udp_tunnel_sock_release(sock) \
	udp_tunnel_sock_release((sock)->sk)
#else
#define sroce_setup_udp_tunnel_sock(net, sock, cfg) \
	setup_udp_tunnel_sock(net, sock, cfg)
#define sroce_udp_tunnel_sock_release(sock) \
	udp_tunnel_sock_release(sock)
#endif

/* Pinning user memory by address: ib_umem_get() became _va in 7.1. */
#ifdef SROCE_HAVE_UMEM_GET_VA
#define sroce_umem_get ib_umem_get_va
#else
#define sroce_umem_get ib_umem_get
#endif

/* Typed allocation of one object (7.0). */
#ifndef SROCE_HAVE_KZALLOC_OBJ
#define kzalloc_obj(P, GFP) kzalloc(sizeof(P), GFP)
#endif

/* vm_flags_set(), and the flags' write protection with it (6.3). */
#ifndef SROCE_HAVE_VM_FLAGS_SET
#define vm_flags_set(vma, flags) ((vma)->vm_flags |= (flags))
#endif

/* from_timer() became timer_container_of() in 6.16. */
#ifndef SROCE_HAVE_TIMER_CONTAINER_OF
#define timer_container_of from_timer
#endif

/*
 * hrtimer_init() and a separate ->function became hrtimer_setup() in 6.13.
 * A macro: this header comes before any other, and must include nothing.
 */
#ifndef SROCE_HAVE_HRTIMER_SETUP
#define hrtimer_setup(timer, fn, clock, mode)			\
	do {							\
		struct hrtimer *sroce_timer_ = (timer);		\
								\
		hrtimer_init(sroce_timer_, (clock), (mode));	\
		sroce_timer_->function = (fn);			\
	} while (0)
#endif

/*
 * The IBTA 1.5 FLUSH and ATOMIC WRITE verbs (6.2). Their numbers are the
 * user ABI's, the same in every kernel; without them the core lets no
 * consumer ask for either, and the device does not advertise them.
 */
#ifndef SROCE_HAVE_IBTA15_VERBS
#define IB_DEVICE_FLUSH_GLOBAL 0
#define IB_DEVICE_FLUSH_PERSISTENT 0
#define IB_DEVICE_ATOMIC_WRITE 0
#define IB_WR_FLUSH 14
#define IB_WR_ATOMIC_WRITE 15
#define IB_WC_FLUSH 8
#define IB_WC_ATOMIC_WRITE 9
#define IB_ACCESS_FLUSH_GLOBAL BIT(8)
#define IB_ACCESS_FLUSH_PERSISTENT BIT(9)
#define IB_FLUSH_GLOBAL 1
#define IB_FLUSH_PERSISTENT 2
#define IB_FLUSH_RANGE 0
#define IB_FLUSH_MR 1
#endif

/*
 * The ODP umem's pfn list moved into a struct hmm_dma_map, and the access
 * mask of ib_umem_odp_map_dma_and_lock() from ODP_*_ALLOWED_BIT to
 * HMM_PFN_WRITE (6.15). Both lists hold hmm_range_fault() pfns.
 */
#ifdef SROCE_HAVE_ODP_HMM_DMA_MAP
#define sroce_odp_pfns(umem_odp)	((umem_odp)->map.pfn_list)
#define SROCE_ODP_MASK_READ		0
#define SROCE_ODP_MASK_WRITE		HMM_PFN_WRITE
#else
#define sroce_odp_pfns(umem_odp)	((umem_odp)->pfn_list)
#define SROCE_ODP_MASK_READ		ODP_READ_ALLOWED_BIT
#define SROCE_ODP_MASK_WRITE		(ODP_READ_ALLOWED_BIT | ODP_WRITE_ALLOWED_BIT)
#endif

/*
 * A device allocated in a network namespace (7.3 of our kernels has it,
 * 6.12 not): in the RDMA core's exclusive mode it is registered there.
 * Without it every device starts in the initial namespace, to be moved
 * (`rdma dev set DEV netns NS`).
 */
#ifdef SROCE_HAVE_IB_ALLOC_DEVICE_WITH_NET
#define sroce_ib_alloc_device_in(drv, member, net) \
	ib_alloc_device_with_net(drv, member, net)
#else
#define sroce_ib_alloc_device_in(drv, member, net) \
	((void)(net), ib_alloc_device(drv, member))
#endif

#endif /* _SROCE_COMPAT_H */
