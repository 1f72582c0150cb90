#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): memory windows on one device, RC QPs in
loopback. QP a writes, reads and adds through windows that QP b's side
bound to a part of its MR. Type 1 (ibv_bind_mw): WRITE and READ inside
the window land and read back byte for byte; outside it, past the rights
it granted (narrower than the MR's), with its old rkey after a rebind,
after a bind of length 0: remote access error; LOCAL_INV of its rkey
fails. Type 2 (IBV_WR_BIND_MW): WRITE, READ and fetch-and-add through
it; through a QP it was not bound through, after LOCAL_INV, after a SEND
with invalidate of its rkey (IBV_WC_WITH_INV seen by b): remote access
error; bound again with a new key it works again. Zero-based type 2
windows: addresses count from the window's start (WRITE, READ, atomic
land at the right MR offset; past its end, or at the MR's own address:
remote access error); a zero-based type 1 bind is refused. dereg_mr of an MR with
a window bound: EBUSY, then 0 once the window is gone. Binds the rules
refuse complete with IBV_WC_MW_BIND_ERR and put the QP in ERR. Prints
TAP.

Usage: mw.py DEV GID_INDEX"""
import errno
import sys

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import poll, rc_pair, state

DEV, GIDX = sys.argv[1], int(sys.argv[2])
SIZE = 8192
WIN, WLEN = 1024, 2048          # the window: bytes 1024 to 3071 of the MR
RW = e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_WRITE
MR_ACCESS = e.IBV_ACCESS_LOCAL_WRITE | RW | e.IBV_ACCESS_MW_BIND
tap = rdmatest.Tap()

ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
target = MR(pd, SIZE, MR_ACCESS)        # b's memory, behind the windows
local = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE)
attr = ctx.query_device()
tap(attr.device_cap_flags & e.IBV_DEVICE_MEM_WINDOW and attr.max_mw > 0,
    'query_device: MEM_WINDOW, max_mw %d' % attr.max_mw)
tap(attr.device_cap_flags & e.IBV_DEVICE_MEM_WINDOW_TYPE_2B,
    'query_device: MEM_WINDOW_TYPE_2B')


def pair():
    """Fresh QPs: a remote access error puts both in ERR."""
    (a, acq), (b, bcq) = rc_pair(ctx, pd, gid, GIDX)
    return a, acq, b, bcq


def one(cq):
    """The next completion of @cq, or None."""
    wcs = poll(cq, 1, timeout=10)
    return wcs[0] if wcs else None


def status(cq):
    wc = one(cq)
    return None if wc is None else wc.status


def rdma(qp, cq, opcode, rkey, off, length, loff=0, base=None):
    """WRITE or READ of @length bytes at @off of @target through @rkey
    (remote address @base + @off; @base is target.buf unless given),
    from/to @loff of @local; its completion status."""
    wr = SendWR(opcode=opcode, num_sge=1, sg=[SGE(local.buf + loff, length, local.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, (target.buf if base is None else base) + off)
    qp.post_send(wr)
    return status(cq)


def fetch_add(qp, cq, rkey, off, add, base=None):
    wr = SendWR(opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                sg=[SGE(local.buf, 8, local.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(rkey, (target.buf if base is None else base) + off, add, 0)
    qp.post_send(wr)
    return status(cq)


def bind1(qp, cq, mw, off, length, access, mr=target):
    """ibv_bind_mw (the provider gives @mw its new rkey as it posts);
    the completion's (status, opcode)."""
    qp.bind_mw(mw, MWBind(MWBindInfo(mr, mr.buf + off, length, access),
                          e.IBV_SEND_SIGNALED))
    wc = one(cq)
    return (wc.status, wc.opcode) if wc else (None, None)


def bind2(qp, cq, mw, off, length, access, mr=target):
    """IBV_WR_BIND_MW; (the completion status, the rkey it binds). pyverbs
    makes the new rkey from the one of alloc_mw: a second bind of one
    window asks for the key it has."""
    wr = SendWR(opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
    wr.set_bind_wr(mw, MWBindInfo(mr, mr.buf + off, length, access))
    qp.post_send(wr)
    return status(cq), wr.rkey


def local_inv(qp, cq, rkey):
    wr = SendWR(opcode=e.IBV_WR_LOCAL_INV, send_flags=e.IBV_SEND_SIGNALED)
    wr.imm_data = rkey
    qp.post_send(wr)
    return status(cq)


ACC = e.IBV_WC_REM_ACCESS_ERR
OK = e.IBV_WC_SUCCESS

# Type 1.
a, acq, b, bcq = pair()
mw1 = MW(pd, e.IBV_MW_TYPE_1)
(st, op) = bind1(b, bcq, mw1, WIN, WLEN, RW)
tap(st == OK and op == e.IBV_WC_BIND_MW, 'type 1: bind completes (BIND_MW)',
    'got %s, %s' % (st, op))
pattern = bytes(range(256)) * 2
local.write(pattern, len(pattern))
tap(rdma(a, acq, e.IBV_WR_RDMA_WRITE, mw1.rkey, WIN + 100, 512) == OK and
    target.read(512, WIN + 100) == pattern,
    'type 1: WRITE through the window lands byte for byte')
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, mw1.rkey, WIN + 100, 512, 4096) == OK and
    local.read(512, 4096) == pattern,
    'type 1: READ through the window reads it back')
