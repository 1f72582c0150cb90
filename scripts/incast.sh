#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The incast testbed's report (Documentation/congestion.rst, "Incast"):
# one run of the guest suite scripts/tests/incast.sh (topology incast,
# congestion control off then on), then its table and a PNG of each
# sender QP's rate over time with control on.
#   scripts/incast.sh [--full] [--target T] [--out DIR] [--replot]
# --full: the long form (60 s per phase, 300 probes). DIR (by default
# results/incast-DATE) gets tap.txt, table.txt, rates.dat, rates.png and
# the guests' files in run/. --replot: no run, the table and PNG again
# from DIR's run/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=bpo full=0 out='' replot=''
while [ $# -gt 0 ]; do
	case $1 in
	--full) full=1; shift ;;
	--target) target=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--replot) replot=1; shift ;;
	*) die "usage: incast.sh [--full] [--target T] [--out DIR] [--replot]" ;;
	esac
done
out=${out:-$SROCE_TOP/results/incast-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
sroce_need_gnuplot
rc=0
if [ -z "$replot" ]; then
	"$SROCE_TOP/scripts/build.sh" "$target" >"$out/build.log" 2>&1 ||
		die "build for $target failed: $out/build.log"
	"$SROCE_TOP/scripts/vm.sh" --timeout 1500 --keep "$out/run" "$target" incast \
		"SROCE_FULL=$full sh \$SROCE_SRC/scripts/tests/incast.sh" >"$out/tap.txt" 2>&1 || rc=$?
	grep -E '^\[[a-z]\] (not )?ok ' "$out/tap.txt" || true
fi
[ -s "$out/run/incast-table.txt" ] || die "no table: the run failed ($out/tap.txt)"
cp "$out/run/incast-table.txt" "$out/table.txt"
cp "$out/run/rates.dat" "$out/rates.dat"

# One data file per QP of the phase with control on, then one line each.
plot="set terminal pngcairo noenhanced size 800,450
set output 'rates.png'
set title 'incast, DCQCN on: the rate of each sender QP (rdma resource show qp -dd)'
set xlabel 'seconds'
set ylabel 'Mbit/s'
set yrange [0:*]
set key outside right
plot"
sep=
for qp in $(awk '$1 == "on" { print $3 }' "$out/rates.dat" | sort -u); do
	awk -v q="$qp" '$1 == "on" && $3 == q { print $2, $4 }' "$out/rates.dat" >"$out/rate-${qp/:/-}.dat"
	plot="$plot$sep 'rate-${qp/:/-}.dat' using 1:2 with steps title '$qp'"
	sep=,
done
if [ -n "$sep" ]; then
	(cd "$out" && echo "$plot" | gnuplot) || log "gnuplot failed"
else
	log "no rate samples with control on: no PNG"
fi
cat "$out/table.txt"
echo "# results in $out"
exit $rc
