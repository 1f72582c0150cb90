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
