#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of `make bench` (scripts/bench.sh runs it): perftest on
# sroce and on rdma_rxe in turn, in the same guests and the same boot.
#   BENCH_TOPO   pair (a serves, b runs the clients) or one (loopback on a
#                veth pair, server and client in one guest)
#   BENCH_PLACES where perftest runs (each a pass of its own): irq (on
#                vCPU 0, which takes every interrupt), apart (on vCPU 1,
#                the interrupts on vCPU 0), free (the scheduler's choice,
#                interrupts wherever the kernel put them); default
#                "irq apart" ("free" in profile mode). In the loopback
#                topology "apart" puts the server on vCPU 0, the client on 1
#   BENCH_REPS   runs of each point (default: full 3, quick 1)
#   BENCH_MODE   full (the whole matrix, 3 repetitions), quick, or
#                profile: the one point BENCH_POINT ("KIND TOOL SIZE QPS",
#                BENCH_ITERS iterations) for scripts/profile.sh, each
#                guest's /proc/kallsyms saved per driver and the driver
#                under test written to $SROCE_IO/phase while it runs
# Repetitions alternate the drivers' order (sroce then rdma_rxe, then
# rdma_rxe then sroce, ...) so that a drift of the host's speed during
# the run touches both alike: one driver's whole pass takes minutes, and
# a host that slows steadily would always favour the one measured first.
# Every point goes as one line of key=value words into $SROCE_IO/bench.raw
# (written by the client side), with the bytes it moved, the client's
# wall time and the busy CPU time both guests spent while it ran (from
# /proc/stat: user, nice, system, irq, softirq, steal; the connection
# setup included), and of that the kernel's (system, irq, softirq). 64 B
# write latency samples go to $SROCE_IO/cdf-*.txt. A progress line per
# point goes to the output.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/bench_passes.sh"

topo=${BENCH_TOPO:-pair}
mode=${BENCH_MODE:-quick}
if [ "$mode" = full ]; then
	reps=3 mtus="1500 9000" sizes="64 4096 65536 1048576" qpss="1 4"
	bw_tools="ib_write_bw ib_read_bw ib_send_bw" lat_tools="ib_write_lat ib_send_lat ib_read_lat"
	lat_sizes="2 64 4096" atomic=1
elif [ "$mode" = profile ]; then
	reps=1 mtus=1500
else
	reps=1 mtus=1500 sizes="65536 1048576" qpss=1
	bw_tools="ib_write_bw ib_read_bw ib_send_bw" lat_tools=ib_write_lat
	lat_sizes=64 atomic=
fi
[ -n "${BENCH_MTUS:-}" ] && mtus=$BENCH_MTUS
[ -n "${BENCH_QPSS:-}" ] && qpss=$BENCH_QPSS
[ -n "${BENCH_REPS:-}" ] && reps=$BENCH_REPS
places="irq apart"
[ "$mode" = profile ] && places=free
[ -n "${BENCH_PLACES:-}" ] && places=$BENCH_PLACES
ncpu=$(nproc)
lat_iters=1000
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)

if [ "$topo" = pair ]; then
	case $SROCE_ROLE in
	a) me=1 ;;
	*) me=2 ;;
	esac
	nic=eth0 server=192.0.2.1 client=b
	ip link set eth0 up
	ip addr add "192.0.2.$me/24" dev eth0
else
	me=1 nic=veth0 server=192.0.2.1 client=a
	SROCE_ROLES=a
	export SROCE_ROLES
	ip link add veth0 type veth peer name veth1
	ip link set veth0 up
	ip link set veth1 up
	ip addr add 192.0.2.1/24 dev veth0
fi
raw=$SROCE_IO/bench.raw

