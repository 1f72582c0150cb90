/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory windows: remote access to part of an MR, granted and withdrawn
 * by work requests (mw.c).
 */
#ifndef _SROCE_MW_H
#define _SROCE_MW_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_mr;
struct sroce_qp;

/* Access flags a bind may grant. */
#define SROCE_MW_ACCESS_KNOWN	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ZERO_BASED)

/**
 * enum sroce_mw_state - whether a memory window grants access
 * @SROCE_MW_FREE: bound to nothing: a new type 2 window, one invalidated,
 *	or a type 1 window bound with length 0
 * @SROCE_MW_VALID: bound to a range of an MR; its rkey reaches it
 */
enum sroce_mw_state {
	SROCE_MW_FREE,
	SROCE_MW_VALID,
};

/**
 * struct sroce_mw - a memory window
 * @ibmw: the RDMA core's MW (type, pd, rkey); must stay first
 * @lock: guards the fields below against a bind, an invalidation and
 *	the lookups of the packet path
 * @state: &enum sroce_mw_state
 * @key: the rkey that reaches the window now
 * @mr: the MR bound, counted in its &sroce_mr.mw_bound; NULL when free
 * @addr: first byte of the bound range (iova of @mr)
 * @length: bytes of the bound range
 * @access: IB_ACCESS_* the bind granted
 * @qp_id: type 2: &sroce_qp.id of the QP the window was bound through,
 *	the only one whose requests and SEND with invalidate may use its
 *	rkey (an id, unlike a QP number, is never given to another QP)
 */
struct sroce_mw {
	struct ib_mw ibmw;
	spinlock_t lock;	/* see the kernel-doc above */
	enum sroce_mw_state state;
	u32 key;
	struct sroce_mr *mr;
	u64 addr;
	u64 length;
	int access;
	u64 qp_id;
};

/**
 * struct sroce_mw_bind - a BIND_MW work request, as the rxe ABI posts it
 * @addr: first byte of the range to bind (iova of the MR)
 * @length: bytes of the range
 * @mr_lkey: the MR's lkey
 * @mw_rkey: an rkey of the window (its index names the window)
 * @rkey: the rkey the window takes: same index, a new variant byte
 * @access: IB_ACCESS_* to grant
 */
struct sroce_mw_bind {
	u64 addr;
	u64 length;
	u32 mr_lkey;
	u32 mw_rkey;
	u32 rkey;
	int access;
};

/**
 * sroce_mw_bind_check() - whether a bind may go through
 * @mw: the window, locked
 * @pd: the PD of the posting QP
 * @mr: the MR named by @b (held), or NULL for a type 1 bind of length 0
 * @b: the work request
 *
 * IBTA 10.6.7: the window and the MR in the QP's PD (C10-72); the MR
 * allows binds (C10-73) and local write when the window is to grant
 * remote write or atomic access (C10-74); the range inside the MR
 * (C10-75); a type 2 window free, bound with length > 0, and given a new
 * key; @b's rkeys of the window's index (the variant byte of
 * &sroce_mw_bind.mw_rkey is not looked at); no zero-based type 1
 * window.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a bind the rules refuse.
 */
int sroce_mw_bind_check(const struct sroce_mw *mw, const struct ib_pd *pd,
			const struct sroce_mr *mr, const struct sroce_mw_bind *b);

/**
 * sroce_mw_access_check() - whether a remote access may use a window
 * @mw: the window, locked
 * @rkey: the rkey of the request
 * @pd: the PD of the QP the request came to
 * @qp_id: that QP's &sroce_qp.id
 * @access: the IB_ACCESS_REMOTE_* flags the access needs
 * @addr: in: the request's address, an iova of the MR or, for a window
 *	bound with IB_ZERO_BASED, an offset into the window; out (on
 *	success): the iova of the MR to access
 * @len: bytes, or %SROCE_MR_WHOLE for the whole window (@addr is then
 *	set to its first byte)
 *
 * Context: any.
 * Return: 0; -EINVAL for a key or state that does not match; -EACCES
 * for a PD, QP (type 2) or access not granted; -ERANGE for bytes outside
 * the bound range.
 */
int sroce_mw_access_check(const struct sroce_mw *mw, u32 rkey,
			  const struct ib_pd *pd, u64 qp_id, int access,
			  u64 *addr, u64 len);

/**
 * sroce_rkey_get() - find the MR behind an rkey for a remote access
 * @qp: the QP the request came to
 * @rkey: the rkey of the request: an MR's, or a memory window's
 * @access: as for sroce_mr_get()
 * @addr: in: first byte accessed, as the request says; out: the iova of
 *	the MR where it is (another only for a zero-based window)
 * @len: bytes accessed, or %SROCE_MR_WHOLE (no range check)
 *
 * A window's rkey is checked by sroce_mw_access_check() and then leads
 * to the MR it is bound to; any other rkey is sroce_mr_get()'s.
 *
 * Context: any (RCU lookup; takes the window's lock).
 * Return: the MR, held until sroce_mr_put(), or an ERR_PTR as
 * sroce_mr_get() and sroce_mw_access_check() say.
 */
struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, int access,
				u64 *addr, u64 len);

/**
 * sroce_key_invalidate() - LOCAL_INV or SEND with invalidate of a key
 * @qp: the QP that executes it
 * @key: the key to invalidate
 * @remote: it came in a SEND with invalidate
 *
 * A type 2 window's rkey frees the window (of @qp's PD; remotely only
 * through the QP it was bound through); a type 1 window's is refused
 * (o10-37.2.26); any other key goes to sroce_mr_invalidate().
 *
 * Context: any; holds no reference on the MR or window.
 * Return: 0, or -EINVAL.
 */
int sroce_key_invalidate(struct sroce_qp *qp, u32 key, bool remote);

/**
 * sroce_mw_bind() - execute a BIND_MW work request
 * @qp: the posting QP
 * @b: the work request
 *
 * Context: the requester (may run in softirq).
 * Return: 0, or an errno when the bind is refused (the WQE completes
 * with %IB_WC_MW_BIND_ERR).
 */
int sroce_mw_bind(struct sroce_qp *qp, const struct sroce_mw_bind *b);

/**
 * sroce_set_mw_ops() - install the memory window verbs on a device
 * @ibdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_set_mw_ops(struct ib_device *ibdev);

#endif /* _SROCE_MW_H */
