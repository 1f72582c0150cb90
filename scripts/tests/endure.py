"""Teardown under traffic (issue 52, item 1), in one process: each cycle
opens both devices, starts RC and UD traffic from sroce0 (veth0, this
namespace) to sroce1 (veth1, namespace "peer") and rdma_cm traffic (an
rping client here against an rping server in "peer", every payload
checked), then does one thing to the link under it:

  link     rdma link delete sroce0          fatal: error + DEVICE_FATAL
  netdev   ip link del veth0 (veth1 goes)   fatal on both devices
  netns    ip netns del peer (veth1 goes)   fatal on both devices
  move     veth0 moved to namespace "away"  fatal on sroce0
  carrier  veth0 down, then up              PORT_ERR, QPs stay in RTS;
                                            traffic goes on
  mtu      veth0's MTU 1280, then 1500      traffic resolves
  addr     192.0.2.1 removed, then put back GID_CHANGE; traffic resolves
  rmmod    the consumers let go, both devices deleted, rmmod sroce within
           5 s, then loaded again

"Resolves": within the deadline the traffic either goes on (more
completions, more pings) or ends in an error (an error completion, rping
exits); it never just stops. Where sroce0 goes, the rping client must
exit within the deadline, and the server too where sroce1 goes. Every
cycle closes what it opened, and no step may take longer than its
deadline. Where a netdev goes (netdev, netns, move), sroce0 must raise
QP_FATAL (its QPs flushed; for netdev only reported, not yet asserted),
and the NVMe-oF host, under nvme_core's
default timeouts (60 s admin, 30 s I/O), must fail its reader's I/O
within NVME_BOUND seconds of the verbs traffic's error (and lose its
controller within the deadline). The kernel log must stay free of reports. After the cycles the
objects are closed, both devices deleted and the module must unload
within 5 s (endure.sh measures that too). Prints TAP, one line per kind
with the cycles it ran and their mean time, and the slab and vmalloc
memory before and after.

Every eighth cycle is one of the heavy kinds (netdev, netns, move,
rmmod), the others the light ones, each in turn.

usage: endure.py CYCLES [NVME_EVERY]  (NVMe-oF in every NVME_EVERY-th cycle
of each kind, from its first; 0 or none: never)"""
import os
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, RecvWR, SendWR

import endure_nvmf
import rdmatest
import roce

CYCLES = int(sys.argv[1])
NVME_EVERY = int(sys.argv[2]) if len(sys.argv) > 2 else 0
SIZE, DEPTH, QKEY = 2048, 16, 0x1111
DEADLINE = 30           # seconds for a consumer to get its error or event
NVME_BOUND = 15         # seconds for an NVMe-oF host's I/O to fail on a dead netdev
GONE = ('netdev', 'netns', 'move')     # kinds whose netdev goes under sroce0
FATAL = ('link', 'netdev', 'netns', 'move')
LIGHT = ('carrier', 'mtu', 'addr', 'link')
HEAVY = ('netdev', 'netns', 'move', 'rmmod')    # devices made again: seconds more
KINDS = LIGHT + HEAVY
KO = os.environ.get('SROCE_KO', '')
BAD = ('WARNING:', 'BUG:', 'Oops', 'KASAN:', 'UBSAN:', 'possible circular',
       'inconsistent lock', 'suspicious RCU', 'refcount_t:', 'blocked for more')
tap = rdmatest.Tap()
PHASE = []             # when a cycle's objects, then its traffic, were up
OUTCOME = {k: [0, 0] for k in LIGHT if k not in FATAL}  # [error, went on]
FAILED_CLOSE = []     # NVMe-oF disconnects that failed or took too long
RELISTEN = [False]    # sroce0 went since the last NVMe-oF connection
ACTED = [0.0]         # when the cycle did its thing
NVME_TOOK = []        # seconds from a netdev going to its NVMe-oF reader failing


