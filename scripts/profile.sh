#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the guests' time goes while one perftest point runs, for sroce
# and for rdma_rxe in turn (guest perf has no PMU under TCG): QEMU's
# monitor is asked for every vCPU's RIP as fast as it answers, and the
# samples are resolved with the guests' own /proc/kallsyms
# (scripts/tools/tcg_profile.py). Prints, per driver and guest, the busy
# share of each module and of the top symbols.
#   scripts/profile.sh [--target T] [--topo pair|one] [--iters N]
#                      [--mtu M] [--place P] [--args "OPTIONS"] [--out DIR]
#                      ["KIND TOOL SIZE QPS"]
#   scripts/profile.sh --nvmf [--target T] [--topo pair|one] [--runtime S]
#                      [--transports "sroce rxe loop"] [--out DIR]
#                      ["RW BS IODEPTH JOBS"]
# The point defaults to "bw ib_write_bw 65536 1" with 2000 iterations
# (some 15 s per driver on bpo), netdev MTU 1500 and placement free
# (--place: irq, apart or free, as scripts/guest/bench.sh). Sampling slows
# the guests: compare the shares, not the bandwidth, with make bench.
# --nvmf: the same for one fio cell of make bench's NVMe-oF section
# (scripts/guest/bench_nvmf.sh; default "randread 4096 32 1", 15 s per
# transport), through each transport in turn. --args: more perftest
# options (the small-message section's "--post_list=16" with
# "msg ib_write_bw 64 16").
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=bpo topo=pair iters=2000 mtu=1500 place=free out= nvmf= runtime=15
transports="sroce rxe loop" pargs=
while [ $# -gt 0 ]; do
	case $1 in
	--target) target=$2; shift 2 ;;
	--topo) topo=$2; shift 2 ;;
	--iters) iters=$2; shift 2 ;;
	--mtu) mtu=$2; shift 2 ;;
	--place) place=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--nvmf) nvmf=1; shift ;;
	--runtime) runtime=$2; shift 2 ;;
	--transports) transports=$2; shift 2 ;;
	--args) pargs=$2; shift 2 ;;
	-*) die "usage: profile.sh [--nvmf] [--target T] [--topo pair|one] [--iters N] [--runtime S] [--transports LIST] [--mtu M] [--place P] [--args OPTIONS] [--out DIR] [POINT]" ;;
	*) break ;;
	esac
done
point=${1:-bw ib_write_bw 65536 1}
sections=perftest
if [ -n "$nvmf" ]; then
	point=${1:-randread 4096 32 1} sections=nvmf
fi
out=${out:-$SROCE_TOP/results/profile-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

"$SROCE_TOP/scripts/deps.sh"
"$SROCE_TOP/scripts/setup-targets.sh" "$target"
"$SROCE_TOP/scripts/build.sh" "$target" >"$out/build.log" 2>&1 ||
	die "build for $target failed: $out/build.log"

iofile=$(mktemp)
SROCE_VM_MONITOR=1 SROCE_VM_IODIR_FILE=$iofile "$SROCE_TOP/scripts/vm.sh" \
	--timeout 1800 --keep "$out/io" "$target" "$topo" \
	"BENCH_MODE=profile BENCH_TOPO=$topo BENCH_POINT='$point' BENCH_ITERS=$iters BENCH_MTUS=$mtu BENCH_PLACES=$place BENCH_SECTIONS=$sections BENCH_NVMF_CELL='$point' BENCH_NVMF_RUNTIME=$runtime BENCH_NVMF_TRANSPORTS='$transports' point_args='$pargs' sh \$SROCE_SRC/scripts/guest/bench.sh" \
	>"$out/vm.log" 2>&1 &
vm=$!
io=
while kill -0 $vm 2>/dev/null && [ -z "$io" ]; do
	sleep 0.2
	io=$(cat "$iofile")
done
rm -f "$iofile"
[ -n "$io" ] || die "the guests did not start: $out/vm.log"
python3 "$SROCE_TOP/scripts/tools/host_cpu.py" "$io" "$out/host-cpu.txt" &
hostcpu=$!
python3 "$SROCE_TOP/scripts/tools/tcg_profile.py" sample "$io" "$out/samples"
rc=0
wait $vm || rc=$?
wait $hostcpu || true
grep -E '^# \[|not ok' "$out/vm.log" || true
[ $rc = 0 ] || die "a guest failed (exit $rc): $out/vm.log"
python3 "$SROCE_TOP/scripts/tools/tcg_profile.py" report "$out/io" "$out/samples" |
	tee "$out/profile.md"
# The host's side: what each guest's QEMU took of a host core meanwhile.
if [ -s "$out/host-cpu.txt" ]; then
	{
		printf '\n## Host CPU, in %% of one host core (the host has %s)\n\n' "$(nproc)"
		echo "| phase | guest | seconds | vCPU thread % | QEMU process % |"
		echo "|---|---|---|---|---|"
		awk '$1 != "idle" && $3 > 0 { printf "| %s | %s | %.1f | %.0f | %.0f |\n",
			$1, $2, $3, 100 * $4 / $3, 100 * $5 / $3 }' "$out/host-cpu.txt"
	} | tee -a "$out/profile.md"
fi
