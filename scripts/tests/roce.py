# SPDX-License-Identifier: GPL-2.0
"""Crafted RoCEv2 datagrams for the guest tests: a UDP socket in a peer
network namespace, the ICRC of an IPv6 datagram, a BTH with its extended
headers, and a GID's text from an IPv6 address. Over IPv6 a UDP socket
sends them (IPv6 has no IP ID, so the test knows every field the ICRC
covers); over IPv4 a raw socket sends the whole IP datagram, its ID set
by the test (ip4_datagram)."""
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
SEND_LAST_IMM, SEND_ONLY_IMM, WRITE_ONLY_IMM = 0x03, 0x05, 0x0b
READ_RESP_FIRST, READ_RESP_LAST, READ_RESP_ONLY = 0x0d, 0x0f, 0x10
ATOMIC_ACK, SEND_LAST_INV, SEND_ONLY_INV = 0x12, 0x16, 0x17
RESERVED, UC_SEND_ONLY, RD_SEND_ONLY, UD_SEND_ONLY, CNP = 0x1f, 0x24, 0x44, 0x64, 0x81
# IBTA 1.5 (annex A19), RC.
FLUSH, ATOMIC_WRITE = 0x1c, 0x1d
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


IP4_ID = 0x5a5a


def ip4_header(src, dst, length, ident=IP4_ID, masked=False):
    """The IPv4 header of a datagram of @length bytes with DF set; @masked:
    as the ICRC sees it (TOS, TTL and checksum all ones), else as sent
    (checksum zero: the raw socket fills it in)."""
    tos, ttl, csum = (0xff, 0xff, 0xffff) if masked else (0, 64, 0)
    return struct.pack('>BBHHHBBH4s4s', 0x45, tos, length, ident, 0x4000, ttl, 17, csum,
                       socket.inet_aton(src), socket.inet_aton(dst))


def icrc(roce, src, dst, sport):
    """The ICRC of a RoCEv2 datagram (from its BTH, without ICRC) sent
    from @src:@sport to @dst (IPv6, or IPv4 when @src has a dot)."""
    udp_len = 8 + len(roce) + 4
    if '.' in src:
        ip = ip4_header(src, dst, 20 + udp_len, masked=True)
    else:
        ip = (b'\x6f\xff\xff\xff' + struct.pack('>HBB', udp_len, 17, 0xff) +
              socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst))
    udp = struct.pack('>HHH', sport, ROCE_PORT, udp_len) + b'\xff\xff'
    bth = roce[:4] + b'\xff' + roce[5:12]
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + ip + udp + bth + roce[12:]))


def ip4_datagram(src, dst, sport, roce):
    """The IPv4 datagram (for a raw IP_HDRINCL socket) carrying @roce,
    a RoCEv2 packet from its BTH on, ICRC included; UDP checksum zero."""
    udp_len = 8 + len(roce)
    return (ip4_header(src, dst, 20 + udp_len) +
            struct.pack('>HHHH', sport, ROCE_PORT, udp_len, 0) + roce)


def packet(src, dst, sport, opcode, qpn, payload=b'', pad=0, tver=0, pkey=0xffff,
           ext=b'', bad_icrc=False, ackreq=False, psn=0, resv=0):
    """A whole RoCEv2 datagram from its BTH on, its ICRC last; @qpn's bits
    24 to 31 fill the BTH's reserved byte before it (resv8a), @resv the
    reserved bits after the AckReq bit (resv7)."""
    bth = struct.pack('>BBHII', opcode, (pad << 4) | tver, pkey, qpn & 0xffffffff,
                      (ackreq << 31) | (resv << 24) | (psn & 0xffffff))
    roce = bth + ext + payload + b'\0' * pad
    crc = icrc(roce, src, dst, sport)
    if bad_icrc:
        crc = bytes([crc[0] ^ 1]) + crc[1:]
    return roce + crc


def aeth(syndrome, msn=1):
    return struct.pack('>I', (syndrome << 24) | msn)


def reth(va, rkey, length):
    return struct.pack('>QII', va & (1 << 64) - 1, rkey, length)


def feth(ptype, level):
    """FLUSH's FETH: placement type in bits 3-0, selectivity in 5-4."""
    return struct.pack('>I', (level & 3) << 4 | (ptype & 15))


def atomic_eth(va, rkey, add_or_swap, compare=0):
    return struct.pack('>QIQQ', va & (1 << 64) - 1, rkey, add_or_swap, compare)


def deth(qkey, src_qpn):
    return struct.pack('>II', qkey, src_qpn)


def gid_text(addr):
    """The GID text of an IPv6 address, as pyverbs prints a GID."""
    raw = socket.inet_pton(socket.AF_INET6, addr)
    return ':'.join(raw[i:i + 2].hex() for i in range(0, 16, 2))
