#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one", debug target): endurance (issue 52). First
# teardown under traffic (endure.py): cycles of RC and UD traffic between
# two sroce devices across a veth pair, rdma_cm traffic (rping) and, in
# every eighth cycle of each kind (SROCE_FULL=1: every other one), an
# NVMe-oF connection over sroce0 under reads, each ended by one of a link
# delete, a netdev delete, a namespace delete, the netdev moved to
# another namespace, a carrier drop, an MTU change, an address removal or
# an rmmod; 50 cycles (SROCE_FULL=1: 1000).
# Then allocation failures (failinj.py), where the kernel can inject them:
# every create path with each of its allocations at sroce's call sites
# failed once. Then the module must unload within 5 s, and kmemleak must
# find nothing. Prints TAP; Documentation/testing.rst says how to read it.
. "$SROCE_SRC/scripts/guest/tap.sh"

modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel 2>/dev/null
modprobe sroce 2>/dev/null || insmod "$SROCE_KO"
cycles=50 nvme=8
[ "${SROCE_FULL:-0}" = 1 ] && cycles=1000 nvme=2
tap_program 0 endure.py "$cycles" "$nvme"

if [ -d /sys/kernel/debug/failslab ]; then
	ip netns add peer
	ip link add veth0 type veth peer name veth1 netns peer
	ip link set veth0 up
	ip -n peer link set veth1 up
	ip addr add 192.0.2.1/24 dev veth0
	ip -n peer addr add 192.0.2.2/24 dev veth1
	rdma link add sroce0 type sroce netdev veth0
	ip netns exec peer rdma link add sroce1 type sroce netdev veth1
	tap_program 0 failinj.py sroce0 veth0 sroce1
	rdma link delete sroce0 2>/dev/null
	ip netns exec peer rdma link delete sroce1 2>/dev/null
	ip netns del peer
	ip link del veth0 2>/dev/null
else
	skip "the kernel has no CONFIG_FAILSLAB (scripts/debug.config)" \
		"allocation failures at every create path"
fi

check "no sroce device left" sh -c '! ls /sys/class/infiniband | grep -q sroce'
check "the module unloads within 5 s" wait_for 5 sh -c 'rmmod sroce 2>/dev/null; ! grep -q "^sroce " /proc/modules'
# kmemleak reports what has been unreferenced for 5 s: scan, wait, scan.
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >/tmp/kmemleak
	check "kmemleak finds nothing ($(grep -c unreferenced /tmp/kmemleak) objects)" \
		sh -c '! grep -q unreferenced /tmp/kmemleak'
	head -n 40 /tmp/kmemleak | diag
else
	skip "no kmemleak in this kernel" "kmemleak finds nothing"
fi
tap_done
