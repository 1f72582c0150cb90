# SPDX-License-Identifier: GPL-2.0
"""The hostile conformance suite's packet cases (conform.py), by group.
Each makes its own QP; a responder QP is in RTR expecting PSN 0, a
requester QP in RTS with its first PSN 1000 and no ACK timer. Expected
outcomes follow IBTA 1.4: chapter 9.7.5 (responder and requester checks),
9.6 (packet checks), 10.9 (P_Keys), annex A17 (RoCEv2)."""
import time

import pyverbs.enums as e
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr

import roce
from rdmatest import modify
from conform_env import DATA, MTU, QKEY, case
from roce import (ACK, ATOMIC_ACK, ATOMIC_WRITE, CMP_SWAP, CNP, FETCH_ADD, FLUSH,
                  READ_REQUEST, READ_RESP_ONLY,
                  RESERVED, SEND_FIRST, SEND_LAST, SEND_MIDDLE, SEND_ONLY, UD_SEND_ONLY,
                  WRITE_FIRST, WRITE_LAST, WRITE_MIDDLE, WRITE_ONLY, WRITE_ONLY_IMM)

RTS = e.IBV_QPS_RTS
DROP = {'wire': [], 'state': 'RTR', 'wcs': []}
# A responder's fatal NAK: the QP in ERR, its one receive WR flushed.
FATAL = {'state': 'ERR', 'wcs': ['0:FLUSH']}
X16 = b'x' * 16


def simple(ident, group, desc, act, sroce=None, qp=None, **want):
    """A case on a fresh responder QP (@qp: rc()'s keywords): @act(t, q)
    sends; the outcome is look()'s, plus what @act returns."""
    def fn(t):
        q = t.rc(**(qp or {}))
        extra = act(t, q) or {}
        return t.look(q, **extra)
    case(ident, group, desc, sroce, **want)(fn)


def untouched(t):
    return {'mem': 'untouched' if t.data(DATA, 8192) == bytes(8192) else 'written'}


def send(t, q, payload=X16, **kw):
    kw.setdefault('ackreq', True)
    t.tx(SEND_ONLY, q.qp_num, payload, **kw)


def write(t, q, va, rkey, length, payload=None, op=WRITE_ONLY, **kw):
    payload = b'w' * length if payload is None else payload
    t.tx(op, q.qp_num, payload, ext=roce.reth(va, rkey, length), ackreq=True, **kw)
    return untouched(t)


def read(t, q, va, rkey, length, psn=0, **kw):
    t.tx(READ_REQUEST, q.qp_num, ext=roce.reth(va, rkey, length), ackreq=True, psn=psn, **kw)


def atomic(t, q, op, va, rkey, add_or_swap=1, compare=0, psn=0):
    t.tx(op, q.qp_num, ext=roce.atomic_eth(va, rkey, add_or_swap, compare), ackreq=True,
         psn=psn)


def mr_with(t, access):
    return t.keep(MR(t.pd, 8192, access))


# --- framing and BTH fields (IBTA 9.6; A17.4) ------------------------------
G = 'framing'
simple('F01', G, 'one bit of the ICRC wrong: dropped',
       lambda t, q: send(t, q, bad_icrc=True), {'rx_drop_icrc': 1}, **DROP)
simple('F02', G, 'transport header version 1: dropped',
       lambda t, q: send(t, q, tver=1), {'rx_drop_header': 1}, **DROP)
simple('F03', G, 'BTH reserved bits set: ignored, the SEND received',
       lambda t, q: t.tx(SEND_ONLY, q.qp_num | 0xab << 24, X16, ackreq=True, resv=0x7f),
       wire=['ACK'], state='RTR', wcs=['0:OK'])
simple('F04', G, 'P_Key 0x1234, in no partition of the port: dropped',
       lambda t, q: send(t, q, pkey=0x1234), {'rx_drop_pkey': 1}, **DROP)
simple('F05', G, 'P_Key 0x7fff, a limited member of the default partition: received',
       lambda t, q: send(t, q, pkey=0x7fff), wire=['ACK'], state='RTR', wcs=['0:OK'])
simple('F06', G, 'the invalid P_Key 0x0000: dropped',
       lambda t, q: send(t, q, pkey=0), {'rx_drop_pkey': 1}, **DROP)
simple('F07', G, 'a reserved RC opcode (0x1f): dropped',
       lambda t, q: t.tx(RESERVED, q.qp_num, ackreq=True), {'rx_drop_opcode': 1}, **DROP)
simple('F08', G, 'a UD opcode to an RC QP: dropped',
       lambda t, q: t.tx(UD_SEND_ONLY, q.qp_num, X16, ext=roce.deth(QKEY, 7)),
       {'rx_drop_opcode': 1}, **DROP)
simple('F09', G, 'a UC opcode to an RC QP: dropped',
       lambda t, q: t.tx(roce.UC_SEND_ONLY, q.qp_num, X16), {'rx_drop_opcode': 1}, **DROP)
simple('F10', G, 'an RD opcode to an RC QP: dropped',
       lambda t, q: t.tx(roce.RD_SEND_ONLY, q.qp_num, X16, ext=bytes(12)),
       {'rx_drop_opcode': 1}, **DROP)
simple('F11', G, 'a CNP to an RC QP: no answer, the QP untouched',
       lambda t, q: t.tx(CNP, q.qp_num, bytes(16)), **DROP)
simple('F12', G, 'a zero-length SEND: received, 0 bytes',
       lambda t, q: send(t, q, b''), wire=['ACK'], state='RTR', wcs=['0:OK'])
