#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side; both guests run it (the host prefixes each line
# with the guest's role): what rdma-core and iproute2 see, then RC traffic
# between the two: ibv_rc_pingpong validating every buffer, perftest
# WRITE and READ bandwidth, and the counters they moved.
. "$SROCE_SRC/scripts/guest/rendezvous.sh"

case $SROCE_ROLE in a) me=1 peer=2 ;; *) me=2 peer=1 ;; esac
show() { echo "\$ $*"; "$@" 2>&1; }

ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
ip -6 addr add "2001:db8::$me/64" dev eth0 nodad
rdma link add sroce0 type sroce netdev eth0
sleep 2	# GIDs arrive from the core's address event work

echo "================ guest $SROCE_ROLE ($(uname -r)) ================"
show rdma link show
show ibv_devices
show ibv_devinfo -d sroce0
echo "GID table of sroce0 port 1:"
port=/sys/class/infiniband/sroce0/ports/1
# One grep over the 1024 entries: a process per entry is slow under TCG.
grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$' "$port"/gids/* |
while IFS=: read -r f v; do
	i=${f##*/}
	printf '  %-3s %s  %s  %s\n' "$i" "$v" "$(cat "$port/gid_attrs/types/$i")" \
		"$(cat "$port/gid_attrs/ndevs/$i")"
done
show rdma statistic show link sroce0/1

# serve_or_connect NAME COMMAND...: guest a serves, guest b connects to it.
serve_or_connect() {
	barrier "$1"
	shift
	if [ "$SROCE_ROLE" = a ]; then
		show timeout 120 "$@"
	else
		sleep 2
		show timeout 120 "$@" "192.0.2.$peer"
	fi
}
g=$(grep -l "ffff:c000:020$me" "$port"/gids/* | head -n 1)
g=${g##*/}
echo "================ traffic (guest a serves, guest b connects) ================"
serve_or_connect pp ibv_rc_pingpong -d sroce0 -g "$g" -s 65536 -n 100 -c
serve_or_connect wbw ib_write_bw -d sroce0 -x "$g" -F -s 65536 -n 200
serve_or_connect rbw ib_read_bw -d sroce0 -x "$g" -F -s 65536 -n 200
show rdma statistic show link sroce0/1
barrier done
