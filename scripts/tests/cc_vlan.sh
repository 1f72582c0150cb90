#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one"): congestion control of UD QPs, and the
# priorities of CNPs and data as PCPs of a VLAN (Documentation/congestion.rst).
# As in vlan.sh, a veth pair joins sroce0 (veth0, initial namespace) to
# sroce1 (veth1, namespace "peer"), with VLAN 100 on both ends, each
# mapping skb priority n to PCP n. Both devices run congestion control;
# sroce1 sends its CNPs at priority 5 (np_cnp_prio). A tc filter on
# veth0.100's egress marks CE on every ECT(0) packet sroce0 sends, so
# sroce1 is the notification point for sroce0's data and sroce0 the
# reaction point. A capture on veth0 sees every RoCE frame sroce1 sends:
# each CNP (BTH opcode 0x81) must carry PCP 5, every other frame the
# PCP of its QP's SL (3). RC and UD (IPv4 and IPv6 GIDs) traffic with
# validated buffers: for UD, sroce1 must have sent CNPs to the datagrams'
# source, sroce0 handled them on its UD QP and cut that QP's rate (the
# tracepoint; the lowest rate a resource dump caught is printed). Prints
# TAP.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/vlan_veth.sh"
. "$SROCE_SRC/scripts/guest/cc_knobs.sh"

modprobe -a ib_core ib_uverbs 8021q 2>/dev/null
listen_wait() {
	wait_for 30 pn sh -c ". $SROCE_SRC/scripts/guest/tap.sh; port_listening $1"
}
map="0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7"

vlan_veth "$map" "$map"

check "rdma link add sroce0 netdev veth0" rdma link add sroce0 type sroce netdev veth0
check "in namespace peer: rdma link add sroce1 netdev veth1" \
	pn rdma link add sroce1 type sroce netdev veth1
check "sroce0: congestion control on" cc_on_tcg sroce0
check "sroce1: congestion control on" cc_on_tcg sroce1
check "sroce1's CNPs at priority 5" sh -c "echo 5 >/sys/class/infiniband/sroce1/cc/np_cnp_prio"
check "sroce0 has the VLAN's IPv4 GID" wait_for 10 gid_match sroce0 ffff:c633:6401
check "sroce1 has the VLAN's IPv4 GID" wait_for 10 gid_match sroce1 ffff:c633:6402
check "sroce0 has the VLAN's IPv6 GID" wait_for 10 gid_match sroce0 2001:0db8:0100:0000:0000:0000:0000:0001
check "sroce1 has the VLAN's IPv6 GID" wait_for 10 gid_match sroce1 2001:0db8:0100:0000:0000:0000:0000:0002
g0=$(gid_match sroce0 ffff:c633:6401)
g1=$(gid_match sroce1 ffff:c633:6402)
h0=$(gid_match sroce0 2001:0db8:0100:0000:0000:0000:0000:0001)
h1=$(gid_match sroce1 2001:0db8:0100:0000:0000:0000:0000:0002)
check "IP over the VLAN" wait_for 20 busybox ping -c 1 -W 2 198.51.100.2

mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
echo 1 >/sys/kernel/tracing/events/sroce/sroce_cc_rate/enable
tc qdisc add dev veth0.100 clsact
check "veth0.100's egress marks CE on IPv4 ECT(0)" \
	tc filter add dev veth0.100 egress protocol ip prio 1 u32 \
	match ip tos 0x02 0x03 \
	action pedit ex munge ip tos set 0x03 retain 0x03 pipe action csum iph
# The IPv6 ECN field: bits 0x30 of the header's second byte.
check "veth0.100's egress marks CE on IPv6 ECT(0)" \
	tc filter add dev veth0.100 egress protocol ipv6 prio 2 u32 \
	match u8 0x20 0x30 at 1 \
	action pedit ex munge ip6 traffic_class set 0x03 retain 0x03

