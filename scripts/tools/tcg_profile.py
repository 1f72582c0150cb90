#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A sampling profiler for TCG guests, where perf has no PMU to use.

  tcg_profile.py sample IODIR OUT     sample until the guests are gone
  tcg_profile.py report IODIR OUT [--top N]

sample: QEMU's human monitor of every guest (IODIR/mon-ROLE.sock, which
scripts/vm.sh opens when SROCE_VM_MONITOR=1) is asked for the registers of
all vCPUs in turn, as fast as it answers. Each vCPU's RIP and halted state
go into OUT as one line "ROLE CPU PHASE RIP HLT", PHASE being what the
guest wrote last into IODIR/phase (the driver under test, or "idle").
Under TCG the RIP is where the vCPU's current translation block is: a
sample of where the guest spends its host time.

report: every sample resolved to "symbol [module]" with the guest's own
/proc/kallsyms (IODIR/kallsyms-ROLE-PHASE), and per phase and guest the
busy share of each symbol (halted vCPUs counted apart), and the share of
each module."""
import bisect
import collections
import glob
import os
import re
import socket
import sys
import time

RIP = re.compile(r'RIP=([0-9a-f]{16})')
HLT = re.compile(r'HLT=(\d)')
CPU = re.compile(r'^CPU#(\d+)', re.M)


class Monitor:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.s.settimeout(30)
        self.buf = b''
        self.until_prompt()

    def until_prompt(self):
        while b'(qemu) ' not in self.buf:
            data = self.s.recv(65536)
            if not data:
                raise EOFError
            self.buf += data
        out, _, self.buf = self.buf.partition(b'(qemu) ')
        return out.decode(errors='replace')

    def ask(self, cmd):
        self.s.sendall(cmd.encode() + b'\n')
        return self.until_prompt()


def sample(io, out):
    mons = {}
    deadline = time.time() + 120
    # The guests start after this does: wait for their sockets.
    while not mons and time.time() < deadline:
        for path in sorted(glob.glob(os.path.join(io, 'mon-*.sock'))):
            role = path.rsplit('mon-', 1)[1][:-5]
            try:
                mons[role] = Monitor(path)
            except OSError:
                pass
        if not mons:
            time.sleep(0.5)
    n = 0
    with open(out, 'w') as f:
        while mons:
            try:
                with open(os.path.join(io, 'phase')) as p:
                    phase = p.read().strip() or 'idle'
            except OSError:
                phase = 'idle'
            for role in list(mons):
                try:
                    text = mons[role].ask('info registers -a')
                except (OSError, EOFError):
                    del mons[role]
                    continue
                # One block per vCPU, each opened by "CPU#n".
                starts = [m.start() for m in CPU.finditer(text)] + [len(text)]
                for i in range(len(starts) - 1):
                    block = text[starts[i]:starts[i + 1]]
                    rip, hlt = RIP.search(block), HLT.search(block)
                    if rip:
                        f.write('%s %s %s %s %s\n' % (
                            role, CPU.match(block).group(1), phase,
                            rip.group(1), hlt.group(1) if hlt else '0'))
                        n += 1
    print('%d samples in %s' % (n, out))


def load_syms(path):
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in 'tTwW':
                continue
            mod = parts[3] if len(parts) > 3 else ''
            addrs.append(int(parts[0], 16))
            names.append(parts[2] + (' ' + mod if mod else ''))
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def report(io, out, top):
    syms = {}
    counts = collections.defaultdict(collections.Counter)
    idle = collections.Counter()
    with open(out) as f:
        for line in f:
            role, _, phase, rip, hlt = line.split()
            key = (phase, role)
            if hlt == '1':
                idle[key] += 1
                continue
            if key not in syms:
                path = os.path.join(io, 'kallsyms-%s-%s' % (role, phase))
                syms[key] = load_syms(path) if os.path.exists(path) else ([], [])
            addrs, names = syms[key]
            a = int(rip, 16)
            i = bisect.bisect_right(addrs, a) - 1
            if a < 0xffff800000000000:
                name = '(user space)'
            elif i < 0 or not addrs:
                name = '(unknown)'
            else:
                name = names[i]
            counts[key][name] += 1
    for key in sorted(set(counts) | set(idle)):
        phase, role = key
        if phase == 'idle':
            continue
        busy = sum(counts[key].values())
        total = busy + idle[key]
        if not total:
            continue
        print('\n## %s, guest %s: %d samples, %.0f %% busy' %
              (phase, role, total, 100.0 * busy / total))
        mods = collections.Counter()
        for name, c in counts[key].items():
            if name.startswith('('):
                mod = name  # (user space), (unknown)
            else:
                mod = name.split(' ', 1)[1] if ' ' in name else '[kernel]'
            mods[mod] += c
        print('\n| module | busy % |\n|---|---|')
        for mod, c in mods.most_common(8):
            print('| %s | %.1f |' % (mod, 100.0 * c / busy))
        print('\n| symbol | busy % |\n|---|---|')
        for name, c in counts[key].most_common(top):
            print('| %s | %.1f |' % (name, 100.0 * c / busy))


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ('sample', 'report'):
        sys.exit(__doc__)
    if sys.argv[1] == 'sample':
        sample(sys.argv[2], sys.argv[3])
    else:
        top = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == '--top' else 25
        report(sys.argv[2], sys.argv[3], top)


if __name__ == '__main__':
    main()
