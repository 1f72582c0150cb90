# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics for guest tests and the bench: the nvmet target through
# configfs and the host's view of its namespace. Source it after tap.sh;
# set $nqn (the subsystem's name) first.
cfg=/sys/kernel/config/nvmet

# nvmet_subsys PATH: subsystem $nqn, open to any host, its namespace 1 on
# PATH (a block device or a file). With $nvmet_buffered set a file is
# used through the page cache: 6.1's tmpfs has no O_DIRECT, which the
# file backend uses otherwise.
nvmet_subsys() {
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	[ -d "$cfg" ] || return 1
	mkdir "$cfg/subsystems/$nqn" &&
	echo 1 >"$cfg/subsystems/$nqn/attr_allow_any_host" &&
	mkdir "$cfg/subsystems/$nqn/namespaces/1" &&
	printf %s "$1" >"$cfg/subsystems/$nqn/namespaces/1/device_path" &&
	{ [ -z "${nvmet_buffered:-}" ] ||
		echo 1 >"$cfg/subsystems/$nqn/namespaces/1/buffered_io"; } &&
	echo 1 >"$cfg/subsystems/$nqn/namespaces/1/enable"
}

# nvmet_port N TRTYPE [ADDR]: port N of transport TRTYPE (rdma or loop)
# serving $nqn; an rdma one listens on ADDR (192.0.2.1 unless given),
# port 4420, and needs an RDMA device on that address by now.
# nvmet_port_down N: that port away again.
nvmet_port() {
	local p=$cfg/ports/$1
	mkdir "$p" && echo "$2" >"$p/addr_trtype" || return 1
	if [ "$2" = rdma ]; then
		echo ipv4 >"$p/addr_adrfam" &&
		echo "${3:-192.0.2.1}" >"$p/addr_traddr" &&
		echo 4420 >"$p/addr_trsvcid" || return 1
	fi
	ln -s "$cfg/subsystems/$nqn" "$p/subsystems/$nqn"
}
nvmet_port_down() {
	rm "$cfg/ports/$1/subsystems/$nqn" && rmdir "$cfg/ports/$1"
}

# nvmet_up MIB [ADDR]: a MIB MiB file-backed namespace in subsystem $nqn
# and RDMA port 1 on ADDR.
nvmet_up() {
	dd if=/dev/zero of=/tmp/ns.img bs=1M count="$1" 2>/dev/null &&
	nvmet_subsys /tmp/ns.img && nvmet_port 1 rdma "${2:-}"
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
