# SPDX-License-Identifier: GPL-2.0
# RC traffic between the two guests of topology "pair". Source it after
# tap.sh and rendezvous.sh, with $dev (the RDMA device), $peer (the other
# guest's address, 192.0.2.$peer) and $todo set: when $todo is not empty
# a failure is reported as TODO with that reason (a pass is a pass).

# pair_result DESCRIPTION RC LOG: one TAP line for a run, its log on failure.
pair_result() {
	if [ "$2" = 0 ]; then
		ok "$1"
	elif [ -n "$todo" ]; then
		tap_n=$((tap_n + 1))
		echo "not ok $tap_n - $1 # TODO $todo"
		tail -n 20 "$3" | diag
	else
		not_ok "$1"
		tail -n 20 "$3" | diag
	fi
}

# pair_verify DESCRIPTION PORT SERVER GID ARGS...: rc_verify.py, SERVER
# (a or b) serving; the client's checks become our TAP lines.
pair_verify() {
	local d=$1 port=$2 server=$3 g=$4 rc=0 line
	shift 4
	barrier "verify$port"
	if [ "$SROCE_ROLE" = "$server" ]; then
		timeout 600 python3 "$SROCE_SRC/scripts/tests/rc_verify.py" server "$dev" "$g" \
			--port "$port" "$@" >/tmp/verify.log 2>&1 || rc=$?
		pair_result "$d: served" $rc /tmp/verify.log
	else
		timeout 600 python3 "$SROCE_SRC/scripts/tests/rc_verify.py" client "$dev" "$g" \
			"192.0.2.$peer" --port "$port" "$@" >/tmp/verify.log 2>&1 || rc=$?
		if [ -n "$todo" ] && [ $rc != 0 ]; then
			# A known gap: keep the lines as diagnostics, one TODO verdict.
			diag </tmp/verify.log
		else
			tap_relay /tmp/verify.log
		fi
		pair_result "$d: every check passed" $rc /tmp/verify.log
	fi
}

# pair_perftest DESCRIPTION PORT SERVER TOOL ARGS...: one perftest run,
# SERVER (a or b) serving; the result line goes into the description.
pair_perftest() {
	local d=$1 port=$2 server=$3 tool=$4 rc=0 res
	shift 4
	barrier "pt$port"
	if [ "$SROCE_ROLE" = "$server" ]; then
		timeout 120 "$tool" -d "$dev" -p "$port" -F "$@" >/tmp/pt.log 2>&1 || rc=$?
		pair_result "$d: served" $rc /tmp/pt.log
	else
		sleep 2
		timeout 120 "$tool" -d "$dev" -p "$port" -F "$@" "192.0.2.$peer" \
			>/tmp/pt.log 2>&1 || rc=$?
		case $tool in
		*_bw) res=$(awk '/^ *[0-9]+ +[0-9]+ /{print $4 " MB/s"}' /tmp/pt.log | tail -n 1) ;;
		*) res=$(awk '/^ *[0-9]+ +[0-9]+ /{print $5 " usec typical"}' /tmp/pt.log | tail -n 1) ;;
		esac
		pair_result "$d ($res)" $rc /tmp/pt.log
	fi
}
