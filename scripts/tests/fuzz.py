#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): a fuzz of the receive path. COUNT
mutated copies of valid RoCEv2 datagrams go from a peer network namespace
(over IPv6, from PEER_ADDR) to live QPs of DEV whose peer they claim to
be: RC QPs in RTS and RTR with receives posted, one on an SRQ, an RC
requester with a SEND, a WRITE, a READ and two atomics outstanding, a UD
QP, and QP1. The corpus is a valid packet of every RC opcode class and UD
SEND, built against the real MR, QPNs and PSNs, plus the driver's own
answers (ACKs, NAKs, READ responses, atomic ACKs, its requester's
requests) caught by a raw socket in the namespace, replayed at other
QPs. Mutations: bit flips, byte sets, field-aware changes (opcode, pad,
TVer, PKey, QPN, PSN, AckReq, RETH, AtomicETH, AETH, DETH, ImmDt, IETH),
truncation and extension, payload length against the MTU; most get a
fresh ICRC so that they reach the transport code, some keep a stale one.
The datagrams go in batches of BATCH, each ending with a probe per RC
responder (a SEND far ahead of its PSN, which it answers with a sequence
NAK naming the PSN it expects, unless it sent one already and has
executed nothing since); then the answers are read (the PSN each
responder expects learned from them), the CQs drained, receives posted
again, the requester given new work, and every QP gone to ERR put back
in service: through RESET, every fourth time destroyed and made anew.

Every choice the generator makes is drawn from random.Random(SEED), but
what it builds on is live: QP numbers, keys and addresses, the PSNs each
QP expects, the requester's outstanding work and the captured answers,
which depend on the driver and on timing. A seed fixes the mix and the
order of the draws; it does not reproduce a run byte for byte (QP
numbers alone differ from boot to boot). FUZZ_SAVE keeps the bytes.

Checks at the end (TAP): the count and rate; rx_packets moved by exactly
the number sent; a fresh RC QP receives a valid SEND, its data intact,
and ACKs it; every QP is destroyed and none is left.

FUZZ_SAVE=DIR: each batch is written to DIR/fuzz-batch.bin (a 4-byte
big-endian length before each datagram) before it is sent, so that after
a crash the batch that caused it is there.

