#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): congestion control between two sroce
# guests (Documentation/congestion.rst). Both enable it; guest a's egress
# qdisc (fq_codel with a 1 us CE threshold) marks CE on a's ECN-capable
# packets, so b is the notification point for a's data and a the
# reaction point. ibv_rc_pingpong moves validated buffers both ways;
# then b must have counted CE-marked packets and sent CNPs, a must have
# handled them and cut its rate (tracepoint and resource dump), every
# CNP a received must be well formed (cnp_capture.py), and nothing may
# have gone unhandled. Knob writes out of range fail.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/pair_traffic.sh"

case $SROCE_ROLE in
a) me=1 peer=2 ;;
*) me=2 peer=1 ;;
esac
dev=dev0
cc=/sys/class/infiniband/$dev/cc
work=/tmp/cc
mkdir -p $work
ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
check "rdma link add $dev type sroce" rdma link add $dev type sroce netdev eth0
check "the cc/ knobs are there, off by default" \
	sh -c "[ \$(cat $cc/rp_enable) = 0 ] && [ \$(cat $cc/np_enable) = 0 ]"
check_fails "np_cnp_dscp refuses 64" sh -c "echo 64 >$cc/np_cnp_dscp"
check_fails "rp_dce_tcp_g refuses 0" sh -c "echo 0 >$cc/rp_dce_tcp_g"
echo 255 >$cc/np_enable
echo 255 >$cc/rp_enable
# A line rate near what TCG carries, so that cuts are felt at once.
echo 1000 >$cc/rp_max_rate
echo 20 >$cc/rp_min_rate
if [ "$SROCE_ROLE" = a ]; then
	check "fq_codel marks CE past 1 us on a's egress" \
		tc qdisc replace dev eth0 root fq_codel ce_threshold 1us ecn
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	echo 1 >/sys/kernel/tracing/events/sroce/sroce_cc_rate/enable
fi
check "IPv4 GID" wait_for 10 pair_gid $dev
g=$(pair_gid $dev)
barrier up
check "the link carries IP" wait_for 20 busybox ping -c 1 -W 2 "192.0.2.$peer"

# The rate in every resource dump while traffic runs (it recovers after).
sample_rates() {
	while [ ! -e $work/stop ]; do
		rdma resource show qp link $dev/1 -dd 2>/dev/null |
			grep -o 'cc_rate_kbps [0-9]*' >>$work/rates
		sleep 0.2
	done
}

barrier traffic
if [ "$SROCE_ROLE" = a ]; then
	python3 "$SROCE_SRC/scripts/tests/cnp_capture.py" eth0 150 48 $work/stop \
		$work/qpn >$work/capture 2>&1 &
	capture=$!
	sample_rates &
	check "a connects: rc_pingpong 64 KiB x 300, validated" connect_when_told 18600 \
		timeout 150 ibv_rc_pingpong -d $dev -g "$g" -p 18600 -c -s 65536 -n 300 \
		"192.0.2.$peer" >$work/pp 2>&1
	sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\).*/\1/p' $work/pp >$work/qpn
	touch $work/stop
	wait $capture
	echo $? >$work/capture_rc
	wait
else
	check "b serves: rc_pingpong 64 KiB x 300, validated" serve_and_tell 18600 \
		timeout 150 ibv_rc_pingpong -d $dev -g "$g" -p 18600 -c -s 65536 -n 300
fi
barrier done 200

counter() { link_counter $dev "$1"; }
positive() { [ "$(counter "$1")" -gt 0 ]; }
if [ "$SROCE_ROLE" = b ]; then
	check "b: np_ecn_marked_roce_packets > 0 ($(counter np_ecn_marked_roce_packets))" \
		positive np_ecn_marked_roce_packets
	check "b: np_cnp_sent > 0 ($(counter np_cnp_sent))" positive np_cnp_sent
else
	check "a: rp_cnp_handled > 0 ($(counter rp_cnp_handled))" positive rp_cnp_handled
	check "a: rp_cnp_ignored = 0" [ "$(counter rp_cnp_ignored)" = 0 ]
	check "a: rx_unhandled = 0" [ "$(counter rx_unhandled)" = 0 ]
	grep sroce_cc_rate /sys/kernel/tracing/trace | head -n 3 | diag
	check "a: the tracepoint saw the rate fall below 1 Gbit/s" \
		sh -c "grep -q 'rate=[0-9]\{1,6\}kbps' /sys/kernel/tracing/trace"
	sort -k2 -n $work/rates 2>/dev/null | head -n 1 | diag
	check "a: a resource dump showed the rate below 1 Gbit/s" \
		sh -c "awk '\$2 < 1000000 { f = 1 } END { exit !f }' $work/rates"
	diag <$work/capture
	check "a: the CNPs received are well formed, for a's QP" \
		[ "$(cat $work/capture_rc)" = 0 ]
	check "a: tx_wait_rate > 0 ($(counter tx_wait_rate)): the pacer held a back" \
		positive tx_wait_rate
fi
tap_done
