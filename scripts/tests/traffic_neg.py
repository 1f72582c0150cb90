#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): RC requests that must fail, in loopback on
one device. For each: the exact completion status on the requester, the
state and completions of the responder, the WR behind the failing one
flushed, the NAK counters moved by one. Prints TAP.

Usage: traffic_neg.py DEV GID_INDEX"""
import sys

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import REMOTE, poll, state

DEV, GIDX = sys.argv[1], int(sys.argv[2])
SIZE = 8192
tap = rdmatest.Tap()


def counters():
    return rdmatest.counters(DEV)


ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
mr = MR(pd, SIZE, REMOTE)
ro = MR(pd, SIZE, 0)                       # local read only
no_rw = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)
no_atomic = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)


def rc_pair(b_access=REMOTE):
    return rdmatest.rc_pair(ctx, pd, gid, GIDX, b_access)


def case(desc, wr, a_status, remote_error=True, b_recv=None, b_len=64,
         b_access=REMOTE):
    """Post @wr then a SEND behind it on a fresh pair; check what happens."""
    (a, acq), (b, bcq) = rc_pair(b_access)
    b.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(mr.buf + SIZE - b_len, b_len, mr.lkey)]))
    before = counters()
    a.post_send(wr)
    a.post_send(SendWR(wr_id=2, opcode=e.IBV_WR_SEND, num_sge=1,
                       sg=[SGE(mr.buf, 8, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED))
    wcs = poll(acq, 2)
    got = [(w.wr_id, w.status) for w in wcs]
    want = [(1, a_status), (2, e.IBV_WC_WR_FLUSH_ERR)]
    tap(got == want, '%s: requester completes %d, the next WR flushes' % (desc, a_status),
        'got %s, want %s' % (got, want))
    tap(state(a) == e.IBV_QPS_ERR, '%s: requester QP in ERR' % desc)
    after = counters()
    if remote_error:
        # The responder NAKed, went to ERR, and its receive completes so.
        bw = poll(bcq, 1)
        bgot = [(w.wr_id, w.status) for w in bw]
        bwant = [(7, b_recv if b_recv is not None else e.IBV_WC_WR_FLUSH_ERR)]
        tap(bgot == bwant and state(b) == e.IBV_QPS_ERR,
            '%s: responder QP in ERR, its receive %s' % (desc, 'fails' if b_recv else 'flushed'),
            'got %s state %d' % (bgot, state(b)))
        moved = (after['tx_nak_error'] - before['tx_nak_error'],
                 after['rx_nak_error'] - before['rx_nak_error'])
        tap(moved == (1, 1), '%s: one error NAK sent and received' % desc,
            'tx_nak_error +%d, rx_nak_error +%d' % moved)
    else:
        # A local error: the responder saw nothing wrong.
        tap(state(b) == e.IBV_QPS_RTS and not poll(bcq, 1, timeout=0.5),
            '%s: responder QP still RTS, nothing completed' % desc)
        tap(after['tx_nak_error'] == before['tx_nak_error'],
            '%s: no error NAK' % desc)


def rdma(opcode, laddr, llen, lkey, raddr, rkey):
    wr = SendWR(wr_id=1, opcode=opcode, num_sge=1, sg=[SGE(laddr, llen, lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, raddr)
    return wr


def atomic(opcode, raddr, rkey, laddr=None, lkey=None):
    wr = SendWR(wr_id=1, opcode=opcode, num_sge=1,
                sg=[SGE(laddr or mr.buf, 8, lkey or mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(rkey, raddr, 1, 0)
    return wr


W, R = e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ
FAA = e.IBV_WR_ATOMIC_FETCH_AND_ADD
top = mr.buf + SIZE

# The last byte of an MR is in range, one past it is not.
(a, acq), (b, bcq) = rc_pair()
a.post_send(rdma(W, mr.buf, 1, mr.lkey, top - 1, mr.rkey))
a.post_send(rdma(R, mr.buf, 1, mr.lkey, top - 1, mr.rkey))
wcs = poll(acq, 2)
tap([w.status for w in wcs] == [e.IBV_WC_SUCCESS] * 2,
    'WRITE and READ of the last byte of an MR succeed', str([w.status for w in wcs]))
del a, b

case('WRITE with a wrong rkey', rdma(W, mr.buf, 64, mr.lkey, mr.buf, mr.rkey ^ 0x100),
     e.IBV_WC_REM_ACCESS_ERR)
case('WRITE one byte past the MR', rdma(W, mr.buf, 2, mr.lkey, top - 1, mr.rkey),
     e.IBV_WC_REM_ACCESS_ERR)
case('READ one byte past the MR', rdma(R, mr.buf, 2, mr.lkey, top - 1, mr.rkey),
     e.IBV_WC_REM_ACCESS_ERR)
case('WRITE to an MR without REMOTE_WRITE',
     rdma(W, mr.buf, 64, mr.lkey, no_rw.buf, no_rw.rkey), e.IBV_WC_REM_ACCESS_ERR)
# A QP not enabled for the operation: an invalid request, not an access
# error (the MR's rights are fine).
case('WRITE to a QP without REMOTE_WRITE', rdma(W, mr.buf, 64, mr.lkey, mr.buf, mr.rkey),
     e.IBV_WC_REM_INV_REQ_ERR, b_access=e.IBV_ACCESS_REMOTE_READ)
case('READ from a QP without REMOTE_READ', rdma(R, mr.buf, 64, mr.lkey, mr.buf, mr.rkey),
     e.IBV_WC_REM_INV_REQ_ERR, b_access=e.IBV_ACCESS_REMOTE_WRITE)
case('atomic on an MR without REMOTE_ATOMIC', atomic(FAA, no_atomic.buf, no_atomic.rkey),
     e.IBV_WC_REM_ACCESS_ERR)
# A misaligned atomic never leaves the rxe provider (EINVAL at post); the
# responder's answer to one is in ingress.py, with a crafted packet.
case('SEND longer than the receive buffer',
     SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr.buf, 128, mr.lkey)],
            send_flags=e.IBV_SEND_SIGNALED),
     e.IBV_WC_REM_INV_REQ_ERR, b_recv=e.IBV_WC_LOC_LEN_ERR)
case('READ into a local MR without LOCAL_WRITE', rdma(R, ro.buf, 64, ro.lkey, mr.buf, mr.rkey),
     e.IBV_WC_LOC_PROT_ERR, remote_error=False)
case('WRITE from a wrong lkey', rdma(W, mr.buf, 64, mr.lkey ^ 0x100, mr.buf, mr.rkey),
     e.IBV_WC_LOC_PROT_ERR, remote_error=False)
sys.exit(tap.done())
