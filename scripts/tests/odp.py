#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): on-demand paging MRs on two RC QPs in
loopback on one device, path MTU 1024 (Documentation/verbs.rst,
"On-demand paging"). Each ODP MR covers a fresh anonymous mmap, so its
pages are either never touched or touched by the CPU only, never faulted
in through the MR; each transfer starts 100 bytes into a page and spans
four pages (13 packets). Checked byte for byte: WRITE into untouched
memory (the responder's RNR NAK path, counted by tx_rnr_nak), READ from
an ODP MR into an untouched ODP MR (the requester faults the destination
in first), SEND from an ODP MR the CPU wrote into an untouched ODP
receive buffer, atomics on an ODP target with their result into an ODP
MR; madvise(DONTNEED) of one page of a registered range, then a READ of
it gives zeros, never the old bytes, and a WRITE lands again; advise_mr
PREFETCH_WRITE makes a WRITE need no RNR NAK, PREFETCH_NO_FAULT is
taken (through the uverbs ioctl: rdma-core 56's rxe provider lacks the
verb); a page made PROT_NONE under an ODP MR fails a WRITE into it (RNR
retries exceeded) and a SEND out of it (local protection error); implicit
ODP is refused with EOPNOTSUPP. Prints TAP.

Usage: odp.py DEV GID_INDEX"""
import ctypes
import errno
import fcntl
import os
import struct
import sys

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import REMOTE, poll

DEV, GIDX = sys.argv[1], int(sys.argv[2])
PAGE = 4096
LEN = 5 * PAGE           # each ODP mapping
OFF, SIZE = 100, 3 * PAGE + 500
tap = rdmatest.Tap()

ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
attr = ctx.query_device_ex()
rc_want = (e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV |
           e.IBV_ODP_SUPPORT_WRITE | e.IBV_ODP_SUPPORT_READ |
           e.IBV_ODP_SUPPORT_ATOMIC)
caps = attr.odp_caps
tap(caps.general_caps & e.IBV_ODP_SUPPORT and
    caps.rc_odp_caps & rc_want == rc_want and
    not caps.general_caps & e.IBV_ODP_SUPPORT_IMPLICIT and
    caps.ud_odp_caps == e.IBV_ODP_SUPPORT_SEND,
    'odp_caps: ODP, RC SEND/RECV/WRITE/READ/ATOMIC, UD SEND; no implicit',
    'general %#x rc %#x ud %#x' % (caps.general_caps,
                                    caps.rc_odp_caps, caps.ud_odp_caps))

maps = []

# The uverbs ioctl of advise_mr (rdma/ib_user_ioctl_cmds.h): object MR (7),
# method ADVISE_MR (2); attributes PD handle, advice, flags, SGE list.
RDMA_VERBS_IOCTL = 3 << 30 | 24 << 16 | 0x1b << 8 | 1
RDMA_DRIVER_RXE = 14
ADVISE_PREFETCH, ADVISE_PREFETCH_WRITE, ADVISE_PREFETCH_NO_FAULT = 0, 1, 2
ADVISE_FLUSH = 1


def advise_mr(context, prot, advice, flags, sges):
    """ibv_advise_mr() by hand; raises OSError with the kernel's errno."""
    raw = b''.join(struct.pack('=QII', a, n, k) for a, n, k in sges)
    sgl = ctypes.create_string_buffer(raw, len(raw))
    attrs = ((0, 0, prot.handle), (1, 8, advice), (2, 8, flags),
             (3, len(sgl.raw), ctypes.addressof(sgl)))
    req = bytearray(struct.pack('=HHHHQII', 24 + 16 * len(attrs), 7, 2,
                                len(attrs), 0, RDMA_DRIVER_RXE, 0) +
                    b''.join(struct.pack('=HHHHQ', i, n, 1, 0, v)
                             for i, n, v in attrs))
    fcntl.ioctl(context.cmd_fd, RDMA_VERBS_IOCTL, req)


# mmap and madvise from libc (rdma-core 44's pyverbs has no madvise).
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long)
libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
PROT_RW, MAP_PRIVATE_ANON, MADV_DONTNEED = 0x3, 0x22, 4


def mmap(length):
    """A fresh private anonymous mapping of @length bytes, no page touched."""
    addr = libc.mmap(None, length, PROT_RW, MAP_PRIVATE_ANON, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), 'mmap')
    return addr


