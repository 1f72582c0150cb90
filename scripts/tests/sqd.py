#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): Send Queue Drain (IBTA 10.3.1, 11.2.5) on
two RC QPs in loopback on one device, path MTU 1024. A stream of 64 KiB
SENDs; the requester moves to SQD once the first has completed, with a
part of it posted; the rest is posted in SQD. While in SQD: the completions stop, the peer has received
only whole messages (as many as completed), the drain is seen (the
SQ_DRAINED event when asked for, none otherwise; query's sq_draining
false once drained), SQD to SQD takes attributes. Then SQD to RTS: every
WR left completes, in order, and every byte arrived. Last, a SEND RNR
NAKed when the move comes is still sent again in SQD, and the drain
waits for it. Prints TAP.

Usage: sqd.py DEV GID_INDEX"""
import os
import sys
import time

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QPAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import modify, poll, state

DEV, GIDX = sys.argv[1], int(sys.argv[2])
N, FIRST, SIZE = 200, 100, 65536
tap = rdmatest.Tap()

ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
src = MR(pd, N * SIZE, e.IBV_ACCESS_LOCAL_WRITE)
dst = MR(pd, N * SIZE, e.IBV_ACCESS_LOCAL_WRITE)
data = os.urandom(N * SIZE)
src.write(data, len(data))


def to_sqd(qp, notify):
    qa = QPAttr()
    qa.qp_state = e.IBV_QPS_SQD
    mask = e.IBV_QP_STATE
    if notify:
        qa.en_sqd_async_notify = 1
        mask |= e.IBV_QP_EN_SQD_ASYNC_NOTIFY
    qp.modify(qa, mask)


def draining(qp):
    return qp.query(e.IBV_QP_STATE)[0].sq_draining


def send(qp, i):
    qp.post_send(SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(src.buf + i * SIZE, SIZE, src.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED))


def in_order(wcs, start, desc):
    """@wcs all successful, wr_id from @start on, whole messages."""
    got = [(w.wr_id, w.status) for w in wcs]
    want = [(start + i, e.IBV_WC_SUCCESS) for i in range(len(wcs))]
    return tap(got == want, desc, 'got %s' % got[:8])


def intact(lo, hi):
    """Messages @lo to @hi (excluded) arrived byte for byte."""
    return dst.read((hi - lo) * SIZE, lo * SIZE) == data[lo * SIZE:hi * SIZE]


def run(notify):
    name = 'SQD %s notify' % ('with' if notify else 'without')
    dst.write(bytes(N * SIZE), N * SIZE)
    (a, acq), (b, bcq) = rdmatest.rc_pair(ctx, pd, gid, GIDX, depth=256)
    for i in range(N):
        b.post_recv(RecvWR(wr_id=i, num_sge=1,
                           sg=[SGE(dst.buf + i * SIZE, SIZE, dst.lkey)]))
    for i in range(FIRST):
        send(a, i)
    # In the middle of the stream: once the first has completed.
    sent = poll(acq, 1)
    to_sqd(a, notify)
    for i in range(FIRST, N):
        send(a, i)      # posted in SQD: they wait
    tap(state(a) == e.IBV_QPS_SQD, '%s: posting in SQD is taken' % name)
    if notify:
        kind = rdmatest.async_event(ctx, 60)
        tap(kind == e.IBV_EVENT_SQ_DRAINED, '%s: SQ_DRAINED event' % name,
            'got %s' % kind)
        tap(not draining(a), '%s: sq_draining false after the event' % name)
    else:
        end = time.monotonic() + 60
        while draining(a) and time.monotonic() < end:
            time.sleep(0.05)
        tap(not draining(a), '%s: sq_draining goes false' % name)
        kind = rdmatest.async_event(ctx, 1)
        tap(kind is None, '%s: no async event' % name, 'got %s' % kind)
    sent += poll(acq, N, timeout=1)
    time.sleep(1)
    sent += poll(acq, N, timeout=0.5)
    k = len(sent)
    in_order(sent, 0, '%s: %d of the %d posted before completed, in order'
             % (name, k, FIRST))
    tap(k <= FIRST, '%s: no WR posted in SQD went' % name)
    if k == FIRST:
        print('# %s: the move came after the first WRs had all gone' % name)
    recvd = poll(bcq, N, timeout=1)
    tap(len(recvd) == k and all(w.byte_len == SIZE for w in recvd),
        '%s: the peer received %d whole messages' % (name, len(recvd)))
    in_order(recvd, 0, '%s: received in order' % name)
    tap(intact(0, k), '%s: their bytes arrived' % name)
    if not notify:
        modify(a, e.IBV_QPS_SQD, timeout=15, retry_cnt=6)
        tap(state(a) == e.IBV_QPS_SQD, '%s: SQD to SQD with attributes' % name)
    modify(a, e.IBV_QPS_RTS)
    rest = poll(acq, N - k, timeout=120)
    tap(len(rest) == N - k, '%s: after SQD to RTS, the %d WRs left complete'
        % (name, N - k), 'got %d' % len(rest))
    in_order(rest, k, '%s: successfully, in order' % name)
    rrest = poll(bcq, N - k, timeout=10)
    in_order(rrest, k, '%s: the peer received them in order' % name)
    tap(len(rrest) == N - k and intact(0, N),
        '%s: all %d x 64 KiB arrived byte for byte' % (name, N))
    tap(state(a) == e.IBV_QPS_RTS and state(b) == e.IBV_QPS_RTS,
        '%s: both QPs in RTS' % name)
    a.close()
    b.close()


def rnr():
    """A SEND started, then RNR NAKed (no receive posted): moved to SQD,
    the requester still sends it again, and only it; the drain waits
    for it."""
    name = 'SQD during RNR waits'
    dst.write(bytes(2 * SIZE), 2 * SIZE)
    (a, acq), (b, bcq) = rdmatest.rc_pair(ctx, pd, gid, GIDX, depth=16)
    before = rdmatest.counters(DEV)['rx_rnr_nak']
    send(a, 0)
    end = time.monotonic() + 10
    while rdmatest.counters(DEV)['rx_rnr_nak'] == before and time.monotonic() < end:
        time.sleep(0.01)
    to_sqd(a, True)
    send(a, 1)
    tap(not poll(acq, 1, timeout=0.5) and draining(a),
        '%s: nothing completes, draining' % name)
    for i in range(2):
        b.post_recv(RecvWR(wr_id=i, num_sge=1,
                           sg=[SGE(dst.buf + i * SIZE, SIZE, dst.lkey)]))
    kind = rdmatest.async_event(ctx, 30)
    tap(kind == e.IBV_EVENT_SQ_DRAINED, '%s: SQ_DRAINED once the peer takes it'
        % name, 'got %s' % kind)
    got = [(w.wr_id, w.status) for w in poll(acq, 2, timeout=1)]
    tap(got == [(0, e.IBV_WC_SUCCESS)], '%s: the started SEND completed, alone'
        % name, 'got %s' % got)
    tap(not poll(acq, 1, timeout=0.5) and not draining(a),
        '%s: the SEND posted in SQD waits, drained' % name)
    tap(len(poll(bcq, 1)) == 1 and intact(0, 1), '%s: its bytes arrived' % name)
    modify(a, e.IBV_QPS_RTS)
    in_order(poll(acq, 1, timeout=10), 1, '%s: SQD to RTS, the other goes' % name)
    tap(len(poll(bcq, 1)) == 1 and intact(0, 2), '%s: its bytes arrived too' % name)
    a.close()
    b.close()


run(True)
run(False)
rnr()
sys.exit(tap.done())
