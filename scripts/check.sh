#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what is missing, set the targets up, build on each,
# run the guest suites, total the TAP and end with "N passed, N failed,
# N skipped". Exits non-zero on any failure.
#   scripts/check.sh [--targets "deb12 deb13 bpo"] [--full]
# The heavy suites (pyverbs, storage, nvmf, iser, interop, loss) and nfs
# run on bpo, and hostile, endure and soak on debug alone; deb12 and
# deb13 run the smoke subset; each target all of them with --full (make
# check FULL=1), but for nfs on debug, whose kernel has no NFS. jobs()
# below has the list and its reasons.
# Logs of every guest are kept in out/check/TARGET-SUITE/. Suites of all
# targets share the host's cores (a queue, below).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

targets=$SROCE_TARGETS_ALL
full=
while [ $# -gt 0 ]; do
	case $1 in
	--targets) targets=$2; shift 2 ;;
	--full) full=1; shift ;;
	*) die "usage: check.sh [--targets LIST] [--full]" ;;
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
# TCG runs each guest on one host thread; the workers must not put more
# guests than cores on the host, or a guest starved of CPU looks like a
# dead peer to the other's ACK timer. "pair" and "incast" (four guests,
# the most the host can give them) take both locks (in order), "one"
# whichever is free first.
cores() {
	local topo=$1 rc
	shift
	if [ "$topo" != one ]; then
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
# log checks of every guest and its exit code. The script sees SROCE_FULL=1
# under --full, for its long forms.
suite() {
	local t=$1 topo=$2 name=$3 tmo=$4 t0=$(date +%s) t1 rc=0
	echo "# $t: $name ($topo)" | tee -a "$tap"
	# The stamp says when the guests started, after the wait for cores.
	cores "$topo" sh -c 'date +%s >"$0"; exec "$@"' "$outdir/$t-$name.start" \
		"$SROCE_TOP/scripts/vm.sh" --timeout "$tmo" --keep "$outdir/$t-$name" \
		"$t" "$topo" "SROCE_FULL=${full:-0} sh \$SROCE_SRC/scripts/tests/$name.sh" >"$outdir/$t-$name.tap" 2>&1 || rc=$?
	t1=$(cat "$outdir/$t-$name.start" 2>/dev/null || echo "$t0")
	sed "s/^\(\[[a-z]\] \)\?\(not ok\|ok\) [0-9]* *-/\1\2 - $t\/$name:/" \
		"$outdir/$t-$name.tap" | tee -a "$tap"
	if [ $rc = 0 ]; then
		say "ok - $t/$name: guests exited 0 ($(($(date +%s) - t1)) s, after $((t1 - t0)) s waiting for cores)"
	else
		say "not ok - $t/$name: a guest failed (exit $rc)"
	fi
}

step deps "$SROCE_TOP/scripts/deps.sh" || true
# The bench's report maker, on raw lines whose figures are known.
step bench-report python3 "$SROCE_TOP/scripts/tests/bench_report_test.py"
# The structure check, on small trees whose faults are known.
step structure-test python3 "$SROCE_TOP/scripts/tests/structure_test.py"
# shellcheck disable=SC2086
if ! step setup "$SROCE_TOP/scripts/setup-targets.sh" $targets; then
	targets=
fi

# Static gates first: the structure, checkpatch and kernel-doc. The targets' builds
# below are the W=1 gate (and deb12's the sparse one): building each
# target twice, once for lint, once for the guests, cost 3 minutes. With
# deb12 not among the targets, lint builds it for sparse.
if [ -n "$targets" ]; then
	gates="structure checkpatch kernel-doc"
	case " $targets " in *" deb12 "*) ;; *) gates="$gates sparse" ;; esac
	# The upstream series and its in-tree builds (3 minutes cold): with
	# --full, and by `make lint`.
	case "$full: $targets " in 1:*" debug "*) gates="$gates upstream" ;; esac
	# shellcheck disable=SC2086
	SROCE_LINT_TARGETS=$targets "$SROCE_TOP/scripts/lint.sh" $gates >"$outdir/lint.log" 2>&1
	grep -aE '^(not )?ok ' "$outdir/lint.log" | tee -a "$tap"
	grep -avE '^(not )?ok |building against' "$outdir/lint.log" | head -n 40 | sed 's/^/#   /'
fi
# DKMS in a throw-away overlay of the trixie root (4 minutes cold): --full.
case "$full: $targets " in 1:*" bpo "*) step dkms "$SROCE_TOP/scripts/dkms-test.sh" ;; esac