def madvise(addr, length):
    """madvise(MADV_DONTNEED): the pages go, to be faulted in anew."""
    if libc.madvise(addr, length, MADV_DONTNEED):
        raise OSError(ctypes.get_errno(), 'madvise')


def odp_mr():
    """An ODP MR over a fresh anonymous mapping, no page touched."""
    addr = mmap(LEN)
    maps.append(addr)
    return MR(pd, LEN, REMOTE | e.IBV_ACCESS_ON_DEMAND, address=addr)


def rnr():
    return rdmatest.counters(DEV)['tx_rnr_nak']


def one(qp, cq, wr, desc, status=e.IBV_WC_SUCCESS):
    qp.post_send(wr)
    wcs = poll(cq, 1, timeout=60)
    return tap(len(wcs) == 1 and wcs[0].status == status, desc,
               'got %s' % [(w.status, w.vendor_err) for w in wcs])


def rdma(op, mr, remote, rkey, desc, status=e.IBV_WC_SUCCESS, length=SIZE):
    wr = SendWR(opcode=op, num_sge=1, sg=[SGE(mr.buf + OFF, length, mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, remote)
    return one(a, acq, wr, desc, status)


(a, acq), (b, bcq) = rdmatest.rc_pair(ctx, pd, gid, GIDX, depth=16,
                                      min_rnr_timer=1, timeout=12)
plain = MR(pd, LEN, REMOTE)
data = os.urandom(SIZE)
plain.write(data, SIZE, OFF)

# WRITE into pages never touched: RNR NAKs while they fault in.
w = odp_mr()
r0 = rnr()
rdma(e.IBV_WR_RDMA_WRITE, plain, w.buf + OFF, w.rkey,
     'WRITE into untouched ODP memory completes')
tap(w.read(SIZE, OFF) == data, 'WRITE: the ODP MR holds every byte')
tap(rnr() > r0, 'WRITE: the responder RNR NAKed while faulting (+%d)' % (rnr() - r0))

# READ from that ODP MR into an untouched ODP MR.
rd = odp_mr()
rdma(e.IBV_WR_RDMA_READ, rd, w.buf + OFF, w.rkey,
     'READ from an ODP MR into untouched ODP memory completes')
tap(rd.read(SIZE, OFF) == data, 'READ: every byte arrived')

# SEND from an ODP MR the CPU wrote (not faulted through the MR) into an
# untouched ODP receive buffer.
src, dst = odp_mr(), odp_mr()
data2 = os.urandom(SIZE)
src.write(data2, SIZE, OFF)
b.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(dst.buf + OFF, SIZE, dst.lkey)]))
one(a, acq, SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                   sg=[SGE(src.buf + OFF, SIZE, src.lkey)],
                   send_flags=e.IBV_SEND_SIGNALED),
    'SEND from an ODP MR completes')
wcs = poll(bcq, 1)
tap(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS and
    wcs[0].byte_len == SIZE, 'RECV into untouched ODP memory completes',
    'got %s' % [(x.status, x.byte_len) for x in wcs])
tap(dst.read(SIZE, OFF) == data2, 'SEND/RECV: every byte arrived')

# Atomics: target and result both in untouched ODP memory.
at, res = odp_mr(), odp_mr()
wr = SendWR(opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
            sg=[SGE(res.buf + PAGE, 8, res.lkey)], send_flags=e.IBV_SEND_SIGNALED)
wr.set_wr_atomic(at.rkey, at.buf + 2 * PAGE, 5, 0)
one(a, acq, wr, 'FETCH_AND_ADD on an ODP target completes')
wr = SendWR(opcode=e.IBV_WR_ATOMIC_CMP_AND_SWP, num_sge=1,
            sg=[SGE(res.buf + 3 * PAGE, 8, res.lkey)], send_flags=e.IBV_SEND_SIGNALED)
wr.set_wr_atomic(at.rkey, at.buf + 2 * PAGE, 5, 0x1234)
one(a, acq, wr, 'CMP_AND_SWP on an ODP target completes')
tap(int.from_bytes(at.read(8, 2 * PAGE), 'little') == 0x1234 and
    int.from_bytes(res.read(8, PAGE), 'little') == 0 and
    int.from_bytes(res.read(8, 3 * PAGE), 'little') == 5,
    'atomics: target 0 +5 then swapped; originals 0 and 5 in the ODP MR')

