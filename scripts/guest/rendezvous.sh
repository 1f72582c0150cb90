# SPDX-License-Identifier: GPL-2.0
# Rendezvous between the guests of a topology through the shared /sroceio.
# Source it after tap.sh.

# barrier NAME [SECONDS]: wait until every guest reached NAME (60 s at
# most by default).
barrier() {
	local name=$1 r t=$((${2:-60} * 10))
	touch "$SROCE_IO/barrier-$name-$SROCE_ROLE"
	for r in ${SROCE_ROLES:-a b}; do
		while [ ! -e "$SROCE_IO/barrier-$name-$r" ]; do
			t=$((t - 1))
			[ $t -gt 0 ] || { echo "# barrier $name: no $r"; return 1; }
			sleep 0.1
		done
	done
}

# publish KEY VALUE / lookup ROLE KEY: values one guest shows the other.
publish() { echo "$2" >"$SROCE_IO/val-$SROCE_ROLE-$1.tmp" && mv "$SROCE_IO/val-$SROCE_ROLE-$1.tmp" "$SROCE_IO/val-$SROCE_ROLE-$1"; }
lookup() { cat "$SROCE_IO/val-$1-$2"; }

# serve_and_tell PORT COMMAND...: run COMMAND, a server, and once this
# guest listens on PORT (20 s at most; then the client tries anyway)
# meet the peer at barrier listen-PORT; then wait for COMMAND and return
# its status. connect_when_told PORT COMMAND...: the peer's side, COMMAND
# after that barrier. A fixed head start for the server (2 s) was too
# short on the debug kernel under a loaded host: ibv_rc_pingpong's client
# found nothing listening and gave up, and its server waited 120 s for it.
serve_and_tell() {
	local port=$1 pid rc=0
	shift
	"$@" &
	pid=$!
	wait_for 20 port_listening "$port"
	barrier "listen-$port" 120
	wait $pid || rc=$?
	return $rc
}
connect_when_told() {
	local port=$1
	shift
	barrier "listen-$port" 120
	"$@"
}
