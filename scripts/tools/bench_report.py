#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a `make bench` results folder into results.json, summary.md and
gnuplot plots.

Input: DIR/TARGET-TOPO/bench.raw (one key=value line per perftest run,
written by scripts/guest/bench.sh), DIR/TARGET-TOPO/cdf-*.txt (latency
samples in microseconds) and DIR/TARGET-TOPO/host-cpu.txt (the host CPU
of each guest's QEMU per point, from scripts/tools/host_cpu.py). Each
point is the median of its repetitions; the ratio is sroce's median
over rdma_rxe's. For bandwidth a ratio above 1
is better, for latency and CPU time per GiB one below 1.
"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_nvmf  # noqa: E402  (the NVMe-oF section, beside this file)

DRIVERS = ("sroce", "rxe")
BW_KEYS = ("bw", "mpps")
# Kinds of perftest bandwidth lines: the matrix's (bw), the message rate
# section's (msg) and the many QPs section's (qps).
BW_KINDS = ("bw", "msg", "qps")
# Lines of one figure set per driver, not perftest's (section qps).
PER_DRIVER_KINDS = ("qpmem", "cm")
LAT_KEYS = ("typ", "avg", "p99", "p999")


def read_host_cpu(path):
    """Point number -> {"vcpu": the busiest guest's vCPU thread share of
    a host core, "qemu": host cores all the guests' QEMUs took, "qemu_s":
    the host CPU seconds they took}."""
    per = {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) != 5 or w[0] == "idle":
                    continue
                wall, vcpu, qemu = (float(x) for x in w[2:])
                if wall > 0:
                    per.setdefault(w[0], {})[w[1]] = (vcpu / wall, qemu / wall, qemu)
    except OSError:
        return {}
    return {n: {"vcpu": max(v[0] for v in g.values()),
                "qemu": sum(v[1] for v in g.values()),
                "qemu_s": sum(v[2] for v in g.values())}
            for n, g in per.items()}


def raw_files(folder, name):
    """(target, path, host CPU by point) of each FOLDER/TARGET-TOPO that
    holds a file NAME."""
    for sub in sorted(os.listdir(folder)):
        raw = os.path.join(folder, sub, name)
        if os.path.isfile(raw):
            yield (sub.rsplit("-", 1)[0], raw,
                   read_host_cpu(os.path.join(folder, sub, "host-cpu.txt")))


def read_points(folder):
    points = []
    for target, raw, host in raw_files(folder, "bench.raw"):
        with open(raw) as f:
            for line in f:
                p = dict(w.split("=", 1) for w in line.split() if "=" in w)
                if not p:
                    continue
                p["target"] = target
                if p.get("kind") == "link":
                    # Runs from before bursts were measured: one a doorbell.
                    p.setdefault("burst", "1")
                    for k in ("mtu", "frame", "payload", "burst", "sent", "got"):
                        p[k] = int(p[k])
                    p["pps"] = float(p["pps"])
                    points.append(p)
                    continue
                # Runs from before placements were chosen: the scheduler's.
                p.setdefault("place", "free")
                if p.get("kind") in PER_DRIVER_KINDS:
                    points.append(numbers(p))
                    continue
                for k in BW_KEYS + LAT_KEYS + ("cpu_s", "kcpu_s", "wall_s", "bytes"):
                    if k in p:
                        p[k] = float(p[k])
                for k in ("mtu", "size", "qps", "rep"):
                    p[k] = int(p[k])
                if "post" in p:
                    p["post"] = int(p["post"])
                h = host.get(p.get("point"))
                if h:
                    p["host_vcpu"], p["host_qemu"] = h["vcpu"], h["qemu"]
                points.append(p)
    return points


def numbers(p):
    """@p with every value that reads as a number made one."""
    for k, v in p.items():
        try:
            p[k] = int(v)
        except ValueError:
            try:
                p[k] = float(v)
            except ValueError:
                pass
    return p


def point_key(p):
    return (p["target"], p["topo"], p["mtu"], p["place"], p["kind"],
            p["tool"], p["size"], p["qps"])


def cpu_per_gib(p, key="cpu_s", setup=None):
    """Busy CPU seconds of both guests per GiB moved (bandwidth runs):
    all of it (cpu_s) or the kernel's (kcpu_s; runs from before it was
    recorded have none). With the point's setup run (a tenth of its
    messages, same repetition), what that one cost is taken off and so
    are its bytes: the cost of each further GiB, without perftest's start
    and connection (none when the setup run took as much: noise). Without
    one (results from before setup runs), the whole run's."""
    if key not in p:
        return None
    cpu, moved = p[key], p.get("bytes", 0)
    if setup and key in setup and 0 < setup.get("bytes", 0) < moved:
        cpu, moved = cpu - setup[key], moved - setup["bytes"]
        if cpu <= 0:
            return None
    gib = moved / float(1 << 30)
    return cpu / gib if gib > 0 else None


def ratio(s, x):
    return s / x if s and x else None


def summarise(points):
    groups = {}
    setups = {}
    for p in points:
        if p["kind"] == "link" or p["kind"] in PER_DRIVER_KINDS:
            continue
        if p["kind"] == "setup":
            if "failed" not in p:
                setups[point_key(dict(p, kind="bw")) + (p["drv"], p["rep"])] = p
            continue
        groups.setdefault(point_key(p), {}).setdefault(p["drv"], []).append(p)
    rows = []
    for key in sorted(groups):
        target, topo, mtu, place, kind, tool, size, qps = key
        row = {"target": target, "topo": topo, "mtu": mtu, "place": place,
               "kind": kind, "tool": tool, "size": size, "qps": qps}
        for drv in DRIVERS:
            runs = groups[key].get(drv, [])
            # perftest printed 0.00 MB/s and 0 messages a second for a
            # run that had moved its bytes (once, a misread clock): no
            # figure, so a failed run. (An 8-byte atomic run may show
            # 0.00 MB/s with a message rate: that one counts.)
            good = [r for r in runs if "failed" not in r and
                    not (kind in BW_KINDS and r.get("bw") == 0 and
                         r.get("mpps") == 0)]
            d = {"runs": len(runs), "failed": len(runs) - len(good)}
            keys = BW_KEYS if kind in BW_KINDS else LAT_KEYS
            for k in keys:
                vals = [r[k] for r in good if k in r]
                d[k] = statistics.median(vals) if vals else None
            if kind == "bw":
                for k in ("cpu_s", "kcpu_s"):
                    cpg = [cpu_per_gib(r, k, setups.get(key + (drv, r["rep"])))
                           for r in good]
                    cpg = [c for c in cpg if c is not None]
                    d[k + "_per_gib"] = statistics.median(cpg) if cpg else None
                for k in ("host_vcpu", "host_qemu"):
                    vals = [r[k] for r in good if k in r]
                    d[k] = statistics.median(vals) if vals else None
            row[drv] = d
        if kind == "msg":
            main = "mpps"
            row["post"] = next((r.get("post") for runs in groups[key].values()
                                for r in runs), None)
        else:
            main = "bw" if kind in BW_KINDS else "typ"
        row["ratio"] = ratio(row["sroce"].get(main), row["rxe"].get(main))
        if kind == "bw":
            row["cpu_ratio"] = ratio(row["sroce"]["cpu_s_per_gib"],
                                     row["rxe"]["cpu_s_per_gib"])
            row["kcpu_ratio"] = ratio(row["sroce"]["kcpu_s_per_gib"],
                                      row["rxe"]["kcpu_s_per_gib"])
        elif kind == "lat":
            for k in ("p99", "p999"):
                row[k + "_ratio"] = ratio(row["sroce"][k], row["rxe"][k])
        rows.append(row)
    return rows


def fmt(v, digits=1):
    if v is None:
        return "-"
    return "%.*f" % (digits, v)


def size_name(n):
    if n >= 1 << 20:
        return "%d MiB" % (n >> 20)
    if n >= 1 << 10:
        return "%d KiB" % (n >> 10)
    return "%d B" % n


def links(points, rows):
    """The link's capacity toward each guest, against the best bandwidth
    each driver reached at that MTU in that direction (any placement, size
    or QP count). Guest b runs the clients: READ data flows toward b,
    WRITE and SEND data toward a."""
    out = []
    for p in points:
        if p["kind"] != "link":
            continue
        best = {}
        for r in rows:
            if (r["kind"] == "bw" and r["tool"] != "ib_atomic_bw" and
                    toward(r["tool"]) == p["to"] and r["target"] == p["target"] and
                    r["topo"] == p["topo"] and r["mtu"] == p["mtu"]):
                for d in DRIVERS:
                    v = r[d].get("bw")
                    if v is not None and v > best.get(d, 0):
                        best[d] = v
        cap = p["pps"] * p["payload"] / float(1 << 20) if p["pps"] > 0 else None
        out.append({"target": p["target"], "mtu": p["mtu"], "to": p["to"],
                    "frame": p["frame"], "burst": p["burst"],
                    "pps": p["pps"] or None,
                    "sent": p["sent"], "got": p["got"],
                    "payload_mbs": cap, "best": best})
    return out


def toward(tool):
    """The guest a pair bandwidth test's data flows toward: b runs the
    clients, so READ data flows toward b, WRITE and SEND data toward a."""
    return "b" if tool == "ib_read_bw" else "a"


def fractions(rows, caps):
    """Each pair bandwidth cell's fraction of the bare link: the driver's
    MB/s over the RDMA payload the link carried in the same direction at
    the same MTU in the same boot (the best of pktgen's bursts). Sets
    row["link_mbs"] and row[DRIVER]["link_frac"] (None without a link
    figure)."""
    for r in rows:
        if r["kind"] != "bw" or r["topo"] != "pair":
            continue
        cap = [c["payload_mbs"] for c in caps
               if c["target"] == r["target"] and c["mtu"] == r["mtu"] and
               c["to"] == toward(r["tool"]) and c["payload_mbs"]]
        r["link_mbs"] = max(cap) if cap else None
        for d in DRIVERS:
            r[d]["link_frac"] = ratio(r[d].get("bw"), r["link_mbs"])


def per_driver(points, kind):
    """The kind=qpmem or kind=cm lines, one row per target, topology and
    MTU: each numeric figure's median over the repetitions, per driver."""
    groups = {}
    for p in points:
        if p["kind"] == kind:
            key = (p["target"], p["topo"], p["mtu"])
            groups.setdefault(key, {}).setdefault(p["drv"], []).append(p)
    rows = []
    for (target, topo, mtu), by in sorted(groups.items()):
        row = {"target": target, "topo": topo, "mtu": mtu}
        for d in DRIVERS:
            runs = by.get(d, [])
            keys = {k for r in runs for k, v in r.items()
                    if isinstance(v, (int, float)) and k not in ("rep", "point")}
            row[d] = {k: statistics.median([r[k] for r in runs if k in r])
                      for k in keys}
        rows.append(row)
    return rows


def recoveries(points):
    """sroce's bandwidth and latency runs whose counters of loss and
    recovery moved (ev_client, ev_server: "name:delta,..." or "none"),
    and whether any run recorded them at all (results from before they
    were have none)."""
    recorded = [p for p in points if p.get("drv") == "sroce" and
                p["kind"] in ("bw", "lat") and "ev_client" in p]
    moved = [p for p in recorded if p["ev_client"] != "none" or
             p.get("ev_server", "none") != "none"]
    return moved, bool(recorded)


def markdown(rows, caps=(), points=()):
    out = ["# make bench: sroce / rdma_rxe",
           "",
           "The guests run under TCG (QEMU, no KVM): absolute figures mean "
           "nothing, only the ratios of one run do. Each figure is the "
           "median of its runs; ratio = sroce / rdma_rxe (bandwidth: higher "
           "is better; latency and CPU per GiB: lower is better). CPU is "
           "the busy time of every guest involved, less that of a setup "
           "run of a tenth of the messages (5 at least) just before "
           "(its bytes less too), so that perftest's start and "
           "connection do not count as cost per GiB; kernel CPU is its "
           "system, irq and softirq share: "
           "the drivers, the network stack and virtio, without perftest "
           "itself, whose polling loop keeps a vCPU busy whatever the "
           "driver does (so CPU per GiB also follows the bandwidth). "
           "Link: in the pair topology, the cell's MB/s over the RDMA "
           "payload the bare link carried in the same direction at that "
           "MTU in the same boot (the best of pktgen's bursts, below).",
           "",
           "Placement: where perftest ran. irq: on vCPU 0, which takes the "
           "NIC's interrupts; apart: on vCPU 1; free: where the scheduler "
           "put it. A guest's vCPUs share one host thread under TCG and "
           "perftest polls, so the placement moves the figures; compare "
           "the drivers within one placement.",
           "",
           "## Bandwidth",
           "",
           "| target | topo | MTU | placement | test | size | QPs | sroce MB/s "
           "| rdma_rxe MB/s | ratio | sroce CPU s/GiB | rdma_rxe CPU s/GiB "
           "| CPU ratio | sroce kernel CPU s/GiB | rdma_rxe kernel CPU s/GiB "
           "| kernel CPU ratio | sroce / link | rdma_rxe / link |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["kind"] != "bw":
            continue
        fails = ""
        if r["sroce"]["failed"] or r["rxe"]["failed"]:
            fails = " (failed runs: sroce %d, rdma_rxe %d)" % (
                r["sroce"]["failed"], r["rxe"]["failed"])
        out.append("| %s | %s | %d | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s "
                   "| %s | %s | %s | %s | %s |" % (
                       r["target"], r["topo"], r["mtu"], r["place"], r["tool"] + fails,
                       size_name(r["size"]), r["qps"], fmt(r["sroce"]["bw"]),
                       fmt(r["rxe"]["bw"]), fmt(r["ratio"], 2),
                       fmt(r["sroce"]["cpu_s_per_gib"], 2),
                       fmt(r["rxe"]["cpu_s_per_gib"], 2), fmt(r.get("cpu_ratio"), 2),
                       fmt(r["sroce"]["kcpu_s_per_gib"], 2),
                       fmt(r["rxe"]["kcpu_s_per_gib"], 2), fmt(r.get("kcpu_ratio"), 2),
                       fmt(r["sroce"].get("link_frac"), 2),
                       fmt(r["rxe"].get("link_frac"), 2)))
    if caps:
        out += ["",
                "## The link's capacity",
                "",
                "pktgen in one guest sends frames the size of a full-MTU RoCE "
                "packet to the other (to an address it drops without "
                "answering), before any RDMA driver is loaded (frames "
                "received: all the receiver's NIC counted meanwhile, an ARP "
                "or two included): the frames per "
                "second one guest pushes through this virtio-net link with no "
                "protocol work at all, and the RDMA payload as many full "
                "packets hold (MB/s as perftest counts them, 2^20 bytes). "
                "Burst: frames handed to the NIC per doorbell, 1 (a kick "
                "per frame, as a driver sending packet by packet) or more "
                "(the rest with xmit_more, as sroce's chains of up to 32). "
                "The best columns are each driver's highest bandwidth at "
                "that MTU in that direction (READ toward b, WRITE and SEND "
                "toward a). pktgen pays its own cost per frame in the "
                "sending guest, so these figures are what the link carried "
                "at least, not a ceiling: a driver that batches can pass "
                "the figure of one frame a doorbell. Where twice rdma_rxe's "
                "best is above the burst's figure, the link itself may "
                "stand between sroce and a ratio of two.",
                "",
                "| target | MTU | toward | frame B | burst | frames/s "
                "| frames sent | frames received "
                "| payload MB/s | sroce best MB/s | rdma_rxe best MB/s |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for c in caps:
            out.append("| %s | %d | %s | %d | %d | %s | %d | %d | %s | %s | %s |" % (
                c["target"], c["mtu"], c["to"], c["frame"], c["burst"],
                fmt(c["pps"], 0),
                c["sent"], c["got"], fmt(c["payload_mbs"]),
                fmt(c["best"].get("sroce")), fmt(c["best"].get("rxe"))))
    hosted = [r for r in rows if r["kind"] == "bw" and
              any(r[d]["host_vcpu"] is not None for d in DRIVERS)]
    if hosted:
        out += ["",
                "## Host CPU",
                "",
                "Read on the host from /proc while each run lasted "
                "(scripts/tools/host_cpu.py): the vCPU thread of the busier "
                "guest in %% of one host core (single-threaded TCG runs all "
                "of a guest's vCPUs on that one thread: near 100 %%, that "
                "guest could not go faster on this host), and the host "
                "cores both guests' QEMU processes took in all (vCPU "
                "threads, device emulation, the link). The host has %d "
                "cores." % (os.cpu_count() or 0),
                "",
                "| target | topo | MTU | placement | test | size | QPs "
                "| sroce vCPU thread % | rdma_rxe vCPU thread % "
                "| sroce QEMU cores | rdma_rxe QEMU cores |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in hosted:
            s, x = r["sroce"], r["rxe"]
            pct = [None if d["host_vcpu"] is None else 100 * d["host_vcpu"]
                   for d in (s, x)]
            out.append("| %s | %s | %d | %s | %s | %s | %d | %s | %s | %s | %s |" % (
                r["target"], r["topo"], r["mtu"], r["place"], r["tool"],
                size_name(r["size"]), r["qps"], fmt(pct[0], 0), fmt(pct[1], 0),
                fmt(s["host_qemu"], 2), fmt(x["host_qemu"], 2)))
    moved, recorded = recoveries(points)
    if recorded:
        out += ["",
                "## sroce's recovery",
                "",
                "sroce's counters of loss and recovery (ack_timeout, "
                "tx_rewind, tx_retransmit, rx_nak_seq, rx_seq_gap, "
                "rx_dup_request, tx_rnr_nak, rx_rnr_nak, tx_drop, "
                "rx_drop_icrc) that moved during a run, on the client's "
                "device and the server's (in loopback the one device is "
                "both): a run that had to recover from loss on a clean "
                "link took longer for it, and its figure is one to look at "
                "twice."]
        if not moved:
            out += ["", "No sroce run moved them."]
        else:
            out += ["",
                    "| target | topo | MTU | placement | test | size | QPs "
                    "| rep | MB/s or usec | client | server |",
                    "|---|---|---|---|---|---|---|---|---|---|---|"]
            for p in moved:
                fig = p.get("bw") if p["kind"] == "bw" else p.get("typ")
                out.append("| %s | %s | %d | %s | %s | %s | %d | %d | %s | %s | %s |" % (
                    p["target"], p["topo"], p["mtu"], p["place"], p["tool"],
                    size_name(p["size"]), p["qps"], p["rep"], fmt(fig),
                    p["ev_client"], p.get("ev_server", "none")))
    out += ["",
            "## Latency (usec)",
            "",
            "| target | topo | MTU | placement | test | size | sroce median "
            "| rdma_rxe median | ratio | sroce p99 | rdma_rxe p99 | p99 ratio "
            "| sroce p99.9 | rdma_rxe p99.9 | p99.9 ratio |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["kind"] != "lat":
            continue
        s, x = r["sroce"], r["rxe"]
        out.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["target"], r["topo"], r["mtu"], r["place"], r["tool"],
            size_name(r["size"]),
            fmt(s["typ"]), fmt(x["typ"]), fmt(r["ratio"], 2),
            fmt(s["p99"]), fmt(x["p99"]), fmt(r["p99_ratio"], 2),
            fmt(s["p999"]), fmt(x["p999"]), fmt(r["p999_ratio"], 2)))
    if any(r["kind"] == "msg" for r in rows):
        out += msg_markdown(rows)
    if any(r["kind"] == "qps" for r in rows) or any(
            p["kind"] in PER_DRIVER_KINDS for p in points):
        out += qps_markdown(rows, points)
    return "\n".join(out) + "\n"


def table(title, text, heads, level="###"):
    """The lines that open a markdown table: a title of @level, its text,
    the column heads."""
    return ["", level + " " + title, "", text, "",
            "| " + " | ".join(heads) + " |", "|---" * len(heads) + "|"]


def msg_markdown(rows):
    """The message rate section's table (kind=msg)."""
    out = table(
           "Small messages",
           "64 B SEND and RDMA WRITE, perftest posting a list of work "
           "requests a call (post), millions of messages a second (Mpps) "
           "over all QPs; ratio = sroce / rdma_rxe, higher is better.",
           ["target", "topo", "MTU", "placement", "test", "post", "QPs",
            "sroce Mpps", "rdma_rxe Mpps", "ratio"], "##")
    for r in rows:
        if r["kind"] == "msg":
            out.append("| %s | %s | %d | %s | %s | %s | %d | %s | %s | %s |" % (
                r["target"], r["topo"], r["mtu"], r["place"], r["tool"],
                r.get("post") or "-", r["qps"], fmt(r["sroce"]["mpps"], 4),
                fmt(r["rxe"]["mpps"], 4), fmt(r["ratio"], 2)))
    return out


def flat(rows, r, drv):
    """Cell @r's bandwidth over its 16-QP cell's (same driver, target,
    topology, MTU and placement): 1.0 is flat."""
    base = [b[drv]["bw"] for b in rows if b["kind"] == "qps" and b["qps"] == 16 and
            all(b[k] == r[k] for k in ("target", "topo", "mtu", "place"))]
    return ratio(r[drv]["bw"], base[0]) if base else None


def qps_markdown(rows, points):
    """The many QPs section's tables (kind=qps, qpmem, cm)."""
    out = table(
           "Many QPs",
           "ib_write_bw of 4 KiB messages on N RC QPs, some 4096 messages "
           "in all (5 a QP at least): MB/s and Mpps over all QPs; vs 16: "
           "the cell's MB/s over the same driver's on 16 QPs (1.00: flat).",
           ["target", "topo", "MTU", "placement", "QPs", "sroce MB/s",
            "rdma_rxe MB/s", "ratio", "sroce Mpps", "rdma_rxe Mpps",
            "sroce vs 16", "rdma_rxe vs 16"], "##")
    for r in rows:
        if r["kind"] == "qps":
            out.append("| %s | %s | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                r["target"], r["topo"], r["mtu"], r["place"], r["qps"],
                fmt(r["sroce"]["bw"]), fmt(r["rxe"]["bw"]), fmt(r["ratio"], 2),
                fmt(r["sroce"]["mpps"], 4), fmt(r["rxe"]["mpps"], 4),
                fmt(flat(rows, r, "sroce"), 2), fmt(flat(rows, r, "rxe"), 2)))
    return out + qpmem_markdown(points) + cm_markdown(points)


def qpmem_markdown(points):
    """Kernel memory and idle cost per connected QP (kind=qpmem)."""
    mem = per_driver(points, "qpmem")
    if not mem:
        return []
    out = table(
           "Kernel memory and idle cost of connected QPs",
           "N RC QPs connected in pairs on one device (send and receive "
           "queues of depth 128, scripts/tests/bench_qpmem.py): kernel "
           "memory per QP (unreclaimable slab objects in use and vmalloc, "
           "after less before, over N; all: every page the kernel holds "
           "but the page cache and user memory, which also counts kmalloc's "
           "allocations of more than two pages), and over the same seconds of idle "
           "with none and with the N QPs: the guest's busy CPU (% of all "
           "its vCPUs) and its local timer interrupts a second.",
           ["target", "topo", "driver", "QPs", "KiB/QP", "all KiB/QP", "slab KiB",
            "vmalloc KiB", "idle s", "busy % none", "busy % QPs",
            "timer irq/s none", "timer irq/s QPs"])
    for r in mem:
        for d in DRIVERS:
            m = r[d]
            if "kib_per_qp" not in m:
                continue
            ticks = m["idle_s"] * m["hz"] * m.get("ncpu", 1)
            out.append("| %s | %s | %s | %d | %s | %s | %d | %d | %g | %s | %s | %s | %s |" % (
                r["target"], r["topo"], "rdma_rxe" if d == "rxe" else d,
                m["qps"], fmt(m["kib_per_qp"], 2), fmt(m.get("all_kib_per_qp"), 2),
                m["slab_kib"],
                m["vmalloc_kib"], m["idle_s"],
                fmt(100.0 * m["busy_none"] / ticks, 2),
                fmt(100.0 * m["busy_qps"] / ticks, 2),
                fmt(m["loc_none"] / m["idle_s"]), fmt(m["loc_qps"] / m["idle_s"])))
    return out


def cm_markdown(points):
    """rdma_cm connection setup (kind=cm)."""
    cm = per_driver(points, "cm")
    if not cm:
        return []
    out = table(
           "rdma_cm connection setup",
           "cmtime -c N in one guest (client and server on the same "
           "device): connections a second over its setup steps (create id "
           "to connect), and microseconds a connection of the connect step.",
           ["target", "topo", "connections", "sroce conn/s", "rdma_rxe conn/s",
            "ratio", "sroce connect us", "rdma_rxe connect us"])
    for r in cm:
        s, x = r["sroce"], r["rxe"]
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["target"], r["topo"], s.get("conns", x.get("conns", "-")),
            fmt(s.get("conn_per_s")), fmt(x.get("conn_per_s")),
            fmt(ratio(s.get("conn_per_s"), x.get("conn_per_s")), 2),
            fmt(s.get("connect")), fmt(x.get("connect"))))
    return out


