#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Second stage of a test guest, running on its overlay root: finish the
# mounts, run /sroceio/cmd.sh with its output on the second
# serial port, leave the exit code and the kernel log in /sroceio, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
for d in /tmp /run /dev/shm; do mount -t tmpfs tmpfs "$d"; done
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null

arg() { sed -n "s/.*\bsroce_$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
SROCE_ROLE=$(arg role)
SROCE_TARGET=$(arg target)
# Every guest of the topology (rendezvous.sh's barriers wait for them).
SROCE_ROLES=$(arg roles | tr , ' ')
SROCE_IO=/sroceio
SROCE_SRC=/sroce
SROCE_KO=/sroce/out/$SROCE_TARGET/sroce.ko
export SROCE_ROLE SROCE_ROLES SROCE_TARGET SROCE_IO SROCE_SRC SROCE_KO
hostname "sroce-$SROCE_ROLE"
ip link set lo up
modprobe virtio_net 2>/dev/null

kver=$(uname -r)
sh "$SROCE_IO/cmd.sh" >/dev/ttyS1 2>&1
echo $? >"$SROCE_IO/exit-$SROCE_ROLE"
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$SROCE_IO/kmemleak-$SROCE_ROLE"
fi
dmesg >"$SROCE_IO/dmesg-$SROCE_ROLE"
sync
busybox poweroff -f
