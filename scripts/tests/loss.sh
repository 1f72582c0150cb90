#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): RC over a bad link. Each guest puts tc
# netem on its egress for RoCEv2 packets (the test's TCP control
# connection stays clean), and the verifying program must
# still see every WRITE, READ, SEND and FETCH_AND_ADD land exactly once,
# intact, in order, with no QP error:
#   1. sroce against sroce, each impairment of $LOSS_SET; the window
#      passes its ceiling on a clean link and not on a long round trip;
#   2. the link cut mid-transfer: RETRY_EXC_ERR within the bound of the
#      last ACK, the peer's QP unharmed, and the two devices work again
#      once the link is back; the same with a's packets held in its
#      host, and a WRITE jammed behind a's own held READ answers;
#   3. sroce (guest a) against rdma_rxe (guest b), both serving, under the
#      impairments of $LOSS_INTEROP.
# LOSS_SET and LOSS_INTEROP are lists of netem argument strings separated
# by ";" (empty runs none). make check keeps to a part, for time: bpo runs
# loss 5 %, reordering and the mix, and the mix against rdma_rxe; the
# other targets the cut alone (the debug kernel watching the timers).
# LOSS_MATRIX=full runs the full matrix of issue 6 ($LOSS_FULL below).
# A failure is a failure.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/pair_traffic.sh"

mix="loss 5% duplicate 2% corrupt 1% delay 1ms reorder 25% 50%"
LOSS_FULL="loss 1%;loss 5%;loss 10%;delay 1ms reorder 25% 50%;duplicate 5%;corrupt 1%;delay 2ms 1ms;$mix"
LOSS_FULL_INTEROP="loss 5%;$mix"
if [ "${LOSS_MATRIX:-}" = full ]; then
	LOSS_SET=$LOSS_FULL LOSS_INTEROP=$LOSS_FULL_INTEROP
elif [ "$SROCE_TARGET" = bpo ]; then
	: "${LOSS_SET=loss 5%;delay 1ms reorder 25% 50%;$mix}"
	: "${LOSS_INTEROP=$mix}"
else
	: "${LOSS_SET=}"
	: "${LOSS_INTEROP=}"
fi
[ "$LOSS_SET" = "$LOSS_FULL" ] ||
	skip "make check runs a part of the matrix, for time" "the full netem matrix of issue 6"
pair_sroce_up

# Packets of priority 0 leaving this guest (RoCEv2, and ARP and neighbour
# discovery) go to band 3 of a prio qdisc; those of any other priority to
# band 1, untouched: rc_verify.py gives its TCP control connection
# priority 6. (No classifier: the debug kernel has none.) impair puts
# netem in band 3 with its arguments, or a plain FIFO when it has none.
# The qdiscs are set up once, so that an impairment takes effect at once
# (loading modules takes seconds in TCG).
tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
	tc qdisc replace dev eth0 parent 1:3 netem loss 0% &&
	tc qdisc replace dev eth0 parent 1:3 pfifo
