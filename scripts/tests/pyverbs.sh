#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): rdma-core's pyverbs suite against sroce,
# every vendor-neutral module, one module per process (run_tests.py --dev
# sroce0 -v MODULE), each unittest verdict a TAP line. Tests that need
# what sroce does not do yet are listed below with the reason; they run,
# and a failure of theirs is reported as TODO (not counted), a pass as a
# pass.
. "$SROCE_SRC/scripts/guest/tap.sh"

tests=/usr/share/doc/rdma-core/tests
[ -d "$tests" ] || { skip "rdma-core tests not installed" "pyverbs"; tap_done; exit; }
# Every vendor-neutral module this rdma-core ships: all but mlx5's,
# efa's and CUDA's. rdma_cm in loopback too, except on the debug kernel,
# for time: the ud and interop suites run rdma_cm there between two
# guests.
all=$(cd "$tests" && ls test_*.py* | sed 's/\.py\(\.gz\)\?$//' |
	grep -v -e '^test_mlx5' -e '^test_efa' -e '^test_cuda' | sort -u)
[ "$SROCE_TARGET" = debug ] && all=$(printf '%s\n' "$all" | grep -vx test_rdmacm)
modules=${SROCE_PYVERBS_MODULES:-$(echo $all)}
cp -r "$tests" /tmp/pyverbs
gunzip -f /tmp/pyverbs/*.gz 2>/dev/null

# Waiting for: "name|reason" lines (reasons name the issue that brings it).
pending='
'

ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
ip addr add 192.0.2.1/24 dev veth0
rdma link add sroce0 type sroce netdev veth0
sleep 1

for m in $modules; do
	# Older rdma-core (44 on Debian 12) ships fewer modules.
	if [ ! -f "/tmp/pyverbs/$m.py" ]; then
		skip "this rdma-core's tests have no $m" "pyverbs $m"
		continue
	fi
	: >/tmp/py-$m.results
	timeout 600 python3 "$SROCE_SRC/scripts/guest/pyverbs_run.py" /tmp/pyverbs \
		/tmp/py-$m.results --dev sroce0 -v "$m" >/tmp/py-$m.log 2>&1
	rc=$?
	while IFS='	' read -r name verdict why; do
		case $verdict in
		ok) ok "pyverbs $m: $name" ;;
		skip) skip "$why" "pyverbs $m: $name" ;;
		# (Looked up only here: a fork per verdict cost the debug kernel
		# half a minute.)
		*) pending_why=$(printf '%s\n' "$pending" | sed -n "s/^$name|//p")
		   if [ -n "$pending_why" ]; then
			tap_n=$((tap_n + 1))
			echo "not ok $tap_n - pyverbs $m: $name # TODO $pending_why"
		   else
			not_ok "pyverbs $m: $name ($verdict: $why)"
		   fi ;;
		esac
	done </tmp/py-$m.results
	total=$(wc -l </tmp/py-$m.results)
	check "pyverbs $m ran ($total tests, exit $rc)" [ "$total" -gt 0 ]
done
rdma link delete sroce0
tap_done
