#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command in QEMU guests of one target and topology (design.md §2).
#   scripts/vm.sh [--timeout S] [--keep DIR] TARGET TOPOLOGY COMMAND...
# TOPOLOGY: one (guest "a" with a virtio-net NIC on an empty hub), pair
# (guests "a" and "b", their eth0s wired by a QEMU stream socket) or
# incast (a router "r" with three NICs, eth0 to eth2, each wired by a
# stream socket to the eth0 of guest "a", "b" and "c" in that order;
# guests get 1 GiB each unless SROCE_VM_MEM says otherwise).
# COMMAND runs in every guest with SROCE_ROLE=a|b|r|c and SROCE_ROLES
# listing them all; /sroceio is a directory
# all guests and the host share (rendezvous). The guests' output is printed
# with a "[role]" prefix when there are several. Then each guest's kernel
# log is checked: a warning, BUG, Oops, KASAN, UBSAN, lockdep or kmemleak
# report fails the run. Exit: 0 only if every guest's command exited 0 and
# every kernel log is clean. TAP lines are printed for the kernel checks.
# SROCE_VM_IODIR_FILE=FILE: the shared directory's host path is written to
# FILE at the start (its out-ROLE.log files grow as the guests print).
# SROCE_VM_MONITOR=1: each guest's QEMU monitor listens on
# mon-ROLE.sock in that directory (scripts/tools/tcg_profile.py).
# SROCE_VM_BOOTS=N: how many times guests that failed before user space
# boot again from scratch, counting the first boot (3; incast's four
# guests 5).
# SROCE_VM_LINK=tap (pair only): wire the guests through two host taps on
# a bridge of their own instead of the stream socket. A tap carries the
# virtio-net header, so the guests get checksum offload and
# scatter-gather (the stream socket gives neither). Needs root, the
# tun device and bridges; the default stays the stream socket.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

timeout=900
keep=
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 3 ] || die "usage: vm.sh [--timeout S] [--keep DIR] TARGET one|pair|incast COMMAND..."
target=$1 topo=$2
shift 2
sroce_target_env "$target"
initrd=$("$SROCE_TOP/scripts/mkinitramfs.sh" "$target")

case $topo in
one) roles="a" ;;
pair) roles="a b" ;;
incast) roles="r a b c" ;;
*) die "unknown topology $topo (one, pair, incast)" ;;
esac

io=$(mktemp -d /tmp/sroce-vm.XXXXXX)
chmod 0777 "$io"
# Where the live logs are, for a caller that follows them (make bench).
[ -n "${SROCE_VM_IODIR_FILE:-}" ] && echo "$io" >"$SROCE_VM_IODIR_FILE"
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
	if [ -n "$keep" ]; then mkdir -p "$keep" && cp -r "$io"/. "$keep"/; fi
	rm -rf "$io"
	[ -z "${tapbr:-}" ] || ip link del "$tapbr" 2>/dev/null || true
	for p in ${taps:-}; do ip link del "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
link=${SROCE_VM_LINK:-stream}
case $link in
stream) ;;
tap)
	[ "$topo" = pair ] || die "SROCE_VM_LINK=tap is for topology pair"
	# Names of at most 15 bytes, unique per run (the pid).
	tapbr=sroce-br$$ taps="sroce-ta$$ sroce-tb$$"
	ip link add "$tapbr" type bridge || die "no bridge for SROCE_VM_LINK=tap"
	sysctl -qw "net.ipv6.conf.$tapbr.disable_ipv6=1" || true
	for p in $taps; do
		ip tuntap add dev "$p" mode tap vnet_hdr || die "no tap $p"
		sysctl -qw "net.ipv6.conf.$p.disable_ipv6=1" || true
		# The guests' jumbo frames (MTU 9000) must pass the bridge.
		ip link set "$p" mtu 9000 master "$tapbr" up
	done
	ip link set "$tapbr" up
	;;
*) die "SROCE_VM_LINK: stream or tap, not $link" ;;
esac
printf '%s\n' "$*" >"$io/cmd.sh"

accel=${SROCE_ACCEL:-tcg}
# Multi-threaded TCG lets one vCPU run code another has just patched
# (int3 Oops in text_poke under load, seen on 7.3): one thread runs all
# vCPUs, which keeps SMP semantics.
accel_opt=$accel
[ "$accel" = tcg ] && accel_opt=tcg,thread=single
mem=2048
[ "$topo" = incast ] && mem=1024
mem=${SROCE_VM_MEM:-$mem}
extra_append=${SROCE_VM_APPEND:-}

