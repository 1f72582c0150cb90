#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sroce's upstream form: the driver laid into Debian's linux-source-7.3 as
# drivers/infiniband/sw/sroce with its Kconfig and Makefile entries and
# its KUnit suites in tests/, the compat header resolved away for that
# kernel (scripts/tools/intree.py); built in-tree with CONFIG_RDMA_SROCE=m
# and =y (W=1, no warning), and written out as a git format-patch series
# (out/upstream/) that checkpatch --strict passes without a finding.
#   scripts/upstream.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sroce_target_env debug
[ -n "$BUILDROOT" ] || die "upstream: the debug target builds in the trixie root"
work=$BUILDROOT/build/upstream
tree=$work/linux
out=$SROCE_TOP/out/upstream
sw=drivers/infiniband/sw/sroce
# One run at a time: two would lay their files into the same tree.
mkdir -p "$work"
exec 8>"$work/.lock"
flock 8

# The pristine tree, once, committed so that a series can be cut from it.
pristine() {
	local tarball
	[ -f "$tree/.sroce-base" ] && return 0
	tarball=$(sroce_linux_source)
	log "upstream: extracting $(basename "$tarball")"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1
	git -C "$tree" init -q
	# (Debian's .gitignore ignores every top-level entry: -f.)
	git -C "$tree" add -A -f
	git -C "$tree" -c user.name=base -c user.email=base@localhost \
		commit -q -m "linux-source-7.3"
	git -C "$tree" tag -f sroce-base >/dev/null
	touch "$tree/.sroce-base"
}

commit() { # SUBJECT BODY: one patch of the series, signed off
	local name email
	name=$(git -C "$SROCE_TOP" config user.name || echo sroce)
	email=$(git -C "$SROCE_TOP" config user.email || echo sroce@localhost)
	git -C "$tree" add -A -f "$sw" MAINTAINERS drivers/infiniband/Kconfig \
		drivers/infiniband/sw/Makefile
	git -C "$tree" -c user.name="$name" -c user.email="$email" commit -q -s \
		-m "$1" -m "$2"
}