tap(rdma(a, acq, e.IBV_WR_RDMA_WRITE, mw1.rkey, WIN + WLEN - 8, 16) == ACC,
    'type 1: WRITE past the window end: remote access error')
a, acq, b, bcq = pair()
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, mw1.rkey, WIN - 1, 4) == ACC,
    'type 1: READ from before the window: remote access error')
a, acq, b, bcq = pair()
tap(fetch_add(a, acq, mw1.rkey, WIN, 1) == ACC,
    'type 1: atomic without the right (the MR has it not either): remote access error')
a, acq, b, bcq = pair()
old = mw1.rkey
(st, _) = bind1(b, bcq, mw1, WIN, WLEN, e.IBV_ACCESS_REMOTE_READ)
tap(st == OK, 'type 1: bound again, read only')
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, mw1.rkey, WIN, 64) == OK,
    'type 1: READ allowed by the narrower window')
tap(rdma(a, acq, e.IBV_WR_RDMA_WRITE, mw1.rkey, WIN, 64) == ACC,
    'type 1: WRITE the MR allows but the window does not: remote access error')
a, acq, b, bcq = pair()
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, old, WIN, 64) == ACC,
    'type 1: its rkey before the rebind: remote access error')
a, acq, b, bcq = pair()
tap(local_inv(b, bcq, mw1.rkey) == e.IBV_WC_LOC_PROT_ERR,
    'type 1: LOCAL_INV of its rkey fails (LOC_PROT_ERR)')
a, acq, b, bcq = pair()
(st, _) = bind1(b, bcq, mw1, WIN, 0, 0)
tap(st == OK, 'type 1: bind of length 0 completes')
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, mw1.rkey, WIN, 4) == ACC,
    'type 1: after the bind of length 0: remote access error')

# An MR with a window bound is not deregistered.
spare = MR(pd, SIZE, MR_ACCESS)
a, acq, b, bcq = pair()
(st, _) = bind1(b, bcq, mw1, 0, 64, RW, mr=spare)
try:
    spare.close()
    got = 0
except PyverbsRDMAError as ex:
    got = ex.error_code
tap(st == OK and got == errno.EBUSY, 'dereg_mr with a window bound: EBUSY',
    'bind %s, dereg errno %s' % (st, got))
mw1.close()
try:
    spare.close()
    got = 0
except PyverbsRDMAError as ex:
    got = ex.error_code
tap(got == 0, 'dereg_mr once the window is deallocated: 0', 'errno %s' % got)

# Type 2.
a, acq, b, bcq = pair()
mw2 = MW(pd, e.IBV_MW_TYPE_2)
st, key = bind2(b, bcq, mw2, WIN, WLEN, RW | e.IBV_ACCESS_REMOTE_ATOMIC)
tap(st == OK, 'type 2: BIND_MW work request completes')
rev = pattern[::-1][:256]
local.write(rev, 256)
tap(rdma(a, acq, e.IBV_WR_RDMA_WRITE, key, WIN, 256) == OK and
    target.read(256, WIN) == rev,
    'type 2: WRITE through the window lands')
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, key, WIN, 256, 2048) == OK and
    local.read(256, 2048) == rev,
    'type 2: READ through the window')
target.write(bytes(8), 8, 2048)
tap(fetch_add(a, acq, key, 2048, 5) == OK and
    int.from_bytes(target.read(8, 2048), 'little') == 5,
    'type 2: fetch-and-add through the window')
c, ccq, d, dcq = pair()
tap(rdma(c, ccq, e.IBV_WR_RDMA_READ, key, WIN, 8) == ACC,
    'type 2: through a QP it was not bound through: remote access error')
tap(local_inv(b, bcq, key) == OK, 'type 2: LOCAL_INV of its rkey completes')
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, key, WIN, 8) == ACC,
    'type 2: after LOCAL_INV: remote access error')

# A second window, invalidated by the peer's SEND.
a, acq, b, bcq = pair()
mw3 = MW(pd, e.IBV_MW_TYPE_2)
st, key = bind2(b, bcq, mw3, WIN, WLEN, RW)
tap(st == OK, 'type 2: a second window bound')
tap(rdma(a, acq, e.IBV_WR_RDMA_WRITE, key, WIN, 8) == OK,
    'type 2: WRITE through the second window')
b.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(local.buf + 6144, 64, local.lkey)]))
wr = SendWR(opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1, sg=[SGE(local.buf, 16, local.lkey)],
            send_flags=e.IBV_SEND_SIGNALED)
wr.imm_data = key
a.post_send(wr)
sst, rwc = status(acq), one(bcq)
tap(sst == OK and rwc is not None and rwc.status == OK and
    rwc.wc_flags & e.IBV_WC_WITH_INV,
    'type 2: SEND with invalidate of its rkey: received with IBV_WC_WITH_INV',
    'send %s, recv %s' % (sst, rwc and (rwc.status, rwc.wc_flags)))
