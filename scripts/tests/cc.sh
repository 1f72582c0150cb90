#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): congestion control between two sroce
# guests (Documentation/congestion.rst). Both enable it; a tc filter on
# guest a's egress marks CE on every ECT(0) packet a sends (as a switch
# past its threshold would), so b is the notification point for a's data
# and a the reaction point. ibv_rc_pingpong moves validated buffers both
# ways; then b must have counted CE-marked packets and sent CNPs; a must
# have handled them, cut its rate (tracepoint, resource dump) and held
# itself back to it (tx_wait_rate); every CNP a received must have the
# wire format of annex A17.9.2 (a tc u32 filter on a's ingress matches
# each field: opcode, BECN, the 16 zero bytes, the length, DSCP 48 and
# Not-ECT; the ICRC is what sroce's ingress checks before rp_cnp_handled
# counts); nothing may have gone unhandled. b sends its ACKs on
# ack_dscp 10 and its CNPs at skb priority 5 (np_cnp_prio): a's ingress
# counts ACKs with that DSCP against all ACKs, b's egress CNPs with that
# priority against all CNPs. Knob writes out of range fail.
# Then b checks IB_QP_RATE_LIMIT in loopback (rate_limit.py).
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/pair_traffic.sh"
. "$SROCE_SRC/scripts/guest/cc_knobs.sh"

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
check "congestion control on, time scaled to TCG" cc_on_tcg $dev
if [ "$SROCE_ROLE" = b ]; then
	echo 10 >$cc/ack_dscp
	echo 5 >$cc/np_cnp_prio
	tc qdisc add dev eth0 clsact
	# CNPs leaving b at skb priority 5 (prio 20), all of them (prio 21).
	check "b's egress counts CNPs at priority 5" \
		tc filter add dev eth0 egress protocol ip prio 20 basic \
		match "meta(priority eq 5) and u32(u8 0x81 0xff at 28)" action gact continue
	check "b's egress counts all CNPs" \
		tc filter add dev eth0 egress protocol ip prio 21 u32 \
		match ip protocol 17 0xff match u16 4791 0xffff at 22 \
		match u8 0x81 0xff at 28 action gact continue
fi
if [ "$SROCE_ROLE" = a ]; then
	# One skb per CNP at tc ingress: GRO would gather them in lists.
	ethtool -K eth0 gro off
	tc qdisc add dev eth0 clsact
	check "a's egress marks CE on ECT(0)" \
		tc filter add dev eth0 egress protocol ip prio 1 u32 \
		match ip tos 0x02 0x03 \
		action pedit ex munge ip tos set 0x03 retain 0x03 pipe action csum iph
	# CNPs (BTH opcode 0x81 after IP and UDP headers of 20 and 8 bytes):
	# those right in every field (prio 10), and all of them (prio 11).
	# (u32 on clsact lists a's egress filter with the ingress ones too.)
	check "a's ingress counts well-formed CNPs" \
		tc filter add dev eth0 ingress protocol ip prio 10 u32 \
		match ip tos 0xc0 0xff match u16 60 0xffff at 2 \
		match ip protocol 17 0xff match u16 4791 0xffff at 22 \
		match u8 0x81 0xff at 28 match u8 0x40 0xc0 at 32 \
		match u32 0 0xffffffff at 40 match u32 0 0xffffffff at 44 \
		match u32 0 0xffffffff at 48 match u32 0 0xffffffff at 52 \
		action gact continue
	check "a's ingress counts all CNPs" \
		tc filter add dev eth0 ingress protocol ip prio 11 u32 \
		match ip protocol 17 0xff match u16 4791 0xffff at 22 \
		match u8 0x81 0xff at 28 action gact continue
	# ACKs (BTH opcode 0x11) with DSCP 10 and Not-ECT (prio 12), all
	# ACKs (prio 13).
	check "a's ingress counts ACKs on DSCP 10" \
		tc filter add dev eth0 ingress protocol ip prio 12 u32 \
		match ip tos 0x28 0xff match ip protocol 17 0xff \
		match u16 4791 0xffff at 22 match u8 0x11 0xff at 28 action gact continue
	check "a's ingress counts all ACKs" \
		tc filter add dev eth0 ingress protocol ip prio 13 u32 \
		match ip protocol 17 0xff match u16 4791 0xffff at 22 \
		match u8 0x11 0xff at 28 action gact continue
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
	sample_rates &
	check "a connects: rc_pingpong 64 KiB x 100, validated" connect_when_told 18600 \
		timeout 150 ibv_rc_pingpong -d $dev -g "$g" -p 18600 -c -s 65536 -n 100 \
		"192.0.2.$peer"
	touch $work/stop
	wait
else
	check "b serves: rc_pingpong 64 KiB x 100, validated" serve_and_tell 18600 \
		timeout 150 ibv_rc_pingpong -d $dev -g "$g" -p 18600 -c -s 65536 -n 100
fi
barrier done 200

counter() { link_counter $dev "$1"; }
# filter_hits DIRECTION PREF1 PREF2: the packets the actions of eth0's
# filters PREF1 and PREF2 took in that direction. (From tc's text: its
# JSON of a basic filter's ematch is not JSON.)
filter_hits() {
	tc -s filter show dev eth0 "$1" | awk -v p="$2" -v q="$3" '
		/ pref [0-9]+ / { for (i = 1; i < NF; i++) if ($i == "pref") cur = $(i + 1) }
		/Sent [0-9]+ bytes [0-9]+ pkt/ { for (i = 1; i < NF; i++) if ($i == "bytes") n[cur] = $(i + 1) }
		END { print n[p] + 0, n[q] + 0 }'
}
# some_all FILE: FILE holds "SOME ALL", both the same and above 0.
# shellcheck disable=SC2046
some_all() { set -- $(cat "$1"); [ "$1" -gt 0 ] && [ "$1" = "$2" ]; }
positive() { [ "$(counter "$1")" -gt 0 ]; }
if [ "$SROCE_ROLE" = b ]; then
	check "b: np_ecn_marked_roce_packets > 0 ($(counter np_ecn_marked_roce_packets))" \
		positive np_ecn_marked_roce_packets
	check "b: np_cnp_sent > 0 ($(counter np_cnp_sent))" positive np_cnp_sent
	# IB_QP_RATE_LIMIT, in loopback on b (no CE marking there).
	filter_hits egress 20 21 >$work/cnps
	echo "CNPs at priority 5, all: $(cat $work/cnps)" | diag
	check "b: every CNP left at skb priority 5 (np_cnp_prio)" some_all $work/cnps
	tap_program 200 rate_limit.py $dev "$g"
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
	filter_hits ingress 10 11 >$work/cnps
	echo "well formed, all: $(cat $work/cnps)" | diag
	check "a: CNPs arrived, every one well formed" some_all $work/cnps
	filter_hits ingress 12 13 >$work/acks
	echo "ACKs on DSCP 10, all: $(cat $work/acks)" | diag
	check "a: b's ACKs arrived, every one on ack_dscp 10" some_all $work/acks
	check "a: none failed the ICRC ($(counter rx_drop_icrc))" [ "$(counter rx_drop_icrc)" = 0 ]
	check "a: tx_wait_rate > 0 ($(counter tx_wait_rate)): the pacer held a back" \
		positive tx_wait_rate
fi
tap_done
