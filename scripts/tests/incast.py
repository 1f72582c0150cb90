#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Totals of an incast run (scripts/tests/incast.sh).

    incast.py IODIR RATE_MBIT

Reads what the guests left in IODIR and prints the table of
Documentation/congestion.rst ("Incast") for congestion control off and
on. Writes IODIR/incast-values ("NAME VALUE" lines, for the checks) and
IODIR/rates.dat (seconds from the phase's start, the QP "role:qpn",
its rate in Mbit/s; for the PNG).
"""
import json
import os
import re
import sys

from rsttable import rst_table

PHASES = ("off", "on")
SENDERS = ("a", "b")
MIB = 1048576


def pct(vals, p):
    """The p-th percentile (nearest rank) of vals, or 0 when empty."""
    if not vals:
        return 0
    s = sorted(vals)
    return s[min(len(s) - 1, max(0, -(-p * len(s) // 100) - 1))]


def stamped(path):
    """(time, text) for each "T time" block of a sampler's file."""
    out, t, buf = [], None, []
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return out
    for line in lines + ["T end"]:
        if line.startswith("T "):
            if t is not None:
                out.append((t, "\n".join(buf)))
            t = None if line == "T end" else float(line[2:])
            buf = []
        else:
            buf.append(line)
    return out


def queue(io, phase, rate):
    """Drops, CE marks and backlog percentiles at the bottleneck."""
    samples = []
    for _, text in stamped(f"{io}/queue-{phase}"):
        try:
            q = json.loads(text.strip())
        except ValueError:
            continue
        q = [x for x in q if x.get("kind") == "red"]
        if q:
            samples.append(q[0])
    if not samples:
        return {}
    first, last = samples[0], samples[-1]
    backlog = [s.get("backlog", 0) for s in samples]
    ms = 8.0 / (rate * 1000)
    return {
        "drops": last.get("drops", 0) - first.get("drops", 0),
        "ce": last.get("marked", 0) - first.get("marked", 0),
        "sent": last.get("bytes", 0) - first.get("bytes", 0),
        "q50": pct(backlog, 50), "q99": pct(backlog, 99),
        "q50ms": pct(backlog, 50) * ms, "q99ms": pct(backlog, 99) * ms,
    }


def counters(io, phase, role):
    """The change of role's sroce counters over the phase."""
    def read(n):
        try:
            w = open(f"{io}/ctr{n}-{phase}-{role}").read().split()
        except OSError:
            return {}
        return {k: int(v) for k, v in zip(w, w[1:]) if v.isdigit()}
    c0, c1 = read(0), read(1)
    return {k: c1[k] - c0.get(k, 0) for k in c1}


def perftest_row(path, col):
    """Column col of the last result row of a perftest client's output."""
    try:
        rows = [ln.split() for ln in open(path)
                if re.match(r"^\s*\d+\s+\d+\s", ln)]
    except OSError:
        return None
    try:
        return float(rows[-1][col])
    except (IndexError, ValueError):
        return None


def rates(io, phase, fh):
    """Each QP's cc_rate_kbps samples, as Mbit/s, to fh; their count."""
    n, t0 = 0, None
    for role in SENDERS:
        for t, text in stamped(f"{io}/rates-{phase}-{role}"):
            t0 = t if t0 is None else min(t0, t)
    for role in SENDERS:
        for t, text in stamped(f"{io}/rates-{phase}-{role}"):
            for rec in re.split(r"\n(?=\S)", text):
                qpn = re.search(r"\blqpn (\d+)", rec)
                r = re.search(r"\b(?:drv_)?cc_rate_kbps (\d+)", rec)
                if qpn and r:
                    fh.write(f"{phase} {t - t0:.2f} {role}:{qpn.group(1)} "
                             f"{int(r.group(1)) / 1000:.3f}\n")
                    n += 1
    return n


def wakeup(io, phase, role):
    """wakeup.py's lateness percentiles of role's 5 ms sleeps, in ms."""
    try:
        w = open(f"{io}/wakeup-{phase}-{role}").read().split()
    except OSError:
        return {}
    return {k: float(x) for k, x in zip(w[::2], w[1::2])}


