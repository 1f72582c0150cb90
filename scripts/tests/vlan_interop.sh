#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test (topology "pair"): sroce on guest a against rdma_rxe on guest
# b over VLAN 100 on the QEMU link, each device on eth0 and using the
# GID of eth0.100: RC pingpong validating every buffer, each side serving
# in turn, sroce's frames seen tagged by b, rping (rdma_cm, whose MADs
# must carry the VLAN) with each side serving, and NVMe-oF with sroce's
# nvmet-rdma target and rdma_rxe's host.
. "$SROCE_SRC/scripts/guest/tap.sh"
. "$SROCE_SRC/scripts/guest/rendezvous.sh"
. "$SROCE_SRC/scripts/guest/pair_traffic.sh"

me=1 peer=2 driver=sroce
[ "$SROCE_ROLE" = b ] && me=2 peer=1 driver=rxe
modprobe 8021q
ip link set eth0 up
ip addr add "192.0.2.$me/24" dev eth0
ip link add link eth0 name eth0.100 type vlan id 100
ip addr add "198.51.100.$me/24" dev eth0.100
ip link set eth0.100 up
[ $driver = rxe ] && modprobe rdma_rxe
check "rdma link add dev0 type $driver netdev eth0" \
	rdma link add dev0 type $driver netdev eth0
# The VLAN's GID (198.51.100.N, IPv4-mapped) on the parent's device.
check "the VLAN's GID" wait_for 10 pair_gid dev0 "ffff:c633:640$me"
g=$(pair_gid dev0 "ffff:c633:640$me")
check "its netdev is eth0.100" \
	[ "$(cat /sys/class/infiniband/dev0/ports/1/gid_attrs/ndevs/$g)" = eth0.100 ]
barrier up
check "IP over the VLAN" wait_for 20 busybox ping -c 1 -W 2 "198.51.100.$peer"

# pingpong PORT SERVER ARGS...: as interop.sh's, over the VLAN's GID.
pingpong() {
	local port=$1 server=$2
	shift 2
	pair_pingpong "$driver: rc_pingpong $* over VLAN 100, $server serves" \
		"$port" "$server" "198.51.100.$peer" ibv_rc_pingpong -d dev0 -g "$g" -c "$@"
}
# b watches eth0 for a's RoCE frames while a serves and then connects.
if [ "$SROCE_ROLE" = b ]; then
	python3 "$SROCE_SRC/scripts/tests/vlan_cap.py" eth0 200 30 >/tmp/cap 2>&1 &
	cap_pid=$!
	wait_for 10 grep -q ready /tmp/cap
fi
pingpong 18515 a -s 4096 -n 50
pingpong 18516 b -s 4096 -n 50
pingpong 18517 a -s 65536 -n 10 -m 1024
if [ "$SROCE_ROLE" = b ]; then
	wait "$cap_pid"
	n=$(grep -c '^tagged 100 ' /tmp/cap)
	if [ "$n" -ge 30 ] && ! grep -q '^untagged' /tmp/cap; then
		ok "sroce's RoCE frames arrive tagged VLAN 100 ($n seen)"
	else
		not_ok "sroce's RoCE frames arrive tagged VLAN 100"
		diag </tmp/cap
	fi
fi
pair_cmd "rping over VLAN 100, data validated" a \
	"rping -s -a 198.51.100.1 -p 18720 -V -C 20 -S 1000" \
	"rping -c -a 198.51.100.1 -p 18720 -V -C 20 -S 1000"
pair_cmd "rping over VLAN 100, rdma_rxe serving" b \
	"rping -s -a 198.51.100.2 -p 18721 -V -C 20 -S 1000" \
	"rping -c -a 198.51.100.2 -p 18721 -V -C 20 -S 1000"

# NVMe-oF over the VLAN, short: a's nvmet-rdma port on sroce at
# 198.51.100.1, b's nvme-rdma host on rdma_rxe, connected through
# /dev/nvme-fabrics (what nvme-cli writes; deb12's root has no nvme-cli
# nor fio); 16 MiB of random data written and read back direct, compared,
# and the controller deleted.
nqn=sroce-vlan
. "$SROCE_SRC/scripts/guest/nvmet.sh"
nvmf_connect() {
	echo "transport=rdma,traddr=198.51.100.1,trsvcid=4420,nqn=$nqn" \
		>/dev/nvme-fabrics && wait_for 20 find_ns
}
nvmf_ctrl() { grep -lx "$nqn" /sys/class/nvme/nvme*/subsysnqn | head -n 1; }
nvmf_io() {
	dd if=/dev/urandom of=/tmp/pat bs=1M count=16 2>/dev/null &&
		dd if=/tmp/pat of="$dev" bs=1M oflag=direct 2>/dev/null &&
		dd if="$dev" of=/tmp/back bs=1M count=16 iflag=direct 2>/dev/null &&
		cmp /tmp/pat /tmp/back
}
have=1
if [ "$SROCE_ROLE" = a ]; then
	modprobe -q nvmet-rdma || have=
else
	modprobe -q nvme-rdma || have=
fi
publish have "$have"
barrier have
if [ "$(lookup a have)" != 1 ] || [ "$(lookup b have)" != 1 ]; then
	skip "no NVMe-oF RDMA modules" "NVMe-oF over VLAN 100"
elif [ "$SROCE_ROLE" = a ]; then
	nvmet_buffered=1
	check "nvmet-rdma target on 198.51.100.1:4420 (sroce)" nvmet_up 32 198.51.100.1
	barrier nvmf-up
	barrier nvmf-done 300
else
	barrier nvmf-up
	if check "NVMe-oF connect over VLAN 100 (rdma_rxe host)" nvmf_connect; then
		find_ns
		check "16 MiB written and read back over VLAN 100, the same" nvmf_io
		ctrl=$(nvmf_ctrl)
		check "NVMe-oF controller deleted" sh -c "echo 1 >${ctrl%/subsysnqn}/delete_controller"
	fi
	barrier nvmf-done
fi
barrier done
check "rdma link delete dev0" rdma link delete dev0
tap_done