gid() { gid_match dev0 "ffff:c000:020$me"; }
busy() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
# The kernel's share: system, irq, softirq (the driver, the stacks, virtio;
# not perftest's polling loop).
kbusy() { awk '/^cpu /{ print $4 + $7 + $8 }' /proc/stat; }
listening() { [ -n "$(ss -Hltn 2>/dev/null)" ]; }
# recovery DRIVER: sroce's counters of loss and recovery now, "name=N"
# words (nothing for rdma_rxe). events BEFORE AFTER: those that moved,
# "name:delta,...", or "none". A run that had to recover is the one to
# look at twice: the report lists them.
RECOVERY="ack_timeout tx_rewind tx_retransmit rx_nak_seq rx_seq_gap \
rx_dup_request tx_rnr_nak rx_rnr_nak tx_drop rx_drop_icrc"
recovery() {
	[ "$1" = sroce ] || return 0
	rdma statistic show link dev0/1 2>/dev/null | tr ' ' '\n' |
		awk -v want="$RECOVERY" '
			BEGIN { n = split(want, w); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
			prev in keep && /^[0-9]+$/ { printf "%s=%s ", prev, $0 }
			{ prev = $0 }'
}
events() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, w, " ")
		for (i = 1; i <= n; i++) { split(w[i], kv, "="); was[kv[1]] = kv[2] }
		n = split(b, w, " ")
		for (i = 1; i <= n; i++) {
			split(w[i], kv, "=")
			if (kv[2] - was[kv[1]] > 0)
				out = out (out == "" ? "" : ",") kv[1] ":" kv[2] - was[kv[1]]
		}
		print out == "" ? "none" : out
	}'
}
# barrier_file FILE: wait for FILE, 200 s at most (a cheap test: wait_for
# counts its 0.1 s steps, not the time its command takes under TCG).
barrier_file() {
	local t=2000
	while [ ! -e "$1" ] && [ $t -gt 0 ]; do
		sleep 0.1
		t=$((t - 1))
	done
}

# up DRIVER / down DRIVER: the RDMA device dev0 on $nic, and away again.
up() {
	if [ "$1" = rxe ]; then
		modprobe rdma_rxe
	else
		modprobe sroce 2>/dev/null || insmod "$SROCE_KO"
	fi
	rdma link add dev0 type "$1" netdev "$nic" && wait_for 10 gid >/dev/null
}
down() {
	rdma link delete dev0
	if [ "$1" = rxe ]; then rmmod rdma_rxe; else rmmod sroce; fi
}
set_mtu() {
	ip link set "$nic" mtu "$1"
	[ "$topo" = one ] && ip link set veth1 mtu "$1"
	sleep 1
}

# steer PLACE: the interrupts where PLACE wants them. pins PLACE: sets
# $pin_server and $pin_client, the commands that start perftest there.
# Under single-threaded TCG a guest's vCPUs take turns on one host
# thread, and perftest polls: where it runs against where the packets
# are handled moved a driver's figures by up to 2x (testing.rst), so
# both drivers get the same placement, and each placement is reported.
steer() {
	local f mask=0
	if [ "$1" != free ] && [ "$ncpu" -lt 2 ]; then
		echo "placement $1 wants two vCPUs, the guest has $ncpu"
		return 1
	fi
	[ "$1" = free ] && mask=0-$((ncpu - 1))
	for f in /proc/irq/*/smp_affinity_list; do
		echo "$mask" >"$f" 2>/dev/null || :
	done
}
# The vCPU each of the NIC's interrupt vectors is delivered to now (an
# x86 vector moves when it next fires: ask after some traffic).
nic_irq_cpus() {
	local f dev
	# virtio-net's device is the virtio one; the vectors are its PCI parent's.
	dev=$(readlink -f "/sys/class/net/$nic/device" 2>/dev/null)
	[ -d "$dev/msi_irqs" ] || dev=${dev%/*}
	for f in "$dev"/msi_irqs/*; do
		[ -e "$f" ] || { echo "none (no device)"; return; }
		cat "/proc/irq/${f##*/}/effective_affinity_list"
	done | tr '\n' ' '
}
pins() {
	case $1 in
	irq) pin_server="taskset -c 0" pin_client="taskset -c 0" ;;
	apart)
		pin_server="taskset -c 1" pin_client="taskset -c 1"
		[ "$topo" = one ] && pin_server="taskset -c 0"
		;;
	*) pin_server="" pin_client="" ;;
	esac
}

