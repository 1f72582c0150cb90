# SPDX-License-Identifier: GPL-2.0
# Sourced by guest tests that swap RDMA drivers between rounds (sroce and
# rdma_rxe exclude each other on a netdev). Needs tap.sh.

# driver_up NAME DRIVER: DRIVER (sroce or rxe) loaded and dev0 on eth0,
# one TAP line.
driver_up() {
	if [ "$2" = rxe ]; then
		modprobe rdma_rxe
	else
		modprobe sroce 2>/dev/null || insmod "$SROCE_KO"
	fi
	check "$1: rdma link add dev0 type $2" rdma link add dev0 type "$2" netdev eth0
}

# driver_down NAME DRIVER: dev0 deleted (one TAP line), DRIVER unloaded.
driver_down() {
	check "$1: rdma link delete dev0" rdma link delete dev0
	if [ "$2" = rxe ]; then
		rmmod rdma_rxe
	else
		rmmod sroce
	fi
}
