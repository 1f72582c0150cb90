#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): RoCE v1 between two sroce devices added
# with the roce_v1 module parameter on (rdma_rxe has no RoCE v1). Both GID
# types are in the table (sysfs, ibv_devinfo). Over the v1 GID: validated
# RC and UD pingpongs, ib_write_bw, ib_send_bw, ib_read_lat, then rping
# and mckey (multicast) through rdma_cm with default_roce_mode
# "IB/RoCE v1", while b checks that a's frames are RoCE v1 with a right
# ICRC, computed apart from the driver (v1_wire.py). Then crafted and
# random 0x8915 frames from a, each dropped and counted by b under its
# reason; v1 and v2 ib_write_bw at once; a pingpong over VLAN 100 and
# one within a (to its own MAC); and with the parameter off again, a new
# device has no v1 GID.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/pair_traffic.sh"

me=1 peer=2 dev=sroce0 todo=
[ "$SROCE_ROLE" = b ] && me=2 peer=1
ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
modprobe sroce roce_v1=1 2>/dev/null || insmod "$SROCE_KO" roce_v1=1
check "roce_v1 parameter on" grep -qx Y /sys/module/sroce/parameters/roce_v1
check "rdma link add $dev type sroce netdev eth0" \
	rdma link add $dev type sroce netdev eth0

# gid_typed DEV TYPE PATTERN: the index of DEV's GID that matches PATTERN
# and is of TYPE (as sysfs names it), among the first sixteen.
gid_typed() {
	local d=/sys/class/infiniband/$1/ports/1 i=0
	while [ $i -lt 16 ]; do
		if grep -qi -- "$3" "$d/gids/$i" 2>/dev/null &&
			[ "$(cat "$d/gid_attrs/types/$i" 2>/dev/null)" = "$2" ]; then
			echo $i
			return 0
		fi
		i=$((i + 1))
	done
	return 1
}
ip4="ffff:c000:020$me"
check "a RoCE v1 GID for 192.0.2.$me" wait_for 10 gid_typed $dev "IB/RoCE v1" "$ip4"
check "a RoCE v2 GID for 192.0.2.$me" wait_for 10 gid_typed $dev "RoCE v2" "$ip4"
check "the link-local GID in RoCE v1 too" wait_for 10 gid_typed $dev "IB/RoCE v1" "^fe80"
g1=$(gid_typed $dev "IB/RoCE v1" "$ip4")
g2=$(gid_typed $dev "RoCE v2" "$ip4")
ibv_devinfo -v -d $dev >/tmp/devinfo 2>&1
check "ibv_devinfo lists RoCE v1 GIDs" grep -q "RoCE v1" /tmp/devinfo
check "ibv_devinfo lists RoCE v2 GIDs" grep -q "RoCE v2" /tmp/devinfo
counter() { link_counter $dev "$1"; }
publish mac "$(cat /sys/class/net/eth0/address)"
publish gid "$(cat /sys/class/infiniband/$dev/ports/1/gids/"$g1")"
barrier up
check "IP to 192.0.2.$peer" wait_for 20 busybox ping -c 1 -W 2 "192.0.2.$peer"

# While a sends over RoCE v1, b watches eth0 for a's 0x8915 frames.
# cap_start SECONDS COUNT [IFNAME]: on b, watch IFNAME (eth0).
cap_start() {
	[ "$SROCE_ROLE" = b ] || return 0
	python3 "$SROCE_SRC/scripts/tests/v1_wire.py" cap "${3:-eth0}" "$1" "$2" >/tmp/cap 2>&1 &
	cap_pid=$!
	wait_for 10 grep -q ready /tmp/cap
}
# cap_check WHAT MIN: b saw at least MIN frames, each a good RoCE v1 one.
cap_check() {
	[ "$SROCE_ROLE" = b ] || return 0
	wait "$cap_pid"
	set -- "$1" "$2" $(sed -n 's/^good \([0-9]*\) bad \([0-9]*\)$/\1 \2/p' /tmp/cap)
	if [ "${3:-0}" -ge "$2" ] && [ "${4:-1}" = 0 ]; then
		ok "$1: RoCE v1 frames on the wire, ICRC checked apart ($3)"
	else
		not_ok "$1: RoCE v1 frames on the wire, ICRC checked apart"
		diag </tmp/cap
	fi
}