# cap: capture what arrives on veth0 (sroce1's frames) into /tmp/cap.
cap() {
	rm -f /tmp/cap
	python3 "$SROCE_SRC/scripts/tests/vlan_cap.py" veth0 300 1000000 opcode \
		>/tmp/cap 2>&1 &
	cap_pid=$!
	wait_for 10 grep -q ready /tmp/cap
}
cap_end() {
	sleep 1
	kill "$cap_pid" 2>/dev/null
	wait "$cap_pid" 2>/dev/null
}
# pcps WHAT: check that sroce1's CNPs in the capture all had PCP 5 and
# its other frames all PCP 3, at least one of each.
pcps() {
	local n
	n=$(awk '$1 == "ready" { next }
		$1 == "tagged" && $2 == 100 && $3 == 5 && $4 == "0x81" { c++; next }
		$1 == "tagged" && $2 == 100 && $3 == 3 && $4 != "0x81" { o++; next }
		{ b++ } END { print c + 0, o + 0, b + 0 }' /tmp/cap)
	echo "$1: CNPs at PCP 5, others at PCP 3, any else: $n" | diag
	# shellcheck disable=SC2086
	set -- "$1" $n
	if [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ "$4" = 0 ]; then
		ok "$1: every CNP of sroce1 carried PCP 5, every other frame PCP 3"
	else
		not_ok "$1: every CNP of sroce1 carried PCP 5, every other frame PCP 3"
		grep -v '^ready$' /tmp/cap | sort | uniq -c | head | diag
	fi
}
# The rate in every resource dump while traffic runs: the UD QP's (the
# RC QPs are gone, QP1 has none).
sample_rates() {
	rm -f /tmp/rates /tmp/stop
	while [ ! -e /tmp/stop ]; do
		rdma resource show qp link sroce0/1 -dd 2>/dev/null |
			grep -o 'cc_rate_kbps [0-9]*' >>/tmp/rates
		sleep 0.2
	done
}

cap
pn timeout 120 ibv_rc_pingpong -d sroce1 -g "$g1" -p 18530 -c -s 4096 -n 30 -l 3 \
	>/tmp/pp-srv 2>&1 &
srv=$!
listen_wait 18530
check "RC pingpong, SL 3, CE-marked, buffers validated" \
	timeout 120 ibv_rc_pingpong -d sroce0 -g "$g0" -p 18530 -c -s 4096 -n 30 -l 3 \
	198.51.100.2
wait $srv || { not_ok "RC pingpong server"; diag </tmp/pp-srv; }
cap_end
pcps "RC"

# ud PORT GID0 GID1 NAME: UD pingpong between the GIDs, SL 3, validated;
# sroce1 serves (the pingpong's own exchange goes over IPv4: its server
# listens on IPv4 alone).
ud() {
	local n0 n1 ign
	n1=$(link_counter sroce1 np_cnp_sent)
	n0=$(link_counter sroce0 rp_cnp_handled)
	ign=$(link_counter sroce0 rp_cnp_ignored)
	cap
	sample_rates &
	sampler=$!
	pn timeout 120 ibv_ud_pingpong -d sroce1 -g "$3" -p "$1" -c -s 512 -n 50 -l 3 \
		>/tmp/ud-srv 2>&1 &
	srv=$!
	listen_wait "$1"
	echo >/sys/kernel/tracing/trace
	check "UD pingpong $4, SL 3, CE-marked, buffers validated" \
		sh -c "timeout 120 ibv_ud_pingpong -d sroce0 -g $2 -p $1 -c -s 512 -n 50 \
		-l 3 198.51.100.2 >/tmp/ud-cli 2>&1" || diag </tmp/ud-cli
	# Its QP: "local address: LID 0x0000, QPN 0x000011, ...".
	qpn=$(($(sed -n 's/.*local address.*QPN \(0x[0-9a-f]*\).*/\1/p' /tmp/ud-cli)))
	wait $srv || { not_ok "UD pingpong server"; diag </tmp/ud-srv; }
	touch /tmp/stop
	wait $sampler
	cap_end
	check "UD $4: sroce1 sent CNPs ($n1 -> $(link_counter sroce1 np_cnp_sent))" \
		[ "$(link_counter sroce1 np_cnp_sent)" -gt "$n1" ]
	check "UD $4: sroce0 handled them ($n0 -> $(link_counter sroce0 rp_cnp_handled))" \
		[ "$(link_counter sroce0 rp_cnp_handled)" -gt "$n0" ]
	check "UD $4: sroce0 ignored none" [ "$(link_counter sroce0 rp_cnp_ignored)" = "$ign" ]
	grep "sroce0 qpn=$qpn rate" /sys/kernel/tracing/trace | head -n 2 | diag
	check "UD $4: the tracepoint saw QP $qpn's rate fall below 1 Gbit/s" \
		grep -q "sroce0 qpn=$qpn rate=[0-9]\{1,6\}kbps" /sys/kernel/tracing/trace
	# A dump takes a second or two under TCG: one may miss the QP.
	echo "lowest rate in a resource dump: $(sort -k2 -n /tmp/rates 2>/dev/null |
		head -n 1)" | diag
	pcps "UD $4"
}
ud 18531 "$g0" "$g1" IPv4
ud 18532 "$h0" "$h1" IPv6

check "sroce0: no ICRC drops ($(link_counter sroce0 rx_drop_icrc))" \
	[ "$(link_counter sroce0 rx_drop_icrc)" = 0 ]
check "rdma link delete sroce1" pn rdma link delete sroce1
check "rdma link delete sroce0" rdma link delete sroce0
ip netns del peer
ip link del veth0 2>/dev/null
check "no kernel warning" sh -c "! dmesg | grep -E 'WARNING:|BUG:|Call Trace|refcount'"
tap_done