simple('F13', G, 'an RDMA WRITE without its RETH: dropped',
       lambda t, q: t.tx(WRITE_ONLY, q.qp_num, ackreq=True), {'rx_drop_short': 1}, **DROP)
simple('F14', G, 'a SEND to a QP still in INIT: dropped',
       lambda t, q: send(t, q), {'rx_drop_qp_state': 1}, qp={'upto': e.IBV_QPS_INIT},
       wire=[], state='INIT', wcs=[])


@case('F15', G, 'eight bytes: dropped', {'rx_drop_short': 1}, wire=[],
      fatal={'rxe': 'rdma_rxe 7.3: general protection fault in __rxe_put() from rxe_rcv(), '
             'whose drop path puts a QP pointer it has not set yet'})
def eight_bytes(t):
    t.sock['peer6'].sendto(bytes(8), ('2001:db8::1', roce.ROCE_PORT))
    return t.look(None)


@case('F16', G, 'a SEND to a QP number nobody has: dropped', {'rx_drop_no_qp': 1}, wire=[])
def no_qp(t):
    t.tx(SEND_ONLY, 0xabcde, X16, ackreq=True)
    return t.look(None)


@case('F17', G, 'the ICRC cut to 2 bytes: dropped', wire=[], state='RTR', wcs=[])
def cut_icrc(t):
    q = t.rc()
    data = roce.packet('2001:db8::2', '2001:db8::1', 49152, SEND_ONLY, q.qp_num, X16)
    t.sock['peer6'].sendto(data[:-2], ('2001:db8::1', roce.ROCE_PORT))
    return t.look(q)


@case('F18', G, 'an ACK with a pad count: dropped', {'rx_drop_header': 1},
      wire=[], state='RTS', wcs=[])
def ack_pad(t):
    q = t.rc(upto=RTS, recvs=0)
    t.tx(ACK, q.qp_num, pad=2, ext=roce.aeth(roce.ACK_SYN), psn=999)
    return t.look(q)


# --- lengths and pad (C9-91..C9-94: malformed lengths are invalid requests) --
G = 'length'


@case('L01', G, 'a SEND of 13 bytes and a pad of 3: received, 13 bytes', wire=['ACK'],
      state='RTR', wcs=['0:OK'], len=13)
def padded(t):
    q = t.rc()
    send(t, q, b'p' * 13, pad=3)
    got = t.look(q)
    got['len'] = t.wcs[0].byte_len if t.wcs else None
    return got


simple('L02', G, 'a SEND_ONLY longer than the path MTU: NAK invalid request',
       lambda t, q: send(t, q, b'y' * (MTU + 4)), {'tx_nak_error': 1},
       wire=['NAK-INV'], **FATAL)
simple('L03', G, 'a SEND_FIRST shorter than the path MTU: NAK invalid request',
       lambda t, q: t.tx(SEND_FIRST, q.qp_num, b'y' * 512, ackreq=True), {'tx_nak_error': 1},
       wire=['NAK-INV'], **FATAL)
simple('L04', G, 'a SEND longer than the receive WR: NAK invalid request, local length error',
       lambda t, q: send(t, q, b'y' * 100), {'tx_nak_error': 1}, qp={'recv_len': 64},
       wire=['NAK-INV'], state='ERR', wcs=['0:LOC_LEN'])
simple('L05', G, 'a WRITE_ONLY carrying less than its RETH length: NAK invalid request',
       lambda t, q: write(t, q, t.mr.buf, t.mr.rkey, 100, b'w' * 52), {'tx_nak_error': 1},
       qp={'recvs': 0}, wire=['NAK-INV'], state='ERR', wcs=[], mem='untouched')
simple('L06', G, 'a WRITE_ONLY longer than the path MTU: NAK invalid request',
       lambda t, q: write(t, q, t.mr.buf, t.mr.rkey, MTU + 4), {'tx_nak_error': 1},
       qp={'recvs': 0}, wire=['NAK-INV'], state='ERR', wcs=[], mem='untouched')


def write_overrun(t, q):
    t.tx(WRITE_FIRST, q.qp_num, b'a' * MTU, ext=roce.reth(t.mr.buf, t.mr.rkey, 2 * MTU))
    t.tx(WRITE_MIDDLE, q.qp_num, b'b' * MTU, psn=1)
    t.tx(WRITE_LAST, q.qp_num, b'c' * 64, psn=2, ackreq=True)


simple('L07', G, 'a WRITE whose packets carry more than its RETH length: NAK invalid request',
       write_overrun, {'tx_nak_error': 1}, qp={'recvs': 0},
       wire=['NAK-INV'], state='ERR', wcs=[])
simple('L08', G, 'a READ request carrying a payload: NAK invalid request',
       lambda t, q: t.tx(READ_REQUEST, q.qp_num, X16, ext=roce.reth(t.mr.buf, t.mr.rkey, 16),
                         ackreq=True), {'tx_nak_error': 1}, qp={'recvs': 0},
       wire=['NAK-INV'], state='ERR', wcs=[])

# --- opcode sequence (C9-84: a packet out of its message's sequence) -------
G = 'sequence'
simple('S01', G, 'a SEND_MIDDLE with no SEND_FIRST: NAK invalid request',
       lambda t, q: t.tx(SEND_MIDDLE, q.qp_num, b'm' * MTU, ackreq=True),
       {'tx_nak_error': 1}, wire=['NAK-INV'], **FATAL)
simple('S02', G, 'a SEND_LAST with no SEND_FIRST: NAK invalid request',
       lambda t, q: t.tx(SEND_LAST, q.qp_num, X16, ackreq=True),
       {'tx_nak_error': 1}, wire=['NAK-INV'], **FATAL)
