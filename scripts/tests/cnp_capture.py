#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Capture the RoCEv2 CNPs that arrive on a netdev for a while, and check
each one's wire format (annex A17.9.2): BTH opcode 0x81 with BECN set,
16 reserved bytes of zeros and nothing else, a good ICRC, and the DSCP
the sender's np_cnp_dscp names with a Not-ECT field. Prints one line per
CNP; exits 0 when at least one came and every one was right.

usage: cnp_capture.py NETDEV SECONDS DSCP STOP_FILE [DEST_QPN_FILE]
(capturing ends after SECONDS, or once STOP_FILE exists; DEST_QPN_FILE,
read at the end, holds the QPN the CNPs must be for)"""
import os
import socket
import struct
import sys
import time
import zlib

ETH_P_IP = 0x0800
CNP = 0x81


def icrc_ok(ip, udp, roce):
    """The ICRC over the IPv4 datagram with the variant fields all ones."""
    mip = bytearray(ip)
    mip[1] = 0xff                    # TOS
    mip[8] = 0xff                    # TTL
    mip[10:12] = b'\xff\xff'         # header checksum
    mudp = bytearray(udp)
    mudp[6:8] = b'\xff\xff'          # UDP checksum
    body = bytearray(roce[:-4])
    body[4] = 0xff                   # FECN, BECN, resv6
    crc = zlib.crc32(b'\xff' * 8 + bytes(mip) + bytes(mudp) + bytes(body))
    return struct.pack('<I', crc) == roce[-4:]


def check(frame, dscp):
    """None for a frame that is no CNP, else (ok, description)."""
    if len(frame) < 14 + 20 + 8 + 12 or struct.unpack('>H', frame[12:14])[0] != ETH_P_IP:
        return None
    ip = frame[14:]
    ihl = (ip[0] & 15) * 4
    if ip[9] != 17:
        return None
    tot = struct.unpack('>H', ip[2:4])[0]
    udp = ip[ihl:ihl + 8]
    if struct.unpack('>H', udp[2:4])[0] != 4791:
        return None
    roce = ip[ihl + 8:tot]
    if roce[0] != CNP:
        return None
    dqpn = struct.unpack('>I', roce[4:8])[0]
    what = 'qpn=%#x tos=%#x len=%d' % (dqpn & 0xffffff, ip[1], len(roce))
    problems = []
    if len(roce) != 12 + 16 + 4:
        problems.append('length')
    if not dqpn & (1 << 30):
        problems.append('no BECN')
    if roce[12:28] != bytes(16):
        problems.append('reserved bytes not zero')
    if ip[1] != dscp << 2:
        problems.append('tos not DSCP %d, Not-ECT' % dscp)
    if not icrc_ok(ip[:ihl], udp, roce):
        problems.append('bad ICRC')
    return (not problems, what + (' ' + ', '.join(problems) if problems else ''),
            dqpn & 0xffffff)


def main():
    dev, secs, dscp = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    s.bind((dev, 0))
    s.settimeout(0.2)
    end = time.monotonic() + secs
    seen = []
    while time.monotonic() < end and not os.path.exists(sys.argv[4]):
        try:
            frame, addr = s.recvfrom(65535)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        r = check(frame, dscp)
        if r:
            seen.append(r)
            if len(seen) <= 5:
                print(('good ' if r[0] else 'BAD ') + r[1], flush=True)
    want = None
    if len(sys.argv) > 5:
        with open(sys.argv[5]) as f:
            want = int(f.read().strip(), 0)
    wrong = [r for r in seen if want is not None and r[2] != want]
    print('%d CNPs, %d malformed, %d for another QP (want %s)' %
          (len(seen), sum(not r[0] for r in seen), len(wrong), want))
    return 0 if seen and all(r[0] for r in seen) and not wrong else 1


if __name__ == '__main__':
    sys.exit(main())
