// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (IBTA 1.4 10.6.7), type 1 and type 2B.
 *
 * A window's rkey has an index of the device's key table like an MR's
 * (reserved there, so the two never collide), but the window itself is
 * found in a table of its own, &sroce_dev.mw_keys. The packet path reads
 * that table under RCU and checks the window under its lock; what it
 * takes away is a reference on the MR behind it, as for an MR's rkey.
 * An MR with windows bound cannot be deregistered (-EBUSY) or
 * invalidated, so the window's MR pointer stays good while it is bound.
 * dealloc_mw waits for an RCU grace period before the core frees the
 * window: no lookup can still hold it then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/random.h>

#include "mr.h"
#include "mw.h"
#include "qp.h"
#include "sroce.h"

static struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

/* The window's own rules, before any MR is looked at. */
static int sroce_mw_bind_check_window(const struct sroce_mw *mw,
				      const struct ib_pd *pd,
				      const struct sroce_mw_bind *b)
{
	if (b->access & ~SROCE_MW_ACCESS_KNOWN)
		return -EINVAL;
	/*
	 * The WQE names the window by an rkey's index (the rxe ABI has no
	 * handle; for type 2 the rkey libibverbs knows is the one from
	 * alloc_mw). Only the variant byte of the new rkey is the consumer's.
	 */
	if (sroce_key_index(b->mw_rkey) != sroce_key_index(mw->key) ||
	    sroce_key_index(b->rkey) != sroce_key_index(mw->key))
		return -EINVAL;
	if (mw->ibmw.pd != pd)
		return -EINVAL;
	if (mw->ibmw.type == IB_MW_TYPE_1)
		return (b->access & IB_ZERO_BASED) ? -EINVAL : 0;
	/* Type 2: free, a real range, and a key not used before. */
	if (mw->state != SROCE_MW_FREE || !b->length || b->rkey == mw->key)
		return -EINVAL;
	return 0;
}

int sroce_mw_bind_check(const struct sroce_mw *mw, const struct ib_pd *pd,
			const struct sroce_mr *mr, const struct sroce_mw_bind *b)
{
	int err;

	err = sroce_mw_bind_check_window(mw, pd, b);
	if (err)
		return err;
	if (!mr)
		return b->length ? -EINVAL : 0;
	if (mr->pd != pd || mr->key != b->mr_lkey)
		return -EINVAL;
	/* Acquire pairs with the release that made the MR valid. */
	if (smp_load_acquire(&mr->state) != SROCE_MR_VALID)
		return -EINVAL;
	if (!(mr->access & IB_ACCESS_MW_BIND))
		return -EINVAL;
	if ((b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (!sroce_range_within(mr->ibmr.iova, mr->ibmr.length, b->addr,
				b->length))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_bind_check);

int sroce_mw_access_check(const struct sroce_mw *mw, u32 rkey,
			  const struct ib_pd *pd, u64 qp_id, int access,
			  u64 *addr, u64 len)
{
	/* A zero-based window's requests count from its first byte. */
	u64 base = (mw->access & IB_ZERO_BASED) ? 0 : mw->addr;

	if (mw->state != SROCE_MW_VALID || mw->key != rkey || !mw->mr)
		return -EINVAL;
	if (mw->ibmw.pd != pd || (access & mw->access) != access)
		return -EACCES;
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->qp_id != qp_id)
		return -EACCES;
	if (len == SROCE_MR_WHOLE) {
		*addr = mw->addr;
		return 0;
	}
	if (!sroce_range_within(base, mw->length, *addr, len))
		return -ERANGE;
	*addr = *addr - base + mw->addr;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_access_check);

/* Let go of the MR a window is bound to; the window is locked. */
static void sroce_mw_unbind(struct sroce_mw *mw)
{
	if (mw->mr)
		atomic_dec(&mw->mr->mw_bound);
	mw->mr = NULL;
	mw->state = SROCE_MW_FREE;
	mw->addr = 0;
	mw->length = 0;
	mw->access = 0;
}

struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, int access,
				u64 *addr, u64 len)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;
	int err;

	rcu_read_lock();
	mw = xa_load(&sdev->mw_keys, sroce_key_index(rkey));
	if (!mw) {
		rcu_read_unlock();
		return sroce_mr_get(sdev, rkey, qp->ibqp.pd, access, *addr, len);
	}
	spin_lock_bh(&mw->lock);
	err = sroce_mw_access_check(mw, rkey, qp->ibqp.pd, qp->id, access,
				    addr, len);
	/* Bound, the MR cannot go; it may be reregistered (no reference). */
	if (!err && !refcount_inc_not_zero(&mw->mr->refs))
		err = -EINVAL;
	if (!err)
		mr = mw->mr;
	spin_unlock_bh(&mw->lock);
	rcu_read_unlock();
	if (err)
		return ERR_PTR(err);
	/* The reference before the state, as in sroce_mr_get(). */
	smp_mb__after_atomic();
	err = sroce_mr_check(mr, mr->key, mr->pd, 0, *addr, len);
	if (err) {
		sroce_mr_put(mr);
		return ERR_PTR(err);
	}
	return mr;
}

