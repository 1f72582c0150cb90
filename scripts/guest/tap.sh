# SPDX-License-Identifier: GPL-2.0
# TAP helpers for guest test scripts. Source it; end with tap_done.
tap_n=0
tap_failed=0

# Each result also goes to the kernel log, with the kernel's timestamp:
# the console log then says how long every step of a suite took.
tap_mark() { echo "tap: $1 $tap_n" >/dev/kmsg 2>/dev/null || :; }
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; tap_mark ok; }
not_ok() {
	tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"
	tap_mark "not ok"
}
skip() { # reason description
	tap_n=$((tap_n + 1)); echo "ok $tap_n - $2 # SKIP $1"; tap_mark skip
}
diag() { sed 's/^/# /'; }
# link_counter DEV NAME: the value of the sroce counter NAME of DEV's port 1.
link_counter() { rdma statistic show link "$1/1" | tr ' ' '\n' | grep -A1 -x "$2" | tail -n 1; }

# check DESCRIPTION COMMAND...: ok when the command exits 0. Returns 0
# when ok, 1 when not, so that a caller can chain on it. (No suite runs
# under set -e: a check that fails never ends one.)
check() {
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$d"
		return 0
	fi
	not_ok "$d"
	printf '%s\n' "$out" | diag
	return 1
}

# check_fails DESCRIPTION COMMAND...: ok when the command exits non-zero.
# Returns 0 when ok, 1 when not.
check_fails() {
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then
		not_ok "$d (succeeded)"
		printf '%s\n' "$out" | diag
		return 1
	fi
	ok "$d"
	return 0
}

# wait_for SECONDS COMMAND...: poll until the command succeeds.
wait_for() {
	local t=$(($1 * 10))
	shift
	while [ "$t" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		t=$((t - 1))
	done
	"$@"
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# tap_relay FILE: fold the TAP another program wrote into ours (its plan
# line dropped, its results renumbered, everything else kept as diagnostics).
tap_relay() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*" # SKIP "*) tap_n=$((tap_n + 1)); echo "ok $tap_n -${line#*-}" ;;
		"ok "*) ok "${line#*- }" ;;
		# A known gap with its reason: make check counts it as skipped.
		"not ok "*" # TODO "*) tap_n=$((tap_n + 1)); echo "not ok $tap_n -${line#*-}" ;;
		"not ok "*) not_ok "${line#*- }" ;;
		"#"*) echo "$line" ;;
		[0-9]*..[0-9]*) ;;
		*) echo "# $line" ;;
		esac
	done <"$1"
}

# tap_program SECONDS PROGRAM ARGS...: the TAP program scripts/tests/PROGRAM
# (Python) run with ARGS for at most SECONDS (0: no limit), its TAP folded
# into ours, then a line for its exit status. Returns 0 when it exited 0.
tap_program() {
	local secs=$1 prog=$2 rc=0
	shift 2
	timeout "$secs" python3 "$SROCE_SRC/scripts/tests/$prog" "$@" >"/tmp/$prog.tap" 2>&1 || rc=$?
	tap_relay "/tmp/$prog.tap"
	if [ $rc = 0 ]; then ok "$prog exited 0"; else not_ok "$prog exited $rc"; fi
	[ $rc = 0 ]
}

# gid_match DEVICE PATTERN: the index of DEVICE's first GID that matches
# PATTERN, or failure. ib_core fills a RoCE table from the bottom, so the
# first sixteen entries are read first, in index order, and the whole
# table (in the directory's order) only when none of them matches. One
# grep each: a loop of one grep per entry of the 1024 took over a minute
# on the debug kernel (fork and exec under TCG and KASAN), and one grep
# over all of them 2.6 s.
gid_match() {
	local d=/sys/class/infiniband/$1/ports/1/gids low= i=0 m
	while [ $i -lt 16 ]; do
		low="$low $d/$i"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	m=$({ grep -lis -- "$2" $low || grep -lis -- "$2" "$d"/*; } | head -n 1)
	[ -n "$m" ] && echo "${m##*/}"
}

# port_listening [PORT]: something listens for a connection in this
# guest, on PORT when given: an rdma_cm ID in LISTEN (rping, ucmatose,
# udaddy, perftest -R) or a TCP socket (perftest's and the pingpongs'
# exchange). The port matters: a listener left from an earlier command
# made a client start before its own server listened (deb12, perftest
# -R -c UD: a SIDR reply "no such service", then perftest crashed).
port_listening() {
	rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -qE ":${1:-[0-9]+}( |\$)" ||
		ss -Hltn 2>/dev/null | grep -qE ":${1:-[0-9]+}( |\$)"
}
