# SPDX-License-Identifier: GPL-2.0
"""Watch a netdev for RoCEv2 frames (UDP port 4791) that arrive on it for
SECONDS seconds or until COUNT of them, and print one line per frame:
"tagged VID PCP" or "untagged", with OPCODE given followed by the BTH
opcode in hex ("tagged 100 5 0x81" for a CNP). The tag is read from the frame itself or,
when the driver took it out (VLAN offload, veth), from the packet
socket's auxiliary data. Frames the netdev sends are left out.

usage: vlan_cap.py IFNAME SECONDS COUNT [opcode]"""
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
ROCE_PORT = 4791


def roce_bth(frame, off):
    """The offset of the BTH in @frame when the IPv4 or IPv6 packet at
    @off is UDP to 4791, else None."""
    etype = struct.unpack_from('!H', frame, off - 2)[0]
    if etype == 0x0800 and len(frame) >= off + 20:
        ihl = (frame[off] & 0xf) * 4
        if frame[off + 9] != 17 or len(frame) < off + ihl + 4:
            return None
        if struct.unpack_from('!H', frame, off + ihl + 2)[0] == ROCE_PORT:
            return off + ihl + 8
    elif etype == 0x86dd and len(frame) >= off + 44:
        if (frame[off + 6] == 17 and
                struct.unpack_from('!H', frame, off + 42)[0] == ROCE_PORT):
            return off + 48
    return None


def main():
    ifname, secs, want = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    opcode = sys.argv[4:] == ['opcode']
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((ifname, 0))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    print('ready', flush=True)
    end = time.monotonic() + secs
    seen = 0
    while seen < want and time.monotonic() < end:
        s.settimeout(max(0.1, end - time.monotonic()))
        try:
            frame, anc, _, addr = s.recvmsg(65536, socket.CMSG_SPACE(32))
        except socket.timeout:
            break
        if addr[2] == PACKET_OUTGOING or len(frame) < 14:
            continue
        tci = None
        off = 14
        if struct.unpack_from('!H', frame, 12)[0] == 0x8100 and len(frame) >= 18:
            tci = struct.unpack_from('!H', frame, 14)[0]
            off = 18
        for level, kind, data in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA and len(data) >= 20:
                status = struct.unpack_from('I', data, 0)[0]
                if status & TP_STATUS_VLAN_VALID:
                    tci = struct.unpack_from('H', data, 16)[0]
        bth = roce_bth(frame, off)
        if bth is None:
            continue
        seen += 1
        line = 'untagged' if tci is None else 'tagged %d %d' % (tci & 0xfff, tci >> 13)
        if opcode:
            line += ' 0x%02x' % frame[bth] if len(frame) > bth else ' none'
        print(line, flush=True)


main()