# Invalidation: one page of w dropped, then read remotely: zeros there.
madvise(w.buf + PAGE, PAGE)
back = MR(pd, LEN, REMOTE)
rdma(e.IBV_WR_RDMA_READ, back, w.buf + OFF, w.rkey,
     'READ after madvise(DONTNEED) of one page completes')
want = bytearray(data)
want[PAGE - OFF:2 * PAGE - OFF] = bytes(PAGE)
tap(back.read(SIZE, OFF) == bytes(want),
    'READ after madvise: zeros where the page went, no stale byte')
data3 = os.urandom(SIZE)
plain.write(data3, SIZE, OFF)
rdma(e.IBV_WR_RDMA_WRITE, plain, w.buf + OFF, w.rkey,
     'WRITE after madvise completes')
tap(w.read(SIZE, OFF) == data3, 'WRITE after madvise: every byte, refaulted')

# advise_mr: prefetched pages need no RNR NAK. rdma-core 56's rxe
# provider has no advise_mr (libibverbs answers EOPNOTSUPP itself): the
# kernel's method is called directly.
pf = odp_mr()
try:
    advise_mr(ctx, pd, ADVISE_PREFETCH_WRITE, ADVISE_FLUSH, [(pf.buf, LEN, pf.lkey)])
    tap(True, 'advise_mr PREFETCH_WRITE with FLUSH taken')
except OSError as ex:
    tap(False, 'advise_mr PREFETCH_WRITE with FLUSH taken', str(ex))
r0 = rnr()
rdma(e.IBV_WR_RDMA_WRITE, plain, pf.buf + OFF, pf.rkey,
     'WRITE into prefetched ODP memory completes')
tap(rnr() == r0 and pf.read(SIZE, OFF) == data3,
    'prefetch: no RNR NAK, every byte (+%d)' % (rnr() - r0))
for advice, name in ((ADVISE_PREFETCH, 'PREFETCH'),
                     (ADVISE_PREFETCH_NO_FAULT, 'PREFETCH_NO_FAULT')):
    try:
        advise_mr(ctx, pd, advice, 0, [(pf.buf, LEN, pf.lkey)])
        tap(True, 'advise_mr %s without FLUSH taken' % name)
    except OSError as ex:
        tap(False, 'advise_mr %s without FLUSH taken' % name, str(ex))
try:
    advise_mr(ctx, pd, ADVISE_PREFETCH, 0, [(plain.buf, PAGE, plain.lkey)])
    tap(False, 'advise_mr on a pinned MR refused')
except OSError as ex:
    tap(ex.errno == errno.EINVAL, 'advise_mr on a pinned MR refused (EINVAL)',
        str(ex))

# Implicit ODP: not offered. Tried in a child: pyverbs may crash freeing
# the MR it failed to make.
pid = os.fork()
if not pid:
    try:
        MR(pd, 0, REMOTE | e.IBV_ACCESS_ON_DEMAND, implicit=True)
        os._exit(1)
    except PyverbsRDMAError as ex:
        os._exit(0 if ex.error_code == errno.EOPNOTSUPP else 2)
st = os.waitpid(pid, 0)[1]
tap(os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0,
    'implicit ODP refused (EOPNOTSUPP)', 'child status %#x' % st)

# A page made inaccessible under the MR (PROT_NONE, so that nothing else
# is mapped there meanwhile): a WRITE into it exhausts its RNR retries, a
# SEND out of it fails locally; the QPs go to ERR, nothing else.
gone = odp_mr()
libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
tap(libc.mprotect(gone.buf + 2 * PAGE, PAGE, 0) == 0, 'mprotect(PROT_NONE)')
(c, ccq), (d, dcq) = rdmatest.rc_pair(ctx, pd, gid, GIDX, min_rnr_timer=1,
                                      rnr_retry=2)
a, acq = c, ccq
rdma(e.IBV_WR_RDMA_WRITE, plain, gone.buf + OFF, gone.rkey,
     'WRITE into a PROT_NONE ODP page: RNR retries exceeded',
     e.IBV_WC_RNR_RETRY_EXC_ERR)
(c, ccq), (d, dcq) = rdmatest.rc_pair(ctx, pd, gid, GIDX)
d.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[SGE(plain.buf, LEN, plain.lkey)]))
one(c, ccq, SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                   sg=[SGE(gone.buf + OFF, SIZE, gone.lkey)],
                   send_flags=e.IBV_SEND_SIGNALED),
    'SEND out of a PROT_NONE ODP page: local protection error',
    e.IBV_WC_LOC_PROT_ERR)
sys.exit(tap.done())
