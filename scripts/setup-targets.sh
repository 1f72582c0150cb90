#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch and unpack what each target needs under $SROCE_CACHE:
#   deb12: the bookworm kernel image and modules (the host's root is the guest
#          root; its headers come from the host's linux-headers-amd64).
#   deb13, bpo: kernel image, modules and headers unpacked into one trixie
#          rootfs made by debootstrap; builds for them run in it by chroot.
# Idempotent: each step leaves a stamp and is skipped when done.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROOTFS="$SROCE_CACHE/rootfs/trixie"
ROOTFS_PKGS="perl,kmod,iproute2,rdma-core,ibverbs-utils,ibverbs-providers,perftest,rdmacm-utils,python3-pyverbs,nvme-cli,fio,busybox,procps,gcc-14,make,libc6-dev,libelf-dev,bc,bison,flex,xz-utils,dwarves,cpio,e2fsprogs,nfs-kernel-server,open-iscsi,ethtool"
ROOTFS_STAMP_VER=1

# Packages added to the list after a rootfs was made are installed into it.
rootfs_top_up() {
	local missing=() p
	for p in ${ROOTFS_PKGS//,/ }; do
		chroot "$ROOTFS" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing into the rootfs: ${missing[*]}"
	unshare -m sh -c "mount -t proc proc '$ROOTFS/proc' &&
		chroot '$ROOTFS' apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive chroot '$ROOTFS' apt-get install -y -qq --no-install-recommends ${missing[*]}" \
		>>"$SROCE_CACHE/debootstrap.log" 2>&1 || die "rootfs: installing ${missing[*]} failed"
}

setup_rootfs() {
	local stamp="$ROOTFS/.sroce-rootfs-$ROOTFS_STAMP_VER"
	if [ -f "$stamp" ]; then
		rootfs_top_up
		return 0
	fi
	local mirror
	mirror=$(sroce_mirror) || die "cannot read the Debian mirror from the host's apt sources"
	log "debootstrap trixie rootfs into $ROOTFS (1-2 minutes)"
	rm -rf "$ROOTFS"
	mkdir -p "$ROOTFS"
	debootstrap --variant=minbase --include="$ROOTFS_PKGS" trixie "$ROOTFS" "$mirror" \
		>"$SROCE_CACHE/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$SROCE_CACHE/debootstrap.log" >&2; die "debootstrap failed"; }
	# pyverbs' tests ship gzipped in the package; the guests read them as is.
	find "$ROOTFS/usr/share/doc/rdma-core/tests" -name '*.py.gz' -exec gunzip -f {} + 2>/dev/null || true
	echo sroce-guest >"$ROOTFS/etc/hostname"
	touch "$stamp"
}

# Download packages with the private apt state into a dir, unpack into root.
fetch_unpack() { # root pkg...
	local root=$1 dl="$SROCE_APT_DIR/debs" p
	shift
	mkdir -p "$dl"
	(cd "$dl" && sroce_apt_get download "$@" >/dev/null) || die "apt-get download $* failed"
	for p in "$@"; do
		dpkg -x "$(ls -t "$dl/${p}"_*.deb | head -n 1)" "$root"
	done
}

# Kernel of a trixie suite into the rootfs: image, modules, headers.
setup_trixie_kernel() { # target suite
	local t=$1 suite=$2 d="$SROCE_CACHE/targets/$1" img ver kver pkgs hdr
	[ -f "$d/env" ] && return 0
	sroce_apt_private_init
	ver=$(sroce_apt_cache show "linux-image-amd64/$suite" 2>/dev/null |
		awk '/^Version:/ { print $2 }' | sort -V | tail -n 1)
	[ -n "$ver" ] || die "no linux-image-amd64 in $suite"
	img=$(sroce_pkg_deps sroce_apt_cache "linux-image-amd64=$ver" '^linux-image-')
	kver=${img#linux-image-}
	hdr="linux-headers-$kver"
	# The image may be a metapackage whose files live in linux-binary-* and
	# linux-modules-*; follow its and the headers' dependencies.
	pkgs="$img $(sroce_pkg_deps sroce_apt_cache "$img" '^linux-(binary|modules)-') $hdr $(sroce_pkg_deps sroce_apt_cache "$hdr" '^linux-(headers|kbuild)-')"
	log "$t: kernel $kver from $suite: $pkgs"
	# shellcheck disable=SC2086
	fetch_unpack "$ROOTFS" $pkgs
	chroot "$ROOTFS" depmod -a "$kver" 2>&1 | grep -v "could not open modules" >&2 || true
	mkdir -p "$d"
	local vmlinuz
	for vmlinuz in "$ROOTFS/boot/vmlinuz-$kver" "$ROOTFS/usr/lib/modules/$kver/vmlinuz"; do
		[ -f "$vmlinuz" ] && break
	done
	[ -f "$vmlinuz" ] || die "$t: no vmlinuz in the kernel packages"
	cat >"$d/env" <<-EOF
	KVER=$kver
	ROOT=$ROOTFS
	MODROOT=
	VMLINUZ=$vmlinuz
	BUILDROOT=$ROOTFS
	KDIR=/usr/src/linux-headers-$kver
	CCVAR=gcc-14
	EOF
}

# deb12: the host's own kernel packages from the host's apt.
setup_deb12() {
	local d="$SROCE_CACHE/targets/deb12" img kver tree="$SROCE_CACHE/kernels/deb12"
	[ -f "$d/env" ] && return 0
	img=$(sroce_pkg_deps apt-cache linux-headers-amd64 '^linux-headers-')
	kver=${img#linux-headers-}
	[ -d "/usr/src/linux-headers-$kver" ] || die "deb12: linux-headers-$kver not installed (scripts/deps.sh)"
	log "deb12: kernel $kver"
	rm -rf "$tree"
	mkdir -p "$tree/dl" "$tree/root"
	(cd "$tree/dl" && apt-get download "linux-image-$kver" >/dev/null) || die "apt-get download linux-image-$kver failed"
	dpkg -x "$tree"/dl/linux-image-"$kver"_*.deb "$tree/x"
	# Bookworm ships modules under /lib; the guest root has /lib -> usr/lib,
	# so this overlay layer must hold them under usr/lib.
	mkdir -p "$tree/root/usr/lib/modules"
	mv "$tree/x/lib/modules/$kver" "$tree/root/usr/lib/modules/"
	depmod -b "$tree/root/usr" -a "$kver"
	mkdir -p "$d"
	cp "$tree/x/boot/vmlinuz-$kver" "$tree/vmlinuz"
	rm -rf "$tree/x" "$tree/dl"
	cat >"$d/env" <<-EOF
	KVER=$kver
	ROOT=/
	MODROOT=$tree/root
	VMLINUZ=$tree/vmlinuz
	BUILDROOT=
	KDIR=/usr/src/linux-headers-$kver
	CCVAR=gcc
	EOF
}

main() {
	local targets=${*:-$SROCE_TARGETS_ALL} t
	sroce_lock
	for t in $targets; do
		case $t in
		deb12) setup_deb12 ;;
		deb13) setup_rootfs; setup_trixie_kernel deb13 trixie ;;
		bpo) setup_rootfs; setup_trixie_kernel bpo trixie-backports ;;
		debug) setup_rootfs; "$SROCE_TOP/scripts/build-debug-kernel.sh" ;;
		*) die "unknown target '$t' (deb12 deb13 bpo debug)" ;;
		esac
	done
}

main "$@"
