#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (topology "one"): every vendor-neutral pyverbs module (as
# scripts/tests/pyverbs.sh picks them) against DRIVER, sroce or rxe, on a
# veth, one "RES MODULE TEST VERDICT" line per test; run it for both
# drivers in the same target to compare them, e.g.
#   scripts/vm.sh bpo one 'sh $SROCE_SRC/scripts/tools/pyverbs-compare.sh rxe'
drv=${1:?usage: pyverbs-compare.sh sroce|rxe}
tests=/usr/share/doc/rdma-core/tests
cp -r "$tests" /tmp/pyverbs; gunzip -f /tmp/pyverbs/*.gz 2>/dev/null
ip link add veth0 type veth peer name veth1
ip link set veth0 up; ip link set veth1 up
ip addr add 192.0.2.1/24 dev veth0
rdma link add ${drv}0 type $drv netdev veth0
sleep 1
for m in $(cd $tests && ls test_*.py* | sed 's/\.py\(\.gz\)\?$//' | grep -v -e '^test_mlx5' -e '^test_efa' -e '^test_cuda' | sort -u); do
	: >/tmp/r
	timeout 600 python3 "$SROCE_SRC/scripts/guest/pyverbs_run.py" /tmp/pyverbs /tmp/r --dev ${drv}0 -v "$m" >/dev/null 2>&1
	while IFS='	' read -r name verdict why; do echo "RES $m $name $verdict"; done </tmp/r
done
rdma link delete ${drv}0
