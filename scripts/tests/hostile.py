#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): what a hostile peer, an off-path sender or
a local QP must not do to an RC QP, each case on a fresh QP so that one
error hides nothing. The datagrams come from a peer network namespace:
from the QPs' peer address, or from a second address there that is not
the peer's. Prints TAP.

Usage: hostile.py DEV NETNS PEER_ADDR OFFPATH_ADDR OUR_ADDR"""
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import GID
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
import roce
from rdmatest import REMOTE, new_qp, poll, rc_connect, state

DEV, NETNS, PEER, OFFPATH, OURS = sys.argv[1:6]
SPORT, PEER_QPN, MTU = 49152, 0x123, 1024
tap = rdmatest.Tap()
peer = roce.peer_socket(NETNS, PEER, SPORT)
offpath = roce.peer_socket(NETNS, OFFPATH, SPORT)


def counters():
    return rdmatest.counters(DEV)


def send(sock, src, *args, **kw):
    """A datagram from @sock (bound to @src), and time for it to land."""
    sock.sendto(roce.packet(src, OURS, SPORT, *args, **kw), (OURS, roce.ROCE_PORT))
    time.sleep(0.3)


def moved(before, *names):
    """How far each counter named moved (a counter the driver lacks: 0)."""
    after = counters()
    return {n: after.get(n, 0) - before.get(n, 0) for n in names}


ctx = Context(name=DEV)
pd = PD(ctx)
gidx = rdmatest.gid_index_or_exit(ctx, roce.gid_text(OURS), tap)
mr = MR(pd, 4 * MTU, REMOTE)


def rc_qp(rts=True, recvs=0, cqe=32):
    """An RC QP whose peer is QP PEER_QPN at PEER, expecting PSN 0 and
    sending from PSN 1000, no ACK timer; with its own CQ of @cqe."""
    cq = CQ(ctx, cqe)
    qp = rc_connect(new_qp(pd, cq, max_send_wr=8, max_recv_wr=8),
                    GID(roce.gid_text(PEER)), gidx, PEER_QPN, rq_psn=0, sq_psn=1000,
                    upto=e.IBV_QPS_RTS if rts else e.IBV_QPS_RTR, rd_atomic=1,
                    min_rnr_timer=1, hop_limit=1, timeout=0)
    for i in range(recvs):
        qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(mr.buf, 4 * MTU, mr.lkey)]))
    return qp, cq


def post_send(qp):
    qp.post_send(SendWR(wr_id=77, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(mr.buf, 16, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED))
    time.sleep(0.3)


def statuses(wcs):
    return [(w.wr_id, w.status) for w in wcs]


# 1. A SEND at the expected PSN from an address that is not the peer's:
# dropped, nothing received; the same SEND from the peer is delivered.
qp, cq = rc_qp(recvs=1)
before = counters()
send(offpath, OFFPATH, roce.SEND_ONLY, qp.qp_num, b'x' * 16, ackreq=True)
got = poll(cq, 1, timeout=1)
tap(not got and moved(before, 'rx_drop_path') == {'rx_drop_path': 1} and
    state(qp) == e.IBV_QPS_RTS,
    'a SEND from an off-path address: dropped (rx_drop_path +1), nothing received '
    '(got %s, %s)' % (statuses(got), moved(before, 'rx_drop_path')))
send(peer, PEER, roce.SEND_ONLY, qp.qp_num, b'x' * 16, ackreq=True)
got = poll(cq, 1, timeout=2)
tap(statuses(got) == [(0, e.IBV_WC_SUCCESS)] and got[0].opcode == e.IBV_WC_RECV,
    'the same SEND from the peer is received (got %s)' % statuses(got))
qp.close()
cq.close()

# 2. A forged ACK of an outstanding SEND, from an off-path address: dropped,
# the SEND not completed; the peer's ACK completes it.
qp, cq = rc_qp()
post_send(qp)
before = counters()
send(offpath, OFFPATH, roce.ACK, qp.qp_num, ext=roce.aeth(roce.ACK_SYN), psn=1000)
got = poll(cq, 1, timeout=1)
tap(not got and moved(before, 'rx_drop_path') == {'rx_drop_path': 1},
    'an off-path ACK of an outstanding SEND: dropped (rx_drop_path +1), the SEND '
    'not completed (got %s)' % statuses(got))
send(peer, PEER, roce.ACK, qp.qp_num, ext=roce.aeth(roce.ACK_SYN), psn=1000)
got = poll(cq, 1, timeout=2)
tap(statuses(got) == [(77, e.IBV_WC_SUCCESS)],
    "the peer's ACK completes it (got %s)" % statuses(got))
qp.close()
cq.close()

# 3. Error and RNR NAKs of a PSN not outstanding: dropped (rx_bad_response),
# the QP stays in RTS and its SEND waits on.
for syn, what in ((roce.NAK_INV_REQ, 'an invalid request'),
                  (roce.NAK_REM_ACCESS, 'a remote access error'),
                  (roce.NAK_REM_OP, 'a remote operational error'),
                  (roce.RNR_NAK_SYN | 1, 'an RNR')):
    for outstanding, psn in ((False, 999), (True, 990)):
        qp, cq = rc_qp()
        if outstanding:
            post_send(qp)
        before = counters()
        send(peer, PEER, roce.ACK, qp.qp_num, ext=roce.aeth(syn), psn=psn)
        got = poll(cq, 1, timeout=1)
        d = moved(before, 'rx_bad_response', 'rx_nak_error', 'rx_rnr_nak')
        tap(not got and state(qp) == e.IBV_QPS_RTS and
            d == {'rx_bad_response': 1, 'rx_nak_error': 0, 'rx_rnr_nak': 0},
            '%s NAK of PSN %d, %s: dropped, the QP in RTS (got %s, state %d, %s)' %
            (what, psn, 'a SEND at 1000 outstanding' if outstanding else 'nothing sent',
             statuses(got), state(qp), d))
        qp.close()
        cq.close()

# 4. A SEND cut short: FIRST, then an ONLY at the next PSN (an invalid
# request). The QP goes to ERR and every one of its 8 receive WRs
# completes, the one the FIRST took included.
qp, cq = rc_qp(rts=False, recvs=8)
before = counters()
send(peer, PEER, roce.SEND_FIRST, qp.qp_num, b'f' * MTU, psn=0)
send(peer, PEER, roce.SEND_ONLY, qp.qp_num, b'o' * 16, psn=1, ackreq=True)
got = poll(cq, 8, timeout=3)
tap(state(qp) == e.IBV_QPS_ERR and [w.wr_id for w in got] == list(range(8)) and
    all(w.status == e.IBV_WC_WR_FLUSH_ERR for w in got) and
    moved(before, 'tx_nak_error') == {'tx_nak_error': 1},
    'SEND_FIRST then SEND_ONLY: NAK, the QP in ERR, all 8 receive WRs flushed in '
    'order (got %s)' % statuses(got))
qp.close()
cq.close()

# 5. A WRITE with immediate whose LAST finds no receive WQE: RNR NAK; the
# LAST sent again once one is posted lands, and completes it.
qp, cq = rc_qp(rts=False)
mr.write(b'\0' * 4 * MTU, 4 * MTU)
imm = b'\x12\x34\x56\x78'
first, last = b'A' * MTU, b'B' * MTU
before = counters()
send(peer, PEER, roce.WRITE_FIRST, qp.qp_num, first, psn=0,
     ext=roce.reth(mr.buf, mr.rkey, 2 * MTU))
send(peer, PEER, roce.WRITE_LAST_IMM, qp.qp_num, last, psn=1, ext=imm, ackreq=True)
d1 = moved(before, 'tx_rnr_nak', 'tx_nak_error')
qp.post_recv(RecvWR(wr_id=5, num_sge=1, sg=[SGE(mr.buf + 3 * MTU, 16, mr.lkey)]))
send(peer, PEER, roce.WRITE_LAST_IMM, qp.qp_num, last, psn=1, ext=imm, ackreq=True)
got = poll(cq, 1, timeout=2)
d2 = moved(before, 'tx_rnr_nak', 'tx_nak_error')
tap(d1 == {'tx_rnr_nak': 1, 'tx_nak_error': 0} and d2 == d1 and
    statuses(got) == [(5, e.IBV_WC_SUCCESS)] and got[0].byte_len == 2 * MTU and
    got[0].opcode == e.IBV_WC_RECV_RDMA_WITH_IMM and
    mr.read(2 * MTU, 0) == first + last and state(qp) == e.IBV_QPS_RTR,
    'WRITE_FIRST, WRITE_LAST_WITH_IMM into an empty RQ: RNR NAK; sent again after '
    'a post, it lands and completes (%s then %s, got %s)' % (d1, d2, statuses(got)))
qp.close()
cq.close()

# 6. A receive CQ that overflows: the SEND whose completion it cannot take
# is answered with a NAK, never an ACK, and the QP goes to ERR; what the
# CQ took before stays there.
qp, cq = rc_qp(rts=False, recvs=8, cqe=1)
before = counters()
sent = 0
while state(qp) != e.IBV_QPS_ERR and sent < 8:
    send(peer, PEER, roce.SEND_ONLY, qp.qp_num, b's' * 16, psn=sent, ackreq=True)
    sent += 1
d = moved(before, 'tx_nak_error', 'tx_packets')
tap(state(qp) == e.IBV_QPS_ERR and d['tx_nak_error'] == 1 and
    d['tx_packets'] == sent and 1 < sent < 8,
    'SENDs into a receive CQ of one entry, never polled: the one it cannot take is '
    'NAKed, the QP in ERR (%d SENDs, %s)' % (sent, d))
qp.close()
cq.close()

# 7. In this host every address is ours: a QP takes packets from the QP it
# is connected to only. C, pointed at B (which is connected to A), is
# dropped; A reaches B.
gid = ctx.query_gid(1, gidx)
(a, acq), (b, bcq) = rdmatest.rc_pair(ctx, pd, gid, gidx, timeout=10, retry_cnt=1)
b.post_recv(RecvWR(wr_id=9, num_sge=1, sg=[SGE(mr.buf, MTU, mr.lkey)]))
ccq = CQ(ctx, 8)
c = rc_connect(new_qp(pd, ccq, max_send_wr=2, max_recv_wr=2), gid, gidx, b.qp_num,
               rd_atomic=1, timeout=10, retry_cnt=1, rnr_retry=1)
before = counters()
c.post_send(SendWR(wr_id=3, opcode=e.IBV_WR_SEND, num_sge=1,
                   sg=[SGE(mr.buf, 16, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED))
cgot = poll(ccq, 1, timeout=5)
bgot = poll(bcq, 1, timeout=1)
d = moved(before, 'rx_drop_path')
tap(not bgot and d['rx_drop_path'] >= 1 and
    statuses(cgot) == [(3, e.IBV_WC_RETRY_EXC_ERR)],
    "in this host, a QP not B's peer sends to B: dropped (%s), B receives nothing, "
    "the sender's retries run out (got %s)" % (d, statuses(cgot)))
a.post_send(SendWR(wr_id=4, opcode=e.IBV_WR_SEND, num_sge=1,
                   sg=[SGE(mr.buf, 16, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED))
agot, bgot = poll(acq, 1, timeout=5), poll(bcq, 1, timeout=5)
tap(statuses(agot) == [(4, e.IBV_WC_SUCCESS)] and statuses(bgot) == [(9, e.IBV_WC_SUCCESS)],
    "B's own peer A reaches it (got %s, %s)" % (statuses(agot), statuses(bgot)))
for o in (c, ccq, a, b, acq, bcq):
    o.close()

# 8. Resource dumps racing destroys: QPs and CQs made and destroyed while
# `rdma res show -dd` reads them in a loop. The kernel log check catches
# what this cannot see.
# Each dump that ends prints a line, so that the case counts the dumps
# that ran beside the destroys and fails when none did.
dumper = subprocess.Popen(['sh', '-c', 'while :; do rdma res show qp -dd >/dev/null && '
                           'rdma res show cq -dd >/dev/null && echo dumped; done'],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
made = 0
end = time.monotonic() + 10
try:
    while time.monotonic() < end:
        qp, cq = rc_qp(recvs=2)
        if made % 8 == 0:
            post_send(qp)
        qp.close()
        cq.close()
        made += 1
finally:
    dumper.kill()
    dumps = dumper.communicate()[0].count('dumped')
tap(made > 0 and dumps > 0,
    '%d QPs and CQs made and destroyed beside %d pairs of resource dumps' % (made, dumps))

mr.close()
pd.close()
ctx.close()
sys.exit(tap.done())
