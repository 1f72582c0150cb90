#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): verbs objects and their refusals
# (verbs_neg.py), with rdma-core's pyverbs, and their memory charged to the
# user's memory cgroup (memcg.py); then the ingress checks, with
# datagrams crafted in a peer namespace (ingress.py), partitions (pkey.py),
# and what a hostile peer or an off-path sender must not do to an RC QP
# (hostile.py).
. "$SROCE_SRC/scripts/guest/tap.sh"

ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
ip addr add 192.0.2.1/24 dev veth0
rdma link add sroce0 type sroce netdev veth0
tap_program 0 verbs_neg.py sroce0
# A user's largest CQs, QPs and SRQs against a memory cgroup's limit.
tap_program 600 memcg.py sroce0

ip netns add peer
ip link set veth1 netns peer
ip -n peer link set veth1 up
ip -n peer addr add 2001:db8::2/64 dev veth1 nodad
ip addr add 2001:db8::1/64 dev veth0 nodad
tap_program 0 ingress.py sroce0 peer 2001:db8::2 2001:db8::1
# Partitions: the P_Key table, RC and UD QPs on its entries, the GSI QP
# and rdma_cm (pkey.py). On the oldest kernel and under the debug
# kernel's checkers, or everywhere with FULL=1, for time.
case "${SROCE_FULL:-0}:$SROCE_TARGET" in
1:* | *:deb12 | *:debug)
	tap_program 0 pkey.py sroce0 peer 2001:db8::2 2001:db8::1 192.0.2.1 ;;
*) skip "make check runs pkey.py on deb12 and debug, for time" "pkey.py" ;;
esac
# A hostile peer and an off-path sender (a second address of the peer
# namespace) against fresh RC QPs (hostile.py).
ip -n peer addr add 2001:db8::3/64 dev veth1 nodad
tap_program 0 hostile.py sroce0 peer 2001:db8::2 2001:db8::3 2001:db8::1
ip netns del peer
rdma link delete sroce0
check "no sroce device left" sh -c '! ls /sys/class/infiniband | grep -q sroce'
tap_done
