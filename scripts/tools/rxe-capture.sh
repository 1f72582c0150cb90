#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/tools/capture-rxe-vectors.sh (topology "pair"):
# rdma_rxe on both guests, a little RC traffic over IPv4 and IPv6 GIDs, and
# guest b records every RoCEv2 frame it sends or receives, as hex lines in
# /sroceio/rxe-frames.txt ("<ipver> <hex of the whole Ethernet frame>").
. "$SROCE_SRC/scripts/guest/rendezvous.sh"

case $SROCE_ROLE in a) me=1 peer=2 ;; *) me=2 peer=1 ;; esac
ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
ip -6 addr add "2001:db8::$me/64" dev eth0 nodad
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev eth0
sleep 2
gid_index() { # pattern
	grep -l "$1" /sys/class/infiniband/rxe0/ports/1/gids/* | head -n 1 | sed 's|.*/||'
}
g4=$(gid_index ffff:c000:02)
g6=$(gid_index '^2001:0db8')

if [ "$SROCE_ROLE" = b ]; then
	python3 - "$SROCE_IO/rxe-frames.txt" <<'PY' &
import socket, struct, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(3))
s.bind(('eth0', 0))
out = open(sys.argv[1], 'w')
n = 0
while n < 400:
    f = s.recv(65535)
    et = struct.unpack('!H', f[12:14])[0]
    if et == 0x0800 and f[23] == 17:
        ihl = (f[14] & 15) * 4
        udp = 14 + ihl
        ver = 4
    elif et == 0x86dd and f[20] == 17:
        udp = 14 + 40
        ver = 6
    else:
        continue
    if struct.unpack('!H', f[udp + 2:udp + 4])[0] != 4791:
        continue
    out.write('%d %s\n' % (ver, f.hex()))
    out.flush()
    n += 1
PY
	sniffer=$!
	sleep 1
fi
barrier ready
run() { # server-side and client-side command
	if [ "$SROCE_ROLE" = b ]; then
		$1 &
		server=$!
		sleep 1
		publish go$2 1
		wait $server
	else
		while [ ! -e "$SROCE_IO/val-b-go$2" ]; do sleep 0.2; done
		sleep 1
		$1 "192.0.2.$peer"
	fi
	barrier done$2
}
run "ibv_rc_pingpong -d rxe0 -g $g4 -s 40 -n 2" 1
run "ibv_rc_pingpong -d rxe0 -g $g6 -s 40 -n 2" 2
run "ib_read_lat -d rxe0 -x $g4 -s 32 -n 5" 3
run "ib_write_lat -d rxe0 -x $g4 -s 32 -n 5" 4
run "ib_atomic_lat -d rxe0 -x $g4 -n 5" 5
sleep 2
[ -n "${sniffer:-}" ] && kill "$sniffer" 2>/dev/null
true
