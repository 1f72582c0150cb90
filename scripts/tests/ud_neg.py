#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): UD datagrams in loopback on one device,
the good one and those that must be dropped. For each: what the receiver
completes (or that it completes nothing), the drop counter that moves,
and that both QPs stay in RTS. Prints TAP.

Usage: ud_neg.py DEV GID_INDEX"""
import sys

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QPAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import modify, poll, state, ud_qp

DEV, GIDX = sys.argv[1], int(sys.argv[2])
QKEY = 0x1234
GRH = 40
SIZE = 8192
tap = rdmatest.Tap()

ctx = Context(name=DEV)
gid = ctx.query_gid(1, GIDX)
mtu = 128 << ctx.query_port(1).active_mtu
pd = PD(ctx)
mr = MR(pd, 4 * SIZE, e.IBV_ACCESS_LOCAL_WRITE)
ah = AH(pd, attr=AHAttr(port_num=1, is_global=1,
                        gr=GlobalRoute(dgid=gid, sgid_index=GIDX, hop_limit=64)))


(a, acq), (b, bcq) = ud_qp(ctx, pd, QKEY), ud_qp(ctx, pd, QKEY)
RXBUF = mr.buf + 2 * SIZE                  # b receives here


def fill(n, seed):
    data = bytes((seed + i) % 251 for i in range(n))
    mr.write(data, n, 0)
    return data


def send(n, qkey=QKEY, wr_id=1):
    wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(mr.buf, n, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_ud(ah, b.qp_num, qkey)
    a.post_send(wr)
    return [(w.wr_id, w.status) for w in poll(acq, 1)]


def recv(wr_id, room):
    b.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[SGE(RXBUF, room, mr.lkey)]))


def moved(before, name):
    return rdmatest.counters(DEV)[name] - before[name]


def both_rts(desc):
    tap(state(a) == e.IBV_QPS_RTS and state(b) == e.IBV_QPS_RTS,
        '%s: both QPs still RTS' % desc)


# 1. A good datagram: GRH area, then the payload, the sender's QPN.
data = fill(300, 1)
recv(10, GRH + 512)
tap(send(300) == [(1, e.IBV_WC_SUCCESS)], 'good datagram: the send completes')
wcs = poll(bcq, 1)
tap(len(wcs) == 1 and wcs[0].wr_id == 10 and wcs[0].status == e.IBV_WC_SUCCESS and
    wcs[0].byte_len == GRH + 300 and wcs[0].src_qp == a.qp_num and
    wcs[0].wc_flags & e.IBV_WC_GRH,
    'good datagram: received, byte_len = 40 + 300, src_qp and GRH flag',
    'got %s' % [(w.wr_id, w.status, w.byte_len, w.src_qp, w.wc_flags) for w in wcs])
got = mr.read(GRH + 300, 2 * SIZE)
tap(got[GRH:] == data, 'good datagram: payload intact behind the GRH area')
# An IPv4 sender: its IP header in the last 20 bytes of the 40.
tap(got[:20] == bytes(20) and got[20] == 0x45 and got[20 + 9] == 17,
    'good datagram: IPv4 header (version 4, UDP) at byte 20 of the GRH area',
    'GRH area %s' % got[:GRH].hex())

# 2. A wrong Q_Key: dropped and counted, the WQE stays for the next one.
recv(11, GRH + 512)
before = rdmatest.counters(DEV)
tap(send(64, qkey=QKEY + 1) == [(1, e.IBV_WC_SUCCESS)],
    'wrong Q_Key: the send completes (UD is unacknowledged)')
tap(not poll(bcq, 1, timeout=1), 'wrong Q_Key: nothing received')
tap(moved(before, 'rx_drop_qkey') == 1, 'wrong Q_Key: rx_drop_qkey +1')
both_rts('wrong Q_Key')

# 3. A controlled Q_Key in the WR means the sender QP's own (IBTA 10.2.5).
tap(send(64, qkey=0x80000000) == [(1, e.IBV_WC_SUCCESS)],
    'Q_Key 0x80000000 in the WR: the send completes')
wcs = poll(bcq, 1)
tap([(w.wr_id, w.byte_len) for w in wcs] == [(11, GRH + 64)],
    "Q_Key 0x80000000 in the WR: sent with the QP's Q_Key, received",
    'got %s' % [(w.wr_id, w.byte_len) for w in wcs])

# 4. Users may not give a QP a controlled Q_Key.
qa = QPAttr()
qa.qkey = 0x80000001
try:
    b.modify(qa, e.IBV_QP_QKEY)
    tap(False, 'modify_qp to a controlled Q_Key from user space fails')
except PyverbsRDMAError as err:
    tap(err.error_code == 1, 'modify_qp to a controlled Q_Key from user space: EPERM',
        'errno %d' % err.error_code)

# 5. Larger than the receive WQE: dropped, counted, the WQE stays posted.
recv(12, GRH + 64)
before = rdmatest.counters(DEV)
tap(send(65) == [(1, e.IBV_WC_SUCCESS)], 'larger than the receive WQE: the send completes')
tap(not poll(bcq, 1, timeout=1), 'larger than the receive WQE: nothing received')
tap(moved(before, 'rx_drop_length') == 1, 'larger than the receive WQE: rx_drop_length +1')
data = fill(64, 7)
send(64)
wcs = poll(bcq, 1)
tap([(w.wr_id, w.byte_len) for w in wcs] == [(12, GRH + 64)] and
    mr.read(64, 2 * SIZE + GRH) == data,
    'larger than the receive WQE: the WQE takes the next datagram that fits',
    'got %s' % [(w.wr_id, w.byte_len) for w in wcs])
both_rts('larger than the receive WQE')

# 6. Larger than the port MTU: the send completes, nothing goes out
#    (IBTA C10-93.1.1), counted as tx_drop.
recv(13, 2 * SIZE)
before = rdmatest.counters(DEV)
tap(send(mtu + 1) == [(1, e.IBV_WC_SUCCESS)],
    'larger than the MTU (%d + 1): the send completes without error' % mtu)
tap(not poll(bcq, 1, timeout=1), 'larger than the MTU: nothing received')
tap(moved(before, 'tx_drop') == 1 and moved(before, 'tx_packets') == 0,
    'larger than the MTU: no packet sent, tx_drop +1')
# Exactly the MTU goes, into the WQE still posted.
send(mtu)
wcs = poll(bcq, 1)
tap([(w.wr_id, w.byte_len) for w in wcs] == [(13, GRH + mtu)],
    'exactly the MTU: received', 'got %s' % [(w.wr_id, w.byte_len) for w in wcs])

# 7. No receive WQE posted: dropped and counted, no RNR for UD.
before = rdmatest.counters(DEV)
tap(send(32) == [(1, e.IBV_WC_SUCCESS)], 'no receive WQE: the send completes')
tap(moved(before, 'rx_drop_no_recv') == 1 and moved(before, 'tx_rnr_nak') == 0,
    'no receive WQE: rx_drop_no_recv +1, no RNR NAK')
both_rts('no receive WQE')

# 8. An opcode UD does not have: refused at post, or failed with the QP
#    in SQE (the receive side goes on); a modify to RTS recovers it.
wr = SendWR(wr_id=5, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
            sg=[SGE(mr.buf, 8, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
wr.set_wr_ud(ah, b.qp_num, QKEY)
try:
    a.post_send(wr)
    wcs = poll(acq, 1)
    tap([(w.wr_id, w.status) for w in wcs] == [(5, e.IBV_WC_LOC_QP_OP_ERR)] and
        state(a) == e.IBV_QPS_SQE,
        'RDMA WRITE on UD: completes LOC_QP_OP_ERR, QP in SQE',
        'got %s, state %d' % ([(w.wr_id, w.status) for w in wcs], state(a)))
    modify(a, e.IBV_QPS_RTS, cur_qp_state=e.IBV_QPS_SQE)
except PyverbsRDMAError as err:
    tap(err.error_code == 22, 'RDMA WRITE on UD: refused at post (EINVAL)',
        'errno %d' % err.error_code)
recv(14, GRH + 64)
tap(send(16) == [(1, e.IBV_WC_SUCCESS)] and
    [w.wr_id for w in poll(bcq, 1)] == [14],
    'after the bad opcode: a datagram goes through')

# 9. The multicast QPN to a unicast address: dropped, counted.
recv(15, GRH + 64)
before = rdmatest.counters(DEV)
wr = SendWR(wr_id=6, opcode=e.IBV_WR_SEND, num_sge=1,
            sg=[SGE(mr.buf, 16, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
wr.set_wr_ud(ah, 0xffffff, QKEY)
a.post_send(wr)
tap([w.status for w in poll(acq, 1)] == [e.IBV_WC_SUCCESS],
    'multicast QPN to a unicast address: the send completes')
tap(not poll(bcq, 1, timeout=1) and moved(before, 'rx_drop_mcast') == 1,
    'multicast QPN to a unicast address: nothing received, rx_drop_mcast +1')
both_rts('multicast QPN to a unicast address')

sys.exit(tap.done())