tap(rdma(a, acq, e.IBV_WR_RDMA_WRITE, key, WIN, 8) == ACC,
    'type 2: after SEND with invalidate: remote access error')
a, acq, b, bcq = pair()
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, key, WIN, 8) == ACC,
    'type 2: its rkey once invalidated: remote access error')
a, acq, b, bcq = pair()
st = local_inv(b, bcq, key)
tap(st == e.IBV_WC_LOC_PROT_ERR,
    'type 2: LOCAL_INV of a window already free fails (LOC_PROT_ERR)',
    'status %s' % st)

# Zero-based type 2: the requester's addresses count from the window's
# first byte (MR offset WIN), not from the MR's iova.
ZB = RW | e.IBV_ACCESS_REMOTE_ATOMIC | e.IBV_ACCESS_ZERO_BASED
a, acq, b, bcq = pair()
mwz = MW(pd, e.IBV_MW_TYPE_2)     # held: a window freed is no window
st, key = bind2(b, bcq, mwz, WIN, WLEN, ZB)
tap(st == OK, 'zero-based type 2: BIND_MW completes', 'status %s' % st)
zb = bytes((7 * i + 3) & 0xff for i in range(300))
local.write(zb, len(zb))
tap(rdma(a, acq, e.IBV_WR_RDMA_WRITE, key, 100, 300, base=0) == OK and
    target.read(300, WIN + 100) == zb,
    'zero-based type 2: WRITE at window offset 100 lands at MR offset WIN + 100')
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, key, 100, 300, 4096, base=0) == OK and
    local.read(300, 4096) == zb,
    'zero-based type 2: READ at window offset 100 reads it back')
target.write(bytes(8), 8, WIN + 512)
tap(fetch_add(a, acq, key, 512, 9, base=0) == OK and
    int.from_bytes(target.read(8, WIN + 512), 'little') == 9,
    'zero-based type 2: fetch-and-add at window offset 512')
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, key, WLEN - 8, 8, base=0) == OK,
    'zero-based type 2: READ of the window\'s last 8 bytes')
tap(rdma(a, acq, e.IBV_WR_RDMA_READ, key, WLEN - 8, 16, base=0) == ACC,
    'zero-based type 2: READ past the window end: remote access error')
a, acq, b, bcq = pair()
mwz2 = MW(pd, e.IBV_MW_TYPE_2)
st, key = bind2(b, bcq, mwz2, WIN, WLEN, ZB)
tap(st == OK and rdma(a, acq, e.IBV_WR_RDMA_WRITE, key, target.buf + WIN, 8,
                      base=0) == ACC,
    'zero-based type 2: the MR\'s own address is outside the window: remote access error')
# Type 1 windows are never zero-based: the rxe provider refuses the bind
# (EINVAL) before the kernel would (MW_BIND_ERR, QP in ERR).
a, acq, b, bcq = pair()
mwz1 = MW(pd, e.IBV_MW_TYPE_1)
try:
    (st, _) = bind1(b, bcq, mwz1, WIN, WLEN, ZB)
    refused = st == e.IBV_WC_MW_BIND_ERR and state(b) == e.IBV_QPS_ERR
except PyverbsRDMAError as ex:
    st, refused = 'errno %d' % ex.error_code, ex.error_code == errno.EINVAL
tap(refused, 'zero-based type 1 bind refused', 'got %s' % st)

# Binds the rules refuse: MW_BIND_ERR, the QP in ERR. Each on a fresh
# free window but mw2's second bind, which asks for the key it has.
ro = MR(pd, SIZE, e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_MW_BIND)
nobind = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE | RW)
pd2 = PD(ctx)
cases = [
    ('MR without MW_BIND', None, nobind, 0, 64, RW),
    ('remote write on an MR without local write', None, ro, 0, 64,
     e.IBV_ACCESS_REMOTE_WRITE),
    ('range past the MR', None, target, SIZE - 32, 64, RW),
    ('type 2 of length 0', None, target, 0, 0, RW),
    ('window of another PD', MW(pd2, e.IBV_MW_TYPE_2), target, 0, 64, RW),
    ('type 2 bound again with the key it has', mw2, target, 0, 64, RW),
]
for desc, mw, mr, off, length, access in cases:
    a, acq, b, bcq = pair()
    st, _ = bind2(b, bcq, mw or MW(pd, e.IBV_MW_TYPE_2), off, length, access, mr=mr)
    tap(st == e.IBV_WC_MW_BIND_ERR and state(b) == e.IBV_QPS_ERR,
        'bind refused, %s: MW_BIND_ERR, QP in ERR' % desc,
        'status %s, state %s' % (st, state(b)))
a, acq, b, bcq = pair()
st, _ = bind2(b, bcq, MW(pd, e.IBV_MW_TYPE_2), WIN, 64, RW)
tap(st == OK, 'type 2: a fresh window binds after the refusals')

sys.exit(tap.done())
