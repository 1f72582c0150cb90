#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The verifying RC traffic program: patterned data through RDMA WRITE,
RDMA READ, SEND (with immediate) and atomics over several QPs, every byte
checked on the side it lands on, and the atomics' final values and returned
originals checked against the arithmetic. Prints TAP (the client the data
checks, the server what it saw); exits non-zero on any failure.

Usage:
  rc_verify.py server DEV GID_INDEX [--port P] [--qps N] [--timeout T]
                      [--mtu M] [--mw]
  rc_verify.py client DEV GID_INDEX HOST [--port P] [--qps N]
                      [--sizes 0,1,4096,...] [--iters N] [--faa N]
                      [--timeout T] [--mtu M] [--cut COMMAND [--held N]]
                      [--jam COMMAND [--held N]]

--timeout is the QPs' local ACK timeout (4.096 us << T, default 14).
--mtu is their path MTU in bytes (256 to 4096, default 1024; both ends
give the same).
With --mw the server's memory is reached through a type 1 memory window
bound over its whole MR (every remote right), not through the MR's rkey:
the client's WRITEs, READs and atomics all name the window's rkey.
With --cut the client instead streams 4 KiB WRITEs on QP 0, runs COMMAND
(which cuts the link) after two seconds, and checks how the stream ends:
RETRY_EXC_ERR, within 1.1 x (retry_cnt + 1) x the timeout of the last
WRITE acknowledged; the server's QP still RTS. --held N: the cut holds
the client's packets in its own host, and its driver holds back N
timeouts for that (sroce: SROCE_ACK_HOLD), so the stream fails N
timeouts later.
With --jam the client runs COMMAND (which holds what its host sends),
has the server READ 1 MiB from it over QP 0, so that the client's
answers fill what its host lets that QP queue, and then posts one WRITE
on QP 0 with nothing else outstanding. The WRITE cannot leave: it must
fail RETRY_EXC_ERR within 1.1 x (retry_cnt + 1 + N) x the timeout of its
post, not wait for ever without an error.

The two ends agree on QPs and memory over a TCP connection (HOST:P), which
also carries the client's requests to check the server's memory. Works in
loopback (HOST localhost, the same DEV) and between hosts, against any RC
implementation (the server or the client may be another driver)."""
import argparse
import json
import random
import socket
import struct
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import GID
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import REMOTE, new_qp, rc_connect, state

MAX_MSG = 1 << 20
# The control connection's socket priority: loss.sh keeps it out of netem.
CTL_PRIORITY = 6
tap = rdmatest.Tap()


def pattern(seed, size):
    return random.Random(seed).randbytes(size)


def read(mr, size, off):
    return mr.read(size, off) if size else b''


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return 'byte %d: 0x%02x, want 0x%02x' % (i, x, y)
    return 'length %d, want %d' % (len(a), len(b))


class Link:
    """One JSON object per line over TCP."""

    def __init__(self, sock):
        self.f = sock.makefile('rw')

    def send(self, obj):
        self.f.write(json.dumps(obj) + '\n')
        self.f.flush()

    def recv(self):
        line = self.f.readline()
        if not line:
            raise EOFError('peer closed the control connection')
        return json.loads(line)


def ctl_accept(port):
    """The control connection, server side: the first client on @port."""
    ls = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, CTL_PRIORITY)
    ls.bind(('::', port))
    ls.listen(1)
    sock, _ = ls.accept()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, CTL_PRIORITY)
    return Link(sock)


def ctl_connect(host, port):
    """The control connection, client side, once the server listens."""
    deadline = time.monotonic() + 60
    while True:  # the server may still be starting
        try:
            sock = socket.socket(socket.AF_INET6 if ':' in host else socket.AF_INET,
                                 socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, CTL_PRIORITY)
            sock.settimeout(120)
            sock.connect((host, port))
            return Link(sock)
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


MTUS = {256: e.IBV_MTU_256, 512: e.IBV_MTU_512, 1024: e.IBV_MTU_1024,
        2048: e.IBV_MTU_2048, 4096: e.IBV_MTU_4096}


class End:
    """This side's device, QPs and memory."""

    def __init__(self, dev, gid_index, nqp, timeout=14, mtu=1024, mw=False):
        self.timeout = timeout
        self.mtu = MTUS[mtu]
        self.ctx = Context(name=dev)
        self.gid_index = gid_index
        self.gid = str(self.ctx.query_gid(1, gid_index))
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 4 * 64 * nqp)
        # Per QP: a data area of MAX_MSG, then 8 bytes of atomic target.
        self.stride = MAX_MSG + 64
        self.mr = MR(self.pd, self.stride * nqp + 64,
                     REMOTE | (e.IBV_ACCESS_MW_BIND if mw else 0))
        self.qps = [new_qp(self.pd, self.cq, max_send_wr=64, max_recv_wr=64,
                           max_send_sge=2, max_recv_sge=2) for _ in range(nqp)]
        self.psns = [random.randrange(1 << 24) for _ in range(nqp)]

    def info(self):
        return {'gid': self.gid, 'qpns': [q.qp_num for q in self.qps],
                'psns': self.psns, 'rkey': self.mr.rkey, 'addr': self.mr.buf,
                'stride': self.stride}

    def connect(self, peer):
        for i, qp in enumerate(self.qps):
            rc_connect(qp, GID(peer['gid']), self.gid_index, peer['qpns'][i],
                       rq_psn=peer['psns'][i], sq_psn=self.psns[i],
                       mtu=self.mtu, rd_atomic=4, timeout=self.timeout)

    def window(self):
        """A type 1 window over the whole MR with every remote right,
        bound through QP 0; its rkey."""
        self.mw = MW(self.pd, e.IBV_MW_TYPE_1)
        info = MWBindInfo(self.mr, self.mr.buf, self.mr.length, REMOTE)
        self.qps[0].bind_mw(self.mw, MWBind(info, e.IBV_SEND_SIGNALED))
        wcs = self.poll(1)
        if not wcs or wcs[0].status != e.IBV_WC_SUCCESS:
            raise RuntimeError('bind of the window: %s' %
                               (wcs[0].status if wcs else 'no completion'))
        return self.mw.rkey

    def area(self, q):
        return self.mr.buf + q * self.stride

    def post_recv(self, q):
        self.qps[q].post_recv(RecvWR(wr_id=q, num_sge=1, sg=[
            SGE(self.area(q), MAX_MSG, self.mr.lkey)]))

    def poll(self, want, timeout=60):
        return rdmatest.poll(self.cq, want, timeout)