Forms, both in the hostile suite (hostile.sh; Python builds and sends,
the guest's CPU is the limit):
  short (make check): COUNT 50000, SEED 1: about 75 s on the debug
    kernel (700 datagrams/s), about 20 s on bpo;
  long (make check FULL=1): COUNT 1000000: 25 min on debug (667/s),
    6.6 min on bpo (2543/s); alone:
    scripts/vm.sh --timeout 3600 debug one \
        'SROCE_FULL=1 sh $SROCE_SRC/scripts/tests/hostile.sh'

Usage: fuzz.py DEV NETNS PEER_ADDR OUR_ADDR COUNT SEED"""
import os
import random
import re
import socket
import struct
import subprocess
import sys
import time
import zlib
from collections import deque

import pyverbs.enums as e
from pyverbs.addr import GID
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
import roce
from rdmatest import REMOTE, modify, new_qp, rc_connect, state

DEV, NETNS, PEER, OURS = sys.argv[1:5]
COUNT, SEED = int(sys.argv[5]), int(sys.argv[6])
SPORT, MTU, QKEY, GSI_QKEY = 49152, 1024, 0x11111111, 0x80010000
MRSIZE, DEPTH, BATCH, POOL = 1 << 16, 16, 32, 512
RD_ATOMIC = 4
tap = rdmatest.Tap()

# Extended header bytes after the BTH, by opcode (IBTA 9.2, table 38).
HDR = {0x00: 0, 0x01: 0, 0x02: 0, 0x03: 4, 0x04: 0, 0x05: 4, 0x06: 16, 0x07: 0,
       0x08: 0, 0x09: 4, 0x0a: 16, 0x0b: 20, 0x0c: 16, 0x0d: 4, 0x0e: 0, 0x0f: 4,
       0x10: 4, 0x11: 4, 0x12: 12, 0x13: 28, 0x14: 28, 0x16: 4, 0x17: 4,
       0x64: 8, 0x65: 12}
RC_OPS = [op for op in HDR if op < 0x20]
RETH_OPS, ATOMIC_OPS = (0x06, 0x0a, 0x0b, 0x0c), (0x13, 0x14)
AETH_OPS = (0x0d, 0x0f, 0x10, 0x11, 0x12)
RESPONSE_OPS = range(0x0d, 0x13)
(SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM,
 WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM,
 READ_REQ, RRESP_FIRST, RRESP_MIDDLE, RRESP_LAST, RRESP_ONLY, ACK, ATOMIC_ACK,
 CMP_SWAP, FETCH_ADD) = range(0x15)
SEND_LAST_INV, SEND_ONLY_INV, UD_SEND, UD_SEND_IMM = 0x16, 0x17, 0x64, 0x65
SIZES = (0, 1, 3, 4, 15, 16, 63, 64, 255, 256, 1000, 1023, 1024)

rng = random.Random(SEED)
# Which answers the pool keeps: apart, so that it takes nothing from rng.
cap_rng = random.Random(SEED + 1)
# Payload bytes, from the seed.
DATA = rng.randbytes(4 * MTU + 256)

ctx = Context(name=DEV)
pd = PD(ctx)
gidx = rdmatest.gid_index_or_exit(ctx, roce.gid_text(OURS), tap)
peer_gid = GID(roce.gid_text(PEER))
mr = MR(pd, MRSIZE, REMOTE)
mr2 = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)
srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=2 * DEPTH, max_sge=1)))
sock = roce.peer_socket(NETNS, PEER, SPORT)
answers = roce.peer_socket(NETNS, PEER, SPORT, raw=True)
answers.setblocking(False)
answers.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)

# The ICRC's invariant start: 8 bytes of ones, then the IPv6 header's
# masked first word.
ICRC_HEAD = zlib.crc32(b'\xff' * 8 + b'\x6f\xff\xff\xff')
ADDRS = socket.inet_pton(socket.AF_INET6, PEER) + socket.inet_pton(socket.AF_INET6, OURS)


def icrc(b):
    """The ICRC of @b (from the BTH on) sent from PEER:SPORT to OURS."""
    ulen = 8 + len(b) + 4
    c = zlib.crc32(struct.pack('>HBB', ulen, 17, 0xff) + ADDRS +
                   struct.pack('>HHH', SPORT, roce.ROCE_PORT, ulen) + b'\xff\xff',
                   ICRC_HEAD)
    c = zlib.crc32(bytes(b[:4]) + b'\xff' + bytes(b[5:12]), c)
    return struct.pack('<I', zlib.crc32(bytes(b[12:]), c))


def bth(op, qpn, psn, pad=0, ackreq=False):
    return struct.pack('>BBHII', op, pad << 4, 0xffff, qpn & 0xffffff,
                       (ackreq << 31) | (psn & 0xffffff))


def body(op, qpn, psn, ext=b'', n=0, ackreq=None):
    """A valid packet without its ICRC: BTH, @ext, @n payload bytes, pad."""
    pad = -n % 4
    if ackreq is None:
        ackreq = rng.random() < 0.3
    off = rng.randrange(len(DATA) - n + 1)
    return bth(op, qpn, psn, pad, ackreq) + ext + DATA[off:off + n] + b'\0' * pad


class Target:
    """A QP the fuzz aims at, made anew when it has gone to ERR."""

    def __init__(self, kind, slot):
        self.kind, self.peer_qpn = kind, 0x200 + slot
        self.made = self.cycles = 0
        self.make()

    def make(self):
        self.cq = CQ(ctx, 4 * DEPTH)
        if self.kind == 'ud':
            self.qp = new_qp(pd, self.cq, e.IBV_QPT_UD, max_send_wr=4, max_recv_wr=DEPTH)
        elif self.kind == 'srq':
            self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                        srq=srq, cap=QPCap(max_send_wr=8, max_recv_wr=0)))
        else:
            self.qp = new_qp(pd, self.cq, max_send_wr=16, max_recv_wr=DEPTH)
        self.qpn = self.qp.qp_num
        self.made += 1
        self.connect()

    def connect(self):
        """From RESET to where the fuzz wants it, receives posted."""
        if self.kind == 'ud':
            modify(self.qp, e.IBV_QPS_INIT, pkey_index=0, port_num=1, qkey=QKEY)
            modify(self.qp, e.IBV_QPS_RTR)
            modify(self.qp, e.IBV_QPS_RTS, sq_psn=0)
        else:
            rc_connect(self.qp, peer_gid, gidx, self.peer_qpn, rq_psn=0, sq_psn=1000,
                       upto=e.IBV_QPS_RTR if self.kind == 'rtr' else e.IBV_QPS_RTS,
                       rd_atomic=RD_ATOMIC, min_rnr_timer=1, hop_limit=1,
                       timeout=0, retry_cnt=7, rnr_retry=7)
        self.epsn, self.sq_next, self.msn = 0, 1000, 0
        self.last_nak, self.heard = None, False
        self.out = deque()          # requester: [first PSN, PSNs, kind] per WR
        self.recvs = 0
        self.refill()

    def recycle(self, stats):
        """A QP gone to ERR back in service: through RESET, keeping its
        number (what is built for it stays good), each fourth time
        destroyed and made anew."""
        self.cycles += 1
        stats['recycled'] += 1
        if self.cycles % 4 == 0:
            self.qp.close()
            self.cq.close()
            self.make()
            return
        modify(self.qp, e.IBV_QPS_RESET)
        self.poll(stats)
        self.connect()

    def refill(self):
        if self.kind == 'srq':
            return
        while self.recvs < DEPTH:
            i = self.recvs % 8
            self.qp.post_recv(RecvWR(wr_id=i, num_sge=1,
                                     sg=[SGE(mr.buf + i * 4096, 4096, mr.lkey)]))
            self.recvs += 1
        if self.kind == 'req' and not self.out:
            self.post_round()

    def post_round(self):
        """A SEND, a WRITE of 2 packets, a READ of 3 and two atomics, which
        only the fuzz will answer (the ACK timer is off)."""
        base = mr.buf + 32768
        for i, (op, n, npsn) in enumerate((
                (e.IBV_WR_SEND, 16, 1), (e.IBV_WR_RDMA_WRITE, 2048, 2),
                (e.IBV_WR_RDMA_READ, 3000, 3), (e.IBV_WR_ATOMIC_CMP_AND_SWP, 8, 1),
                (e.IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 1))):
            wr = SendWR(wr_id=i, opcode=op, num_sge=1, sg=[SGE(base + 4096 * i, n, mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            if op in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ):
                wr.set_wr_rdma(0x1234, 0x10000)
            elif op != e.IBV_WR_SEND:
                wr.set_wr_atomic(0x1234, 0x10000, 1, 2)
            self.qp.post_send(wr)
            self.out.append([self.sq_next, npsn, op])
            self.sq_next = (self.sq_next + npsn) & 0xffffff

    def poll(self, stats):
        while True:
            k, wcs = self.cq.poll(64)
            for w in wcs[:k]:
                stats['wc'] += 1
                if self.kind == 'srq':
                    stats['srq_taken'] += 1     # it posts no sends
                elif w.status != e.IBV_WC_SUCCESS:
                    pass
                elif w.opcode & e.IBV_WC_RECV:
                    self.recvs -= 1
                elif self.out:
                    self.out.popleft()
            if k < 64:
                return

    def maintain(self, stats):
        """Drain the CQ, post receives and work again; a QP in ERR (or
        whose completion failed, on its way there) back in service."""
        self.poll(stats)
        if state(self.qp) != e.IBV_QPS_ERR:
            try:
                self.refill()
                return
            except Exception:   # pylint: disable=broad-except
                pass
        self.recycle(stats)


ORDER = ['rts', 'rts', 'rtr', 'srq', 'req', 'ud']
targets = [Target(kind, i) for i, kind in enumerate(ORDER)]
by_peer = {t.peer_qpn: t for t in targets}
responders = [t for t in targets if t.kind in ('rts', 'rtr', 'srq')]
req = next(t for t in targets if t.kind == 'req')
ud = next(t for t in targets if t.kind == 'ud')
srq_posted = 0


def refill_srq(stats):
    global srq_posted
    srq_posted -= stats['srq_taken']
    stats['srq_taken'] = 0
    while srq_posted < 2 * DEPTH:
        i = srq_posted % 8
        try:
            srq.post_recv(RecvWR(wr_id=i, num_sge=1,
                                 sg=[SGE(mr.buf + i * 4096, 4096, mr.lkey)]))
        except Exception:       # pylint: disable=broad-except
            break               # full: the count drifted
        srq_posted += 1


def va_in_mr(n, align=1):
    off = rng.randrange(max(1, MRSIZE - n + 1))
    return mr.buf + off - off % align


def imm():
    return struct.pack('>I', rng.getrandbits(32))


def size():
    return rng.choice(SIZES)


# Valid packets: each a list of packets (without ICRC) from one message,
# at the PSNs the target expects, and the target's PSN moved past them.
def gen_send(t):
    n = size()
    if rng.random() < 0.6:
        # With invalidate: an invalid request (no MR of ours may be
        # invalidated remotely), so rare; it ends the QP.
        op = rng.choice((SEND_ONLY, SEND_ONLY_IMM) * 8 + (SEND_ONLY_INV,))
        ext = imm() if op == SEND_ONLY_IMM else (
            struct.pack('>I', rng.choice((mr.rkey, rng.getrandbits(32)))) if op == SEND_ONLY_INV
            else b'')
        pkts = [body(op, t.qpn, t.epsn, ext, n)]
    else:
        mid = rng.randrange(3)
        last = rng.choice((SEND_LAST, SEND_LAST_IMM) * 8 + (SEND_LAST_INV,))
        ext = b'' if last == SEND_LAST else imm()
        pkts = [body(SEND_FIRST, t.qpn, t.epsn, n=MTU)]
        pkts += [body(SEND_MIDDLE, t.qpn, t.epsn + 1 + i, n=MTU) for i in range(mid)]
        pkts.append(body(last, t.qpn, t.epsn + 1 + mid, ext, max(1, n)))
    t.epsn += len(pkts)
    return pkts


def gen_write(t):
    n = size()
    if rng.random() < 0.6:
        op = rng.choice((WRITE_ONLY, WRITE_ONLY_IMM))
        ext = roce.reth(va_in_mr(n), mr.rkey, n) + (imm() if op == WRITE_ONLY_IMM else b'')
        pkts = [body(op, t.qpn, t.epsn, ext, n)]
    else:
        mid = rng.randrange(3)
        total = MTU * (1 + mid) + max(1, n)
        last = rng.choice((WRITE_LAST, WRITE_LAST_IMM))
        pkts = [body(WRITE_FIRST, t.qpn, t.epsn, roce.reth(va_in_mr(total), mr.rkey, total),
                     MTU)]
        pkts += [body(WRITE_MIDDLE, t.qpn, t.epsn + 1 + i, n=MTU) for i in range(mid)]
        pkts.append(body(last, t.qpn, t.epsn + 1 + mid,
                         imm() if last == WRITE_LAST_IMM else b'', max(1, n)))
    t.epsn += len(pkts)
    return pkts


def gen_read(t):
    n = rng.choice((0, 1, 8, 64, 1024, 1025, 3000, 4096))
    if rng.random() < 0.9:
        reth = roce.reth(va_in_mr(n), mr.rkey, n)
    else:
        # The MR that grants remote READ only.
        reth = roce.reth(mr2.buf + rng.randrange(4096 - n + 1), mr2.rkey, n)
    p = body(READ_REQ, t.qpn, t.epsn, reth)
    t.epsn += max(1, -(-n // MTU))
    return [p]


def gen_atomic(t):
    op = rng.choice((CMP_SWAP, FETCH_ADD))
    ext = struct.pack('>QIQQ', va_in_mr(8, 8), mr.rkey, rng.getrandbits(64),
                      rng.getrandbits(64))
    p = body(op, t.qpn, t.epsn, ext)
    t.epsn += 1
    return [p]


def aeth(syn=0x1f):
    req.msn = (req.msn + 1) & 0xffffff
    return struct.pack('>I', (syn << 24) | req.msn)


def gen_response(t):
    """An answer to one of the requester's outstanding WRs (or to none)."""
    if not t.out or rng.random() < 0.1:
        psn = t.sq_next - rng.randrange(1, 12)
        return [body(ACK, t.qpn, psn, aeth(rng.choice((0x1f, 0x20, 0x60, 0x61))))]
    wr = t.out[0] if rng.random() < 0.7 else rng.choice(t.out)
    first, npsn, op = wr
    r = rng.random()
    if r < 0.08:
        return [body(ACK, t.qpn, first, aeth(0x60))]
    if r < 0.14:
        return [body(ACK, t.qpn, first, aeth(0x20 | rng.randrange(32)))]
    if r < 0.16:
        return [body(ACK, t.qpn, first, aeth(rng.choice((0x61, 0x62, 0x63))))]
    if op == e.IBV_WR_RDMA_READ:
        if npsn == 1:
            return [body(RRESP_ONLY, t.qpn, first, aeth(), 1000)]
        pkts = [body(RRESP_FIRST, t.qpn, first, aeth(), MTU)]
        pkts += [body(RRESP_MIDDLE, t.qpn, first + i, n=MTU) for i in range(1, npsn - 1)]
        pkts.append(body(RRESP_LAST, t.qpn, first + npsn - 1, aeth(), 3000 - MTU * (npsn - 1)))
        return pkts[:rng.randrange(1, len(pkts) + 1)] if rng.random() < 0.2 else pkts
    if op in (e.IBV_WR_ATOMIC_CMP_AND_SWP, e.IBV_WR_ATOMIC_FETCH_AND_ADD):
        return [body(ATOMIC_ACK, t.qpn, first, aeth() + struct.pack('>Q', rng.getrandbits(64)))]
    return [body(ACK, t.qpn, first + npsn - 1, aeth(rng.randrange(0, 32)))]


def gen_ud(t):
    op = rng.choice((UD_SEND, UD_SEND_IMM))
    n = rng.choice(SIZES + (MTU + 1,))
    ext = struct.pack('>II', QKEY, rng.getrandbits(24)) + (imm() if op == UD_SEND_IMM else b'')
    return [body(op, t.qpn, rng.getrandbits(24), ext, n)]


def gen_gsi(_):
    """A MAD to QP1: base version 1, a class and method of the seed's."""
    mad = struct.pack('>BBBBHHQH', 1, rng.choice((0x01, 0x03, 0x04, 0x07, 0x81, 0x0a)),
                      rng.choice((1, 2)), rng.choice((1, 2, 3, 5, 6, 7, 0x81)), 0, 0,
                      rng.getrandbits(64), rng.getrandbits(16))
    mad += DATA[:256 - len(mad)]
    return [bth(UD_SEND, 1, rng.getrandbits(24)) +
            struct.pack('>II', GSI_QKEY, rng.getrandbits(24)) + mad]


def valid(keep_psn=False):
    """The target and the packets of one valid message for it; with
    @keep_psn, the PSN the target expects left as it was."""
    r = rng.random()
    if r < 0.55:
        t = rng.choice(responders)
        epsn = t.epsn
        pkts = rng.choice((gen_send, gen_send, gen_write, gen_write, gen_read,
                           gen_atomic))(t)
        if keep_psn:
            t.epsn = epsn
        elif rng.random() < 0.8:
            # The message's end asks for an ACK, mostly: the answers then
            # say where the responder is after the batch.
            pkts[-1] = bytes([*pkts[-1][:8], pkts[-1][8] | 0x80, *pkts[-1][9:]])
        return t, pkts
    if r < 0.85:
        return req, gen_response(req)
    if r < 0.99:
        return ud, gen_ud(ud)
    return ud, gen_gsi(None)


def u24(b, at, v):
    b[at:at + 3] = (v & 0xffffff).to_bytes(3, 'big')


def any_qpn():
    return rng.choice([t.qpn for t in targets] + [1, 0, 0xffffff, rng.getrandbits(24)])


def mutate_field(b):
    """One header field of @b changed to an edge or random value."""
    op = b[0]
    f = rng.randrange(12)
    if f == 0:
        b[0] = rng.choice((rng.getrandbits(8), rng.choice(RC_OPS), op ^ 1, op + 1 & 0xff,
                           UD_SEND, 0x15, 0x18, 0x19, 0x1f, 0x20 | rng.randrange(12),
                           0x81, 0xa0))
    elif f == 1:
        b[1] = (b[1] & 0xcf) | rng.randrange(4) << 4
    elif f == 2:
        b[1] = (b[1] & 0xf0) | rng.randrange(16)
    elif f == 3:
        b[2:4] = struct.pack('>H', rng.choice((0x7fff, 0x8000, 0, 0xfffe,
                                               rng.getrandbits(16))))
    elif f == 4:
        u24(b, 5, any_qpn())
        b[4] = rng.choice((b[4], rng.getrandbits(8)))
    elif f == 5:
        psn = int.from_bytes(b[9:12], 'big')
        u24(b, 9, psn + rng.choice((-1, 1, 2, -2, 5, -100, 1 << 23, (1 << 23) - 1,
                                    -(1 << 23), rng.getrandbits(24))))
    elif f == 6:
        b[8] = rng.choice((b[8] ^ 0x80, rng.getrandbits(8)))
    elif f == 7 and op in RETH_OPS and len(b) >= 28:
        which = rng.randrange(3)
        if which == 0:
            b[12:20] = struct.pack('>Q', rng.choice((
                0, (1 << 64) - 1, (1 << 64) - rng.randrange(1, 4096), mr.buf - 1,
                mr.buf + MRSIZE, mr.buf + MRSIZE - rng.randrange(1, 64),
                rng.getrandbits(64), mr.buf + rng.getrandbits(40))))
        elif which == 1:
            b[20:24] = struct.pack('>I', rng.choice((mr.rkey ^ 1, mr.rkey ^ 0x100, 0,
                                                     mr.rkey + 0x100 & 0xffffffff,
                                                     mr2.rkey, rng.getrandbits(32))))
        else:
            b[24:28] = struct.pack('>I', rng.choice((
                0, 1, MTU - 1, MTU + 1, MRSIZE, MRSIZE + 1, 1 << 31, (1 << 31) + 1,
                0xffffffff, rng.getrandbits(32), len(b) - 28, len(b) - 27)))
    elif f == 8 and op in ATOMIC_OPS and len(b) >= 40:
        which = rng.randrange(3)
        if which == 0:
            b[12:20] = struct.pack('>Q', rng.choice((
                mr.buf + rng.randrange(1, 8), mr.buf + MRSIZE, mr.buf + MRSIZE - 8,
                mr.buf + MRSIZE - 4, (1 << 64) - 8, 0, rng.getrandbits(64))))
        elif which == 1:
            b[20:24] = struct.pack('>I', rng.choice((mr2.rkey, mr.rkey ^ 1,
                                                     rng.getrandbits(32))))
        else:
            b[24:40] = rng.getrandbits(128).to_bytes(16, 'big')
    elif f == 9 and op in AETH_OPS and len(b) >= 16:
        if rng.random() < 0.7:
            b[12] = rng.choice((rng.getrandbits(8), rng.randrange(32), 0x20 | rng.randrange(32),
                                0x60 + rng.randrange(5), 0x40, 0x7f, 0xff, 0x80))
        else:
            u24(b, 13, rng.choice((0, 0xffffff, int.from_bytes(b[13:16], 'big') + 1,
                                   rng.getrandbits(24))))
    elif f == 10 and op in (UD_SEND, UD_SEND_IMM) and len(b) >= 20:
        if rng.random() < 0.5:
            b[12:16] = struct.pack('>I', rng.choice((QKEY ^ 1, 0x80000000 | QKEY, 0,
                                                     GSI_QKEY, rng.getrandbits(32))))
        else:
            b[16:20] = rng.getrandbits(32).to_bytes(4, 'big')
    elif len(b) >= 16:
        # ImmDt, IETH or the first payload word.
        b[12:16] = rng.getrandbits(32).to_bytes(4, 'big')


def mutate(b):
    """@b changed one to three times."""
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        r = rng.random()
        if r < 0.15 and b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif r < 0.25 and b:
            b[rng.randrange(len(b))] = rng.choice((0, 0xff, 0x7f, 0x80, rng.getrandbits(8)))
        elif r < 0.70 and len(b) >= 12:
            mutate_field(b)
        elif r < 0.80:
            del b[rng.randrange(len(b) + 1):]
        elif r < 0.87:
            k = rng.choice((1, 2, 3, 4, 8, 16, 64, rng.randrange(1, MTU + 100)))
            b += DATA[:k]
        elif len(b) >= 12:
            # The payload set to a length around the MTU, pad right or not.
            hl = 12 + HDR.get(b[0], 0)
            n = rng.choice((0, 1, MTU - 1, MTU, MTU + 1, MTU + 3, MTU + 4, 2 * MTU,
                            rng.randrange(4 * MTU)))
            pad = -n % 4 if rng.random() < 0.8 else rng.randrange(4)
            b[1] = (b[1] & 0xcf) | pad << 4
            del b[hl:]
            b += DATA[:n] + b'\0' * pad


seen = {}
pool = []                   # the driver's answers, from the BTH on, no ICRC
stats = {k: 0 for k in ('sent', 'mutated', 'stale', 'replayed', 'captured', 'wc',
                        'recycled', 'srq_taken', 'answers')}


def replay():
    """A captured answer retargeted: a response to the requester, at one of
    its outstanding PSNs; a request (the requester's own) to a responder."""
    b = bytearray(rng.choice(pool))
    if b[0] in RESPONSE_OPS:
        t = req
        psn = t.out[0][0] if t.out and rng.random() < 0.8 else t.sq_next - 1
    else:
        t = rng.choice(responders)
        psn = t.epsn
        npsn = 1
        if b[0] in RETH_OPS and len(b) >= 28 and rng.random() < 0.7:
            n = struct.unpack('>I', b[24:28])[0] & 0xffff
            b[12:28] = struct.pack('>QII', va_in_mr(n), mr.rkey, n)
            if b[0] == READ_REQ:
                npsn = max(1, -(-n // MTU))
        elif b[0] in ATOMIC_OPS and len(b) >= 40 and rng.random() < 0.7:
            b[12:24] = struct.pack('>QI', va_in_mr(8, 8), mr.rkey)
        t.epsn += npsn
    u24(b, 5, t.qpn)
    u24(b, 9, psn)
    return [b]


def span(p):
    """How many PSNs request @p takes."""
    if p[0] == READ_REQ:
        return max(1, -(-struct.unpack('>I', p[24:28])[0] // MTU))
    return 1


def build_batch(n):
    """@n datagrams, mutants mostly, then a probe per responder: a SEND
    ahead of the PSN it expects, which it answers with a sequence NAK
    naming that PSN (the only answer that says where a responder is when
    the fuzz fell behind it: a duplicate is ACKed at its own PSN)."""
    out = []
    n -= len(responders)
    while len(out) < n:
        r = rng.random()
        if r < 0.15 and pool:
            pkts, p_mut = replay(), 0.5
            stats['replayed'] += 1
        elif r < 0.55:
            pkts, p_mut = valid()[1], 0.15
        else:
            # One packet of a message, mutated: the target's PSN as it was
            # (what the mutant does to it, its answers will say).
            t, pkts = valid(keep_psn=True)
            p_mut = 1.0
            if rng.random() < 0.7:
                # The first: many mutants still execute, moving the PSN.
                pkts = pkts[:1]
                if t in responders:
                    t.epsn += span(pkts[0])
            else:
                pkts = [rng.choice(pkts)]
        for p in pkts:
            b = bytearray(p)
            if rng.random() < p_mut:
                stats['mutated'] += 1
                if rng.random() < 0.1:
                    # A stale ICRC: the packet's before the change, or any.
                    stats['stale'] += 1
                    old = icrc(b) if rng.random() < 0.6 else rng.randbytes(4)
                    mutate(b)
                    out.append(bytes(b) + old)
                    continue
                mutate(b)
            out.append(bytes(b) + icrc(b))
    del out[max(n, 0):]
    for t in responders:
        b = bth(SEND_ONLY, t.qpn, t.epsn + 0x1000)
        out.append(b + icrc(b))
    return out


def drain_answers():
    """What the QPs sent to the peer: into the pool, and the PSNs each
    responder expects learned from its ACKs and NAKs."""
    while True:
        try:
            d = answers.recv(8192)
        except BlockingIOError:
            return
        if len(d) < 8 + 16 or struct.unpack('>H', d[2:4])[0] != roce.ROCE_PORT:
            continue
        b = d[8:-4]
        stats['answers'] += 1
        op, qpn, psn = b[0], int.from_bytes(b[5:8], 'big'), int.from_bytes(b[9:12], 'big')
        t = by_peer.get(qpn)
        if t is not None:
            what = '%s:%s' % (t.kind, 'ack%02x' % (b[12] & 0xe0) if op == ACK else '%02x' % op)
            seen[what] = seen.get(what, 0) + 1
        if t is not None and t is not req:
            # A sequence or RNR NAK names the PSN expected; an ACK or
            # response one executed, maybe a duplicate's (never back,
            # nor far ahead: a duplicate half the PSN space away).
            t.heard = True
            if op == ACK and b[12] == 0x60:
                t.epsn = t.last_nak = psn
            elif op == ACK and b[12] >> 5 == 1:
                t.epsn = psn
            elif op in (ACK, RRESP_LAST, RRESP_ONLY, ATOMIC_ACK) and \
                    0 < (psn + 1 - t.epsn) & 0xffffff < 1 << 16:
                t.epsn = psn + 1
                t.last_nak = None
        if len(pool) < POOL:
            pool.append(bytes(b))
            stats['captured'] += 1
        elif cap_rng.random() < 0.05:
            pool[cap_rng.randrange(POOL)] = bytes(b)
            stats['captured'] += 1


def maintain():
    for t in responders:
        t.heard = False
    drain_answers()
    for t in responders:
        # Silent, probe and all: it sent a sequence NAK and has executed
        # nothing since, so it drops every later PSN without a word and
        # expects the one it named.
        if not t.heard and t.last_nak is not None:
            t.epsn = t.last_nak
    for t in targets:
        t.maintain(stats)
    refill_srq(stats)


def kmsg(text):
    try:
        with open('/dev/kmsg', 'w') as f:
            f.write('fuzz: %s\n' % text)
    except OSError:
        pass


save = os.environ.get('FUZZ_SAVE')
dest = (OURS, roce.ROCE_PORT)
before = rdmatest.counters(DEV)
refill_srq(stats)
kmsg('%d packets, seed %d' % (COUNT, SEED))
start = time.monotonic()
gen_time = 0.0
batches = 0
while stats['sent'] < COUNT:
    t0 = time.monotonic()
    batch = build_batch(min(BATCH, COUNT - stats['sent']))
    batch = batch[:COUNT - stats['sent']]
    gen_time += time.monotonic() - t0
    if save:
        with open(os.path.join(save, 'fuzz-batch.bin'), 'wb') as f:
            f.write(b''.join(struct.pack('>I', len(p)) + p for p in batch))
    for p in batch:
        sock.sendto(p, dest)
    stats['sent'] += len(batch)
    batches += 1
    if batches % 300 == 0:
        kmsg('%d sent' % stats['sent'])
    maintain()
secs = time.monotonic() - start
sent = stats['sent']
kmsg('%d sent, done' % sent)
tap(sent == COUNT, 'sent %d datagrams in %.1f s: %.0f/s (seed %d; building them %.1f s; '
    '%d mutated, %d with a stale ICRC, %d replayed answers)' %
    (sent, secs, sent / secs, SEED, gen_time, stats['mutated'], stats['stale'],
     stats['replayed']))

# Every datagram counted once.
after = before
for _ in range(300):
    after = rdmatest.counters(DEV)
    if after['rx_packets'] - before['rx_packets'] >= sent:
        break
    time.sleep(0.1)
time.sleep(0.5)
after = rdmatest.counters(DEV)
moved = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
tap(moved.get('rx_packets', 0) == sent,
    'rx_packets moved by exactly the %d sent (moved %d)' % (sent, moved.get('rx_packets', 0)))
print('# counters moved: %s' % ' '.join('%s=%d' % kv for kv in sorted(moved.items())))
maintain()
print('# answers: %s' % ' '.join('%s=%d' % kv for kv in sorted(seen.items())))
print('# %d answers caught (%d kept), %d completions, %d QPs back from ERR (%s; '
      'a quarter of them destroyed and made anew)' %
      (stats['answers'], len(pool), stats['wc'], stats['recycled'],
       ', '.join('%s %d' % (t.kind, t.cycles) for t in targets)))

# A fresh RC QP receives a valid SEND whole, and ACKs it.
fresh_mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
fresh_cq = CQ(ctx, 8)
fresh = rc_connect(new_qp(pd, fresh_cq, max_send_wr=2, max_recv_wr=2), peer_gid, gidx,
                   0x2ff, rq_psn=0, sq_psn=1000, rd_atomic=1, min_rnr_timer=1,
                   hop_limit=1, timeout=0)
fresh.post_recv(RecvWR(wr_id=42, num_sge=1, sg=[SGE(fresh_mr.buf, 4096, fresh_mr.lkey)]))
drain_answers()
data = random.Random(SEED + 2).randbytes(300)
msg = bytearray(bth(SEND_ONLY, fresh.qp_num, 0, 0, True) + data)
sock.sendto(bytes(msg) + icrc(msg), dest)
got = rdmatest.poll(fresh_cq, 1, timeout=10)
acked = False
end = time.monotonic() + 5
while not acked and time.monotonic() < end:
    try:
        d = answers.recv(8192)
    except BlockingIOError:
        time.sleep(0.05)
        continue
    acked = (len(d) >= 8 + 16 and d[8] == ACK and int.from_bytes(d[13:16], 'big') == 0x2ff
             and int.from_bytes(d[17:20], 'big') == 0 and d[20] >> 5 == 0)
tap(len(got) == 1 and got[0].wr_id == 42 and got[0].status == e.IBV_WC_SUCCESS and
    got[0].byte_len == len(data) and fresh_mr.read(len(data), 0) == data and acked and
    state(fresh) == e.IBV_QPS_RTS,
    'after the fuzz a fresh RC QP receives a valid SEND of %d bytes intact and ACKs it '
    '(got %s, acked %s)' % (len(data), [(w.wr_id, w.status, w.byte_len) for w in got], acked))

# Every QP destroyed, none left but QP1.
errors = []
for o in [fresh, fresh_cq, fresh_mr] + [x for t in targets for x in (t.qp, t.cq)] + \
        [srq, mr, mr2]:
    try:
        o.close()
    except Exception as ex:     # pylint: disable=broad-except
        errors.append(repr(ex))
out = subprocess.run(['rdma', 'resource', 'show', 'qp', 'link', DEV + '/1'],
                     capture_output=True, text=True, check=False).stdout
left = [int(n) for n in re.findall(r'lqpn (\d+)', out) if int(n) != 1]
tap(not errors and not left, 'every QP, CQ, SRQ and MR destroyed, no QP but QP1 left '
    '(errors %s, left %s)' % (errors, left))
pd.close()
ctx.close()
sys.exit(tap.done())
