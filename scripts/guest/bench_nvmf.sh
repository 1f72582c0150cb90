# SPDX-License-Identifier: GPL-2.0
#
# The NVMe-oF section of `make bench` (BENCH_SECTIONS holds "nvmf"):
# scripts/guest/bench.sh sources it once its link and helpers are set up.
# nvmet serves a null_blk namespace (a tmpfs file where the kernel has no
# null_blk) and fio runs on the host side's block device through three
# transports in turn, in the same boot: nvme-rdma over sroce, nvme-rdma
# over rdma_rxe, and nvme-loop (no network at all: the same nvmet and
# block path, what the guest itself allows). In the pair topology guest
# a is the target of the RDMA transports and guest b the host; the loop
# transport runs in guest b alone. In loopback one guest is both.
#   fio cells ("RW BS IODEPTH JOBS"): quick, 4 KiB random read at
#   iodepth 1 and 32, with 1 and 4 jobs, 4 KiB random write at iodepth
#   32 and 128 KiB sequential read, 3 s each; full, 4 KiB random read
#   and write at iodepth 1 and 32 with 1 and 4 jobs and 128 KiB
#   sequential read and write at iodepth 16, 10 s each, 3 repetitions.
#   Profile mode runs the one cell BENCH_NVMF_CELL (default "randread
#   4096 32 1") for BENCH_NVMF_RUNTIME seconds (default 15) per
#   transport, the transport written to $SROCE_IO/phase meanwhile.
# Each cell is a line of key=value words in $SROCE_IO/nvmf.raw: fio's
# IOPS, MiB/s, total latency p50/p99 (usec: submission and
# completion; nvme-rdma may finish an I/O inside io_submit), I/Os, and the busy
# CPU seconds (/proc/stat, as bench.sh) of every guest involved while fio
# ran, fio's start included; scripts/tools/bench_nvmf.py reports them.

nvraw=$SROCE_IO/nvmf.raw
nqn=sroce-bench
. "$SROCE_SRC/scripts/guest/nvmet.sh"
if [ "$mode" = full ]; then
	nv_runtime=10 nv_reps=3
	nv_cells="randread 4096 1 1
randread 4096 32 1
randread 4096 1 4
randread 4096 32 4
randwrite 4096 1 1
randwrite 4096 32 1
randwrite 4096 1 4
randwrite 4096 32 4
read 131072 16 1
write 131072 16 1"
elif [ "$mode" = profile ]; then
	nv_runtime=${BENCH_NVMF_RUNTIME:-15} nv_reps=1
	nv_cells=${BENCH_NVMF_CELL:-randread 4096 32 1}
else
	nv_runtime=3 nv_reps=1
	nv_cells="randread 4096 1 1
randread 4096 32 1
randread 4096 32 4
randwrite 4096 32 1
read 131072 16 1"
fi
[ -n "${BENCH_REPS:-}" ] && nv_reps=$BENCH_REPS
nv_transports=${BENCH_NVMF_TRANSPORTS:-sroce rxe loop}
nv_k=0

# nv_target: this guest is the target of the RDMA transports (a, or the
# one guest in loopback). nv_host: it runs fio.
nv_target() { [ "$topo" = one ] || [ "$SROCE_ROLE" = a ]; }
nv_host() { [ "$topo" = one ] || [ "$SROCE_ROLE" = b ]; }

# nv_namespace: null_blk's first device (requests completed where they
# are submitted: no timer, no softirq of its own), else a 1 GiB tmpfs file
# through the page cache.
nv_namespace() {
	if modprobe null_blk nr_devices=1 gb=1 irqmode=0 2>/dev/null &&
		wait_for 10 test -b /dev/nullb0; then
		nvmet_subsys /dev/nullb0
	else
		mountpoint -q /tmp/nvmf || { mkdir -p /tmp/nvmf && mount -t tmpfs none /tmp/nvmf; }
		truncate -s 1G /tmp/nvmf/ns.img && nvmet_buffered=1 nvmet_subsys /tmp/nvmf/ns.img
	fi
}

# nv_fio RW BS IODEPTH JOBS: one fio run on $dev; prints its key=value
# words ("iops= mibs= p50_us= p99_us= ios=") or fails.
nv_fio() {
	timeout $((nv_runtime + 120)) fio --name=nv --filename="$dev" --direct=1 \
		--ioengine=libaio --rw="$1" --bs="$2" --iodepth="$3" --numjobs="$4" \
		--group_reporting --time_based --runtime="$nv_runtime" --norandommap \
		--randrepeat=0 --lat_percentiles=1 --eta=never --output-format=json >/tmp/nv-fio.json 2>/tmp/nv-fio.err ||
		return 1
	python3 - /tmp/nv-fio.json "$1" <<-'EOF'
	import json, sys
	job = json.load(open(sys.argv[1]))["jobs"][0]
	side = job["write" if "write" in sys.argv[2] else "read"]
	pct = side["lat_ns"].get("percentile", {})
	print("iops=%.0f mibs=%.2f p50_us=%.1f p99_us=%.1f ios=%d" % (
	    side["iops"], side["bw"] / 1024.0, pct.get("50.000000", 0) / 1e3,
	    pct.get("99.000000", 0) / 1e3, side["total_ios"]))
	EOF
}

