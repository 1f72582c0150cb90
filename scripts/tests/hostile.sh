#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): the hostile conformance suite (conform.py)
# against sroce, then the same cases against rdma_rxe on the same link,
# and the two columns side by side (the long form only); between the two, the receive path
# fuzzed (fuzz.py): 50 000 mutated datagrams, 10^6 with SROCE_FULL=1. The crafted datagrams come from a peer
# network namespace: its address 2001:db8::2 / 192.0.2.2 is the QPs'
# peer, 2001:db8::3 / 192.0.2.3 an off-path sender; 2001:db8::5 /
# 192.0.2.5 are ours but no QP's. sroce's column is the TAP (a case off
# the specification's outcome fails); rdma_rxe's is a report.
. "$SROCE_SRC/scripts/guest/tap.sh"

ip link add veth0 type veth peer name veth1
ip netns add peer
ip link set veth1 netns peer
ip link set veth0 up
ip -n peer link set veth1 up
ip addr add 192.0.2.1/24 dev veth0
ip addr add 192.0.2.5/24 dev veth0
ip addr add 2001:db8::1/64 dev veth0 nodad
ip addr add 2001:db8::5/64 dev veth0 nodad
ip -n peer addr add 192.0.2.2/24 dev veth1
ip -n peer addr add 2001:db8::2/64 dev veth1 nodad
ip -n peer addr add 2001:db8::3/64 dev veth1 nodad

cd "$SROCE_SRC/scripts/tests" || exit 1
rdma link add sroce0 type sroce netdev veth0
tap_program 0 conform.py run sroce0 sroce /tmp/conform-sroce.json
count=50000
[ "${SROCE_FULL:-0}" = 1 ] && count=1000000
tap_program 0 fuzz.py sroce0 peer 2001:db8::2 2001:db8::1 "$count" 1
rdma link delete sroce0
rmmod sroce

# rdma_rxe's column is a report, not a test: it costs make check some
# 100 s on debug, so only the long form draws it.
if [ "${SROCE_FULL:-0}" != 1 ]; then
	skip "rdma_rxe's column is drawn by the long form (make check FULL=1)" \
		"the cases against rdma_rxe"
elif modprobe rdma_rxe 2>/dev/null; then
	rdma link add rxe0 type rxe netdev veth0
	tap_program 0 conform.py run rxe0 rxe /tmp/conform-rxe.json
	rdma link delete rxe0
	rmmod rdma_rxe
	python3 conform.py table /tmp/conform-sroce.json /tmp/conform-rxe.json | diag
else
	skip "no rdma_rxe module in this kernel" "the cases against rdma_rxe"
fi
tap_done
