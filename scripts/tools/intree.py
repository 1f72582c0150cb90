#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The in-tree form of sroce's sources for one kernel: the compat header
resolved away. compat.h's branches are chosen by the kernel's SROCE_HAVE_*
probes (scripts/compat-probe.sh); each macro it then defines is expanded
where the driver uses it, and the driver's own SROCE_HAVE_* conditionals
keep the branch that kernel takes. A macro defined for that kernel that is
not one of sroce's own (a stand-in for an API the kernel lacks) means the
tree is older than the driver is written for: an error.

Usage: intree.py COMPAT_H "PROBE FLAGS" OUTDIR FILE..."""
import os
import re
import sys

COND = re.compile(r'^\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b\s*(.*)$')
DEFINE = re.compile(r'^\s*#\s*define\s+(\w+)(\(([^)]*)\))?\s*(.*)$')


def logical_lines(text):
    """Lines with backslash continuations joined."""
    out, cur = [], ''
    for line in text.split('\n'):
        if line.endswith('\\'):
            cur += line[:-1] + ' '
            continue
        out.append(cur + line)
        cur = ''
    return out


def have(expr, flags):
    """The truth of a SROCE_HAVE_* #ifdef/#ifndef argument, or None."""
    name = expr.strip()
    if not re.fullmatch(r'SROCE_HAVE_\w+', name):
        return None
    return name in flags


def choose(lines, flags):
    """Lines of the branches @flags selects; conditionals on anything but
    SROCE_HAVE_* stay as they are."""
    out, stack = [], []         # stack: (kind, taking) kind 'ours'/'kept'
    for line in lines:
        m = COND.match(line)
        live = all(t for _, t in stack)
        if m:
            op, arg = m.groups()
            if op in ('ifdef', 'ifndef'):
                v = have(arg, flags)
                if v is not None:
                    stack.append(('ours', v if op == 'ifdef' else not v))
                    # A one-line comment above it says which kernel needs it.
                    if live and out and re.fullmatch(r'\s*/\*.*\*/\s*', out[-1]):
                        out.pop()
                    continue
                stack.append(('kept', True))
            elif op == 'if':
                stack.append(('kept', True))
            elif op in ('else', 'elif') and stack and stack[-1][0] == 'ours':
                if op == 'elif':
                    sys.exit('intree.py: #elif after a SROCE_HAVE_ test: ' + line)
                stack[-1] = ('ours', not stack[-1][1])
                continue
            elif op == 'endif' and stack:
                if stack.pop()[0] == 'ours':
                    continue
        if live:
            out.append(line)
    return out


def macros(compat, flags):
    defs = {}
    for line in choose(logical_lines(open(compat).read()), flags):
        m = DEFINE.match(line)
        if not m or m.group(1).startswith('_SROCE_'):
            continue
        name, params, body = m.group(1), m.group(3), m.group(4)
        if not re.match(r'(SROCE_|sroce_)', name):
            sys.exit('intree.py: %s stands in for an API this kernel lacks' % name)
        body = re.sub(r'\s+', ' ', body).strip()
        defs[name] = ([p.strip() for p in params.split(',')] if params is not None
                      else None, body)
    return defs


def split_args(text, start):
    """The arguments of a call whose '(' is at text[start], and the index
    past its ')'."""
    depth, args, cur, i = 0, [], '', start
    while i < len(text):
        c = text[i]
        if c == '(':
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c == ')':
            depth -= 1
            if depth == 0:
                args.append(cur.strip())
                return args, i + 1
        elif c == ',' and depth == 1:
            args.append(cur.strip())
            cur = ''
            i += 1
            continue
        cur += c
        i += 1
    sys.exit('intree.py: unbalanced call at ' + text[start:start + 40])


def expand(text, defs):
    for name, (params, body) in defs.items():
        if params is None:
            text = re.sub(r'\b%s\b' % name, body, text)
            continue
        pat = re.compile(r'\b%s\s*\(' % name)
        while True:
            m = pat.search(text)
            if not m:
                break
            args, end = split_args(text, m.end() - 1)
            out = body
            for p, a in zip(params, args):
                # (arg) loses its parentheses when arg is a plain name.
                if re.fullmatch(r'[\w.>-]+', a):
                    out = out.replace('(%s)' % p, a)
                out = re.sub(r'\b%s\b' % p, a, out)
            text = text[:m.start()] + out + text[end:]
    return text


def main():
    compat, flags, outdir = sys.argv[1], set(re.findall(r'-D(\w+)', sys.argv[2])), sys.argv[3]
    defs = macros(compat, flags)
    os.makedirs(outdir, exist_ok=True)
    for path in sys.argv[4:]:
        text = '\n'.join(choose(open(path).read().split('\n'), flags))
        with open(os.path.join(outdir, os.path.basename(path)), 'w') as f:
            f.write(expand(text, defs))


main()
