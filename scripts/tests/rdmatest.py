# SPDX-License-Identifier: GPL-2.0
"""What the guest's pyverbs test programs share: TAP lines, the device's
counters from `rdma statistic`, polling a CQ with a deadline, a QP made
and moved through its states, an RC QP connected to a peer QP (on this
device or another host's), and two RC QPs on one device connected to each
other (loopback)."""
import os
import re
import select
import subprocess
import sys
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


def gid_index(ctx, gid, tries=100):
    """The index of GID @gid (its text) among the first 16 of port 1, the
    last that holds it; asked again every 0.1 s while the table fills,
    @tries times at most. None if it never appears."""
    for _ in range(tries):
        found = None
        for i in range(16):
            try:
                if str(ctx.query_gid(1, i)) == gid:
                    found = i
            except Exception:
                pass
        if found is not None:
            return found
        time.sleep(0.1)
    return None


def async_event(ctx, timeout, nth=0):
    """The type of @ctx's next async event (acknowledged), or None after
    @timeout seconds. The event file is the one of the process's open
    files that the kernel names infinibandevent (pyverbs does not give
    its descriptor); with several contexts open, the @nth of them in
    descriptor order (contexts opened in turn with no descriptor freed
    between: @nth is the order of opening)."""
    fds = []
    for fd in os.listdir('/proc/self/fd'):
        try:
            if 'infinibandevent' in os.readlink('/proc/self/fd/' + fd):
                fds.append(int(fd))
        except OSError:
            pass
    if len(fds) <= nth:
        return None
    fd = sorted(fds)[nth]
    if not select.select([fd], [], [], timeout)[0]:
        return None
    ev = ctx.get_async_event()
    kind = ev.event_type
    ev.ack()
    return kind


def gid_index_or_exit(ctx, gid, tap):
    """The index of GID @gid (its text), as gid_index() finds it; when it
    never appears, a failed TAP line says so and the program ends."""
    found = gid_index(ctx, gid)
    if found is None:
        tap(False, 'the GID %s appears in the table' % gid)
        sys.exit(tap.done())
    return found


def new_qp(pd, cq, qp_type=e.IBV_QPT_RC, **cap):
    """A QP of @qp_type whose sends and receives both complete on @cq;
    @cap: QPCap's fields (max_send_wr, max_recv_wr...)."""
    return QP(pd, QPInitAttr(qp_type=qp_type, scq=cq, rcq=cq, cap=QPCap(**cap)))


def ud_qp(ctx, pd, qkey, depth=16, pkey_index=0):
    """A UD QP in RTS on port 1 with Q_Key @qkey, in the partition of P_Key
    table entry @pkey_index, its sends and receives completing on a CQ of
    its own; returns (qp, cq)."""
    cq = CQ(ctx, 2 * depth)
    qp = new_qp(pd, cq, e.IBV_QPT_UD, max_send_wr=depth, max_recv_wr=depth)
    modify(qp, e.IBV_QPS_INIT, pkey_index=pkey_index, port_num=1, qkey=qkey)
    modify(qp, e.IBV_QPS_RTR)
    modify(qp, e.IBV_QPS_RTS, sq_psn=0)
    return qp, cq


# The attribute mask of each QPAttr field that modify() sets.
MASK = {
    'cur_qp_state': e.IBV_QP_CUR_STATE,
    'pkey_index': e.IBV_QP_PKEY_INDEX,
    'port_num': e.IBV_QP_PORT,
    'qp_access_flags': e.IBV_QP_ACCESS_FLAGS,
    'qkey': e.IBV_QP_QKEY,
    'ah_attr': e.IBV_QP_AV,
    'path_mtu': e.IBV_QP_PATH_MTU,
    'dest_qp_num': e.IBV_QP_DEST_QPN,
    'rq_psn': e.IBV_QP_RQ_PSN,
    'max_dest_rd_atomic': e.IBV_QP_MAX_DEST_RD_ATOMIC,
    'min_rnr_timer': e.IBV_QP_MIN_RNR_TIMER,
    'sq_psn': e.IBV_QP_SQ_PSN,
    'timeout': e.IBV_QP_TIMEOUT,
    'retry_cnt': e.IBV_QP_RETRY_CNT,
    'rnr_retry': e.IBV_QP_RNR_RETRY,
    'max_rd_atomic': e.IBV_QP_MAX_QP_RD_ATOMIC,
}


