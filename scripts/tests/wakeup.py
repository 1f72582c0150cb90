#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How late this guest wakes from a short sleep: the scheduling the rig
gives it, the incast testbed's measure of its own noise.

    wakeup.py STOPFILE OUT

Sleeps 5 ms at a time until STOPFILE exists, then writes to OUT the
lateness of the wakeups past those 5 ms, in ms: "p50 P p99 P max M n N".
"""
import os
import sys
import time

NAP = 0.005


def main():
    stop, out = sys.argv[1], sys.argv[2]
    late = []
    while not os.path.exists(stop):
        for _ in range(20):
            t = time.monotonic()
            time.sleep(NAP)
            late.append((time.monotonic() - t - NAP) * 1000)
    late.sort()
    if not late:
        late = [0.0]

    def pct(p):
        return late[min(len(late) - 1, int(len(late) * p / 100))]
    with open(out, "w") as fh:
        fh.write(f"p50 {pct(50):.3f} p99 {pct(99):.3f} "
                 f"max {late[-1]:.3f} n {len(late)}\n")


if __name__ == "__main__":
    main()
