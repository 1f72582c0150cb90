# SPDX-License-Identifier: GPL-2.0
# The passes of scripts/guest/bench.sh and of its sections (sourced there):
# bench_passes BODY runs BODY DRIVER MTU PLACE REP for each repetition,
# driver (their order reversed every other repetition, so that a drift of
# the host's speed touches both alike), netdev MTU (pass_mtus, or the
# bench's) and placement (pass_places, or BENCH_PLACES, or irq alone: a
# section's points are many, one placement keeps it short), the device
# up around it. In a profile each guest's /proc/kallsyms is saved per
# driver.
bench_passes() {
	local body=$1 rep=1 drv mtu where order
	while [ $rep -le "$reps" ]; do
		order="sroce rxe"
		[ $((rep % 2)) = 0 ] && order="rxe sroce"
		for drv in $order; do
			check "$body, rep $rep: $drv device up" up $drv
			g=$(gid)
			# Text symbols only: what a RIP can be in.
			[ "$mode" = profile ] && awk '$2 ~ /^[tT]$/' /proc/kallsyms \
				>"$SROCE_IO/kallsyms-$SROCE_ROLE-$drv"
			for mtu in ${pass_mtus:-$mtus}; do
				set_mtu "$mtu"
				[ "$topo" = pair ] && barrier "$body$rep$drv$mtu" 120 &&
					busybox ping -c 1 -W 2 192.0.2.1 >/dev/null 2>&1
				for where in ${pass_places:-${BENCH_PLACES:-irq}}; do
					check "$body, rep $rep: $drv, MTU $mtu: placement $where" \
						steer "$where"
					pins "$where"
					"$body" "$drv" "$mtu" "$where" "$rep"
				done
			done
			[ "$topo" = pair ] && barrier "${body}down$rep$drv" 600
			check "$body, rep $rep: $drv device down" down $drv
		done
		rep=$((rep + 1))
	done
}
