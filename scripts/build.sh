#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build sroce.ko for test targets into out/TARGET/. The sources are copied
# to a per-target build dir (so targets never share objects); deb13 and bpo
# build inside the trixie rootfs (gcc-14, their headers' /usr/src paths).
# Usage: scripts/build.sh [--w1|--sparse] TARGET...
#   --w1      build with W=1 (extra compiler warnings)
#   --sparse  W=1 plus sparse with endian checks (C=2); host targets only
# Any warning fails the build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

extra=
case ${1:-} in
--w1) extra="W=1"; shift ;;
--sparse) extra="W=1 C=2 CF=-D__CHECK_ENDIAN__"; shift ;;
esac

# forget DIR: drop the objects of a build that warned or failed. make
# would not compile an up-to-date object again, and the next build would
# pass without showing the warning.
forget() {
	find "$1" -name '*.o' -delete
}

build_one() {
	local t=$1 bdir rel
	sroce_target_env "$t"
	rel=build/$t
	if [ -n "$BUILDROOT" ]; then
		bdir="$BUILDROOT/$rel"
	else
		bdir="$SROCE_CACHE/$rel"
	fi
	mkdir -p "$bdir" "$SROCE_TOP/out/$t"
	# By content, stamping what changed with the time of the copy: make must
	# not trust an object newer than a source that another checkout built.
	rsync -rlpc --delete --exclude out --exclude .git \
		--include '*/' --include '*.[ch]' --include 'Kbuild' --include '*.sh' \
		--include Makefile --exclude '*' "$SROCE_TOP/" "$bdir/"
	# Modules of an earlier tree (a removed suite) must not be picked up.
	find "$bdir" -name '*.ko' -delete
	rm -f "$SROCE_TOP/out/$t"/*.ko
	log "$t: building against $KVER"
	if [ -n "$BUILDROOT" ]; then
		unshare -m sh -c "mount -t proc proc '$BUILDROOT/proc' &&
			chroot '$BUILDROOT' make -C '$KDIR' M=/$rel CC=$CCVAR HOSTCC=$CCVAR $extra modules" \
			>"$SROCE_TOP/out/$t/build.log" 2>&1 || { cat "$SROCE_TOP/out/$t/build.log" >&2; forget "$bdir"; die "$t: build failed"; }
	else
		# shellcheck disable=SC2086
		make -C "$KDIR" M="$bdir" $extra modules >"$SROCE_TOP/out/$t/build.log" 2>&1 ||
			{ cat "$SROCE_TOP/out/$t/build.log" >&2; forget "$bdir"; die "$t: build failed"; }
	fi
	find "$bdir" -name '*.ko' -exec cp {} "$SROCE_TOP/out/$t/" \;
	echo "$KVER" >"$SROCE_TOP/out/$t/kver"
	if [[ $extra == *C=2* ]] && ! grep -q '^  CHECK ' "$SROCE_TOP/out/$t/build.log"; then
		die "$t: sparse did not run"
	fi
	install_for_guests "$t"
	# Any compiler warning is a failure.
	if grep -E 'warning:|error:' "$SROCE_TOP/out/$t/build.log" >&2; then
		forget "$bdir"
		die "$t: the build warned"
	fi
}

# Put the module into the target's module tree on the host and index it
# there, so the guests' modprobe (and `rdma link add`'s autoload) find it;
# depmod natively takes seconds, under TCG most of a minute.
install_for_guests() {
	local t=$1 mroot
	if [ -n "$MODROOT" ]; then mroot=$MODROOT; else mroot=$ROOT; fi
	mkdir -p "$mroot/usr/lib/modules/$KVER/updates"
	cp "$SROCE_TOP/out/$t/sroce.ko" "$mroot/usr/lib/modules/$KVER/updates/"
	depmod -b "$mroot/usr" -a "$KVER" 2>&1 | grep -v 'could not open modules' >&2 || true
}

[ $# -gt 0 ] || die "usage: build.sh [--w1|--sparse] TARGET..."
for t in "$@"; do build_one "$t"; done