def gnuplot(script, cwd):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd,
                       check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("bench_report: gnuplot failed: %s\n" % e)
        return False


def qps_plots(folder, rows):
    """Section qps: MB/s against the QP count, both drivers, one plot per
    target, topology, MTU and placement."""
    made = []
    series = {}
    for r in rows:
        if r["kind"] == "qps":
            series.setdefault((r["target"], r["topo"], r["mtu"], r["place"]),
                              []).append(r)
    for (target, topo, mtu, place), rs in sorted(series.items()):
        name = "qps-%s-%s-%d-%s" % (target, topo, mtu, place)
        lines = []
        for drv in DRIVERS:
            data = os.path.join(folder, "%s-%s.dat" % (name, drv))
            with open(data, "w") as f:
                for r in sorted(rs, key=lambda r: r["qps"]):
                    if r[drv]["bw"] is not None:
                        f.write("%d %f\n" % (r["qps"], r[drv]["bw"]))
            lines.append("'%s' using 1:2 with linespoints title '%s'"
                         % (os.path.basename(data),
                            "rdma_rxe" if drv == "rxe" else drv))
        script = ("set terminal pngcairo noenhanced size 800,500\n"
                  "set output '%s.png'\n"
                  "set title 'ib_write_bw 4 KiB on N QPs, %s, %s, MTU %d, %s "
                  "(TCG: compare the lines only)'\n"
                  "set logscale x 2\nset xlabel 'QPs'\nset ylabel 'MB/s'\n"
                  "set yrange [0:*]\nset key top right\nset grid\nplot %s\n"
                  % (name, target, topo, mtu, place, ", ".join(lines)))
        if gnuplot(script, folder):
            made.append(name + ".png")
    return made


