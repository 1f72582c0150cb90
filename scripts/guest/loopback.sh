# SPDX-License-Identifier: GPL-2.0
# Loopback setup for guest tests of topology "one": a veth pair, sroce0 on
# veth0 with 192.0.2.1 and 2001:db8::1, and the indexes of their RoCEv2 GIDs
# in $g4 and $g6. Source it after tap.sh.

ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
ip addr add 192.0.2.1/24 dev veth0
ip addr add 2001:db8::1/64 dev veth0 nodad
rdma link add sroce0 type sroce netdev veth0

# gid_index ADDRESS-PREFIX: the index of the first GID that starts with it.
gid_index() { gid_match sroce0 "^$1"; }
wait_for 10 gid_index 0000:0000:0000:0000:0000:ffff:c000:0201 >/dev/null
wait_for 10 gid_index 2001:0db8 >/dev/null
g4=$(gid_index 0000:0000:0000:0000:0000:ffff:c000:0201)
g6=$(gid_index 2001:0db8)

# counter NAME: the value of one sroce0 counter.
counter() { link_counter sroce0 "$1"; }
