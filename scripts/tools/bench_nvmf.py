# SPDX-License-Identifier: GPL-2.0
"""The NVMe-oF section of `make bench` for scripts/tools/bench_report.py.

Input: DIR/TARGET-TOPO/nvmf.raw, one key=value line per fio run
(scripts/guest/bench_nvmf.sh): drv (sroce, rxe: nvme-rdma over that
driver; loop: nvme-loop), rw, bs, iodepth, jobs, rep, iops, mibs,
p50_us, p99_us (fio's total latency, submission and completion), ios, cpu_s and kcpu_s (busy
CPU seconds of the guests involved while fio ran), or failed=1; and the
host CPU by point (host-cpu.txt, the point being "fN"). Each cell is the
median of its repetitions.
"""
import os
import statistics

TRANSPORTS = ("sroce", "rxe", "loop")
NAMES = {"sroce": "sroce", "rxe": "rdma_rxe", "loop": "loop"}
FIGURES = ("iops", "mibs", "p50_us", "p99_us", "cpu_us_per_io",
           "kcpu_us_per_io", "host_us_per_io", "host_vcpu")


def read_points(folder, raw_files):
    """Every fio line under FOLDER (raw_files(folder, name) yields each
    target's file and host CPU by point), numbers as numbers, the host's
    vCPU share of its point added where host-cpu.txt has it."""
    points = []
    for target, raw, host in raw_files(folder, "nvmf.raw"):
        with open(raw) as f:
            for line in f:
                p = dict(w.split("=", 1) for w in line.split() if "=" in w)
                if p.get("kind") != "fio":
                    continue
                p["target"] = target
                for k in ("bs", "iodepth", "jobs", "rep"):
                    p[k] = int(p[k])
                for k in ("iops", "mibs", "p50_us", "p99_us", "ios",
                          "cpu_s", "kcpu_s"):
                    if k in p:
                        p[k] = float(p[k])
                for k in ("cpu_s", "kcpu_s"):
                    if p.get(k) is not None and p.get("ios"):
                        p[k[:-2] + "_us_per_io"] = p[k] * 1e6 / p["ios"]
                h = host.get(p.get("point"))
                if h:
                    p["host_vcpu"] = h["vcpu"]
                    if p.get("ios"):
                        p["host_us_per_io"] = h["qemu_s"] * 1e6 / p["ios"]
                points.append(p)
    return points


def cell_key(p):
    return (p["target"], p["topo"], p["rw"], p["bs"], p["iodepth"], p["jobs"])


def share(a, b):
    return a / b if a and b else None


def summarise(points):
    """One row per cell: each transport's medians, and the ratios the
    goals name: sroce's IOPS over rdma_rxe's and over loop's, sroce's
    p99 over rdma_rxe's, its CPU per I/O over rdma_rxe's."""
    groups = {}
    for p in points:
        groups.setdefault(cell_key(p), {}).setdefault(p["drv"], []).append(p)
    rows = []
    for key in sorted(groups, key=lambda k: (k[0], k[1], k[3], k[2], k[5], k[4])):
        target, topo, rw, bs, qd, jobs = key
        row = {"target": target, "topo": topo, "rw": rw, "bs": bs,
               "iodepth": qd, "jobs": jobs}
        for drv in TRANSPORTS:
            runs = groups[key].get(drv, [])
            good = [r for r in runs if "failed" not in r]
            d = {"runs": len(runs), "failed": len(runs) - len(good)}
            for k in FIGURES:
                vals = [r[k] for r in good if r.get(k) is not None]
                d[k] = statistics.median(vals) if vals else None
            row[drv] = d
        s, x, lo = row["sroce"], row["rxe"], row["loop"]
        row["iops_vs_rxe"] = share(s["iops"], x["iops"])
        row["iops_vs_loop"] = share(s["iops"], lo["iops"])
        row["p99_vs_rxe"] = share(s["p99_us"], x["p99_us"])
        row["cpu_vs_rxe"] = share(s["cpu_us_per_io"], x["cpu_us_per_io"])
        row["host_vs_rxe"] = share(s["host_us_per_io"], x["host_us_per_io"])
        row["host_vs_loop"] = share(s["host_us_per_io"], lo["host_us_per_io"])
        rows.append(row)
    return rows


def _fmt(v, digits=1):
    return "-" if v is None else "%.*f" % (digits, v)


def cell_name(r):
    size = "%d KiB" % (r["bs"] >> 10) if r["bs"] >= 1024 else "%d B" % r["bs"]
    return "%s %s QD%d x%d" % (r["rw"], size, r["iodepth"], r["jobs"])


