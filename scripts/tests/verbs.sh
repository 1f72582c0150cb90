#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): verbs objects and their refusals
# (verbs_neg.py), with rdma-core's pyverbs; then the ingress checks, with
# datagrams crafted in a peer namespace (ingress.py), and what a hostile
# peer or an off-path sender must not do to an RC QP (hostile.py).
. "$SROCE_SRC/scripts/guest/tap.sh"

ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
ip addr add 192.0.2.1/24 dev veth0
rdma link add sroce0 type sroce netdev veth0
# One TAP stream: the Python part's lines, then ours numbered after them.
python3 "$SROCE_SRC/scripts/tests/verbs_neg.py" sroce0 >/tmp/verbs.tap 2>&1
rc=$?
grep -v '^1\.\.' /tmp/verbs.tap
tap_n=$(grep -cE '^(not )?ok ' /tmp/verbs.tap)
tap_failed=$(grep -c '^not ok ' /tmp/verbs.tap)
check "verbs_neg.py exited 0 (exit $rc)" [ "$rc" = 0 ]

ip netns add peer
ip link set veth1 netns peer
ip -n peer link set veth1 up
ip -n peer addr add 2001:db8::2/64 dev veth1 nodad
ip addr add 2001:db8::1/64 dev veth0 nodad
python3 "$SROCE_SRC/scripts/tests/ingress.py" sroce0 peer 2001:db8::2 2001:db8::1 \
	>/tmp/ingress.tap 2>&1
rc=$?
# Renumber its lines after ours: one TAP stream.
# (By the shell alone: a sed per line cost the debug kernel seconds.)
grep -E '^(not )?ok ' /tmp/ingress.tap | while IFS= read -r line; do
	tap_n=$((tap_n + 1))
	case $line in
	"not ok "*) rest=${line#not ok } verdict="not ok" ;;
	*) rest=${line#ok } verdict=ok ;;
	esac
	echo "$verdict $tap_n ${rest#* }"
done
grep -vE '^(not )?ok |^1\.\.' /tmp/ingress.tap | sed 's/^/# /'
tap_n=$((tap_n + $(grep -cE '^(not )?ok ' /tmp/ingress.tap)))
tap_failed=$((tap_failed + $(grep -c '^not ok ' /tmp/ingress.tap)))
check "ingress.py exited 0 (exit $rc)" [ "$rc" = 0 ]
# A hostile peer and an off-path sender (a second address of the peer
# namespace) against fresh RC QPs (hostile.py).
ip -n peer addr add 2001:db8::3/64 dev veth1 nodad
python3 "$SROCE_SRC/scripts/tests/hostile.py" sroce0 peer 2001:db8::2 2001:db8::3 \
	2001:db8::1 >/tmp/hostile.tap 2>&1
rc=$?
tap_relay /tmp/hostile.tap
check "hostile.py exited 0 (exit $rc)" [ "$rc" = 0 ]
ip netns del peer
rdma link delete sroce0
check "no sroce device left" sh -c '! ls /sys/class/infiniband | grep -q sroce'
tap_done
