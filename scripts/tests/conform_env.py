# SPDX-License-Identifier: GPL-2.0
"""The hostile conformance suite's bench (conform.py): the addresses
hostile.sh gives the link, fresh QPs connected to a peer that exists only
as addresses in the peer namespace, crafted datagrams from there, and what
a spectator sees: the device's answers on the wire, the QP's state, its
completions. Cases register with @case."""
import select
import socket
import struct
import time

import pyverbs.enums as e
from pyverbs.addr import GID
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
import roce
from rdmatest import REMOTE, modify, rc_connect, uc_connect

NETNS = 'peer'
ADDR = {'ours6': '2001:db8::1', 'other6': '2001:db8::5', 'peer6': '2001:db8::2',
        'off6': '2001:db8::3', 'ours4': '192.0.2.1', 'other4': '192.0.2.5',
        'peer4': '192.0.2.2', 'off4': '192.0.2.3'}
SPORT, PEER_QPN, MTU, QKEY = 49152, 0x123, 1024, 0x11223344
# The MR's layout: the remote target area, the receive buffers, the
# send source.
DATA, RECV, SRC, MR_SIZE = 0, 64 << 10, 128 << 10, 192 << 10
RECV_LEN = 4096

STATES = ['RESET', 'INIT', 'RTR', 'RTS', 'SQD', 'SQE', 'ERR']
STATUS = ['OK', 'LOC_LEN', 'LOC_QP_OP', 'LOC_EEC_OP', 'LOC_PROT', 'FLUSH', 'MW_BIND',
          'BAD_RESP', 'LOC_ACCESS', 'REM_INV_REQ', 'REM_ACCESS', 'REM_OP', 'RETRY_EXC',
          'RNR_RETRY_EXC', 'LOC_RDD', 'REM_INV_RD_REQ', 'REM_ABORT', 'INV_EECN',
          'INV_EEC_STATE', 'FATAL', 'RESP_TIMEOUT', 'GENERAL']
NAKS = {0x60: 'NAK-SEQ', 0x61: 'NAK-INV', 0x62: 'NAK-ACC', 0x63: 'NAK-OP', 0x64: 'NAK-INVRD'}


class TQP(QP):
    """A QP that knows its CQ (.cq) and address family (.fam)."""


class Case:
    def __init__(self, ident, group, desc, want, sroce, fn, fatal):
        self.ident, self.group, self.desc = ident, group, desc
        self.want, self.sroce, self.fn, self.fatal = want, sroce or {}, fn, fatal


CASES = []


def case(ident, group, desc, sroce=None, fatal=None, **want):
    """Registers a case: @want, the outcome the specification asks for
    (wire: the device's answers in order; state: the QP's; wcs: its
    completions as 'wr_id:status'; any other key the case reports);
    @sroce: the counters it moves on sroce, and by how much; @fatal: the
    drivers (by name) whose kernel the case is known to crash, each with
    what was seen. It is not run against them: the table says why."""
    def reg(fn):
        CASES.append(Case(ident, group, desc, want, sroce, fn, fatal or {}))
        return fn
    return reg


def fmt(d):
    return ' '.join('%s=%s' % (k, '[%s]' % ','.join(map(str, v)) if isinstance(v, list)
                               else v) for k, v in sorted(d.items()))


def token(bth):
    """What a packet the device sent is, in a word."""
    op = bth[0]
    if op in (roce.ACK, roce.ATOMIC_ACK) and len(bth) >= 16:
        syn = bth[12]
        if syn >> 5 == 0:
            return 'ACK' if op == roce.ACK else 'AACK'
        if syn >> 5 == 1:
            return 'RNR'
        return NAKS.get(syn, 'NAK-%02x' % syn)
    if roce.READ_RESP_FIRST <= op <= roce.READ_RESP_ONLY:
        return 'RRESP'
    return 'REQ-%02x' % op


