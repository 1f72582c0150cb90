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
dmesg -C
check_fails "sroce refuses icrc_impl=bogus" insmod "$SROCE_KO" icrc_impl=bogus
check "the refusal names icrc_impl" sh -c "dmesg | grep -q 'invalid for parameter.*icrc_impl'"
check "sroce loads" insmod "$SROCE_KO"
check "icrc_impl reads the CRC chosen" \
	grep -qxE 'kernel|table' /sys/module/sroce/parameters/icrc_impl
# One suite module at a time, its kernel log read before the next: a
# suite whose failures fill the log buffer would otherwise push out the
# suites before it, and their cases would go unreported.
: >/tmp/kunit.log
for m in "$@"; do
	dmesg -C
	check "$(basename "$m") loads" insmod "$m"
	dmesg | sed 's/^\[[^]]*\] //' >/tmp/kunit.one
	grep -q '^    # Subtest: ' /tmp/kunit.one ||
		not_ok "$(basename "$m") reports its suite (the start of its log is lost)"
	echo "#module $(basename "$m" .ko)" >>/tmp/kunit.log
	cat /tmp/kunit.one >>/tmp/kunit.log
done

# Kernel log lines "    # Subtest: SUITE" open a suite; "    ok N CASE" and
# "    not ok N CASE" (exactly four spaces: deeper ones are parameters) are
# its cases; other "    # " lines at that depth are diagnostics. Cases
# whose suite's start was lost are named after their module.
awk '
	/^#module / { suite = "(" $2 ")"; next }
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
' /tmp/kunit.log >/tmp/kunit.tap
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