def plots(folder, rows):
    made = []
    # Bandwidth against message size, one plot per target/topo/MTU/test.
    series = {}
    for r in rows:
        if r["kind"] == "bw" and r["tool"] != "ib_atomic_bw":
            series.setdefault((r["target"], r["topo"], r["mtu"], r["place"],
                               r["tool"]), []).append(r)
    for (target, topo, mtu, place, tool), rs in sorted(series.items()):
        if len({r["size"] for r in rs}) < 2:
            continue
        name = "bw-%s-%s-%d-%s-%s" % (target, topo, mtu, place, tool)
        lines = []
        for drv in DRIVERS:
            for q in sorted({r["qps"] for r in rs}):
                data = os.path.join(folder, name + "-%s-q%d.dat" % (drv, q))
                with open(data, "w") as f:
                    for r in sorted(rs, key=lambda r: r["size"]):
                        if r["qps"] == q and r[drv]["bw"] is not None:
                            f.write("%d %f\n" % (r["size"], r[drv]["bw"]))
                lines.append("'%s' using 1:2 with linespoints title '%s, %d QP'"
                             % (os.path.basename(data),
                                "rdma_rxe" if drv == "rxe" else drv, q))
        tics = ", ".join('"%s" %d' % (size_name(n), n)
                         for n in sorted({r["size"] for r in rs}))
        script = ("set terminal pngcairo noenhanced size 800,500\n"
                  "set output '%s.png'\n"
                  "set title '%s, %s, %s, MTU %d, %s (TCG: compare the lines only)'\n"
                  "set logscale x 2\nset xtics (%s)\n"
                  "set xlabel 'message size'\nset ylabel 'MB/s'\n"
                  "set yrange [0:*]\nset key top left\nset grid\n"
                  "plot %s\n" % (name, tool, target, topo, mtu, place, tics,
                                   ", ".join(lines)))
        if gnuplot(script, folder):
            made.append(name + ".png")
    made += qps_plots(folder, rows)
    # Latency CDFs from the sample files.
    cdfs = {}
    for sub in sorted(os.listdir(folder)):
        d = os.path.join(folder, sub)
        if not os.path.isdir(d):
            continue
        target = sub.rsplit("-", 1)[0]
        for fn in sorted(os.listdir(d)):
            if fn.startswith("cdf-") and fn.endswith(".txt"):
                drv, rest = fn[4:-4].split("-", 1)
                cdfs.setdefault((target, rest), []).append((drv, os.path.join(d, fn)))
    for (target, rest), files in sorted(cdfs.items()):
        name = "lat-cdf-%s-%s" % (target, rest)
        lines = []
        for drv, path in files:
            with open(path) as f:
                vals = sorted(float(v) for v in f if v.strip())
            if not vals:
                continue
            data = os.path.join(folder, "%s-%s.dat" % (name, drv))
            with open(data, "w") as f:
                for i, v in enumerate(vals):
                    f.write("%f %f\n" % (v, (i + 1) / len(vals)))
            lines.append("'%s' using 1:2 with lines title '%s'"
                         % (os.path.basename(data), "rdma_rxe" if drv == "rxe" else drv))
        if not lines:
            continue
        script = ("set terminal pngcairo noenhanced size 800,500\n"
                  "set output '%s.png'\n"
                  "set title 'latency CDF, %s %s (TCG: compare the lines only)'\n"
                  "set logscale x\nset xlabel 'usec'\nset ylabel 'fraction'\n"
                  "set key bottom right\nset grid\nplot %s\n"
                  % (name, target, rest, ", ".join(lines)))
        if gnuplot(script, folder):
            made.append(name + ".png")
    return made


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_report.py RESULTS-DIR")
    folder = sys.argv[1]
    points = read_points(folder)
    nvmf = bench_nvmf.read_points(folder, raw_files)
    if not points and not nvmf:
        sys.exit("bench_report: no bench.raw or nvmf.raw under %s" % folder)
    rows = summarise(points)
    caps = links(points, rows)
    nvmf_rows = bench_nvmf.summarise(nvmf)
    fractions(rows, caps)
    with open(os.path.join(folder, "results.json"), "w") as f:
        json.dump({"note": "TCG guests: compare ratios within this run only",
                   "points": points, "summary": rows, "link": caps,
                   "nvmf": {"points": nvmf, "summary": nvmf_rows}}, f, indent=1)
    md = markdown(rows, caps, points) if points else "# make bench\n"
    md += "\n".join([""] + bench_nvmf.markdown(nvmf_rows) + [""]) if nvmf_rows else ""
    with open(os.path.join(folder, "summary.md"), "w") as f:
        f.write(md)
    made = plots(folder, rows) + bench_nvmf.plots(folder, nvmf_rows, gnuplot)
    sys.stdout.write(md)
    print("\nresults.json, summary.md%s in %s" % (
        "".join(", " + m for m in made), folder))
    failed = sum(r[d]["failed"] for r in rows for d in DRIVERS)
    if failed:
        print("%d runs failed (see the guests' logs)" % failed)


if __name__ == "__main__":
    main()