# link MTU TO BURST: what the link between the guests carries toward
# guest TO, from pktgen in the other guest: LINK_FRAMES frames the size
# of a full-MTU RoCE packet (path MTU + Ethernet, IPv4, UDP, BTH and
# ICRC), sent to an address no guest has, so the receiver drops them in
# IP without answering. BURST frames go to the NIC per doorbell: 1, a
# kick per frame, as a sender of packet after packet; more, the others
# with xmit_more, as sroce's chains (a NIC that cannot take one skb
# several times refuses it: no figure). The receiver writes a kind=link
# line: the sender's frames/s and how many frames arrived. pktgen pays
# its own cost per frame: the figure is what the link carried at least,
# not its ceiling.
link() {
	local mtu=$1 to=$2 burst=$3 pmtu=1024 frame mac r0 pps c run f=/proc/net/pktgen
	[ "$mtu" -ge 4200 ] && pmtu=4096
	frame=$((pmtu + 14 + 20 + 8 + 12 + 4))
	ln=$((ln + 1))
	if [ "$SROCE_ROLE" = "$to" ]; then
		r0=$(cat "/sys/class/net/$nic/statistics/rx_packets")
		barrier "l$ln" 120
		barrier_file "$SROCE_IO/val-$peer-pps$ln"
		sleep 1
		pps=$(lookup "$peer" "pps$ln" 2>/dev/null)
		pps=${pps:-0}
		echo "kind=link topo=$topo mtu=$mtu to=$to frame=$frame payload=$pmtu" \
			"burst=$burst sent=$LINK_FRAMES" \
			"got=$(($(cat "/sys/class/net/$nic/statistics/rx_packets") - r0))" \
			"pps=$pps" >>"$raw"
		echo "# link toward $to, MTU $mtu, $frame-byte frames, $burst a doorbell: $pps frames/s"
		return 0
	fi
	barrier "l$ln" 120
	mac=$(ip neigh show "192.0.2.$((3 - me))" | awk '{ print $5; exit }')
	pps=0
	if [ -w "$f/pgctrl" ] && [ -n "$mac" ]; then
		echo rem_device_all >"$f/kpktgend_0"
		echo "add_device $nic" >"$f/kpktgend_0"
		for c in "count $LINK_FRAMES" "pkt_size $frame" "delay 0" "clone_skb 0" \
			"dst 192.0.2.99" "dst_mac $mac" "udp_dst_min 4791" "udp_dst_max 4791"; do
			echo "$c" >"$f/$nic"
		done
		run=1
		if [ "$burst" -gt 1 ] && ! echo "burst $burst" >"$f/$nic" 2>/dev/null; then
			echo "# pktgen: $nic takes no bursts of $burst: no figure"
			run=
		fi
		# A link that stops carrying must not hold the bench: a signal
		# ends pktgen's run.
		if [ -n "$run" ]; then
			timeout 60 sh -c "echo start >$f/pgctrl" || :
			pps=$(awk '/pps/ { sub(/pps.*/, ""); print $1; exit }' "$f/$nic")
		fi
		echo rem_device_all >"$f/kpktgend_0"
	fi
	publish "pps$ln" "${pps:-0}"
}

# The points of one pass: "KIND TOOL SIZE QPS" lines.
points() {
	local t s q
	[ "$mode" = profile ] && { echo "$BENCH_POINT"; return; }
	for t in $bw_tools; do
		for s in $sizes; do
			for q in $qpss; do echo "bw $t $s $q"; done
		done
	done
	[ -n "$atomic" ] && echo "bw ib_atomic_bw 8 1"
	for t in $lat_tools; do
		for s in $lat_sizes; do echo "lat $t $s 1"; done
	done
}
# The runs of one pass: each bandwidth point is preceded by a "setup" run
# of a tenth of its messages (perftest takes 5 at least), whose busy CPU
# and bytes the report subtracts: perftest's start, connection and memory
# registration are no cost per GiB moved (with 20 messages per QP, a
# quarter of a 1 MiB point's busy time with 4 QPs).
runs() {
	points | while read -r kind tool size qps; do
		[ "$kind" = bw ] && [ "$mode" != profile ] && echo "setup $tool $size $qps"
		echo "$kind $tool $size $qps"
	done
}
total=$(($(runs | wc -l) * $(echo $mtus | wc -w) * $(echo $places | wc -w) * 2 * reps))

