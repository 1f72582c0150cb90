#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): verbs objects through stock rdma-core, the
errno of every refusal, and what keys look like. Prints TAP. Needs a
device named by argv[1]."""
import ctypes
import errno
import mmap
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import state

tap = rdmatest.Tap()


def refused(desc, want, fn):
    """want: an errno, or a tuple of those the kernels in the matrix give."""
    want = want if isinstance(want, tuple) else (want,)
    names = '/'.join(errno.errorcode[w] for w in want)
    try:
        obj = fn()
    except PyverbsRDMAError as ex:
        tap(ex.error_code in want, '%s: %s (got %s)' % (
            desc, names, errno.errorcode.get(ex.error_code, ex.error_code)))
        return
    obj.close()
    tap(False, '%s: %s (it succeeded)' % (desc, names))


ctx = Context(name=sys.argv[1])
attr = ctx.query_device()
pd = PD(ctx)
LW, RW, RR, RA = (e.IBV_ACCESS_LOCAL_WRITE, e.IBV_ACCESS_REMOTE_WRITE,
                  e.IBV_ACCESS_REMOTE_READ, e.IBV_ACCESS_REMOTE_ATOMIC)

# Memory regions
refused('MR with remote write but no local write', errno.EINVAL,
        lambda: MR(pd, 4096, RW))
refused('MR with remote atomic but no local write', errno.EINVAL,
        lambda: MR(pd, 4096, RA))
# (On-demand paging MRs register now; odp.py checks them, and the
# implicit ODP MR refused with EOPNOTSUPP.)
# Registrations refused before any page is pinned need no real buffer
# beyond the first page.
page = mmap.mmap(-1, 4096)
buf_addr = ctypes.addressof(ctypes.c_char.from_buffer(page))
refused('MR of zero bytes', errno.EINVAL, lambda: MR(pd, 0, LW, address=buf_addr))
refused('MR larger than max_mr_size', errno.EINVAL,
        lambda: MR(pd, attr.max_mr_size + 4096, LW, address=buf_addr))
mrs = [MR(pd, 4096, LW | RW | RR | RA) for _ in range(32)]
tap(all(m.lkey == m.rkey for m in mrs), 'lkey equals rkey')
keys = [m.lkey for m in mrs]
tap(len(set(keys)) == len(keys), '32 MRs have 32 distinct keys')
idx = sorted(k >> 8 for k in keys)
steps = set(b - a for a, b in zip(idx, idx[1:]))
tap(len(steps) > 8, 'key indexes are not a sequence (%d distinct gaps)' % len(steps))
tap(max(idx) >= 1 << 16, 'key indexes spread over 24 bits (max %#x)' % max(idx))
for m in mrs:
    m.close()
tap(MR(pd, 4096, 0).lkey != 0, 'MR with local read only')

# Completion queues
refused('CQ of max_cqe + 1 entries', errno.EINVAL, lambda: CQ(ctx, attr.max_cqe + 1))
refused('CQ of 0 entries', errno.EINVAL, lambda: CQ(ctx, 0))
refused('CQ on a completion vector that does not exist', errno.EINVAL,
        lambda: CQ(ctx, 16, None, None, ctx.num_comp_vectors))
cq = CQ(ctx, 100)
tap(cq.cqe >= 100, 'CQ of 100 entries has %d' % cq.cqe)
cq.close()
cqs = []
try:
    for _ in range(64):
        cqs.append(CQ(ctx, 1))
except PyverbsRDMAError:
    pass
tap(len(cqs) == 64, '64 CQs at once (%d made)' % len(cqs))
for c in cqs:
    c.close()
# Queue pairs
cq = CQ(ctx, 16)


def mkqp(cap, qpt=e.IBV_QPT_RC):
    return QP(pd, QPInitAttr(qp_type=qpt, scq=cq, rcq=cq, cap=cap))


refused('QP with max_send_wr above max_qp_wr', errno.EINVAL,
        lambda: mkqp(QPCap(max_send_wr=attr.max_qp_wr + 1)))
refused('QP with max_recv_wr above max_qp_wr', errno.EINVAL,
        lambda: mkqp(QPCap(max_recv_wr=attr.max_qp_wr + 1)))
refused('QP with one SGE more than max_sge', errno.EINVAL,
        lambda: mkqp(QPCap(max_send_sge=attr.max_sge + 1)))
refused('QP with 513 bytes of inline data', errno.EINVAL,
        lambda: mkqp(QPCap(max_inline_data=513)))
qps = [mkqp(QPCap(max_send_wr=4, max_recv_wr=4)) for _ in range(8)]
nums = sorted(q.qp_num for q in qps)
tap(all(1 < n < 0xffffff for n in nums) and len(set(nums)) == 8,
    'QP numbers distinct, neither 0, 1 nor 0xffffff')
tap(len(set(b - a for a, b in zip(nums, nums[1:]))) > 1, 'QP numbers are not a sequence')
qp = qps[0]


def outcome(desc, want, fn):
    """want: the errno fn() must fail with, or None: it must succeed."""
    try:
        fn()
    except PyverbsRDMAError as ex:
        tap(want is not None and ex.error_code == want, '%s: %s (got %s)' % (
            desc, errno.errorcode.get(want, 'success'),
            errno.errorcode.get(ex.error_code, ex.error_code)))
        return
    tap(want is None, '%s: %s (it succeeded)' % (desc, errno.errorcode.get(want, 'success')))


def modify(desc, want, qp_state, mask, **fields):
    """modify_qp with exactly @mask, right or wrong for the fields."""
    qa = QPAttr()
    qa.qp_state = qp_state
    for k, v in fields.items():
        setattr(qa, k, v)
    outcome(desc, want, lambda: qp.modify(qa, mask))


INIT_MASK = (e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
             e.IBV_QP_ACCESS_FLAGS)
modify('RESET to RTR', errno.EINVAL, e.IBV_QPS_RTR, e.IBV_QP_STATE)
modify('RESET to INIT without a port', errno.EINVAL, e.IBV_QPS_INIT,
       INIT_MASK & ~e.IBV_QP_PORT, pkey_index=0)
modify('RESET to INIT on port 2', errno.EINVAL, e.IBV_QPS_INIT, INIT_MASK,
       port_num=2, pkey_index=0)
modify('RESET to INIT with P_Key index 16, past the table', errno.EINVAL,
       e.IBV_QPS_INIT, INIT_MASK, port_num=1, pkey_index=16)
modify('RESET to INIT', None, e.IBV_QPS_INIT, INIT_MASK, port_num=1, pkey_index=0,
       qp_access_flags=e.IBV_ACCESS_REMOTE_WRITE)
tap(state(qp) == e.IBV_QPS_INIT, 'query says INIT')
modify('INIT to RTR with nothing but the state', errno.EINVAL, e.IBV_QPS_RTR,
       e.IBV_QP_STATE)
modify('INIT to RTS', errno.EINVAL, e.IBV_QPS_RTS, e.IBV_QP_STATE)
modify('INIT to ERR', None, e.IBV_QPS_ERR, e.IBV_QP_STATE)
modify('ERR to RESET', None, e.IBV_QPS_RESET, e.IBV_QP_STATE)
tap(state(qp) == e.IBV_QPS_RESET, 'query says RESET')
for q in qps:
    q.close()


# Flushing: ERR completes every posted WR with WR_FLUSH_ERR, in order.
def poll_all(c, want):
    got = []
    for _ in range(100):
        k, wcs = c.poll(want - len(got))
        got += wcs[:k]
        if len(got) >= want:
            break
    return got


mr = MR(pd, 4096, LW)
scq, rcq = CQ(ctx, 32), CQ(ctx, 32)
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=rcq,
                       cap=QPCap(max_send_wr=8, max_recv_wr=8)))
modify('RESET to INIT', None, e.IBV_QPS_INIT, INIT_MASK, port_num=1, pkey_index=0)
for i in range(3):
    qp.post_recv(RecvWR(wr_id=100 + i, num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)]))
modify('INIT to ERR with 3 receives posted', None, e.IBV_QPS_ERR, e.IBV_QP_STATE)
wcs = poll_all(rcq, 4)
tap([w.wr_id for w in wcs] == [100, 101, 102], 'ERR flushes the 3 receives in order (%s)'
    % [w.wr_id for w in wcs])
tap(all(w.status == e.IBV_WC_WR_FLUSH_ERR and w.qp_num == qp.qp_num for w in wcs),
    'flushed receives say WR_FLUSH_ERR and their QP')
for i in range(2):
    qp.post_send(SendWR(wr_id=200 + i, opcode=e.IBV_WR_RDMA_WRITE if i else e.IBV_WR_SEND,
                        num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)], send_flags=0))
wcs = poll_all(scq, 3)
tap([(w.wr_id, w.status, w.opcode) for w in wcs] ==
    [(200, e.IBV_WC_WR_FLUSH_ERR, e.IBV_WC_SEND), (201, e.IBV_WC_WR_FLUSH_ERR, e.IBV_WC_RDMA_WRITE)],
    'unsignaled sends posted in ERR complete flushed, in order')
modify('ERR to RESET', None, e.IBV_QPS_RESET, e.IBV_QP_STATE)
qp.close()

# Shared receive queues
refused('SRQ of 0 WRs', errno.EINVAL,
        lambda: SRQ(pd, SrqInitAttr(SrqAttr(max_wr=0, max_sge=1))))
refused('SRQ of max_srq_wr + 1 WRs', errno.EINVAL,
        lambda: SRQ(pd, SrqInitAttr(SrqAttr(max_wr=attr.max_srq_wr + 1, max_sge=1))))
refused('SRQ with max_srq_sge + 1 SGEs', errno.EINVAL,
        lambda: SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=attr.max_srq_sge + 1))))
tap(attr.max_srq > 0 and attr.device_cap_flags & e.IBV_DEVICE_SRQ_RESIZE,
    'query_device: max_srq %d, SRQ resize' % attr.max_srq)
srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=2, srq_limit=5)))
q = srq.query()
tap(q.max_wr >= 16 and q.max_sge == 2 and q.srq_limit == 0,
    'SRQ of 16: max_wr %d, max_sge %d, limit %d (not armed at creation)'
    % (q.max_wr, q.max_sge, q.srq_limit))


def srq_modify(desc, want, mask, **fields):
    outcome(desc, want, lambda: srq.modify(SrqAttr(**fields), mask))


srq_modify('SRQ limit as large as the SRQ', errno.EINVAL, e.IBV_SRQ_LIMIT,
           srq_limit=q.max_wr)
srq_modify('SRQ limit 7', None, e.IBV_SRQ_LIMIT, srq_limit=7)
tap(srq.query().srq_limit == 7, 'query says limit 7')
for i in range(10):
    srq.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)]))
srq_modify('SRQ resized below its 10 posted WRs', errno.EINVAL, e.IBV_SRQ_MAX_WR, max_wr=4)
srq_modify('SRQ resized to 100', None, e.IBV_SRQ_MAX_WR, max_wr=100)
q = srq.query()
tap(q.max_wr >= 100 and q.srq_limit == 7, 'after resize: max_wr %d, limit %d'
    % (q.max_wr, q.srq_limit))
# The 10 WRs moved with their indexes: exactly max_wr - 10 more fit.
posted, full = 10, None
try:
    while posted <= q.max_wr:
        srq.post_recv(RecvWR(wr_id=posted, num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)]))
        posted += 1
except PyverbsRDMAError as ex:
    full = ex.error_code
tap(posted == q.max_wr and full == errno.ENOMEM,
    'the resized SRQ takes %d WRs in all, then ENOMEM (took %d)' % (q.max_wr, posted))
srqp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=rcq, srq=srq,
                         cap=QPCap(max_send_wr=4, max_recv_wr=0)))
qp = srqp
modify('SRQ QP: RESET to INIT', None, e.IBV_QPS_INIT, INIT_MASK, port_num=1, pkey_index=0)
modify('SRQ QP: INIT to ERR', None, e.IBV_QPS_ERR, e.IBV_QP_STATE)
kind = rdmatest.async_event(ctx, 10)
tap(kind == e.IBV_EVENT_QP_LAST_WQE_REACHED, 'SRQ QP in ERR: last WQE reached event (%s)' % kind)
tap(rcq.poll(1)[0] == 0, 'the SRQ\'s WQEs are not flushed')
srqp.close()
srq.close()

# Address handles
gid_index = None
for _ in range(50):     # the GID table follows the address in a moment
    for i in range(16):
        try:
            if str(ctx.query_gid(1, i)).startswith('0000:0000:0000:0000:0000:ffff'):
                gid_index = i
                break
        except PyverbsRDMAError:
            pass
    if gid_index is not None:
        break
    time.sleep(0.1)
if gid_index is None:
    tap(False, 'an IPv4 GID in the table')
else:
    gid = ctx.query_gid(1, gid_index)
    ahs = [AH(pd, attr=AHAttr(port_num=1, is_global=1,
                              gr=GlobalRoute(dgid=gid, sgid_index=gid_index, hop_limit=64)))
           for _ in range(4)]
    tap(len(ahs) == 4, 'AHs to our own IPv4 GID (index %d)' % gid_index)
    for a in ahs:
        a.close()
    refused('AH on port 2', errno.EINVAL, lambda: AH(pd, attr=AHAttr(
        port_num=2, is_global=1, gr=GlobalRoute(dgid=gid, sgid_index=gid_index))))
    # pyverbs carries the index in a byte: 255, an entry nobody filled.
    refused('AH with an empty GID index', (errno.ENODATA, errno.EINVAL), lambda: AH(
        pd, attr=AHAttr(port_num=1, is_global=1, gr=GlobalRoute(dgid=gid, sgid_index=255))))
    refused('AH without a GRH', errno.EINVAL, lambda: AH(pd, attr=AHAttr(port_num=1, is_global=0)))
mr.close()
scq.close()
rcq.close()
cq.close()
pd.close()
ctx.close()
sys.exit(tap.done())