def server(a):
    end = End(a.dev, a.gid_index, a.qps, a.timeout, a.mtu, a.mw)
    link = ctl_accept(a.port)
    peer = link.recv()
    link.send(end.info())
    end.connect(peer)
    for q in range(a.qps):
        end.post_recv(q)
    rkey = end.window() if a.mw else end.mr.rkey
    tap(True, 'server: remote access through %s rkey 0x%x' %
        ('a memory window\'s' if a.mw else 'the MR\'s', rkey))
    link.send({'ready': True, 'rkey': rkey})
    while True:
        req = link.recv()
        op = req['op']
        if op == 'done':
            break
        if op == 'check':
            # The bytes a WRITE (or the client's pattern) left in an area.
            got = read(end.mr, req['len'], req['q'] * end.stride)
            want = pattern(req['seed'], req['len'])
            link.send({'ok': got == want,
                       'why': '' if got == want else first_diff(got, want)})
        elif op == 'fill':
            # A pattern for the client to READ.
            if req['len']:
                end.mr.write(pattern(req['seed'], req['len']), req['len'],
                             req['q'] * end.stride)
            link.send({'ok': True})
        elif op == 'recv':
            wcs = end.poll(1)
            why = ''
            if not wcs:
                why = 'no receive completion'
            else:
                wc = wcs[0]
                got = read(end.mr, req['len'], wc.wr_id * end.stride)
                want_imm = socket.htonl(req['imm']) if req['imm'] is not None else None
                if wc.status != e.IBV_WC_SUCCESS:
                    why = 'status %d' % wc.status
                elif wc.wr_id != req['q'] or wc.qp_num != end.qps[req['q']].qp_num:
                    why = 'wr_id %d qp 0x%x' % (wc.wr_id, wc.qp_num)
                elif wc.byte_len != req['len']:
                    why = 'byte_len %d, want %d' % (wc.byte_len, req['len'])
                elif want_imm is not None and (not wc.wc_flags & e.IBV_WC_WITH_IMM or
                                               wc.imm_data != want_imm):
                    why = 'imm 0x%x flags 0x%x' % (wc.imm_data, wc.wc_flags)
                elif want_imm is None and wc.wc_flags & e.IBV_WC_WITH_IMM:
                    why = 'unexpected immediate'
                elif wc.src_qp not in (0, peer['qpns'][req['q']]):
                    # Defined for UD only: rdma_rxe leaves 0 on RC.
                    why = 'src_qp 0x%x' % wc.src_qp
                elif got != pattern(req['seed'], req['len']):
                    why = first_diff(got, pattern(req['seed'], req['len']))
                end.post_recv(wc.wr_id)
            link.send({'ok': not why, 'why': why})
        elif op == 'read':
            # READ the client's area into ours, not waited for (--jam).
            wr = SendWR(wr_id=1 << 20, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                        sg=[SGE(end.area(req['q']), req['len'], end.mr.lkey)])
            wr.set_wr_rdma(peer['rkey'], peer['addr'] + req['q'] * peer['stride'])
            end.qps[req['q']].post_send(wr)
            link.send({'ok': True})
        elif op == 'state':
            link.send({'state': int(state(end.qps[req['q']]))})
        elif op == 'word':
            # The 8-byte atomic target of a QP: set it, or report it.
            off = req['q'] * end.stride + MAX_MSG
            if 'set' in req:
                end.mr.write(struct.pack('<Q', req['set']), 8, off)
            link.send({'value': struct.unpack('<Q', end.mr.read(8, off))[0]})
    tap(True, 'server: served every request of the client')


