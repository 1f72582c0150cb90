#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): RoCE over a VLAN, between two sroce devices
# of one guest. A veth pair joins the initial namespace (veth0, sroce0)
# to namespace "peer" (veth1, sroce1, made from inside it: shared mode),
# with VLAN 100 on both ends; the RDMA core gives each device the VLAN's
# GID. RC traffic on that GID leaves tagged, its PCP from the SL through
# the VLAN device's egress map (vlan_cap.py watches veth1); rping over it
# needs the VLAN in the CM's UD completions (IB_WC_WITH_VLAN) to answer
# the connection. Prints TAP.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/vlan_veth.sh"

modprobe -a ib_core ib_uverbs 8021q 2>/dev/null
sysdev=/sys/class/infiniband
ndev_of() { cat "$sysdev/$1/ports/1/gid_attrs/ndevs/$2" 2>/dev/null; }
vlan_gid() { gid_match "$1" "$2"; }
tx_packets() { cat "/sys/class/net/$1/statistics/tx_packets"; }
# listen_wait PORT: until a server in peer listens on PORT (TCP or rdma_cm).
listen_wait() {
	wait_for 30 pn sh -c ". $SROCE_SRC/scripts/guest/tap.sh; port_listening $1"
}

# SL 3 (priority 3) goes out of veth0.100 with PCP 5.
vlan_veth 3:5 ""

check "rdma link add sroce0 netdev veth0" rdma link add sroce0 type sroce netdev veth0
check "in namespace peer: rdma link add sroce1 netdev veth1" \
	pn rdma link add sroce1 type sroce netdev veth1
# 198.51.100.x as an IPv4-mapped GID.
check "sroce0 has the VLAN's GID" wait_for 10 vlan_gid sroce0 ffff:c633:6401
check "sroce1 has the VLAN's GID" wait_for 10 vlan_gid sroce1 ffff:c633:6402
g0=$(vlan_gid sroce0 ffff:c633:6401)
g1=$(vlan_gid sroce1 ffff:c633:6402)
check "the GID's netdev is veth0.100 (index $g0)" [ "$(ndev_of sroce0 "$g0")" = veth0.100 ]
check "ibv_devinfo -v lists it" sh -c "ibv_devinfo -v -d sroce0 | grep -q 'GID\[ *$g0\]:.*198.51.100.1\|GID\[ *$g0\]:.*c633:6401'"
check "IP over the VLAN" wait_for 20 busybox ping -c 1 -W 2 198.51.100.2

# cap SECONDS COUNT: start vlan_cap.py on veth1, output in /tmp/cap.
cap() {
	rm -f /tmp/cap
	pn python3 "$SROCE_SRC/scripts/tests/vlan_cap.py" veth1 "$1" "$2" >/tmp/cap 2>&1 &
	cap_pid=$!
	wait_for 10 grep -q ready /tmp/cap
}
tagged() { grep -c "^tagged $1 $2\$" /tmp/cap; }
# all_tagged PCP DESCRIPTION: once the capture ended, at least 20 RoCE
# frames seen, every one tagged VLAN 100 with PCP.
all_tagged() {
	local n
	wait "$cap_pid"
	n=$(tagged 100 "$1")
	if [ "$n" -ge 20 ] && ! grep -v "^ready\$" /tmp/cap | grep -vq "^tagged 100 $1\$"; then
		ok "$2 ($n seen)"
	else
		not_ok "$2"
		diag </tmp/cap
	fi
}

# pingpong PORT ARGS...: sroce1 serves in peer, sroce0 connects.
pingpong() {
	local port=$1 out
	shift
	pn timeout 120 ibv_rc_pingpong -d sroce1 -g "$g1" -p "$port" -c "$@" \
		>/tmp/pp-srv 2>&1 &
	listen_wait "$port"
	out=$(timeout 120 ibv_rc_pingpong -d sroce0 -g "$g0" -p "$port" -c "$@" \
		198.51.100.2 2>&1)
	rc=$?
	wait $! || rc=1
	[ $rc -eq 0 ] || {
		printf '%s\n' "$out"
		cat /tmp/pp-srv
		rdma statistic show link sroce0/1
		rdma statistic show link sroce1/1
	}
	return $rc
}
tx0=$(tx_packets veth0.100)
cap 90 40
check "RC pingpong over the VLAN GID, SL 3, buffers validated" \
	pingpong 18515 -s 4096 -n 50 -l 3
check "veth0.100 sent the traffic" [ "$(tx_packets veth0.100)" -ge $((tx0 + 50)) ]
all_tagged 5 "RoCE frames from sroce0 arrive tagged, VLAN 100 PCP 5"
cap 90 40
check "RC pingpong over the VLAN GID, SL 0" pingpong 18516 -s 65536 -n 10 -m 1024
all_tagged 0 "with SL 0 and class 0, PCP 0"
# UD: the address handle's GID picks the VLAN too.
cap 60 20
pn timeout 60 ibv_ud_pingpong -d sroce1 -g "$g1" -p 18517 -s 512 -n 20 >/tmp/ud-srv 2>&1 &
listen_wait 18517
check "UD pingpong over the VLAN GID" timeout 60 ibv_ud_pingpong -d sroce0 -g "$g0" \
	-p 18517 -s 512 -n 20 198.51.100.2
wait $! || { not_ok "UD pingpong server"; diag </tmp/ud-srv; }
wait "$cap_pid"
check "UD datagrams tagged VLAN 100" [ "$(tagged 100 0)" -ge 10 ]

# rdma_cm over the VLAN's address: the CM's MADs (UD, QP1) must report
# the VLAN for the passive side to find the GID it answers from.
pn timeout 120 rping -s -a 198.51.100.2 -p 18720 -V -C 20 -S 1000 >/tmp/rping-srv 2>&1 &
listen_wait 18720
check "rping over the VLAN, data validated" \
	timeout 120 rping -c -a 198.51.100.2 -p 18720 -V -C 20 -S 1000
wait $! || { not_ok "rping server"; diag </tmp/rping-srv; }
pn timeout 120 rping -s -a 2001:db8:100::2 -p 18722 -V -C 20 -S 1000 >/tmp/rping-srv 2>&1 &
listen_wait 18722
check "rping over the VLAN's IPv6 address, data validated" \
	timeout 120 rping -c -a 2001:db8:100::2 -p 18722 -V -C 20 -S 1000
wait $! || { not_ok "rping server (IPv6)"; diag </tmp/rping-srv; }
pn timeout 120 ib_send_bw -d sroce1 -R -s 4096 -n 50 -F -p 18721 >/tmp/bw-srv 2>&1 &
listen_wait 18721
check "ib_send_bw -R over the VLAN" \
	timeout 120 ib_send_bw -d sroce0 -R -s 4096 -n 50 -F -p 18721 198.51.100.2
wait $! || { not_ok "ib_send_bw server"; diag </tmp/bw-srv; }

check "sroce1 counted what came on veth1.100" \
	[ "$(link_counter sroce1 rx_packets)" -gt 0 ]
check "rdma link delete sroce1" pn rdma link delete sroce1
check "rdma link delete sroce0" rdma link delete sroce0
ip netns del peer
ip link del veth0 2>/dev/null
check "the module unloads" rmmod sroce
check "no kernel warning" sh -c "! dmesg | grep -E 'WARNING:|BUG:|Call Trace|refcount|to become free'"
tap_done
