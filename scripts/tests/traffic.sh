#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): RC traffic through sroce in loopback, both
# ends on one device: ibv_rc_pingpong (SEND/RECV) validating every buffer,
# over the IPv4 and the IPv6 GID, several sizes, polling and events; then
# the verifying program (rc_verify.py: WRITE, READ, SEND, atomics) and the
# requests that must fail (traffic_neg.py), the retry limits
# (traffic_retry.py: RNR, ACK timeouts, timers at destroy), Send Queue
# Drain (sqd.py), ATOMIC WRITE and FLUSH (aw_flush.py), memory windows
# (mw.py), on-demand paging (odp.py), UD datagrams good and bad
# (ud_neg.py), UC: ibv_uc_pingpong, perftest -c UC and uc.py; last the
# counters (counters.py).
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/loopback.sh"

# pingpong DESCRIPTION ARGS...: server and client on sroce0, 30 s at most;
# $pp names the program (ibv_rc_pingpong unless set).
pingpong() {
	local d=$1 port=$((18515 + tap_n)) out prog=${pp:-ibv_rc_pingpong}
	shift
	timeout 120 $prog -d sroce0 -p "$port" -c "$@" >/tmp/pp-server.log 2>&1 &
	wait_for 20 port_listening "$port"
	if out=$(timeout 120 $prog -d sroce0 -p "$port" -c "$@" localhost 2>&1) &&
		wait $!; then
		ok "$d ($(echo "$out" | grep -o '[0-9.]* Mbit/sec' | head -n 1))"
	else
		not_ok "$d"
		printf '%s\n' "$out" | diag
		diag </tmp/pp-server.log
		wait
	fi
}

pingpong "rc_pingpong IPv4, 4 KiB x 100" -g "$g4" -s 4096 -n 100
pingpong "rc_pingpong IPv6, 4 KiB x 100" -g "$g6" -s 4096 -n 100
pingpong "rc_pingpong 1 byte x 200" -g "$g4" -s 1 -n 200
pingpong "rc_pingpong 64 KiB x 20 (multi-packet, MTU 1024)" -g "$g4" -s 65536 -n 20 -m 1024
pingpong "rc_pingpong 1 MiB x 4" -g "$g4" -s 1048576 -n 4
pingpong "rc_pingpong with completion events (-e)" -g "$g4" -s 4096 -n 100 -e
# verify DESCRIPTION GID ARGS...: the verifying program, both ends here.
verify() {
	local d=$1 g=$2 port=$((19875 + tap_n)) rc=0
	shift 2
	timeout 600 python3 "$SROCE_SRC/scripts/tests/rc_verify.py" server sroce0 "$g" \
		--port "$port" "$@" >/tmp/v-server.tap 2>&1 &
	timeout 600 python3 "$SROCE_SRC/scripts/tests/rc_verify.py" client sroce0 "$g" \
		localhost --port "$port" "$@" >/tmp/v-client.tap 2>&1 || rc=1
	wait $! || rc=1
	tap_relay /tmp/v-client.tap
	tap_relay /tmp/v-server.tap
	if [ $rc = 0 ]; then ok "$d: both ends exited 0"; else not_ok "$d: an end failed"; fi
}

verify "rc_verify IPv6, 2 QPs, MTU 1024" "$g6"
# Again with user payloads sent from their pages (off by default).
zc=/sys/module/sroce/parameters/tx_zcopy z0=$(link_counter sroce0 tx_zcopy)
check "tx_zcopy on" sh -c "echo 1 > $zc"
verify "rc_verify IPv6, 2 QPs, MTU 1024, tx_zcopy" "$g6"
check "tx_zcopy off" sh -c "echo 0 > $zc"
z1=$(link_counter sroce0 tx_zcopy)
check "packets sent without a copy (tx_zcopy +$((z1 - z0)))" [ "$((z1 - z0))" -gt 0 ]

# The tracepoints, on for the failing requests, retries and UD drops
# below: each event must come as often as the counter it explains.
tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null
if check "sroce's tracepoints are in tracefs" [ -d $tr/events/sroce ]; then
	: >$tr/trace
	# Room for every event: traffic_retry.py's RNR wait of code 1
	# (10 us) alone draws some 6000 NAKs in its half second.
	echo 16384 >$tr/buffer_size_kb
	echo 1 >$tr/events/sroce/enable
	for c in tx_nak_seq tx_nak_error tx_rnr_nak ack_timeout rx_drop_qkey; do
		eval "t0_$c=\$(counter $c)"
	done
fi
# Requests that must fail: exact statuses on both sides, NAK counters.
tap_program 300 traffic_neg.py sroce0 "$g4"
# Retry limits: RNR waits and exhaustion, ACK timeouts and their bound.
tap_program 300 traffic_retry.py sroce0 "$g4"
# Send Queue Drain: SQD stops at a message boundary, drains, resumes.
tap_program 300 sqd.py sroce0 "$g4"
# IBTA 1.5 ATOMIC WRITE and FLUSH, where pyverbs has them (rdma-core 44
# and the 6.1 kernel of deb12 have neither).
if python3 -c 'import pyverbs.enums as e; e.IBV_WR_ATOMIC_WRITE; e.IBV_ACCESS_FLUSH_GLOBAL' 2>/dev/null; then
	tap_program 300 aw_flush.py sroce0 "$g4"
