#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host CPU time of the guests' QEMU processes, by the guests' phase.

  host_cpu.py IODIR OUT

Runs on the host beside scripts/vm.sh. Finds each guest's QEMU (the
process whose command line names IODIR/console-ROLE.log) and its vCPU
thread (single-threaded TCG runs every vCPU of a guest on one thread,
named ".../TCG"), then twice a second reads their CPU time from /proc
and adds what they used since the last read to the phase a guest last
wrote into IODIR/phase (a bench point's number, a driver's name, or
"idle"). When every QEMU it found is gone it writes OUT, one line per
phase and guest: "PHASE ROLE WALL_S VCPU_S QEMU_S". A vCPU thread near
WALL_S is a guest whose host core was saturated, whatever the guest's
own /proc/stat said (it counts its halted vCPUs as idle, and a guest
waiting on QEMU's device emulation as busy)."""
import collections
import glob
import os
import sys
import time

TICK = os.sysconf('SC_CLK_TCK')
PERIOD = 0.5


def cpu_seconds(stat_path):
    """utime + stime of a /proc stat file in seconds, None once gone (a
    zombie, not reaped yet, counts as gone)."""
    try:
        with open(stat_path) as f:
            # The command name may hold spaces: the fields after its ')'.
            fields = f.read().rsplit(')', 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] in ('Z', 'X'):
        return None
    return (int(fields[11]) + int(fields[12])) / float(TICK)


def read(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError:
        return b''


def vcpu_thread(proc):
    """The stat file of PROC's TCG vCPU thread, None if it has none yet."""
    for task in glob.glob(proc + '/task/*'):
        if read(task + '/comm').strip().endswith(b'/TCG'):
            return task + '/stat'
    return None


def find_qemus(io, found):
    """Add ROLE -> [process dir, vCPU thread stat or None] to FOUND, and
    the vCPU thread of one found before QEMU had started it."""
    for proc in glob.glob('/proc/[0-9]*'):
        if not read(proc + '/comm').startswith(b'qemu-system'):
            continue
        cmd = read(proc + '/cmdline').decode(errors='replace')
        for role in ('a', 'b'):
            if role not in found and 'file:%s/console-%s.log' % (io, role) in cmd:
                found[role] = [proc, None]
    for entry in found.values():
        if entry[1] is None:
            entry[1] = vcpu_thread(entry[0])


def sample(io, out):
    found = {}
    last = {}
    sums = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    deadline = time.monotonic() + 300
    while True:
        if time.monotonic() < deadline and (
                len(found) < 2 or any(v is None for _, v in found.values())):
            find_qemus(io, found)
        phase = read(os.path.join(io, 'phase')).decode(errors='replace').strip() or 'idle'
        now = time.monotonic()
        alive = 0
        for role, (proc, vcpu) in found.items():
            q = cpu_seconds(proc + '/stat')
            if q is None:
                continue
            alive += 1
            v = cpu_seconds(vcpu) if vcpu else None
            prev = last.get(role)
            last[role] = (now, v, q)
            if prev is None:
                continue
            acc = sums[(phase, role)]
            acc[0] += now - prev[0]
            if v is not None and prev[1] is not None:
                acc[1] += v - prev[1]
            acc[2] += q - prev[2]
        if found and not alive:
            break
        if not found and time.monotonic() >= deadline:
            break
        time.sleep(PERIOD)
    with open(out, 'w') as f:
        for (phase, role), (wall, vcpu, qemu) in sorted(sums.items()):
            f.write('%s %s %.2f %.2f %.2f\n' % (phase, role, wall, vcpu, qemu))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sample(sys.argv[1], sys.argv[2])


if __name__ == '__main__':
    main()
