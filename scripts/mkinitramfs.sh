#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A tiny busybox initramfs for one target: it loads that kernel's virtio,
# 9p and overlay modules, mounts the target's root read-only over 9p with a
# tmpfs overlay, and hands over to scripts/guest/init.sh. Cached by kernel.
# Usage: scripts/mkinitramfs.sh TARGET  (prints the image's path)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t=${1:?usage: mkinitramfs.sh TARGET}
sroce_target_env "$t"
out="$SROCE_CACHE/initramfs/$KVER.cpio.gz"
self_sum=$(cat "$0" | md5sum | cut -c1-8)
if [ -f "$out" ] && [ "$(cat "$out.sum" 2>/dev/null)" = "$self_sum" ]; then
	echo "$out"
	exit 0
fi

if [ -n "$MODROOT" ]; then
	mdir="$MODROOT/usr/lib/modules/$KVER"
else
	mdir="$ROOT/usr/lib/modules/$KVER"
fi
[ -f "$mdir/modules.dep" ] || die "$t: no modules.dep in $mdir"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,lib/mod,proc,sys,dev,ro,mods,rw,newroot}
cp /bin/busybox "$work/bin/busybox"

declare -A seen=()
order=()
add_path() { # a path relative to the modules dir, after its dependencies
	local p=$1 line d
	[ -n "${seen[$p]:-}" ] && return 0
	seen[$p]=1
	line=$(grep -m1 "^$p:" "$mdir/modules.dep" || true)
	for d in ${line#*:}; do add_path "$d"; done
	order+=("$p")
}
for m in virtio_pci 9pnet_virtio 9p overlay; do
	p=$(grep -m1 -E "(^|/)$m\.ko(\.[a-z]+)?:" "$mdir/modules.dep" | cut -d: -f1 || true)
	# Not in modules.dep: built into this kernel.
	[ -n "$p" ] && add_path "$p"
done
: >"$work/modules.list"
for p in "${order[@]}"; do
	name=$(basename "$p"); name=${name%%.ko*}.ko
	case $p in
	*.xz) xz -dc "$mdir/$p" >"$work/lib/mod/$name" ;;
	*.zst) zstd -qdc "$mdir/$p" >"$work/lib/mod/$name" ;;
	*.gz) gzip -dc "$mdir/$p" >"$work/lib/mod/$name" ;;
	*) cp "$mdir/$p" "$work/lib/mod/$name" ;;
	esac
	echo "$name" >>"$work/modules.list"
done

cat >"$work/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.list); do
	insmod "/lib/mod/$m" || echo "initramfs: insmod $m failed"
done
opts=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$opts,ro,cache=loose" sroceroot /ro || exec sh
lower=/ro
if grep -q 'sroce_mods=1' /proc/cmdline; then
	mount -t 9p -o "$opts,ro,cache=loose" srocemods /mods
	lower=/mods:/ro
fi
mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o "lowerdir=$lower,upperdir=/rw/upper,workdir=/rw/work" /newroot || exec sh
mkdir -p /newroot/sroce /newroot/sroceio
mount -t 9p -o "$opts,ro,cache=loose" srocesrc /newroot/sroce
mount -t 9p -o "$opts" sroceio /newroot/sroceio
umount /proc /sys
umount /dev
exec switch_root /newroot /bin/sh /sroce/scripts/guest/init.sh
EOF
chmod +x "$work/init"
mkdir -p "$(dirname "$out")"
(cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$self_sum" >"$out.sum"
echo "$out"
