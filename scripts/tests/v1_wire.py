# SPDX-License-Identifier: GPL-2.0
"""RoCE v1 frames (EtherType 0x8915) on the wire, for roce_v1.sh.

cap IFNAME SECONDS COUNT
    Watch IFNAME for RoCE v1 frames arriving (not those it sends) for
    SECONDS or until COUNT of them, and check each: a GRH with IPVer 6
    and NxtHdr 0x1B, PayLen matching the frame, and an ICRC that this
    script computes itself (zlib's CRC-32, apart from the driver's) over
    the packet with the GRH's TClass, FlowLabel, HopLmt and the BTH's
    FECN/BECN byte as ones, after 64 one-bits for the absent LRH. Prints
    "ready", then "good N bad M".

send IFNAME DMAC SGID DGID QPN
    Send crafted frames to DMAC, one per line printed as "sent KIND":
    short (PayLen past the frame's end), version (IPVer 4), nexthdr
    (NxtHdr 0x11 as if UDP), icrc (a good GRH to DGID, ICRC wrong),
    noqp (all good, ICRC by this script, to QPN, which does not exist),
    path (a DGID that is not the peer's), runt (a 20-byte payload) and
    50 random payloads (garbage)."""
import ipaddress
import os
import socket
import struct
import sys
import time
import zlib

ETH_P_IBOE = 0x8915
PACKET_OUTGOING = 4


def icrc(pkt):
    """The ICRC of @pkt, GRH to pad, as the 32-bit value sent little endian."""
    m = bytearray(pkt[:52])
    m[0] |= 0x0f
    m[1:4] = b'\xff\xff\xff'
    m[7] = 0xff
    m[44] = 0xff
    return zlib.crc32(b'\xff' * 8 + bytes(m) + pkt[52:]) & 0xffffffff


def check(payload):
    """Whether an Ethernet payload is a well-formed RoCE v1 packet."""
    if len(payload) < 40 + 12 + 4:
        return False
    vtf, paylen, nxt = struct.unpack_from('!IHB', payload, 0)
    if vtf >> 28 != 6 or nxt != 0x1b:
        return False
    # Ethernet may pad a short frame: PayLen says where the packet ends.
    if 40 + paylen > len(payload):
        return False
    pkt = payload[:40 + paylen]
    return struct.unpack('<I', pkt[-4:])[0] == icrc(pkt[:-4])


def cap(ifname, secs, want):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IBOE))
    s.bind((ifname, 0))
    print('ready', flush=True)
    end = time.monotonic() + secs
    good = bad = 0
    while good + bad < want and time.monotonic() < end:
        s.settimeout(max(0.1, end - time.monotonic()))
        try:
            frame, addr = s.recvfrom(65536)
        except socket.timeout:
            break
        if addr[2] == PACKET_OUTGOING:
            continue
        if check(frame[14:]):
            good += 1
        else:
            bad += 1
    print('good %d bad %d' % (good, bad), flush=True)


def grh(sgid, dgid, paylen, ver=6, nxt=0x1b):
    return struct.pack('!IHBB', ver << 28, paylen, nxt, 64) + sgid + dgid


def bth_deth(qpn):
    # UD SEND_ONLY, PKey 0xffff, to @qpn, PSN 1; the DETH: Q_Key, QPN 2.
    return struct.pack('!BBHII', 0x64, 0, 0xffff, qpn, 1) + \
        struct.pack('!II', 0x11111111, 2)


def frames(sgid, dgid, qpn):
    body = bth_deth(qpn) + b'\x5a' * 32
    n = len(body) + 4
    good = grh(sgid, dgid, n) + body
    other = ipaddress.IPv6Address('2001:db8::99').packed
    yield 'short', grh(sgid, dgid, n + 400) + body + b'\0' * 4
    yield 'version', grh(sgid, dgid, n, ver=4) + body + b'\0' * 4
    yield 'nexthdr', grh(sgid, dgid, n, nxt=0x11) + body + b'\0' * 4
    yield 'icrc', good + struct.pack('<I', icrc(good) ^ 1)
    yield 'noqp', good + struct.pack('<I', icrc(good))
    p = grh(sgid, other, n) + body
    yield 'path', p + struct.pack('<I', icrc(p))
    yield 'runt', os.urandom(20)
    for _ in range(50):
        yield 'garbage', os.urandom(46 + os.urandom(1)[0] * 4)


def send(ifname, dmac, sgid, dgid, qpn):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    src = s.getsockname()[4][:6]
    dst = bytes.fromhex(dmac.replace(':', ''))
    kinds = {}
    for kind, payload in frames(ipaddress.IPv6Address(sgid).packed,
                                ipaddress.IPv6Address(dgid).packed, qpn):
        s.send(dst + src + struct.pack('!H', ETH_P_IBOE) + payload)
        kinds[kind] = kinds.get(kind, 0) + 1
    for kind, n in kinds.items():
        print('sent %s %d' % (kind, n))


def main():
    if sys.argv[1] == 'cap':
        cap(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == 'send':
        send(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5],
             int(sys.argv[6], 0))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
