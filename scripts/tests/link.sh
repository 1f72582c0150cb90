#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): sroce on both ends of a real QEMU link:
# the port, IP, datagrams counted on the other side, then RC traffic
# (ibv_rc_pingpong, rc_verify.py, perftest) over IPv4 and IPv6. Each guest
# prints its own TAP.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"

case $SROCE_ROLE in
a) me=1 peer=2 other=b ;;
*) me=2 peer=1 other=a ;;
esac
sysdev=/sys/class/infiniband
counter() { link_counter sroce0 "$1"; }
state_is() { grep -q "$2" "$sysdev/$1/ports/1/state"; }
has_gid() { cat "$sysdev/$1"/ports/1/gids/* | grep -qi "$2"; }

ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
ip -6 addr add "2001:db8::$me/64" dev eth0 nodad
check "rdma link add sroce0 over eth0 (virtio-net)" \
	rdma link add sroce0 type sroce netdev eth0
check "port ACTIVE" wait_for 10 state_is sroce0 ACTIVE
check "IPv4 GID" wait_for 5 has_gid sroce0 "ffff:c000:020$me"
check "IPv6 GID" wait_for 5 has_gid sroce0 "2001:0db8:0000:0000:0000:0000:0000:000$me"
publish guid "$(cat $sysdev/sroce0/node_guid)"
barrier up
check "the link carries IP (ping $other)" wait_for 20 busybox ping -c 1 -W 2 "192.0.2.$peer"
check "the peer's device has its own node GUID" \
	[ "$(lookup $other guid)" != "$(cat $sysdev/sroce0/node_guid)" ]

# Each side sends three RoCEv2-port datagrams, over IPv4 and IPv6; the
# other side's device counts them.
rx0=$(counter rx_packets)
barrier counted0
python3 - "$peer" <<'PY'
import socket, sys
p = sys.argv[1]
for fam, addr in ((socket.AF_INET, '192.0.2.' + p), (socket.AF_INET6, '2001:db8::' + p)):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    for n in (8, 64, 1024):
        if fam == socket.AF_INET6 and n != 64:
            continue
        s.sendto(bytes(n), (addr, 4791))
PY
barrier sent
check "datagrams from the peer reach this device (IPv4 and IPv6)" \
	wait_for 10 sh -c "[ \$(rdma statistic show link sroce0/1 | tr ' ' '\n' | grep -A1 -x rx_packets | tail -n 1) -ge $((rx0 + 4)) ]"
check "the short one is counted as such" [ "$(counter rx_drop_short)" -ge 1 ]

# RC traffic across the link: a serves, b connects (rc_pingpong validates
# every buffer it receives).
gid_index() { gid_match sroce0 "$1"; }
g4=$(gid_index "ffff:c000:020$me")
g6=$(gid_index "2001:0db8:0000:0000:0000:0000:0000:000$me")
# pingpong DESCRIPTION PORT ARGS...
pingpong() {
	local d=$1 port=$2
	shift 2
	barrier "pp$port"
	if [ "$SROCE_ROLE" = a ]; then
		check "$d, serving" serve_and_tell "$port" \
			timeout 120 ibv_rc_pingpong -d sroce0 -p "$port" -c "$@"
	else
		check "$d, to $other" connect_when_told "$port" \
			timeout 120 ibv_rc_pingpong -d sroce0 -p "$port" -c "$@" "192.0.2.$peer"
	fi
}
pingpong "rc_pingpong IPv4 4 KiB x 50" 18515 -g "$g4" -s 4096 -n 50
pingpong "rc_pingpong IPv6 4 KiB x 50" 18516 -g "$g6" -s 4096 -n 50
pingpong "rc_pingpong 64 KiB x 10 (MTU 1024)" 18517 -g "$g4" -s 65536 -n 10 -m 1024

# WRITE, READ, SEND and atomics with every byte checked, then perftest.
. "$SROCE_SRC/scripts/guest/pair_traffic.sh"
dev=sroce0 todo=
pair_verify "rc_verify IPv6, a serving" 19875 a "$g6" --sizes 0,1,4097,65536,1048576 --faa 16
# Again with user payloads sent from their pages, on both ends (off by default).
zc=/sys/module/sroce/parameters/tx_zcopy z0=$(link_counter sroce0 tx_zcopy)
check "tx_zcopy on" sh -c "echo 1 > $zc"
pair_verify "rc_verify IPv6, a serving, tx_zcopy" 19876 a "$g6" --sizes 1,4097,65536,1048576
check "tx_zcopy off" sh -c "echo 0 > $zc"
z1=$(link_counter sroce0 tx_zcopy)
# b, the client, sends WRITEs and SENDs of its own payloads; a, serving,
# sends only READ responses, which are always copied (datapath.rst).
if [ "$SROCE_ROLE" = b ]; then
	check "packets sent without a copy (tx_zcopy +$((z1 - z0)))" [ "$((z1 - z0))" -gt 0 ]
else
	check "READ responses copied even so (tx_zcopy +$((z1 - z0)))" [ "$((z1 - z0))" = 0 ]
fi
# Receive lists (datapath.rst): a, serving IPv4 WRITEs, takes most of
# them in GRO's lists, each checked on its own as before; with the gro
# parameter off, none.
gro=/sys/module/sroce/parameters/gro gl0=$(counter rx_gro) rx0=$(counter rx_packets)
pair_perftest "ib_write_bw 64 KiB IPv4" 18600 a ib_write_bw -x "$g4" -s 65536 -n 100
gl1=$(counter rx_gro) rx1=$(counter rx_packets)
check "gro off" sh -c "echo 0 > $gro"
pair_perftest "ib_write_bw 64 KiB IPv4, gro off" 18607 a ib_write_bw -x "$g4" -s 65536 -n 100
check "gro on" sh -c "echo 1 > $gro"
gl2=$(counter rx_gro)
if [ "$SROCE_ROLE" = a ]; then
	check "WRITEs came in GRO's lists (rx_gro +$((gl1 - gl0)) of rx_packets +$((rx1 - rx0)))" \
		[ $((4 * (gl1 - gl0))) -gt $((rx1 - rx0)) ]
	check "none with gro off (rx_gro +$((gl2 - gl1)))" [ "$gl2" = "$gl1" ]
fi
check "nothing dropped as not a whole datagram" [ "$(counter rx_drop_header)" = 0 ]
pair_perftest "ib_read_bw 64 KiB IPv6" 18601 b ib_read_bw -x "$g6" -s 65536 -n 100
pair_perftest "ib_atomic_bw IPv4" 18602 a ib_atomic_bw -x "$g4" -n 200
# Seen to hang once on debug (2026-11-30 clean-clone run: the reading
# side's perftest never finished, two ACK timeouts in the whole suite, no
# QP error), and once from sroce against rdma_rxe on bpo; not yet
# understood (issue 52, item 5); not seen again in about 12,000 READ
# round trips between two debug guests (2026-12-06: ib_read_lat alone,
# under 10 % loss, and after ib_read_bw and ib_atomic_bw as here). The
# QP snapshot of pair_perftest says what it waits for.
[ "$SROCE_TARGET" = debug ] && todo="ib_read_lat can hang on debug (issue 52 item 5, not reproduced)"
pair_perftest "ib_read_lat 64 B IPv4" 18603 b ib_read_lat -x "$g4" -s 64 -n 100
todo=
# Jumbo frames: netdev MTU 9000 on both ends, path MTU 4096.
barrier mtu9000
ip link set eth0 mtu 9000
check "MTU 9000: the port's active MTU is 4096" wait_for 10 sh -c \
	"ibv_devinfo -d sroce0 | grep -q 'active_mtu:.*4096'"
# Every byte checked at path MTU 4096 too (rc_verify uses 1024 unless
# told): packets that long are built in reused pages of the device's
# pool (datapath.rst, "Packet pages"), READ responses on a, WRITEs and
# SENDs on b.
pair_verify "rc_verify IPv4, MTU 9000, a serving" 19877 a "$g4" --mtu 4096 \
	--sizes 0,1,4097,65536,1048576 --faa 16
pair_perftest "ib_write_bw 64 KiB IPv4, MTU 9000" 18604 a ib_write_bw -x "$g4" -s 65536 -n 100
pair_perftest "ib_read_bw 1 MiB IPv6, MTU 9000" 18605 b ib_read_bw -x "$g6" -s 1048576 -n 10
# Zero-copy over a netdev without scatter-gather: the stack linearizes
# each packet and its truesize grows below us. The bytes a QP has queued
# once drifted down with every such packet until they wrapped (about 1 GiB
# in), and the QP stopped for good at its limit. Sampled while a sends.
# (QEMU's stream netdev gives virtio-net no checksum offload, so it has
# no scatter-gather here anyway: every zero-copy packet across the pair
# is linearized.)
sg_was=$(ethtool -k eth0 | sed -n 's/^scatter-gather: \([a-z]*\).*/\1/p')
[ "$sg_was" = on ] && ethtool -K eth0 sg off
check "eth0 without scatter-gather (it was ${sg_was:-unknown})" \
	sh -c "ethtool -k eth0 | grep -q '^scatter-gather: off'"
check "tx_zcopy on" sh -c "echo 1 > $zc"
while :; do
	rdma resource show qp link sroce0/1 -dd 2>/dev/null |
		sed -n 's/.*tx_queued \([0-9]*\).*/\1/p'
	sleep 0.2
done >/tmp/txq.log &
sampler=$!
pair_perftest "ib_write_bw 1 MiB x 200, tx_zcopy, no SG" 18606 b ib_write_bw -x "$g4" \
	-s 1048576 -n 200
kill $sampler
check "tx_zcopy off" sh -c "echo 0 > $zc"
[ "$sg_was" = on ] && check "eth0 with scatter-gather again" ethtool -K eth0 sg on
# On a alone: b, serving, sends only ACKs, which are not charged.
txq_n=$(wc -l </tmp/txq.log) txq_max=$(sort -n /tmp/txq.log | tail -n 1)
if [ "$SROCE_ROLE" = a ]; then
	check "the sender's QP was sampled while it sent ($txq_n samples)" [ "$txq_n" -ge 2 ]
	check "its bytes queued stayed within 1 MiB (the most: ${txq_max:-none})" \
		[ "${txq_max:-0}" -le 1048576 ]
fi
check "no transmit dropped" [ "$(counter tx_drop)" = 0 ]
check "no response unmatched" [ "$(counter rx_bad_response)" = 0 ]
stop_counters() { [ -n "$(counter tx_wait_window)" ] && [ -n "$(counter tx_wait_queue)" ]; }
check "the senders' stop counters are shown" stop_counters
{ rdma statistic show link sroce0/1 | tr -s ' \n' ' '; echo; } | diag
barrier done
check "rdma link delete" rdma link delete sroce0
tap_done
