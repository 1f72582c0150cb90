#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest test (topology "one", set up by hostile.sh): the hostile
conformance suite. Each case makes its own QP (so that one error hides
nothing), sends crafted RoCEv2 datagrams from a peer network namespace
(from the QP's peer, from an off-path address, over IPv6 or IPv4) or
abuses the QP's rings from user space, and observes what a spectator
would: the packets the device answers with (a raw socket in the peer
namespace sees them), the QP's state, every completion, memory, errnos.
The expected outcome of each case is the specification's (IBTA 1.4
chapters 9 and 10, annex A17), driver-neutral; for sroce a case also
names the counter its drop or answer moves.

The same cases run against sroce and against rdma_rxe, in turn, on the
same link. Usage:
  conform.py run DEV DRIVER OUT.json   run every case; with DRIVER sroce
                                       print TAP (a case off its expected
                                       outcome fails), else report only
  conform.py table SROCE.json RXE.json the two columns side by side"""
import json
import sys

import conform_env
import conform_cases  # noqa: F401 (registers the cases)
import conform_ring  # noqa: F401 (registers the cases)
import rdmatest
from rsttable import rst_table
from conform_env import CASES


def run(dev, driver, out):
    tap = rdmatest.Tap()
    strict = driver == 'sroce'
    t = conform_env.Env(dev, driver)
    results = []
    for c in CASES:
        r = t.run(c)
        results.append(r)
        if strict:
            tap(r['ok'], '%s %s: %s' % (c.ident, c.group, c.desc),
                'want %s; got %s' % (r['want'], r['got']))
        else:
            print('# %s %s: %s' % ('as specified' if r['ok'] else 'differs', c.ident,
                                   r['got']), flush=True)
    t.close()
    with open(out, 'w') as f:
        json.dump(results, f, indent=1)
    if not strict:
        # The report's line: every case came to an outcome (the bench did
        # not break against this driver), whatever the outcome was.
        broken = [r['ident'] for r in results if 'error=' in r['seen']]
        tap(not broken, '%s: every one of %d cases came to an outcome, %d as specified'
            % (driver, len(CASES), sum(r['ok'] for r in results)),
            'the bench broke in %s' % ', '.join(broken))
    return tap.done()


def table(ours, theirs):
    """A reStructuredText table: each case (its description says what the
    specification wants), and for each driver 'as specified' or what it
    did instead."""
    a = {r['ident']: r for r in json.load(open(ours))}
    b = {r['ident']: r for r in json.load(open(theirs))}
    rows = [('case', 'sroce', 'rdma_rxe')]
    for ident, r in a.items():
        cell = [('as specified' if x['ok'] else x['seen']) if x else 'not run'
                for x in (r, b.get(ident))]
        rows.append(('%s %s' % (ident, r['desc']), cell[0], cell[1]))
    print(rst_table(rows))
    for drv, res in (('sroce', a), ('rdma_rxe', b)):
        print('%s: %d of %d cases as specified' %
              (drv, sum(r['ok'] for r in res.values()), len(res)))
    return 0


if __name__ == '__main__':
    if sys.argv[1] == 'run':
        sys.exit(run(*sys.argv[2:5]))
    sys.exit(table(*sys.argv[2:4]))
