#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Feature probes for include/compat/compat.h. Prints -DSROCE_HAVE_* flags
# for the kernel whose source (or headers) tree is $1. Each probe looks for
# a declaration in the headers, flattened so line breaks and spacing do not
# matter; no LINUX_VERSION_CODE checks anywhere.
src=${1:?usage: compat-probe.sh KERNEL_SRCTREE}
inc="$src/include"

# A header this kernel lacks flattens to nothing, quietly.
flat() { { tr -d ' \t\n' <"$inc/$1"; } 2>/dev/null; }

probe() { # flag header fixed-string
	if flat "$2" | grep -qF "$3"; then
		printf ' -D%s' "$1"
	fi
}

probe SROCE_HAVE_CREATE_CQ_ATTR_BUNDLE rdma/ib_verbs.h \
	'int(*create_cq)(structib_cq*cq,conststructib_cq_init_attr*attr,structuverbs_attr_bundle*attrs);'
probe SROCE_HAVE_REG_USER_MR_DMAH rdma/ib_verbs.h \
	'u64virt_addr,intmr_access_flags,structib_dmah*dmah,structib_udata*udata);'
probe SROCE_HAVE_UDP_TUNNEL_SOCK_SK net/udp_tunnel.h \
	'voidsetup_udp_tunnel_sock(structnet*net,structsock*sk,'
probe SROCE_HAVE_RESIZE_USER_CQ rdma/ib_verbs.h 'int(*resize_user_cq)(structib_cq*cq,unsignedintcqe,'
probe SROCE_HAVE_UMEM_GET_VA rdma/ib_umem.h 'staticinlinestructib_umem*ib_umem_get_va('
probe SROCE_HAVE_KZALLOC_OBJ linux/slab.h '#definekzalloc_obj('
probe SROCE_HAVE_VM_FLAGS_SET linux/mm.h 'staticinlinevoidvm_flags_set(structvm_area_struct*vma,'
probe SROCE_HAVE_TIMER_CONTAINER_OF linux/timer.h '#definetimer_container_of('
probe SROCE_HAVE_HRTIMER_SETUP linux/hrtimer.h 'externvoidhrtimer_setup(structhrtimer*timer,'
probe SROCE_HAVE_IBTA15_VERBS rdma/ib_verbs.h 'IB_WR_FLUSH=IB_UVERBS_WR_FLUSH,'
probe SROCE_HAVE_WQ_BH linux/workqueue.h 'WQ_BH=1<<0'
probe SROCE_HAVE_PAGE_POOL_HELPERS net/page_pool/helpers.h \
	'staticinlinestructpage*page_pool_dev_alloc_pages(structpage_pool*pool)'
probe SROCE_HAVE_ODP_HMM_DMA_MAP rdma/ib_umem_odp.h 'structhmm_dma_mapmap;'
probe SROCE_HAVE_IB_ALLOC_DEVICE_WITH_NET rdma/ib_verbs.h '#defineib_alloc_device_with_net('
echo
