#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): the ingress checks of recv.c, one crafted
RoCEv2 datagram per reason, each expected to move exactly its counter; then
packets racing QP destroys. The datagrams come over IPv6 from a peer network
namespace (IPv6 has no IP ID, so the test can compute the ICRC the kernel
will see). Prints TAP.

Usage: ingress.py DEV NETNS SRC_ADDR DST_ADDR"""
import socket
import struct
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import GID
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, SendWR

import rdmatest
import roce
from rdmatest import REMOTE, modify, new_qp, rc_connect, state
from roce import (ACK, ACK_SYN, CMP_SWAP, FETCH_ADD, NAK_INV_REQ, NAK_REM_ACCESS,
                  NAK_SEQ_SYN, READ_REQUEST, RESERVED, ROCE_PORT, SEND_ONLY,
                  UD_SEND_ONLY, WRITE_ONLY)

DEV, NETNS, SRC, DST = sys.argv[1:5]
SPORT = 49152
tap = rdmatest.Tap()


def counters():
    """The packet counters (rx_*, tx_*), by name; not the byte counters,
    which move with every packet (counters.py checks them exactly)."""
    return {k: v for k, v in rdmatest.counters(DEV).items()
            if k.startswith(('rx_', 'tx_')) and not k.endswith('_bytes')}


def packet(*args, **kw):
    """A RoCEv2 datagram from SRC:SPORT to DST (roce.packet's arguments)."""
    return roce.packet(SRC, DST, SPORT, *args, **kw)


def wait_packets(want, timeout=10):
    for _ in range(timeout * 10):
        c = counters()
        if c['rx_packets'] >= want:
            return c
        time.sleep(0.1)
    return counters()


sock = roce.peer_socket(NETNS, SRC, SPORT)


def send(data):
    sock.sendto(data, (DST, ROCE_PORT))


ctx = Context(name=DEV)
pd = PD(ctx)
cq = CQ(ctx, 16)


# The QPs' answers (RNR NAKs) go to the peer, where no RDMA device listens.
our_gid = rdmatest.gid_index(ctx, roce.gid_text(DST))
if our_gid is None:
    tap(False, 'the GID of %s appears in the table' % DST)
    sys.exit(tap.done())


def rc_qp(upto, access=0):
    """A QP in INIT or RTR, its peer QP 0x123 at SRC (the peer namespace)."""
    return rc_connect(new_qp(pd, cq, max_send_wr=4, max_recv_wr=4),
                      GID(roce.gid_text(SRC)), our_gid, 0x123, rq_psn=0, access=access,
                      upto=upto, rd_atomic=1, min_rnr_timer=1, hop_limit=1)


rtr = rc_qp(e.IBV_QPS_RTR)
init = rc_qp(e.IBV_QPS_INIT)
nobody = (rtr.qp_num + 0x1000) & 0xffffff
while nobody in (0, 1, 0xffffff, rtr.qp_num, init.qp_num):
    nobody = (nobody + 0x1000) & 0xffffff

cases = [
    # Nothing is posted: the responder answers with an RNR NAK.
    ('a well-formed SEND to a QP in RTR reaches its responder', 'tx_rnr_nak',
     packet(SEND_ONLY, rtr.qp_num, b'x' * 16)),
    ('one bit of ICRC wrong', 'rx_drop_icrc',
     packet(SEND_ONLY, rtr.qp_num, b'x' * 16, bad_icrc=True)),
    ('transport version 1', 'rx_drop_header',
     packet(SEND_ONLY, rtr.qp_num, b'x' * 16, tver=1)),
    ('a reserved RC opcode', 'rx_drop_opcode', packet(RESERVED, rtr.qp_num)),
    ('a UD SEND to an RC QP', 'rx_drop_opcode',
     packet(UD_SEND_ONLY, rtr.qp_num, b'x' * 16, ext=struct.pack('>II', 0, 7))),
    ('PKey 0x1234', 'rx_drop_pkey', packet(SEND_ONLY, rtr.qp_num, b'x' * 16, pkey=0x1234)),
    ('a QP number nobody has', 'rx_drop_no_qp', packet(SEND_ONLY, nobody, b'x' * 16)),
    ('a QP still in INIT', 'rx_drop_qp_state', packet(SEND_ONLY, init.qp_num, b'x' * 16)),
    ('an RDMA WRITE without its RETH', 'rx_drop_short', packet(WRITE_ONLY, rtr.qp_num)),
    ('an ACK with a pad count', 'rx_drop_header',
     packet(ACK, rtr.qp_num, pad=2, ext=struct.pack('>I', 0))),
    ('eight bytes', 'rx_drop_short', b'\0' * 8),
]
for desc, counter, data in cases:
    before = counters()
    send(data)
    after = wait_packets(before['rx_packets'] + 1)
    if counter.startswith('tx_'):
        time.sleep(0.5)     # the answer is sent after the packet is counted
        after = counters()
    moved = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
    want = {'rx_packets': 1, counter: 1}
    if counter.startswith('tx_'):
        want['tx_packets'] = 1
    tap(moved == want, '%s: %s (counters moved: %s)' % (desc, counter, moved))

# Packets racing destroys: each QP gets a burst and is destroyed while it
# lands. Every packet must be counted once, as reaching a QP (which answers
# each with an RNR NAK: nothing is posted) or as finding none (or none
# receiving); the kernel log check catches the rest.
before = counters()
rounds, burst = 10, 200
for _ in range(rounds):
    qp = rc_qp(e.IBV_QPS_RTR)
    data = packet(SEND_ONLY, qp.qp_num, b'y' * 64)
    for _ in range(burst):
        send(data)
    qp.close()
after = wait_packets(before['rx_packets'] + rounds * burst, 30)
time.sleep(1)
after = counters()
got = {k: after[k] - before.get(k, 0) for k in ('rx_packets', 'tx_rnr_nak',
                                                   'rx_drop_no_qp', 'rx_drop_qp_state')}
tap(got['rx_packets'] == rounds * burst and
    got['tx_rnr_nak'] + got['rx_drop_no_qp'] + got['rx_drop_qp_state'] == rounds * burst,
    '%d packets racing %d QP destroys, each counted once (%s)' % (rounds * burst, rounds, got))

# Requests the responder must refuse with a NAK naming the error (IBTA
# 9.7.5.2), the QP then in ERR. User space cannot send them through the
# rxe provider (it checks atomic alignment itself), so they are crafted.
mr = MR(pd, 4096, REMOTE)


def atomic_eth(va, rkey):
    return struct.pack('>QIQQ', va, rkey, 1, 0)


nak_cases = [
    ('a compare-and-swap at a misaligned address', NAK_INV_REQ,
     lambda: packet(CMP_SWAP, qp.qp_num, ext=atomic_eth(mr.buf + 4, mr.rkey), ackreq=True)),
    ('a fetch-and-add at an address 8 past the MR', NAK_REM_ACCESS,
     lambda: packet(FETCH_ADD, qp.qp_num, ext=atomic_eth(mr.buf + 4096, mr.rkey), ackreq=True)),
    ('an RDMA READ of 2 GiB + 1 (over the IBTA maximum)', NAK_INV_REQ,
     lambda: packet(READ_REQUEST, qp.qp_num, ackreq=True,
                    ext=roce.reth(mr.buf, mr.rkey, (1 << 31) + 1))),
    ('an RDMA READ with an rkey of another key index', NAK_REM_ACCESS,
     lambda: packet(READ_REQUEST, qp.qp_num, ackreq=True,
                    ext=roce.reth(mr.buf, mr.rkey ^ 0x100, 8))),
]


def answer():
    """The next RoCEv2 packet (from its BTH) sent to the peer, or b''."""
    end = time.monotonic() + 5
    while time.monotonic() < end:
        try:
            d = answers.recv(512)
        except socket.timeout:
            break
        if len(d) > 8 and struct.unpack('>H', d[2:4])[0] == ROCE_PORT:
            return d[8:]
    return b''


# What the QPs answer from here on: the peer's sroce socket drops it (no
# device there); a raw socket sees it first.
answers = roce.peer_socket(NETNS, SRC, SPORT, raw=True)
for desc, want, build in nak_cases:
    qp = rc_qp(e.IBV_QPS_RTR, REMOTE)
    answers.setblocking(False)
    try:
        while answers.recv(256):
            pass
    except BlockingIOError:
        pass
    answers.settimeout(5)
    before = counters()
    send(build())
    ans = answer()
    # BTH (12 bytes), then the AETH's syndrome.
    got = ans[12] if len(ans) >= 16 and ans[0] == ACK else None
    after = counters()
    st = state(qp)
    tap(got == want and st == e.IBV_QPS_ERR and
        after['tx_nak_error'] - before['tx_nak_error'] == 1,
        '%s: NAK 0x%x, the QP in ERR, tx_nak_error +1 (got %s, state %d)' %
        (desc, want, None if got is None else hex(got), st))
    qp.close()

# Responses the requester must judge by PSN: an ACK naming a PSN it never
# sent is dropped (rx_bad_response) and completes nothing; a sequence error
# NAK of the SEND's PSN makes it send again, once: a copy of that NAK, or
# a NAK of a PSN already acknowledged, is dropped (rx_dup_response)
# without a rewind; the ACK of what it did send completes it. Nobody
# answers the SEND (its peer is QP 0x123 in the other namespace) and the
# ACK timer is off (timeout 0).
qp = rc_qp(e.IBV_QPS_RTR)
modify(qp, e.IBV_QPS_RTS, sq_psn=1000, timeout=0, retry_cnt=7, rnr_retry=7,
       max_rd_atomic=1)
qp.post_send(SendWR(wr_id=5, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(mr.buf, 16, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED))
time.sleep(0.5)


def aeth_packet(psn, syndrome):
    return packet(ACK, qp.qp_num, psn=psn, ext=roce.aeth(syndrome))


for desc, psn, syn, moved, want in (
        ('an ACK of PSN 1005, never sent', 1005, ACK_SYN,
         {'rx_bad_response': 1, 'tx_rewind': 0}, []),
        ('an ACK of PSN 2^23 + 999, never sent', (1 << 23) + 999, ACK_SYN,
         {'rx_bad_response': 1, 'tx_rewind': 0}, []),
        ('a sequence error NAK of PSN 1000', 1000, NAK_SEQ_SYN,
         {'rx_nak_seq': 1, 'tx_rewind': 1, 'tx_retransmit': 1}, []),
        ('the same NAK again', 1000, NAK_SEQ_SYN,
         {'rx_dup_response': 1, 'rx_nak_seq': 0, 'tx_rewind': 0}, []),
        ('a sequence error NAK of PSN 999, acknowledged already', 999, NAK_SEQ_SYN,
         {'rx_dup_response': 1, 'rx_nak_seq': 0, 'tx_rewind': 0}, []),
        ('an ACK of PSN 1000, the SEND', 1000, ACK_SYN,
         {'rx_packets': 1}, [(5, e.IBV_WC_SUCCESS)])):
    before = counters()
    send(aeth_packet(psn, syn))
    wait_packets(before['rx_packets'] + 1)
    time.sleep(0.2)
    after = counters()
    k, wcs = cq.poll(4)
    got = [(w.wr_id, w.status) for w in wcs[:k]]
    deltas = {c: after[c] - before[c] for c in moved}
    tap(got == want and deltas == moved,
        '%s: completes %s, counters %s (got %s, %s)' %
        (desc, want or 'nothing', moved, got, deltas))
qp.close()

rtr.close()
init.close()
mr.close()
cq.close()
pd.close()
ctx.close()
sys.exit(tap.done())