# pp PORT SERVER ARGS...: a validated RC pingpong over the v1 GID.
pp() {
	local port=$1 server=$2
	shift 2
	pair_pingpong "rc_pingpong $* over RoCE v1, $server serves" "$port" "$server" \
		"192.0.2.$peer" ibv_rc_pingpong -d $dev -g "$g1" -c "$@"
}

# pt PORT TOOL GID ARGS...: a perftest run, a serving, b connecting.
pt() {
	local port=$1 tool=$2 g=$3 rc=0
	shift 3
	barrier "pt$port"
	if [ "$SROCE_ROLE" = a ]; then
		serve_and_tell "$port" timeout 120 "$tool" -d $dev -x "$g" -p "$port" -F "$@" \
			>"/tmp/pt$port.log" 2>&1 || rc=$?
	else
		connect_when_told "$port" timeout 120 "$tool" -d $dev -x "$g" -p "$port" -F "$@" \
			"192.0.2.$peer" >"/tmp/pt$port.log" 2>&1 || rc=$?
	fi
	pair_result "$SROCE_ROLE: $tool $* over GID $g" $rc "/tmp/pt$port.log"
}

# udp PORT SERVER: a validated UD pingpong over the v1 GID (an AH).
udp() {
	pair_pingpong "ud_pingpong over RoCE v1, $2 serves" "$1" "$2" "192.0.2.$peer" \
		ibv_ud_pingpong -d $dev -g "$g1" -c -s 1000 -n 20
}

# a sends its payloads from the pages of its MRs (tx_zcopy): the ICRC that
# b checks apart is then computed over an skb in fragments.
cap_start 300 40
zc=/sys/module/sroce/parameters/tx_zcopy
[ "$SROCE_ROLE" = a ] && z0=$(counter tx_zcopy) && echo 1 >$zc
pp 18601 a -s 4096 -n 20
pp 18602 b -s 65536 -n 5 -m 1024
if [ "$SROCE_ROLE" = a ]; then
	echo 0 >$zc
	check "a sent RoCE v1 payloads in fragments (tx_zcopy)" \
		test "$(counter tx_zcopy)" -gt "$z0"
fi
udp 18609 a
pt 18603 ib_write_bw "$g1" -s 65536 -n 50
pt 18604 ib_send_bw "$g1" -s 4096 -n 100
pt 18605 ib_read_lat "$g1" -s 64 -n 50
barrier traffic-done
# The capture stops at 40 frames; what a sent went to b.
cap_check "verbs and perftest" 40

# rdma_cm: its default RoCE mode decides the GID type of a connection.
cfg=/sys/kernel/config
[ -d $cfg/rdma_cm ] || { mount -t configfs none $cfg 2>/dev/null; modprobe rdma_ucm; }
mkdir -p $cfg/rdma_cm/$dev
check "rdma_cm default_roce_mode set to IB/RoCE v1" \
	sh -c "echo 'IB/RoCE v1' >$cfg/rdma_cm/$dev/ports/1/default_roce_mode &&
		grep -qx 'IB/RoCE v1' $cfg/rdma_cm/$dev/ports/1/default_roce_mode"
cap_start 200 20
barrier rping
if [ "$SROCE_ROLE" = a ]; then
	check "rping serves over RoCE v1, data validated" serve_and_tell 18606 \
		timeout 120 rping -s -a "192.0.2.$me" -p 18606 -V -C 20 -S 1000
else
	check "rping connects over RoCE v1, data validated" connect_when_told 18606 \
		timeout 120 rping -c -a "192.0.2.$peer" -p 18606 -V -C 20 -S 1000
fi
barrier rping-done
cap_check "rping (rdma_cm)" 20
# Multicast through rdma_cm in the same mode: a sends 10 datagrams.
cap_start 120 10
pair_mckey 239.1.1.9 a
barrier mckey-done
cap_check "mckey (multicast)" 10
rmdir $cfg/rdma_cm/$dev 2>/dev/null

# Crafted frames from a; b counts each drop under its reason.
snap() { for c in rx_drop_short rx_drop_header rx_drop_icrc rx_drop_no_qp rx_drop_path; do
	echo "$c $(counter $c)"; done; }
