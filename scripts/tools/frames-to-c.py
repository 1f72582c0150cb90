#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn captured frames ("<ipver> <hex>" lines, capture-rxe-vectors.sh)
into the C vector table of kunit/sroce_icrc_test.c: one vector per
distinct (IP version, opcode), the Ethernet header and padding dropped."""
import sys

NAMES = {0x04: 'send-only', 0x0a: 'write-only', 0x0c: 'read-request',
         0x10: 'read-resp-only', 0x11: 'ack', 0x12: 'atomic-ack',
         0x13: 'cmp-swap', 0x14: 'fetch-add'}
seen = set()
for line in sys.stdin:
    ver, hexs = line.split()
    frame = bytes.fromhex(hexs)
    l3 = frame[14:]
    if ver == '4':
        l3 = l3[:int.from_bytes(l3[2:4], 'big')]
        bth = l3[28:]
    else:
        l3 = l3[:40 + int.from_bytes(l3[4:6], 'big')]
        bth = l3[48:]
    key = (ver, bth[0])
    if key in seen or bth[0] not in NAMES:
        continue
    seen.add(key)
    print('\t{ "ipv%s-%s", %d, {' % (ver, NAMES[bth[0]], len(l3)))
    for i in range(0, len(l3), 12):
        print('\t\t' + ' '.join('0x%02x,' % b for b in l3[i:i + 12]))
    print('\t} },')
