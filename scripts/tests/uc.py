#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): UC QPs in loopback on one device. SEND,
SEND with immediate, RDMA WRITE and WRITE with immediate of 0, 1, MTU-1,
MTU+1 and 64 KiB bytes, each verified byte for byte; a READ and an
atomic refused (LOC_QP_OP_ERR, the send queue to SQE, then back to RTS);
UC's attributes only; a SEND without a receive
WQE dropped, not answered. Then, with NETNS given, datagrams crafted in
that peer namespace: a PSN gap drops the message in progress, its receive
WQE serves the next message, which lands; a MIDDLE out of sequence and a
WRITE with a bad rkey are dropped and the QP stays where it was. Prints
TAP.

Usage: uc.py DEV GID_INDEX [NETNS SRC_ADDR DST_ADDR]"""
import os
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import GID
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
import roce
from rdmatest import modify, new_qp, poll, state, uc_connect

DEV, GIDX = sys.argv[1], int(sys.argv[2])
MTU = 1024
BIG = 65536
UC_ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
tap = rdmatest.Tap()


def counters():
    return rdmatest.counters(DEV)


def moved(before, after, *names):
    return tuple(after.get(n, 0) - before.get(n, 0) for n in names)


ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
src = MR(pd, BIG, UC_ACCESS)
dst = MR(pd, BIG + 64, UC_ACCESS)


def uc_pair(depth=16):
    """UC QPs a and b on this device, connected to each other."""
    qps = []
    for _ in range(2):
        cq = CQ(ctx, 2 * depth)
        qps.append((new_qp(pd, cq, e.IBV_QPT_UC, max_send_wr=depth,
                           max_recv_wr=depth), cq))
    uc_connect(qps[0][0], gid, GIDX, qps[1][0].qp_num)
    uc_connect(qps[1][0], gid, GIDX, qps[0][0].qp_num)
    return qps


def wait_bytes(mr, want, timeout=10):
    """Whether @mr starts with @want within @timeout seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if mr.read(len(want), 0) == want:
            return True
        time.sleep(0.01)
    return mr.read(len(want), 0) == want


def send_wr(opcode, size, imm=0):
    wr = SendWR(wr_id=size, opcode=opcode, num_sge=1, sg=[SGE(src.buf, size, src.lkey)],
                send_flags=e.IBV_SEND_SIGNALED, imm_data=imm)
    if opcode in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_WRITE_WITH_IMM):
        wr.set_wr_rdma(dst.rkey, dst.buf)
    return wr


OPS = (('SEND', e.IBV_WR_SEND), ('SEND_IMM', e.IBV_WR_SEND_WITH_IMM),
       ('WRITE', e.IBV_WR_RDMA_WRITE), ('WRITE_IMM', e.IBV_WR_RDMA_WRITE_WITH_IMM))
RECV_OP = {e.IBV_WR_SEND: e.IBV_WC_RECV, e.IBV_WR_SEND_WITH_IMM: e.IBV_WC_RECV,
           e.IBV_WR_RDMA_WRITE_WITH_IMM: e.IBV_WC_RECV_RDMA_WITH_IMM}


def one(a, acq, b, bcq, name, opcode, size):
    """One message of @size bytes; its completions and bytes checked."""
    data = os.urandom(size)
    if size:
        src.write(data, size)
    dst.write(b'\0' * (size + 64), size + 64)
    imm = 0x12345600 + size % 256
    if opcode in RECV_OP:
        b.post_recv(RecvWR(wr_id=size, num_sge=1, sg=[SGE(dst.buf, BIG + 64, dst.lkey)]))
    a.post_send(send_wr(opcode, size, imm))
    wcs = poll(acq, 1)
    ok = len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS and wcs[0].wr_id == size
    why = 'send completions %s' % [(w.wr_id, w.status) for w in wcs]
    if ok and opcode in RECV_OP:
        rw = poll(bcq, 1)
        has_imm = opcode != e.IBV_WR_SEND
        ok = (len(rw) == 1 and rw[0].status == e.IBV_WC_SUCCESS and
              rw[0].opcode == RECV_OP[opcode] and rw[0].byte_len == size and
              bool(rw[0].wc_flags & e.IBV_WC_WITH_IMM) == has_imm and
              (not has_imm or rw[0].imm_data == imm))
        why = 'receive completions %s' % [(w.status, w.opcode, w.byte_len, w.wc_flags)
                                          for w in rw]
    if ok:
        ok = wait_bytes(dst, data + b'\0' * 64, timeout=10 if size else 0)
        why = 'bytes differ'
    tap(ok, 'UC %s of %d bytes: completed once on each side, bytes equal' % (name, size),
        why)


