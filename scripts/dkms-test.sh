#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS as an administrator uses it, printing TAP: `make dist`, then in a
# throw-away overlay of the trixie root (nothing it installs stays) the
# distribution's dkms package, and for each trixie kernel whose headers
# the root holds: dkms add (from the source tree, then from the tarball),
# build, install (the module where modprobe finds it, its `rdma link add`
# alias indexed), remove (nothing left). With --host, the same for the
# host's own (Debian 12) kernel headers, on the host.
#   scripts/dkms-test.sh [--host]
set -uo pipefail
. "$(dirname "$0")/lib.sh"

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@" >/tmp/dkms-check.log 2>&1; then ok "$d"; else
	not_ok "$d"; sed 's/^/# /' /tmp/dkms-check.log | tail -n 20; fi; }

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$SROCE_TOP/dkms.conf")
tarball=$SROCE_TOP/out/sroce-$version.tar.gz
check "make dist writes out/sroce-$version.tar.gz" make -C "$SROCE_TOP" -s dist
check "the tarball holds dkms.conf and the driver" sh -c \
	"tar -tzf '$tarball' | grep -qx 'sroce-$version/dkms.conf' &&
	 tar -tzf '$tarball' | grep -qx 'sroce-$version/drivers/sroce/main.c'"

# The steps for one kernel, run where dkms is installed. $1: how to run a
# command there (a chroot, or nothing on the host).
cycle() {
	local kver=$1 from=$2 src=/usr/src/sroce-$version
	cat <<STEPS
set -e
# What a failed run before may have left.
dkms remove sroce/$version --all >/dev/null 2>&1 || true
rm -rf $src
# (Only this overlay's copy: the module the guests load is not DKMS's.)
rm -f /lib/modules/$kver/updates/sroce.ko
$from
dkms add sroce/$version
dkms build sroce/$version -k $kver
dkms install sroce/$version -k $kver
ls /lib/modules/$kver/updates/dkms/sroce.ko*
modinfo -k $kver -F alias sroce | grep -qx rdma-link-sroce
grep -q '^[^:]*updates/dkms/sroce.ko' /lib/modules/$kver/modules.dep
dkms remove sroce/$version --all
if ls /lib/modules/$kver/updates/dkms/sroce.ko* 2>/dev/null; then exit 1; fi
if grep sroce /lib/modules/$kver/modules.dep; then exit 1; fi
if [ -e /var/lib/dkms/sroce ]; then exit 1; fi
rm -rf $src
STEPS
}

if [ "${1:-}" = --host ]; then
	# Every kernel whose Debian headers the host has (not uname -r: the
	# host may run another kernel than it builds for).
	dpkg-query -W -f='${Status}\n' dkms 2>/dev/null | grep -q '^install ok installed' ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dkms >&2
	for h in /usr/src/linux-headers-*-amd64; do
		kver=${h##*/linux-headers-}
		[ -e "/lib/modules/$kver/build" ] || continue
		check "dkms: add, build, install, remove for $kver (host, from the tarball)" \
			sh -c "$(cycle "$kver" "tar -xzf '$tarball' -C /usr/src")"
	done
	echo "1..$n"
	exit $((failed > 0))
fi

sroce_target_env bpo
root=$BUILDROOT
[ -n "$root" ] || die "dkms-test: the trixie root is not set up"
ov=$(mktemp -d /tmp/sroce-dkms.XXXXXX)
apt_cache=$SROCE_CACHE/apt-dkms
mkdir -p "$ov/upper" "$ov/work" "$ov/merged" "$apt_cache/archives/partial"
cp -r "$SROCE_TOP" "$ov/src"
# The root's apt, pointed at the mirror the host's apt uses (with the
# host's apt settings): written into the overlay only.
mirror=$(sroce_mirror) || die "dkms-test: cannot read the host's Debian mirror"
mkdir -p "$ov/etc"
echo "deb $mirror trixie main" >"$ov/etc/sources.list"
cp "$tarball" "$ov/sroce.tar.gz"
# in_root SCRIPT: run SCRIPT in the overlay, as root of its own mounts.
in_root() {
	printf '%s\n' "$1" >"$ov/step.sh"
	unshare -m sh -c "
		mount -t overlay overlay -o lowerdir='$root',upperdir='$ov/upper',workdir='$ov/work' '$ov/merged' &&
		mount -t proc proc '$ov/merged/proc' &&
		mount --bind '$apt_cache/archives' '$ov/merged/var/cache/apt/archives' &&
		mount --bind '$ov/src' '$ov/merged/mnt' &&
		cp '$ov/sroce.tar.gz' '$ov/step.sh' '$ov/merged/tmp/' &&
		cp '$ov/etc/sources.list' '$ov/merged/etc/apt/sources.list' &&
		cp /etc/apt/apt.conf.d/* '$ov/merged/etc/apt/apt.conf.d/' &&
		cp /etc/resolv.conf '$ov/merged/etc/resolv.conf' &&
		chroot '$ov/merged' sh /tmp/step.sh"
}
check "the distribution's dkms package installs in the trixie root" \
	in_root "apt-get -qq update && DEBIAN_FRONTEND=noninteractive apt-get -qq -y --no-install-recommends install dkms >/dev/null"
for h in "$root"/usr/src/linux-headers-*-amd64; do
	kver=${h##*/linux-headers-}
	check "dkms: add, build, install, remove for $kver (the source tree)" \
		in_root "$(cycle "$kver" "cp -r /mnt /usr/src/sroce-$version && rm -rf /usr/src/sroce-$version/.git /usr/src/sroce-$version/out")"
	check "dkms: add, build, install, remove for $kver (the tarball)" \
		in_root "$(cycle "$kver" "tar -xzf /tmp/sroce.tar.gz -C /usr/src")"
done
rm -rf "$ov"
echo "1..$n"
exit $((failed > 0))
