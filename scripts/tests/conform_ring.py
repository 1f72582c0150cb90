# SPDX-License-Identifier: GPL-2.0
"""The hostile conformance suite's local-user cases (conform.py): a user
who writes the rings it shares with the kernel by hand instead of through
the provider. The rings are found in the process's own mappings of the
uverbs device (those a QP's creation adds) and written with ctypes, in
the layout the rxe provider and the kernel share (rdma/rdma_user_rxe.h:
struct rxe_send_wqe, struct rxe_recv_wqe; the ring header of
rdma-core's providers/rxe/rxe_queue.h). A valid WR posted after the
forged one rings the doorbell."""
import ctypes
import struct

import pyverbs.enums as e

import roce
from conform_env import MTU, RECV, SRC, case
from rdmatest import modify

# The ring header: producer and consumer indices, then the elements.
PRODUCER, CONSUMER, ELEMS = 128, 256, 384
# struct rxe_send_wqe (offsets checked against the uapi header).
SQ_WR_ID, SQ_OPCODE, SQ_FLAGS, SQ_LENGTH, SQ_NUM_SGE, SQ_SGE = 0, 12, 16, 184, 196, 208
# struct rxe_recv_wqe.
RQ_LENGTH, RQ_NUM_SGE, RQ_SGE = 16, 28, 40
SIGNALED, INLINE = 1 << 1, 1 << 3
WR_SEND = 2
G = 'local user'


def uverbs_maps():
    out = set()
    with open('/proc/self/maps') as f:
        for line in f:
            if '/dev/infiniband/uverbs' in line:
                lo, hi = line.split()[0].split('-')
                out.add((int(lo, 16), int(hi, 16)))
    return out


def u32(addr, value=None):
    cell = ctypes.c_uint32.from_address(addr)
    if value is not None:
        cell.value = value
    return cell.value


class Ring:
    def __init__(self, base):
        self.base = base
        self.stride = 1 << u32(base)
        self.mask = u32(base + 4)

    def slot(self):
        """The next free element (zeroed) and its address."""
        addr = self.base + ELEMS + (u32(self.base + PRODUCER) & self.mask) * self.stride
        ctypes.memset(addr, 0, self.stride)
        return addr

    def push(self):
        u32(self.base + PRODUCER, (u32(self.base + PRODUCER) + 1) & self.mask)


def rings(t, **kw):
    """A QP (t.rc()'s keywords) and its send, receive and CQ rings: the
    mapping the CQ's creation adds, then those the QP's, of which the
    send ring has the larger element."""
    before = uverbs_maps()
    cq = t.cq()
    mid = uverbs_maps()
    q = t.rc(cq=cq, **kw)
    new = sorted((Ring(lo) for lo, _ in uverbs_maps() - mid), key=lambda r: r.stride)
    return q, new[-1], new[0] if len(new) > 1 else None, Ring(min(mid - before)[0])


def put(addr, off, fmt, *values):
    data = struct.pack('<' + fmt, *values)
    ctypes.memmove(addr + off, data, len(data))


def forged_send(t, fill, upto=e.IBV_QPS_RTS):
    """An RTS QP whose send ring gets one WQE (wr_id 0xbad) that @fill
    writes, then a valid SEND (wr_id 77)."""
    q, sq, _, _ = rings(t, upto=upto, recvs=0)
    w = sq.slot()
    put(w, SQ_WR_ID, 'Q', 0xbad)
    put(w, SQ_FLAGS, 'I', SIGNALED)
    fill(t, w)
    sq.push()
    t.post(q)
    return q


def sge(t, w, addr, length, lkey, num=1):
    put(w, SQ_OPCODE, 'I', WR_SEND)
    put(w, SQ_LENGTH, 'I', length)
    put(w, SQ_NUM_SGE, 'I', num)
    put(w, SQ_SGE, 'QII', addr, length, lkey)


def ring_case(ident, desc, fill, **want):
    want = {'state': 'ERR', 'wire': []} | want
    case(ident, G, desc, **want)(lambda t: t.look(forged_send(t, fill)))


ring_case('R01', 'a send WQE with opcode 0xee: it completes in error, the QP in ERR',
          lambda t, w: put(w, SQ_OPCODE, 'I', 0xee), wcs=['2989:LOC_QP_OP', '77:FLUSH'])
ring_case('R02', 'a send WQE claiming 1000 SGEs: a local length error',
          lambda t, w: sge(t, w, t.mr.buf + SRC, 16, t.mr.lkey, 1000),
          wcs=['2989:LOC_LEN', '77:FLUSH'])
