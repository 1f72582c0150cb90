#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): sroce devices on netdevs in network
# namespaces, in the RDMA core's shared mode (the default) and then in
# exclusive mode. A veth pair joins namespaces ns1 (veth0, sroce0) and ns2
# (veth1, sroce1); each device is made from inside its namespace. RC
# pingpong, rping and perftest run between the namespaces; then ns1 is
# deleted while netns_live.py keeps QPs sending: the veth pair dies with
# it, both devices must go (consumers told by IBV_EVENT_DEVICE_FATAL), the
# kernel log stay clean and the module unload. Prints TAP.
. "$SROCE_SRC/scripts/guest/tap.sh"

modprobe -a ib_core ib_uverbs rdma_ucm 2>/dev/null
n1() { ip netns exec ns1 "$@"; }
n2() { ip netns exec ns2 "$@"; }
# seen NS DEV: whether DEV is visible from namespace NS ("init" for ours).
seen() {
	if [ "$1" = init ]; then
		rdma dev show "$2" >/dev/null 2>&1
	else
		ip netns exec "$1" rdma dev show "$2" >/dev/null 2>&1
	fi
}
gone() { ! seen "$1" "$2"; }
# listen_wait NS PORT: until a server in NS listens on PORT.
listen_wait() {
	wait_for 30 ip netns exec "$1" sh -c ". $SROCE_SRC/scripts/guest/tap.sh; port_listening $2"
}
# gidx NS DEV N: DEV's GID index of 192.0.2.N, as NS sees it.
gidx() {
	if [ "$1" = init ]; then
		gid_match "$2" "ffff:c000:020$3"
	else
		ip netns exec "$1" sh -c ". $SROCE_SRC/scripts/guest/tap.sh; gid_match $2 ffff:c000:020$3"
	fi
}

setup() {
	ip netns add ns1
	ip netns add ns2
	ip link add veth0 netns ns1 type veth peer name veth1 netns ns2
	n1 ip link set lo up
	n2 ip link set lo up
	n1 ip link set veth0 up
	n2 ip link set veth1 up
	n1 ip addr add 192.0.2.1/24 dev veth0
	n2 ip addr add 192.0.2.2/24 dev veth1
}

# traffic MODE: the two namespaces talk over their devices.
traffic() {
	local m=$1 g1 g2
	check "$m: sroce0's GID in ns1" wait_for 10 gidx ns1 sroce0 1
	check "$m: sroce1's GID in ns2" wait_for 10 gidx ns2 sroce1 2
	g1=$(gidx ns1 sroce0 1)
	g2=$(gidx ns2 sroce1 2)
	n2 timeout 120 ibv_rc_pingpong -d sroce1 -g "$g2" -p 18515 -c -s 4096 -n 50 \
		>/tmp/pp-srv 2>&1 &
	listen_wait ns2 18515
	check "$m: RC pingpong ns1 -> ns2, buffers validated" \
		n1 timeout 120 ibv_rc_pingpong -d sroce0 -g "$g1" -p 18515 -c -s 4096 -n 50 192.0.2.2
	wait $! || { not_ok "$m: pingpong server in ns2"; diag </tmp/pp-srv; }
	n2 timeout 120 rping -s -a 192.0.2.2 -p 18720 -V -C 20 -S 1000 >/tmp/rping-srv 2>&1 &
	listen_wait ns2 18720
	check "$m: rping ns1 -> ns2, data validated" \
		n1 timeout 120 rping -c -a 192.0.2.2 -p 18720 -V -C 20 -S 1000
	wait $! || { not_ok "$m: rping server in ns2"; diag </tmp/rping-srv; }
	n1 timeout 120 ib_write_bw -d sroce0 -x "$g1" -s 65536 -n 100 -F -p 18721 \
		>/tmp/bw-srv 2>&1 &
	listen_wait ns1 18721
	check "$m: ib_write_bw ns2 -> ns1" \
		n2 timeout 120 ib_write_bw -d sroce1 -x "$g2" -s 65536 -n 100 -F -p 18721 192.0.2.1
	wait $! || { not_ok "$m: ib_write_bw server in ns1"; diag </tmp/bw-srv; }
}

