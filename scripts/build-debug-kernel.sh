#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The "debug" test target: Debian's linux-source-7.3 built with the options
# of scripts/debug.config (KASAN, lockdep, kmemleak, UBSAN, KUnit, ...).
# Everything happens in the trixie rootfs, by chroot and with its gcc-14:
#   /build/linux-debug      the kernel tree, kept built: KDIR of the target
#   /usr/lib/modules/KVER   its modules, with modules.dep
# The image goes to $SROCE_CACHE/kernels/debug/vmlinuz and the target's env
# to $SROCE_CACHE/targets/debug/env. Idempotent: the build is redone only
# when the source package's version or scripts/debug.config changes.
# Called by `scripts/setup-targets.sh debug` once the rootfs exists.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SRCPKG=linux-source-7.3
LOCALVER=-sroce-debug
ROOTFS=$SROCE_CACHE/rootfs/trixie
TREE_IN=/build/linux-debug		# the tree as the chroot sees it
TREE=$ROOTFS$TREE_IN
FRAG=$SROCE_TOP/scripts/debug.config
SRCDIR=$SROCE_CACHE/src
TARBALL=$SRCDIR/$SRCPKG.tar.xz
KOUT=$SROCE_CACHE/kernels/debug
TDIR=$SROCE_CACHE/targets/debug
LOG=$KOUT/build.log
CCVAR=gcc-14
# Make variables of the kernel's build, part of the cache key. UBSAN only
# where it judges our code: sroce and the KUnit modules, built out of
# tree, keep debug.config's UBSAN; the kernel's own objects go without.
KFLAGS="UBSAN_SANITIZE=n"
# Kernel parameters of the guests (vm.sh adds them). pci=noacpi: PCI
# interrupts routed by the BIOS's $PIR table; the ACPI interrupt links cost
# 20-25 s per virtio device under KASAN+lockdep+TCG (to /init in 92 s, 6-14 s
# with it).
APPEND="panic_on_warn=1 pci=noacpi"

# Run a command in the rootfs, /proc mounted in a private mount namespace.
in_root() {
	unshare -m sh -c 'mount -t proc proc "$1/proc" && exec chroot "$@"' sh \
		"$ROOTFS" env PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"
}

# make in the kernel tree, inside the rootfs, output to the log.
kmake() {
	in_root make -C "$TREE_IN" CC=$CCVAR HOSTCC=$CCVAR "$@" >>"$LOG" 2>&1 ||
		{ tail -n 30 "$LOG" >&2; die "debug: make $* failed (log: $LOG)"; }
}

# A fresh tree of the given version, unless it is already there.
unpack() { # version
	[ "$(cat "$TREE/.sroce-src" 2>/dev/null)" = "$1" ] && return 0
	log "debug: unpacking $SRCPKG $1"
	rm -rf "$TREE"
	mkdir -p "$TREE"
	tar -xJf "$TARBALL" -C "$TREE" --strip-components=1
	echo "$1" >"$TREE/.sroce-src"
}

# allnoconfig + the fragment + defaults for the rest; then check that every
# value the fragment asks for is in the result (merge_config.sh only warns).
configure() {
	local line sym want got bad=0
	log "debug: configuring"
	cp "$FRAG" "$TREE/sroce-debug.config"
	kmake allnoconfig
	in_root sh -c "cd $TREE_IN && scripts/kconfig/merge_config.sh -m .config sroce-debug.config" \
		>>"$LOG" 2>&1 || die "debug: merge_config.sh failed (log: $LOG)"
	kmake olddefconfig
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) sym=${line%%=*} want=$line ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want= ;;
		*) continue ;;
		esac
		got=$(grep -E "^$sym=" "$TREE/.config" || true)
		if [ "$got" != "$want" ]; then
			echo "sroce: debug.config asks for '${want:-$sym off}', got '${got:-$sym off}'" >&2
			bad=1
		fi
	done <"$FRAG"
	[ $bad = 0 ] || die "debug: scripts/debug.config has values Kconfig did not take (dependencies?)"
}

write_env() { # kernel release
	cat >"$TDIR/env.tmp" <<-EOF
	KVER=$1
	ROOT=$ROOTFS
	MODROOT=
	VMLINUZ=$KOUT/vmlinuz
	BUILDROOT=$ROOTFS
	KDIR=$TREE_IN
	CCVAR=$CCVAR
	APPEND="$APPEND"
	EOF
	mv "$TDIR/env.tmp" "$TDIR/env"
}

build() { # version
	local kver t0
	t0=$(date +%s)
	rm -f "$TDIR/env" "$TDIR/key"
	mkdir -p "$KOUT" "$TDIR"
	: >"$LOG"
	unpack "$1"
	configure
	log "debug: building (15-30 minutes on 2 cores; log: $LOG)"
	# shellcheck disable=SC2086
	kmake -j"$(nproc)" LOCALVERSION= $KFLAGS all
	kver=$(cat "$TREE/include/config/kernel.release")
	case $kver in
	*"$LOCALVER") ;;
	*) die "debug: unexpected kernel release '$kver'" ;;
	esac
	log "debug: installing modules of $kver into the rootfs"
	rm -rf "$ROOTFS/usr/lib/modules/$kver"
	kmake LOCALVERSION= modules_install
	[ -f "$ROOTFS/usr/lib/modules/$kver/modules.dep" ] || die "debug: no modules.dep after modules_install"
	cp "$TREE/arch/x86/boot/bzImage" "$KOUT/vmlinuz.tmp"
	mv "$KOUT/vmlinuz.tmp" "$KOUT/vmlinuz"
	# The initramfs is cached by kernel release, which a rebuild keeps.
	rm -f "$SROCE_CACHE/initramfs/$kver.cpio.gz" "$SROCE_CACHE/initramfs/$kver.cpio.gz.sum"
	log "debug: kernel $kver built in $(($(date +%s) - t0)) s (now rebuild sroce: scripts/build.sh debug)"
}

# Built for this key: the image, the tree's symbols, the installed modules.
built() { # key
	local kver
	[ "$(cat "$TDIR/key" 2>/dev/null)" = "$1" ] || return 1
	kver=$(cat "$TREE/include/config/kernel.release" 2>/dev/null) || return 1
	[ -f "$KOUT/vmlinuz" ] && [ -f "$TREE/Module.symvers" ] &&
		[ -f "$ROOTFS/usr/lib/modules/$kver/modules.dep" ]
}

main() {
	local ver key
	# setup-targets.sh holds the cache lock and hands it down as fd 9.
	[ "$(readlink "/proc/$$/fd/9" 2>/dev/null)" = "$SROCE_CACHE/.lock" ] || sroce_lock
	[ -f "$ROOTFS/.sroce-rootfs-1" ] || die "no trixie rootfs: run scripts/setup-targets.sh debug"
	sroce_linux_source >/dev/null
	ver=$(cat "$TARBALL.version")
	key="$ver $(md5sum <"$FRAG" | cut -d' ' -f1) $KFLAGS"
	if ! built "$key"; then
		build "$ver"
		echo "$key" >"$TDIR/key"
	fi
	# Always rewritten: APPEND may change without a rebuild.
	write_env "$(cat "$TREE/include/config/kernel.release")"
}

main "$@"