n=0
# point DRIVER MTU PLACE REP KIND TOOL SIZE QPS: one perftest run.
point() {
	local drv=$1 mtu=$2 where=$3 rep=$4 kind=$5 tool=$6 size=$7 qps=$8
	local port args c0 c1 k0 k1 t0 t1 iters peer_busy=0 peer_kbusy=0 rc=0 line key
	local r0 ev ev_peer=none
	n=$((n + 1))
	port=$((20000 + n))
	case $kind in bw | setup | msg | qps) kind_bw=1 ;; *) kind_bw= ;; esac
	if [ -n "$kind_bw" ]; then
		# A fixed count per QP (perftest's -D duration mode kept its
		# server waiting a minute after each run): 64 KiB and 1 MiB
		# some 1-5 s each, so that the setup run's cost is well under
		# the run's; the small sizes a second or two.
		case $size in
		8 | 64) iters=5000 ;;
		4096) iters=2000 ;;
		65536) iters=1000 ;;
		*) iters=60 ;;
		esac
		iters=${BENCH_ITERS:-$iters}
		[ "$kind" = setup ] && iters=$((iters / 10 > 5 ? iters / 10 : 5))
		# A section's own count and options (scripts/guest/bench_*.sh).
		[ -n "${point_iters:-}" ] && iters=$point_iters
		args="-n $iters -q $qps ${point_args:-}"
		[ "$tool" = ib_atomic_bw ] || args="$args -s $size"
	else
		args="-s $size -n $lat_iters"
		[ "$tool" = ib_write_lat ] && [ "$size" = 64 ] && [ "$rep" = 1 ] && args="$args -H"
	fi
	key="drv=$drv topo=$topo mtu=$mtu place=$where tool=$tool size=$size qps=$qps rep=$rep${point_tag:+ $point_tag}"
	[ "$topo" = pair ] && barrier "p$n" 120
	if [ "$SROCE_ROLE" != "$client" ] || [ "$topo" = one ]; then
		c0=$(busy) k0=$(kbusy) r0=$(recovery "$drv")
		# shellcheck disable=SC2086
		timeout 180 $pin_server "$tool" -d dev0 -x "$g" -p "$port" -F $args \
			</dev/null >/tmp/bench-server.log 2>&1 &
		server_pid=$!
		wait_for 20 listening
		if [ "$topo" = pair ]; then
			publish "ready$n" 1
			wait $server_pid
			c1=$(busy) k1=$(kbusy)
			publish "ev$n" "$(events "$r0" "$(recovery "$drv")")"
			publish "busy$n" $((c1 - c0))
			publish "kbusy$n" $((k1 - k0))
			return 0
		fi
	fi
	# The server listens (on a: its word through the shared folder).
	[ "$topo" = pair ] && barrier_file "$SROCE_IO/val-a-ready$n"
	[ "$topo" = pair ] && c0=$(busy) k0=$(kbusy) r0=$(recovery "$drv")
	t0=$(date +%s.%N)
	# The phase, for the host's samplers (scripts/tools/host_cpu.py,
	# tcg_profile.py): the point's number, or in a profile the driver.
	if [ "$mode" = profile ]; then echo "$drv"; else echo "$n"; fi >"$SROCE_IO/phase"
	# shellcheck disable=SC2086
	timeout 180 $pin_client "$tool" -d dev0 -x "$g" -p "$port" -F $args "$server" \
		</dev/null >/tmp/bench.log 2>&1 || rc=$?
	echo idle >"$SROCE_IO/phase"
	t1=$(date +%s.%N)
	[ "$topo" = one ] && { wait $server_pid || true; }
	c1=$(busy) k1=$(kbusy)
	ev=$(events "$r0" "$(recovery "$drv")")
	if [ "$topo" = pair ]; then
		barrier_file "$SROCE_IO/val-a-kbusy$n"
		peer_busy=$(lookup a "busy$n" 2>/dev/null || echo 0)
		peer_kbusy=$(lookup a "kbusy$n" 2>/dev/null || echo 0)
		ev_peer=$(lookup a "ev$n" 2>/dev/null || echo none)
	fi
	local cpu kcpu
	cpu=$(awk -v a=$((c1 - c0 + peer_busy)) -v hz="$hz" 'BEGIN { printf "%.2f", a / hz }')
	kcpu=$(awk -v a=$((k1 - k0 + peer_kbusy)) -v hz="$hz" 'BEGIN { printf "%.2f", a / hz }')
	if [ "$kind" != lat ]; then
		# #bytes #iterations BW-peak BW-average MsgRate (MB = 2^20 bytes)
		line=$(awk -v s="$size" '$1 == s && NF >= 5 && $2 ~ /^[0-9]+$/ {
			printf "bw=%s mpps=%s", $4, $5 }' /tmp/bench.log | tail -n 1)
		[ -n "$line" ] && line="$line bytes=$((size * iters * qps))"
	else
		# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
		line=$(awk -v s="$size" '$1 == s && NF >= 9 && $2 ~ /^[0-9]+$/ {
			printf "typ=%s avg=%s p99=%s p999=%s", $5, $6, $8, $9 }' /tmp/bench.log | tail -n 1)
		grep -E '^[0-9]+, [0-9.]+$' /tmp/bench.log | cut -d, -f2 \
			>"$SROCE_IO/cdf-$drv-$topo-$mtu-$where-$tool-$size.txt" 2>/dev/null
		[ -s "$SROCE_IO/cdf-$drv-$topo-$mtu-$where-$tool-$size.txt" ] ||
			rm -f "$SROCE_IO/cdf-$drv-$topo-$mtu-$where-$tool-$size.txt"
	fi
	if [ $rc = 0 ] && [ -n "$line" ]; then
		line="$line wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') cpu_s=$cpu kcpu_s=$kcpu"
		# In loopback the one device is both sides: its events are the client's.
		[ "$drv" = sroce ] && line="$line ev_client=$ev ev_server=$ev_peer"
		echo "kind=$kind $key point=$n $line" >>"$raw"
		echo "# [$n/$total] kind=$kind $key: $line"
		# A bandwidth and message rate of zero for a run that moved
		# its bytes: keep perftest's own words for it.
		case $line in
		"bw=0.00 mpps=0.000000 "*) cp /tmp/bench.log "$SROCE_IO/zero-$n.log" ;;
		esac
	else
		echo "kind=$kind $key point=$n failed=$rc" >>"$raw"
		echo "# [$n/$total] kind=$kind $key: FAILED (exit $rc)"
		tail -n 5 /tmp/bench.log | diag
		# perftest's error goes out unbuffered, before the header it
		# flushes at exit: the whole log, for the run's folder.
		cp /tmp/bench.log "$SROCE_IO/failed-$n.log"
	fi
}

