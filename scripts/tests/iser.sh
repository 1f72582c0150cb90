#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): iSCSI over RDMA (iSER) between two guests.
# Guest a is the LIO target, set up through configfs directly (a fileio
# LUN behind an iSER portal on 192.0.2.1:3260, demo mode, no CHAP); guest
# b the open-iscsi initiator, on an iface with transport iser. Each round
# logs in, checks the session really is iSER, runs fio randrw with crc32c
# verify, writes a file's worth of blocks, drops the caches and compares
# them, and logs out. Rounds: sroce on both; then, except on the debug
# kernel (for time), sroce's target against an rdma_rxe initiator and
# rdma_rxe's target against a sroce initiator.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/driver.sh"

case $SROCE_ROLE in
a) me=1 ;;
*) me=2 ;;
esac
iqn=iqn.2026-11.org.sroce:iser
cfg=/sys/kernel/config/target
tpg=$cfg/iscsi/$iqn/tpgt_1
vsize=32M
[ "$SROCE_TARGET" = debug ] && vsize=16M
need() { command -v "$1" >/dev/null 2>&1; }
ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
have=1
if [ "$SROCE_ROLE" = a ]; then
	modprobe -q target_core_file && modprobe -q iscsi_target_mod &&
		modprobe -q ib_isert || have=
else
	need iscsiadm && need iscsid && need fio && modprobe -q ib_iser &&
		modprobe -q sd_mod || have=
fi
publish have "$have"
barrier have
if [ "$(lookup a have)" != 1 ] || [ "$(lookup b have)" != 1 ]; then
	skip "no LIO iSER target, open-iscsi or iSER initiator on this target" \
		"iSER across two guests"
	tap_done
	exit
fi

# target_up: a 96 MiB fileio backstore as LUN 0 of an iSER portal, any
# initiator admitted read-write without authentication.
target_up() {
	local d=$cfg/core/fileio_0/disk0
	[ -d $cfg ] || mount -t configfs none /sys/kernel/config || return 1
	mkdir -p $d && truncate -s 96M /tmp/iser-disk0.img &&
		echo "fd_dev_name=/tmp/iser-disk0.img,fd_dev_size=100663296" >$d/control &&
		echo 1 >$d/enable &&
		mkdir -p "$tpg/lun/lun_0" && ln -s $d "$tpg/lun/lun_0/disk0" &&
		mkdir "$tpg/np/192.0.2.1:3260" &&
		echo 1 >"$tpg/np/192.0.2.1:3260/iser" &&
		echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
		echo 1 >"$tpg/attrib/cache_dynamic_acls" &&
		echo 1 >"$tpg/enable"
}

# initiator_up: iscsid. (open-iscsi has an iface named iser built in,
# bound to the iser transport.)
initiator_up() {
	mkdir -p /etc/iscsi /var/lib/iscsi /run/lock/iscsi &&
		echo "InitiatorName=iqn.2026-11.org.sroce:initiator" >/etc/iscsi/initiatorname.iscsi &&
		iscsid &&
		iscsiadm -m iface -I iser | grep -q 'iface.transport_name = iser'
}

# find_disk: the session's SCSI disk, as $disk.
find_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] || continue
		disk=/dev/$(basename "$b")
		[ -b "$disk" ] && return 0
	done
	return 1
}

login() {
	iscsiadm -m node -o new -T $iqn -p 192.0.2.1:3260 -I iser >/dev/null &&
		timeout 120 iscsiadm -m node -T $iqn -p 192.0.2.1:3260 -I iser --login >/tmp/login.log 2>&1 &&
		wait_for 30 find_disk
}

logout() {
	timeout 60 iscsiadm -m node -T $iqn -p 192.0.2.1:3260 -I iser --logout >/dev/null &&
		iscsiadm -m node -o delete -T $iqn -p 192.0.2.1:3260 -I iser >/dev/null
}

# compare: 8 MiB of random data written to the disk at an odd offset,
# the caches dropped, read back and compared.
compare() {
	head -c 8M /dev/urandom >/tmp/iser-src &&
		dd if=/tmp/iser-src of="$disk" bs=64k seek=17 oflag=direct 2>/dev/null &&
		sync && echo 3 >/proc/sys/vm/drop_caches &&
		dd if="$disk" of=/tmp/iser-back bs=64k skip=17 count=128 iflag=direct 2>/dev/null &&
		cmp /tmp/iser-src /tmp/iser-back
}

# round NAME DRIVER-A DRIVER-B
round() {
	local name=$1 drv
	[ "$SROCE_ROLE" = a ] && drv=$2 || drv=$3
	driver_up "$name" $drv
	# The iSER portal listens on the address through rdma_cm: it needs a
	# device there first (a new portal each round, as the last one's
	# listener went with its device).
	if [ "$SROCE_ROLE" = a ]; then
		if [ ! -d "$tpg" ]; then
			check "LIO target, fileio LUN behind an iSER portal on 192.0.2.1:3260" target_up
		else
			check "$name: the iSER portal again" sh -c \
				"rmdir '$tpg/np/192.0.2.1:3260' && mkdir '$tpg/np/192.0.2.1:3260' &&
				 echo 1 >'$tpg/np/192.0.2.1:3260/iser'"
		fi
	elif ! pgrep -x iscsid >/dev/null; then
		check "open-iscsi initiator: iscsid, the iser iface" initiator_up
	fi
	barrier "up-$name"
	if [ "$SROCE_ROLE" = b ]; then
		check "$name: iscsiadm login over iser" login
		[ -s /tmp/login.log ] && diag </tmp/login.log
		if find_disk; then
			check "$name: the session's transport is iser" sh -c \
				"iscsiadm -m session -P 1 | grep -q 'Iface Transport: iser'"
			check "$name: fio randrw 4 KiB..512 KiB, iodepth 32, $vsize, verify crc32c" \
				timeout 600 fio --name=verify --filename="$disk" --direct=1 --ioengine=libaio \
				--eta=never --rw=randrw --bsrange=4k-512k --iodepth=32 --size=$vsize \
				--verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio.log
			check "$name: 8 MiB written, caches dropped, read back identical" compare
			[ "$drv" = sroce ] && check "$name: sroce carried it (over 10000 packets out)" \
				sh -c "[ \$(rdma statistic show link dev0/1 | tr -s ' ' '\n' |
					awk '/^tx_packets$/ { getline; print }') -gt 10000 ]"
		fi
		check "$name: iscsiadm logout" logout
	fi
	barrier "done-$name" 900
	driver_down "$name" $drv
	barrier "down-$name"
}

round sroce-sroce sroce sroce
if [ "$SROCE_TARGET" = debug ]; then
	[ "$SROCE_ROLE" = b ] &&
		skip "for time on the debug kernel (bpo runs them)" "iSER against rdma_rxe"
else
	round sroce-target.rxe-initiator sroce rxe
	round rxe-target.sroce-initiator rxe sroce
fi
# The target stays configured until the guest powers off: LIO holds the
# backstore while the portal exists.
tap_done
