#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "one", a kernel with KUnit): load sroce and every
# KUnit suite module built beside it, and turn the KTAP the suites print
# into one TAP line per test case (parameterised cases count once, with
# their parameters' verdicts folded in by KUnit).
. "$SROCE_SRC/scripts/guest/tap.sh"

dir=$(dirname "$SROCE_KO")
set -- "$dir"/sroce_*_test.ko
if [ ! -f "$1" ]; then
	not_ok "KUnit suites built for $SROCE_TARGET (none in $dir)"
	tap_done
	exit
fi
modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel
check "sroce loads" insmod "$SROCE_KO"
dmesg -C
for m in "$@"; do
	check "$(basename "$m") loads" insmod "$m"
done

# Kernel log lines "    # Subtest: SUITE" open a suite; "    ok N CASE" and
# "    not ok N CASE" (exactly four spaces: deeper ones are parameters) are
# its cases; other "    # " lines at that depth are diagnostics.
dmesg | sed 's/^\[[^]]*\] //' | awk '
	/^    # Subtest: / { suite = $3; next }
	suite != "" && /^    (not )?ok [0-9]+ / {
		ok = ($1 == "ok")
		line = $0; sub(/^    (not )?ok [0-9]+ /, "", line)
		print (ok ? "ok" : "not ok") " - kunit " suite ": " line
		n++
		next
	}
	suite != "" && /^        # .*(FAILED|Expected|expected)/ { print "# " $0 }
	END { if (n == 0) print "not ok - kunit: no test case reported" }
' >/tmp/kunit.tap
while IFS= read -r l; do
	case $l in
	"not ok"*) not_ok "${l#not ok - }" ;;
	ok*) case $l in
		*"# SKIP"*) skip "${l##*# SKIP}" "${l#ok - }" ;;
		*) ok "${l#ok - }" ;;
		esac ;;
	*) echo "$l" ;;
	esac
done </tmp/kunit.tap
rmmod "$@" 2>/dev/null
check "sroce unloads after the suites" rmmod sroce
tap_done