# nv_cell DRV REP RW BS IODEPTH JOBS: one cell, on both guests of a pair
# for the RDMA transports (the target's busy CPU counted too).
nv_cell() {
	local drv=$1 rep=$2 c0 c1 k0 k1 line pb=0 pk=0 both=
	shift 2
	nv_k=$((nv_k + 1))
	[ "$topo" = pair ] && [ "$drv" != loop ] && both=1
	[ -n "$both" ] && barrier "nvs$nv_k" 120
	c0=$(busy) k0=$(kbusy)
	if ! nv_host; then
		barrier "nve$nv_k" $((nv_runtime + 180))
		publish "nvb$nv_k" "$(($(busy) - c0)) $(($(kbusy) - k0))"
		return 0
	fi
	if [ "$mode" = profile ]; then echo "$drv"; else echo "f$nv_k"; fi >"$SROCE_IO/phase"
	line=$(nv_fio "$@")
	echo idle >"$SROCE_IO/phase"
	c1=$(busy) k1=$(kbusy)
	if [ -n "$both" ]; then
		barrier "nve$nv_k" 120
		barrier_file "$SROCE_IO/val-a-nvb$nv_k"
		read -r pb pk <"$SROCE_IO/val-a-nvb$nv_k" || :
	fi
	local key="drv=$drv topo=$topo rw=$1 bs=$2 iodepth=$3 jobs=$4 rep=$rep point=f$nv_k"
	if [ -n "$line" ]; then
		line="$line cpu_s=$(awk -v a=$((c1 - c0 + pb)) -v hz="$hz" 'BEGIN { printf "%.2f", a / hz }')"
		line="$line kcpu_s=$(awk -v a=$((k1 - k0 + pk)) -v hz="$hz" 'BEGIN { printf "%.2f", a / hz }')"
		echo "kind=fio $key $line" >>"$nvraw"
		echo "# [nvmf $nv_k] $key: $line"
	else
		echo "kind=fio $key failed=1" >>"$nvraw"
		echo "# [nvmf $nv_k] $key: FAILED"
		tail -n 5 /tmp/nv-fio.err | diag
	fi
}

# nv_connect TRTYPE: the host side connects (rdma: to 192.0.2.1) and
# finds the namespace.
nv_connect() {
	if [ "$1" = loop ]; then
		timeout 60 nvme connect -t loop -n "$nqn" >/dev/null
	else
		timeout 60 nvme connect -t rdma -a 192.0.2.1 -s 4420 -n "$nqn" >/dev/null
	fi && wait_for 20 find_ns
}

# nv_transport DRV REP: the cells through one transport.
nv_transport() {
	local drv=$1 rep=$2 tr=rdma port=1 cell
	[ "$drv" = loop ] && tr=loop port=2
	if [ "$tr" = rdma ]; then
		check "nvmf rep $rep: $drv device up" up "$drv"
		nv_target && check "nvmf rep $rep: $drv: nvmet rdma port" nvmet_port 1 rdma
		[ "$topo" = pair ] && barrier "nvup$rep$drv" 120
	elif nv_host; then
		check "nvmf rep $rep: nvmet loop port" nvmet_port 2 loop
	fi
	if nv_host; then
		check "nvmf rep $rep: $drv: nvme connect -t $tr" nv_connect "$tr"
		# (check ran it in a subshell: $dev here.)
		find_ns
	fi
	[ "$topo" = pair ] && [ "$tr" = rdma ] && barrier "nvconn$rep$drv" 120
	if nv_host || [ "$tr" = rdma ]; then
		# A profile's symbols (the modules loaded), by the phase its
		# samples carry.
		[ "$mode" = profile ] &&
			awk '$2 ~ /^[tT]$/' /proc/kallsyms >"$SROCE_IO/kallsyms-$SROCE_ROLE-$drv"
		echo "$nv_cells" | while read -r rw bs qd jobs; do
			nv_cell "$drv" "$rep" "$rw" "$bs" "$qd" "$jobs"
		done
	fi
	# The cells ran in a subshell; both guests count them alike.
	nv_k=$((nv_k + $(echo "$nv_cells" | wc -l)))
	nv_host && check "nvmf rep $rep: $drv: nvme disconnect" \
		timeout 60 nvme disconnect -n "$nqn" >/dev/null
	[ "$topo" = pair ] && [ "$tr" = rdma ] && barrier "nvdisc$rep$drv" 300
	if nv_target || [ "$tr" = loop ]; then
		if nv_host || [ "$tr" = rdma ]; then
			check "nvmf rep $rep: $drv: nvmet port $port removed" nvmet_port_down "$port"
		fi
	fi
	[ "$tr" = rdma ] && check "nvmf rep $rep: $drv device down" down "$drv"
	[ "$topo" = pair ] && barrier "nvdown$rep$drv" 120
}

nv_have=1
modprobe -q nvmet && modprobe -q nvmet-rdma && modprobe -q nvme-rdma &&
	modprobe -q nvme-loop && command -v fio >/dev/null &&
	command -v nvme >/dev/null || nv_have=
if [ -z "$nv_have" ]; then
	skip "no fio, nvme-cli or NVMe-oF modules on this target" "NVMe-oF bench"
else
	steer free
	# The namespace where its transport's target is: a for RDMA, and
	# the host side for the loop transport.
	check "nvmf: nvmet subsystem on a memory-backed namespace" nv_namespace
	nv_rep=1
	while [ $nv_rep -le $nv_reps ]; do
		nv_order=$nv_transports
		# Alternate the order, as the perftest section does.
		[ $((nv_rep % 2)) = 0 ] && nv_order=$(echo "$nv_transports" | tr ' ' '\n' | tac | tr '\n' ' ')
		for nv_drv in $nv_order; do
			nv_transport "$nv_drv" "$nv_rep"
		done
		nv_rep=$((nv_rep + 1))
	done
fi
