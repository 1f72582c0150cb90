#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): NFS over RDMA on sroce. Guest a runs the
# kernel NFS server (nfsd) with an RDMA listener on port 20049 and exports
# a tmpfs; guest b mounts it with proto=rdma (NFS 4.2), writes files,
# drops its caches, mounts again and compares them; fio verifies random
# I/O on a file (crc32c). The mount must really use RDMA: /proc/mounts
# says proto=rdma and sroce carried the bytes.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"

case $SROCE_ROLE in
a) me=1 ;;
*) me=2 ;;
esac
need() { command -v "$1" >/dev/null 2>&1; }
ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
have=1
if [ "$SROCE_ROLE" = a ]; then
	need exportfs && need rpc.nfsd && need rpc.mountd && modprobe -q nfsd &&
		modprobe -q rpcrdma || have=
else
	need mount.nfs && need fio && modprobe -q nfsv4 && modprobe -q rpcrdma || have=
fi
publish have "$have"
barrier have
if [ "$(lookup a have)" != 1 ] || [ "$(lookup b have)" != 1 ]; then
	skip "no nfs-kernel-server, nfs-common, fio or NFS/RDMA modules on this target" \
		"NFS over RDMA"
	tap_done
	exit
fi
check "rdma link add dev0 type sroce" rdma link add dev0 type sroce netdev eth0
counter() { link_counter dev0 "$1"; }

# server_up: nfsd with a 10 s grace period (NFSv4 refuses new opens
# during it), the export, then the RDMA listener next to TCP's.
server_up() {
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	mkdir -p /export /var/lib/nfs/v4recovery &&
	mount -t tmpfs -o size=256m tmpfs /export &&
	echo 10 >/proc/fs/nfsd/nfsv4gracetime &&
	echo 10 >/proc/fs/nfsd/nfsv4leasetime &&
	{ rpcbind -w 2>/dev/null || rpcbind 2>/dev/null || true; } &&
	exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=0 '*:/export' &&
	rpc.mountd &&
	rpc.nfsd 4 &&
	echo "rdma 20049" >/proc/fs/nfsd/portlist &&
	grep -q 'rdma 20049' /proc/fs/nfsd/portlist
}

if [ "$SROCE_ROLE" = a ]; then
	check "nfsd exports /export (tmpfs, the NFSv4 root), listening on rdma 20049" server_up
	{ exportfs -v; cat /proc/fs/nfsd/portlist; } 2>&1 | diag
	barrier serving 120
	barrier done 900
	# The server's side of the traffic.
	sent=$(counter tx_packets)
	check "sroce carried the server's replies ($sent packets sent)" test "${sent:-0}" -gt 1000
else
	barrier serving 120
	mnt=/mnt/nfs
	mkdir -p $mnt
	rx0=$(counter rx_packets)
	check "mount -o vers=4.2,proto=rdma,port=20049" timeout 120 \
		mount -t nfs -o vers=4.2,proto=rdma,port=20049 192.0.2.1:/ $mnt
	check "the mount is over RDMA (proto=rdma in /proc/mounts)" \
		sh -c "grep ' $mnt ' /proc/mounts | grep -q 'proto=rdma'"
	grep " $mnt " /proc/mounts | diag
	dd if=/dev/urandom of=/tmp/data bs=1M count=24 2>/dev/null
	# Every data check needs the NFS mount: on a local directory they
	# would pass for nothing.
	on_nfs() { mountpoint -q $mnt && "$@"; }
	roundtrip() {
		cp /tmp/data $mnt/data && mkdir -p $mnt/dir &&
		for i in 1 2 3 4 5 6 7 8; do
			head -c $((i * 4097)) /tmp/data >$mnt/dir/small$i || return 1
		done
		sync && umount $mnt && echo 3 >/proc/sys/vm/drop_caches &&
		mount -t nfs -o vers=4.2,proto=rdma,port=20049 192.0.2.1:/ $mnt &&
		cmp /tmp/data $mnt/data &&
		for i in 1 2 3 4 5 6 7 8; do
			head -c $((i * 4097)) /tmp/data | cmp - $mnt/dir/small$i || return 1
		done
	}
	check "24 MiB and 8 small files written, caches dropped, mounted again, all equal" \
		on_nfs roundtrip
	check "fio randrw 4 KiB..256 KiB on a 32 MiB file, iodepth 16, verify crc32c" \
		on_nfs timeout 600 fio --name=nfs --directory=$mnt --size=32M --direct=1 \
		--ioengine=libaio --eta=never --rw=randrw --bsrange=4k-256k --iodepth=16 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio.log
	grep -E "READ:|WRITE:" /tmp/fio.log | diag
	check "sha256 of the big file, read back over RDMA" on_nfs \
		sh -c "[ \"\$(sha256sum </tmp/data)\" = \"\$(sha256sum <$mnt/data)\" ]"
	rx=$(($(counter rx_packets) - rx0))
	check "sroce carried the data ($rx packets received)" test "$rx" -gt 20000
	check "umount" on_nfs umount $mnt
	barrier done 900
fi
no_error_naks() {
	[ "$(counter tx_nak_error)" = 0 ] && [ "$(counter rx_nak_error)" = 0 ]
}
check "no error NAK sent or received" no_error_naks
barrier down 120
# The server keeps its export until the guest powers off; the client
# unmounted. The device goes on both.
[ "$SROCE_ROLE" = b ] && check "rdma link delete" rdma link delete dev0
tap_done