patch_driver() {
	local flags srcs
	flags=$(sh "$SROCE_TOP/scripts/compat-probe.sh" "$tree")
	mkdir -p "$tree/$sw"
	python3 "$SROCE_TOP/scripts/tools/intree.py" "$SROCE_TOP/include/compat/compat.h" \
		"$flags" "$tree/$sw" "$SROCE_TOP"/drivers/sroce/*.[ch]
	srcs=$(sed -n 's/^sroce-y := //p' "$SROCE_TOP/drivers/sroce/Kbuild")
	{
		echo '# SPDX-License-Identifier: GPL-2.0'
		echo 'obj-$(CONFIG_RDMA_SROCE) += sroce.o'
		echo
		printf 'sroce-y := %s\n' "$srcs" | fold -s -w 72 | sed '2,$s/^/\t/; $!s/ *$/ \\/'
		# Per-object flags, each with its comment.
		echo
		grep -B1 '^CFLAGS_' "$SROCE_TOP/drivers/sroce/Kbuild" | grep -v '^--$'
	} >"$tree/$sw/Makefile"
	cat >"$tree/$sw/Kconfig" <<'KCONFIG'
# SPDX-License-Identifier: GPL-2.0
config RDMA_SROCE
	tristate "Software RoCEv2 driver (sroce)"
	depends on INET && INFINIBAND && 64BIT
	depends on INFINIBAND_VIRT_DMA && INFINIBAND_USER_MEM
	depends on IPV6 || IPV6=n
	select NET_UDP_TUNNEL
	select PAGE_POOL
	select CRC32
	help
	  A RoCEv2 RDMA device on any Ethernet netdev, in software:
	  "rdma link add sroce0 type sroce netdev eth0". It serves the
	  user space rxe provider of rdma-core and kernel verbs consumers,
	  and talks to any RoCEv2 endpoint, rdma_rxe included.

	  To compile it as a module, choose M: the module is sroce.
KCONFIG
	sed -i 's|^source "drivers/infiniband/sw/rxe/Kconfig"$|&\nsource "drivers/infiniband/sw/sroce/Kconfig"|' \
		"$tree/drivers/infiniband/Kconfig"
	sed -i 's|^obj-$(CONFIG_RDMA_RXE)\t*+= rxe/$|&\nobj-$(CONFIG_RDMA_SROCE)\t\t+= sroce/|' \
		"$tree/drivers/infiniband/sw/Makefile"
	python3 - "$tree/MAINTAINERS" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
entry = ('SOFTWARE ROCEV2 DRIVER (sroce)\n'
         'L:\tlinux-rdma@vger.kernel.org\n'
         'S:\tMaintained\n'
         'F:\tdrivers/infiniband/sw/sroce/*\n\n')
at = s.index('SOFTLOGIC 6x10 MPEG CODEC\n')
open(p, 'w').write(s[:at] + entry + s[at:])
PY
	commit "RDMA/sroce: add a software RoCEv2 driver" \
"sroce turns any Ethernet netdev into a RoCEv2 RDMA port: RC, UC and UD
queue pairs, SRQs, memory registration and fast registration, multicast,
loss recovery with a congestion window, and the rdma_rxe user ABI, so
that rdma-core's rxe provider and kernel verbs consumers run unchanged.
Packets go through the IP stack's UDP tunnel socket on port 4791; every
received packet is checked (headers, ICRC, P_Key, Q_Key, path) before a
QP sees it, and each drop is counted by its reason."
	grep -rq 'compat.h\|SROCE_HAVE_' "$tree/$sw" && die "upstream: the compat header is still used"
	return 0
}

patch_kunit() {
	local t mods=()
	mkdir -p "$tree/$sw/tests"
	python3 "$SROCE_TOP/scripts/tools/intree.py" "$SROCE_TOP/include/compat/compat.h" \
		"$(sh "$SROCE_TOP/scripts/compat-probe.sh" "$tree")" "$tree/$sw/tests" \
		"$SROCE_TOP"/kunit/*.[ch]
	for t in "$tree/$sw"/tests/*.c; do mods+=("$(basename "$t" .c).o"); done
	{
		echo '# SPDX-License-Identifier: GPL-2.0'
		echo 'ccflags-y := -I$(src)/..'
		echo
		for t in "${mods[@]}"; do echo "obj-\$(CONFIG_RDMA_SROCE_KUNIT_TEST) += $t"; done
	} >"$tree/$sw/tests/Makefile"
	cat >>"$tree/$sw/Kconfig" <<'KCONFIG'

config RDMA_SROCE_KUNIT_TEST
	tristate "KUnit tests for sroce" if !KUNIT_ALL_TESTS
	depends on RDMA_SROCE && KUNIT
	default KUNIT_ALL_TESTS
	help
	  The KUnit suites of sroce: PSN arithmetic, header codecs, ICRC
	  vectors, the QP state table, memory region bounds, the engines'
	  decisions and the counters' agent. Each suite is a module of its
	  own; load sroce first.

	  For KUnit runs only: say N on a production kernel.
KCONFIG
	echo 'obj-$(CONFIG_RDMA_SROCE_KUNIT_TEST) += tests/' >>"$tree/$sw/Makefile"
	sed -i 's|^F:\tdrivers/infiniband/sw/sroce/\*$|&\nF:\tdrivers/infiniband/sw/sroce/tests/|' \
		"$tree/MAINTAINERS"
	commit "RDMA/sroce: add KUnit tests" \
"The pure logic of the driver, tested without a device: PSN arithmetic,
the header codecs, ICRC test vectors, the QP state table, MR bounds and
key checks, receive rings a hostile user wrote, the requester's and
responder's decisions, and the Performance Management Agent."
}

build() { # m|y: the driver's objects, W=1, with CONFIG_RDMA_SROCE=$1
	local v=$1 obj=/build/upstream/obj-$1 log=$work/build-$1.log
	mkdir -p "$work/obj-$v"
	cp "$BUILDROOT$KDIR/.config" "$work/obj-$v/.config"
	unshare -m sh -c "mount -t proc proc '$BUILDROOT/proc' && chroot '$BUILDROOT' sh -c '
		cd /build/upstream/linux &&
		scripts/config --file $obj/.config -e INFINIBAND_USER_ACCESS \
			$( [ "$v" = y ] && echo "-e INFINIBAND -e NET_UDP_TUNNEL" ) \
			--set-val RDMA_SROCE $v --set-val RDMA_SROCE_KUNIT_TEST $v &&
		make -s O=$obj CC=$CCVAR HOSTCC=$CCVAR olddefconfig &&
		grep -qx CONFIG_RDMA_SROCE=$v $obj/.config &&
		make -s -j2 O=$obj CC=$CCVAR HOSTCC=$CCVAR modules_prepare &&
		make -j2 O=$obj CC=$CCVAR HOSTCC=$CCVAR W=1 $sw/'" >"$log" 2>&1 ||
		{ tail -n 30 "$log"; die "upstream: the in-tree build (=$v) failed"; }
	if grep -E 'warning:|error:' "$log"; then
		die "upstream: the in-tree build (=$v) warned"
	fi
	log "upstream: built in-tree with CONFIG_RDMA_SROCE=$v"
}

pristine
git -C "$tree" checkout -q -f -B sroce sroce-base
git -C "$tree" clean -q -fd -e .sroce-base
patch_driver
patch_kunit
rm -rf "$out"
git -C "$tree" format-patch -q -o "$out" sroce-base..sroce
# Debian's python3 (its python3-ply) for checkpatch's spdxcheck.py.
findings=$(cd "$tree" && PATH=/usr/bin:/bin:$PATH perl scripts/checkpatch.pl --strict --terse --showfile "$out"/*.patch |
	grep -E 'ERROR|WARNING|CHECK' || true)
[ -z "$findings" ] || { printf '%s\n' "$findings"; die "upstream: checkpatch found the above"; }
log "upstream: $(ls "$out" | wc -l) patches in out/upstream, checkpatch --strict clean"
build m
build y
