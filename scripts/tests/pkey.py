#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): partitions. The P_Key table as the
administrator writes it (the device's sysfs file pkey_table) and as
libibverbs reads it back; the writes it refuses. Then, in loopback, RC
and UD QPs on entries of the table: a packet reaches a QP of its
partition unless both are limited members, is dropped and counted
(rx_drop_pkey, the port's bad_pkey_cntr) otherwise, and a change of the
table holds for the next packet. On the wire (a raw socket in a peer
namespace): each QP's packets carry its entry's P_Key; the GSI QP takes
packets of any partition in the table. Last, rdma_cm: it finds the
default partition, and fails when the table has none or only a limited
member of it. Leaves the table as
it found it. Prints TAP.

Usage: pkey.py DEV NETNS PEER_ADDR OUR_ADDR OUR_IPV4"""
import errno
import os
import socket
import struct
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, RecvWR, SendWR

import rdmatest
import roce
from rdmatest import new_qp, poll, rc_connect, state, ud_qp
from roce import ROCE_PORT, SEND_ONLY, UD_SEND_ONLY

DEV, NETNS, PEER, OURS, OURS4 = sys.argv[1:6]
SYSFS = '/sys/class/infiniband/%s/pkey_table' % DEV
LEN = 16
QKEY = 0x1234
SPORT = 49153
SIZE = 256
GRH = 40
tap = rdmatest.Tap()

# The entries the cases use: two partitions with full members only,
# partition 3 with a limited (3) and a full (4) entry, and partition 5
# with a limited entry alone.
ENTRIES = {1: 0x8001, 2: 0x8002, 3: 0x0003, 4: 0x8003, 5: 0x0005}


def table():
    """The table as the sysfs file shows it: the 16 P_Keys by index."""
    with open(SYSFS) as f:
        rows = [line.split() for line in f]
    return [int(v, 16) for i, v in sorted((int(i), v) for i, v in rows)]


def write(line):
    """Write @line to the sysfs file; 0, or the errno of the write."""
    try:
        with open(SYSFS, 'w') as f:
            f.write(line)
        return 0
    except OSError as err:
        return err.errno


def drops():
    return rdmatest.counters(DEV)['rx_drop_pkey']


ctx = Context(name=DEV)
pd = PD(ctx)
mr = MR(pd, 4 * SIZE + 2 * GRH, e.IBV_ACCESS_LOCAL_WRITE)
SRC, DST = mr.buf, mr.buf + 2 * SIZE
gidx = rdmatest.gid_index_or_exit(ctx, roce.gid_text(OURS), tap)
gid = ctx.query_gid(1, gidx)
peer_gid = GID(roce.gid_text(PEER))

# The table and the administrator.
orig = table()
tap(orig == [0xffff] + [0] * (LEN - 1),
    'a new device: 0xffff in entry 0, 15 empty entries', str(orig))
port = ctx.query_port(1)
tap(port.pkey_tbl_len == LEN and ctx.query_device().max_pkeys == LEN,
    'query_port and query_device say 16 P_Keys',
    '%d %d' % (port.pkey_tbl_len, ctx.query_device().max_pkeys))
out = subprocess.run(['ibv_devinfo', '-v', '-d', DEV], capture_output=True,
                     text=True).stdout
tap('max_pkeys:\t\t\t16' in out and 'pkey_tbl_len:\t\t16' in out,
    'ibv_devinfo -v shows max_pkeys and pkey_tbl_len 16')
tap(all(write('%d 0x%04x\n' % kv) == 0 for kv in ENTRIES.items()),
    'the administrator writes five entries')
want = list(orig)
for i, v in ENTRIES.items():
    want[i] = v
tap(table() == want, 'the sysfs file shows them', str(table()))
# ibv_query_pkey() gives the P_Key in network byte order.
got = [socket.ntohs(ctx.query_pkey(1, i)) for i in range(LEN)]
tap(got == want, 'ibv_query_pkey reads each entry as written', str(got))
got = []
for i in range(LEN):
    with open('/sys/class/infiniband/%s/ports/1/pkeys/%d' % (DEV, i)) as f:
        got.append(int(f.read(), 16))
tap(got == want, "the core's ports/1/pkeys files show them", str(got))
for line, err, why in (('16 0x8001', errno.ERANGE, 'index past the table'),
                       ('1 0x10000', errno.ERANGE, 'P_Key past 16 bits'),
                       ('1 0x8000', errno.EINVAL, 'full member of partition 0'),
                       ('1', errno.EINVAL, 'no P_Key'),
                       ('one 0x8001', errno.EINVAL, 'no number'),
                       ('1 0x8001 2', errno.EINVAL, 'a third word')):
    got = write(line + '\n')
    tap(got == err, 'write "%s" (%s) fails with %s' % (line, why, errno.errorcode[err]),
        'errno %s' % got)
tap(table() == want, 'the refused writes changed nothing', str(table()))


def rc_pair_on(ia, ib):
    """RC QPs a and b in loopback, on entries @ia and @ib; a's ACK timeout
    short and one retry, so that a lost partition fails it quickly."""
    qps = []
    for _ in range(2):
        cq = CQ(ctx, 8)
        qps.append((new_qp(pd, cq, max_send_wr=4, max_recv_wr=4), cq))
    for (qp, _), (peer, _), idx in ((qps[0], qps[1], ia), (qps[1], qps[0], ib)):
        rc_connect(qp, gid, gidx, peer.qp_num, pkey_index=idx, timeout=12, retry_cnt=1)
    return qps


def send_wr(wr_id):
    return SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                  sg=[SGE(SRC, SIZE, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)


def one_message(a, acq, b, bcq, wr, deliver, room=SIZE, skip=0):
    """Send @wr from a to b; whether the outcome is @deliver's: received
    with the bytes sent, or nothing received and P_Key drops counted.
    Returns (ok, why)."""
    data = os.urandom(SIZE)
    mr.write(data, SIZE, 0)
    mr.write(bytes(room), room, 2 * SIZE)
    b.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(DST, room, mr.lkey)]))
    before, bad = drops(), ctx.query_port(1).bad_pkey_cntr
    a.post_send(wr)
    sw = poll(acq, 1)
    rw = poll(bcq, 1, timeout=10 if deliver else 1)
    moved = drops() - before
    why = 'send %s, receive %s, rx_drop_pkey +%d' % (
        [w.status for w in sw], [(w.status, w.byte_len) for w in rw], moved)
    if deliver:
        ok = (len(rw) == 1 and rw[0].status == e.IBV_WC_SUCCESS and
              rw[0].byte_len == skip + SIZE and mr.read(SIZE, 2 * SIZE + skip) == data and
              moved == 0)
    else:
        ok = not rw and moved >= 1 and ctx.query_port(1).bad_pkey_cntr >= bad + 1
    return ok, why


RC_CASES = (('different partitions', 1, 2, False),
            ('one partition, full members', 1, 1, True),
            ('limited to limited', 3, 3, False),
            ('limited to full', 3, 4, True),
            ('full to limited', 4, 3, True))
for desc, ia, ib, deliver in RC_CASES:
    (a, acq), (b, bcq) = rc_pair_on(ia, ib)
    ok, why = one_message(a, acq, b, bcq, send_wr(1), deliver)
    if not deliver:
        # Nothing came back: the requester ran out of retries.
        ok = ok and state(a) == e.IBV_QPS_ERR
    tap(ok, 'RC, entries %d (0x%04x) to %d (0x%04x), %s: %s' % (
        ia, ENTRIES[ia], ib, ENTRIES[ib], desc,
        'delivered' if deliver else 'dropped and counted'), why)
    tap(a.query(e.IBV_QP_PKEY_INDEX)[0].pkey_index == ia,
        'query_qp reports P_Key index %d' % ia)
    for o in (a, b, acq, bcq):
        o.close()

ah = AH(pd, attr=AHAttr(port_num=1, is_global=1,
                        gr=GlobalRoute(dgid=gid, sgid_index=gidx, hop_limit=64)))


def ud_wr(dest, ah_=ah):
    wr = send_wr(2)
    wr.set_wr_ud(ah_, dest, QKEY)
    return wr


UD_CASES = (('different partitions', 1, 2, False),
            ('one partition', 1, 1, True),
            ('limited to limited', 3, 3, False),
            ('limited to full', 3, 4, True))
for desc, ia, ib, deliver in UD_CASES:
    (a, acq), (b, bcq) = (ud_qp(ctx, pd, QKEY, depth=4, pkey_index=i) for i in (ia, ib))
    ok, why = one_message(a, acq, b, bcq, ud_wr(b.qp_num), deliver, SIZE + GRH, GRH)
    tap(ok, 'UD, entries %d to %d, %s: %s' % (
        ia, ib, desc, 'delivered' if deliver else 'dropped and counted'), why)
    if ia == 1 and ib == 2:
        # The same QPs, b's entry now of a's partition: the next datagram
        # finds it; and back.
        tap(write('2 0x8001') == 0, 'entry 2 rewritten to 0x8001')
        ok, why = one_message(a, acq, b, bcq, ud_wr(b.qp_num), True, SIZE + GRH, GRH)
        tap(ok, 'UD: the same QPs now share a partition: delivered', why)
        write('2 0x8002')
        ok, why = one_message(a, acq, b, bcq, ud_wr(b.qp_num), False, SIZE + GRH, GRH)
        tap(ok, 'UD: entry 2 back to 0x8002: dropped again', why)
    for o in (a, b, acq, bcq):
        o.close()

# On the wire: what the peer namespace receives.
seen = roce.peer_socket(NETNS, None, 0, raw=True)
seen.settimeout(5)


def wire_pkey(opcode, qpn):
    """The P_Key of the next datagram to the RoCE port with @opcode for
    QP @qpn, as the peer namespace sees it (UDP header first), or None."""
    end = time.monotonic() + 5
    while time.monotonic() < end:
        try:
            d = seen.recv(4096)
        except socket.timeout:
            return None
        if len(d) >= 20 and struct.unpack('>H', d[2:4])[0] == ROCE_PORT:
            op, _, pkey, dqpn = struct.unpack('>BBHI', d[8:16])
            if op == opcode and dqpn & 0xffffff == qpn:
                return pkey
    return None


peer_ah = AH(pd, attr=AHAttr(port_num=1, is_global=1,
                             gr=GlobalRoute(dgid=peer_gid, sgid_index=gidx, hop_limit=64)))
u, ucq = ud_qp(ctx, pd, QKEY, depth=4, pkey_index=4)
u.post_send(ud_wr(0x123, peer_ah))
poll(ucq, 1)
got = wire_pkey(UD_SEND_ONLY, 0x123)
tap(got == 0x8003, 'UD on entry 4: the datagram carries P_Key 0x8003',
    'seen %s' % got)
write('4 0x8004')
u.post_send(ud_wr(0x123, peer_ah))
poll(ucq, 1)
got = wire_pkey(UD_SEND_ONLY, 0x123)
tap(got == 0x8004, 'entry 4 rewritten: the next datagram carries 0x8004', 'seen %s' % got)
write('4 0x8003')
r = new_qp(pd, ucq, max_send_wr=4, max_recv_wr=4)
rc_connect(r, peer_gid, gidx, 0x124, pkey_index=1, hop_limit=1, retry_cnt=0,
           timeout=12)
r.post_send(send_wr(3))
got = wire_pkey(SEND_ONLY, 0x124)
tap(got == 0x8001, 'RC on entry 1: the request carries P_Key 0x8001', 'seen %s' % got)
poll(ucq, 1)

# The GSI QP: a datagram of any partition the table has reaches it (here
# its Q_Key is wrong: it is dropped for that, not its P_Key).
sock = roce.peer_socket(NETNS, PEER, SPORT)
for pkey, ok_pkey in ((0x8001, True), (0x0001, True), (0x0003, True),
                      (0x8005, True), (0x0005, False), (0x8006, False)):
    before = rdmatest.counters(DEV)
    sock.sendto(roce.packet(PEER, OURS, SPORT, UD_SEND_ONLY, 1, b'x' * 16, pkey=pkey,
                            ext=roce.deth(QKEY, 0x123)), (OURS, ROCE_PORT))
    want = ('rx_drop_qkey', 'rx_drop_pkey')[not ok_pkey]
    after = before
    for _ in range(50):
        after = rdmatest.counters(DEV)
        if after['rx_packets'] > before['rx_packets']:
            break
        time.sleep(0.1)
    moved = {k: after[k] - before[k] for k in ('rx_drop_qkey', 'rx_drop_pkey')}
    tap(moved[want] == 1 and sum(moved.values()) == 1,
        'GSI QP, P_Key 0x%04x: %s' % (pkey, 'past the P_Key check' if ok_pkey
                                      else 'dropped for its P_Key'), str(moved))


def rping(secs=20):
    """An rping over rdma_cm to ourselves; whether the client succeeded
    within @secs seconds."""
    srv = subprocess.Popen(['timeout', str(secs), 'rping', '-s', '-a', OURS4, '-p', '18730',
                            '-C', '2', '-S', '64', '-V'],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    cli = subprocess.run(['timeout', str(secs), 'rping', '-c', '-a', OURS4, '-p', '18730',
                          '-C', '2', '-S', '64', '-V'], capture_output=True, text=True)
    if cli.returncode:
        srv.kill()
    srv.wait()
    return cli.returncode == 0


# rdma_cm on RoCE always asks for the default partition (0xffff): with
# it in the table it connects, without it it cannot.
tap(rping(), 'rdma_cm (rping) connects in the default partition')
write('0 0')
time.sleep(1)     # the core's cache reads the table in a work item
tap(not rping(), 'entry 0 emptied, no default partition: rdma_cm cannot connect')
# Limited members of the default partition only: the CM's MADs (QP1 to
# QP1) are limited to limited, dropped; a full-member entry beside it is
# the one the core's cache lookup prefers.
write('0 0x7fff')
time.sleep(1)
before = drops()
ok = not rping(8)
tap(ok and drops() > before, 'entry 0 0x7fff, a limited member: rdma_cm cannot '
    'connect, its CM MADs dropped for their P_Key', 'rx_drop_pkey +%d' % (drops() - before))
write('6 0xffff')
time.sleep(1)
tap(rping(), 'with 0xffff in entry 6 beside it, rdma_cm connects')
write('6 0')
write('0 0xffff')
time.sleep(1)
tap(rping(), 'entry 0 back to 0xffff: rdma_cm connects again')

for i in ENTRIES:
    write('%d 0' % i)
tap(table() == orig, 'the table is back as it was', str(table()))
sys.exit(tap.done())
