# SPDX-License-Identifier: GPL-2.0
"""Crafted RoCEv2 datagrams for the guest tests: a UDP socket in a peer
network namespace, the ICRC of an IPv6 datagram, a BTH with its extended
headers, and a GID's text from an IPv6 address. IPv6 only: it has no IP
ID, so the test can compute the ICRC the receiver will see."""
import ctypes
import os
import socket
import struct
import zlib

ROCE_PORT = 4791
CLONE_NEWNET = 0x40000000

# Opcodes (IBTA 9.2, table 38): RC, then UD.
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY = 0x00, 0x01, 0x02, 0x04
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM = 0x06, 0x07, 0x08, 0x09
WRITE_ONLY, READ_REQUEST, ACK, CMP_SWAP, FETCH_ADD = 0x0a, 0x0c, 0x11, 0x13, 0x14
RESERVED, UD_SEND_ONLY = 0x1f, 0x64
# AETH syndromes.
ACK_SYN, RNR_NAK_SYN, NAK_SEQ_SYN = 0x1f, 0x20, 0x60
NAK_INV_REQ, NAK_REM_ACCESS, NAK_REM_OP = 0x61, 0x62, 0x63


def in_netns(netns, make):
    """What @make() returns, made inside network namespace @netns."""
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open('/proc/self/ns/net', os.O_RDONLY)
    there = os.open('/run/netns/' + netns, os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), 'setns')
        return make()
    finally:
        libc.setns(home, CLONE_NEWNET)
        os.close(home)
        os.close(there)


def peer_socket(netns, addr, sport, raw=False):
    """A UDP socket in @netns bound to @addr:@sport; or, raw, one that sees
    every UDP datagram coming to the namespace."""
    def make():
        if raw:
            return socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_UDP)
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s.bind((addr, sport))
        return s
    return in_netns(netns, make)


def icrc(roce, src, dst, sport):
    """The ICRC of a RoCEv2 datagram (from its BTH, without ICRC) sent
    from @src:@sport to @dst (IPv6)."""
    udp_len = 8 + len(roce) + 4
    ip6 = (b'\x6f\xff\xff\xff' + struct.pack('>HBB', udp_len, 17, 0xff) +
           socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst))
    udp = struct.pack('>HHH', sport, ROCE_PORT, udp_len) + b'\xff\xff'
    bth = roce[:4] + b'\xff' + roce[5:12]
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + ip6 + udp + bth + roce[12:]))


def packet(src, dst, sport, opcode, qpn, payload=b'', pad=0, tver=0, pkey=0xffff,
           ext=b'', bad_icrc=False, ackreq=False, psn=0):
    """A whole RoCEv2 datagram from its BTH on, its ICRC last."""
    bth = struct.pack('>BBHII', opcode, (pad << 4) | tver, pkey, qpn & 0xffffff,
                      (ackreq << 31) | psn)
    roce = bth + ext + payload + b'\0' * pad
    crc = icrc(roce, src, dst, sport)
    if bad_icrc:
        crc = bytes([crc[0] ^ 1]) + crc[1:]
    return roce + crc


def aeth(syndrome, msn=1):
    return struct.pack('>I', (syndrome << 24) | msn)


def reth(va, rkey, length):
    return struct.pack('>QII', va, rkey, length)


def gid_text(addr):
    """The GID text of an IPv6 address, as pyverbs prints a GID."""
    raw = socket.inet_pton(socket.AF_INET6, addr)
    return ':'.join(raw[i:i + 2].hex() for i in range(0, 16, 2))