def sh(cmd, check=True):
    """Run a shell line; its output, and a failure as an exception."""
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60)
    if check and r.returncode:
        raise RuntimeError('%s: exit %d: %s' % (cmd, r.returncode, r.stderr.strip()))
    return r.stdout


def meminfo():
    """Slab + vmalloc in use, KiB."""
    got = {}
    with open('/proc/meminfo') as f:
        for line in f:
            k, v = line.split(':')
            got[k] = int(v.split()[0])
    return got['Slab'], got['VmallocUsed']


class KernelLog:
    """New kernel log records since the last look, without a fork: the
    kernel's reports among them are counted."""

    def __init__(self):
        self.fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)
        self.reports = []

    def look(self):
        while True:
            try:
                rec = os.read(self.fd, 8192).decode(errors='replace')
            except BlockingIOError:
                return len(self.reports)
            except OSError:     # records overwritten before we read them
                continue
            text = rec.split(';', 1)[-1]
            if any(b in text for b in BAD):
                self.reports.append(text.strip())


def links_up():
    """The veth pair, the peer namespace and both devices, as at the
    start; only what is missing is made again (a fork and exec costs
    tenths of a second here). A veth0 moved away goes first: the
    namespace goes in the background, veth0 with it, and veth1 after
    sroce1; until then veth1's name is taken in "peer"."""
    if os.path.exists('/run/netns/away'):
        sh('ip netns del away')
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end and (
                os.path.exists('/sys/class/infiniband/sroce1') or
                'veth1' in sh('ip -n peer link show veth1 2>/dev/null', check=False)):
            time.sleep(0.1)
    if not os.path.exists('/run/netns/peer'):
        sh('ip netns add peer && ip -n peer link set lo up')
    if not os.path.exists('/sys/class/net/veth0'):
        sh('ip link add veth0 type veth peer name veth1 netns peer && '
           'ip link set veth0 up && ip addr add 192.0.2.1/24 dev veth0 && '
           'ip -n peer link set veth1 up && ip -n peer addr add 192.0.2.2/24 dev veth1')
    for dev, ns, net in (('sroce0', '', 'veth0'), ('sroce1', 'ip netns exec peer ', 'veth1')):
        if not os.path.exists('/sys/class/infiniband/' + dev):
            sh('%srdma link add %s type sroce netdev %s' % (ns, dev, net))