# jobs T: the suites of target T, one "TARGET TOPOLOGY SUITE TIMEOUT" line
# each. The heavy suites run on bpo, everywhere with --full; the smoke
# subset still takes every kernel through the verbs, RC and UD traffic,
# perftest and a two-guest suite. The debug kernel is about three times
# slower than bpo, from the same 7.3 source. So that a cold make check
# stays under an hour, it runs (without --full) the suites whose code its
# checkers watch best and no other of its suites takes: crafted packets,
# ring abuse and receive-path fuzzing (hostile), a kernel consumer across
# the link with its device removed under I/O (nvmf), the timers and
# recovery (loss), every object's life under mixed load (soak) and
# teardown under traffic (endure), beside the verbs, traffic and device
# suites and KUnit. Left to bpo there: pyverbs (the user ABI under the
# checkers is soak's, verbs' and hostile's ring abuse), interop (another
# driver's packets; hostile crafts worse), storage (nvmf's verbs in
# loopback), iser (nvmf's), ud (sroce on both ends), perftest
# (traffic.sh's operations, verified there); and link to deb13.
jobs() {
	local t=$1 s hostile_tmo=1200
	# The fuzz's long form: 10^6 datagrams, 25 minutes on debug.
	[ -n "$full" ] && hostile_tmo=3600
	case "$full:$t" in
	1:* | *:bpo)
		for s in "one pyverbs 1200" "one storage 900" "pair nvmf 1200" \
			"pair iser 900" "pair interop 1200" "pair loss 1200" \
			"pair vlan_interop 900" "pair cc 600" "one cc_vlan 600" \
			"incast incast 900"; do
			echo "$t $s"
		done
		;;
	# On debug without --full: NVMe-oF through endure's cycles (connect,
	# I/O, teardown under KASAN), loss recovery through soak's rounds
	# under netem loss; the whole nvmf and loss suites with --full.
	esac
	# The hostile suite: on debug, whose checkers watch the packets and
	# rings it throws (bpo runs the same 7.3 source without them), or
	# everywhere with --full.
	case "$full:$t" in
	1:* | *:debug) echo "$t one hostile $hostile_tmo" ;;
	esac
	# NFS over RDMA: on bpo (or with --full on the other Debian kernels;
	# the debug kernel is built without NFS).
	case "$full:$t" in
	1:debug) ;;
	1:* | *:bpo) echo "$t pair nfs 900" ;;
	esac
	# Endurance (issue 52): teardown under traffic and allocation
	# failures, on debug alone, whose checkers (KASAN, lockdep, kmemleak)
	# judge what a teardown leaves; the long form's 1,000 cycles take
	# hours there.
	case "$full:$t" in
	1:debug) echo "$t one endure 14400" ;;
	*:debug) echo "$t one endure 900" ;;
	esac
	# KUnit suites exist only where the kernel has KUnit (debug).
	[ -f "$SROCE_TOP/out/$t/sroce_psn_test.ko" ] && echo "$t one kunit 600"
	for s in "one device 900" "one verbs 600" "one traffic 900"; do
		echo "$t $s"
	done
	case "$full:$t" in
	1:* | *:deb12 | *:deb13 | *:bpo) echo "$t one perftest 900" ;;
	esac
	# Mixed load (soak.sh, issue 52): on debug, whose checkers watch it;
	# a minute of rounds, an hour with --full.
	case "$full:$t" in
	1:debug) echo "$t pair soak 4500" ;;
	*:debug) echo "$t pair soak 900" ;;
	esac
	# The two-guest link on deb13, whose only pair suite it is (or
	# everywhere with --full), for time: the other kernels' pair suites
	# (ud on deb12; loss, interop, nvmf... on bpo and debug) take sroce
	# across virtio-net too.
	case "$full:$t" in
	1:* | *:deb13) echo "$t pair link 900" ;;
	esac
	# RoCE v1 (sroce to sroce only: rdma_rxe has none), on deb13 with the
	# link, or everywhere with --full.
	case "$full:$t" in
	1:* | *:deb13) echo "$t pair roce_v1 900" ;;
	esac
	# ud's datagrams and rdma_cm: on the oldest kernel and bpo (or
	# everywhere with --full).
	case "$full:$t" in
	1:* | *:deb12 | *:bpo) echo "$t pair ud 900" ;;
	esac
	# VLANs and network namespaces: on the oldest kernel, which registers
	# a device in the initial namespace, and on bpo, which registers it
	# in its netdev's (or everywhere with --full).
	case "$full:$t" in
	1:* | *:deb12 | *:bpo)
		echo "$t one vlan 900"
		echo "$t one netns 900"
		;;
	esac
}

