#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): verbs objects through stock rdma-core, the
errno of every refusal, and what keys look like. Prints TAP. Needs a
device named by argv[1]."""
import ctypes
import errno
import mmap
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError

n = 0
failed = 0


def tap(ok, desc):
    global n, failed
    n += 1
    failed += not ok
    print('%s %d - %s' % ('ok' if ok else 'not ok', n, desc))


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
# The RDMA core refuses it before sroce sees it: EINVAL up to 6.x.
refused('MR with on-demand paging', (errno.EOPNOTSUPP, errno.EINVAL),
        lambda: MR(pd, 4096, LW | e.IBV_ACCESS_ON_DEMAND))
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
cqs = [CQ(ctx, 1) for _ in range(64)]
tap(True, '64 CQs at once')
for c in cqs:
    c.close()
pd.close()
ctx.close()
print('1..%d' % n)
sys.exit(1 if failed else 0)
