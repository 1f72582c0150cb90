# SPDX-License-Identifier: GPL-2.0
"""A reStructuredText simple table, for the reports of the guest tests."""


def rst_table(rows):
    """rows (tuples of strings, the first the header) as a simple table."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    rule = " ".join("=" * w for w in widths)
    lines = [rule]
    for n, row in enumerate(rows):
        lines.append(" ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
        if n == 0:
            lines.append(rule)
    lines.append(rule)
    return "\n".join(lines)