simple('S03', G, 'SEND_FIRST, then a WRITE_MIDDLE: NAK invalid request, the receive flushed',
       lambda t, q: (t.tx(SEND_FIRST, q.qp_num, b'f' * MTU),
                     t.tx(WRITE_MIDDLE, q.qp_num, b'm' * MTU, psn=1, ackreq=True)) and None,
       {'tx_nak_error': 1}, wire=['NAK-INV'], **FATAL)
simple('S04', G, 'SEND_FIRST, then a SEND_ONLY: NAK invalid request, all 8 receives flushed',
       lambda t, q: (t.tx(SEND_FIRST, q.qp_num, b'f' * MTU),
                     t.tx(SEND_ONLY, q.qp_num, X16, psn=1, ackreq=True)) and None,
       {'tx_nak_error': 1}, qp={'recvs': 8}, wire=['NAK-INV'], state='ERR',
       wcs=['%d:FLUSH' % i for i in range(8)])
simple('S05', G, 'WRITE_FIRST, then a SEND_LAST: NAK invalid request',
       lambda t, q: (t.tx(WRITE_FIRST, q.qp_num, b'f' * MTU,
                          ext=roce.reth(t.mr.buf, t.mr.rkey, 2 * MTU)),
                     t.tx(SEND_LAST, q.qp_num, X16, psn=1, ackreq=True)) and None,
       {'tx_nak_error': 1}, wire=['NAK-INV'], **FATAL)
simple('S06', G, 'a WRITE_MIDDLE with no WRITE_FIRST: NAK invalid request',
       lambda t, q: t.tx(WRITE_MIDDLE, q.qp_num, b'm' * MTU, ackreq=True),
       {'tx_nak_error': 1}, qp={'recvs': 0}, wire=['NAK-INV'], state='ERR', wcs=[])

# --- RETH, R_Keys and access (C9-88: remote access errors) -----------------
G = 'keys'
ACC = {'wire': ['NAK-ACC'], 'state': 'ERR', 'wcs': []}
NOREV = {'recvs': 0}
simple('K01', G, 'a WRITE with an R_Key nobody has: NAK remote access',
       lambda t, q: write(t, q, t.mr.buf, t.mr.rkey ^ 0x5a5a00, 16), {'tx_nak_error': 1},
       qp=NOREV, mem='untouched', **ACC)
simple('K02', G, 'a WRITE starting below the MR: NAK remote access',
       lambda t, q: write(t, q, t.mr.buf - 8, t.mr.rkey, 16), {'tx_nak_error': 1},
       qp=NOREV, mem='untouched', **ACC)
simple('K03', G, 'a WRITE running past the end of the MR: NAK remote access',
       lambda t, q: write(t, q, t.mr.buf + (192 << 10) - 8, t.mr.rkey, 16),
       {'tx_nak_error': 1}, qp=NOREV, mem='untouched', **ACC)
simple('K04', G, 'a WRITE whose address wraps past 2^64: NAK remote access',
       lambda t, q: write(t, q, (1 << 64) - 8, t.mr.rkey, 16), {'tx_nak_error': 1},
       qp=NOREV, mem='untouched', **ACC)
simple('K05', G, 'a WRITE to an MR without remote write: NAK remote access',
       lambda t, q: write(t, q, *(lambda m: (m.buf, m.rkey))(
           mr_with(t, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)), 16),
       {'tx_nak_error': 1}, qp=NOREV, **ACC)
simple('K06', G, 'a READ of an MR without remote read: NAK remote access',
       lambda t, q: read(t, q, *(lambda m: (m.buf, m.rkey))(
           mr_with(t, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)), 16),
       {'tx_nak_error': 1}, qp=NOREV, **ACC)
simple('K07', G, 'a READ with an R_Key nobody has: NAK remote access',
       lambda t, q: read(t, q, t.mr.buf, t.mr.rkey ^ 0x5a5a00, 16), {'tx_nak_error': 1},
       qp=NOREV, **ACC)
simple('K08', G, 'a READ of 2^31 + 1 bytes (over the DMA length maximum): NAK invalid request',
       lambda t, q: read(t, q, t.mr.buf, t.mr.rkey, (1 << 31) + 1), {'tx_nak_error': 1},
       qp=NOREV, wire=['NAK-INV'], state='ERR', wcs=[])
simple('K09', G, 'a zero-length READ with a bad R_Key: answered, no key checked',
       lambda t, q: read(t, q, 0, 0x5a5a5a5a, 0), qp=NOREV, wire=['RRESP'], state='RTR',
       wcs=[])
simple('K10', G, 'a zero-length WRITE with a bad R_Key: ACKed, no key checked',
       lambda t, q: write(t, q, 0, 0x5a5a5a5a, 0), qp=NOREV, wire=['ACK'], state='RTR',
       wcs=[], mem='untouched')


def other_pd_write(t, q):
    pd = t.keep(PD(t.ctx))
    m = t.keep(MR(pd, 8192, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE))
    write(t, q, m.buf, m.rkey, 16)
    return {'mem': 'untouched' if m.read(16, 0) == bytes(16) else 'written'}


simple('K11', G, "a WRITE to another PD's MR: NAK remote access", other_pd_write,
       {'tx_nak_error': 1}, qp=NOREV, mem='untouched', **ACC)