# guest_nics ROLE INDEX: the QEMU options of the guest's NICs, in the
# array nics. In incast the router listens on link-ROLE.sock for each of
# the others.
guest_nics() {
	local role=$1 i=$2 net peer k=0
	nics=()
	case $topo in
	one) net="hubport,id=n0,hubid=0" ;;
	pair)
		if [ "$link" = tap ]; then
			net="tap,id=n0,ifname=sroce-t$role$$,script=no,downscript=no,vnet_hdr=on"
		elif [ "$role" = a ]; then
			net="stream,id=n0,server=on,addr.type=unix,addr.path=$io/link.sock"
		else
			net="stream,id=n0,server=off,addr.type=unix,addr.path=$io/link.sock"
		fi
		;;
	incast)
		if [ "$role" = r ]; then
			for peer in a b c; do
				nics+=(-netdev "stream,id=n$k,server=on,addr.type=unix,addr.path=$io/link-$peer.sock"
					-device "virtio-net-pci,netdev=n$k,mac=52:54:00:5c:01:0$k")
				k=$((k + 1))
			done
			return
		fi
		net="stream,id=n0,server=off,addr.type=unix,addr.path=$io/link-$role.sock"
		;;
	esac
	nics=(-netdev "$net" -device "virtio-net-pci,netdev=n0,mac=52:54:00:5c:00:0$i")
}

start_guest() { # role index
	local role=$1 i=$2 append mon
	local -a args
	guest_nics "$role" "$i"
	# tsc=reliable: under TCG the kernel's early TSC calibration can be
	# off by a few tenths of a percent, and the clocksource watchdog then
	# switched the guest to the HPET (9 of 73 kept boot logs, 8 of them
	# deb12's), an exit to QEMU on every clock read: a fifth of a
	# profiled bench guest's samples were in read_hpet. The TSC follows
	# the host's clock under TCG, as an invariant TSC does on hardware.
	append="console=ttyS0 loglevel=5 panic=-1 oops=panic tsc=reliable"
	append="$append sroce_role=$role sroce_roles=${roles// /,} sroce_target=$target"
	[ -n "$MODROOT" ] && append="$append sroce_mods=1"
	append="$append ${APPEND:-} $extra_append"
	mon=none
	[ -n "${SROCE_VM_MONITOR:-}" ] && mon="unix:$io/mon-$role.sock,server=on,wait=off"
	# Named threads ("CPU 0/TCG"...): scripts/tools/host_cpu.py finds a
	# guest's vCPU thread by its name. No LA57: with 5-level paging, an
	# interrupt taken while identify_cpu() has cleared the boot CPU's
	# feature words sees pgtable_l5_enabled() false, and KASAN's range
	# check then reports direct-map addresses as wild (the debug
	# kernel's rare boot panic; testing.rst).
	args=(-name "sroce-$role,debug-threads=on"
		-accel "$accel_opt" -cpu max,la57=off -smp 2 -m "$mem" -display none -vga none
		-no-reboot -monitor "$mon"
		-kernel "$VMLINUZ" -initrd "$initrd" -append "$append"
		-serial "file:$io/console-$role.log" -serial "file:$io/out-$role.log"
		-virtfs "local,path=$ROOT,mount_tag=sroceroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$SROCE_TOP,mount_tag=srocesrc,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$io,mount_tag=sroceio,security_model=none,multidevs=remap"
		"${nics[@]}")
	[ -n "$MODROOT" ] && args+=(-virtfs "local,path=$MODROOT,mount_tag=srocemods,security_model=none,readonly=on,multidevs=remap")
	timeout -k 5 "$timeout" qemu-system-x86_64 "${args[@]}" >"$io/qemu-$role.log" 2>&1 &
	guests+=($!)
}

# bad_clock ROLE: the guest's kernel calibrated its APIC timer against
# a PM timer that had hardly moved: the host starved the vCPU while it
# measured. Seen once under a loaded host ("2ms instead of 100ms"): that
# guest's uptime read 440 s when its peer's read 124 s, and every timer
# test on it failed. A few percent off is normal under TCG.
bad_clock() {
	local ms
	ms=$(sed -n 's/.*APIC calibration not consistent with PM-Timer: \([0-9]*\)ms.*/\1/p' \
		"$io/console-$1.log" 2>/dev/null | head -n 1)
	[ -n "$ms" ] && { [ "$ms" -lt 90 ] || [ "$ms" -gt 110 ]; }
}

# failed_early ROLE / early_failure (any guest): a guest's kernel
# panicked or reported a KASAN error, or its clock is off (bad_clock),
# before its user space printed a line (nothing of ours had run). The
# debug kernel under TCG does, rarely, at its first instants: a KASAN
# report on an interrupt taken inside identify_cpu() ("tsc: Unable to
# calibrate against PIT" just before), after which it panics or hangs.
failed_early() {
	[ -s "$io/out-$1.log" ] && return 1
	grep -qE 'Kernel panic|BUG: KASAN' "$io/console-$1.log" 2>/dev/null || bad_clock "$1"
}

early_failure() {
	local role
	for role in $roles; do
		failed_early "$role" && return 0
	done
	return 1
}

