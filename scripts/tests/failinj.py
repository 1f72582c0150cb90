# SPDX-License-Identifier: GPL-2.0
"""Allocation failures on every create path (issue 52, item 2). For each
path the N-th allocation this process makes in the kernel is failed
(/proc/thread-self/fail-nth, with failslab and fail_page_alloc set to
consider every kmalloc and page allocation but user memory), for N = 1,
2, ... until the create goes through with no failure left to inject. A
create that met its failure must raise a clean errno (or, where the
allocation was optional, make the object all the same), and leave nothing
behind: the device's resource counts as before. Then the device must
still carry traffic. Paths: the device itself (RDMA_NLDEV_CMD_NEWLINK,
sent from here, on a veth of its own), context, PD, CQ, QP (RC, UC, UD), SRQ, MR (plain and
on-demand), MW (type 1 and 2), AH and a multicast attach (ibv_attach_mcast through
ctypes, an IPv4 and an IPv6 group: the IP membership must follow the
attach, made or not); and the
packet path: RC SENDs to a QP of PEERDEV (another host as far as DEV
knows, so the doorbell sends from the system call) posted with each
allocation of the doorbell failed once, which must complete all the same
(sent again from the work item, or by the next doorbell). A library
refusal that names no errno counts as clean (libibverbs skips a device
whose sysfs files it could not read). Prints TAP.

usage: failinj.py DEV NETDEV PEERDEV (PEERDEV: at 192.0.2.2, across NETDEV)"""
import errno
import os
import socket
import struct
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR, MW
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import ibv_ctypes
import rdmatest
import roce

DEV, NETDEV, PEER = sys.argv[1], sys.argv[2], sys.argv[3]
DBG = '/sys/kernel/debug'
CLEAN = (errno.ENOMEM, errno.ENOBUFS, errno.EAGAIN, errno.ENOSPC, errno.ENFILE)
MAX_N = 400
FULL = os.environ.get('SROCE_FULL', '0') == '1'
REPS = int(os.environ.get('FAILINJ_ROUNDS', '200'))
PERCENT = 10
tap = rdmatest.Tap()


def put(path, value):
    with open(os.path.join(DBG, path), 'w') as f:
        f.write(str(value))


def setup_attrs():
    """Both capabilities consider every allocation (sleeping ones too, of
    any order) but user pages; nothing printed; no failure but the one
    fail-nth asks for (times 0 keeps their own rules from firing)."""
    for attr in ('failslab', 'fail_page_alloc'):
        put(attr + '/verbose', 0)
        put(attr + '/ignore-gfp-wait', 'N')
        put(attr + '/probability', 0)
        put(attr + '/times', 0)
    put('fail_page_alloc/ignore-gfp-highmem', 'Y')
    put('fail_page_alloc/min-order', 0)


class FailNth:
    """/proc/thread-self/fail-nth, held open: arming and reading it back
    must not allocate (an open would)."""

    def __init__(self):
        self.fd = os.open('/proc/thread-self/fail-nth', os.O_RDWR)

    def arm(self, n):
        os.pwrite(self.fd, b'%d' % n, 0)

    def disarm(self):
        """Whether the armed failure was injected; disarmed after. What
        was left of the count stays in self.left."""
        self.left = int((os.pread(self.fd, 32, 0).split() or [b'0'])[0])
        os.pwrite(self.fd, b'0', 0)
        return self.left == 0