def phase_values(io, phase, rate, fh):
    v = {}
    q = queue(io, phase, rate)
    v["drops"] = q.get("drops", -1)
    v["ce"] = q.get("ce", 0)
    v["q50"], v["q99"] = q.get("q50", 0), q.get("q99", 0)
    v["q50ms"], v["q99ms"] = q.get("q50ms", 0), q.get("q99ms", 0)
    bw = [perftest_row(f"{io}/bw-{phase}-{s}", 3) or 0.0 for s in SENDERS]
    mbit = [x * MIB * 8 / 1e6 for x in bw]
    v["bw_a"], v["bw_b"] = mbit
    v["goodput"] = 100.0 * sum(mbit) / rate
    sq = sum(x * x for x in mbit)
    v["jain"] = sum(mbit) ** 2 / (len(mbit) * sq) if sq else 0.0
    # ib_write_lat: t_min t_max t_typical t_avg t_stdev 99% 99.9% (us).
    v["p99"] = perftest_row(f"{io}/lat-{phase}", 7) or 0.0
    v["lat_typ"] = perftest_row(f"{io}/lat-{phase}", 4) or 0.0
    snd = [counters(io, phase, s) for s in SENDERS]
    rcv = counters(io, phase, "c")
    v["retx"] = sum(c.get("tx_retransmit", 0) for c in snd)
    v["nak_rx"] = sum(c.get("rx_nak_seq", 0) for c in snd)
    v["timeouts"] = sum(c.get("ack_timeout", 0) for c in snd)
    v["cnp_handled"] = sum(c.get("rp_cnp_handled", 0) for c in snd)
    v["wait_rate"] = sum(c.get("tx_wait_rate", 0) for c in snd)
    v["cnp_sent"] = rcv.get("np_cnp_sent", 0)
    v["ecn_rx"] = rcv.get("np_ecn_marked_roce_packets", 0)
    v["rate_samples"] = rates(io, phase, fh)
    for role in ("r", "a"):
        w = wakeup(io, phase, role)
        v[f"wake50_{role}"], v[f"wake99_{role}"] = w.get("p50", -1), w.get("p99", -1)
    return v


ROWS = (
    ("bottleneck drops", "drops", "%d"),
    ("CE marks at the bottleneck", "ce", "%d"),
    ("backlog p50, bytes (ms)", ("q50", "q50ms"), "%d (%.0f)"),
    ("backlog p99, bytes (ms)", ("q99", "q99ms"), "%d (%.0f)"),
    ("goodput a, Mbit/s", "bw_a", "%.2f"),
    ("goodput b, Mbit/s", "bw_b", "%.2f"),
    ("goodput, % of the bottleneck", "goodput", "%.1f"),
    ("Jain fairness a, b", "jain", "%.3f"),
    ("probe latency typical, us", "lat_typ", "%.0f"),
    ("probe latency p99, us", "p99", "%.0f"),
    ("retransmitted packets (a + b)", "retx", "%d"),
    ("sequence NAKs received (a + b)", "nak_rx", "%d"),
    ("ACK timeouts (a + b)", "timeouts", "%d"),
    ("CE-marked packets at c", "ecn_rx", "%d"),
    ("CNPs sent by c", "cnp_sent", "%d"),
    ("CNPs handled (a + b)", "cnp_handled", "%d"),
    ("pacer waits (a + b)", "wait_rate", "%d"),
    ("late wakeups at r, p50/p99 ms", ("wake50_r", "wake99_r"), "%.1f/%.1f"),
    ("late wakeups at a, p50/p99 ms", ("wake50_a", "wake99_a"), "%.1f/%.1f"),
)


def table(vals):
    cells = [("", "cc off", "cc on")]
    for name, key, fmt in ROWS:
        keys = key if isinstance(key, tuple) else (key,)
        cells.append((name,) + tuple(
            fmt % tuple(vals[p][k] for k in keys) for p in PHASES))
    return rst_table(cells)

def main():
    io, rate = sys.argv[1], float(sys.argv[2])
    vals = {}
    with open(os.path.join(io, "rates.dat"), "w") as fh:
        for p in PHASES:
            vals[p] = phase_values(io, p, rate, fh)
    print(table(vals))
    off, on = vals["off"]["p99"], vals["on"]["p99"]
    if off and on:
        print(f"probe p99, cc on / cc off: {on / off:.3f} (goal <= 0.2)")
    with open(os.path.join(io, "incast-values"), "w") as fh:
        for p in PHASES:
            for k, x in vals[p].items():
                fh.write(f"{k}_{p} {x}\n")


if __name__ == "__main__":
    main()