check "RoCEv2 egress through its own qdisc band" [ $? = 0 ]
# (A new leaf each time: netem keeps what a change does not name.)
impair() {
	if [ $# -gt 0 ]; then
		tc qdisc replace dev eth0 parent 1:3 netem "$@"
	else
		tc qdisc replace dev eth0 parent 1:3 pfifo
	fi
}

# under DRIVERS PORT SERVER NETEM: rc_verify with SERVER serving, netem
# on both guests' egress; the sizes span 1 B to 1 MiB, two QPs.
under() {
	local what=$1 port=$2 server=$3 args=$4 q
	barrier "impair$port"
	# shellcheck disable=SC2086 # the netem arguments are words
	if ! impair $args; then
		not_ok "$what: netem $args on the egress"
		return
	fi
	pair_verify "$what${args:+, netem $args}" "$port" "$server" "$g" \
		--sizes 1,4097,65536,1048576 --faa 16
	q=$(tc -s qdisc show dev eth0 | awk '/netem/{f=1} f&&/Sent/{print $4; exit}')
	impair
	# The impairment really was in the way.
	[ -z "$args" ] || check "$what, netem $args: RoCEv2 went through netem ($q packets)" \
		[ "${q:-0}" -gt 100 ]
	rdma statistic show link dev0/1 | tr -s ' \n' ' ' | cut -c1-900 | diag
}

# late WHAT PORT: answers slower than the local ACK timeout. Guest b
# (serving) holds every RoCEv2 packet it sends 150 ms, the requester on
# a times out after 67 ms (timeout 14): each ACK comes after a's timer
# has fired and a has gone back to resend. The ACK still counts, and
# so does the responder's answer to a duplicate (it names the last PSN
# it has, ahead of what a has sent again): a regression test for the
# RETRY_EXC_ERR of ibv_rc_pingpong against rdma_rxe under load.
late() {
	local what=$1 port=$2 q
	barrier "late$port"
	[ "$SROCE_ROLE" = b ] && impair delay 150ms
	pair_verify "$what, answers later than the ACK timeout" "$port" b "$g" \
		--sizes 1,65536 --faa 4 --timeout 14
	if [ "$SROCE_ROLE" = b ]; then
		q=$(tc -s qdisc show dev eth0 | awk '/netem/{f=1} f&&/Sent/{print $4; exit}')
		impair
		check "$what: b's answers went through netem ($q packets)" [ "${q:-0}" -gt 20 ]
	else
		rdma statistic show link dev0/1 | tr -s ' \n' ' ' | cut -c1-900 | diag
	fi
}

# 1. sroce against sroce.
late "sroce<->sroce" 19150
port=19100
IFS=';'
for args in $LOSS_SET; do
	IFS=' '
	port=$((port + 1))
	under "sroce<->sroce" $port a "$args"
	IFS=';'
done
IFS=' '

# 1b. The window past its ceiling (Documentation/datapath.rst, "Past the
# ceiling"). On a clean link and with no ACK timer (timeout 0: no bound
# on the round trip) a's window passes its ceiling within a 1 MiB WRITE;
# with b's answers 100 ms late and a timeout of 268 ms (16), whose
# quarter the round trip exceeds, it never does.
probes() { link_counter dev0 tx_window_probe; }
probe() {
	local what=$1 port=$2 delay=$3 timeout=$4 want=$5 p0 p1
	barrier "probe$port"
	p0=$(probes)
	[ "$SROCE_ROLE" = b ] && [ -n "$delay" ] && impair delay "$delay"
	pair_verify "$what" "$port" b "$g" --qps 1 --sizes 1048576 --iters 2 \
		--faa 4 --timeout "$timeout"
	[ "$SROCE_ROLE" = b ] && impair
	p1=$(probes)
	[ "$SROCE_ROLE" = a ] || return 0
	if [ "$want" = some ]; then
		check "$what: a's window passed its ceiling (tx_window_probe +$((p1 - p0)))" \
			[ $((p1 - p0)) -gt 0 ]
	else
		check "$what: a's window kept to its ceiling (tx_window_probe +$((p1 - p0)))" \
			[ $((p1 - p0)) = 0 ]
	fi
}
probe "window probe, clean link, no ACK timer" 19160 "" 0 some
probe "window probe, answers 100 ms late, timeout 268 ms" 19161 100ms 16 none

# 2. The link cut under a stream of WRITEs: guest a drops every RoCEv2
# packet it sends from then on; its QP must fail RETRY_EXC_ERR within the
# bound of the last ACK (rc_verify.py --cut), b's stay RTS.
pair_verify "cut" 19200 b "$g" --timeout 16 \
	--cut "tc qdisc replace dev eth0 parent 1:3 netem loss 100%"
impair
check_fails "cut: no RC QP left behind" sh -c 'rdma resource show qp | grep "type RC"'

# 2b. A transmit queue that never moves: the cut again, but a's packets
# are held, not dropped, as in a NIC whose ring has stopped: netem lets
# one packet through and the next 100 s later (a slot; with no delay it
# keeps the skbs' owners, unlike netem delay). The QP fails, rc_verify
# exits and destroys it while its packets are still queued: the destroy
# must not wait for the stack to free them (a process stuck in D state
# for good, seen once on deb12 with a stuck virtio-net ring). (netem,
# not sch_plug: the debug kernel has no plug.) With its packets still in
# the host, sroce holds back SROCE_ACK_HOLD (3) timeouts first: --held 3.
backlog() {
	tc -s qdisc show dev eth0 parent 1:3 |
		sed -n 's/.*backlog [^ ]* \([0-9]*\)p.*/\1/p' | head -n 1
}
hold="tc qdisc replace dev eth0 parent 1:3 netem slot 100s packets 1 limit 100000"
# gone_held WHAT: on a, the failed QP is gone, its packets still held.
gone_held() {
	[ "$SROCE_ROLE" = a ] || return 0
	held=$(backlog)
	check "$1: the QP went with $held packets still queued" [ "${held:-0}" -gt 0 ]
	check_fails "$1: no RC QP left behind" sh -c 'rdma resource show qp | grep "type RC"'
}
pair_verify "held" 19210 b "$g" --timeout 16 --held 3 --cut "$hold"
gone_held held
if [ "$SROCE_ROLE" = a ]; then
	# The packets run sroce's destructor when freed: module exit must
	# wait for them, not leave them a pointer into unloaded text.
	rdma link delete dev0
	rm -f /tmp/rmmod.rc
	(rmmod sroce; echo $? >/tmp/rmmod.rc) >/tmp/rmmod.log 2>&1 &
	rmmod_pid=$!
	sleep 3
	check "held: rmmod waits for the queued packets" [ ! -e /tmp/rmmod.rc ]
	# A new leaf frees what netem held.
	check "held: the queue lets go" impair
	check "held: then rmmod succeeds" wait_for 20 grep -qx 0 /tmp/rmmod.rc
	wait $rmmod_pid
	check "held: sroce back" sh -c '{ modprobe sroce 2>/dev/null || insmod "$SROCE_KO"; } && rdma link add dev0 type sroce netdev eth0'
	check "held: IPv4 GID again" wait_for 10 pair_gid dev0
fi
impair

# 2c. Jammed by its own answers: a's host holds its packets again, b
# READs 1 MiB from a, and a's answers fill all its QP may queue below it
# (sroce_tx_limit()). A WRITE posted then has nothing else outstanding
# to time, but it cannot leave either: it must still fail RETRY_EXC_ERR,
# timed from its post (rc_verify.py --jam), not wait for ever.
pair_verify "jam" 19211 b "$g" --timeout 16 --held 3 --jam "$hold"
gone_held jam
impair
under "after the cut, sroce<->sroce" 19201 a ""

# 3. sroce against rdma_rxe: guest b swaps its driver.
[ -n "$LOSS_INTEROP" ] || { tap_done; exit; }
barrier swap
if [ "$SROCE_ROLE" = b ]; then
	rdma link delete dev0
	rmmod sroce
	modprobe rdma_rxe
	check "b: rdma link add dev0 type rxe" rdma link add dev0 type rxe netdev eth0
	check "b: IPv4 GID" wait_for 10 pair_gid dev0
	g=$(pair_gid dev0)
fi
barrier swapped
late "sroce requesting of rdma_rxe" 19350
port=19300
IFS=';'
for args in $LOSS_INTEROP; do
	IFS=' '
	port=$((port + 2))
	under "sroce serving rdma_rxe" $port a "$args"
	under "rdma_rxe serving sroce" $((port + 1)) b "$args"
	IFS=';'
done
IFS=' '
tap_done