class Env:
    """One device, its PD and MRs, the peer namespace's sockets."""

    def __init__(self, dev, driver):
        self.dev, self.driver = dev, driver
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.mr = MR(self.pd, MR_SIZE, REMOTE)
        self.gidx = {f: rdmatest.gid_index(self.ctx, roce.gid_text(a))
                     for f, a in ((6, ADDR['ours6']), (4, '::ffff:' + ADDR['ours4']))}
        self.sock = {s: roce.peer_socket(NETNS, ADDR[s], SPORT) for s in ('peer6', 'off6')}
        self.raw4 = roce.in_netns(NETNS, lambda: socket.socket(
            socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW))
        self.seen = [roce.peer_socket(NETNS, None, 0, raw=True),
                     roce.in_netns(NETNS, lambda: socket.socket(
                         socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP))]
        for s in self.seen:
            s.setblocking(False)
        self.objs = []
        self.packets = []

    def close(self):
        for o in (self.mr, self.pd, self.ctx):
            o.close()

    def keep(self, *objs):
        self.objs += objs
        return objs[0] if len(objs) == 1 else objs

    def run(self, c):
        """Case @c: its outcome against its expectation."""
        if self.driver in c.fatal:
            why = 'not run: it crashes the kernel (%s)' % c.fatal[self.driver]
            return {'ident': c.ident, 'desc': c.desc, 'want': fmt(c.want), 'got': why,
                    'seen': why, 'ok': False}
        before = rdmatest.counters(self.dev) if self.driver == 'sroce' else {}
        self.mr.write(bytes(MR_SIZE), MR_SIZE, 0)
        self.drain()
        try:
            got = c.fn(self)
        except Exception as x:         # a case that breaks reports it
            got = {'error': repr(x)}
        for o in reversed(self.objs):
            try:
                o.close()
            except Exception as x:
                got['close'] = repr(x)
        self.objs = []
        ok = all(got.get(k) == v for k, v in c.want.items()) and 'error' not in got
        r = {'ident': c.ident, 'desc': c.desc, 'want': fmt(c.want), 'got': fmt(got),
             'seen': fmt(got)}
        if before:
            after = rdmatest.counters(self.dev)
            moved = {k: after.get(k, 0) - before.get(k, 0) for k in c.sroce}
            ok = ok and moved == c.sroce
            r['want'] += ' ' + fmt(c.sroce)
            r['got'] += ' ' + fmt(moved)
            if not ok:
                r['got'] += ' (moved: %s)' % fmt({
                    k: v - before.get(k, 0) for k, v in after.items()
                    if v != before.get(k, 0) and k.startswith(('rx_', 'tx_n', 'tx_r'))})
        r['ok'] = ok
        return r

    # --- QPs -------------------------------------------------------------

    def cq(self, cqe=32):
        return self.keep(CQ(self.ctx, cqe))

    def rc(self, fam=6, upto=e.IBV_QPS_RTR, recvs=1, rd_atomic=4, access=REMOTE,
           cqe=32, recv_len=RECV_LEN, srq=None, pd=None, depth=8, cq=None, timeout=0,
           retry_cnt=1):
        """An RC QP whose peer is QP PEER_QPN at the peer's address of
        family @fam, expecting PSN 0 and sending from PSN 1000, without an
        ACK timer unless @timeout (IBTA's code) says; @recvs receive WRs posted (wr_id 0, 1, ...); its sends
        and receives complete on @cq, or a CQ of its own of @cqe entries."""
        cq = cq or self.cq(cqe)
        attr = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq,
                          cap=QPCap(max_send_wr=depth, max_recv_wr=depth))
        qp = self.keep(TQP(pd or self.pd, attr))
        peer = ADDR['peer6'] if fam == 6 else '::ffff:' + ADDR['peer4']
        rc_connect(qp, GID(roce.gid_text(peer)), self.gidx[fam], PEER_QPN, rq_psn=0,
                   sq_psn=1000, access=access, upto=upto, rd_atomic=rd_atomic,
                   min_rnr_timer=1, hop_limit=1, timeout=timeout, retry_cnt=retry_cnt,
                   rnr_retry=1)
        for i in range(recvs):
            self.recv(qp, i, recv_len)
        qp.cq, qp.fam = cq, fam
        return qp

    def uc(self, recvs=1):
        """A UC QP in RTS, its peer as rc()'s, expecting PSN 0."""
        cq = self.cq()
        attr = QPInitAttr(qp_type=e.IBV_QPT_UC, scq=cq, rcq=cq,
                          cap=QPCap(max_send_wr=8, max_recv_wr=8))
        qp = self.keep(TQP(self.pd, attr))
        uc_connect(qp, GID(roce.gid_text(ADDR['peer6'])), self.gidx[6], PEER_QPN,
                   rq_psn=0, sq_psn=1000, hop_limit=1)
        for i in range(recvs):
            self.recv(qp, i)
        qp.cq, qp.fam = cq, 6
        return qp

    def ud(self, recvs=1, recv_len=RECV_LEN):
        cq = self.cq()
        qp = self.keep(TQP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                                              cap=QPCap(max_send_wr=4, max_recv_wr=4))))
        modify(qp, e.IBV_QPS_INIT, pkey_index=0, port_num=1, qkey=QKEY)
        modify(qp, e.IBV_QPS_RTR)
        modify(qp, e.IBV_QPS_RTS, sq_psn=0)
        for i in range(recvs):
            self.recv(qp, i, recv_len)
        qp.cq, qp.fam = cq, 6
        return qp

    def recv(self, qp, wr_id, length=RECV_LEN, srq=None):
        wr = RecvWR(wr_id=wr_id, num_sge=1,
                    sg=[SGE(self.mr.buf + RECV + wr_id * RECV_LEN, length, self.mr.lkey)])
        (srq or qp).post_recv(wr)

    def post(self, qp, opcode=e.IBV_WR_SEND, wr_id=77, length=16, **rdma):
        """A signalled WR of @opcode from the send source; @rdma: raddr
        and rkey for RDMA and atomics."""
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1,
                    sg=[SGE(self.mr.buf + SRC, length, self.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        if opcode in (e.IBV_WR_RDMA_READ, e.IBV_WR_RDMA_WRITE):
            wr.set_wr_rdma(rdma['rkey'], rdma['raddr'])
        elif opcode == e.IBV_WR_ATOMIC_FETCH_AND_ADD:
            wr.set_wr_atomic(rdma['rkey'], rdma['raddr'], 1, 0)
        qp.post_send(wr)

    # --- the wire ----------------------------------------------------------

    def tx(self, opcode, qpn, payload=b'', src='peer', fam=6, dst=None, wait=0.05, **kw):
        """A crafted datagram to QP @qpn from @src ('peer' or 'off') over
        IPv@fam, to our address (or @dst, a key of ADDR); roce.packet's
        keywords."""
        s = ADDR['%s%d' % (src, fam)]
        d = ADDR[dst or 'ours%d' % fam]
        data = roce.packet(s, d, SPORT, opcode, qpn, payload, **kw)
        if fam == 6:
            self.sock[src + '6'].sendto(data, (d, roce.ROCE_PORT))
        else:
            self.raw4.sendto(roce.ip4_datagram(s, d, SPORT, data), (d, 0))
        time.sleep(wait)

    def drain(self):
        for s in self.seen:
            try:
                while s.recv(4096):
                    pass
            except BlockingIOError:
                pass

    def wire(self, quiet=0.4, limit=5.0):
        """The device's packets to the peer namespace, until @quiet
        seconds pass without one (at most @limit): their tokens. The
        packets themselves (from the BTH on) stay in self.packets."""
        got = []
        end = time.monotonic() + limit
        last = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= end or now - last >= quiet:
                break
            ready, _, _ = select.select(self.seen, [], [], min(end, last + quiet) - now)
            for s in ready:
                d = s.recv(65536)
                if s is self.seen[1]:
                    d = d[(d[0] & 15) * 4:]
                if len(d) > 20 and struct.unpack('>H', d[2:4])[0] == roce.ROCE_PORT:
                    got.append(d[8:])
                    last = time.monotonic()
        self.packets = got
        return [token(p) for p in got]

    def look(self, qp, quiet=0.4, n=16, **extra):
        """The outcome: the answers on the wire, the QP's state and its
        completions (and @extra, the case's own findings)."""
        out = {'wire': self.wire(quiet)}
        if qp is not None:
            wcs = rdmatest.poll(qp.cq, n, timeout=0.2)
            out['wcs'] = ['%d:%s' % (w.wr_id, STATUS[w.status]) for w in wcs]
            out['state'] = STATES[qp.query(e.IBV_QP_STATE)[0].qp_state]
            self.wcs = wcs
        out.update(extra)
        return out

    def data(self, off, n):
        return self.mr.read(n, off)

    def errno(self, fn):
        """The errno a verb fails with, or 0."""
        try:
            fn()
        except PyverbsRDMAError as x:
            return x.error_code
        return 0
