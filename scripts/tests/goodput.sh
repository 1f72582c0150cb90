#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest measurement (topology "pair"), not part of make check: RC goodput
# over an impaired link, sroce against sroce and then rdma_rxe against
# rdma_rxe in the same run, on the same guests. For each netem setting of
# $GOODPUT_SET (";"-separated; the default is the list) it runs
# ib_write_bw and ib_read_bw at 64 KiB for $GOODPUT_SECS seconds (-D) on
# each driver and prints one TAP line with the MB/s perftest reports; a
# run that does not finish within three times its duration counts as 0
# (and says so). Guest a serves, b connects. TCG: only ratios mean
# anything. Run it with
#   scripts/build.sh bpo
#   scripts/vm.sh --timeout 3600 bpo pair 'sh $SROCE_SRC/scripts/tests/goodput.sh'
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"

mix="loss 5% duplicate 2% corrupt 1% delay 1ms reorder 25% 50%"
: "${GOODPUT_SET=none;loss 1%;loss 5%;delay 1ms reorder 25% 50%;duplicate 5%;corrupt 1%;$mix}"
: "${GOODPUT_SECS=10}"
case $SROCE_ROLE in
a) me=1 peer=2 ;;
*) me=2 peer=1 ;;
esac
ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2
tc qdisc replace dev eth0 parent 1:3 pfifo

gid_index() { gid_match dev0 "ffff:c000:020$me"; }

# run DRIVER TOOL NETEM PORT: one timed run; b prints the result line.
run() {
	local drv=$1 tool=$2 args=$3 port=$4 rc=0 bw
	barrier "g$port"
	# shellcheck disable=SC2086 # the netem arguments are words
	if [ "$args" = none ]; then
		tc qdisc replace dev eth0 parent 1:3 pfifo
	else
		tc qdisc replace dev eth0 parent 1:3 netem $args
	fi
	if [ "$SROCE_ROLE" = a ]; then
		serve_and_tell "$port" timeout $((3 * GOODPUT_SECS + 30)) "$tool" -d dev0 \
			-x "$g" -p "$port" -F -s 65536 -D "$GOODPUT_SECS" >/tmp/g.log 2>&1 || true
	else
		connect_when_told "$port" timeout $((3 * GOODPUT_SECS + 30)) "$tool" -d dev0 \
			-x "$g" -p "$port" -F -s 65536 -D "$GOODPUT_SECS" "192.0.2.$peer" \
			>/tmp/g.log 2>&1 || rc=$?
		bw=$(awk '/^ *65536 +[0-9]+ /{print $4}' /tmp/g.log | tail -n 1)
		if [ $rc = 0 ] && [ -n "$bw" ]; then
			ok "goodput $drv $tool netem '$args': $bw MB/s"
		else
			ok "goodput $drv $tool netem '$args': 0 MB/s (did not finish, exit $rc)"
			tail -n 3 /tmp/g.log | diag
		fi
	fi
	barrier "g$port-done"
}

port=19500
for drv in sroce rxe; do
	[ $drv = rxe ] && modprobe rdma_rxe
	rdma link add dev0 type $drv netdev eth0
	wait_for 10 gid_index
	g=$(gid_index)
	barrier "up-$drv"
	busybox ping -c 1 -W 2 "192.0.2.$peer" >/dev/null
	IFS=';'
	for args in $GOODPUT_SET; do
		IFS=' '
		for tool in ib_write_bw ib_read_bw; do
			port=$((port + 1))
			run $drv $tool "$args" $port
		done
		IFS=';'
	done
	IFS=' '
	rdma link delete dev0
	[ $drv = sroce ] && rmmod sroce
done
tap_done
