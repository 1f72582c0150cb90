#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): the module and the device it registers, as
# rdma-core and iproute2 see them. Prints TAP.
. "$SROCE_SRC/scripts/guest/tap.sh"

sysdev=/sys/class/infiniband

# Kernel modules the driver needs, loaded first so insmod by path works.
modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel 2>/dev/null

loaded() { grep -q '^sroce ' /proc/modules; }
has_dev() { [ -d "$sysdev/$1" ]; }
no_dev() { [ ! -e "$sysdev/$1" ]; }
port_state() { cat "$sysdev/$1/ports/1/state"; }
state_is() { port_state "$1" | grep -q "$2"; }
# The GIDs of a device's port, one per line, zero entries left out.
gids() {
	cat "$sysdev/$1"/ports/1/gids/* 2>/dev/null |
		grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$'
}
has_gid() { gids "$1" | grep -qi "$2"; }
no_gid() { ! has_gid "$1" "$2"; }
devinfo() { ibv_devinfo -v -d "$1"; }
field() { devinfo "$1" | sed -n "s/^[[:space:]]*$2:[[:space:]]*//p" | head -n 1; }
field_is() { [ "$(field "$1" "$2")" = "$3" ]; }

# --- load and unload -----------------------------------------------------
i=0 bad=0
while [ $i -lt 20 ]; do
	insmod "$SROCE_KO" && loaded && rmmod sroce && ! loaded || bad=$((bad + 1))
	i=$((i + 1))
done
check "load/unload 20 times ($bad failures)" [ $bad -eq 0 ]

# --- autoload by `rdma link add` and the device's attributes ---------------
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
check "rdma link add over veth autoloads the module" \
	rdma link add sroce0 type sroce netdev veth0
check "module loaded" loaded
check "rdma link show lists sroce0 on veth0" \
	sh -c 'rdma link show sroce0/1 | grep -q "netdev veth0"'
check "ibv_devices lists sroce0" sh -c 'ibv_devices | grep -qw sroce0'
check "ibv_devinfo opens sroce0 through the rxe provider" devinfo sroce0
check "port ACTIVE" field_is sroce0 state "PORT_ACTIVE (4)"
check "link layer Ethernet" field_is sroce0 link_layer Ethernet
check "transport InfiniBand (RoCE)" field_is sroce0 transport "InfiniBand (0)"
check "active MTU 1024 at netdev MTU 1500" field_is sroce0 active_mtu "1024 (3)"
check "max MTU 4096" field_is sroce0 max_mtu "4096 (5)"
check "pkey table of 16 entries" field_is sroce0 pkey_tbl_len 16
check "phys_port_cnt 1" field_is sroce0 phys_port_cnt 1
mac=$(cat /sys/class/net/veth0/address)
guid=$(python3 -c "
m = [int(x, 16) for x in '$mac'.split(':')]
g = [m[0] ^ 2, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]]
print(':'.join('%02x%02x' % (g[i], g[i + 1]) for i in range(0, 8, 2)))")
check "node GUID derived from the MAC ($guid)" field_is sroce0 node_guid "$guid"
check "sys_image_guid equals node GUID" field_is sroce0 sys_image_guid "$guid"
check "pkey 0 is 0xffff" sh -c "grep -q 0xffff $sysdev/sroce0/ports/1/pkeys/0"
check "node type CA" sh -c "grep -q '^1: CA' $sysdev/sroce0/node_type"
check "hardware counters present" \
	sh -c 'rdma statistic show link sroce0/1 | grep -q rx_packets'
# The MAD layer's QP1 is there as soon as the port is: restrack shows it
# with sroce's own attributes (ring fill) beside the core's.
check "rdma resource shows QP1 with its state" \
	sh -c 'rdma resource show qp link sroce0/1 | grep -E -q "lqpn 1 .*state (RTS|RESET|INIT|RTR)"'
check "rdma resource -dd shows sroce's ring attributes for QP1" \
	sh -c 'rdma -dd resource show qp link sroce0/1 lqpn 1 | grep -q "sq_slots [1-9]"'
check "rdma resource -dd shows sroce's attributes for QP1's CQ" \
	sh -c 'rdma -dd resource show cq dev sroce0 | grep -q "cqe_waiting"'
check "a second link on the same netdev is refused" \
	sh -c '! rdma link add sroce9 type sroce netdev veth0 2>/dev/null'

# --- GIDs follow the netdev's addresses -------------------------------------
check "link-local IPv6 GID present" wait_for 5 has_gid sroce0 '^fe80:'
ip addr add 192.0.2.1/24 dev veth0
check "IPv4 address → RoCEv2 GID ::ffff:192.0.2.1" \
	wait_for 5 has_gid sroce0 '0000:0000:0000:0000:0000:ffff:c000:0201'
ip -6 addr add 2001:db8::1/64 dev veth0 nodad
check "IPv6 address → GID 2001:db8::1" \
	wait_for 5 has_gid sroce0 '^2001:0db8:0000:0000:0000:0000:0000:0001'
check "GID types are RoCE v2 (or IB/RoCE v1 beside them)" \
	sh -c "cat $sysdev/sroce0/ports/1/gid_attrs/types/* 2>/dev/null | grep -q 'RoCE v2'"
check "GIDs are bound to veth0" \
	sh -c "cat $sysdev/sroce0/ports/1/gid_attrs/ndevs/* 2>/dev/null | grep -q veth0"
ip addr del 192.0.2.1/24 dev veth0
check "IPv4 GID removed with the address" \
	wait_for 5 no_gid sroce0 'ffff:c000:0201'
ip -6 addr del 2001:db8::1/64 dev veth0
check "IPv6 GID removed with the address" \
	wait_for 5 no_gid sroce0 '^2001:0db8'

# --- port state and MTU follow the netdev ----------------------------------
ip link set veth0 down
check "port DOWN after ip link set down" wait_for 5 state_is sroce0 DOWN
check "rdma link shows DOWN" sh -c 'rdma link show sroce0/1 | grep -q "state DOWN"'
ip link set veth0 up
check "port ACTIVE after ip link set up" wait_for 5 state_is sroce0 ACTIVE
ip link set veth1 down
check "port DOWN when the peer (carrier) goes down" wait_for 5 state_is sroce0 DOWN
ip link set veth1 up
check "port ACTIVE with carrier back" wait_for 5 state_is sroce0 ACTIVE
ip link set veth0 mtu 9000
check "active MTU 4096 at netdev MTU 9000" field_is sroce0 active_mtu "4096 (5)"
ip link set veth0 mtu 4200
check "active MTU 4096 at netdev MTU 4200" field_is sroce0 active_mtu "4096 (5)"
ip link set veth0 mtu 2200
check "active MTU 2048 at netdev MTU 2200" field_is sroce0 active_mtu "2048 (4)"
ip link set veth0 mtu 1500
check "active MTU 1024 back at 1500" field_is sroce0 active_mtu "1024 (3)"

# --- received datagrams are counted -----------------------------------------
counter() { link_counter sroce4 "$1"; }
# The peer end moves to a namespace so the datagrams really cross veth0.
ip link add veth4 type veth peer name veth5
ip netns add peer
ip link set veth5 netns peer
ip -n peer link set veth5 up
ip -n peer addr add 192.0.2.2/24 dev veth5
ip link set veth4 up
ip addr add 192.0.2.1/24 dev veth4
rdma link add sroce4 type sroce netdev veth4
wait_for 5 state_is sroce4 ACTIVE
send_udp() { # size
	ip netns exec peer python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(bytes($1), ('192.0.2.1', 4791))"
}
rx0=$(counter rx_packets)
send_udp 4
send_udp 64
check "short datagram counted as rx_drop_short" wait_for 5 sh -c "[ \"\$(rdma statistic show link sroce4/1 | tr ' ' '\n' | grep -A1 -x rx_drop_short | tail -n 1)\" -ge 1 ]"
# 64 zero bytes: an RC SEND_FIRST whose ICRC cannot match (the ingress
# checks one by one are the verbs suite's, ingress.py).
check "datagram of zeros counted as rx_drop_icrc" wait_for 5 sh -c "[ \"\$(rdma statistic show link sroce4/1 | tr ' ' '\n' | grep -A1 -x rx_drop_icrc | tail -n 1)\" -ge 1 ]"
check "rx_packets counts both (was $rx0, now $(counter rx_packets))" \
	[ "$(counter rx_packets)" -eq $((rx0 + 2)) ]
ip netns del peer
check "deleting the namespace (and with it veth5's peer veth4) removes sroce4" \
	wait_for 5 no_dev sroce4

# --- VLAN and virtio-net ---------------------------------------------------
ip link add veth2 type veth peer name veth3
ip link set veth2 up
ip link set veth3 up
ip link add link veth2 name veth2.100 type vlan id 100
ip link set veth2.100 up
check "rdma link add over a VLAN" rdma link add sroce1 type sroce netdev veth2.100
check "VLAN device ACTIVE" wait_for 5 state_is sroce1 ACTIVE
ip link set eth0 up
check "rdma link add over virtio-net" rdma link add sroce2 type sroce netdev eth0
check "virtio-net device listed by ibv_devices" sh -c 'ibv_devices | grep -qw sroce2'

# --- refusals --------------------------------------------------------------
check_fails "loopback refused" rdma link add sroce3 type sroce netdev lo
check "the refusal says why" sh -c 'dmesg | grep -q "lo: not an Ethernet device"'
modprobe tun 2>/dev/null
if ip tuntap add dev tun0 mode tun 2>/dev/null; then
	ip link set tun0 up
	check_fails "a non-Ethernet (tun) netdev refused" rdma link add sroce3 type sroce netdev tun0
	ip link del tun0
else
	skip "no tun driver in this kernel" "a non-Ethernet (tun) netdev refused"
fi
check "no device left by the refusals" no_dev sroce3

# --- removal -------------------------------------------------------------
check "rdma link delete removes sroce0" rdma link delete sroce0
check "sroce0 gone" wait_for 5 no_dev sroce0
ip link del veth2.100
check "deleting the VLAN netdev removes sroce1" wait_for 5 no_dev sroce1
check "a namespace comes and goes with the module loaded" \
	sh -c 'ip netns add tmpns && ip netns del tmpns'
rdma link add sroce0 type sroce netdev veth0
check "rmmod with devices present" rmmod sroce
check "every device gone after rmmod" sh -c "! ls $sysdev | grep -q sroce"

# --- rdma_rxe cannot be loaded beside sroce ---------------------------------
if modprobe rdma_rxe 2>/dev/null; then
	check_fails "sroce refuses to load beside rdma_rxe" insmod "$SROCE_KO"
	check "with a message naming rdma_rxe" \
		sh -c 'dmesg | grep -q "sroce: rdma_rxe is loaded"'
	rmmod rdma_rxe
	check "loads once rdma_rxe is gone" insmod "$SROCE_KO"
	# The other way, with the rule `make install` puts in /etc/modprobe.d.
	mkdir -p /etc/modprobe.d
	cp "$SROCE_SRC/modprobe.d/sroce.conf" /etc/modprobe.d/
	check "modprobe.d/sroce.conf: modprobe rdma_rxe fails beside sroce, saying why" \
		sh -c '! modprobe rdma_rxe 2>/tmp/rxe.err && grep -q "sroce is loaded" /tmp/rxe.err &&
			[ ! -d /sys/module/rdma_rxe ]'
	rm /etc/modprobe.d/sroce.conf
	rmmod sroce
else
	skip "no rdma_rxe module in this kernel" "sroce refuses to load beside rdma_rxe"
fi
ip link del veth0 2>/dev/null
ip link del veth2 2>/dev/null

tap_done
