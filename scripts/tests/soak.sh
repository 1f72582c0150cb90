#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): mixed load, sroce against sroce
# (soak.py: rounds of RC, RC on an SRQ, UC and UD QPs made, loaded with
# random operations and sizes checked byte for byte, resized and
# destroyed; netem loss every other round; the counters' story, device
# objects and kernel memory at the end). Guest b serves, a drives.
# SOAK_SECONDS: how long the rounds go on (make check: 60; FULL=1:
# 3600). The kernel log is checked after it by vm.sh (KASAN, lockdep,
# kmemleak on the debug kernel).
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/pair_traffic.sh"

secs=${SOAK_SECONDS:-60} todo=
[ "${SROCE_FULL:-0}" = 1 ] && secs=${SOAK_SECONDS:-3600}
pair_sroce_up
# b serves, a drives for $secs seconds (and the last round's end).
barrier soak
prog="$SROCE_SRC/scripts/tests/soak.py" rc=0
if [ "$SROCE_ROLE" = b ]; then
	timeout $((secs + 600)) python3 "$prog" server dev0 "$g" >/tmp/soak.log 2>&1 || rc=$?
	pair_result "soak, $secs s: served" $rc /tmp/soak.log
else
	timeout $((secs + 600)) python3 "$prog" client dev0 "$g" "192.0.2.$peer" \
		--seconds "$secs" >/tmp/soak.log 2>&1 || rc=$?
	tap_relay /tmp/soak.log
	pair_result "soak, $secs s: every check passed" $rc /tmp/soak.log
	{ rdma statistic show link dev0/1 | tr -s ' \n' ' '; echo; } | diag
fi
barrier soaked
tap_done
