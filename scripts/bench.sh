#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: perftest on sroce and on rdma_rxe, side by side in one run
# (the same kernel, the same guests, the same boot), then a JSON file of
# every figure, a markdown table of sroce / rdma_rxe ratios and gnuplot
# plots, under results/bench-DATE/ (or --out DIR).
#   scripts/bench.sh [--quick] [--targets "bpo"] [--topos "pair one"]
#                    [--mtus "1500 9000"] [--places "irq apart"] [--qps "1 4"]
#                    [--reps N] [--sections "perftest msgrate qps nvmf"] [--out DIR]
# Full: ib_{write,read,send}_bw at 64 B, 4 KiB, 64 KiB and 1 MiB with 1
# and 4 QPs, ib_atomic_bw, ib_{write,send,read}_lat at 2 B, 64 B and
# 4 KiB, netdev MTU 1500 and 9000, each point the median of 3 runs
# (over an hour per target and placement). Quick: two guests, MTU 1500, WRITE,
# READ and SEND bandwidth at 64 KiB and 1 MiB and 64 B WRITE latency,
# one run each (a few minutes); --mtus sets the netdev MTUs of either
# form, --qps the QP counts of its bandwidth tests, --reps the runs
# of each point (the median is reported; quick 1, full 3). --places: where perftest runs in the guests, each placement a
# pass of its own (scripts/guest/bench.sh; default "irq apart"). In
# the pair topology pktgen first measures what the link carries each
# way, a kick per frame and 32 frames a kick (as sroce's chains): what
# it carried at least, beside each driver's best. The host's CPU
# time of each guest's QEMU and vCPU thread is read meanwhile, point by
# point (scripts/tools/host_cpu.py). The guests run under TCG: only
# ratios within one run and one placement mean anything.
# --sections: what runs (default perftest, the matrix above): msgrate,
# the 64 B SEND and WRITE message rate with post lists on 1 and 16 QPs
# (full: 1, 4, 16); qps, ib_write_bw on 1, 16, 256 and 1024 QPs and, in
# the loopback topology, kernel memory and idle CPU per connected QP and
# rdma_cm's setup of 1000 connections (scripts/guest/bench_msgrate.sh,
# bench_qps.sh); nvmf, NVMe-oF: fio through nvme-rdma over sroce and over
# rdma_rxe and through nvme-loop, in the same boot
# (scripts/guest/bench_nvmf.sh; quick: five 3 s cells per transport);
# with nvmf alone the topologies default to "one pair".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=full targets=bpo topos= mtus= places= qpss= reps= out= sections=perftest
while [ $# -gt 0 ]; do
	case $1 in
	--quick) mode=quick; shift ;;
	--targets) targets=$2; shift 2 ;;
	--topos) topos=$2; shift 2 ;;
	--mtus) mtus=$2; shift 2 ;;
	--places) places=$2; shift 2 ;;
	--qps) qpss=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--sections) sections=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) die "usage: bench.sh [--quick] [--targets LIST] [--topos LIST] [--mtus LIST] [--places LIST] [--qps LIST] [--reps N] [--sections LIST] [--out DIR]" ;;
	esac
done
case $reps in
''|[1-9]|[1-9][0-9]) ;;
*) die "--reps wants a run count from 1 to 99, not '$reps'" ;;
esac
for s in $sections; do
	case $s in
	perftest | msgrate | qps | nvmf) ;;
	*) die "--sections wants perftest, msgrate, qps or nvmf, not '$s'" ;;
	esac
done
[ "$sections" = nvmf ] && [ -z "$topos" ] && topos="one pair"
[ -n "$topos" ] || { [ $mode = quick ] && topos=pair || topos="pair one"; }
out=${out:-$SROCE_TOP/results/bench-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

"$SROCE_TOP/scripts/deps.sh"
# gnuplot draws the plots; only the benchmark needs it.
sroce_need_gnuplot
# shellcheck disable=SC2086
"$SROCE_TOP/scripts/setup-targets.sh" $targets

echo "# make bench ($mode): sroce and rdma_rxe in the same TCG guests;" \
	"only the ratios mean anything. Results: $out"
for t in $targets; do
	"$SROCE_TOP/scripts/build.sh" "$t" >"$out/build-$t.log" 2>&1 ||
		die "build for $t failed: $out/build-$t.log"
	for topo in $topos; do
		tmo=1800
		[ $mode = full ] && tmo=6000
		# Per run of each point: full's default is three.
		[ -n "$reps" ] && { [ $mode = full ] && tmo=$((tmo * reps / 3)) || tmo=$((tmo * reps)); }
		[ "$t" = debug ] && tmo=$((tmo * 3))
		echo "# $t, $topo:"
		# The guest's progress lines, as they come.
		iofile=$(mktemp)
		SROCE_VM_IODIR_FILE=$iofile "$SROCE_TOP/scripts/vm.sh" --timeout "$tmo" \
			--keep "$out/$t-$topo" "$t" "$topo" \
			"BENCH_MODE=$mode BENCH_TOPO=$topo BENCH_MTUS='$mtus' BENCH_PLACES='$places' BENCH_QPSS='$qpss' BENCH_REPS='$reps' BENCH_SECTIONS='$sections' sh \$SROCE_SRC/scripts/guest/bench.sh" \
			>"$out/$t-$topo.log" 2>&1 &
		vm=$!
		io=
		while kill -0 $vm 2>/dev/null && [ -z "$io" ]; do
			sleep 1
			io=$(cat "$iofile")
		done
		[ "$topo" = pair ] && role=b || role=a
		if [ -n "$io" ]; then
			tail -n +1 -F "$io/out-$role.log" 2>/dev/null | grep --line-buffered -E '^# (\[|link )' &
			tailer=$!
			# The host CPU each guest's QEMU takes, point by point.
			mkdir -p "$out/$t-$topo"
			python3 "$SROCE_TOP/scripts/tools/host_cpu.py" "$io" "$out/$t-$topo/host-cpu.txt" &
			hostcpu=$!
		fi
		rc=0
		wait $vm || rc=$?
		if [ -n "$io" ]; then
			kill "$tailer" 2>/dev/null
			wait "$hostcpu" || true
		fi
		rm -f "$iofile"
		[ $rc = 0 ] || echo "# $t $topo: a guest failed (exit $rc), see $out/$t-$topo.log"
		grep -E '^(\[[a-z]\] )?not ok' "$out/$t-$topo.log" || true
	done
done
python3 "$SROCE_TOP/scripts/tools/bench_report.py" "$out"
