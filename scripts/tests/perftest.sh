#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): perftest RC traffic through sroce in
# loopback, server and client on one device: ib_send, ib_write, ib_read
# and ib_atomic, _bw and _lat, over the IPv4 and the IPv6 GID, at netdev
# MTU 1500 and 9000 (the whole matrix on bpo, one of each elsewhere).
# perftest checks its own completions (status, count); the verifying
# program (rc_verify.py) checks the bytes.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/loopback.sh"

# pt DESCRIPTION TOOL ARGS...: server and client of one perftest run on
# sroce0, 120 s at most each; ok when both exit 0. The result line goes
# into the description (bandwidth: MB/s average; latency: typical usec).
pt() {
	local d=$1 tool=$2 port=$((18515 + tap_n)) out res
	shift 2
	timeout 120 "$tool" -d sroce0 -p "$port" -F "$@" >/tmp/pt-server.log 2>&1 &
	wait_for 20 port_listening "$port"
	if out=$(timeout 120 "$tool" -d sroce0 -p "$port" -F "$@" localhost 2>&1) &&
		wait $!; then
		case $tool in
		*_bw) res=$(echo "$out" | awk '/^ *[0-9]+ +[0-9]+ /{print $4 " MB/s"}' | tail -n 1) ;;
		*) res=$(echo "$out" | awk '/^ *[0-9]+ +[0-9]+ /{print $5 " usec typical"}' | tail -n 1) ;;
		esac
		ok "$d ($res)"
	else
		not_ok "$d"
		printf '%s\n' "$out" | tail -n 20 | diag
		tail -n 20 /tmp/pt-server.log | diag
		wait
	fi
}

# The whole matrix on bpo (the kernel `make bench` measures on); on the
# other targets one run of each operation, to keep `make check` short.
if [ "$SROCE_TARGET" = bpo ]; then
	for mtu in 1500 9000; do
		ip link set veth0 mtu $mtu
		ip link set veth1 mtu $mtu
		sleep 1
		pt "ib_send_bw 64 KiB, IPv4, MTU $mtu" ib_send_bw -x "$g4" -s 65536 -n 200
		pt "ib_write_bw 64 KiB, IPv4, MTU $mtu" ib_write_bw -x "$g4" -s 65536 -n 200
		pt "ib_read_bw 64 KiB, IPv4, MTU $mtu" ib_read_bw -x "$g4" -s 65536 -n 200
		pt "ib_write_bw 1 MiB, IPv6, MTU $mtu" ib_write_bw -x "$g6" -s 1048576 -n 20
		pt "ib_read_bw 1 MiB, IPv6, MTU $mtu" ib_read_bw -x "$g6" -s 1048576 -n 20
	done
	pt "ib_atomic_bw fetch-and-add, IPv4" ib_atomic_bw -x "$g4" -A FETCH_AND_ADD -n 500
	pt "ib_atomic_bw compare-and-swap, IPv6" ib_atomic_bw -x "$g6" -A CMP_AND_SWAP -n 500
	pt "ib_send_lat 64 B, IPv6" ib_send_lat -x "$g6" -s 64 -n 200
	pt "ib_write_lat 64 B, IPv4" ib_write_lat -x "$g4" -s 64 -n 200
	pt "ib_read_lat 64 B, IPv6" ib_read_lat -x "$g6" -s 64 -n 200
	pt "ib_atomic_lat, IPv4" ib_atomic_lat -x "$g4" -n 200
else
	pt "ib_send_bw 64 KiB, IPv4, MTU 1500" ib_send_bw -x "$g4" -s 65536 -n 100
	pt "ib_write_bw 1 MiB, IPv6, MTU 1500" ib_write_bw -x "$g6" -s 1048576 -n 10
	pt "ib_read_bw 64 KiB, IPv4, MTU 1500" ib_read_bw -x "$g4" -s 65536 -n 100
	ip link set veth0 mtu 9000
	ip link set veth1 mtu 9000
	sleep 1
	pt "ib_read_bw 1 MiB, IPv6, MTU 9000" ib_read_bw -x "$g6" -s 1048576 -n 10
	pt "ib_atomic_bw fetch-and-add, IPv4" ib_atomic_bw -x "$g4" -A FETCH_AND_ADD -n 200
	pt "ib_read_lat 64 B, IPv6" ib_read_lat -x "$g6" -s 64 -n 100
	pt "ib_atomic_lat, IPv4" ib_atomic_lat -x "$g4" -n 100
fi
check "sroce counted no dropped transmit" test "$(counter tx_drop)" = 0
check "sroce counted no unmatched response" test "$(counter rx_bad_response)" = 0
rdma statistic show link sroce0/1 | diag
rdma link delete sroce0
tap_done
