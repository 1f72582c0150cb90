#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one", sroce on PARENT whose veth peer is PEER):
the device's counters as users read them. UD datagrams in loopback give
exact figures: each moves tx and rx by one packet and by its bytes, BTH
to ICRC. The port's sysfs counters/ (the Performance Management Agent)
report the same counters in IBTA's units; query_port's Q_Key violation
counter follows rx_drop_qkey; a carrier loss counts link_downed. The
capability flags claim what sroce does. Prints TAP.

Usage: counters.py DEV GID_INDEX PEER"""
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
from rdmatest import poll, ud_qp

DEV, GIDX, PEER = sys.argv[1], int(sys.argv[2]), sys.argv[3]
QKEY = 0x4321
GRH = 40
BTH, DETH, ICRC = 12, 8, 4
SYSFS = '/sys/class/infiniband/%s/ports/1/counters/' % DEV
tap = rdmatest.Tap()

ctx = Context(name=DEV)


def port_state_becomes(want, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        if ctx.query_port(1).state == want:
            return True
        time.sleep(0.1)
    return False


tap(port_state_becomes(e.IBV_PORT_ACTIVE), 'the port is ACTIVE')
flags = ctx.query_device().device_cap_flags
for name in ('RC_RNR_NAK_GEN', 'PORT_ACTIVE_EVENT', 'BAD_PKEY_CNTR',
             'BAD_QKEY_CNTR'):
    tap(flags & getattr(e, 'IBV_DEVICE_' + name),
        'query_device claims %s' % name, 'flags %#x' % flags)

gid = ctx.query_gid(1, GIDX)
pd = PD(ctx)
mr = MR(pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
ah = AH(pd, attr=AHAttr(port_num=1, is_global=1,
                        gr=GlobalRoute(dgid=gid, sgid_index=GIDX, hop_limit=64)))


(a, acq), (b, bcq) = ud_qp(ctx, pd, QKEY), ud_qp(ctx, pd, QKEY)


def send(n, qkey=QKEY):
    b.post_recv(RecvWR(wr_id=2, num_sge=1, sg=[SGE(mr.buf + 4096, 4096, mr.lkey)]))
    wr = SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(mr.buf, n, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_ud(ah, b.qp_num, qkey)
    a.post_send(wr)
    return [w.status for w in poll(acq, 1)]


def sysfs(name):
    with open(SYSFS + name) as f:
        return int(f.read())


def delta(before, after, name):
    return after[name] - before[name]


# 1. Exact bytes: a datagram of n bytes is BTH, DETH, n, its pad, ICRC.
for n in (300, 301, 1):
    size = BTH + DETH + n + (-n % 4) + ICRC
    before = rdmatest.counters(DEV)
    ok = send(n) == [e.IBV_WC_SUCCESS] and len(poll(bcq, 1)) == 1
    after = rdmatest.counters(DEV)
    got = {k: delta(before, after, k)
           for k in ('tx_packets', 'tx_bytes', 'rx_packets', 'rx_bytes')}
    tap(ok and got == {'tx_packets': 1, 'tx_bytes': size,
                       'rx_packets': 1, 'rx_bytes': size},
        '%d-byte datagram: tx and rx +1 packet, +%d bytes' % (n, size),
        'moved %s' % got)

# 2. The PMA's view (sysfs counters/): the same counters in IBTA units.
c = rdmatest.counters(DEV)
pma = {
    'port_xmit_data': c['tx_bytes'] // 4,
    'port_rcv_data': c['rx_bytes'] // 4,
    'port_xmit_packets': c['tx_packets'],
    'port_rcv_packets': c['rx_packets'],
    'port_xmit_discards': min(c['tx_drop'], 0xffff),
    'port_rcv_errors': min(c['rx_drop_short'] + c['rx_drop_header'] +
                           c['rx_drop_icrc'], 0xffff),
    'port_rcv_constraint_errors': min(c['rx_drop_pkey'], 0xff),
    'link_downed': min(c['link_downed'], 0xff),
    'symbol_error': 0,
}
try:
    seen = {k: sysfs(k) for k in pma}
except OSError as err:
    seen = str(err)
tap(seen == pma, 'sysfs counters/ report the device counters in IBTA units',
    'sysfs %s, expected %s' % (seen, pma))
before = sysfs('port_xmit_packets')
send(64)
poll(bcq, 1)
tap(sysfs('port_xmit_packets') == before + 1,
    'sysfs port_xmit_packets follows a datagram sent (64-bit counter)')

# 3. query_port's Q_Key violations: rx_drop_qkey, 16 bits.
before = rdmatest.counters(DEV)['rx_drop_qkey']
viol = ctx.query_port(1).qkey_viol_cntr
send(64, qkey=QKEY + 1)
tap(not poll(bcq, 1, timeout=1), 'wrong Q_Key: nothing received')
got = (rdmatest.counters(DEV)['rx_drop_qkey'] - before,
       ctx.query_port(1).qkey_viol_cntr - viol)
tap(got == (1, 1), 'wrong Q_Key: rx_drop_qkey and qkey_viol_cntr +1 each',
    'moved %s' % (got,))
# (The receive WQE left posted goes with the QP.)

# 4. A carrier loss: the port goes down once, link_downed +1 (both views).
before = (rdmatest.counters(DEV)['link_downed'], sysfs('link_downed'))
subprocess.run(['ip', 'link', 'set', PEER, 'down'], check=True)
down = port_state_becomes(e.IBV_PORT_DOWN)
subprocess.run(['ip', 'link', 'set', PEER, 'up'], check=True)
up = port_state_becomes(e.IBV_PORT_ACTIVE)
after = (rdmatest.counters(DEV)['link_downed'], sysfs('link_downed'))
tap(down and up, 'carrier off then on: the port goes DOWN, then ACTIVE')
tap(after == (before[0] + 1, before[1] + 1),
    'carrier loss: link_downed +1 in rdma statistic and sysfs',
    'before %s, after %s' % (before, after))
sys.exit(tap.done())
