#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What idle connected RC QPs cost a host: kernel memory and CPU.

On one device, N RC QPs connected to each other in pairs (QP 2i with
QP 2i+1, loopback through the device's own GID), each with a send and a
receive queue of DEPTH work requests, all on one CQ. Measured:
- kernel memory per QP: unreclaimable slab objects in use plus vmalloc
  (soak.py's meminfo(), the least of three looks after the caches let
  go), after the QPs are connected less before they were made, over N;
  and all the kernel's pages per QP, the same way: memory in use less
  the page cache and user processes' anonymous pages (/proc/meminfo),
  which also counts what neither slab nor vmalloc shows (kmalloc's
  allocations of more than two pages, page tables, per-CPU memory);
- idle cost: the busy CPU time of the whole guest (/proc/stat: user,
  nice, system, irq, softirq, steal) and the local timer interrupts
  (/proc/interrupts, LOC) over SECONDS with no QP, then over SECONDS
  with the N QPs connected and nothing posted. A driver that arms a
  timer per QP while idle shows it in both.
Prints one line of key=value words for scripts/guest/bench_qps.sh.
With --detail FILE, also where the memory went, into FILE: each slab
cache's and each vmalloc caller's growth, KiB per QP, largest first.
  qpmem.py DEV GID_INDEX N [--depth D] [--seconds S] [--detail FILE]"""
import argparse
import os
import re
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD

from rdmatest import new_qp, rc_connect, state
from soak import mem_total, meminfo, slabs


def kernel_pages():
    """KiB the kernel holds that /proc/meminfo does not name as page
    cache or user memory: MemTotal - MemFree - Buffers - Cached -
    AnonPages (read right after meminfo(), which drops the caches)."""
    with open('/proc/meminfo') as f:
        m = {k: int(v) for k, v in re.findall(r'(\w+):\s+(\d+)', f.read())}
    return (m['MemTotal'] - m['MemFree'] - m['Buffers'] - m['Cached'] -
            m['AnonPages'])


def vmalloc_callers():
    """{caller: [KiB of address space, KiB of pages]} (/proc/vmallocinfo)."""
    out = {}
    with open('/proc/vmallocinfo') as f:
        for line in f:
            w = line.split()
            if len(w) < 3 or not w[1].isdigit():
                continue
            pages = next((int(x[6:]) for x in w if x.startswith('pages=')), 0)
            v = out.setdefault(w[2], [0, 0])
            v[0] += int(w[1]) / 1024
            v[1] += pages * os.sysconf('SC_PAGE_SIZE') / 1024
    return out


def detail(path, before, after, n):
    """Write to @path the slab caches and vmalloc callers that grew from
    @before to @after ((slabs(), vmalloc_callers()) pairs), per QP."""
    (s0, v0), (s1, v1) = before, after
    rows = [(s1[k] - s0.get(k, 0), 'slab %s' % k) for k in s1]
    for k, (size, pages) in v1.items():
        was = v0.get(k, [0, 0])
        rows.append((pages - was[1], 'vmalloc %s (address space %+.2f)' %
                     (k, (size - was[0]) / n)))
    with open(path, 'w') as f:
        for kib, what in sorted(rows, reverse=True):
            if kib > 0:
                f.write('%8.2f KiB/QP  %s\n' % (kib / n, what))


def busy_ticks():
    """Busy jiffies of all CPUs so far, as scripts/guest/bench.sh counts."""
    with open('/proc/stat') as f:
        w = f.readline().split()
    return sum(int(w[i]) for i in (1, 2, 3, 6, 7, 8))


def timer_irqs():
    """Local timer interrupts so far, all CPUs."""
    with open('/proc/interrupts') as f:
        for line in f:
            w = line.split()
            if w and w[0] == 'LOC:':
                return sum(int(x) for x in w[1:] if x.isdigit())
    return 0


def idle(seconds):
    """(busy jiffies, local timer interrupts) over @seconds of sleep."""
    b0, t0 = busy_ticks(), timer_irqs()
    time.sleep(seconds)
    return busy_ticks() - b0, timer_irqs() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dev')
    ap.add_argument('gidx', type=int)
    ap.add_argument('n', type=int)
    ap.add_argument('--depth', type=int, default=128)
    ap.add_argument('--seconds', type=float, default=20)
    ap.add_argument('--detail')
    a = ap.parse_args()
    n = a.n + a.n % 2
    ctx = Context(name=a.dev)
    gid = ctx.query_gid(1, a.gidx)
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    busy0, loc0 = idle(a.seconds)
    m0 = meminfo()
    k0 = kernel_pages()
    d0 = (slabs(), vmalloc_callers())
    qps = [new_qp(pd, cq, max_send_wr=a.depth, max_recv_wr=a.depth,
                  max_send_sge=1, max_recv_sge=1) for _ in range(n)]
    for i in range(0, n, 2):
        rc_connect(qps[i], gid, a.gidx, qps[i + 1].qp_num)
        rc_connect(qps[i + 1], gid, a.gidx, qps[i].qp_num)
    m1 = meminfo()
    k1 = kernel_pages()
    if a.detail:
        detail(a.detail, d0, (slabs(), vmalloc_callers()), n)
    busy1, loc1 = idle(a.seconds)
    up = sum(state(q) == e.IBV_QPS_RTS for q in qps)
    print('qps=%d depth=%d rts=%d kib_per_qp=%.2f all_kib_per_qp=%.2f '
          'slab_kib=%d vmalloc_kib=%d '
          'idle_s=%g hz=%d ncpu=%d busy_none=%d busy_qps=%d loc_none=%d loc_qps=%d' % (
              n, a.depth, up, (mem_total(m1) - mem_total(m0)) / n, (k1 - k0) / n,
              m1['objects'] - m0['objects'],
              m1['VmallocUsed'] - m0['VmallocUsed'], a.seconds,
              os.sysconf('SC_CLK_TCK'), os.cpu_count(), busy0, busy1, loc0, loc1))


if __name__ == '__main__':
    main()
