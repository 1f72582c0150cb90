#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): verbs objects and their refusals
# (verbs_neg.py), with rdma-core's pyverbs.
. "$SROCE_SRC/scripts/guest/tap.sh"

ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
rdma link add sroce0 type sroce netdev veth0
# One TAP stream: the Python part's lines, then ours numbered after them.
python3 "$SROCE_SRC/scripts/tests/verbs_neg.py" sroce0 >/tmp/verbs.tap 2>&1
rc=$?
grep -v '^1\.\.' /tmp/verbs.tap
tap_n=$(grep -cE '^(not )?ok ' /tmp/verbs.tap)
tap_failed=$(grep -c '^not ok ' /tmp/verbs.tap)
check "verbs_neg.py exited 0 (exit $rc)" [ "$rc" = 0 ]
rdma link delete sroce0
check "no sroce device left" sh -c '! ls /sys/class/infiniband | grep -q sroce'
tap_done
