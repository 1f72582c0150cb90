# SPDX-License-Identifier: GPL-2.0
# Section qps of scripts/guest/bench.sh (sourced there, after its
# helpers): many RC QPs.
# - bandwidth and message rate: ib_write_bw of 4 KiB on 1, 16, 256 and
#   1024 QPs (BENCH_QPS_COUNTS), some 4096 messages in all (5 a QP at
#   least), kind=qps lines of bench.raw;
# - loopback only (BENCH_TOPO=one): kernel memory per connected QP and
#   the idle cost of 1024 of them (scripts/tests/bench_qpmem.py, a
#   kind=qpmem line; BENCH_IDLE_S seconds of idle each way, default 20),
#   and rdma_cm's connection setup for 1000 connections (cmtime -c 1000:
#   a kind=cm line of each step's microseconds a connection, and
#   conn_per_s, the connections a second of its whole setup: address and
#   route resolution, QP creation, connect).

qps_counts=${BENCH_QPS_COUNTS:-1 16 256 1024}
cm_conns=${BENCH_CM_CONNS:-1000}

# cm_line FILE: cmtime's table ("step: total_ms max_ms min_us us_per_conn")
# as step=us_per_conn words, and conn_per_s from the setup steps' totals.
cm_line() {
	awk -v c="$cm_conns" -F: '
		NF == 2 && split($2, v, " ") == 4 {
			k = $1; gsub(/^ +| +$/, "", k); gsub(/ /, "_", k)
			printf "%s=%s ", k, v[4]
			if (k != "disconnect" && k != "destroy") setup += v[1]
		}
		END { if (setup > 0) printf "conn_per_s=%.1f", c * 1000 / setup }' "$1"
}

# record KIND DRIVER MTU PLACE REP RC LINE LOG [WORDS]: LINE, a tool's
# figures, as a KIND line of bench.raw (with WORDS), or its failure.
record() {
	if [ "$6" = 0 ] && [ -n "$7" ]; then
		echo "kind=$1 drv=$2 topo=$topo mtu=$3 place=$4 rep=$5 ${9:+$9 }point=$n $7" >>"$raw"
		echo "# [$1] $2: $7"
	else
		echo "# [$1] $2: FAILED (exit $6)"
		tail -n 5 "$8" | diag
	fi
}

qps_pass() {
	local q iters rc line spid
	for q in $qps_counts; do
		iters=$((4096 / q))
		[ $iters -lt 5 ] && iters=5
		point_iters=$iters
		point "$1" "$2" "$3" "$4" qps ib_write_bw 4096 "$q"
	done
	point_iters=''
	[ "$topo" = one ] || return 0
	n=$((n + 1))
	rc=0
	line=$(timeout 900 python3 "$SROCE_SRC/scripts/tests/bench_qpmem.py" dev0 "$g" 1024 \
		--seconds "${BENCH_IDLE_S:-20}" 2>/tmp/qpmem.err) || rc=$?
	record qpmem "$@" $rc "$line" /tmp/qpmem.err
	n=$((n + 1))
	timeout 600 cmtime -b "$server" -c "$cm_conns" >/tmp/cm-server.log 2>&1 &
	spid=$!
	wait_for 20 port_listening
	rc=0
	timeout 600 cmtime -s "$server" -c "$cm_conns" >/tmp/cm.log 2>&1 || rc=$?
	# Done with the client: the server may wait for more.
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null || :
	record cm "$@" $rc "$(cm_line /tmp/cm.log)" /tmp/cm.log "conns=$cm_conns"
}
bench_passes qps_pass
