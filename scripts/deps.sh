#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages the build and the test rig need, when missing.
# The host is Debian 12; its own apt sources are used.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	qemu-system-x86 busybox-static debootstrap cpio xz-utils zstd rsync kmod
	iproute2 util-linux
	gcc make bc flex bison libelf-dev dwarves sparse
	linux-headers-amd64
	rdma-core ibverbs-utils ibverbs-providers perftest rdmacm-utils
	python3-pyverbs
	# The deb12 guests run on this root: link.sh reads and sets offloads.
	ethtool
	debian-archive-keyring
	# checkpatch's SPDX check of the upstream series (scripts/upstream.sh).
	python3-ply python3-git
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
log "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