# The link's capacity first, each way, with no RDMA driver loaded (pair
# only: in loopback nothing crosses a link). pktgen is a module the
# kernel may not have: then it says so and the bench goes on.
: "${LINK_FRAMES:=20000}" "${LINK_BURSTS:=1 32}"
ln=0 peer=a
[ "$SROCE_ROLE" = a ] && peer=b
case " ${BENCH_SECTIONS:-perftest} " in
*" perftest "*) link_too=$topo ;;
*) link_too= ;;
esac
if [ "$link_too" = pair ] && [ "$mode" != profile ]; then
	if modprobe pktgen 2>/dev/null; then
		steer irq
		for mtu in $mtus; do
			set_mtu "$mtu"
			barrier "lmtu$mtu" 120 && busybox ping -c 2 -W 2 "192.0.2.$((3 - me))" >/dev/null 2>&1
			# shellcheck disable=SC2086
			for burst in $LINK_BURSTS; do
				link "$mtu" a "$burst"
				link "$mtu" b "$burst"
			done
		done
		rmmod pktgen
	else
		echo "# link capacity not measured: this kernel has no pktgen module"
	fi
fi

# The perftest matrix: a pass for each repetition, driver, MTU and placement.
perftest_pass() {
	[ "$topo" = pair ] && busybox ping -c 2 -W 2 "192.0.2.$((3 - me))" >/dev/null 2>&1
	echo "# placement $3: the NIC's interrupt vectors on vCPU $(nic_irq_cpus)"
	runs | while read -r kind tool size qps; do
		point "$1" "$2" "$3" "$4" "$kind" "$tool" "$size" "$qps"
	done
	n=$((n + $(runs | wc -l)))
}

# BENCH_SECTIONS: the sections of their own first,
# scripts/guest/bench_SECTION.sh (msgrate, qps, nvmf), then perftest (the matrix
# above) if named.
for section in ${BENCH_SECTIONS:-perftest}; do
	[ "$section" = perftest ] || . "$SROCE_SRC/scripts/guest/bench_$section.sh"
done
case " ${BENCH_SECTIONS:-perftest} " in
*" perftest "*) pass_places=$places bench_passes perftest_pass ;;
esac
tap_done
