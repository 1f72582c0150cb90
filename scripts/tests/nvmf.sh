#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): NVMe over Fabrics between two guests. Guest
# a is the nvmet-rdma target (configfs, a file-backed namespace on
# 192.0.2.1:4420), guest b the nvme-rdma host. Five rounds, each with its
# own pair of RDMA drivers: sroce on both, rdma_rxe on both, each driver
# serving the other, and sroce on both with nvmet-rdma's shared receive
# queues (use_srq=1). In every round the host connects, fio writes and
# verifies random I/O (crc32c), then measures sequential write, read and
# 4 KiB random read; the throughput table of the rounds ends the output. The target is configured once: between rounds its RDMA device
# goes away under the listening port, which is enabled again when the
# next device is up. Last, with sroce on both, the target's link is
# deleted under a verifying fio and added back: the host reconnects and
# fio ends clean. Then the host's device goes away under I/O three ways
# (link delete, rmmod, and its netdev deleted, a macvlan) and the
# target's netdev is deleted with its port listening.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/driver.sh"

case $SROCE_ROLE in
a) me=1 ;;
*) me=2 ;;
esac
nqn=sroce-nvmf
. "$SROCE_SRC/scripts/guest/nvmet.sh"
# How much fio verifies per round and across the removal (less on the
# slow debug kernel). The removal's fio must outlast the 5 s before the
# link goes: at 48M it ran 9 s on bpo, and the outage fell in its last 4.
vsize=32M rsize=128M
[ "$SROCE_TARGET" = debug ] && vsize=16M rsize=16M
need() { command -v "$1" >/dev/null 2>&1; }
# running PID: the process exists and has not exited (a zombie has, and
# kill -0 still finds it until it is waited for).
running() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] && [ "$st" != Z ]
}
reconnected() { dmesg | grep -qE 'nvme nvme[0-9]+: Successfully reconnected'; }
ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
have=1
if [ "$SROCE_ROLE" = a ]; then
	modprobe -q nvmet-rdma || have=
else
	need nvme && need fio && modprobe -q nvme-rdma || have=
fi
publish have "$have"
barrier have
if [ "$(lookup a have)" != 1 ] || [ "$(lookup b have)" != 1 ]; then
	skip "no nvme-cli, fio or NVMe-oF RDMA modules on this target" "NVMe-oF across two guests"
	tap_done
	exit
fi

