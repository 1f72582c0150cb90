#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one"): what a user's CQs, QPs and SRQs cost is
charged to the user's memory cgroup. For each kind, a process of user
nobody in a cgroup of LIMIT bytes creates objects of the device's maximum
size until a create fails. The failure must be ENOMEM, before the device's
own object limit and before the rings mapped outgrow the cgroup; the
cgroup's memory must have risen by at least the rings' bytes and come back
once the objects are closed; nothing may be OOM-killed. Prints TAP.
Needs root and a device named by argv[1]; runs itself again, as the
user, with --child KIND DEVICE."""
import errno
import json
import os
import resource
import subprocess
import sys

import rdmatest

MiB = 1 << 20
# Room for the interpreter with pyverbs (about 20 MiB) and one QP of the
# device's maximum size (two 32 MiB rings and 20 MiB of WQE copies), so
# that each kind's charge can be measured on at least one object.
LIMIT = 128 * MiB
# A create loop on a driver that charges nothing stops here.
RUNAWAY = 2 * LIMIT
# Touched before the loop and dropped at its first failure: room for the
# interpreter to go on in a cgroup that is at its limit.
BALLAST = 4 * MiB
NOBODY = 65534
CGROOT = '/sys/fs/cgroup'
KINDS = ('cq', 'qp', 'srq')


def mapped():
    """Bytes this process maps of the verbs device: the rings."""
    total = 0
    with open('/proc/self/maps') as f:
        for line in f:
            if '/dev/infiniband/uverbs' in line:
                lo, hi = line.split()[0].split('-')
                total += int(hi, 16) - int(lo, 16)
    return total


def child(kind, dev, cg):
    """Runs as nobody inside the cgroup; prints one JSON line."""
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.pyverbs_error import PyverbsRDMAError
    from pyverbs.qp import QP, QPCap, QPInitAttr
    from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
    import pyverbs.enums as e

    def current():
        with open(os.path.join(cg, 'memory.current')) as f:
            return int(f.read())

    ctx = Context(name=dev)
    a = ctx.query_device()
    pd = PD(ctx)
    cq = CQ(ctx, 1)
    make, dev_limit = {
        'cq': (lambda: CQ(ctx, a.max_cqe), a.max_cq),
        'qp': (lambda: QP(pd, QPInitAttr(
            qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
            cap=QPCap(max_send_wr=a.max_qp_wr, max_recv_wr=a.max_qp_wr,
                      max_send_sge=a.max_sge, max_recv_sge=a.max_sge))),
               a.max_qp),
        'srq': (lambda: SRQ(pd, SrqInitAttr(SrqAttr(max_wr=a.max_srq_wr,
                                                    max_sge=a.max_srq_sge))),
                a.max_srq),
    }[kind]
    base = current()
    ballast = b'\1' * BALLAST
    maps0 = mapped()
    held = peak = current()
    objs, err = [], None
    while len(objs) < dev_limit and mapped() - maps0 < RUNAWAY:
        try:
            objs.append(make())
        except PyverbsRDMAError as ex:
            err = ex.error_code
            break
        peak = current()
    ballast = None
    rings = mapped() - maps0
    for o in reversed(objs):
        o.close()
    print(json.dumps({'n': len(objs), 'err': err, 'limit': dev_limit,
                      'rings': rings, 'charged': peak - held,
                      'base': base, 'after': current()}), flush=True)


def cg_setup(tap):
    """A fresh cgroup of LIMIT bytes, or None (and a SKIP line)."""
    if not os.path.exists(os.path.join(CGROOT, 'cgroup.controllers')):
        if not os.path.isdir(CGROOT) or subprocess.run(
                ['mount', '-t', 'cgroup2', 'none', CGROOT]).returncode:
            print('ok %d - memory cgroup # SKIP no cgroup2 in this kernel'
                  % (tap.n + 1), flush=True)
            tap.n += 1
            return None
    with open(os.path.join(CGROOT, 'cgroup.controllers')) as f:
        if 'memory' not in f.read().split():
            print('ok %d - memory cgroup # SKIP no memory controller in this '
                  'kernel' % (tap.n + 1), flush=True)
            tap.n += 1
            return None
    with open(os.path.join(CGROOT, 'cgroup.subtree_control'), 'w') as f:
        f.write('+memory')
    cg = os.path.join(CGROOT, 'sroce-memcg')
    if os.path.isdir(cg):
        os.rmdir(cg)
    os.mkdir(cg)
    with open(os.path.join(cg, 'memory.max'), 'w') as f:
        f.write(str(LIMIT))
    return cg


def events(cg):
    with open(os.path.join(cg, 'memory.events')) as f:
        return {k: int(v) for k, v in (line.split() for line in f)}


def run_child(kind, dev, cg):
    """The child's result, or None with why it gave none."""
    def enter():
        with open(os.path.join(cg, 'cgroup.procs'), 'w') as f:
            f.write(str(os.getpid()))
        resource.setrlimit(resource.RLIMIT_MEMLOCK,
                           (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)

    p = subprocess.run([sys.executable, os.path.abspath(__file__), '--child',
                        kind, dev, cg], preexec_fn=enter, capture_output=True,
                       text=True, timeout=600)
    if p.returncode:
        return None, 'exit status %d: %s' % (p.returncode, p.stderr.strip()[-400:])
    return json.loads(p.stdout), ''


def check_kind(tap, kind, dev, cg):
    r, why = run_child(kind, dev, cg)
    if not tap(r is not None, '%s: the user\'s create loop ran to its end' % kind, why):
        return
    got = ('none failed' if r['err'] is None else
           'got ' + errno.errorcode.get(r['err'], str(r['err'])))
    tap(r['err'] == errno.ENOMEM,
        '%s: the create after %d of the largest fails with ENOMEM (%s)' % (
            kind, r['n'], got))
    tap(r['n'] < r['limit'], '%s: before the device\'s limit of %d' % (kind, r['limit']))
    tap(r['rings'] <= LIMIT,
        '%s: before its rings outgrew the cgroup: %d MiB mapped, %d MiB allowed' % (
            kind, r['rings'] // MiB, LIMIT // MiB))
    # The rings are charged page for page; the WQE copies and the
    # interpreter may add, but not more than half as much again. Near
    # the limit the cgroup reclaims the interpreter's page cache: a few
    # MiB less.
    tap(r['n'] > 0 and 0.9 * r['rings'] <= r['charged'] <= 1.5 * r['rings'] + 4 * MiB,
        '%s: the cgroup was charged the rings: %d KiB for %d KiB of rings' % (
            kind, r['charged'] >> 10, r['rings'] >> 10))
    tap(r['after'] <= r['base'] + 2 * MiB,
        '%s: the charge is gone once they are closed: %d KiB, %d KiB before' % (
            kind, r['after'] >> 10, r['base'] >> 10))


def main():
    tap = rdmatest.Tap()
    dev = sys.argv[1]
    cg = cg_setup(tap)
    if cg is None:
        return tap.done()
    devs = [os.path.join('/dev/infiniband', d) for d in os.listdir('/dev/infiniband')
            if d.startswith('uverbs')]
    modes = {d: os.stat(d).st_mode & 0o7777 for d in devs}
    for d in devs:
        os.chmod(d, 0o666)
    try:
        for kind in KINDS:
            check_kind(tap, kind, dev, cg)
        ev = events(cg)
        tap(ev.get('oom_kill', 0) == 0 and ev.get('oom', 0) == 0,
            'no OOM in the cgroup: oom %d, oom_kill %d, max %d' % (
                ev.get('oom', 0), ev.get('oom_kill', 0), ev.get('max', 0)))
    finally:
        for d, m in modes.items():
            os.chmod(d, m)
        os.rmdir(cg)
    return tap.done()


if __name__ == '__main__':
    if sys.argv[1] == '--child':
        child(*sys.argv[2:5])
        sys.exit(0)
    sys.exit(main())