else
	skip "pyverbs without IBV_WR_ATOMIC_WRITE or IBV_ACCESS_FLUSH_GLOBAL" "aw_flush.py"
fi
# Memory windows: binds, rkeys through them, invalidation, refusals.
tap_program 300 mw.py sroce0 "$g4"
# On-demand paging: faults by RNR NAK and by the requester's work item,
# invalidation, prefetch (odp.py).
tap_program 300 odp.py sroce0 "$g4"
check "sroce counted no dropped transmit" test "$(counter tx_drop)" = 0
# UD datagrams: the good one and those dropped (ud_neg.py). Last: its
# larger-than-MTU send is counted as tx_drop.
tap_program 300 ud_neg.py sroce0 "$g4"
if [ -d $tr/events/sroce ]; then
	echo 0 >$tr/events/sroce/enable
	# events PATTERN: how many traced events match.
	events() { grep -c "$1" $tr/trace; }
	moved() { echo $(($(counter "$1") - $(eval "echo \$t0_$1"))); }
	naks=$(($(moved tx_nak_seq) + $(moved tx_nak_error) + $(moved tx_rnr_nak)))
	check "trace: no event lost (overrun 0 on every CPU)" \
		sh -c "! grep -h '^overrun: [1-9]' $tr/per_cpu/cpu*/stats"
	check "trace: a sroce_nak sent for each NAK counted ($naks)" \
		[ "$(events 'sroce_nak: sroce0 qpn=[0-9]* sent')" = "$naks" ]
	check "trace: sroce_nak received (RNR and error NAKs came back)" \
		[ "$(events 'sroce_nak: sroce0 qpn=[0-9]* received')" -ge "$naks" ]
	check "trace: a sroce_ack_timeout for each ack_timeout ($(moved ack_timeout))" \
		[ "$(events 'sroce_ack_timeout: sroce0 ')" = "$(moved ack_timeout)" ]
	check "trace: a sroce_drop rx_drop_qkey for each counted ($(moved rx_drop_qkey))" \
		[ "$(events 'sroce_drop: sroce0 rx_drop_qkey ')" = "$(moved rx_drop_qkey)" ]
	check "trace: sroce_rnr_wait, sroce_rewind, sroce_qp_state to ERR" \
		sh -c "grep -q 'sroce_rnr_wait: sroce0 ' $tr/trace &&
			grep -q 'sroce_rewind: sroce0 ' $tr/trace &&
			grep -q 'sroce_qp_state: sroce0 qpn=[0-9]* RTS -> ERR' $tr/trace"
	grep -m 8 'sroce_' $tr/trace | diag
fi

# UC: pingpong and perftest in loopback, then uc.py (every operation and
# size byte for byte, refusals, drops), its crafted datagrams coming from
# a peer namespace that takes veth1 (the loopback traffic needs it not).
pp=ibv_uc_pingpong
pingpong "uc_pingpong IPv4, 4 KiB x 100" -g "$g4" -s 4096 -n 100
pingpong "uc_pingpong IPv6, 64 KiB x 20 (MTU 1024)" -g "$g6" -s 65536 -n 20 -m 1024
pp=
# perftest_uc DESCRIPTION TOOL ARGS...: a perftest UC run on sroce0.
perftest_uc() {
	local d=$1 tool=$2 port=$((18515 + tap_n)) out
	shift 2
	timeout 120 "$tool" -d sroce0 -p "$port" -F -c UC "$@" >/tmp/pt-server.log 2>&1 &
	wait_for 20 port_listening "$port"
	if out=$(timeout 120 "$tool" -d sroce0 -p "$port" -F -c UC "$@" localhost 2>&1) &&
		wait $!; then
		ok "$d ($(echo "$out" | awk '/^ *[0-9]+ +[0-9]+ /{print $4 " MB/s"}' | tail -n 1))"
	else
		not_ok "$d"
		printf '%s\n' "$out" | tail -n 20 | diag
		tail -n 20 /tmp/pt-server.log | diag
		wait
	fi
}
perftest_uc "ib_send_bw -c UC 64 KiB, IPv4" ib_send_bw -x "$g4" -s 65536 -n 100
perftest_uc "ib_write_bw -c UC 64 KiB, IPv6" ib_write_bw -x "$g6" -s 65536 -n 100
ip netns add ucpeer
ip link set veth1 netns ucpeer
ip -n ucpeer link set veth1 up
ip -n ucpeer addr add 2001:db8::2/64 dev veth1 nodad
tap_program 300 uc.py sroce0 "$g4" ucpeer 2001:db8::2 2001:db8::1
check "no UC packet left to no engine" [ "$(counter rx_unhandled)" = 0 ]
# veth1 home first: deleting the namespace would delete it, and veth0 and
# sroce0 with it.
ip -n ucpeer link set veth1 netns 1
ip netns del ucpeer
# The counters as users read them (rdma statistic, sysfs counters/,
# query_port) with exact figures, and a carrier loss; veth1 up again
# first (moving it took it down).
ip link set veth1 up
tap_program 300 counters.py sroce0 "$g4" veth1
rdma statistic show link sroce0/1 | diag
rdma link delete sroce0
tap_done
