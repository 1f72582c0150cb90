# SPDX-License-Identifier: GPL-2.0
# Traffic between the two guests of topology "pair". Source it after
# tap.sh and rendezvous.sh; before calling, set $me and $peer (this and
# the other guest's address, 192.0.2.N), $dev (the RDMA device) and $todo:
# when $todo is not empty a failure is reported as TODO with that reason
# (a pass is a pass).

# pair_gid DEV [PATTERN]: the index of DEV's GID matching PATTERN, by
# default the one for 192.0.2.$me (IPv4-mapped).
pair_gid() { gid_match "$1" "${2:-ffff:c000:020$me}"; }

# pair_log LOG: the end of a failed run's log, after the error lines
# above it (perftest's stderr lands before its buffered banner).
pair_log() {
	[ "$(wc -l <"$1")" -le 20 ] ||
		head -n -20 "$1" | grep -iE 'error|fail|unable|couldn|scnt=' | diag
	tail -n 20 "$1" | diag
}

# pair_link_diag: after a failed run, whether the virtual link still
# carries IP to the peer, and this side's NIC and RDMA counters. A link
# that stopped (b's virtio-net transmit queue once did on deb12, for
# good) and a QP that stopped look alike from perftest's side.
pair_link_diag() {
	if busybox ping -c 2 -W 2 "192.0.2.$peer" >/dev/null 2>&1; then
		echo "# the link still carries IP to 192.0.2.$peer"
	else
		echo "# the link no longer carries IP to 192.0.2.$peer"
	fi
	ip -s link show eth0 | diag
	{ rdma statistic show link "$dev/1" | tr -s ' \n' ' '; echo; } | diag
}

# pair_result DESCRIPTION RC LOG: one TAP line for a run, its log on failure.
pair_result() {
	if [ "$2" = 0 ]; then
		ok "$1"
		return
	fi
	if [ -n "$todo" ]; then
		tap_n=$((tap_n + 1))
		echo "not ok $tap_n - $1 # TODO $todo"
	else
		not_ok "$1"
	fi
	pair_log "$3"
	pair_link_diag
}

# pair_pingpong DESCRIPTION PORT SERVER ADDRESS PROGRAM ARGS...: an
# rdma-core pingpong (PROGRAM with ARGS, -p PORT added) on both guests,
# SERVER (a or b) serving, the other connecting to ADDRESS once the server
# listens; one TAP line on each side, 120 s at most.
pair_pingpong() {
	local d=$1 port=$2 server=$3 addr=$4
	shift 4
	barrier "pp$port"
	if [ "$SROCE_ROLE" = "$server" ]; then
		check "$d" serve_and_tell "$port" timeout 120 "$@" -p "$port"
	else
		check "$d" connect_when_told "$port" timeout 120 "$@" -p "$port" "$addr"
	fi
}

# pair_verify DESCRIPTION PORT SERVER GID ARGS...: rc_verify.py, SERVER
# (a or b) serving; the client's checks become our TAP lines.
pair_verify() {
	local d=$1 port=$2 server=$3 g=$4 rc=0 line
	shift 4
	barrier "verify$port"
	if [ "$SROCE_ROLE" = "$server" ]; then
		timeout 600 python3 "$SROCE_SRC/scripts/tests/${verify_prog:-rc_verify.py}" server "$dev" "$g" \
			--port "$port" "$@" >/tmp/verify.log 2>&1 || rc=$?
		pair_result "$d: served" $rc /tmp/verify.log
	else
		timeout 600 python3 "$SROCE_SRC/scripts/tests/${verify_prog:-rc_verify.py}" client "$dev" "$g" \
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

# pair_snapshot: the QPs' state (rdma resource -dd) 100 s into a run, into
# /tmp/pt.log, in the background: what a run that hangs was waiting for.
pair_snapshot() {
	(sleep 100; echo "QPs at 100 s:"; rdma resource show qp link "$dev/1" -dd) \
		>/tmp/pt-qp.log 2>&1 &
	snap=$!
}

# pair_perftest DESCRIPTION PORT SERVER TOOL ARGS...: one perftest run,
# SERVER (a or b) serving; the result line goes into the description.
pair_perftest() {
	local d=$1 port=$2 server=$3 tool=$4 rc=0 res snap
	shift 4
	barrier "pt$port"
	: >/tmp/pt-qp.log
	pair_snapshot
	if [ "$SROCE_ROLE" = "$server" ]; then
		serve_and_tell "$port" timeout 120 "$tool" -d "$dev" -p "$port" -F "$@" \
			>/tmp/pt.log 2>&1 || rc=$?
		kill $snap 2>/dev/null
		cat /tmp/pt-qp.log >>/tmp/pt.log
		pair_result "$d: served" $rc /tmp/pt.log
	else
		connect_when_told "$port" timeout 120 "$tool" -d "$dev" -p "$port" -F "$@" \
			"192.0.2.$peer" >/tmp/pt.log 2>&1 || rc=$?
		kill $snap 2>/dev/null
		cat /tmp/pt-qp.log >>/tmp/pt.log
		case $tool in
		*_bw) res=$(awk '/^ *[0-9]+ +[0-9]+ /{print $4 " MB/s"}' /tmp/pt.log | tail -n 1) ;;
		*) res=$(awk '/^ *[0-9]+ +[0-9]+ /{print $5 " usec typical"}' /tmp/pt.log | tail -n 1) ;;
		esac
		pair_result "$d ($res)" $rc /tmp/pt.log
	fi
}