def dead_key_write(t, q):
    m = MR(t.pd, 8192, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    va, rkey = m.buf, m.rkey
    m.close()
    write(t, q, va, rkey, 16)


simple('K12', G, 'a WRITE with the R_Key of a deregistered MR: NAK remote access',
       dead_key_write, {'tx_nak_error': 1}, qp=NOREV, **ACC)
simple('K13', G, 'a WRITE to a QP without remote write: NAK invalid request',
       lambda t, q: write(t, q, t.mr.buf, t.mr.rkey, 16), {'tx_nak_error': 1},
       qp={'recvs': 0, 'access': e.IBV_ACCESS_REMOTE_READ}, mem='untouched', wire=['NAK-INV'], state='ERR', wcs=[])
simple('K14', G, 'a READ on a QP without remote read: NAK invalid request',
       lambda t, q: read(t, q, t.mr.buf, t.mr.rkey, 16), {'tx_nak_error': 1},
       qp={'recvs': 0, 'access': e.IBV_ACCESS_REMOTE_WRITE}, wire=['NAK-INV'], state='ERR', wcs=[])


def write_imm(t, q):
    t.tx(WRITE_ONLY_IMM, q.qp_num, b'i' * 32, ext=roce.reth(t.mr.buf, t.mr.rkey, 32) +
         b'\x01\x02\x03\x04', ackreq=True)
    return {'mem': 'written' if t.data(DATA, 32) == b'i' * 32 else 'wrong'}


simple('K15', G, 'a WRITE with immediate: placed, the receive WR completes',
       write_imm, wire=['ACK'], state='RTR', wcs=['0:OK'], mem='written')

# --- atomics (C9-90: alignment; C9-88: access) ------------------------------
G = 'atomics'
simple('A01', G, 'a compare-and-swap at a misaligned address: NAK invalid request',
       lambda t, q: atomic(t, q, CMP_SWAP, t.mr.buf + 4, t.mr.rkey), {'tx_nak_error': 1},
       qp=NOREV, wire=['NAK-INV'], state='ERR', wcs=[])
simple('A02', G, 'a fetch-and-add just past the MR: NAK remote access',
       lambda t, q: atomic(t, q, FETCH_ADD, t.mr.buf + (192 << 10), t.mr.rkey),
       {'tx_nak_error': 1}, qp=NOREV, **ACC)
simple('A03', G, 'a fetch-and-add on an MR without remote atomic: NAK remote access',
       lambda t, q: atomic(t, q, FETCH_ADD, *(lambda m: (m.buf, m.rkey))(
           mr_with(t, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE))),
       {'tx_nak_error': 1}, qp=NOREV, **ACC)
simple('A04', G, 'a fetch-and-add with an R_Key nobody has: NAK remote access',
       lambda t, q: atomic(t, q, FETCH_ADD, t.mr.buf, t.mr.rkey ^ 0x5a5a00),
       {'tx_nak_error': 1}, qp=NOREV, **ACC)
simple('A05', G, 'a fetch-and-add on a QP without remote atomic: NAK invalid request',
       lambda t, q: atomic(t, q, FETCH_ADD, t.mr.buf, t.mr.rkey), {'tx_nak_error': 1},
       qp={'recvs': 0, 'access': e.IBV_ACCESS_REMOTE_WRITE}, wire=['NAK-INV'], state='ERR', wcs=[])


def fetch_add(t, q):
    t.mr.write((5).to_bytes(8, 'little'), 8, 0)
    atomic(t, q, FETCH_ADD, t.mr.buf, t.mr.rkey, 3)
    got = t.look(q)
    orig = int.from_bytes(t.packets[0][16:24], 'big') if got['wire'] == ['AACK'] else None
    got.update(orig=orig, mem=int.from_bytes(t.data(0, 8), 'little'))
    return got


case('A06', G, 'a fetch-and-add: the original value back, the sum in memory',
     wire=['AACK'], state='RTR', wcs=[], orig=5, mem=8)(lambda t: fetch_add(t, t.rc(recvs=0)))


def cmp_swap(t, q):
    t.mr.write((7).to_bytes(8, 'little'), 8, 0)
    atomic(t, q, CMP_SWAP, t.mr.buf, t.mr.rkey, 9, 7)
    return {'mem': int.from_bytes(t.data(0, 8), 'little')}


simple('A07', G, 'a compare-and-swap that matches: swapped', cmp_swap, qp=NOREV,
       wire=['AACK'], state='RTR', wcs=[], mem=9)
simple('A08', G, 'a READ to a QP of max_dest_rd_atomic 0: answered (0 reads as 1, as RNICs '
       'read it)', lambda t, q: read(t, q, t.mr.buf, t.mr.rkey, 16),
       qp={'recvs': 0, 'rd_atomic': 0}, wire=['RRESP'], state='RTR', wcs=[])



# IBTA 1.5's ATOMIC WRITE (oA19-28: 8 bytes, aligned; answered by an empty
# READ response) and FLUSH (the MR's right for the placement type).
def atomic_write(t, q, value, off=0, length=8, psn=0):
    t.tx(ATOMIC_WRITE, q.qp_num, value, ext=roce.reth(t.mr.buf + off, t.mr.rkey, length),
         ackreq=True, psn=psn)


def aw_lands(t, q):
    atomic_write(t, q, bytes(range(1, 9)), off=8)
    got = t.look(q)
    got['empty'] = [len(p) for p in t.packets] == [12 + 4 + 4]
    got['mem'] = t.data(0, 24).hex()
    return got


case('A09', G, 'an ATOMIC WRITE: the 8 bytes in memory, an empty READ response',
     wire=['RRESP'], state='RTR', wcs=[], empty=True,
     mem=(bytes(8) + bytes(range(1, 9)) + bytes(8)).hex())(lambda t: aw_lands(t, t.rc(recvs=0)))
simple('A10', G, 'an ATOMIC WRITE to an address not 8-byte aligned: NAK invalid request',
       lambda t, q: atomic_write(t, q, b'a' * 8, off=4) or untouched(t), qp=NOREV,
       wire=['NAK-INV'], state='ERR', wcs=[], mem='untouched')
simple('A11', G, 'an ATOMIC WRITE of 4 bytes: NAK invalid request',
       lambda t, q: atomic_write(t, q, b'a' * 4, length=4) or untouched(t), qp=NOREV,
       wire=['NAK-INV'], state='ERR', wcs=[], mem='untouched')
simple('A12', G, 'a FLUSH of an MR without the FLUSH right: NAK remote access error',
       lambda t, q: t.tx(FLUSH, q.qp_num, ext=roce.feth(1, 0) + roce.reth(t.mr.buf, t.mr.rkey, 64),
                         ackreq=True),
       qp={'recvs': 0, 'access': e.IBV_ACCESS_REMOTE_WRITE | (1 << 8)},
       wire=['NAK-ACC'], state='ERR', wcs=[])

# --- PSNs and duplicates (9.7.5.1.1, C9-99..C9-110) --------------------------
G = 'PSN'
simple('P01', G, 'a SEND one PSN ahead: NAK sequence error, the QP waits on',
       lambda t, q: send(t, q, psn=1), {'tx_nak_seq': 1}, **DROP | {'wire': ['NAK-SEQ']})
simple('P02', G, 'SENDs one and two PSNs ahead: one NAK sequence error for the gap',
       lambda t, q: (send(t, q, psn=1), send(t, q, psn=2)) and None, {'tx_nak_seq': 1},
       **DROP | {'wire': ['NAK-SEQ']})
simple('P03', G, 'ahead, then the expected PSN, then the next: NAK, then both received',
       lambda t, q: (send(t, q, psn=1), send(t, q, psn=0), send(t, q, psn=1)) and None,
       qp={'recvs': 2}, wire=['NAK-SEQ', 'ACK', 'ACK'], state='RTR', wcs=['0:OK', '1:OK'])
simple('P04', G, 'a SEND 16 PSNs behind (a duplicate never seen): ACKed, nothing received',
       lambda t, q: send(t, q, psn=0xfffff0), {'rx_dup_request': 1},
       **DROP | {'wire': ['ACK']})
simple('P05', G, 'a SEND 2^23 - 1 PSNs ahead (the window\'s edge): NAK sequence error',
       lambda t, q: send(t, q, psn=0x7fffff), {'tx_nak_seq': 1}, **DROP | {'wire': ['NAK-SEQ']})
simple('P06', G, 'a SEND, then the same SEND again: received once, ACKed twice',
       lambda t, q: (send(t, q), send(t, q)) and None, {'rx_dup_request': 1},
       wire=['ACK', 'ACK'], state='RTR', wcs=['0:OK'])


def dup_read(t, q):
    t.mr.write(b'r' * 64, 64, 0)
    read(t, q, t.mr.buf, t.mr.rkey, 64)
    read(t, q, t.mr.buf, t.mr.rkey, 64)
    got = t.look(q)
    got['data'] = all(p[16:80] == b'r' * 64 for p in t.packets[:2])
    return got


case('P07', G, 'a READ, then the same READ again: answered twice, the same data',
     {'rx_dup_request': 1}, wire=['RRESP', 'RRESP'], state='RTR', wcs=[],
     data=True)(lambda t: dup_read(t, t.rc(recvs=0)))


def dup_atomic(t, q):
    t.mr.write((5).to_bytes(8, 'little'), 8, 0)
    atomic(t, q, FETCH_ADD, t.mr.buf, t.mr.rkey, 3)
    atomic(t, q, FETCH_ADD, t.mr.buf, t.mr.rkey, 3)
    got = t.look(q)
    got['origs'] = [int.from_bytes(p[16:24], 'big') for p in t.packets]
    got['mem'] = int.from_bytes(t.data(0, 8), 'little')
    return got


case('P08', G, 'a fetch-and-add, then the same again: executed once, the same answer twice',
     {'rx_dup_request': 1}, wire=['AACK', 'AACK'], state='RTR', wcs=[], origs=[5, 5],
     mem=8)(lambda t: dup_atomic(t, t.rc(recvs=0)))


def dup_atomic_write(t, q):
    atomic_write(t, q, b'1' * 8)
    atomic_write(t, q, b'2' * 8)
    got = t.look(q)
    got['mem'] = t.data(0, 8)
    return got


case('P10', G, 'an ATOMIC WRITE, then the same PSN with another value: written once, '
     'answered twice', {'rx_dup_request': 1}, wire=['RRESP', 'RRESP'], state='RTR', wcs=[],
     mem=b'1' * 8)(lambda t: dup_atomic_write(t, t.rc(recvs=0)))


def read_then_empty_dup(t, q):
    read(t, q, t.mr.buf, t.mr.rkey, 16 * MTU)
    read(t, q, 0, 0x5a5a5a5a, 0, psn=0xffff00)
    got = t.look(q)
    psns = [int.from_bytes(p[9:12], 'big') for p in t.packets]
    first = [p for p in psns if p < 16]
    # The duplicate itself may be answered (a zero-length READ needs no
    # resource to answer) or not; what it must not do is cut the first.
    got['psns'] = 'all 16 in order' if first == list(range(16)) and \
        all(p == 0xffff00 for p in psns if p >= 16) else psns
    return got


case('P09', G, 'a READ of 16 packets, then a zero-length READ far behind: every response '
     'of the first sent, in order', state='RTR', wcs=[],
     psns='all 16 in order')(lambda t: read_then_empty_dup(t, t.rc(recvs=0)))


# --- responses: ghosts and forgeries (C9-112..C9-120: the requester's checks)
G = 'responses'


def requester(t, outstanding=True, fam=6):
    """A requester QP; with @outstanding, a SEND at PSN 1000 sent (its
    packet left on the wire already)."""
    q = t.rc(fam=fam, upto=RTS, recvs=0)
    if outstanding:
        t.post(q)
        t.wire(0.3)
    return q


def answer(ident, desc, op, psn, syn=roce.ACK_SYN, outstanding=True, sroce=None,
           src='peer', fam=6, payload=b'', **want):
    def fn(t):
        q = requester(t, outstanding, fam)
        ext = roce.aeth(syn) + (bytes(8) if op == ATOMIC_ACK else b'')
        t.tx(op, q.qp_num, payload, ext=ext, psn=psn, src=src, fam=fam)
        return t.look(q, **untouched(t))
    want = {'wire': [], 'state': 'RTS', 'wcs': [], 'mem': 'untouched'} | want
    case(ident, G, desc, sroce, **want)(fn)


BAD = {'rx_bad_response': 1}
answer('G01', 'an ACK of PSN 1005, never sent: ignored, the SEND outstanding', ACK, 1005,
       sroce=BAD)
answer('G02', 'a NAK invalid request of a PSN never sent: ignored, the QP in RTS', ACK, 999,
       roce.NAK_INV_REQ, outstanding=False, sroce=BAD)
answer('G03', 'a NAK remote access of PSN 990 with a SEND outstanding at 1000: ignored', ACK,
       990, roce.NAK_REM_ACCESS, sroce=BAD)
answer('G04', 'a NAK remote operational error of a PSN never sent: ignored', ACK, 999,
       roce.NAK_REM_OP, outstanding=False, sroce=BAD)
answer('G05', 'an RNR NAK of a PSN never sent: ignored', ACK, 999, roce.RNR_NAK_SYN | 1,
       outstanding=False, sroce=BAD)
answer('G06', 'a READ response with no READ outstanding: dropped, nothing written',
       READ_RESP_ONLY, 1000, outstanding=False, payload=b'R' * 64, sroce=BAD)
answer('G07', 'an atomic ACK with no atomic outstanding: dropped', ATOMIC_ACK, 1000,
       outstanding=False, sroce=BAD)
answer('G08', "the peer's ACK of the SEND: completes it", ACK, 1000, wcs=['77:OK'])
answer('G09', 'a NAK sequence error of the SEND: sent again', ACK, 1000, roce.NAK_SEQ_SYN,
       sroce={'rx_nak_seq': 1}, wire=['REQ-04'])
answer('G10', 'a NAK invalid request of the SEND: it completes in error, the QP in ERR', ACK,
       1000, roce.NAK_INV_REQ, state='ERR', wcs=['77:REM_INV_REQ'])
answer('G11', 'an off-path ACK of the SEND (IPv6): dropped', ACK, 1000, src='off',
       sroce={'rx_drop_path': 1})
answer('G12', 'an off-path ACK of the SEND (IPv4): dropped', ACK, 1000, src='off', fam=4,
       sroce={'rx_drop_path': 1})
answer('G13', 'an ACK of PSN 999, acknowledged already: ignored', ACK, 999)
answer('G14', 'a READ response to the SEND: the SEND fails (bad response), the QP in ERR',
       READ_RESP_ONLY, 1000, payload=b'R' * 16, state='ERR', wcs=['77:BAD_RESP'])


def short_read_response(t):
    q = t.rc(upto=RTS, recvs=0)
    t.post(q, e.IBV_WR_RDMA_READ, length=64, raddr=0x10000, rkey=0x1234)
    t.wire(0.3)
    t.tx(READ_RESP_ONLY, q.qp_num, b'R' * 32, ext=roce.aeth(roce.ACK_SYN), psn=1000)
    got = t.look(q)
    got['mem'] = 'untouched' if t.data(128 << 10, 64) == bytes(64) else 'written'
    return got


case('G15', G, 'a READ response shorter than the READ: dropped, nothing written, the READ '
     'outstanding', BAD, wire=[], state='RTS', wcs=[], mem='untouched')(short_read_response)

# --- the ACK timer (C9-140..C9-142: retries, then RETRY_EXC_ERR) ---------
G = 'timer'


def unanswered(t, opcode):
    """A requester with an ACK timer of about 17 ms and 3 retries; its WR
    never answered."""
    q = t.rc(upto=RTS, recvs=0, timeout=12, retry_cnt=3)
    t.post(q, opcode, length=64, raddr=0x10000, rkey=0x1234)
    return t.look(q, quiet=1.0)


case('T01', G, 'a SEND never answered: sent again at each ACK timeout, 3 times, then '
     'RETRY_EXC', wire=['REQ-04'] * 4, state='ERR',
     wcs=['77:RETRY_EXC'])(lambda t: unanswered(t, e.IBV_WR_SEND))
case('T02', G, 'a READ never answered: sent again at each ACK timeout, 3 times, then '
     'RETRY_EXC', wire=['REQ-0c'] * 4, state='ERR',
     wcs=['77:RETRY_EXC'])(lambda t: unanswered(t, e.IBV_WR_RDMA_READ))


def late_read_response(t):
    # An ACK timeout of about 270 ms: the READ, its retry, then answers.
    q = t.rc(upto=RTS, recvs=0, timeout=16, retry_cnt=7)
    t.mr.write(bytes(64), 64, 128 << 10)
    t.post(q, e.IBV_WR_RDMA_READ, length=64, raddr=0x10000, rkey=0x1234)
    first = t.wire(quiet=0.4, limit=0.4)
    resp = roce.aeth(roce.ACK_SYN)
    # The answer to the first, then the same again (to the retry).
    for _ in range(2):
        t.tx(READ_RESP_ONLY, q.qp_num, b'L' * 64, ext=resp, psn=1000)
    got = t.look(q)
    got['sent'] = first
    got['mem'] = 'written' if t.data(128 << 10, 64) == b'L' * 64 else 'not'
    return got


case('T03', G, 'a READ response arriving after the READ was sent again, twice: the READ '
     'completes once, its data placed', wire=[], state='RTS', wcs=['77:OK'],
     sent=['REQ-0c'] * 2, mem='written')(late_read_response)


# --- sources: the path check (C17-? annex A17.4.5; 9.6.1.5) ------------------
G = 'sources'
PATH = {'rx_drop_path': 1}
simple('N01', G, 'a SEND from an off-path address (IPv6): dropped',
       lambda t, q: send(t, q, src='off'), PATH, **DROP)
simple('N02', G, 'a SEND from the peer to another address of ours (IPv6): dropped',
       lambda t, q: send(t, q, dst='other6'), PATH, **DROP)
simple('N03', G, 'a SEND from an off-path address (IPv4): dropped',
       lambda t, q: send(t, q, src='off', fam=4), PATH, qp={'fam': 4}, **DROP)
simple('N04', G, 'a SEND from the peer (IPv4): received',
       lambda t, q: send(t, q, fam=4), qp={'fam': 4}, wire=['ACK'], state='RTR',
       wcs=['0:OK'])
simple('N05', G, "a SEND from the peer's IPv4 address to an IPv6 QP: dropped",
       lambda t, q: send(t, q, fam=4), PATH, **DROP)
simple('N06', G, 'a SEND from the peer to another address of ours (IPv4): dropped',
       lambda t, q: send(t, q, fam=4, dst='other4'), PATH, qp={'fam': 4}, **DROP)
simple('N07', G, 'a READ from an off-path address: dropped, no data sent',
       lambda t, q: read(t, q, t.mr.buf, t.mr.rkey, 64, src='off'), PATH, qp=NOREV, **DROP)
simple('N08', G, 'a WRITE from an off-path address: dropped, memory untouched',
       lambda t, q: write(t, q, t.mr.buf, t.mr.rkey, 16, src='off'), PATH, qp=NOREV,
       **DROP | {'mem': 'untouched'})

# --- UD and Q_Keys (C10-15; 9.6.1.5 for multicast) ---------------------------
G = 'UD'


def ud_case(ident, desc, payload=X16, qkey=QKEY, qp_kw=None, sroce=None, op=UD_SEND_ONLY,
            qpn=None, **want):
    def fn(t):
        q = t.ud(**(qp_kw or {}))
        ext = roce.deth(qkey, 0x4567) if op == UD_SEND_ONLY else b''
        t.tx(op, q.qp_num if qpn is None else qpn, payload, ext=ext)
        got = t.look(q)
        if t.wcs:
            got['src_qp'], got['len'] = hex(t.wcs[0].src_qp), t.wcs[0].byte_len
        return got
    want = {'wire': [], 'state': 'RTS', 'wcs': []} | want
    case(ident, G, desc, sroce, **want)(fn)


ud_case('U01', 'a UD SEND with the QP\'s Q_Key: received, its source QP and the GRH',
        wcs=['0:OK'], src_qp='0x4567', len=16 + 40)
ud_case('U02', 'a UD SEND with another Q_Key: dropped', qkey=QKEY ^ 1,
        sroce={'rx_drop_qkey': 1})
ud_case('U03', 'a UD SEND with no receive posted: dropped', qp_kw={'recvs': 0},
        sroce={'rx_drop_no_recv': 1})
ud_case('U04', 'a UD SEND longer than the MTU: dropped', payload=b'u' * (MTU + 4),
        sroce={'rx_drop_length': 1})
ud_case('U05', 'a RC SEND_ONLY to a UD QP: dropped', op=SEND_ONLY,
        sroce={'rx_drop_opcode': 1})
ud_case('U06', 'a UD SEND to the multicast QPN on a unicast address: dropped', qpn=0xffffff,
        sroce={'rx_drop_mcast': 1})
ud_case('U07', 'a UD SEND longer than its receive WR: dropped, the WR kept for the next',
        payload=b'u' * 100, qp_kw={'recv_len': 64}, sroce={'rx_drop_length': 1})


@case('U08', G, 'a UD SEND to QP 1 with a Q_Key not the GSI\'s: dropped',
      {'rx_drop_qkey': 1}, wire=[])
def gsi_qkey(t):
    t.tx(UD_SEND_ONLY, 1, bytes(256), ext=roce.deth(0x1234, 0x4567))
    return t.look(None)


# --- UC (IBTA 9.8: no acknowledgment; a broken message is dropped whole) ---
G = 'UC'
UC_SEND_FIRST, UC_SEND_LAST, UC_SEND_ONLY, UC_WRITE_ONLY = 0x20, 0x22, 0x24, 0x2a
UCQ = {'wire': [], 'state': 'RTS'}


def uc_case(ident, desc, act, sroce=None, recvs=1, **want):
    def fn(t):
        q = t.uc(recvs)
        extra = act(t, q) or {}
        return t.look(q, **extra)
    case(ident, G, desc, sroce, **(UCQ | want))(fn)


uc_case('V01', 'a UC SEND: received, nothing answered',
        lambda t, q: t.tx(UC_SEND_ONLY, q.qp_num, X16, ackreq=True), wcs=['0:OK'])
uc_case('V02', 'a UC SEND_FIRST, a lost packet, then SEND_LAST: the message dropped, the '
        'next SEND lands in the same receive WR',
        lambda t, q: (t.tx(UC_SEND_FIRST, q.qp_num, b'f' * MTU),
                      t.tx(UC_SEND_LAST, q.qp_num, X16, psn=2),
                      t.tx(UC_SEND_ONLY, q.qp_num, X16, psn=3)) and None,
        {'rx_drop_uc_msg': 1}, wcs=['0:OK'])
uc_case('V03', 'a UC SEND with no receive posted: dropped, no RNR NAK',
        lambda t, q: t.tx(UC_SEND_ONLY, q.qp_num, X16, ackreq=True),
        {'rx_drop_uc_msg': 1}, recvs=0, wcs=[])
uc_case('V04', 'a UC WRITE with an R_Key nobody has: dropped, no NAK, the QP in RTS',
        lambda t, q: write(t, q, t.mr.buf, t.mr.rkey ^ 0x5a5a00, 16, op=UC_WRITE_ONLY),
        {'rx_drop_uc_msg': 1}, recvs=0, wcs=[], mem='untouched')
uc_case('V05', 'an RC SEND to a UC QP: dropped', lambda t, q: send(t, q),
        {'rx_drop_opcode': 1}, wcs=[])


# --- resources ---------------------------------------------------------------
G = 'resources'
simple('E01', G, 'a SEND with no receive posted: RNR NAK, the QP waits on',
       lambda t, q: send(t, q), {'tx_rnr_nak': 1}, qp=NOREV, **DROP | {'wire': ['RNR']})


def srq_rnr(t):
    srq = t.keep(SRQ(t.pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1))))
    q = t.rc(recvs=0, srq=srq)
    send(t, q)
    return t.look(q)


