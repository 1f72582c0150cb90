#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side; both guests run it (the host prefixes each line
# with the guest's role).

case $SROCE_ROLE in a) me=1 ;; *) me=2 ;; esac
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