def modify(qp, qp_state, **attrs):
    """Move @qp to @qp_state with the QPAttr fields @attrs, the mask
    naming the state and exactly those fields."""
    qa = QPAttr()
    qa.qp_state = qp_state
    mask = e.IBV_QP_STATE
    for name, value in attrs.items():
        setattr(qa, name, value)
        mask |= MASK[name]
    qp.modify(qa, mask)


def rc_connect(qp, gid, gidx, dest_qpn, rq_psn=100, sq_psn=100, access=REMOTE,
               upto=e.IBV_QPS_RTS, mtu=e.IBV_MTU_1024, rd_atomic=2,
               min_rnr_timer=12, hop_limit=64, timeout=14, retry_cnt=7,
               rnr_retry=7, pkey_index=0):
    """RC QP @qp from RESET to @upto (INIT, RTR or RTS) on port 1, with
    @access for the peer; its peer QP @dest_qpn at GID @gid, reached from
    our GID index @gidx. @rq_psn is the first PSN the peer sends, @sq_psn
    ours; @rd_atomic both the READs and atomics we answer and those we
    have outstanding; @pkey_index its partition's entry in the P_Key
    table. Returns @qp."""
    modify(qp, e.IBV_QPS_INIT, pkey_index=pkey_index, port_num=1,
           qp_access_flags=access)
    if upto == e.IBV_QPS_INIT:
        return qp
    modify(qp, e.IBV_QPS_RTR, path_mtu=mtu, dest_qp_num=dest_qpn, rq_psn=rq_psn,
           max_dest_rd_atomic=rd_atomic, min_rnr_timer=min_rnr_timer,
           ah_attr=AHAttr(port_num=1, is_global=1,
                          gr=GlobalRoute(dgid=gid, sgid_index=gidx,
                                         hop_limit=hop_limit)))
    if upto == e.IBV_QPS_RTR:
        return qp
    modify(qp, e.IBV_QPS_RTS, sq_psn=sq_psn, timeout=timeout, retry_cnt=retry_cnt,
           rnr_retry=rnr_retry, max_rd_atomic=rd_atomic)
    return qp


def rc_pair(ctx, pd, gid, gidx, b_access=REMOTE, depth=8, **rts):
    """QP a (requester) and b (responder) on one device, connected, each
    with its own CQ. @rts overrides the requester side's attributes:
    timeout, retry_cnt, rnr_retry (default 14, 7, 7) and the responder's
    min_rnr_timer (default 12)."""
    qps = []
    for _ in range(2):
        cq = CQ(ctx, 2 * depth)
        qps.append((new_qp(pd, cq, max_send_wr=depth, max_recv_wr=depth), cq))
    for (qp, _), (peer, _), access in ((qps[0], qps[1], REMOTE),
                                       (qps[1], qps[0], b_access)):
        rc_connect(qp, gid, gidx, peer.qp_num, access=access, **rts)
    return qps


def uc_connect(qp, gid, gidx, dest_qpn, rq_psn=100, sq_psn=100,
               access=e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE,
               upto=e.IBV_QPS_RTS, mtu=e.IBV_MTU_1024, hop_limit=64):
    """UC QP @qp from RESET to @upto (INIT, RTR or RTS) as rc_connect()
    does, with UC's attributes only: no ACK timeout, retry counts, RNR
    timer or READ/atomic depths (IBTA 11.2.5.2). Returns @qp."""
    modify(qp, e.IBV_QPS_INIT, pkey_index=0, port_num=1, qp_access_flags=access)
    if upto == e.IBV_QPS_INIT:
        return qp
    modify(qp, e.IBV_QPS_RTR, path_mtu=mtu, dest_qp_num=dest_qpn, rq_psn=rq_psn,
           ah_attr=AHAttr(port_num=1, is_global=1,
                          gr=GlobalRoute(dgid=gid, sgid_index=gidx,
                                         hop_limit=hop_limit)))
    if upto == e.IBV_QPS_RTR:
        return qp
    modify(qp, e.IBV_QPS_RTS, sq_psn=sq_psn)
    return qp