case('E02', G, 'a SEND to a QP on an empty SRQ: RNR NAK', {'tx_rnr_nak': 1},
     **DROP | {'wire': ['RNR']})(srq_rnr)


def cq_overflow(t):
    q = t.rc(recvs=8, cqe=1)
    for psn in range(8):
        send(t, q, psn=psn)
    got = t.look(q, n=0)
    w = got.pop('wire')
    got['answers'] = 'ACKs, then ' + w[-1] if w and w.count('ACK') == len(w) - 1 else w
    got.pop('wcs')
    return got


case('E03', G, 'SENDs into a receive CQ of one entry, never polled: ACKs, then a NAK '
     'remote operational error, the QP in ERR', {'tx_nak_error': 1}, state='ERR',
     answers='ACKs, then NAK-OP')(cq_overflow)


# --- lifecycle ---------------------------------------------------------------
G = 'lifecycle'


def err_then_rts(t):
    q = t.rc(recvs=0)
    t.tx(SEND_MIDDLE, q.qp_num, b'm' * MTU, ackreq=True)
    t.wire(0.3)
    errno = t.errno(lambda: modify(q, RTS, sq_psn=1000))
    got = t.look(q)
    got['errno'] = errno
    return got


case('C01', G, 'a QP the packet path put in ERR, moved to RTS: EINVAL, it stays in ERR',
     wire=[], state='ERR', wcs=[], errno=22)(err_then_rts)


