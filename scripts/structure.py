#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The shape of the driver, as `make lint` holds it (Documentation/design.rst).

    scripts/structure.py [--edges] [DIR]      (DIR: drivers/sroce)

Reads the .c and .h files of DIR, written in kernel style (a function's
body opens with "{" alone in column 0 and closes with "}" in column 0),
and fails when:
  - a file is longer than MAX_FILE lines;
  - a function is longer than MAX_FUNC lines (from the line of its name to
    its closing brace);
  - files call each other in a circle of more than MAX_CIRCLE files (a
    file calls another when it names a non-static function the other
    defines; static inline helpers in headers are not calls);
  - a function whose comment says it runs under a lock ("Context: ...
    under the QP's sq_lock", "... lock held") does not assert a lock
    (lockdep_assert_held() and its kin, or ASSERT_RTNL()).
It prints every file's length, and with --edges every call between files.
Exit status: 0 when all holds, 1 otherwise.
"""
import collections
import glob
import os
import re
import sys

MAX_FILE = 900
MAX_FUNC = 80
MAX_CIRCLE = 5

IDENT = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
# A comment that puts the function under a lock, and one that says it
# must not hold one (which needs no assertion).
UNDER = re.compile(r"(\bunder\b|\bholds?\b|\bholding\b)[^.;]*(lock|mutex)(es|s)?\b|"
                   r"(lock|mutex)\w*\s+held\b|\bRTNL held\b", re.I)
NOT_UNDER = re.compile(r"\b(no|none|not|without)\b[^.;]*(lock|mutex)|(lock|mutex)\w*[^.;]*\bnot held\b|"
                       r"RTNL not held", re.I)
ASSERTS = re.compile(r"\blockdep_assert(_held|_held_once|_in_softirq)?\s*\(|\bASSERT_RTNL\s*\(|"
                     r"\brcu_dereference_protected\s*\(")


def blank_comments(text):
    """The text with comments and strings blanked, line structure kept."""
    def keep_lines(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    text = re.sub(r'/\*.*?\*/', keep_lines, text, flags=re.S)
    text = re.sub(r'//[^\n]*', keep_lines, text)
    return re.sub(r'"(\\.|[^"\\\n])*"', keep_lines, text)


class Func:
    def __init__(self, name, path, start, end, static, body, comment):
        self.name, self.path, self.start, self.end = name, path, start, end
        self.static, self.body, self.comment = static, body, comment

    @property
    def length(self):
        return self.end - self.start + 1


def comment_above(raw, i):
    """The comment block ending on the line just above line index @i."""
    j = i - 1
    if j < 0 or not raw[j].rstrip().endswith('*/'):
        return ''
    k = j
    while k >= 0 and not raw[k].lstrip().startswith('/*'):
        k -= 1
    return '\n'.join(raw[k:j + 1]) if k >= 0 else ''


def functions(path):
    """Function definitions of a file, kernel style."""
    raw = open(path).read().split('\n')
    code = blank_comments('\n'.join(raw)).split('\n')
    out = []
    i = 0
    while i < len(code):
        if code[i].rstrip() != '{' or i == 0:
            i += 1
            continue
        # The signature: back to the line that starts in column 0.
        s = i - 1
        while s > 0 and code[s][:1] in ('\t', ' ', ''):
            s -= 1
        sig = ' '.join(code[s:i])
        names = IDENT.findall(sig)
        e = i + 1
        while e < len(code) and code[e].rstrip() != '}':
            e += 1
        if not names or sig.lstrip().startswith(('struct', 'enum', 'union', '#')) and '(' not in sig:
            i = e + 1
            continue
        # The name's line: the first line of the signature naming it.
        name = names[0] if names[0] not in ('__printf', '__must_check') else names[1]
        start = next(k for k in range(s, i) if re.search(r'\b%s\s*\(' % name, code[k]))
        out.append(Func(name, path, start + 1, e + 1, sig.lstrip().startswith('static'),
                        '\n'.join(code[i:e + 1]), comment_above(raw, s)))
        i = e + 1
    return out


def header_docs(paths):
    """Kernel-doc comments of the functions the headers declare, by name."""
    docs = {}
    for path in paths:
        text = open(path).read()
        for m in re.finditer(r'/\*\*\n \* (\w+)\(\) - .*?\*/', text, flags=re.S):
            docs[m.group(1)] = m.group(0)
    return docs


def context_of(comment):
    """The part of a comment that says where the function runs."""
    m = re.search(r'Context:(.*?)(\n \*\s*\n|\n \*\s*Return:|\*/)', comment, flags=re.S)
    if m:
        return ' '.join(m.group(1).replace('*', ' ').split())
    # A plain comment: its sentences about locks.
    return ' '.join(comment.replace('*', ' ').replace('/', ' ').split())


def circles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(comps, key=len, reverse=True)


def main(argv):
    show_edges = '--edges' in argv
    args = [a for a in argv if not a.startswith('--')]
    top = args[0] if args else 'drivers/sroce'
    paths = sorted(glob.glob(os.path.join(top, '*.[ch]')))
    if not paths:
        print('structure: no .c or .h files in %s' % top)
        return 1
    bad = []
    print('files (lines):')
    for p in paths:
        n = open(p).read().count('\n')
        print('  %-16s %5d%s' % (os.path.basename(p), n, '  <-- over %d' % MAX_FILE if n > MAX_FILE else ''))
        if n > MAX_FILE:
            bad.append('%s: %d lines (at most %d)' % (p, n, MAX_FILE))

    funcs = [f for p in paths for f in functions(p)]
    for f in funcs:
        if f.length > MAX_FUNC:
            bad.append('%s:%d: %s() is %d lines (at most %d)' % (f.path, f.start, f.name, f.length, MAX_FUNC))

    owner = collections.defaultdict(set)
    for f in funcs:
        if not f.static and f.path.endswith('.c'):
            owner[f.name].add(os.path.basename(f.path))
    edges = collections.defaultdict(set)
    for p in paths:
        if not p.endswith('.c'):
            continue
        me = os.path.basename(p)
        for tok in set(IDENT.findall(blank_comments(open(p).read()))):
            for o in owner.get(tok, ()):
                if o != me:
                    edges[(me, o)].add(tok)
    graph = collections.defaultdict(set)
    for (a, b) in edges:
        graph[a].add(b)
        graph[b]
    print('calls between files: %d' % len(edges))
    if show_edges:
        for (a, b), names in sorted(edges.items()):
            print('  %s -> %s: %s' % (a, b, ' '.join(sorted(names))))
    comps = circles(graph)
    print('call circles: %d%s' % (len(comps), ' (largest %d files)' % len(comps[0]) if comps else ''))
    for c in comps:
        print('  ' + ' '.join(c))
        if len(c) > MAX_CIRCLE:
            bad.append('a call circle of %d files (at most %d): %s' % (len(c), MAX_CIRCLE, ' '.join(c)))

    docs = header_docs([p for p in paths if p.endswith('.h')])
    unasserted = 0
    for f in funcs:
        if not f.path.endswith('.c'):
            continue
        ctx = context_of(docs.get(f.name, '') or f.comment)
        if UNDER.search(ctx) and not NOT_UNDER.search(ctx) and not ASSERTS.search(f.body):
            unasserted += 1
            bad.append('%s:%d: %s() runs under a lock by its comment and asserts none ("%s")'
                       % (f.path, f.start, f.name, ctx[:70]))
    print('functions under a lock that do not assert it: %d' % unasserted)

    for b in bad:
        print('structure: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