def client(a):
    end = End(a.dev, a.gid_index, a.qps, a.timeout, a.mtu)
    link = ctl_connect(a.host, a.port)
    link.send(end.info())
    peer = link.recv()
    end.connect(peer)
    ready = link.recv()
    assert ready['ready']
    # The server's rkey for its memory: its MR's or a window's (--mw).
    rkey, raddr, rstride = ready['rkey'], peer['addr'], peer['stride']
    lkey = end.mr.lkey
    if a.cut:
        cut(a, end, link, rkey, raddr)
        return
    if a.jam:
        jam(a, end, link, rkey, raddr)
        return

    def post(q, wr_id, opcode, size, **kw):
        # pyverbs wants an SGE even for zero bytes: one of length 0.
        sg = [SGE(end.area(q), size, lkey)]
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=sg,
                    send_flags=e.IBV_SEND_SIGNALED, **kw)
        return wr

    def run(q, wr, what):
        end.qps[q].post_send(wr)
        wcs = end.poll(1)
        if not wcs:
            return 'no send completion for %s' % what
        wc = wcs[0]
        if wc.status != e.IBV_WC_SUCCESS:
            return '%s completed with status %d' % (what, wc.status)
        return ''

    seed = random.randrange(1 << 30)
    for size in a.sizes:
        for it in range(a.iters):
            for q in range(a.qps):
                seed += 1
                where = 'QP %d, %d B, #%d' % (q, size, it)
                # WRITE: the client's pattern into the server's area.
                data = pattern(seed, size)
                if size:
                    end.mr.write(data, size, q * end.stride)
                wr = post(q, 1, e.IBV_WR_RDMA_WRITE, size)
                wr.set_wr_rdma(rkey, raddr + q * rstride)
                why = run(q, wr, 'WRITE')
                if not why:
                    link.send({'op': 'check', 'q': q, 'len': size, 'seed': seed})
                    why = link.recv()['why']
                tap(not why, 'WRITE %s lands intact' % where, why)
                # READ: a fresh server pattern into a zeroed local area.
                seed += 1
                link.send({'op': 'fill', 'q': q, 'len': size, 'seed': seed})
                link.recv()
                if size:
                    end.mr.write(bytes(size), size, q * end.stride)
                wr = post(q, 2, e.IBV_WR_RDMA_READ, size)
                wr.set_wr_rdma(rkey, raddr + q * rstride)
                why = run(q, wr, 'READ')
                if not why:
                    got = read(end.mr, size, q * end.stride)
                    if got != pattern(seed, size):
                        why = first_diff(got, pattern(seed, size))
                tap(not why, 'READ %s returns every byte' % where, why)
                # SEND, with immediate data every other time.
                seed += 1
                imm = seed & 0xffffffff if it % 2 else None
                if size:
                    end.mr.write(pattern(seed, size), size, q * end.stride)
                if imm is None:
                    wr = post(q, 3, e.IBV_WR_SEND, size)
                else:
                    wr = post(q, 3, e.IBV_WR_SEND_WITH_IMM, size,
                              imm_data=socket.htonl(imm))
                why = run(q, wr, 'SEND')
                if not why:
                    link.send({'op': 'recv', 'q': q, 'len': size, 'seed': seed,
                               'imm': imm})
                    why = link.recv()['why']
                tap(not why, 'SEND%s %s received intact' %
                    (' with immediate' if imm is not None else '', where), why)

    # FETCH_AND_ADD from every QP, all in flight together, on one word of
    # the server; then the word and the originals must tell one serial
    # order of the additions.
    link.send({'op': 'word', 'q': 0, 'set': 1 << 40})
    base = link.recv()['value']
    adds = {}
    origs = []
    for k in range(a.faa):
        for q in range(a.qps):
            wr_id = k * a.qps + q
            adds[wr_id] = q + 1 + (k << 20)
            wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                        num_sge=1, sg=[SGE(end.area(q) + MAX_MSG + 8 * (k % 4),
                                           8, lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_atomic(rkey, raddr + MAX_MSG, adds[wr_id], 0)
            end.qps[q].post_send(wr)
        wcs = end.poll(a.qps)
        bad = [wc for wc in wcs if wc.status != e.IBV_WC_SUCCESS or
               wc.opcode != e.IBV_WC_FETCH_ADD or wc.byte_len != 8]
        if len(wcs) != a.qps or bad:
            tap(False, 'FETCH_AND_ADD round %d completes' % k,
                '%d completions, bad: %s' % (len(wcs), [(w.status, w.opcode) for w in bad]))
            break
        for wc in wcs:
            q = wc.wr_id % a.qps
            origs.append((struct.unpack('<Q', end.mr.read(
                8, q * end.stride + MAX_MSG + 8 * (k % 4)))[0], adds[wc.wr_id]))
    link.send({'op': 'word', 'q': 0})
    final = link.recv()['value']
    want = base + sum(adds.values())
    tap(final == want, 'FETCH_AND_ADD x %d over %d QPs: final value exact' %
        (a.faa * a.qps, a.qps), 'final %d, want %d' % (final, want))
    chain, v = True, base
    for orig, add in sorted(origs):
        chain &= orig == v
        v = orig + add
    tap(chain and len(origs) == a.faa * a.qps,
        'FETCH_AND_ADD originals form one serial order', 'originals %s' % origs[:8])

    # COMPARE_AND_SWAP: a chain that succeeds, then one that must not swap.
    v, why = final, ''
    for k in range(16):
        q = k % a.qps
        wr = SendWR(wr_id=k, opcode=e.IBV_WR_ATOMIC_CMP_AND_SWP, num_sge=1,
                    sg=[SGE(end.area(q) + MAX_MSG, 8, lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        cmp, swap = (v, v * 3 + k) if k < 15 else (v + 1, 7)
        wr.set_wr_atomic(rkey, raddr + MAX_MSG, cmp, swap)
        why = run(q, wr, 'CMP_AND_SWP')
        if why:
            break
        orig = struct.unpack('<Q', end.mr.read(8, q * end.stride + MAX_MSG))[0]
        if orig != v:
            why = 'swap %d returned %d, want %d' % (k, orig, v)
            break
        if k < 15:
            v = swap
    if not why:
        link.send({'op': 'word', 'q': 0})
        got = link.recv()['value']
        if got != v:
            why = 'final %d, want %d (the failing compare swapped?)' % (got, v)
    tap(not why, 'COMPARE_AND_SWAP chain of 16, the last compare failing', why)
    link.send({'op': 'done'})


def cut(a, end, link, rkey, raddr):
    """Stream WRITEs, cut the link, time how the stream fails."""
    depth, size, retry_cnt = 16, 4096, 7
    wr = SendWR(wr_id=0, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(end.area(0), size, end.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, raddr)
    for _ in range(depth):
        end.qps[0].post_send(wr)
    start = last_ok = time.monotonic()
    cutter, acked, failed_wc, fail_t = None, 0, None, None
    while time.monotonic() - start < 120 and failed_wc is None:
        k, wcs = end.cq.poll(depth)
        now = time.monotonic()
        for wc in wcs[:k]:
            if wc.status == e.IBV_WC_SUCCESS:
                acked += 1
                last_ok = now
                end.qps[0].post_send(wr)
            elif failed_wc is None:
                failed_wc, fail_t = wc, now
        if cutter is None and now - start > 2:
            cutter = subprocess.Popen(['sh', '-c', a.cut])
    if cutter:
        cutter.wait()
    tap(acked > 0 and cutter is not None,
        'cut: %d WRITEs acknowledged before the cut' % acked)
    tap(failed_wc is not None and failed_wc.status == e.IBV_WC_RETRY_EXC_ERR,
        'cut: the stream fails RETRY_EXC_ERR',
        'status %s' % (failed_wc.status if failed_wc else 'none in 120 s'))
    unit = (retry_cnt + 1 + a.held) * 4.096e-6 * (1 << a.timeout)
    took = (fail_t - last_ok) if fail_t else 0
    # Not early either (0.9: the last ACK is seen here a little late).
    tap(fail_t is not None and 0.9 * unit <= took <= 1.1 * unit,
        'cut: %.0f ms after the last ACK, between %.0f and %.0f ms' %
        (took * 1e3, 0.9 * unit * 1e3, 1.1 * unit * 1e3))
    st = state(end.qps[0])
    tap(st == e.IBV_QPS_ERR, 'cut: the QP is in ERR', 'state %d' % st)
    link.send({'op': 'state', 'q': 0})
    st = link.recv()['state']
    tap(st == e.IBV_QPS_RTS, "cut: the peer's QP is still RTS", 'state %d' % st)
    link.send({'op': 'done'})


def jam(a, end, link, rkey, raddr):
    """A WRITE behind the QP's own answers, held in this host."""
    retry_cnt = 7
    subprocess.run(['sh', '-c', a.jam], check=True)
    link.send({'op': 'read', 'q': 0, 'len': MAX_MSG})
    link.recv()
    time.sleep(2)  # the answers leave until the QP's share is full
    wr = SendWR(wr_id=0, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(end.area(0), 4096, end.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, raddr)
    unit = (retry_cnt + 1 + a.held) * 4.096e-6 * (1 << a.timeout)
    start = time.monotonic()
    end.qps[0].post_send(wr)
    wcs = end.poll(1, timeout=3 * unit + 10)
    took = time.monotonic() - start
    tap(len(wcs) == 1 and wcs[0].status == e.IBV_WC_RETRY_EXC_ERR,
        'jam: the WRITE behind held answers fails RETRY_EXC_ERR',
        'status %s' % (wcs[0].status if wcs else 'none in %.0f s' % took))
    tap(len(wcs) == 1 and 0.9 * unit <= took <= 1.1 * unit,
        'jam: %.0f ms after its post, between %.0f and %.0f ms' %
        (took * 1e3, 0.9 * unit * 1e3, 1.1 * unit * 1e3))
    st = state(end.qps[0])
    tap(st == e.IBV_QPS_ERR, 'jam: the QP is in ERR', 'state %d' % st)
    link.send({'op': 'done'})


def ctl_parser(port):
    """The arguments of a server/client program: role, device, GID index,
    the server's host (client only) and the control port."""
    p = argparse.ArgumentParser()
    p.add_argument('role', choices=['server', 'client'])
    p.add_argument('dev')
    p.add_argument('gid_index', type=int)
    p.add_argument('host', nargs='?')
    p.add_argument('--port', type=int, default=port)
    return p


def run_role(a, tap_of, server_fn, client_fn):
    """Run the side @a.role names, any exception a failure on @tap_of;
    exit with its verdict."""
    try:
        if a.role == 'server':
            server_fn(a)
        else:
            client_fn(a)
    except Exception as ex:  # a verbs error is a failure, with its reason
        tap_of(False, '%s: %s' % (a.role, ex))
    sys.exit(tap_of.done())


def main():
    p = ctl_parser(19875)
    p.add_argument('--qps', type=int, default=2)
    p.add_argument('--sizes', default='0,1,63,1024,4097,65536,1048576')
    p.add_argument('--iters', type=int, default=1)
    p.add_argument('--faa', type=int, default=32)
    p.add_argument('--timeout', type=int, default=14)
    p.add_argument('--cut')
    p.add_argument('--held', type=int, default=0)
    p.add_argument('--jam')
    p.add_argument('--mtu', type=int, default=1024, choices=sorted(MTUS))
    p.add_argument('--mw', action='store_true')
    a = p.parse_args()
    a.sizes = [int(s) for s in a.sizes.split(',')]
    run_role(a, tap, server, client)


if __name__ == '__main__':
    main()