# pair_serve NAME LINE LOG: on the serving side, eval the command line
# LINE in the background, 120 s at most, its output to LOG ($serving is
# its pid), and meet the client at barrier NAME
# once it listens (60 s at most; then the client tries anyway, and a line
# says so). A client that came before the listener would be refused: an
# rdma_cm client then gets REJECTED, or UNREACHABLE from a SIDR reply "no
# such service", and perftest -R -c UD crashed in that error path. A
# fixed head start was once too short under TCG, and so, once, was 20 s.
pair_serve() {
	local port
	(eval "exec timeout 120 $2" >"$3" 2>&1) &
	serving=$!
	# Its port: the line's -p, else udaddy's fixed 7174.
	port=$(echo "$2" | sed -n 's/.* -p \([0-9][0-9]*\).*/\1/p')
	case $2 in udaddy*) port=7174 ;; esac
	wait_for 60 port_listening "$port" ||
		echo "# nothing listens on port $port after 60 s: the client goes anyway"
	barrier "$1" 120
}

# pair_cmd DESCRIPTION SERVER SERVE CONNECT: SERVER (a or b) runs the
# command line SERVE; the other runs CONNECT once the server listens.
# Each side reports its own exit status. The lines are eval'ed: they may
# name $dev, $g and addresses.
#
# When $pair_again is set (an extended regex), a client that fails with
# a log matching it tells the server, and both run again (four runs at
# most, each retry a diagnostic line). It is for perftest over rdma_cm
# (-R) alone: its server opens the listener for the test's QPs only
# after a hand-shake that lets the client go at once, so under TCG the
# client's REQ can come first and be refused (REJ "invalid service ID",
# or for UD a SIDR reply "no such service"), and the client's retry in
# perftest before 26.04 (trixie's 25.01 crashes there; bookworm's 4.5 has
# the same code) is broken. perftest's commit 3d9d8d0
# "Fix crashes and logical flaws in RDMA CM connection retry" fixed the
# retry; the race is still there. $pair_tries tells how many runs it took.
pair_cm_race='RDMA_CM_EVENT_(REJECTED; error: 8|UNREACHABLE; error: 1)'
pair_cmd_n=0
pair_cmd() {
	local d=$1 server=$2 rc try=1 tag client=a verdict
	pair_cmd_n=$((pair_cmd_n + 1))
	[ "$server" = a ] && client=b
	barrier "cmd$pair_cmd_n"
	while :; do
		rc=0
		tag=cmd$pair_cmd_n-$try
		if [ "$SROCE_ROLE" = "$server" ]; then
			pair_serve "$tag-listen" "$3" /tmp/cmd.log
			# Until the server ends or the client says how it went.
			while kill -0 "$serving" 2>/dev/null &&
				[ ! -e "$SROCE_IO/val-$client-$tag" ]; do
				sleep 0.2
			done
			verdict=$(lookup "$client" "$tag" 2>/dev/null)
			[ "$verdict" = again ] && kill "$serving" 2>/dev/null
			wait "$serving" || rc=$?
			# A server that failed first waits for the client's word.
			if [ $rc != 0 ] && [ -z "$verdict" ] && [ -n "$pair_again" ] &&
				wait_for 150 test -e "$SROCE_IO/val-$client-$tag"; then
				verdict=$(lookup "$client" "$tag")
			fi
			[ "$verdict" = again ] || break
			echo "# $d: the client came before the listener; again (try $((try + 1)))"
		else
			barrier "$tag-listen" 120
			eval "timeout 120 $4" >/tmp/cmd.log 2>&1 || rc=$?
			if [ $rc != 0 ] && [ -n "$pair_again" ] && [ $try -lt 4 ] &&
				grep -Eq "$pair_again" /tmp/cmd.log; then
				grep -E "$pair_again" /tmp/cmd.log | head -n 1 | diag
				publish "$tag" again
			else
				publish "$tag" done
				break
			fi
		fi
		try=$((try + 1))
	done
	pair_tries=$try
	if [ "$SROCE_ROLE" = "$server" ]; then
		pair_result "$d: served" $rc /tmp/cmd.log
	else
		pair_result "$d: connected" $rc /tmp/cmd.log
	fi
}