int sroce_key_invalidate(struct sroce_qp *qp, u32 key, bool remote)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mw *mw;
	int err = 0;

	rcu_read_lock();
	mw = xa_load(&sdev->mw_keys, sroce_key_index(key));
	if (!mw) {
		rcu_read_unlock();
		return sroce_mr_invalidate(sdev, key, qp->ibqp.pd);
	}
	spin_lock_bh(&mw->lock);
	if (mw->ibmw.type != IB_MW_TYPE_2 || mw->key != key ||
	    mw->state != SROCE_MW_VALID || mw->ibmw.pd != qp->ibqp.pd ||
	    (remote && mw->qp_id != qp->id))
		err = -EINVAL;
	else
		sroce_mw_unbind(mw);
	spin_unlock_bh(&mw->lock);
	rcu_read_unlock();
	return err;
}

/* Bind @mw as @b says to @mr (NULL: unbind a type 1 window). */
static int sroce_mw_bind_locked(struct sroce_qp *qp, struct sroce_mw *mw,
				struct sroce_mr *mr,
				const struct sroce_mw_bind *b)
{
	int err;

	lockdep_assert_held(&mw->lock);
	err = sroce_mw_bind_check(mw, qp->ibqp.pd, mr, b);
	if (err)
		return err;
	/* A deregistration that began first wins: the bind fails. */
	if (mr && !atomic_inc_unless_negative(&mr->mw_bound))
		return -EINVAL;
	sroce_mw_unbind(mw);
	mw->key = b->rkey;
	mw->ibmw.rkey = b->rkey;
	/* A type 1 window bound with length 0 grants nothing. */
	if (!mr)
		return 0;
	mw->mr = mr;
	mw->addr = b->addr;
	mw->length = b->length;
	mw->access = b->access;
	mw->qp_id = qp->id;
	mw->state = SROCE_MW_VALID;
	return 0;
}

int sroce_mw_bind(struct sroce_qp *qp, const struct sroce_mw_bind *b)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;
	int err;

	if (b->length) {
		/* Held only for the bind; the window's count keeps it. */
		mr = sroce_mr_get(sdev, b->mr_lkey, qp->ibqp.pd, 0, b->addr,
				  b->length);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
	}
	rcu_read_lock();
	mw = xa_load(&sdev->mw_keys, sroce_key_index(b->mw_rkey));
	if (mw) {
		spin_lock_bh(&mw->lock);
		err = sroce_mw_bind_locked(qp, mw, mr, b);
		spin_unlock_bh(&mw->lock);
	} else {
		err = -EINVAL;
	}
	rcu_read_unlock();
	if (mr)
		sroce_mr_put(mr);
	return err;
}

static int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	err = sroce_obj_take(sdev, SROCE_OBJ_MW);
	if (err)
		return err;
	err = sroce_key_reserve(sdev, &index);
	if (err)
		goto err_count;
	spin_lock_init(&mw->lock);
	mw->state = SROCE_MW_FREE;
	mw->key = sroce_key_make(index, get_random_u8());
	ibmw->rkey = mw->key;
	err = xa_err(xa_store(&sdev->mw_keys, index, mw, GFP_KERNEL));
	if (err)
		goto err_index;
	return 0;

err_index:
	xa_erase(&sdev->mr_keys, index);
err_count:
	sroce_obj_put(sdev, SROCE_OBJ_MW);
	return err;
}

static int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	u32 index = sroce_key_index(mw->key);

	xa_erase(&sdev->mw_keys, index);
	/* The core frees the window on return: no lookup may still see it. */
	synchronize_rcu();
	spin_lock_bh(&mw->lock);
	sroce_mw_unbind(mw);
	spin_unlock_bh(&mw->lock);
	xa_erase(&sdev->mr_keys, index);
	sroce_obj_put(sdev, SROCE_OBJ_MW);
	return 0;
}

static const struct ib_device_ops sroce_mw_ops = {
	.alloc_mw = sroce_alloc_mw,
	.dealloc_mw = sroce_dealloc_mw,
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
};

void sroce_set_mw_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_mw_ops);
}
