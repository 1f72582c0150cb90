#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what is missing, set the targets up, build on each,
# run the guest suites, total the TAP and end with "N passed, N failed,
# N skipped". Exits non-zero on any failure.
#   scripts/check.sh [--targets "deb12 deb13 bpo"]
# Logs of every guest are kept in out/check/TARGET-SUITE/. The debug target
# runs beside the others (two lanes).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

targets=$SROCE_TARGETS_ALL
while [ $# -gt 0 ]; do
	case $1 in
	--targets) targets=$2; shift 2 ;;
	*) die "usage: check.sh [--targets LIST]" ;;
	esac
done

outdir=$SROCE_TOP/out/check
rm -rf "$outdir"
mkdir -p "$outdir"
tap=$outdir/all.tap
: >"$tap"
start=$(date +%s)

# Print and record one TAP line.
say() { echo "$*" | tee -a "$tap"; }

# step NAME COMMAND...: a host-side step is one test.
step() {
	local name=$1 t0=$(date +%s)
	shift
	if "$@" >"$outdir/$name.log" 2>&1; then
		say "ok - $name ($(($(date +%s) - t0)) s)"
		return 0
	fi
	say "not ok - $name"
	tail -n 30 "$outdir/$name.log" | sed 's/^/#   /' | tee -a "$tap"
	return 1
}

# cores TOPOLOGY COMMAND...: run COMMAND holding a host core per guest.
# TCG runs each guest on one host thread; the lanes must not put more
# guests than cores on the host, or a guest starved of CPU looks like a
# dead peer to the other's ACK timer. "pair" takes both locks (in order),
# "one" whichever is free first.
cores() {
	local topo=$1 rc
	shift
	if [ "$topo" = pair ]; then
		flock "$outdir/core0.lock" flock "$outdir/core1.lock" "$@"
		return
	fi
	while :; do
		for c in 0 1; do
			rc=0
			flock -n -E 75 "$outdir/core$c.lock" "$@" || rc=$?
			[ $rc = 75 ] || return $rc
		done
		sleep 1
	done
}

# suite TARGET TOPOLOGY NAME TIMEOUT: a guest script's TAP, plus the kernel
# log checks of every guest and its exit code.
suite() {
	local t=$1 topo=$2 name=$3 tmo=$4 t0=$(date +%s) rc=0
	echo "# $t: $name ($topo)" | tee -a "$tap"
	cores "$topo" "$SROCE_TOP/scripts/vm.sh" --timeout "$tmo" --keep "$outdir/$t-$name" \
		"$t" "$topo" "sh \$SROCE_SRC/scripts/tests/$name.sh" >"$outdir/$t-$name.tap" 2>&1 || rc=$?
	sed "s/^\(\[[a-z]\] \)\?\(not ok\|ok\) [0-9]* *-/\1\2 - $t\/$name:/" \
		"$outdir/$t-$name.tap" | tee -a "$tap"
	if [ $rc = 0 ]; then
		say "ok - $t/$name: guests exited 0 ($(($(date +%s) - t0)) s)"
	else
		say "not ok - $t/$name: a guest failed (exit $rc)"
	fi
}

step deps "$SROCE_TOP/scripts/deps.sh" || true
# shellcheck disable=SC2086
if ! step setup "$SROCE_TOP/scripts/setup-targets.sh" $targets; then
	targets=
fi

# Static gates first: checkpatch, kernel-doc, sparse and W=1 builds.
if [ -n "$targets" ]; then
	SROCE_LINT_TARGETS=$targets "$SROCE_TOP/scripts/lint.sh" >"$outdir/lint.log" 2>&1
	grep -aE '^(not )?ok ' "$outdir/lint.log" | tee -a "$tap"
	grep -avE '^(not )?ok |building against' "$outdir/lint.log" | head -n 40 | sed 's/^/#   /'
fi

# run_target T: run the suites of a target built below; its TAP goes to
# $outdir/T.tap, added to the total at the end.
run_target() {
	local t=$1
	tap=$outdir/$t.tap
	[ -f "$outdir/built-$t" ] || return 0
	# KUnit suites exist only where the kernel has KUnit (debug).
	[ -f "$SROCE_TOP/out/$t/sroce_psn_test.ko" ] && suite "$t" one kunit 600
	suite "$t" one device 900
	suite "$t" one verbs 600
	suite "$t" one traffic 900
	suite "$t" one perftest 900
	suite "$t" one pyverbs 1200
	suite "$t" one storage 900
	suite "$t" pair link 900
	suite "$t" pair ud 900
	suite "$t" pair interop 1200
	suite "$t" pair loss 1200
}

# Lanes: the debug kernel (about as long as the other targets together),
# bpo, and the rest, each in its own lane. Each guest is one host thread
# (TCG), so a suite of one guest leaves a core idle; the lanes fill it,
# and cores() keeps them to a guest per core. With three lanes the last
# stretch of the run is rarely a single lane's one-guest suites. Guests
# share nothing but the read-only trees.
# Every target is built first, one at a time, before any guest runs: a
# build beside the lanes' guests would slow the timers under test, and a
# build waiting for a free core between pair suites once waited 28
# minutes.
# (A subshell: $tap stays the total's file out here.)
(for t in $targets; do
	tap=$outdir/$t.tap
	: >"$tap"
	step "build-$t" "$SROCE_TOP/scripts/build.sh" "$t" && touch "$outdir/built-$t"
done)

lane1= lane2= lane3=
for t in $targets; do
	case $t in
	debug) lane2="$lane2 $t" ;;
	bpo) lane3="$lane3 $t" ;;
	*) lane1="$lane1 $t" ;;
	esac
done
(for t in $lane1; do run_target "$t"; done) &
(for t in $lane2; do run_target "$t"; done) &
(for t in $lane3; do run_target "$t"; done) &
wait
for t in $targets; do
	cat "$outdir/$t.tap" >>"$tap"
done

# A "# SKIP" (ok) or "# TODO" (not ok: a known gap, with its reason) line
# counts as skipped; every other "not ok" as failed.
pass=$(grep -cE '^(\[[a-z]\] )?ok ' "$tap" | tr -d ' ')
skipped=$(grep -cE '^(\[[a-z]\] )?ok .*# SKIP' "$tap" | tr -d ' ')
todo=$(grep -cE '^(\[[a-z]\] )?not ok .*# TODO' "$tap" | tr -d ' ')
failed=$(grep -cE '^(\[[a-z]\] )?not ok ' "$tap" | tr -d ' ')
pass=$((pass - skipped))
failed=$((failed - todo))
skipped=$((skipped + todo))
echo "# targets: ${targets:-none}; $(($(date +%s) - start)) s; logs in out/check/"
if [ -z "$targets" ] && [ "$failed" = 0 ]; then
	failed=1
	echo "not ok - no target was set up"
fi
echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
