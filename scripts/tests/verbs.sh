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
python3 "$SROCE_SRC/scripts/tests/verbs_neg.py" sroce0
rc=$?
rdma link delete sroce0
check "no sroce device left" sh -c '! ls /sys/class/infiniband | grep -q sroce'
exit $rc
