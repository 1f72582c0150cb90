# SPDX-License-Identifier: GPL-2.0
# Sourced by guest tests (cc.sh, cc_vlan.sh). cc_on_tcg DEV: turn
# congestion control on for every priority of DEV, with DCQCN's time
# scaled to TCG, where packets are milliseconds apart: a line rate near
# what it carries, alpha decaying over a second (not 55 us, which would
# leave it near 0 between two CNPs and each cut tiny) and recovery by a
# slow timer alone, so that the cuts add up, last long enough for a
# resource dump to see them, and bring the rate under what is sent.
cc_on_tcg() {
	local cc=/sys/class/infiniband/$1/cc
	echo 255 >"$cc/np_enable" &&
	echo 255 >"$cc/rp_enable" &&
	echo 1000 >"$cc/rp_max_rate" &&
	echo 20 >"$cc/rp_min_rate" &&
	echo 1000000 >"$cc/rp_dce_tcp_rtt" &&
	echo 100000 >"$cc/rp_time_reset" &&
	echo 0 >"$cc/rp_byte_reset"
}