ring_case('R03', 'a send WQE with 64 KiB of inline data: a local length error',
          lambda t, w: (put(w, SQ_OPCODE, 'I', WR_SEND), put(w, SQ_FLAGS, 'I', SIGNALED | INLINE),
                        put(w, SQ_LENGTH, 'I', 65536)),
          wcs=['2989:LOC_LEN', '77:FLUSH'])
ring_case('R04', 'a send WQE with an L_Key nobody has: local protection error',
          lambda t, w: sge(t, w, t.mr.buf + SRC, 16, t.mr.lkey ^ 0x5a5a00),
          wcs=['2989:LOC_PROT', '77:FLUSH'])
ring_case('R05', 'a send WQE whose SGE runs past its MR: local protection error',
          lambda t, w: sge(t, w, t.mr.buf + (192 << 10) - 8, 16, t.mr.lkey),
          wcs=['2989:LOC_PROT', '77:FLUSH'])


def lying_length(t, w):
    sge(t, w, t.mr.buf + SRC, 16, t.mr.lkey)
    put(w, SQ_LENGTH, 'I', 1 << 20)


@case('R06', G, 'a send WQE whose total length says 1 MiB, its one SGE 16 bytes: 16 bytes '
      'sent, or an error', outcome='safe')
def length_lie(t):
    q = forged_send(t, lying_length)
    got = t.look(q)
    sizes = [len(p) - 16 for p in t.packets if p[0] == roce.SEND_ONLY]
    sent16 = sizes[:1] == [16] and got['wcs'][:1] == []
    failed = got['wcs'][:1] in (['2989:LOC_LEN'], ['2989:LOC_PROT'], ['2989:LOC_QP_OP'])
    got['outcome'] = 'safe' if (sent16 or failed) and max(sizes, default=0) <= MTU else sizes
    return got


@case('R07', G, "the send ring's producer index moved on over 3 slots never written: "
      'taken as posted (zero WQEs: 3 empty WRITEs), the SEND after them sent', state='RTS',
      wire=['REQ-0a'] * 3 + ['REQ-04'], wcs=[])
def producer_games(t):
    q, sq, _, _ = rings(t, upto=e.IBV_QPS_RTS, recvs=0)
    u32(sq.base + PRODUCER, (u32(sq.base + PRODUCER) + 3) & sq.mask)
    t.post(q)
    return t.look(q)


@case('R08', G, 'the CQ\'s producer index (the kernel\'s) overwritten: the next completion '
      'arrives as it should', wcs=['77:OK'], state='RTS', wire=[])
def cq_producer(t):
    q, _, _, cq = rings(t, upto=e.IBV_QPS_RTS, recvs=0)
    t.post(q)
    t.wire(0.3)
    u32(cq.base + PRODUCER, 0x12345 & cq.mask)
    t.tx(roce.ACK, q.qp_num, ext=roce.aeth(roce.ACK_SYN), psn=1000)
    return t.look(q)


def malformed_recv(t):
    q, _, rq, _ = rings(t, recvs=0)
    w = rq.slot()
    put(w, 0, 'Q', 0xbad)
    put(w, RQ_LENGTH, 'I', 16)
    put(w, RQ_NUM_SGE, 'I', 1000)
    put(w, RQ_SGE, 'QII', t.mr.buf + RECV, 16, t.mr.lkey)
    rq.push()
    t.tx(roce.SEND_ONLY, q.qp_num, b'x' * 16, ackreq=True)
    return t.look(q)


case('R09', G, 'a receive WQE claiming 1000 SGEs: NAK remote operational error, it '
     'completes in error', wire=['NAK-OP'], state='ERR',
     wcs=['2989:LOC_QP_OP'])(malformed_recv)


@case('R10', G, 'a SEND written into the send ring of a QP in RTR, and the QP moved to RTS '
      '(which wakes the requester) before any doorbell; then a SEND with the first '
      'doorbell: both go out, in order, the QP in RTS', outcome='safe', state='RTS')
def before_doorbell(t):
    q, sq, _, _ = rings(t, upto=e.IBV_QPS_RTR, recvs=0)
    w = sq.slot()
    put(w, SQ_WR_ID, 'Q', 55)
    sge(t, w, t.mr.buf + SRC, 16, t.mr.lkey)
    sq.push()
    modify(q, e.IBV_QPS_RTS, sq_psn=1000, timeout=0, retry_cnt=1, rnr_retry=1,
           max_rd_atomic=4)
    early = t.wire()
    t.post(q)
    got = t.look(q)
    sends = early + got['wire']
    got['outcome'] = 'safe' if sends == ['REQ-04', 'REQ-04'] else sends
    return got