# pair_cm SERVER WHO [brief]: UD and rdma_cm traffic with SERVER (a or
# b, named WHO in the descriptions) serving at its address 192.0.2.N: the
# UD pingpong (GID $g), then rdma_cm's own tools, which connect through
# CM MADs on QP1, and perftest over UD and rdma_cm. "brief" stops after
# rping, ucmatose and udaddy (for time, where the ud suite ran the rest).
pair_cm() {
	local server=$1 who=$2 s
	[ "$server" = a ] && s=192.0.2.1 || s=192.0.2.2
	pair_cmd "ibv_ud_pingpong 1000 B, $who serving" "$server" \
		'ibv_ud_pingpong -d $dev -g $g -s 1000 -n 100 -p 18700' \
		"ibv_ud_pingpong -d \$dev -g \$g -s 1000 -n 100 -p 18700 $s"
	pair_cmd "rping, data validated, $who serving" "$server" \
		"rping -s -a $s -p 18701 -V -C 20 -S 1000" \
		"rping -c -a $s -p 18701 -V -C 20 -S 1000"
	pair_cmd "ucmatose, 4 connections, $who serving" "$server" \
		"ucmatose -b $s -p 18702 -c 4 -C 20" \
		"ucmatose -s $s -p 18702 -c 4 -C 20"
	# udaddy's -p is the port space; it always uses port 7174.
	pair_cmd "udaddy, $who serving" "$server" \
		"udaddy -b $s -C 20" \
		"udaddy -s $s -C 20"
	[ "$3" = brief ] && return 0
	pair_cmd "rdma_server / rdma_client, $who serving" "$server" \
		"rdma_server -s $s -p 18704" \
		"rdma_client -s $s -p 18704"
	pair_cmd "ib_send_bw -c UD 1024 B, $who serving" "$server" \
		'ib_send_bw -d $dev -x $g -c UD -s 1024 -n 200 -F -p 18705' \
		"ib_send_bw -d \$dev -x \$g -c UD -s 1024 -n 200 -F -p 18705 $s"
	pair_again=$pair_cm_race
	pair_cmd "ib_send_bw -R (rdma_cm) 4096 B, $who serving" "$server" \
		'ib_send_bw -d $dev -R -s 4096 -n 200 -F -p 18706' \
		"ib_send_bw -d \$dev -R -s 4096 -n 200 -F -p 18706 $s"
	pair_cmd "ib_write_bw -R (rdma_cm) 65536 B, $who serving" "$server" \
		'ib_write_bw -d $dev -R -s 65536 -n 50 -F -p 18707' \
		"ib_write_bw -d \$dev -R -s 65536 -n 50 -F -p 18707 $s"
	pair_cmd "ib_send_bw -R -c UD (rdma_cm) 1024 B, $who serving" "$server" \
		'ib_send_bw -d $dev -R -c UD -s 1024 -n 200 -F -p 18708' \
		"ib_send_bw -d \$dev -R -c UD -s 1024 -n 200 -F -p 18708 $s"
	pair_again=
}

# pair_mckey GROUP SENDER [SECONDS]: multicast through rdma_cm (mckey), a
# receiver on each guest (192.0.2.$me, giving up after SECONDS, 120 by
# default), SENDER (a or b) sending 10 datagrams; the sender's own
# receiver gets its copy by loopback.
pair_mckey() {
	local group=$1 sender=$2 rc=0 pid
	timeout "${3:-120}" mckey -m "$group" -b "192.0.2.$me" -C 10 >/tmp/mc-recv.log 2>&1 &
	pid=$!
	barrier "mc-$group-$sender"
	sleep 5
	[ "$SROCE_ROLE" = "$sender" ] && check "mckey $group: $dev sends 10" \
		timeout 60 mckey -m "$group" -b "192.0.2.$me" -s -C 10
	wait $pid || rc=$?
	pair_result "mckey $group: the receiver on $dev got 10" $rc /tmp/mc-recv.log
}

# pair_sroce_up: $me and $peer from the role (a is 192.0.2.1, b .2),
# this guest's eth0 at its address, sroce's dev0 on it and its IPv4 GID
# in $g ($dev set to dev0); then both guests up and the link carrying IP.
# One TAP line per step.
pair_sroce_up() {
	case $SROCE_ROLE in
	a) me=1 peer=2 ;;
	*) me=2 peer=1 ;;
	esac
	ip link set eth0 up
	ip addr add "192.0.2.$me/24" dev eth0
	check "rdma link add dev0 type sroce" rdma link add dev0 type sroce netdev eth0
	check "IPv4 GID" wait_for 10 pair_gid dev0
	g=$(pair_gid dev0)
	dev=dev0
	barrier up
	check "the link carries IP" wait_for 20 busybox ping -c 1 -W 2 "192.0.2.$peer"
}