# port_relink: enable the port again after its device came back. nvmet
# re-listens by itself after an address change, not after a device
# removal: the listener went with the device. Its cm_id is gone, so the
# unlink destroys none (the debug kernel's lockdep objects to destroying
# a listener that accepted a connection; see storage.sh).
# With arguments, nvmet-rdma is loaded again in between with them as its
# parameters (they are read only at load).
port_relink() {
	rm "$cfg/ports/1/subsystems/$nqn" || return 1
	if [ $# -gt 0 ]; then
		modprobe -r nvmet-rdma && modprobe nvmet-rdma "$@" || return 1
	fi
	ln -s "$cfg/subsystems/$nqn" "$cfg/ports/1/subsystems/$nqn"
}

# srqs: how many SRQs dev0 holds (ib_core's resource tracking).
srqs() {
	rdma resource show dev0 | sed -n 's/.* srq \([0-9]*\).*/\1/p'
}

# connect: the host connects and its namespace appears (then find_ns
# sets $dev; check runs this in a subshell).
traddr=192.0.2.1
connect() {
	timeout 60 nvme connect -t rdma -a "$traddr" -s 4420 -n "$nqn" "$@" &&
		wait_for 20 find_ns
}

# fio_bw NAME ARGS...: one fio job on $dev; prints "MiB/s IOPS" of its
# read or write side (whichever moved data).
fio_bw() {
	local name=$1
	shift
	timeout 300 fio --name="$name" --filename="$dev" --direct=1 --ioengine=libaio --eta=never \
		--output-format=json "$@" >"/tmp/fio-$name.json" || return 1
	python3 - "/tmp/fio-$name.json" <<-'EOF'
	import json, sys
	job = json.load(open(sys.argv[1]))["jobs"][0]
	side = job["read"] if job["read"]["io_bytes"] else job["write"]
	print("%.1f %.0f" % (side["bw"] / 1024.0, side["iops"]))
	EOF
}

# measure NAME: sequential write and read, 128 KiB, then 4 s of 4 KiB
# random reads; one row of the table (short, for make check's time: the
# rows compare the rounds of one run).
measure() {
	local w r rr
	w=$(fio_bw seqwrite --rw=write --bs=128k --iodepth=16 --size=32M) &&
		r=$(fio_bw seqread --rw=read --bs=128k --iodepth=16 --size=32M) &&
		rr=$(fio_bw randread --rw=randread --bs=4k --iodepth=32 --size=32M \
			--runtime=4 --time_based)
	check "$1: fio sequential write, read, random read 4 KiB" test -n "$rr"
	# round, write MiB/s, read MiB/s, 4 KiB read IOPS
	echo "$1 ${w% *} ${r% *} ${rr#* }" >>"$SROCE_IO/nvmf-table"
}

# round NAME DRIVER-A DRIVER-B [PARAM...]: one round of the table. The
# first sets the target up: its port needs an RDMA device on the address.
# PARAMs load nvmet-rdma again with them. Once connected, the target
# checks that its queues share SRQs exactly when use_srq is on.
round() {
	local name=$1 drv n
	[ "$SROCE_ROLE" = a ] && drv=$2 || drv=$3
	shift 3
	driver_up "$name" $drv
	if [ "$SROCE_ROLE" = a ]; then
		if [ ! -d "$cfg/ports/1" ]; then
			check "nvmet-rdma target on 192.0.2.1:4420 (file-backed namespace)" nvmet_up 160
		else
			check "$name: the target port enabled again${1:+ (nvmet-rdma $*)}" port_relink "$@"
		fi
	fi
	barrier "up-$name"
	if [ "$SROCE_ROLE" = b ]; then
		check "$name: nvme connect -t rdma" connect
		barrier "conn-$name"
		find_ns
		check "$name: fio randrw 4 KiB..1 MiB, iodepth 32, $vsize, verify crc32c" \
			timeout 600 fio --name=verify --filename="$dev" --direct=1 --ioengine=libaio --eta=never \
			--rw=randrw --bsrange=4k-1m --iodepth=32 --size=$vsize --verify=crc32c \
			--do_verify=1 --verify_fatal=1 --output=/tmp/fio.log
		[ "$SROCE_TARGET" = debug ] || measure "$name"
		check "$name: nvme disconnect" timeout 60 nvme disconnect -n "$nqn"
	else
		barrier "conn-$name" 120
		n=$(srqs)
		if [ "$(cat /sys/module/nvmet_rdma/parameters/use_srq)" = Y ]; then
			check "$name: use_srq: the target's queues share SRQs (srq ${n:-?})" \
				test "${n:-0}" -gt 0
		else
			check "$name: no SRQ on the target without use_srq (srq ${n:-?})" test "$n" = 0
		fi
	fi
	barrier "done-$name" 900
	driver_down "$name" $drv
	barrier "down-$name"
}

round sroce-sroce sroce sroce
# The debug kernel (KASAN, lockdep) watches sroce's side: for time, it
# runs neither rdma_rxe's rounds nor the measurements.
if [ "$SROCE_TARGET" = debug ]; then
	[ "$SROCE_ROLE" = b ] &&
		skip "for time on the debug kernel (bpo runs them)" "rdma_rxe rounds and throughput"
else
	round rxe-rxe rxe rxe
	round sroce-target.rxe-host sroce rxe
	round rxe-target.sroce-host rxe sroce
fi
# nvmet-rdma with one SRQ per completion vector shared by all its queues
# (use_srq=1); it stays on for the removal steps below.
round sroce-sroce.srq sroce sroce use_srq=1

if [ "$SROCE_ROLE" = b ] && [ -s "$SROCE_IO/nvmf-table" ]; then
	echo "# NVMe-oF over two TCG guests (only ratios within one run mean anything):"
	echo "# round                      write MiB/s  read MiB/s  4K randread IOPS"
	awk '{ printf "# %-26s %11s %11s %17s\n", $1, $2, $3, $4 }' "$SROCE_IO/nvmf-table"
fi

# The target's link deleted under I/O, sroce on both sides. The host
# keeps its controller and reconnects every 2 s; fio's writes wait
# (nothing fails) and every block verifies after the link is back.
modprobe sroce 2>/dev/null || insmod "$SROCE_KO"
check "removal: rdma link add dev0 type sroce" rdma link add dev0 type sroce netdev eth0
[ "$SROCE_ROLE" = a ] && check "removal: the target port enabled" port_relink
barrier "up-removal"
if [ "$SROCE_ROLE" = b ]; then
	check "removal: nvme connect (reconnect every 2 s)" connect --reconnect-delay=2 --ctrl-loss-tmo=120
	find_ns
	timeout 600 fio --name=removal --filename="$dev" --direct=1 --ioengine=libaio --eta=never \
		--rw=randwrite --bsrange=4k-256k --iodepth=16 --size=$rsize --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --output=/tmp/fio-removal.log &
	fio=$!
	sleep 5
	check "removal: fio still running when the link goes" running $fio
	barrier "io-running"
	barrier "link-back" 120
	rc=0
	wait $fio || rc=$?
	check "removal: fio wrote and verified every block across the outage" test $rc = 0
	[ $rc = 0 ] || tail -n 20 /tmp/fio-removal.log | diag
	# fio may end before the reconnect does: its last I/O can have
	# completed before the outage, and the host's first attempt comes
	# 2 s after it noticed.
	check "removal: the host saw the controller reconnect" wait_for 60 reconnected
	check "removal: nvme disconnect" timeout 60 nvme disconnect -n "$nqn"
else
	barrier "io-running"
	check "removal: rdma link delete on the target under I/O" rdma link delete dev0
	sleep 3
	check "removal: rdma link add again" rdma link add dev0 type sroce netdev eth0
	check "removal: the target port enabled again" port_relink
	barrier "link-back"
fi
barrier "removal-done" 900

# host_gone NAME COMMAND...: the host's RDMA device goes away by COMMAND
# under I/O: nvme-rdma is told and removes the controller, fio's I/O
# fails instead of hanging, and COMMAND returns.
host_gone() {
	local name=$1 t0 t
	shift
	check "$name: nvme connect" connect
	if ! find_ns; then
		dmesg | tail -n 12 | diag
		return 1
	fi
	timeout -s KILL 200 fio --name="$name" --filename="$dev" --direct=1 --ioengine=libaio \
		--eta=never --rw=randread --bs=64k --iodepth=16 --size=$rsize --loops=1000 \
		--runtime=150 --output="/tmp/fio-$name.log" &
	fio=$!
	sleep 5
	t0=$(date +%s)
	check "$name: $* on the host under I/O" timeout 120 "$@"
	# (wait, not kill -0: an exited fio stays a zombie until waited for.
	# Loops, not --time_based: without NVMe multipath, as on the debug
	# kernel, the removed namespace reads as empty, not as an error, and
	# a time-based job would read nothing until its time is up.)
	wait $fio
	t=$(($(date +%s) - t0))
	check "$name: fio ended $t s after it (none of its I/O hung)" [ $t -lt 100 ]
	check_fails "$name: the controller is gone" find_ns
}

# host_back NAME: sroce and its link back on the host, which connects
# again and reads.
host_back() {
	modprobe sroce 2>/dev/null || insmod "$SROCE_KO"
	check "$1: rdma link add again" rdma link add dev0 type sroce netdev eth0
	check "$1: nvme connect again" connect
	find_ns || return 1
	check "$1: 8 MiB read through the new controller" \
		dd if="$dev" of=/dev/null bs=1M count=8 iflag=direct
	check "$1: nvme disconnect" timeout 60 nvme disconnect -n "$nqn"
}

# The host's link deleted under I/O, then its sroce module unloaded with
# the link still there.
if [ "$SROCE_ROLE" = b ]; then
	host_gone hostdel rdma link delete dev0
	host_back hostdel
	host_gone unload rmmod sroce
	host_back unload
fi
barrier "unload-done" 900

# The netdev under sroce deleted while connected. Both sides move sroce
# to a macvlan on eth0 (mv0, 198.51.100.0/24; a virtio NIC cannot be
# deleted, and the core gives a device on an 802.1Q VLAN no IP GIDs) and
# the target listens there on a second port. The host deletes its
# macvlan under I/O, as above; then the target deletes its own, with the
# port listening (and the host's queues, unless nvmet's keep-alive has
# ended them by then): nvmet is told and lets go, and the port's
# listener went with the device.
mdev_gone() { ! rdma link show mdev/1 >/dev/null 2>&1; }
mdev_gid() { grep -qs "ffff:c633:640$me" /sys/class/infiniband/mdev/ports/1/gids/*; }
check "rdma link delete dev0" rdma link delete dev0
# Only mv0 answers ARP for its address: eth0 would answer too (and
# first, at times), and RoCE packets arriving on eth0 find no device.
echo 1 >/proc/sys/net/ipv4/conf/all/arp_ignore
ip link add link eth0 name mv0 type macvlan mode bridge &&
	ip link set mv0 up &&
	ip addr add "198.51.100.$me/24" dev mv0
check "netdev: rdma link add mdev over the macvlan mv0" \
	rdma link add mdev type sroce netdev mv0
# (rdma_cm finds the device by this GID; the core fills the table later.)
check "netdev: mdev has the IPv4 GID of 198.51.100.$me" wait_for 20 mdev_gid
if [ "$SROCE_ROLE" = a ]; then
	p2=$cfg/ports/2
	check "netdev: target port 2 on 198.51.100.1:4420" sh -c "mkdir $p2 &&
		echo rdma >$p2/addr_trtype && echo ipv4 >$p2/addr_adrfam &&
		echo 198.51.100.1 >$p2/addr_traddr && echo 4420 >$p2/addr_trsvcid &&
		ln -s $cfg/subsystems/$nqn $p2/subsystems/$nqn"
fi
barrier "up-netdev"
if [ "$SROCE_ROLE" = b ]; then
	traddr=198.51.100.1
	# Once the netdev is down nothing leaves, and nvme-rdma lets the
	# controller go only after the commands in flight have timed out
	# (I/O 30 s, then the shutdown's Property Set on the admin queue,
	# 60 s): 5 s each here, for time. Both are read when the
	# controller's queues are made, at connect.
	tmo=/sys/module/nvme_core/parameters
	io_tmo=$(cat $tmo/io_timeout) admin_tmo=$(cat $tmo/admin_timeout)
	echo 5 >$tmo/io_timeout
	echo 5 >$tmo/admin_timeout
	host_gone netdev ip link delete mv0
	echo "$io_tmo" >$tmo/io_timeout
	echo "$admin_tmo" >$tmo/admin_timeout
	check "netdev: the host's mdev is gone" wait_for 10 mdev_gone
	barrier "host-netdev-gone"
else
	barrier "host-netdev-gone" 900
	check "netdev: ip link delete mv0 on the target, port 2 listening" \
		timeout 120 ip link delete mv0
	check "netdev: the target's mdev is gone" wait_for 10 mdev_gone
	check "netdev: port 2 removed" sh -c "rm $p2/subsystems/$nqn && rmdir $p2"
fi
barrier "netdev-done" 300

# The target stays configured until the guest powers off (storage.sh
# says why).
tap_done
