#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/structure.py on small trees whose faults are known: each limit
fails the check with its own message, and a tree within them passes.
Prints TAP."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
STRUCTURE = os.path.join(HERE, '..', 'structure.py')


def fn(name, body_lines=1, static=False, calls=(), comment=''):
    """A kernel-style function definition."""
    out = comment
    out += '%sint %s(void)\n{\n' % ('static ' if static else '', name)
    out += ''.join('\t%s();\n' % c for c in calls)
    out += '\tint x = 0;\n' * max(body_lines - len(calls) - 4, 0)
    out += '\treturn 0;\n}\n\n'
    return out


def run(files):
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            with open(os.path.join(d, name), 'w') as f:
                f.write(text)
        p = subprocess.run([sys.executable, STRUCTURE, d], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


def ring(n):
    """@n files calling each other in one circle."""
    return {'f%d.c' % i: fn('f%d_fn' % i, calls=['f%d_fn' % ((i + 1) % n)]) for i in range(n)}


cases = []


def case(desc, files, want_rc, want_text):
    rc, out = run(files)
    ok = rc == want_rc and want_text in out
    cases.append((ok, desc, out))


LOCKED = '/**\n * g() - g\n *\n * Context: softirq, under the responder\'s lock.\n */\n'
case('a tree within the limits passes',
     dict(ring(1), **{'a.c': fn('a_fn', calls=['b_fn']), 'b.c': fn('b_fn', body_lines=80)}),
     0, 'call circles: 0')
case('a circle of five files passes', ring(5), 0, 'call circles: 1 (largest 5 files)')
case('a circle of six files fails', ring(6), 1, 'a call circle of 6 files')
case('a function of 81 lines fails', {'a.c': fn('big', body_lines=81)}, 1, 'big() is 81 lines')
case('a static function counts too', {'a.c': fn('big', body_lines=90, static=True)}, 1, 'big() is 90 lines')
case('a file of 901 lines fails', {'a.c': fn('a_fn') + '\n' * 896}, 1, 'a.c: 901 lines')
case('a calls b through a static inline in a header: no edge',
     {'a.c': fn('a_fn', calls=['b_inline']), 'b.h': 'static inline int b_inline(void)\n{\n\treturn 0;\n}\n',
      'b.c': fn('b_fn', calls=['a_fn'])}, 0, 'calls between files: 1')
case('a function under a lock by its kernel-doc, no assertion: fails',
     {'a.h': LOCKED.replace('g()', 'g_fn()') + 'int g_fn(void);\n', 'a.c': fn('g_fn')},
     1, 'g_fn() runs under a lock')
case('the same function asserting the lock passes',
     {'a.h': LOCKED.replace('g()', 'g_fn()') + 'int g_fn(void);\n',
      'a.c': 'int g_fn(void)\n{\n\tlockdep_assert_held(&l);\n\treturn 0;\n}\n'},
     0, 'do not assert it: 0')
case('a static function whose comment puts it under the sq_lock: fails',
     {'a.c': fn('h_fn', static=True, comment='/* Under the QP\'s sq_lock. */\n')}, 1, 'h_fn() runs under a lock')
case('"no lock held" asks for no assertion',
     {'a.c': fn('h_fn', static=True, comment='/* Context: any; no lock held. */\n')}, 0, 'do not assert it: 0')
case('the driver itself is within the limits', {}, None, '')
rc, out = subprocess.run([sys.executable, STRUCTURE, os.path.join(HERE, '..', '..', 'drivers', 'sroce')],
                         capture_output=True, text=True).returncode, ''
cases[-1] = (rc == 0, cases[-1][1], 'structure.py drivers/sroce exited %d' % rc)

for i, (ok, desc, out) in enumerate(cases, 1):
    print('%sok %d - structure: %s' % ('' if ok else 'not ', i, desc))
    if not ok:
        print(''.join('# ' + line + '\n' for line in out.splitlines()[-8:]), end='')
print('1..%d' % len(cases))
sys.exit(0 if all(c[0] for c in cases) else 1)
