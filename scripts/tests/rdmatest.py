# SPDX-License-Identifier: GPL-2.0
"""What the guest's pyverbs test programs share: TAP lines, the device's
counters from `rdma statistic`, polling a CQ with a deadline, a QP's state,
and two RC QPs on one device connected to each other (loopback)."""
import re
import subprocess
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr

REMOTE = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)


class Tap:
    """Numbered TAP lines; the plan and the exit code at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def __call__(self, ok, desc, why=''):
        self.n += 1
        self.failed += not ok
        print('%s %d - %s' % ('ok' if ok else 'not ok', self.n, desc), flush=True)
        if not ok and why:
            print('# ' + why, flush=True)
        return ok

    def done(self):
        print('1..%d' % self.n, flush=True)
        return 1 if self.failed else 0


def counters(dev):
    """The port's counters, by name."""
    out = subprocess.run(['rdma', 'statistic', 'show', 'link', dev + '/1'],
                         capture_output=True, text=True, check=True).stdout
    return {k: int(v) for k, v in re.findall(r'(\w+) (\d+)', out)}


def poll(cq, want, timeout=20):
    """Up to @want completions, for at most @timeout seconds."""
    got = []
    end = time.monotonic() + timeout
    while len(got) < want and time.monotonic() < end:
        k, wcs = cq.poll(want - len(got))
        got += wcs[:k]
    return got


def state(qp):
    return qp.query(e.IBV_QP_STATE)[0].qp_state


def rc_pair(ctx, pd, gid, gidx, b_access=REMOTE, depth=8, **rts):
    """QP a (requester) and b (responder) on one device, connected, each
    with its own CQ. @rts overrides the requester side's attributes:
    timeout, retry_cnt, rnr_retry (default 14, 7, 7) and the responder's
    min_rnr_timer (default 12)."""
    qps = []
    for _ in range(2):
        cq = CQ(ctx, 2 * depth)
        qps.append((QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                                      cap=QPCap(max_send_wr=depth,
                                                max_recv_wr=depth))), cq))
    for (qp, _), (peer, _), access in ((qps[0], qps[1], REMOTE),
                                       (qps[1], qps[0], b_access)):
        qa = QPAttr()
        qa.qp_state = e.IBV_QPS_INIT
        qa.pkey_index = 0
        qa.port_num = 1
        qa.qp_access_flags = access
        qp.modify(qa, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                  e.IBV_QP_ACCESS_FLAGS)
        qa = QPAttr()
        qa.qp_state = e.IBV_QPS_RTR
        qa.path_mtu = e.IBV_MTU_1024
        qa.dest_qp_num = peer.qp_num
        qa.rq_psn = 100
        qa.max_dest_rd_atomic = 2
        qa.min_rnr_timer = rts.get('min_rnr_timer', 12)
        qa.ah_attr = AHAttr(port_num=1, is_global=1,
                            gr=GlobalRoute(dgid=gid, sgid_index=gidx, hop_limit=64))
        qp.modify(qa, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
                  e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
                  e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)
        qa = QPAttr()
        qa.qp_state = e.IBV_QPS_RTS
        qa.sq_psn = 100
        qa.timeout = rts.get('timeout', 14)
        qa.retry_cnt = rts.get('retry_cnt', 7)
        qa.rnr_retry = rts.get('rnr_retry', 7)
        qa.max_rd_atomic = 2
        qp.modify(qa, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT |
                  e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                  e.IBV_QP_MAX_QP_RD_ATOMIC)
    return qps
