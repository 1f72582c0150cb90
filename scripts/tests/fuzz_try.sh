#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): the receive path fuzz (fuzz.py) alone, set
# up as the verbs suite sets up ingress.py: sroce0 on veth0 (2001:db8::1),
# its peer veth1 in namespace "peer" (2001:db8::2).
# Usage: fuzz_try.sh [COUNT [SEED]] (default 20000 packets, seed 1).
. "$SROCE_SRC/scripts/guest/tap.sh"

count=${1:-20000}
seed=${2:-1}
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
rdma link add sroce0 type sroce netdev veth0
ip netns add peer
ip link set veth1 netns peer
ip -n peer link set veth1 up
ip -n peer addr add 2001:db8::2/64 dev veth1 nodad
ip addr add 2001:db8::1/64 dev veth0 nodad
tap_program 0 fuzz.py sroce0 peer 2001:db8::2 2001:db8::1 "$count" "$seed"
ip -s link show veth0 | diag
ip netns del peer
rdma link delete sroce0
check "no sroce device left" sh -c '! ls /sys/class/infiniband | grep -q sroce'
tap_done