# past_calibration ROLE: wait (20 s at most) until the guest's kernel
# logged at 1 s of uptime or later, past its timer calibration, or failed.
# Four guests starting at once on two cores starved one's calibration
# (bad_clock, or "IO-APIC + timer doesn't work") in 2 of the first 2 runs,
# and starting them 2 s apart in 3 of 5.
past_calibration() {
	for _ in $(seq 200); do
		grep -qE '^\[ *[1-9][0-9]*\.' "$io/console-$1.log" 2>/dev/null && return
		failed_early "$1" && return
		sleep 0.1
	done
}

# boot_all: start the guests and wait for them; a guest that fails while
# booting stops them all at once (it may hang rather than panic).
boot_all() {
	local i=1 role pid alive
	guests=()
	for role in $roles; do
		start_guest "$role" "$i"
		if [ "$topo" = pair ] && [ "$role" = a ]; then
			for _ in $(seq 100); do [ -S "$io/link.sock" ] && break; sleep 0.1; done
		fi
		if [ "$topo" = incast ] && [ "$role" = r ]; then
			for _ in $(seq 100); do [ -S "$io/link-c.sock" ] && break; sleep 0.1; done
		fi
		[ "$topo" = incast ] && past_calibration "$role"
		i=$((i + 1))
	done
	while :; do
		alive=0
		for pid in "${guests[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
		[ $alive = 1 ] || break
		if early_failure; then
			sleep 2	# the report's last lines
			kill "${guests[@]}" 2>/dev/null || true
			break
		fi
		sleep 1
	done
	wait || true
}

# A guest that failed early boots again, with its peers, from scratch, up
# to SROCE_VM_BOOTS boots in all (3): the debug kernel's report has come
# twice in a row on a loaded CI host. Each failed boot is said on the
# output and its console kept as console-ROLE.boot-N.log.
boots=3
[ "$topo" = incast ] && boots=5
boots=${SROCE_VM_BOOTS:-$boots}
boot=1
boot_all
while early_failure && [ "$boot" -lt "$boots" ]; do
	for role in $roles; do
		failed_early "$role" || continue
		echo "# $target/$role: boot $boot of $boots failed, before user space; booting again:"
		grep -m3 -E 'BUG:|Kernel panic|tsc:|APIC calibration' "$io/console-$role.log" | sed 's/^/#   /'
		cp "$io/console-$role.log" "$io/console-$role.boot-$boot.log"
	done
	find "$io" -mindepth 1 -maxdepth 1 ! -name cmd.sh ! -name '*.boot-*.log' \
		-exec rm -rf {} +
	boot=$((boot + 1))
	boot_all
done
early_failure && echo "# $target: every one of $boots boots failed before user space"

# Patterns that fail a run whatever the test said.
# (lockdep's reports by their own words: a debug kernel's boot says "RCU
# lockdep checking is enabled", which is no report.)
bad='WARNING:|BUG:|Oops|KASAN:|UBSAN:|general protection|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|still has locks held|lock held when returning|bad unlock balance|DEBUG_LOCKS_WARN_ON|unreferenced object|INFO: task .* blocked|stack-protector|refcount_t:'
rc=0
for role in $roles; do
	pre=
	[ "$topo" = one ] || pre="[$role] "
	sed "s/^/$pre/" "$io/out-$role.log" 2>/dev/null || true
	code=$(cat "$io/exit-$role" 2>/dev/null || echo none)
	if [ "$code" = none ]; then
		echo "not ok - $target/$role: guest did not finish (timeout ${timeout}s or crash)"
		echo "# console tail:"; tail -n 40 "$io/console-$role.log" | sed 's/^/#   /'
		tail -n 5 "$io/qemu-$role.log" | sed 's/^/#   qemu: /'
		rc=1
		continue
	fi
	[ "$code" = 0 ] || rc=1
	log=$io/dmesg-$role
	[ -f "$log" ] || log=$io/console-$role.log
	# The kernel log only: the console also carries user space's stderr.
	# A user-space program's fault ("traps: NAME[PID] general protection
	# fault ip:...") is no kernel report: its test sees it as an exit status.
	hits=$(grep -E "$bad" "$log" 2>/dev/null |
		grep -vE 'traps: .*\[[0-9]+\] general protection fault ip:' || true)
	if [ -s "$io/kmemleak-$role" ]; then
		hits="$hits
kmemleak: $(head -n 20 "$io/kmemleak-$role")"
	fi
	if [ -n "$(echo "$hits" | tr -d '[:space:]')" ]; then
		echo "not ok - $target/$role: kernel log clean"
		echo "$hits" | head -n 60 | sed 's/^/#   /'
		grep -B5 -A40 -m1 -E "$bad" "$log" | sed 's/^/#   /' | head -n 80
		rc=1
	else
		echo "ok - $target/$role: kernel log clean"
	fi
done
exit $rc