def markdown(rows):
    """The section's tables, as lines (none without rows)."""
    if not rows:
        return []
    out = ["## NVMe-oF",
           "",
           "fio (libaio, direct) on the host side's namespace, a null_blk "
           "device served by nvmet: through nvme-rdma over sroce, over "
           "rdma_rxe, and through nvme-loop (no network: the guest's own "
           "block and nvmet path). QD: iodepth; xN: fio jobs. Latency is "
           "fio's total latency, submission and completion (usec). CPU per I/O: the busy time "
           "(/proc/stat) of every guest involved while fio ran, its start "
           "included, over the I/Os it completed (usec); kernel CPU is "
           "the system, irq and softirq share. Host CPU per I/O: the host "
           "CPU time of every guest's QEMU while fio ran, over the I/Os "
           "(usec): what an I/O cost the host, which the host's other "
           "load moves far less than the guests' own clocks. vCPU: the "
           "busiest guest's vCPU thread on the host, in % of a core. "
           "Ratios: sroce / "
           "rdma_rxe and sroce / loop (IOPS: higher is better; p99 and "
           "CPU: lower is better).",
           "",
           "| target | topo | cell | sroce IOPS | rdma_rxe IOPS | loop IOPS "
           "| sroce/rxe | sroce/loop | sroce MiB/s | rdma_rxe MiB/s | loop MiB/s "
           "| sroce p50 | rdma_rxe p50 | loop p50 | sroce p99 | rdma_rxe p99 "
           "| loop p99 | p99 sroce/rxe | sroce CPU/IO | rdma_rxe CPU/IO "
           "| loop CPU/IO | sroce kCPU/IO | rdma_rxe kCPU/IO | loop kCPU/IO "
           "| sroce host/IO | rdma_rxe host/IO | loop host/IO "
           "| host/IO sroce/rxe | host/IO sroce/loop "
           "| sroce vCPU % | rdma_rxe vCPU % | loop vCPU % |",
           "|---" * 32 + "|"]
    for r in rows:
        t = [r[d] for d in TRANSPORTS]
        fails = sum(d["failed"] for d in t)
        name = cell_name(r) + (" (%d failed runs)" % fails if fails else "")
        cols = [r["target"], r["topo"], name]
        cols += [_fmt(d["iops"], 0) for d in t]
        cols += [_fmt(r["iops_vs_rxe"], 2), _fmt(r["iops_vs_loop"], 2)]
        cols += [_fmt(d["mibs"]) for d in t]
        cols += [_fmt(d["p50_us"]) for d in t]
        cols += [_fmt(d["p99_us"]) for d in t]
        cols += [_fmt(r["p99_vs_rxe"], 2)]
        cols += [_fmt(d["cpu_us_per_io"]) for d in t]
        cols += [_fmt(d["kcpu_us_per_io"]) for d in t]
        cols += [_fmt(d["host_us_per_io"]) for d in t]
        cols += [_fmt(r["host_vs_rxe"], 2), _fmt(r["host_vs_loop"], 2)]
        cols += [_fmt(None if d["host_vcpu"] is None else 100 * d["host_vcpu"], 0)
                 for d in t]
        out.append("| " + " | ".join(cols) + " |")
    return out


def plots(folder, rows, gnuplot):
    """A clustered bar chart of IOPS per cell and transport, one per
    target and topology (gnuplot(script, cwd) draws it); the PNGs' names."""
    made = []
    by = {}
    for r in rows:
        by.setdefault((r["target"], r["topo"]), []).append(r)
    for (target, topo), rs in sorted(by.items()):
        name = "nvmf-%s-%s" % (target, topo)
        data = os.path.join(folder, name + ".dat")
        with open(data, "w") as f:
            for r in rs:
                f.write('"%s" %s\n' % (cell_name(r).replace(" KiB", "K"), " ".join(
                    "%f" % (r[d]["iops"] or 0) for d in TRANSPORTS)))
        cols = ", ".join("'%s' using %d%s title '%s'" % (
            os.path.basename(data), i + 2, ":xtic(1)" if i == 0 else "", NAMES[d])
            for i, d in enumerate(TRANSPORTS))
        script = ("set terminal pngcairo noenhanced size 900,500\n"
                  "set output '%s.png'\n"
                  "set title 'NVMe-oF IOPS, %s, %s (TCG: compare the bars only)'\n"
                  "set style data histograms\nset style histogram cluster gap 1\n"
                  "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
                  "set xtics rotate by -20\nset ylabel 'IOPS'\nset yrange [0:*]\n"
                  "set key top right\nset grid ytics\nplot %s\n"
                  % (name, target, topo, cols))
        if gnuplot(script, folder):
            made.append(name + ".png")
    return made