# delete MODE NS DEV: netns_live.py sends on DEV (its GID of 192.0.2.N)
# from namespace NS; ns1 is deleted under it.
delete() {
	local m=$1 ns=$2 dev=$3 n=$4 g
	g=$(gidx "$ns" "$dev" "$n")
	rm -f /tmp/ready
	if [ "$ns" = init ]; then
		python3 "$SROCE_SRC/scripts/tests/netns_live.py" "$dev" "$g" /tmp/ready \
			>/tmp/live.tap 2>&1 &
	else
		ip netns exec "$ns" python3 "$SROCE_SRC/scripts/tests/netns_live.py" \
			"$dev" "$g" /tmp/ready >/tmp/live.tap 2>&1 &
	fi
	if ! wait_for 60 test -e /tmp/ready; then
		not_ok "$m: QPs sending before the namespace goes"
		diag </tmp/live.tap
	fi
	check "$m: ip netns del ns1 under traffic" ip netns del ns1
	wait $!
	tap_relay /tmp/live.tap
	check "$m: sroce0 is gone" wait_for 30 gone init sroce0
	check "$m: sroce1 (its veth peer gone too) is gone" wait_for 30 gone ns2 sroce1
	ip netns del ns2
}

# --- shared mode ---------------------------------------------------------
check "shared mode by default" sh -c "rdma system show | grep -q 'netns shared'"
setup
check "shared: rdma link add sroce0 inside ns1" n1 rdma link add sroce0 type sroce netdev veth0
check "shared: rdma link add sroce1 inside ns2" n2 rdma link add sroce1 type sroce netdev veth1
check "shared: sroce0 seen from ns1, ns2 and init" sh -c \
	"ip netns exec ns1 rdma dev show sroce0 && ip netns exec ns2 rdma dev show sroce0 && rdma dev show sroce0"
traffic shared
# From the initial namespace: the device is shared, its netdev in ns1.
delete shared init sroce0 1

# --- exclusive mode ------------------------------------------------------
# Not while another namespace lives: the deleted ones go in the background.
check "rdma system set netns exclusive" wait_for 30 rdma system set netns exclusive
setup
check "exclusive: rdma link add sroce0 inside ns1" n1 rdma link add sroce0 type sroce netdev veth0
check "exclusive: rdma link add sroce1 inside ns2" n2 rdma link add sroce1 type sroce netdev veth1
# A kernel with ib_alloc_device_with_net() registers the device in its
# netdev's namespace; another registers it in the initial one, to be moved.
for d in "sroce0 ns1" "sroce1 ns2"; do
	set -- $d
	if seen init "$1"; then
		check "exclusive: rdma dev set $1 netns $2" rdma dev set "$1" netns "$2"
	else
		ok "exclusive: $1 registered in $2 itself"
	fi
	check "exclusive: $1 seen in $2 only" sh -c \
		"ip netns exec $2 rdma dev show $1 && ! rdma dev show $1"
done
check "exclusive: ns2 does not see sroce0" gone ns2 sroce0
check "exclusive: ibv_devices in ns1 lists sroce0 alone" sh -c \
	"ip netns exec ns1 ibv_devices | grep -w sroce0 && ! ip netns exec ns1 ibv_devices | grep -w sroce1"
traffic exclusive
# In exclusive mode only a process inside ns2 reaches sroce1: its QPs on
# sroce1 lose their netdev when ns1 takes the veth pair away.
delete exclusive ns2 sroce1 2

check "the module unloads" rmmod sroce
check "no kernel warning" sh -c "! dmesg | grep -E 'WARNING:|BUG:|Call Trace|refcount|to become free'"
tap_done