class Traffic:
    """RC SENDs a -> b and UD datagrams from sroce0 to sroce1."""

    def __init__(self):
        self.objs = []
        self.c0 = self.keep(Context(name='sroce0'))
        self.c1 = self.keep(Context(name='sroce1'))
        g0 = rdmatest.gid_index(self.c0, roce.gid_text('::ffff:192.0.2.1'))
        g1 = rdmatest.gid_index(self.c1, roce.gid_text('::ffff:192.0.2.2'))
        if g0 is None or g1 is None:
            raise RuntimeError('no IPv4 GID (%s, %s)' % (g0, g1))
        self.pd0, self.pd1 = self.keep(PD(self.c0)), self.keep(PD(self.c1))
        self.src = self.keep(MR(self.pd0, SIZE, e.IBV_ACCESS_LOCAL_WRITE))
        self.dst = self.keep(MR(self.pd1, 2 * DEPTH * SIZE, e.IBV_ACCESS_LOCAL_WRITE))
        gid0, gid1 = self.c0.query_gid(1, g0), self.c1.query_gid(1, g1)
        self.acq = self.keep(CQ(self.c0, 4 * DEPTH))
        self.bcq = self.keep(CQ(self.c1, 4 * DEPTH))
        self.a = self.keep(rdmatest.new_qp(self.pd0, self.acq, max_send_wr=DEPTH,
                                           max_recv_wr=DEPTH))
        self.b = self.keep(rdmatest.new_qp(self.pd1, self.bcq, max_send_wr=DEPTH,
                                           max_recv_wr=2 * DEPTH))
        rdmatest.rc_connect(self.a, gid1, g0, self.b.qp_num, timeout=12, retry_cnt=7)
        rdmatest.rc_connect(self.b, gid0, g1, self.a.qp_num, timeout=12, retry_cnt=7)
        (self.ua, self.uacq), (self.ub, self.ubcq) = (
            rdmatest.ud_qp(self.c0, self.pd0, QKEY), rdmatest.ud_qp(self.c1, self.pd1, QKEY))
        for o in (self.ua, self.uacq, self.ub, self.ubcq):
            self.keep(o)
        self.ah = self.keep(AH(self.pd0, attr=AHAttr(
            port_num=1, is_global=1, gr=GlobalRoute(dgid=gid1, sgid_index=g0,
                                                    hop_limit=64))))
        self.n = self.done = 0
        self.ud_sent = self.ud_done = self.ud_rposted = self.ud_rdone = 0
        self.error = None

    def keep(self, o):
        self.objs.append(o)
        return o

    def post(self):
        i = self.n
        self.n += 1
        self.b.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(
            self.dst.buf + (i % (2 * DEPTH)) * SIZE, SIZE, self.dst.lkey)]))
        self.a.post_send(SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                                sg=[SGE(self.src.buf, SIZE, self.src.lkey)],
                                send_flags=e.IBV_SEND_SIGNALED))
        # Never more UD work than the queues hold: datagrams may be lost.
        if self.ud_rposted - self.ud_rdone < DEPTH - 1:
            self.ud_rposted += 1
            self.ub.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(
                self.dst.buf, SIZE, self.dst.lkey)]))
        if i % 4 == 0 and self.ud_sent - self.ud_done < DEPTH - 1:
            self.ud_sent += 1
            wr = SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(self.src.buf, 256, self.src.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_ud(self.ah, self.ub.qp_num, QKEY)
            self.ua.post_send(wr)

    def start(self):
        for _ in range(DEPTH // 2):
            self.post()

    def run(self, until):
        """Keep the traffic going until @until() says stop, an error ends
        it, or the deadline passes. Returns the completions since."""
        before = self.done
        end = time.monotonic() + DEADLINE
        try:
            while self.error is None and time.monotonic() < end and not until():
                k, wcs = self.acq.poll(4)
                for wc in wcs[:k]:
                    if wc.status != e.IBV_WC_SUCCESS:
                        self.error = 'RC status %d' % wc.status
                        break
                    self.done += 1
                    self.post()
                self.bcq.poll(4 * DEPTH)
                k, _ = self.uacq.poll(DEPTH)
                self.ud_done += k
                n, _ = self.ubcq.poll(DEPTH)
                self.ud_rdone += n
                if not k and not n:
                    time.sleep(0.001)
        except Exception as ex:     # a post refused once the device is gone
            self.error = repr(ex)
        return self.done - before

    def close(self):
        for o in reversed(self.objs):
            try:
                o.close()
            except Exception as ex:
                print('# close: %r' % ex, flush=True)


def events(ctx, nth, want, timeout):
    """The async events of @ctx, the @nth context opened, until @want is
    among them or @timeout."""
    kinds = []
    end = time.monotonic() + timeout
    while want not in kinds and time.monotonic() < end:
        kind = rdmatest.async_event(ctx, max(0.05, end - time.monotonic()), nth)
        if kind is None:
            break
        kinds.append(kind)
    return kinds


def unload():
    """Both devices deleted, then rmmod sroce within 5 s, and loaded
    again. None, or what went wrong."""
    sh('rdma link delete sroce0; ip netns exec peer rdma link delete sroce1',
       check=False)
    end = time.monotonic() + 5
    while sh('rmmod sroce 2>&1; lsmod', check=False).find('sroce ') >= 0:
        if time.monotonic() > end:
            return 'sroce still loaded 5 s after its consumers let go'
        time.sleep(0.1)
    sh('modprobe sroce 2>/dev/null || insmod %s' % KO)
    return None


class CmPing:
    """rdma_cm traffic: an rping client here (sroce0) against an rping
    server in namespace "peer" (sroce1), every payload checked (-V), one
    line per ping (-v, line-buffered into a file). With @local both on
    sroce0, here: an rdma_cm ID holds its namespace, so a server in
    "peer" would keep that namespace (and both devices) alive through
    `ip netns del peer`."""

    def __init__(self, port, local=False):
        self.out = '/tmp/rping-%d' % port
        self.addr = '192.0.2.1' if local else '192.0.2.2'
        ns = [] if local else ['ip', 'netns', 'exec', 'peer']
        self.srv = subprocess.Popen(
            ns + ['rping', '-s', '-a', self.addr, '-p', str(port), '-V', '-S', '128'],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.cli = None
        end = time.monotonic() + DEADLINE
        while not self.listening(port):
            if time.monotonic() > end or self.srv.poll() is not None:
                raise RuntimeError('no rping server listening on port %d' % port)
            time.sleep(0.1)
        with open(self.out, 'w') as f:
            self.cli = subprocess.Popen(
                ['stdbuf', '-oL', 'rping', '-c', '-a', self.addr, '-p', str(port),
                 '-V', '-v', '-S', '128', '-C', '1000000'], stdout=f,
                stderr=subprocess.STDOUT)

    @staticmethod
    def listening(port):
        return (':%d ' % port) in sh('rdma resource show cm_id', check=False) + ' '

    def pings(self):
        with open(self.out, errors='replace') as f:
            return f.read().count('ping data:')

    def wait(self, until):
        """Until @until() or the client's exit or the deadline: whether
        @until() came true."""
        return endure_nvmf.wait_running(until, self.cli, DEADLINE)

    def ended(self, proc, timeout=DEADLINE):
        try:
            proc.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def close(self):
        for proc in (self.cli, self.srv):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        if os.path.exists(self.out):
            os.unlink(self.out)


def fatal(kind, t, cm, nv):
    """After a fatal @kind: the verbs consumers' errors and events, the
    rping client's (and, where its device went, the server's) exit, the
    NVMe-oF host's error and its controller's removal."""
    t.run(lambda: False)
    if t.error is None:
        return 'no error in %d s after the %s went' % (DEADLINE, kind)
    # The netdev is gone by now (a namespace's cleanup runs in the
    # background and may take tens of seconds under TCG to get there).
    dead = time.monotonic()
    # First, as the host goes on by itself.
    if nv is not None:
        nv.erred()
        erred = max(0.0, time.monotonic() - dead)
        why = nv.gone()
        if why is not None:
            return why
        if kind in GONE:
            NVME_TOOK.append(erred)
            print('# NVMe-oF: the verbs error %.1f s after the command, the reader\'s '
                  '%.1f s after that, the controller gone %.1f s after the command' % (
                      dead - ACTED[0], erred, time.monotonic() - ACTED[0]), flush=True)
        if kind in GONE and erred > NVME_BOUND:
            return 'the NVMe-oF reader failed %.1f s after the verbs error (%s)' % (
                erred, kind)
    got = events(t.c0, 0, e.IBV_EVENT_DEVICE_FATAL, DEADLINE)
    if e.IBV_EVENT_DEVICE_FATAL not in got:
        return 'sroce0: no DEVICE_FATAL (events %s)' % got
    # A QP whose retries ran out first (its peer's address went before
    # the netdev did) is in ERR by its own completion: no QP_FATAL is
    # due then. Not asserted for netdev: one such cycle of 2 saw none
    # (open); the traffic's error is printed to tell the two apart.
    ran_out = t.error == 'RC status %d' % e.IBV_WC_RETRY_EXC_ERR
    if kind in ('netns', 'move') and e.IBV_EVENT_QP_FATAL not in got and not ran_out:
        return 'sroce0: no QP_FATAL (events %s, traffic: %s)' % (got, t.error)
    if kind in ('netdev', 'netns', 'move') and e.IBV_EVENT_QP_FATAL not in got:
        print('# %s: sroce0 raised no QP_FATAL (events %s, traffic: %s)' % (
            kind, got, t.error), flush=True)
    if not cm.ended(cm.cli):
        return 'the rping client still runs %d s after sroce0 went' % DEADLINE
    if kind in ('netdev', 'netns'):
        got = events(t.c1, 1, e.IBV_EVENT_DEVICE_FATAL, DEADLINE)
        if e.IBV_EVENT_DEVICE_FATAL not in got:
            return 'sroce1: no DEVICE_FATAL (events %s)' % got
        if not cm.ended(cm.srv):
            return 'the rping server still runs %d s after its device went' % DEADLINE
    return None


def light(kind, t, cm, nv):
    """A light @kind done and undone: its event, then each consumer's
    traffic goes on or ends in an error within the deadline."""
    do, undo, want = {
        'carrier': ('ip link set veth0 down', 'ip link set veth0 up', e.IBV_EVENT_PORT_ERR),
        'mtu': ('ip link set veth0 mtu 1280', 'ip link set veth0 mtu 1500', None),
        'addr': ('ip addr del 192.0.2.1/24 dev veth0', 'ip addr add 192.0.2.1/24 dev veth0',
                 e.IBV_EVENT_GID_CHANGE)}[kind]
    sh(do)
    got = events(t.c0, 0, want, DEADLINE) if want is not None else []
    if want is not None and want not in got:
        return 'no event %d (events %s)' % (want, got)
    if kind == 'carrier':
        # A link flap is no reason to flush: the QPs wait in RTS.
        states = [q.query(e.IBV_QP_STATE)[0].qp_state for q in (t.a, t.ua)]
        if states != [e.IBV_QPS_RTS] * 2:
            return 'carrier down: QP states %s, not RTS' % states
    sh(undo)
    mark = t.done
    t.run(lambda: t.done >= mark + 8)
    if t.error is None and t.done < mark + 8:
        return 'traffic neither went on nor failed in %d s (%d more)' % (
            DEADLINE, t.done - mark)
    pings = cm.pings()
    if not cm.wait(lambda: cm.pings() >= pings + 4) and cm.cli.poll() is None:
        return 'rping neither went on nor ended in %d s (%d more)' % (
            DEADLINE, cm.pings() - pings)
    if nv is not None:
        reads = nv.reads()
        if not nv.wait(lambda: nv.reads() >= reads + 4) and nv.reader.poll() is None:
            return 'NVMe-oF reads neither went on nor failed in %d s' % DEADLINE
    if kind == 'carrier' and t.error is not None:
        return 'the link flap ended the RC traffic: %s' % t.error
    OUTCOME[kind][t.error is None] += 1
    return None


def cycle(kind, port, nvme):
    """One cycle, with NVMe-oF if @nvme; returns None when it passed,
    else what went wrong."""
    links_up()
    PHASE[:] = [time.monotonic()]
    t = Traffic()
    cm = nv = None
    try:
        cm = CmPing(port, local=kind == 'netns')
        if nvme:
            fresh = endure_nvmf.target_up()
            nv = endure_nvmf.Nvmf(DEADLINE, RELISTEN[0] and not fresh)
            RELISTEN[0] = False
        PHASE.append(time.monotonic())
        t.start()
        if t.run(lambda: t.done >= 8) < 8:
            return 'traffic did not start (%s)' % t.error
        if not cm.wait(lambda: cm.pings() >= 4):
            return 'rping did not start (%d pings)' % cm.pings()
        if nv is not None and not nv.wait(lambda: nv.reads() >= 4):
            return 'NVMe-oF reads did not start'
        PHASE.append(time.monotonic())
        if kind in FATAL or kind == 'rmmod':
            RELISTEN[0] = True
        if kind == 'rmmod':
            t.close()
            t.objs = []
            cm.close()
            why = nv.close() if nv is not None else None
            return why or unload()
        ACTED[0] = time.monotonic()
        if kind in FATAL:
            sh({'link': 'rdma link delete sroce0', 'netdev': 'ip link del veth0',
                'netns': 'ip netns del peer',
                'move': 'ip netns add away && ip link set veth0 netns away'}[kind])
            return fatal(kind, t, cm, nv)
        return light(kind, t, cm, nv)
    finally:
        if cm is not None:
            cm.close()
        why = nv.close() if nv is not None else None
        if why is not None:
            FAILED_CLOSE.append(why)
        t.close()


links_up()
klog = KernelLog()
slab0, vmalloc0 = meminfo()
print('# memory before: slab %d KiB, vmalloc %d KiB' % (slab0, vmalloc0), flush=True)
per = {k: [] for k in KINDS}
failures = {k: [] for k in KINDS}
with_nvme = {k: 0 for k in KINDS}
nvme_ok = NVME_EVERY > 0 and endure_nvmf.available()
if NVME_EVERY and not nvme_ok:
    print('# no NVMe-oF: nvme-cli, nvmet-rdma or nvme-rdma missing', flush=True)
for i in range(CYCLES):
    kind = HEAVY[(i // 8) % len(HEAVY)] if i % 8 == 7 else LIGHT[(i - i // 8) % len(LIGHT)]
    nvme = nvme_ok and len(per[kind]) % NVME_EVERY == 0
    with_nvme[kind] += nvme
    t0 = time.monotonic()
    try:
        why = cycle(kind, 18700 + i % 100, nvme)
    except Exception as ex:
        why = 'exception: %r' % ex
    per[kind].append(time.monotonic() - t0)
    print('# cycle %d (%s%s): %.1f s (%s)%s' % (
        i, kind, ', NVMe-oF' if nvme else '', per[kind][-1], ', '.join('%.1f' % (b - a) for a, b in zip(PHASE, PHASE[1:])),
        '' if why is None else ': ' + why), flush=True)
    if why is not None:
        failures[kind].append(why)
        # Start the next one from a known state.
        sh('ip netns del away; ip netns del peer; ip link del veth0; '
           'rdma link delete sroce0; rdma link delete sroce1', check=False)
    if klog.look():
        print('# kernel: ' + '\n# kernel: '.join(klog.reports[:20]), flush=True)
        break
for kind in KINDS:
    n = len(per[kind])
    mean = sum(per[kind]) / n if n else 0
    how = ''
    if kind in OUTCOME:
        how = ' (traffic went on %d times, ended in an error %d)' % (
            OUTCOME[kind][1], OUTCOME[kind][0])
    tap(n > 0 and not failures[kind],
        '%s: %d cycles (%d with NVMe-oF), %.1f s each, every consumer got its '
        'error or event%s' % (kind, n, with_nvme[kind], mean, how),
        '; '.join(failures[kind][:3]))
if nvme_ok:
    tap(NVME_TOOK and max(NVME_TOOK) <= NVME_BOUND,
        'each NVMe-oF host failed its I/O on a dead netdev within %d s, nvme_core '
        'timeouts %s (%d cycles, slowest %.1f s)' % (
            NVME_BOUND, endure_nvmf.timeouts(), len(NVME_TOOK), max(NVME_TOOK or [0])),
        'none ran' if not NVME_TOOK else '')
    tap(not FAILED_CLOSE, 'every NVMe-oF host disconnected within %d s (%d cycles)' % (
        DEADLINE, sum(with_nvme.values())), '; '.join(FAILED_CLOSE[:3]))
tap(not klog.look(), 'no kernel report in %d cycles' % sum(len(v) for v in per.values()))
sh('rdma link delete sroce0; ip netns exec peer rdma link delete sroce1; '
   'ip netns del away; ip netns del peer; ip link del veth0', check=False)
if nvme_ok:
    endure_nvmf.target_down()
slab1, vmalloc1 = meminfo()
print('# memory after: slab %d KiB (%+d), vmalloc %d KiB (%+d)' % (
    slab1, slab1 - slab0, vmalloc1, vmalloc1 - vmalloc0), flush=True)
sys.exit(tap.done())