(a, acq), (b, bcq) = uc_pair()
before = counters()
for name, opcode in OPS:
    for size in (0, 1, MTU - 1, MTU + 1, BIG):
        one(a, acq, b, bcq, name, opcode, size)
after = counters()
tap(moved(before, after, 'rx_drop_uc_msg', 'rx_seq_gap', 'rx_unhandled') == (0, 0, 0),
    'clean traffic: no UC message dropped, no gap, nothing unhandled',
    str(moved(before, after, 'rx_drop_uc_msg', 'rx_seq_gap', 'rx_unhandled')))
tap(moved(before, after, 'tx_retransmit', 'ack_timeout', 'tx_nak_seq') == (0, 0, 0),
    'UC sends nothing again, times nothing out, NAKs nothing')

# Several WQEs at once, more than fit in one pass's chain: each completes.
dst.write(b'\0' * BIG, BIG)
for i in range(8):
    a.post_send(send_wr(e.IBV_WR_RDMA_WRITE, BIG))
wcs = poll(acq, 8)
tap([w.status for w in wcs] == [e.IBV_WC_SUCCESS] * 8,
    '8 WRITEs of 64 KiB posted together complete in order',
    str([w.status for w in wcs]))

# No READ or atomic on UC (IBTA 9.8). The rxe provider writes any opcode
# into the ring, so the kernel refuses it there: the WQE completes
# LOC_QP_OP_ERR, the send queue goes to SQE (IBTA 10.3.1), what is behind
# it flushes, and a modify back to RTS sends again.
for name, opcode in (('READ', e.IBV_WR_RDMA_READ),
                     ('fetch-and-add', e.IBV_WR_ATOMIC_FETCH_AND_ADD)):
    wr = SendWR(wr_id=99, opcode=opcode, num_sge=1, sg=[SGE(src.buf, 8, src.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    if opcode == e.IBV_WR_RDMA_READ:
        wr.set_wr_rdma(dst.rkey, dst.buf)
    else:
        wr.set_wr_atomic(dst.rkey, dst.buf, 1, 0)
    try:
        a.post_send(wr)
        a.post_send(send_wr(e.IBV_WR_RDMA_WRITE, 8))
        at_post = False
    except PyverbsRDMAError:
        at_post = True
    wcs = [(w.wr_id, w.status) for w in poll(acq, 1 if at_post else 2, timeout=5)]
    if at_post:
        tap(not wcs and state(a) == e.IBV_QPS_RTS, 'UC %s refused at post' % name)
        continue
    tap(wcs == [(99, e.IBV_WC_LOC_QP_OP_ERR), (8, e.IBV_WC_WR_FLUSH_ERR)] and
        state(a) == e.IBV_QPS_SQE,
        'UC %s fails LOC_QP_OP_ERR, the WR behind flushes, QP in SQE' % name, str(wcs))
    modify(a, e.IBV_QPS_RTS, cur_qp_state=e.IBV_QPS_SQE)
    one(a, acq, b, bcq, 'WRITE after SQE and back to RTS', e.IBV_WR_RDMA_WRITE, 100)
# No receive WQE: the SEND completes on the sender, is dropped and counted
# on the receiver, which stays RTS; the next one, with a WQE, lands.
before = counters()
a.post_send(send_wr(e.IBV_WR_SEND, 100))
wcs = poll(acq, 1)
time.sleep(0.2)
after = counters()
tap(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS and
    moved(before, after, 'rx_drop_no_recv', 'rx_drop_uc_msg', 'tx_rnr_nak') == (1, 1, 0) and
    state(b) == e.IBV_QPS_RTS and not poll(bcq, 1, timeout=0.2),
    'SEND without a receive WQE: sent, dropped and counted, no RNR NAK',
    str(moved(before, after, 'rx_drop_no_recv', 'rx_drop_uc_msg', 'tx_rnr_nak')))
one(a, acq, b, bcq, 'SEND after a drop', e.IBV_WR_SEND, MTU + 1)

# UC's attributes only: no ACK timeout or retry count (IBTA 11.2.5.2).
qp = new_qp(pd, acq, e.IBV_QPT_UC, max_send_wr=2, max_recv_wr=2)
uc_connect(qp, gid, GIDX, b.qp_num, upto=e.IBV_QPS_RTR)
for attr in ('timeout', 'retry_cnt', 'max_rd_atomic'):
    try:
        modify(qp, e.IBV_QPS_RTS, sq_psn=1, **{attr: 3})
        refused = False
    except PyverbsRDMAError:
        refused = True
    tap(refused and state(qp) == e.IBV_QPS_RTR, 'UC RTR to RTS with %s refused' % attr)
del qp, a, b

if len(sys.argv) < 6:
    sys.exit(tap.done())

# Crafted datagrams from the peer namespace to a UC QP in RTR whose peer
# QP 0x123 is there: path MTU 1024, first PSN 0.
NETNS, SRC, DST = sys.argv[3:6]
SPORT = 49152
UC_OP = 0x20
sock = roce.peer_socket(NETNS, SRC, SPORT)
our_gid = rdmatest.gid_index(ctx, roce.gid_text(DST))
cq = CQ(ctx, 16)
c = uc_connect(new_qp(pd, cq, e.IBV_QPT_UC, max_send_wr=4, max_recv_wr=4),
               GID(roce.gid_text(SRC)), our_gid, 0x123, rq_psn=0, upto=e.IBV_QPS_RTR,
               hop_limit=1)


def send(op, psn, payload=b'', ext=b''):
    pad = -len(payload) % 4
    sock.sendto(roce.packet(SRC, DST, SPORT, UC_OP | op, c.qp_num, payload, pad=pad,
                            ext=ext, psn=psn), (DST, roce.ROCE_PORT))


def settle(n, before):
    """Wait until @n more packets were received."""
    for _ in range(100):
        if counters()['rx_packets'] >= before['rx_packets'] + n:
            break
        time.sleep(0.05)
    return counters()


dst.write(b'\0' * 4096, 4096)
for i in range(2):
    c.post_recv(RecvWR(wr_id=10 + i, num_sge=1, sg=[SGE(dst.buf + 2048 * i, 2048, dst.lkey)]))
before = counters()
send(roce.SEND_FIRST, 0, b'A' * MTU)
send(roce.SEND_LAST, 2, b'B' * 10)                  # PSN 1 lost
after = settle(2, before)
tap(moved(before, after, 'rx_drop_uc_msg', 'rx_seq_gap') == (1, 1) and
    not poll(cq, 1, timeout=0.3) and state(c) == e.IBV_QPS_RTR,
    'a PSN gap drops the message in progress: counted, nothing completed',
    str(moved(before, after, 'rx_drop_uc_msg', 'rx_seq_gap')))
send(roce.SEND_ONLY, 3, b'C' * 100)
wcs = poll(cq, 1)
tap(len(wcs) == 1 and wcs[0].wr_id == 10 and wcs[0].status == e.IBV_WC_SUCCESS and
    wcs[0].byte_len == 100 and dst.read(101, 0) == b'C' * 100 + b'A',
    'the next message lands in the dropped message\'s receive WQE',
    str([(w.wr_id, w.status, w.byte_len) for w in wcs]))

# A MIDDLE at the expected PSN but out of sequence (its FIRST lost): the
# message is dropped; its LAST too; the next ONLY lands.
before = counters()
send(roce.SEND_MIDDLE, 4, b'D' * MTU)
send(roce.SEND_LAST, 5, b'E' * 4)
after = settle(2, before)
tap(moved(before, after, 'rx_drop_uc_msg') == (1,) and not poll(cq, 1, timeout=0.3),
    'a MIDDLE without its FIRST: the message dropped once, nothing completed')
# A WRITE with a bad rkey: dropped, counted, the QP stays in RTR.
before = counters()
send(roce.WRITE_ONLY, 6, b'F' * 8, ext=roce.reth(dst.buf, dst.rkey ^ 0x100, 8))
after = settle(1, before)
tap(moved(before, after, 'rx_drop_uc_msg', 'tx_nak_error') == (1, 0) and
    state(c) == e.IBV_QPS_RTR and dst.read(8, 0) == b'C' * 8,
    'a WRITE with a bad rkey: dropped and counted, no NAK, QP still RTR')
send(roce.SEND_ONLY_IMM, 7, b'G' * 5, ext=b'\x00\x00\x00\x2a')
wcs = poll(cq, 1)
tap(len(wcs) == 1 and wcs[0].wr_id == 11 and wcs[0].byte_len == 5 and
    dst.read(5, 2048) == b'G' * 5,
    'then a SEND with immediate lands in the next receive WQE',
    str([(w.wr_id, w.status, w.byte_len) for w in wcs]))
tap(state(c) == e.IBV_QPS_RTR, 'the UC QP is still in RTR')
sys.exit(tap.done())
