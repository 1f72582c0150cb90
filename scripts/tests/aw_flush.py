#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): IBTA 1.5's ATOMIC WRITE and FLUSH between
two RC QPs on one device (loopback), through the rxe provider's extended
send API. The device advertises both; an ATOMIC WRITE's 8 bytes land
exactly (its neighbours untouched) and complete as ATOMIC_WRITE; one
misaligned is an invalid request, one to an MR or a QP without remote
write fails with the status IBTA names, and one of 4 bytes (ibv_post_send
with a gather list) fails locally. FLUSH of a range and of the whole MR
complete as FLUSH after the WRITE before them; without the MR's right, of
a range outside the MR, with the responder QP not allowing the placement
type, or asking for persistence (no MR is granted it: registration is
refused) each fails as rdma_rxe fails them. Prints TAP.

Usage: aw_flush.py DEV GID_INDEX"""
import errno
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import SGE, SendWR

import rdmatest
from rdmatest import poll, rc_connect

DEV, GIDX = sys.argv[1], int(sys.argv[2])
SIZE = 4096
FLUSH_QP = e.IBV_ACCESS_FLUSH_GLOBAL | e.IBV_ACCESS_FLUSH_PERSISTENT
# Device capability bits of IBTA 1.5 (ibv_device_attr_ex.device_cap_flags_ex).
CAP_FLUSH_GLOBAL = 1 << 38
CAP_FLUSH_PERSISTENT = 1 << 39
CAP_ATOMIC_WRITE = 1 << 40
FILL = b'\xaa' * SIZE
tap = rdmatest.Tap()

ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
LW = e.IBV_ACCESS_LOCAL_WRITE
tgt = MR(pd, SIZE, LW | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_FLUSH_GLOBAL)
no_write = MR(pd, SIZE, LW | e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_FLUSH_GLOBAL)
no_flush = MR(pd, SIZE, LW | e.IBV_ACCESS_REMOTE_WRITE)
src = MR(pd, SIZE, LW)


def pair(b_access=rdmatest.REMOTE | FLUSH_QP):
    """Extended RC QPs a (requester) and b (responder @b_access), connected."""
    qps = []
    for _ in range(2):
        cq = CQ(ctx, 16)
        attr = QPInitAttrEx(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, pd=pd,
                            cap=QPCap(max_send_wr=8, max_recv_wr=8),
                            comp_mask=e.IBV_QP_INIT_ATTR_PD |
                            e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
                            send_ops_flags=e.IBV_QP_EX_WITH_ATOMIC_WRITE |
                            e.IBV_QP_EX_WITH_FLUSH |
                            e.IBV_QP_EX_WITH_RDMA_WRITE)
        qps.append((QPEx(ctx, attr), cq))
    rc_connect(qps[0][0], gid, GIDX, qps[1][0].qp_num,
               access=rdmatest.REMOTE | FLUSH_QP, timeout=12, retry_cnt=2)
    rc_connect(qps[1][0], gid, GIDX, qps[0][0].qp_num, access=b_access,
               timeout=12, retry_cnt=2)
    return qps


def post(qp, build, wr_id=1):
    qp.wr_start()
    qp.wr_id = wr_id
    qp.wr_flags = e.IBV_SEND_SIGNALED
    build(qp)
    qp.wr_complete()


def one(qp, cq, build, wr_id=1):
    """Post one WR built by @build; its completion, or None."""
    post(qp, build, wr_id)
    wcs = poll(cq, 1)
    return wcs[0] if wcs else None


def check_wc(wc, status, opcode, desc):
    if wc is None:
        return tap(False, desc, 'no completion')
    why = 'status %s opcode %s' % (wc.status, wc.opcode)
    return tap(wc.status == status and
               (status != e.IBV_WC_SUCCESS or wc.opcode == opcode), desc, why)


def atomic_write(mr, off, value):
    return lambda qp: qp.wr_atomic_write(mr.rkey, mr.buf + off, value)


def flush(mr, off, length, ptype, level):
    return lambda qp: qp.wr_flush(mr.rkey, mr.buf + off, length, ptype, level)


caps = ctx.query_device_ex().device_cap_flags_ex
tap(caps & CAP_ATOMIC_WRITE and caps & CAP_FLUSH_GLOBAL and
    caps & CAP_FLUSH_PERSISTENT, 'device advertises ATOMIC_WRITE and FLUSH',
    'device_cap_flags_ex %#x' % caps)

# ATOMIC WRITE: exactly 8 bytes at an aligned address.
(a, acq), (b, bcq) = pair()
VALUE = bytes(range(1, 9))
tgt.write(FILL, SIZE)
wc = one(a, acq, atomic_write(tgt, 64, VALUE))
check_wc(wc, e.IBV_WC_SUCCESS, e.IBV_WC_ATOMIC_WRITE,
         'ATOMIC WRITE completes as ATOMIC_WRITE')
got = tgt.read(SIZE, 0)
tap(got[64:72] == VALUE, 'ATOMIC WRITE: the 8 bytes landed', got[64:72].hex())
tap(got[:64] == FILL[:64] and got[72:] == FILL[72:],
    'ATOMIC WRITE: neighbours untouched')
wc = one(a, acq, atomic_write(tgt, SIZE - 8, b'\x00' * 8), 2)
check_wc(wc, e.IBV_WC_SUCCESS, e.IBV_WC_ATOMIC_WRITE,
         'ATOMIC WRITE of the MR\'s last 8 bytes')
tap(tgt.read(8, SIZE - 8) == b'\x00' * 8, 'ATOMIC WRITE of zeros landed')

# FLUSH after a WRITE on the same QP: a range, then the whole MR.
src.write(b'w' * 1024, 1024)
wc = one(a, acq, lambda qp: (qp.wr_rdma_write(tgt.rkey, tgt.buf + 1024),
                             qp.wr_set_sge(SGE(src.buf, 1024, src.lkey))), 3)
check_wc(wc, e.IBV_WC_SUCCESS, e.IBV_WC_RDMA_WRITE, 'WRITE before FLUSH')
wc = one(a, acq, flush(tgt, 1024, 1024, e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_RANGE), 4)
check_wc(wc, e.IBV_WC_SUCCESS, e.IBV_WC_FLUSH,
         'FLUSH global of a range completes as FLUSH')
tap(tgt.read(1024, 1024) == b'w' * 1024, 'the WRITE before the FLUSH is placed')
# The whole MR: the range is not looked at (rdma_rxe's pyverbs test
# gives random lengths).
wc = one(a, acq, flush(tgt, 0, 12345678, e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_MR), 5)
check_wc(wc, e.IBV_WC_SUCCESS, e.IBV_WC_FLUSH, 'FLUSH global of the whole MR')
wc = one(a, acq, flush(tgt, 0, 0, e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_RANGE), 6)
check_wc(wc, e.IBV_WC_SUCCESS, e.IBV_WC_FLUSH, 'FLUSH global of an empty range')
tap(rdmatest.state(a) == e.IBV_QPS_RTS and rdmatest.state(b) == e.IBV_QPS_RTS,
    'both QPs still RTS')

# Each failure ends its pair in ERR: a new pair for each.
FAILS = [
    ('ATOMIC WRITE misaligned: invalid request', None,
     atomic_write(tgt, 68, VALUE), e.IBV_WC_REM_INV_REQ_ERR, tgt),
    ('ATOMIC WRITE to an MR without remote write: access error', None,
     atomic_write(no_write, 64, VALUE), e.IBV_WC_REM_ACCESS_ERR, no_write),
    ('ATOMIC WRITE past the MR: access error', None,
     atomic_write(tgt, SIZE, VALUE), e.IBV_WC_REM_ACCESS_ERR, None),
    ('ATOMIC WRITE to a QP without remote write: invalid request',
     e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC | FLUSH_QP,
     atomic_write(tgt, 64, VALUE), e.IBV_WC_REM_INV_REQ_ERR, tgt),
    ('FLUSH global without the MR\'s right: access error', None,
     flush(no_flush, 0, 64, e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_RANGE),
     e.IBV_WC_REM_ACCESS_ERR, None),
    ('FLUSH global of a range past the MR: access error', None,
     flush(tgt, SIZE - 8, 64, e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_RANGE),
     e.IBV_WC_REM_ACCESS_ERR, None),
    ('FLUSH persistent: no MR holds the right, access error', None,
     flush(tgt, 0, 64, e.IBV_FLUSH_PERSISTENT, e.IBV_FLUSH_RANGE),
     e.IBV_WC_REM_ACCESS_ERR, None),
    ('FLUSH global and persistent of the whole MR: access error', None,
     flush(tgt, 0, 0, e.IBV_FLUSH_GLOBAL | e.IBV_FLUSH_PERSISTENT,
           e.IBV_FLUSH_MR), e.IBV_WC_REM_ACCESS_ERR, None),
    ('FLUSH global to a QP without FLUSH_GLOBAL: invalid request',
     rdmatest.REMOTE | e.IBV_ACCESS_FLUSH_PERSISTENT,
     flush(tgt, 0, 64, e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_RANGE),
     e.IBV_WC_REM_INV_REQ_ERR, None),
]
for desc, b_access, build, status, watched in FAILS:
    (a, acq), (b, bcq) = pair() if b_access is None else pair(b_access)
    if watched:
        watched.write(FILL, SIZE)
    wc = one(a, acq, build)
    check_wc(wc, status, None, desc)
    if watched:
        tap(watched.read(SIZE, 0) == FILL, desc + ': memory untouched')

# A 4-byte ATOMIC WRITE through ibv_post_send: refused by the requester.
(a, acq), (b, bcq) = pair()
wr = SendWR(wr_id=9, opcode=e.IBV_WR_ATOMIC_WRITE, num_sge=1,
            sg=[SGE(src.buf, 4, src.lkey)], send_flags=e.IBV_SEND_SIGNALED)
wr.set_wr_rdma(tgt.rkey, tgt.buf)
a.post_send(wr)
wcs = poll(acq, 1)
tap(len(wcs) == 1 and wcs[0].status == e.IBV_WC_LOC_LEN_ERR,
    'ATOMIC WRITE of 4 bytes: local length error',
    'completions %s' % [(w.status, w.opcode) for w in wcs])

# No persistence to promise: an MR asking for it is refused, as rdma_rxe
# refuses it on memory that is not pmem.
try:
    MR(pd, SIZE, LW | e.IBV_ACCESS_FLUSH_PERSISTENT)
    tap(False, 'MR with FLUSH_PERSISTENT refused', 'it registered')
except PyverbsRDMAError as ex:
    tap(ex.error_code == errno.EINVAL, 'MR with FLUSH_PERSISTENT refused (EINVAL)',
        'errno %d' % ex.error_code)

sys.exit(tap.done())
