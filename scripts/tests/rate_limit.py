#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test: IB_QP_RATE_LIMIT on an RC QP pair in loopback.

Stock rdma-core cannot ask for it through the rxe provider (its modify_qp
refuses IBV_QP_RATE_LIMIT before the kernel; Documentation/congestion.rst),
so this writes the extended modify_qp uverbs command itself, on the
context's command file, as a provider with ibv_cmd_modify_qp_ex() would.
QP handles are not shown by pyverbs: every handle the context may have is
tried with a rate limit of 0, which only a QP takes.

Then: 2 MiB of RDMA WRITEs go at no limit, and at 20 Mbit/s they take
at least 0.65 s (0.8 s of tokens past the 64 KiB burst) and go no faster
than 1.25 times the limit; limits of 999 and 100000001 kbit/s are EINVAL;
the limit shows in `rdma resource show qp -dd`. Prints TAP.

Usage: rate_limit.py DEV GID_INDEX"""
import ctypes
import errno
import os
import struct
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, SendWR

import rdmatest

DEV, GIDX = sys.argv[1], int(sys.argv[2])
CMD_MODIFY_QP = 26
CMD_FLAG_EXTENDED = 0x80000000
IB_QP_RATE_LIMIT = 1 << 25
CHUNK = 64 * 1024
CHUNKS = 32
LIMIT = 20000  # kbit/s
tap = rdmatest.Tap()

ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
src = MR(pd, CHUNK, e.IBV_ACCESS_LOCAL_WRITE)
dst = MR(pd, CHUNK, rdmatest.REMOTE)
(a, acq), (b, bcq) = rdmatest.rc_pair(ctx, pd, gid, GIDX, depth=CHUNKS)


def uverbs_fd():
    """The command file of our context: the last uverbs device we opened."""
    fds = []
    for fd in os.listdir('/proc/self/fd'):
        try:
            if os.readlink('/proc/self/fd/' + fd).startswith('/dev/infiniband/uverbs'):
                fds.append(int(fd))
        except OSError:
            pass
    return max(fds)


FD = uverbs_fd()
RESP = ctypes.create_string_buffer(8)


def set_rate_limit(handle, kbps):
    """The extended MODIFY_QP with only IB_QP_RATE_LIMIT: 0 or the errno."""
    # ib_uverbs_modify_qp: two 32-byte qp_dest, then handle, mask, 7 u32,
    # 2 u16, 16 u8 (112 bytes); the extension: rate_limit and reserved.
    base = bytes(64) + struct.pack('<II', handle, IB_QP_RATE_LIMIT) + bytes(112 - 72)
    body = base + struct.pack('<II', kbps, 0)
    hdr = struct.pack('<IHH', CMD_FLAG_EXTENDED | CMD_MODIFY_QP, len(body) // 8, 1)
    ex_hdr = struct.pack('<QHHI', ctypes.addressof(RESP), 0, 0, 0)
    try:
        os.write(FD, hdr + ex_hdr + body)
    except OSError as err:
        return err.errno
    return 0


tried = {h: set_rate_limit(h, 0) for h in range(64)}
handles = [h for h, err in tried.items() if not err]
tap(len(handles) == 2, 'the two QPs take a rate limit of 0 (handles %s)' % handles,
    'errnos of handles 0-7: %s' % [errno.errorcode.get(tried[h], tried[h]) for h in range(8)])
if len(handles) != 2:
    sys.exit(tap.done())


def write_all():
    """Seconds for CHUNKS WRITEs of CHUNK bytes from a to b, all completed."""
    t0 = time.monotonic()
    for i in range(CHUNKS):
        wr = SendWR(wr_id=i, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                    sg=[SGE(src.buf, CHUNK, src.lkey)], send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(dst.rkey, dst.buf)
        a.post_send(wr)
    wcs = rdmatest.poll(acq, CHUNKS, timeout=60)
    took = time.monotonic() - t0
    ok = len(wcs) == CHUNKS and all(wc.status == e.IBV_WC_SUCCESS for wc in wcs)
    return took, ok


free, ok = write_all()
mbit = CHUNKS * CHUNK * 8 / free / 1e6
tap(ok, 'no limit: %d KiB written in %.2f s (%.1f Mbit/s)' % (CHUNKS * 64, free, mbit))
errs = [set_rate_limit(h, LIMIT) for h in handles]
tap(errs == [0, 0], 'a rate limit of %d kbit/s taken' % LIMIT, str(errs))
dump = subprocess.run(['rdma', 'resource', 'show', 'qp', 'link', DEV + '/1', '-dd'],
                      capture_output=True, text=True).stdout
tap('rate_limit_kbps %d' % LIMIT in dump, 'the resource dump shows rate_limit_kbps')
held, ok = write_all()
mbit_held = CHUNKS * CHUNK * 8 / held / 1e6
tap(ok and held >= 0.65 and mbit_held <= LIMIT / 1000 * 1.25,
    'at %d kbit/s: written in %.2f s (%.1f Mbit/s)' % (LIMIT, held, mbit_held))
tap(mbit > 2 * mbit_held, 'the limit is what held it back (%.1f against %.1f Mbit/s)' %
    (mbit, mbit_held))
for bad in (999, 100000001):
    err = set_rate_limit(handles[0], bad)
    tap(err == errno.EINVAL, 'a rate limit of %d kbit/s is EINVAL' % bad,
        errno.errorcode.get(err, str(err)))
errs = [set_rate_limit(h, 0) for h in handles]
tap(errs == [0, 0], 'the limit lifted (0)', str(errs))
sys.exit(tap.done())
