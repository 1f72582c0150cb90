#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): RC traffic through sroce in loopback, both
# ends on one device: ibv_rc_pingpong (SEND/RECV) validating every buffer,
# over the IPv4 and the IPv6 GID, several sizes, polling and events.
. "$SROCE_SRC/scripts/guest/tap.sh"

ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
ip addr add 192.0.2.1/24 dev veth0
ip addr add 2001:db8::1/64 dev veth0 nodad
rdma link add sroce0 type sroce netdev veth0

# gid_index ADDRESS-PREFIX: the index of the first GID that starts with it.
gid_index() {
	for f in /sys/class/infiniband/sroce0/ports/1/gids/*; do
		if grep -q "^$1" "$f" 2>/dev/null; then
			basename "$f"
			return 0
		fi
	done
	return 1
}
wait_for 10 gid_index 0000:0000:0000:0000:0000:ffff:c000:0201 >/dev/null
wait_for 10 gid_index 2001:0db8 >/dev/null
g4=$(gid_index 0000:0000:0000:0000:0000:ffff:c000:0201)
g6=$(gid_index 2001:0db8)

# pingpong DESCRIPTION ARGS...: server and client on sroce0, 30 s at most.
pingpong() {
	local d=$1 port=$((18515 + tap_n)) out
	shift
	timeout 120 ibv_rc_pingpong -d sroce0 -p "$port" -c "$@" >/tmp/pp-server.log 2>&1 &
	sleep 1
	if out=$(timeout 120 ibv_rc_pingpong -d sroce0 -p "$port" -c "$@" localhost 2>&1) &&
		wait $!; then
		ok "$d ($(echo "$out" | grep -o '[0-9.]* Mbit/sec' | head -n 1))"
	else
		not_ok "$d"
		printf '%s\n' "$out" | diag
		diag </tmp/pp-server.log
		wait
	fi
}

pingpong "rc_pingpong IPv4, 4 KiB x 100" -g "$g4" -s 4096 -n 100
pingpong "rc_pingpong IPv6, 4 KiB x 100" -g "$g6" -s 4096 -n 100
pingpong "rc_pingpong 1 byte x 200" -g "$g4" -s 1 -n 200
pingpong "rc_pingpong 64 KiB x 20 (multi-packet, MTU 1024)" -g "$g4" -s 65536 -n 20 -m 1024
pingpong "rc_pingpong 1 MiB x 4" -g "$g4" -s 1048576 -n 4
pingpong "rc_pingpong with completion events (-e)" -g "$g4" -s 4096 -n 100 -e
check "sroce counted no dropped transmit" sh -c \
	"[ \"\$(rdma statistic show link sroce0/1 | tr ' ' '\n' | grep -A1 -x tx_drop | tail -n 1)\" = 0 ]"
rdma statistic show link sroce0/1 | diag
rdma link delete sroce0
tap_done
