# SPDX-License-Identifier: GPL-2.0
# Sourced by guest tests (vlan.sh, cc_vlan.sh): two ends of one VLAN in
# one guest. vlan_veth MAP0 MAP1 joins veth0 (initial namespace) to veth1
# (namespace "peer") and puts VLAN 100 on both, veth0.100 with the
# egress-qos-map MAP0 and veth1.100 with MAP1 (each "" for none);
# addresses: 192.0.2.1 and .2 on the veths, 198.51.100.1 and .2 and
# 2001:db8:100::1 and ::2 on the VLAN devices. Defines pn (run in peer).

pn() { ip netns exec peer "$@"; }

vlan_veth() {
	ip netns add peer
	ip link add veth0 type veth peer name veth1 netns peer
	ip link set veth0 up
	pn ip link set lo up
	pn ip link set veth1 up
	ip addr add 192.0.2.1/24 dev veth0
	pn ip addr add 192.0.2.2/24 dev veth1
	# shellcheck disable=SC2086
	ip link add link veth0 name veth0.100 type vlan id 100 ${1:+egress-qos-map $1}
	# shellcheck disable=SC2086
	pn ip link add link veth1 name veth1.100 type vlan id 100 ${2:+egress-qos-map $2}
	ip addr add 198.51.100.1/24 dev veth0.100
	pn ip addr add 198.51.100.2/24 dev veth1.100
	ip -6 addr add 2001:db8:100::1/64 dev veth0.100 nodad
	pn ip -6 addr add 2001:db8:100::2/64 dev veth1.100 nodad
	ip link set veth0.100 up
	pn ip link set veth1.100 up
}