# Every target is built first, one at a time, before any guest runs: a
# build beside the guests would slow the timers under test, and a build
# waiting for a free core between pair suites once waited 28 minutes.
# (A subshell: $tap stays the total's file out here.)
(for t in $targets; do
	tap=$outdir/build-$t.tap
	gate=--w1
	[ "$t" = deb12 ] && gate=--sparse
	step "build-$t" "$SROCE_TOP/scripts/build.sh" $gate "$t" &&
		touch "$outdir/built-$t"
done)
for t in $targets; do
	cat "$outdir/build-$t.tap" >>"$tap"
done

# The suites form one queue: first every two-guest suite (each takes
# both host cores), then the one-guest suites, the slowest target's
# first (debug is about as slow as the others together) and each
# target's heavy ones first, so the run ends on short jobs. Two workers
# take the next job as they come free; cores() keeps them to a guest
# per host core. Keeping the pair suites apart from the others wastes
# no core: a pair suite waiting for its second core would hold the first
# idle, and a one-guest suite polling for a core could starve behind
# them (both seen when the queue mixed them: 4 minutes of an idle core,
# a 41 s KUnit suite kept waiting for 20). Each job's TAP goes to its
# own file, totalled in queue order.
queue=$outdir/queue
: >"$queue.all"
for t in debug bpo deb13 deb12 $targets; do
	case " $targets " in *" $t "*) ;; *) continue ;; esac
	grep -q "^$t " "$queue.all" && continue
	if [ -f "$outdir/built-$t" ]; then
		jobs "$t" >>"$queue.all"
	else
		echo "$t - - -" >>"$queue.all"
	fi
done
{ grep -v ' one ' "$queue.all"; grep ' one ' "$queue.all"; } >"$queue"
echo 0 >"$outdir/queue.next"

# next_job: the number of the next job in the queue, or nothing when the
# queue is empty.
next_job() {
	flock "$outdir/queue.lock" sh -c '
		n=$(cat "$1"); [ "$n" -lt "$(wc -l <"$2")" ] || exit 0
		echo $((n + 1)) >"$1"; echo $((n + 1))' - "$outdir/queue.next" "$queue"
}

worker() {
	local n t topo name tmo
	while n=$(next_job) && [ -n "$n" ]; do
		# shellcheck disable=SC2046
		set -- $(sed -n "${n}p" "$queue")
		t=$1 topo=$2 name=$3 tmo=$4
		[ "$name" = - ] && continue
		tap=$outdir/job-$n.tap
		suite "$t" "$topo" "$name" "$tmo"
	done
}
worker &
worker &
wait
n=0
while [ $n -lt "$(wc -l <"$queue")" ]; do
	n=$((n + 1))
	[ -f "$outdir/job-$n.tap" ] && cat "$outdir/job-$n.tap" >>"$tap"
done
# What the default run leaves out, one SKIP line per target, from jobs()
# itself so that it cannot drift from the queue.
[ -f "$outdir/built-debug" ] &&
	say "ok - debug: nfs # SKIP the debug kernel is built without NFS, for build time (bpo runs it)"
if [ -z "$full" ]; then
	for t in $targets; do
		[ -f "$outdir/built-$t" ] || continue
		left=$(full=1 jobs "$t" | awk '{ print $3 }' | grep -vxF "$(jobs "$t" | awk '{ print $3 }')" |
			paste -sd, - | sed 's/,/, /g')
		[ -z "$left" ] ||
			say "ok - $t: $left # SKIP left out of the default run, for time (make check FULL=1 runs them)"
	done
fi

# A "# SKIP" (ok) or "# TODO" (not ok: a known gap, with its reason) line
# counts as skipped; every other "not ok" as failed.
pass=$(grep -cE '^(\[[a-z]\] )?ok ' "$tap" | tr -d ' ')
skipped=$(grep -cE '^(\[[a-z]\] )?ok .*# SKIP' "$tap" | tr -d ' ')
todo=$(grep -cE '^(\[[a-z]\] )?not ok .*# TODO' "$tap" | tr -d ' ')
failed=$(grep -cE '^(\[[a-z]\] )?not ok ' "$tap" | tr -d ' ')
pass=$((pass - skipped))
failed=$((failed - todo))
skipped=$((skipped + todo))
# The failures again at the end, where a truncated CI log still shows them.
if [ "$failed" -gt 0 ]; then
	echo "# the $failed failures:"
	grep -E '^(\[[a-z]\] )?not ok ' "$tap" | grep -v '# TODO' | head -n 40 | sed 's/^/#   /'
fi
echo "# targets: ${targets:-none}; $(($(date +%s) - start)) s; logs in out/check/"
if [ -z "$targets" ] && [ "$failed" = 0 ]; then
	failed=1
	echo "not ok - no target was set up"
fi
echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
