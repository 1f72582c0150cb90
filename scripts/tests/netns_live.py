# SPDX-License-Identifier: GPL-2.0
"""Traffic on a device that is about to lose its netdev (its network
namespace deleted): two RC QPs of DEV connected to each other on GID
index GIDX keep sending, and once they run, READY is created for the
caller to pull the netdev away. Then the QPs must stop with error
completions, the context must get IBV_EVENT_DEVICE_FATAL, and closing
everything must work. Prints TAP.

usage: netns_live.py DEV GIDX READY"""
import os
import sys
import time

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import poll

DEV, GIDX, READY = sys.argv[1], int(sys.argv[2]), sys.argv[3]
SIZE, DEPTH = 4096, 16
tap = rdmatest.Tap()

ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
src = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE)
dst = MR(pd, DEPTH * SIZE, e.IBV_ACCESS_LOCAL_WRITE)
(a, acq), (b, bcq) = rdmatest.rc_pair(ctx, pd, gid, GIDX, depth=DEPTH,
                                      timeout=10, retry_cnt=2)


def post(i):
    b.post_recv(RecvWR(wr_id=i, num_sge=1,
                       sg=[SGE(dst.buf + (i % DEPTH) * SIZE, SIZE, dst.lkey)]))
    a.post_send(SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                       sg=[SGE(src.buf, SIZE, src.lkey)],
                       send_flags=e.IBV_SEND_SIGNALED))


done = failed = 0
posted = 0
status = None
end = time.monotonic() + 90
try:
    for posted in range(DEPTH // 2):
        post(posted)
    posted += 1
    while status is None and time.monotonic() < end:
        for wc in poll(acq, 1, timeout=1):
            if wc.status != e.IBV_WC_SUCCESS:
                status = wc.status
                break
            done += 1
            bcq.poll(2 * DEPTH)     # the receives, never let to pile up
            if done == 20:
                open(READY, 'w').close()
            post(posted)
            posted += 1
except Exception as ex:  # a post refused once the device is gone
    status = repr(ex)
tap(done >= 20, 'SENDs completed while the namespace lived (%d)' % done)
tap(status is not None and os.path.exists(READY),
    'the traffic ended in an error once the netdev went',
    'no error in 90 s' if status is None else 'an error before the deletion')
print('# ended by: %s after %d completions' % (status, done), flush=True)
# Events of the QPs' end may come first.
kinds = []
end = time.monotonic() + 30
while e.IBV_EVENT_DEVICE_FATAL not in kinds and time.monotonic() < end:
    kind = rdmatest.async_event(ctx, max(0.1, end - time.monotonic()))
    if kind is None:
        break
    kinds.append(kind)
tap(e.IBV_EVENT_DEVICE_FATAL in kinds, 'IBV_EVENT_DEVICE_FATAL arrived',
    'got %s' % kinds)
for obj in (a, b, acq, bcq, src, dst, pd, ctx):
    try:
        obj.close()
    except Exception as ex:
        print('# close: %r' % ex, flush=True)
tap(True, 'every object closed')
sys.exit(tap.done())
