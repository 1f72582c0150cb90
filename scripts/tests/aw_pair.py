#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""IBTA 1.5's ATOMIC WRITE and FLUSH between two hosts (or in loopback),
for interop: the client requests, the server (any RC implementation that
has them) answers. An ATOMIC WRITE's 8 bytes land exactly, neighbours
untouched, completing as ATOMIC_WRITE; a WRITE then a FLUSH of its range,
and a FLUSH of the whole MR, complete as FLUSH with the WRITE's bytes in
place; last, a FLUSH asking for persistence of an MR without that right
fails with a remote access error. Prints TAP; exits non-zero on any
failure.

Usage:
  aw_pair.py server DEV GID_INDEX [--port P]
  aw_pair.py client DEV GID_INDEX HOST [--port P]

The ends agree on QP and memory over TCP (HOST:P), as rc_verify.py's."""
import random

import pyverbs.enums as e
from pyverbs.addr import GID
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import SGE

import rdmatest
from rc_verify import ctl_accept, ctl_connect, ctl_parser, run_role
from rdmatest import REMOTE, poll, rc_connect

SIZE = 4096
FLUSH_QP = e.IBV_ACCESS_FLUSH_GLOBAL | e.IBV_ACCESS_FLUSH_PERSISTENT
FILL = 0xaa
tap = rdmatest.Tap()


class End:
    """One QP (extended send API) and a 4 KiB MR with the FLUSH_GLOBAL right."""

    def __init__(self, dev, gid_index):
        self.ctx = Context(name=dev)
        self.gid_index = gid_index
        self.gid = str(self.ctx.query_gid(1, gid_index))
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 16)
        self.mr = MR(self.pd, SIZE, REMOTE | e.IBV_ACCESS_FLUSH_GLOBAL)
        attr = QPInitAttrEx(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                            pd=self.pd, cap=QPCap(max_send_wr=8, max_recv_wr=8),
                            comp_mask=e.IBV_QP_INIT_ATTR_PD |
                            e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
                            send_ops_flags=e.IBV_QP_EX_WITH_ATOMIC_WRITE |
                            e.IBV_QP_EX_WITH_FLUSH |
                            e.IBV_QP_EX_WITH_RDMA_WRITE)
        self.qp = QPEx(self.ctx, attr)
        self.psn = random.randrange(1 << 24)

    def info(self):
        return {'gid': self.gid, 'qpn': self.qp.qp_num, 'psn': self.psn,
                'rkey': self.mr.rkey, 'addr': self.mr.buf}

    def connect(self, peer):
        rc_connect(self.qp, GID(peer['gid']), self.gid_index, peer['qpn'],
                   rq_psn=peer['psn'], sq_psn=self.psn,
                   access=REMOTE | FLUSH_QP, rd_atomic=4)


def server(a):
    end = End(a.dev, a.gid_index)
    link = ctl_accept(a.port)
    peer = link.recv()
    link.send(end.info())
    end.connect(peer)
    while True:
        req = link.recv()
        if req['op'] == 'done':
            break
        if req['op'] == 'fill':
            end.mr.write(bytes([FILL]) * SIZE, SIZE)
        # 'fill' and 'read' both answer with the MR's bytes, hex.
        link.send({'bytes': end.mr.read(SIZE, 0).hex()})
    tap(True, 'server: served every request of the client')


def client(a):
    end = End(a.dev, a.gid_index)
    link = ctl_connect(a.host, a.port)
    link.send(end.info())
    peer = link.recv()
    end.connect(peer)
    rkey, raddr = peer['rkey'], peer['addr']

    def ask(op):
        link.send({'op': op})
        return bytes.fromhex(link.recv()['bytes'])

    def one(wr_id, build):
        end.qp.wr_start()
        end.qp.wr_id = wr_id
        end.qp.wr_flags = e.IBV_SEND_SIGNALED
        build(end.qp)
        end.qp.wr_complete()
        wcs = poll(end.cq, 1, 60)
        return wcs[0] if wcs else None

    def check(wc, status, opcode, desc):
        if wc is None:
            return tap(False, desc, 'no completion')
        return tap(wc.status == status and
                   (status != e.IBV_WC_SUCCESS or wc.opcode == opcode), desc,
                   'status %d opcode %d' % (wc.status, wc.opcode))

    before = ask('fill')
    value = bytes(range(0xf1, 0xf9))
    wc = one(1, lambda qp: qp.wr_atomic_write(rkey, raddr + 128, value))
    check(wc, e.IBV_WC_SUCCESS, e.IBV_WC_ATOMIC_WRITE,
          'ATOMIC WRITE completes as ATOMIC_WRITE')
    got = ask('read')
    tap(got[128:136] == value, 'ATOMIC WRITE: the 8 bytes landed', got[128:136].hex())
    tap(got[:128] == before[:128] and got[136:] == before[136:],
        'ATOMIC WRITE: neighbours untouched')

    data = bytes(random.randrange(256) for _ in range(1024))
    end.mr.write(data, len(data))
    wc = one(2, lambda qp: (qp.wr_rdma_write(rkey, raddr + 1024),
                            qp.wr_set_sge(SGE(end.mr.buf, 1024, end.mr.lkey))))
    check(wc, e.IBV_WC_SUCCESS, e.IBV_WC_RDMA_WRITE, 'WRITE before FLUSH')
    wc = one(3, lambda qp: qp.wr_flush(rkey, raddr + 1024, 1024,
                                       e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_RANGE))
    check(wc, e.IBV_WC_SUCCESS, e.IBV_WC_FLUSH, 'FLUSH global of the range')
    tap(ask('read')[1024:2048] == data, 'the WRITE\'s bytes are in place')
    wc = one(4, lambda qp: qp.wr_flush(rkey, raddr, 12345678,
                                       e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_MR))
    check(wc, e.IBV_WC_SUCCESS, e.IBV_WC_FLUSH, 'FLUSH global of the whole MR')
    # Last: it puts both QPs in ERR.
    wc = one(5, lambda qp: qp.wr_flush(rkey, raddr, 64, e.IBV_FLUSH_PERSISTENT,
                                       e.IBV_FLUSH_RANGE))
    check(wc, e.IBV_WC_REM_ACCESS_ERR, None,
          'FLUSH persistent without the MR\'s right: remote access error')
    link.send({'op': 'done'})


def main():
    run_role(ctl_parser(19877).parse_args(), tap, server, client)


if __name__ == '__main__':
    main()