def send_to_err(t, q):
    t.tx(SEND_MIDDLE, q.qp_num, b'm' * MTU, ackreq=True)
    t.wire(0.3)
    send(t, q, psn=1)


simple('C02', G, 'a SEND to a QP in ERR: dropped', send_to_err,
       {'rx_drop_qp_state': 1, 'tx_nak_error': 1}, qp=NOREV, wire=[], state='ERR', wcs=[])


@case('C03', G, 'a SEND to a QP just destroyed: dropped', {'rx_drop_no_qp': 1}, wire=[])
def to_destroyed(t):
    q = t.rc()
    qpn = q.qp_num
    q.close()
    t.tx(SEND_ONLY, qpn, X16, ackreq=True)
    return t.look(None)


def reset_and_reuse(t):
    q = t.rc(recvs=0)
    t.tx(SEND_MIDDLE, q.qp_num, b'm' * MTU, ackreq=True)
    t.wire(0.3)
    modify(q, e.IBV_QPS_RESET)
    q.cq.close()
    q2 = t.rc()
    send(t, q2)
    return t.look(q2)


case('C04', G, 'ERR, then RESET, then a new QP: the new QP receives', wire=['ACK'],
     state='RTR', wcs=['0:OK'])(reset_and_reuse)


@case('C05', G, "200 SENDs racing the QP's destroy: RNR NAKs, then silence",
      answers='RNR NAKs only')
def race_destroy(t):
    q = t.rc(recvs=0)
    data = roce.packet('2001:db8::2', '2001:db8::1', 49152, SEND_ONLY, q.qp_num, X16)
    for i in range(200):
        t.sock['peer6'].sendto(data, ('2001:db8::1', roce.ROCE_PORT))
        if i == 100:
            q.close()
    time.sleep(0.5)
    w = t.look(None)['wire']
    return {'answers': 'RNR NAKs only' if w and set(w) == {'RNR'} else w}


