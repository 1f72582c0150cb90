#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test (make check): scripts/tools/bench_report.py on raw lines
made up here, so the figures it must print are known: medians, ratios,
failed and zero runs, and the link's capacity beside each driver's best
bandwidth in the same direction and each pair cell's fraction of it, the
host CPU by point, sroce's runs that had to recover, the sections'
tables (message rate, many QPs, memory and idle cost, rdma_cm); and
scripts/tools/host_cpu.py on a stand-in QEMU. No guest, no gnuplot needed (without it
the plots are skipped and said so on stderr)."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "bench_report", os.path.join(HERE, "..", "tools", "bench_report.py"))
br = importlib.util.module_from_spec(spec)
spec.loader.exec_module(br)


def bw(drv, tool, bw_mbs, rep, mtu=1500, place="irq", mpps="0.0005",
       kcpu=None, cpu=None):
    line = ("kind=bw drv=%s topo=pair mtu=%d place=%s tool=%s size=65536 "
            "qps=1 rep=%d bw=%s mpps=%s bytes=1073741824 wall_s=1.0 "
            "cpu_s=%d" % (drv, mtu, place, tool, rep, bw_mbs, mpps,
                          rep if cpu is None else cpu))
    return line + (" kcpu_s=%s" % kcpu if kcpu is not None else "")


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.mkdir(os.path.join(self.dir, "bpo-pair"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def report(self, lines):
        with open(os.path.join(self.dir, "bpo-pair", "bench.raw"), "w") as f:
            f.write("\n".join(lines) + "\n")
        points = br.read_points(self.dir)
        rows = br.summarise(points)
        return rows, br.links(points, rows)

    def row(self, rows, tool, mtu=1500):
        found = [r for r in rows if r["tool"] == tool and r["mtu"] == mtu]
        self.assertEqual(len(found), 1)
        return found[0]

    def test_median_and_ratio(self):
        rows, _ = self.report([
            bw("sroce", "ib_write_bw", "30.00", 1),
            bw("sroce", "ib_write_bw", "90.00", 2),
            bw("sroce", "ib_write_bw", "60.00", 3),
            bw("rxe", "ib_write_bw", "20.00", 1),
            bw("rxe", "ib_write_bw", "10.00", 2),
            bw("rxe", "ib_write_bw", "40.00", 3),
        ])
        r = self.row(rows, "ib_write_bw")
        self.assertEqual(r["sroce"]["bw"], 60.0)
        self.assertEqual(r["rxe"]["bw"], 20.0)
        self.assertAlmostEqual(r["ratio"], 3.0)
        # CPU: rep seconds per GiB, medians 2 and 2.
        self.assertAlmostEqual(r["cpu_ratio"], 1.0)

    def test_setup_run_taken_off(self):
        # Each run moves 1 GiB; its setup run (same repetition) 0.25 GiB
        # for 2 s of sroce's CPU and 1 s of rdma_rxe's. A failed setup
        # run is no setup run: its repetition keeps the whole run's cost.
        def setup(drv, rep, cpu):
            return ("kind=setup drv=%s topo=pair mtu=1500 place=irq "
                    "tool=ib_write_bw size=65536 qps=1 rep=%d bw=9.0 "
                    "mpps=0.0001 bytes=268435456 wall_s=1.0 cpu_s=%d "
                    "kcpu_s=%d" % (drv, rep, cpu, cpu))
        rows, _ = self.report([
            setup("sroce", 1, 2), setup("sroce", 2, 2), setup("rxe", 1, 1),
            "kind=setup drv=rxe topo=pair mtu=1500 place=irq "
            "tool=ib_write_bw size=65536 qps=1 rep=2 failed=124",
            bw("sroce", "ib_write_bw", "60.00", 1, cpu=5, kcpu=5),
            bw("sroce", "ib_write_bw", "60.00", 2, cpu=8, kcpu=8),
            bw("rxe", "ib_write_bw", "30.00", 1, cpu=4, kcpu=4),
            bw("rxe", "ib_write_bw", "30.00", 2, cpu=4, kcpu=4),
        ])
        self.assertEqual(len(rows), 1)  # no row of its own for setup runs
        r = self.row(rows, "ib_write_bw")
        # sroce: (5 - 2) / 0.75 = 4 and (8 - 2) / 0.75 = 8, median 6;
        # rdma_rxe: (4 - 1) / 0.75 = 4 and 4 / 1 = 4, median 4.
        self.assertAlmostEqual(r["sroce"]["cpu_s_per_gib"], 6.0)
        self.assertAlmostEqual(r["rxe"]["cpu_s_per_gib"], 4.0)
        self.assertAlmostEqual(r["cpu_ratio"], 1.5)
        self.assertAlmostEqual(r["kcpu_ratio"], 1.5)
        # A setup run that took as much as its run: noise, no figure.
        self.assertIsNone(br.cpu_per_gib({"cpu_s": 2.0, "bytes": 1 << 30},
                                         "cpu_s",
                                         {"cpu_s": 2.5, "bytes": 1 << 28}))

    def test_failed_and_zero_runs_give_no_figure(self):
        rows, _ = self.report([
            "kind=bw drv=sroce topo=pair mtu=1500 place=irq tool=ib_send_bw "
            "size=65536 qps=1 rep=1 failed=124",
            bw("sroce", "ib_send_bw", "0.00", 2, mpps="0.000000"),
            bw("sroce", "ib_send_bw", "12.00", 3),
            bw("rxe", "ib_send_bw", "6.00", 1),
            # Atomics: 0.00 MB/s at a real message rate is a figure.
            bw("sroce", "ib_atomic_bw", "0.00", 1, mpps="0.002"),
            bw("rxe", "ib_atomic_bw", "0.01", 1, mpps="0.001"),
        ])
        r = self.row(rows, "ib_send_bw")
        self.assertEqual(r["sroce"]["failed"], 2)
        self.assertEqual(r["sroce"]["bw"], 12.0)
        self.assertAlmostEqual(r["ratio"], 2.0)
        self.assertIn("failed runs: sroce 2, rdma_rxe 0", br.markdown(rows))
        a = self.row(rows, "ib_atomic_bw")
        self.assertEqual(a["sroce"]["failed"], 0)
        self.assertEqual(a["sroce"]["mpps"], 0.002)

    def test_link_against_best_in_its_direction(self):
        rows, caps = self.report([
            bw("sroce", "ib_read_bw", "40.00", 1),
            bw("sroce", "ib_read_bw", "44.00", 1, place="apart"),
            bw("rxe", "ib_read_bw", "38.00", 1),
            bw("sroce", "ib_write_bw", "25.00", 1),
            bw("rxe", "ib_write_bw", "9.00", 1),
            bw("sroce", "ib_read_bw", "70.00", 1, mtu=9000),
            # From before bursts were measured: one frame a doorbell.
            "kind=link topo=pair mtu=1500 to=b frame=1082 payload=1024 "
            "sent=20000 got=20001 pps=40960",
            "kind=link topo=pair mtu=1500 to=b frame=1082 payload=1024 "
            "burst=32 sent=20000 got=19990 pps=61440",
            "kind=link topo=pair mtu=1500 to=a frame=1082 payload=1024 "
            "burst=1 sent=20000 got=20000 pps=0",
        ])
        by = {(c["to"], c["burst"]): c for c in caps}
        # READ data flows toward b, the clients' guest.
        self.assertAlmostEqual(by["b", 1]["payload_mbs"], 40.0)
        self.assertAlmostEqual(by["b", 32]["payload_mbs"], 60.0)
        self.assertEqual(by["b", 1]["best"], {"sroce": 44.0, "rxe": 38.0})
        self.assertEqual(by["b", 32]["best"], {"sroce": 44.0, "rxe": 38.0})
        # No frames/s from the sender: no capacity, the bests still shown.
        self.assertIsNone(by["a", 1]["payload_mbs"])
        self.assertEqual(by["a", 1]["best"], {"sroce": 25.0, "rxe": 9.0})
        md = br.markdown(rows, caps)
        self.assertIn("| bpo | 1500 | b | 1082 | 1 | 40960 | 20000 | 20001 "
                      "| 40.0 | 44.0 | 38.0 |", md)
        self.assertIn("| bpo | 1500 | b | 1082 | 32 | 61440 | 20000 | 19990 "
                      "| 60.0 | 44.0 | 38.0 |", md)
        # The link lines are not bench points.
        self.assertEqual(sorted(r["tool"] for r in rows),
                         ["ib_read_bw", "ib_read_bw", "ib_read_bw",
                          "ib_write_bw"])

    def test_fraction_of_the_link(self):
        # The best of the bursts toward the cell's data: 60 MB/s toward b
        # (READ), 20 toward a (WRITE); none at MTU 9000.
        rows, caps = self.report([
            bw("sroce", "ib_read_bw", "54.00", 1),
            bw("rxe", "ib_read_bw", "30.00", 1),
            bw("sroce", "ib_write_bw", "19.00", 1),
            bw("rxe", "ib_write_bw", "5.00", 1),
            bw("sroce", "ib_write_bw", "50.00", 1, mtu=9000),
            bw("rxe", "ib_write_bw", "10.00", 1, mtu=9000),
            "kind=link topo=pair mtu=1500 to=b frame=1082 payload=1024 "
            "burst=1 sent=20000 got=20000 pps=40960",
            "kind=link topo=pair mtu=1500 to=b frame=1082 payload=1024 "
            "burst=32 sent=20000 got=20000 pps=61440",
            "kind=link topo=pair mtu=1500 to=a frame=1082 payload=1024 "
            "burst=1 sent=20000 got=20000 pps=20480",
        ])
        br.fractions(rows, caps)
        r = self.row(rows, "ib_read_bw")
        self.assertAlmostEqual(r["link_mbs"], 60.0)
        self.assertAlmostEqual(r["sroce"]["link_frac"], 0.9)
        self.assertAlmostEqual(r["rxe"]["link_frac"], 0.5)
        w = self.row(rows, "ib_write_bw")
        self.assertAlmostEqual(w["sroce"]["link_frac"], 0.95)
        w9 = self.row(rows, "ib_write_bw", mtu=9000)
        self.assertIsNone(w9["link_mbs"])
        self.assertIsNone(w9["sroce"]["link_frac"])
        md = br.markdown(rows, caps)
        self.assertIn("| 0.90 | 0.50 |\n", md)
        self.assertIn("| - | - |\n", md)

    def test_sections(self):
        # Message rate: Mpps is the figure; many QPs: MB/s, flatness
        # against 16 QPs; memory, idle cost and rdma_cm per driver.
        def msg(drv, qps, mpps):
            return ("kind=msg drv=%s topo=one mtu=1500 place=irq "
                    "tool=ib_send_bw size=64 qps=%d rep=1 post=16 bw=1.0 "
                    "mpps=%s bytes=64000 wall_s=1.0 cpu_s=1 kcpu_s=1"
                    % (drv, qps, mpps))

        def many(drv, qps, mbs):
            return ("kind=qps drv=%s topo=one mtu=1500 place=irq "
                    "tool=ib_write_bw size=4096 qps=%d rep=1 bw=%s "
                    "mpps=0.01 bytes=16777216 wall_s=1.0 cpu_s=1 kcpu_s=1"
                    % (drv, qps, mbs))

        def qpmem(drv, kib, loc):
            return ("kind=qpmem drv=%s topo=one mtu=1500 place=irq rep=1 "
                    "point=9 qps=1024 depth=128 rts=1024 kib_per_qp=%s all_kib_per_qp=20 "
                    "slab_kib=100 vmalloc_kib=200 idle_s=20 hz=100 ncpu=2 "
                    "busy_none=40 busy_qps=80 loc_none=2000 loc_qps=%d"
                    % (drv, kib, loc))
        lines = [msg("sroce", 16, "0.300000"), msg("rxe", 16, "0.100000"),
                 many("sroce", 16, "40.0"), many("rxe", 16, "10.0"),
                 many("sroce", 1024, "36.0"), many("rxe", 1024, "5.0"),
                 qpmem("sroce", "10.50", 2000), qpmem("rxe", "12.00", 4000),
                 "kind=cm drv=sroce topo=one mtu=1500 place=irq rep=1 "
                 "conns=1000 point=10 create_id=5 connect=800 "
                 "conn_per_s=500.0",
                 "kind=cm drv=rxe topo=one mtu=1500 place=irq rep=1 "
                 "conns=1000 point=10 create_id=5 connect=1600 "
                 "conn_per_s=250.0"]
        rows, caps = self.report(lines)
        m = [r for r in rows if r["kind"] == "msg"][0]
        self.assertAlmostEqual(m["ratio"], 3.0)
        self.assertEqual(m["post"], 16)
        points = br.read_points(self.dir)
        md = br.markdown(rows, caps, points)
        self.assertIn("| bpo | one | 1500 | irq | ib_send_bw | 16 | 16 "
                      "| 0.3000 | 0.1000 | 3.00 |", md)
        self.assertIn("| bpo | one | 1500 | irq | 1024 | 36.0 | 5.0 | 7.20 "
                      "| 0.0100 | 0.0100 | 0.90 | 0.50 |", md)
        # 40 busy ticks of 20 s x 100 Hz x 2 vCPUs: 1 %.
        self.assertIn("| bpo | one | sroce | 1024 | 10.50 | 20.00 | 100 | 200 | 20 "
                      "| 1.00 | 2.00 | 100.0 | 100.0 |", md)
        self.assertIn("| bpo | one | rdma_rxe | 1024 | 12.00 | 20.00 | 100 | 200 | 20 "
                      "| 1.00 | 2.00 | 100.0 | 200.0 |", md)
        self.assertIn("| bpo | one | 1000 | 500.0 | 250.0 | 2.00 | 800.0 "
                      "| 1600.0 |", md)
        # The QP count plot's data: MB/s by QPs, per driver.
        br.qps_plots(self.dir, rows)
        with open(os.path.join(self.dir, "qps-bpo-one-1500-irq-sroce.dat")) as f:
            self.assertEqual(f.read(), "16 40.000000\n1024 36.000000\n")

    def test_kernel_cpu(self):
        # 1 GiB per run: kernel seconds per GiB, medians 0.5 and 2.
        rows, _ = self.report([
            bw("sroce", "ib_write_bw", "30.00", 1, kcpu="0.40"),
            bw("sroce", "ib_write_bw", "30.00", 2, kcpu="0.50"),
            bw("sroce", "ib_write_bw", "30.00", 3, kcpu="0.90"),
            bw("rxe", "ib_write_bw", "10.00", 1, kcpu="2.00"),
            # Runs from before kcpu_s was recorded have no kernel figure.
            bw("sroce", "ib_read_bw", "30.00", 1),
            bw("rxe", "ib_read_bw", "10.00", 1),
        ])
        r = self.row(rows, "ib_write_bw")
        self.assertAlmostEqual(r["sroce"]["kcpu_s_per_gib"], 0.5)
        self.assertAlmostEqual(r["kcpu_ratio"], 0.25)
        # All of the CPU: medians 2 and 1.
        self.assertAlmostEqual(r["cpu_ratio"], 2.0)
        old = self.row(rows, "ib_read_bw")
        self.assertIsNone(old["kcpu_ratio"])
        md = br.markdown(rows)
        self.assertIn("| 0.50 | 2.00 | 0.25 |", md)
        self.assertIn("| 1.00 | 1.00 | 1.00 | - | - | - |", md)

    def test_host_cpu_by_point(self):
        with open(os.path.join(self.dir, "bpo-pair", "host-cpu.txt"), "w") as f:
            # PHASE ROLE WALL VCPU QEMU; the idle phase is no point.
            f.write("1 a 10.00 4.00 6.00\n1 b 10.00 9.00 12.00\n"
                    "2 a 5.00 5.00 6.00\n2 b 5.00 1.00 2.00\n"
                    "idle a 50.00 50.00 50.00\n")
        rows, _ = self.report([
            bw("sroce", "ib_write_bw", "30.00", 1) + " point=1",
            bw("rxe", "ib_write_bw", "10.00", 1) + " point=2",
            # No host figures for this one (a point the sampler missed).
            bw("sroce", "ib_read_bw", "30.00", 1) + " point=3",
        ])
        r = self.row(rows, "ib_write_bw")
        # The busier guest's vCPU thread; both QEMUs' cores added.
        self.assertAlmostEqual(r["sroce"]["host_vcpu"], 0.9)
        self.assertAlmostEqual(r["sroce"]["host_qemu"], 1.8)
        self.assertAlmostEqual(r["rxe"]["host_vcpu"], 1.0)
        self.assertAlmostEqual(r["rxe"]["host_qemu"], 1.6)
        self.assertIsNone(self.row(rows, "ib_read_bw")["sroce"]["host_vcpu"])
        md = br.markdown(rows)
        self.assertIn("## Host CPU", md)
        self.assertIn("| ib_write_bw | 64 KiB | 1 | 90 | 100 | 1.80 | 1.60 |", md)

    def test_recovery_listed(self):
        ev = " ev_client=%s ev_server=%s"
        lines = [
            bw("sroce", "ib_write_bw", "30.00", 1) + ev % ("none", "none"),
            bw("sroce", "ib_write_bw", "12.00", 2) +
            ev % ("ack_timeout:2,tx_retransmit:40", "rx_dup_request:40"),
            bw("rxe", "ib_write_bw", "10.00", 1),
        ]
        rows, _ = self.report(lines)
        points = br.read_points(self.dir)
        md = br.markdown(rows, (), points)
        self.assertIn("## sroce's recovery", md)
        self.assertIn("| ib_write_bw | 64 KiB | 1 | 2 | 12.0 "
                      "| ack_timeout:2,tx_retransmit:40 | rx_dup_request:40 |", md)
        self.assertNotIn("| 1 | 30.0 | none", md)
        # Recorded, and nothing moved: said so.
        rows, _ = self.report(lines[:1] + lines[2:])
        md = br.markdown(rows, (), br.read_points(self.dir))
        self.assertIn("No sroce run moved them.", md)
        # Results from before the counters were recorded: no section.
        rows, _ = self.report([bw("sroce", "ib_write_bw", "30.00", 1),
                               bw("rxe", "ib_write_bw", "10.00", 1)])
        self.assertNotIn("recovery", br.markdown(rows, (), br.read_points(self.dir)))

    def test_raw_from_before_placements(self):
        line = bw("sroce", "ib_write_bw", "30.00", 1).replace(" place=irq", "")
        rows, _ = self.report([line, line.replace("drv=sroce", "drv=rxe")])
        self.assertEqual(self.row(rows, "ib_write_bw")["place"], "free")


# A stand-in for QEMU: its comm starts "qemu-system", its command line
# names the console file, and a thread named like TCG's vCPU thread spins.
FAKE_QEMU = """import ctypes, threading, time
def spin():
    ctypes.CDLL(None).prctl(15, b"ALL CPUs/TCG", 0, 0, 0)
    end = time.monotonic() + 3
    while time.monotonic() < end:
        pass
t = threading.Thread(target=spin)
t.start()
t.join()
"""


class HostCpu(unittest.TestCase):
    def test_fake_qemu_by_phase(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        io = os.path.join(d, "io")
        os.mkdir(io)
        exe = os.path.join(d, "qemu-system-t")
        with open(exe, "w") as f:
            # The interpreter itself: a wrapper (pyenv's shim) would
            # leave its own name in comm.
            f.write("#!%s\n%s" % (os.path.realpath(sys.executable), FAKE_QEMU))
        os.chmod(exe, 0o755)
        with open(os.path.join(io, "phase"), "w") as f:
            f.write("7\n")
        fake = subprocess.Popen([exe, "-serial", "file:%s/console-a.log" % io])
        self.addCleanup(fake.kill)
        out = os.path.join(d, "host-cpu.txt")
        subprocess.run([sys.executable, os.path.join(HERE, "..", "tools", "host_cpu.py"),
                        io, out], check=True, timeout=60)
        fake.wait()
        with open(out) as f:
            lines = [line.split() for line in f]
        self.assertEqual([w[:2] for w in lines], [["7", "a"]])
        wall, vcpu, qemu = (float(x) for x in lines[0][2:])
        self.assertGreater(wall, 1.5)
        # The spinning thread is the vCPU thread, and most of the process;
        # on a loaded host it gets less than a core.
        self.assertGreater(vcpu, 0.2 * wall)
        self.assertLessEqual(vcpu, qemu + 0.05)
        self.assertLessEqual(qemu, 1.1 * wall + 0.05)


def fio(drv, rep, iops, p99, ios, cpu, rw="randread", qd=32, point="f1"):
    return ("kind=fio drv=%s topo=one rw=%s bs=4096 iodepth=%d jobs=1 rep=%d "
            "point=%s iops=%s mibs=%.2f p50_us=10.0 p99_us=%s ios=%d "
            "cpu_s=%s kcpu_s=%s" % (drv, rw, qd, rep, point, iops,
                                    iops * 4 / 1024.0, p99, ios, cpu, cpu))


class Nvmf(unittest.TestCase):
    """The NVMe-oF section (scripts/tools/bench_nvmf.py), alone in a
    results folder: medians, the goals' ratios, CPU per I/O, failed runs,
    and the report made without any perftest figure."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.mkdir(os.path.join(self.dir, "deb13-one"))
        lines = [
            fio("sroce", 1, 3000, 800, 9000, 0.9, point="f1"),
            fio("sroce", 2, 5000, 400, 15000, 1.5, point="f9"),
            fio("sroce", 3, 4000, 600, 12000, 1.8, point="f17"),
            fio("rxe", 1, 1000, 2000, 3000, 0.6, point="f6"),
            fio("rxe", 2, 2000, 1200, 6000, 1.2, point="f14"),
            "kind=fio drv=rxe topo=one rw=randread bs=4096 iodepth=32 "
            "jobs=1 rep=3 point=f20 failed=1",
            fio("loop", 1, 5000, 300, 15000, 0.75, point="f11"),
            fio("sroce", 1, 900, 50, 2700, 0.3, qd=1, point="f2"),
        ]
        with open(os.path.join(self.dir, "deb13-one", "nvmf.raw"), "w") as f:
            f.write("\n".join(lines) + "\n")
        # sroce's first run took 80 % of a host core's vCPU thread, and
        # 9 s of the host in all: 1000 usec per I/O.
        with open(os.path.join(self.dir, "deb13-one", "host-cpu.txt"), "w") as f:
            f.write("f1 a 10.0 8.0 9.0\n")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def rows(self):
        return br.bench_nvmf.summarise(
            br.bench_nvmf.read_points(self.dir, br.raw_files))

    def test_medians_and_goals(self):
        rows = self.rows()
        self.assertEqual(len(rows), 2)  # QD 1 and QD 32, one row each
        r = [r for r in rows if r["iodepth"] == 32][0]
        self.assertEqual(r["sroce"]["iops"], 4000)
        self.assertEqual(r["rxe"]["iops"], 1500)  # the failed run left out
        self.assertEqual(r["rxe"]["failed"], 1)
        self.assertAlmostEqual(r["iops_vs_rxe"], 4000 / 1500.0)
        self.assertAlmostEqual(r["iops_vs_loop"], 0.8)
        self.assertAlmostEqual(r["p99_vs_rxe"], 600 / 1600.0)
        # CPU per I/O: 100, 100 and 150 usec for sroce; 200 for rdma_rxe.
        self.assertAlmostEqual(r["sroce"]["cpu_us_per_io"], 100.0)
        self.assertAlmostEqual(r["rxe"]["cpu_us_per_io"], 200.0)
        self.assertAlmostEqual(r["cpu_vs_rxe"], 0.5)
        self.assertAlmostEqual(r["sroce"]["host_vcpu"], 0.8)
        self.assertAlmostEqual(r["sroce"]["host_us_per_io"], 1000.0)
        self.assertIsNone(r["host_vs_rxe"])  # rdma_rxe's runs had no host figure
        q1 = [r for r in rows if r["iodepth"] == 1][0]
        self.assertIsNone(q1["iops_vs_rxe"])  # no rdma_rxe figure: no ratio

    def test_report_without_perftest(self):
        out = subprocess.run([sys.executable, os.path.join(
            HERE, "..", "tools", "bench_report.py"), self.dir],
            capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("## NVMe-oF", out.stdout)
        self.assertIn("| deb13 | one | randread 4 KiB QD32 x1 (1 failed runs) "
                      "| 4000 | 1500 | 5000 | 2.67 | 0.80 |", out.stdout)
        self.assertNotIn("## Bandwidth", out.stdout)
        with open(os.path.join(self.dir, "results.json")) as f:
            self.assertEqual(len(json.load(f)["nvmf"]["points"]), 8)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
