# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics on RDMA for guest tests: the nvmet target through
# configfs and the host's view of its namespace. Source it after tap.sh;
# set $nqn (the subsystem's name) first.
cfg=/sys/kernel/config/nvmet

# nvmet_up MIB [ADDR]: a MIB MiB file-backed namespace in subsystem $nqn,
# open to any host, and RDMA port 1 on ADDR (192.0.2.1 unless given),
# port 4420 (its address needs an RDMA device by now). With
# $nvmet_buffered set the file is used through the page cache: 6.1's
# tmpfs has no O_DIRECT, which the file backend uses otherwise.
nvmet_up() {
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	[ -d "$cfg" ] || return 1
	dd if=/dev/zero of=/tmp/ns.img bs=1M count="$1" 2>/dev/null &&
	mkdir "$cfg/subsystems/$nqn" &&
	echo 1 >"$cfg/subsystems/$nqn/attr_allow_any_host" &&
	mkdir "$cfg/subsystems/$nqn/namespaces/1" &&
	printf /tmp/ns.img >"$cfg/subsystems/$nqn/namespaces/1/device_path" &&
	{ [ -z "${nvmet_buffered:-}" ] ||
		echo 1 >"$cfg/subsystems/$nqn/namespaces/1/buffered_io"; } &&
	echo 1 >"$cfg/subsystems/$nqn/namespaces/1/enable" &&
	mkdir "$cfg/ports/1" &&
	echo rdma >"$cfg/ports/1/addr_trtype" &&
	echo ipv4 >"$cfg/ports/1/addr_adrfam" &&
	echo "${2:-192.0.2.1}" >"$cfg/ports/1/addr_traddr" &&
	echo 4420 >"$cfg/ports/1/addr_trsvcid" &&
	ln -s "$cfg/subsystems/$nqn" "$cfg/ports/1/subsystems/$nqn"
}

dev=
# find_ns: the host's block device of subsystem $nqn's namespace, into
# $dev.
find_ns() {
	local d n
	for d in /sys/class/nvme/nvme*; do
		grep -qx "$nqn" "$d/subsysnqn" 2>/dev/null || continue
		for n in "$d"/nvme*n1 /sys/block/nvme*; do
			[ -e "$n" ] || continue
			dev=/dev/$(basename "$n")
			[ -b "$dev" ] && return 0
		done
	done
	return 1
}