[ "$SROCE_ROLE" = b ] && snap >/tmp/before
barrier hostile
if [ "$SROCE_ROLE" = a ]; then
	check "crafted 0x8915 frames sent to b" python3 "$SROCE_SRC/scripts/tests/v1_wire.py" send \
		eth0 "$(lookup b mac)" "$(lookup a gid)" "$(lookup b gid)" 0xabcde
fi
barrier hostile-sent
if [ "$SROCE_ROLE" = b ]; then
	sleep 1
	snap >/tmp/after
	# grew COUNTER MIN: COUNTER grew by MIN at least.
	grew() {
		local was now
		was=$(awk -v c="$1" '$1 == c {print $2}' /tmp/before)
		now=$(awk -v c="$1" '$1 == c {print $2}' /tmp/after)
		[ $((now - was)) -ge "$2" ]
	}
	check "PayLen past the frame: rx_drop_short" grew rx_drop_short 1
	check "IPVer 4 and NxtHdr 0x11: rx_drop_header" grew rx_drop_header 2
	check "a wrong ICRC: rx_drop_icrc" grew rx_drop_icrc 1
	check "ICRC computed apart, accepted; no such QP: rx_drop_no_qp" grew rx_drop_no_qp 1
	check "a DGID not ours: rx_drop_path" grew rx_drop_path 1
	paste /tmp/before /tmp/after | diag
fi
barrier hostile-checked

# v1 and v2 side by side: two ib_write_bw at once, one per GID type, each
# in the background with its TAP line kept, then numbered here.
pt 18607 ib_write_bw "$g1" -s 65536 -n 50 >/tmp/side1 2>&1 &
p1=$!
pt 18608 ib_write_bw "$g2" -s 65536 -n 50 >/tmp/side2 2>&1 &
p2=$!
wait $p1 $p2
tap_relay /tmp/side1
tap_relay /tmp/side2
barrier side-done
check "no transmit dropped" test "$(counter tx_drop)" = 0
rdma statistic show link $dev/1 | diag

# Over VLAN 100: the VLAN's RoCE v1 GID (on the parent's device) sends
# out of eth0.100, tagged; b sees a's frames arrive on eth0.100.
modprobe 8021q
ip link add link eth0 name eth0.100 type vlan id 100
ip addr add "198.51.100.$me/24" dev eth0.100
ip link set eth0.100 up
check "the VLAN's RoCE v1 GID" wait_for 10 gid_typed $dev "IB/RoCE v1" "ffff:c633:640$me"
gv=$(gid_typed $dev "IB/RoCE v1" "ffff:c633:640$me")
check "its netdev is eth0.100" \
	[ "$(cat /sys/class/infiniband/$dev/ports/1/gid_attrs/ndevs/"$gv")" = eth0.100 ]
barrier vlan-up
cap_start 120 20 eth0.100
pair_pingpong "rc_pingpong over RoCE v1 on VLAN 100, a serves" 18611 a \
	"198.51.100.$peer" ibv_rc_pingpong -d $dev -g "$gv" -c -s 4096 -n 20
barrier vlan-done
cap_check "VLAN 100" 20

# Within a: RoCE v1 to its own MAC address goes to the receive path.
if [ "$SROCE_ROLE" = a ]; then
	timeout 60 ibv_rc_pingpong -d $dev -g "$g1" -p 18610 -c -s 4096 -n 20 \
		>/tmp/lo-srv 2>&1 &
	lo=$!
	wait_for 20 port_listening 18610
	check "rc_pingpong over RoCE v1 within a, client side" \
		timeout 60 ibv_rc_pingpong -d $dev -g "$g1" -p 18610 -c -s 4096 -n 20 \
		"192.0.2.$me"
	wait $lo && ok "rc_pingpong over RoCE v1 within a, server side" ||
		{ not_ok "rc_pingpong over RoCE v1 within a, server side"; diag </tmp/lo-srv; }
fi

# With the parameter off again, a new device speaks RoCEv2 only.
check "rdma link delete $dev" rdma link delete $dev
echo N >/sys/module/sroce/parameters/roce_v1
check "rdma link add $dev with roce_v1 off" rdma link add $dev type sroce netdev eth0
check "its RoCE v2 GID for 192.0.2.$me" wait_for 10 gid_typed $dev "RoCE v2" "$ip4"
check_fails "no RoCE v1 GID on it" gid_typed $dev "IB/RoCE v1" .
rdma link delete $dev
tap_done