def resources():
    """DEV's line of `rdma resource show`: its object counts."""
    out = subprocess.run(['rdma', 'resource', 'show'], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if (' %s: ' % DEV) in line:
            return line.split(':', 2)[2].strip()
    return ''


def errno_of(ex):
    # libibverbs skipped the device (a sysfs read of its list failed), or
    # its open of the device file failed and it names ENOENT for any cause.
    if 'Failed to find device' in str(ex) or 'Failed to open device' in str(ex):
        return None
    for attr in ('error_code', 'errno'):
        v = getattr(ex, attr, None)
        if isinstance(v, int) and v:
            return abs(v)
    if isinstance(ex, MemoryError):
        return errno.ENOMEM
    return None


def allocations(create, close):
    """How many allocations @create makes when none fails: fail-nth armed
    far beyond them, and what is left of it after."""
    fn = FailNth()
    far = 1 << 30
    fn.arm(far)
    try:
        obj = create()
    finally:
        left = int((os.pread(fn.fd, 32, 0).split() or [b'0'])[0])
        fn.arm(0)
        os.close(fn.fd)
    close(obj)
    return far - left


def sample(create, close, steps, head):
    """The steps of a sampled sweep, but for its tail: the first @head
    allocations of @create (a driver's own before it registers with the
    core come first) and every k-th after, @steps of those (ten times as
    many under SROCE_FULL=1), from a count of them all, and that count."""
    total = allocations(create, close)
    steps *= 10 if FULL else 1
    k = max(1, (total - head) // (steps + 1))
    return sorted(set(range(1, head + 1)) | set(range(head + k, total - k, k))), k


def sweep_steps(fn, keep, tail):
    """The n of each step of a sweep, and whether a step that meets
    nothing to fail goes on: 1, 2, ... until one does; with @keep
    (sample()), those, then one far beyond every allocation, which counts
    them, then the last @tail by that count. The count drifts by tens
    from run to run (slab pages, caches), so a tail step may meet
    nothing: the sweep goes on, and says how many met their failure."""
    if keep is None:
        n = 1
        while True:
            yield n, False
            n += 1
    yield from ((n, False) for n in keep)
    yield 1 << 30, True
    total = fn.total = (1 << 30) - fn.left
    yield from ((n, True) for n in range(max(keep[-1] + 1, total - tail + 1), total + 1))


def sweep(name, create, close=lambda o: o.close(), count=resources, after=None,
          steps=None):
    """Fail each allocation of @create once; with @steps, (STEPS, HEAD,
    TAIL), a sample of them (sample(), sweep_steps()). One TAP line.
    @after(made), called after each step, returns what is wrong (or
    None) once the object was @made or not."""
    keep, k = sample(create, close, *steps[:2]) if steps else (None, 0)
    fn = FailNth()
    base = count()
    bad = []
    errnos = set()
    seen = {}
    recovered = done = 0
    limit = MAX_N if keep is None else 1 << 30
    for n, goes_on in sweep_steps(fn, keep, steps[2] if steps else 0):
        if n > limit:
            break
        fn.arm(n)
        obj = err = None
        try:
            obj = create()
        except Exception as ex:     # the injected failure, as an exception
            err = ex
        injected = fn.disarm()
        why = after(obj is not None) if after is not None else None
        if why is not None and why not in bad:
            bad.append('n=%d: %s' % (n, why))
        if obj is not None:
            close(obj)
        if not injected:
            if err is not None:
                bad.append('n=%d: failed with nothing injected: %r' % (n, err))
            if goes_on:
                continue
            break
        done += 1
        if err is None:
            recovered += 1
        else:
            errnos.add(errno_of(err))
            if errno_of(err) not in CLEAN + (None,) and repr(err) not in seen:
                seen[repr(err)] = n
                bad.append('n=%d: %r' % (n, err))
    os.close(fn.fd)
    # Once, not per step: `rdma` costs a fork and exec under TCG and KASAN.
    left = count()
    if left != base:
        bad.append('left behind: %s (was %s)' % (left, base))
    if n > limit:
        bad.append('still failing at n=%d' % limit)
    if keep is None:
        what = 'each of its %d allocations failed once' % (n - 1)
    else:
        what = 'of its some %d allocations, %d failed once each (the first %d, every ' \
            '%d-th after, %d of the last %d by a count)' % (
                getattr(fn, 'total', 0), done, steps[1], k, done - len(keep), steps[2])
    desc = '%s: %s: a clean errno (%s) or the ' \
        'object made all the same (%d), nothing left behind' % (
            name, what, ' '.join(errno.errorcode.get(x, str(x)) for x in errnos
                                       if x is not None), recovered)
    return tap(not bad, desc, '; '.join(bad[:8]))


def nl_attr(kind, data):
    data += b'\0'
    pad = (4 - len(data) % 4) % 4
    return struct.pack('HH', 4 + len(data), kind) + data + b'\0' * pad


def newlink(name, netdev):
    """RDMA_NLDEV_CMD_NEWLINK from this process, as `rdma link add NAME
    type sroce netdev NETDEV` sends it: flags REQUEST and ACK alone. The
    RDMA netlink layer takes any of NLM_F_DUMP's bits (ROOT, MATCH) for
    a dump, and NLM_F_EXCL is MATCH's bit: with it a NEWLINK, which has
    no dump, gets EINVAL there, before any driver sees it. Raises
    OSError with the errno."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)  # NETLINK_RDMA
    s.settimeout(5)
    try:
        body = (nl_attr(2, name.encode()) + nl_attr(65, b'sroce') +
                nl_attr(51, netdev.encode()))
        kind = (5 << 10) + 3            # RDMA_NL_NLDEV, NEWLINK
        s.send(struct.pack('IHHII', 16 + len(body), kind, 0x1 | 0x4, 1, 0) + body)
        try:
            reply = s.recv(4096)
        except OSError:
            # The ACK the kernel could not allocate (ENOBUFS on the
            # socket), not the NEWLINK: the device may be there.
            if os.path.isdir('/sys/class/infiniband/' + name):
                return name
            raise
        code = struct.unpack_from('i', reply, 16)[0]
        if code:
            raise OSError(-code, os.strerror(-code))
    finally:
        s.close()
    return name


def dellink(name):
    subprocess.run(['rdma', 'link', 'delete', name], capture_output=True)


def devices():
    return ' '.join(sorted(d for d in os.listdir('/sys/class/infiniband')
                           if d.startswith('sroce')))


def sroce_text():
    """The start and end of sroce's code: its lowest text symbol and a
    page past its highest (/proc/kallsyms, as root)."""
    addrs = []
    with open('/proc/kallsyms') as f:
        for line in f:
            if line.rstrip().endswith('[sroce]') and line.split()[1] in 'tT':
                addrs.append(int(line.split()[0], 16))
    return min(addrs), max(addrs) + 4096


def random_failures(a, b, acq, bcq, mr, pmr, rounds=REPS):
    """The packet path in every context (softirq and work items too, which
    fail-nth cannot reach): failslab and fail_page_alloc fail one in
    PERCENT of the allocations made with sroce's code on the stack
    (the stack filter), while @a sends @rounds SENDs and reads as many
    times back from @b. Every one must complete with its data whole, the
    failures show as counted drops, made up for by sending again (the
    requester's next pass, or retransmission; the line counts both)."""
    lo, hi = sroce_text()
    for attr in ('failslab', 'fail_page_alloc'):
        put(attr + '/require-start', lo)
        put(attr + '/require-end', hi)
        put(attr + '/stacktrace-depth', 32)
        put(attr + '/interval', 1)
        put(attr + '/times', -1)
    c0, c1 = rdmatest.counters(DEV), rdmatest.counters(PEER)
    mr.write(bytes(range(256)) * 4, 1024)
    bad = 0
    for attr in ('failslab', 'fail_page_alloc'):
        put(attr + '/probability', PERCENT)
    try:
        for n in range(rounds):
            b.post_recv(RecvWR(wr_id=n, num_sge=1, sg=[SGE(pmr.buf, 4096, pmr.lkey)]))
            wr = SendWR(wr_id=n, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(mr.buf, 1024, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
            rd = SendWR(wr_id=rounds + n, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                        sg=[SGE(mr.buf + 4096, 1024, mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            rd.set_wr_rdma(pmr.rkey, pmr.buf)
            for w in (wr, rd):
                try:
                    a.post_send(w)
                except Exception as ex:     # the WQE is queued all the same
                    print('# post %d: %r' % (w.wr_id, ex), flush=True)
            wcs = rdmatest.poll(acq, 2, timeout=30)
            rdmatest.poll(bcq, 1, timeout=5)
            if len(wcs) != 2 or any(w.status != e.IBV_WC_SUCCESS for w in wcs) or \
                    mr.read(1024, 4096) != mr.read(1024, 0):
                bad += 1
                print('# round %d: %s' % (n, [(w.wr_id, w.status) for w in wcs]), flush=True)
                break
    finally:
        for attr in ('failslab', 'fail_page_alloc'):
            put(attr + '/probability', 0)
            put(attr + '/require-start', 0)
            put(attr + '/require-end', 0)
    d0 = {k: v - c0.get(k, 0) for k, v in rdmatest.counters(DEV).items()}
    d1 = {k: v - c1.get(k, 0) for k, v in rdmatest.counters(PEER).items()}
    drops = d0.get('tx_drop', 0) + d1.get('tx_drop', 0)
    return tap(not bad and drops > 0,
               'packet path with %d%% of the allocations under sroce failing: '
               '%d SENDs and READs, all completed, data whole; tx_drop +%d, '
               'ack_timeout +%d, tx_retransmit +%d' % (
                   PERCENT, 2 * rounds, drops, d0.get('ack_timeout', 0),
                   d0.get('tx_retransmit', 0)), '%d rounds failed' % bad)


for attr in ('failslab', 'fail_page_alloc'):
    if not os.path.isdir(os.path.join(DBG, attr)):
        tap(False, 'debugfs has %s' % attr)
        sys.exit(tap.done())
setup_attrs()

# NETDEV has DEV already: the NEWLINK goes to a veth of its own.
subprocess.run(['ip', 'link', 'add', 'fi0', 'type', 'veth', 'peer', 'name', 'fi1'],
               check=True)
# ib_core's registration (sysfs, GID table, the MAD layer's QP1 and its
# buffers) makes some 29,000 allocations, and a step that fails late
# costs a whole registration (seconds under TCG and KASAN): sampled.
# sroce's own before it registers (its device, TX pool and page pool)
# are within the first 24 (seen with verbose fault injection); its
# congestion-control sysfs files and the ACK come last (the last 4).
sweep('device (NEWLINK)', lambda: newlink('sroce9', 'fi0'), dellink, devices,
      steps=(2, 24, 4))
subprocess.run(['ip', 'link', 'del', 'fi0'], check=True)
ctx = Context(name=DEV)
gidx = rdmatest.gid_index(ctx, roce.gid_text('::ffff:192.0.2.1'))
if gidx is None:
    tap(False, 'the IPv4 GID of %s' % DEV)
    sys.exit(tap.done())
gid = ctx.query_gid(1, gidx)
sweep('context', lambda: Context(name=DEV))
pd = PD(ctx)
sweep('PD', lambda: PD(ctx))
cq = CQ(ctx, 64)
sweep('CQ', lambda: CQ(ctx, 64))
for kind, label in ((e.IBV_QPT_RC, 'RC'), (e.IBV_QPT_UC, 'UC'), (e.IBV_QPT_UD, 'UD')):
    sweep('QP ' + label, lambda k=kind: QP(pd, QPInitAttr(
        qp_type=k, scq=cq, rcq=cq, cap=QPCap(max_send_wr=16, max_recv_wr=16))))
sweep('SRQ', lambda: SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16))))
sweep('MR', lambda: MR(pd, 65536, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ))
sweep('MR on demand', lambda: MR(pd, 65536, e.IBV_ACCESS_LOCAL_WRITE |
                                 e.IBV_ACCESS_ON_DEMAND))
sweep('MW type 1', lambda: MW(pd, e.IBV_MW_TYPE_1))
sweep('MW type 2', lambda: MW(pd, e.IBV_MW_TYPE_2))
sweep('AH', lambda: AH(pd, attr=AHAttr(port_num=1, is_global=1, gr=GlobalRoute(
    dgid=gid, sgid_index=gidx, hop_limit=64))))


def ip_joined(group):
    """Whether NETDEV is a member of the IP multicast @group (text)."""
    if ':' in group:
        want = socket.inet_pton(socket.AF_INET6, group).hex()
        with open('/proc/net/igmp6') as f:
            return any(line.split()[1:3] == [NETDEV, want] for line in f)
    want = '%08X' % struct.unpack('=I', socket.inet_aton(group))
    dev = None
    with open('/proc/net/igmp') as f:
        for line in f:
            if not line[0].isspace():
                dev = line.split()[1] if ':' in line else None
            elif dev == NETDEV and line.split()[0] == want:
                return True
    return False


def sweep_mcast(qp, group):
    """ibv_attach_mcast() of @group on @qp, each allocation failed once:
    attached means NETDEV joined the IP group, refused means it did not
    (and a detach finds nothing); detached after each."""
    # The GID: IPv6 as it is, IPv4 in IPv4-mapped form.
    raw = socket.inet_pton(socket.AF_INET6, group if ':' in group else '::ffff:' + group)

    class Attached:
        def close(self):
            if qp.detach(raw):
                raise OSError(qp.detach(raw), 'detach')

    def attach():
        err = qp.attach(raw)
        if err:
            raise OSError(err, os.strerror(err))
        return Attached()

    def after(made):
        if ip_joined(group) != made:
            return '%s, yet %s the IP group' % (
                'attached' if made else 'refused', 'not in' if made else 'in')
        if not made and qp.detach(raw) == 0:
            return 'refused, yet detached'
        return None

    sweep('multicast attach (%s)' % group, attach, count=lambda: ip_joined(group),
          after=after)


with ibv_ctypes.UdQp(DEV) as mqp:
    for group in ('239.1.1.52', 'ff0e::152'):
        sweep_mcast(mqp, group)

# The packet path: each allocation of a doorbell's system call failed
# once, on RC SENDs to PEER's QP. A SEND whose doorbell failed goes with
# the next doorbell at the latest; every one must complete.
mr = MR(pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
pctx = Context(name=PEER)
pgidx = rdmatest.gid_index(pctx, roce.gid_text('::ffff:192.0.2.2'))
ppd = PD(pctx)
pmr = MR(ppd, 8192, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)
acq, bcq = CQ(ctx, 32), CQ(pctx, 32)
a = rdmatest.new_qp(pd, acq, max_send_wr=16, max_recv_wr=16)
b = rdmatest.new_qp(ppd, bcq, max_send_wr=16, max_recv_wr=16)
rdmatest.rc_connect(a, pctx.query_gid(1, pgidx), gidx, b.qp_num)
rdmatest.rc_connect(b, gid, pgidx, a.qp_num)
fn = FailNth()
injected = refused = 0
SENDS = 12
for n in range(1, SENDS + 1):
    b.post_recv(RecvWR(wr_id=n, num_sge=1, sg=[SGE(pmr.buf, 4096, pmr.lkey)]))
    last = n == SENDS
    if not last:
        fn.arm(n)
    try:
        a.post_send(SendWR(wr_id=n, opcode=e.IBV_WR_SEND, num_sge=1,
                           sg=[SGE(mr.buf, 1024, mr.lkey)],
                           send_flags=e.IBV_SEND_SIGNALED))
    except Exception as ex:
        refused += 1
        print('# doorbell %d: %r' % (n, ex), flush=True)
    if not last:
        injected += fn.disarm()
wcs = rdmatest.poll(acq, SENDS, timeout=30)
ok = [w for w in wcs if w.status == e.IBV_WC_SUCCESS]
tap(len(ok) == SENDS and injected > 0,
    'SENDs whose doorbell met a failed allocation all completed (%d of %d '
    'doorbells had one, %d refused)' % (injected, SENDS - 1, refused),
    '%d of %d completed' % (len(ok), SENDS))
rdmatest.poll(bcq, SENDS, timeout=5)
random_failures(a, b, acq, bcq, mr, pmr)
for o in (a, b, acq, bcq, mr, pmr, ppd, pctx):
    o.close()

# Still a working device.
mr = MR(pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
(a, acq), (b, bcq) = rdmatest.rc_pair(ctx, pd, gid, gidx)
b.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[SGE(mr.buf + 4096, 4096, mr.lkey)]))
a.post_send(SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                   sg=[SGE(mr.buf, 4096, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED))
wcs = rdmatest.poll(acq, 1)
tap(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS,
    'the device still carries an RC SEND afterwards')
for o in (a, b, acq, bcq, mr, cq, pd, ctx):
    o.close()
time.sleep(0.1)
sys.exit(tap.done())
