#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Judge of the SLs in UCX_IBFLOW_ALLTOALL_TRACE files (tests/integration/
ucx_a2a_sl.sh): every block between two hosts went on the context of its
route's SL, at both ends; blocks within a host on the data context.

    a2a_sl_judge.py TOPO SLFILE HOSTMAP PREFIX NRANKS [LID_OFFSET]

TOPO: the export's ibnetdiscover topology (LIDs and LMC read here, with
tests/fabric_walk.py); SLFILE: its ibflow-sl.txt ("* DLID SL" and "SLID
DLID SL" lines, the latter overriding, pairs no line covers on SL 0;
docs/routing.md), read here, not by libibflow.  HOSTMAP: lines
'rank:N "NODEDESC"'.  PREFIX.R: "S|A CALL SRC DST FRAME NS SL", SL the
one of the context the block was sent (S) or received (A) on, "-" for
the data context.  The route from host a to host b goes to b's base LID
+ LID_OFFSET (default 0).  SLFILE "-": the export has no SL file, so every
block must be on the data context.

Prints "CALLS BLOCKS SL:COUNT..." (blocks between hosts per SL, from the
senders' lines) and exits 0, or names the first block on another context
and exits 1."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fabric_walk import Fabric  # noqa: E402


def read_lmc(topo):
    m = re.search(r'#\s*lid \d+ lmc (\d+)', open(topo).read())
    return int(m.group(1)) if m else 0


def read_sls(path, fab, lmc):
    """(source node or None, DLID) -> SL."""
    owner = {}
    for node, base in fab.lid.items():
        for o in range(1 << lmc):
            owner[base + o] = node
    rules = {}
    for n, line in enumerate(open(path), 1):
        f = line.split('#')[0].split()
        if not f:
            continue
        if len(f) != 3:
            sys.exit('%s:%d: not "SLID DLID SL"' % (path, n))
        src = None if f[0] == '*' else owner[int(f[0])]
        rules[(src, int(f[1]))] = int(f[2])
    return rules


def main():
    topo, slfile, hostmap, prefix, n = sys.argv[1:6]
    offset = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    n = int(n)
    fab = Fabric(topo, os.devnull)
    rules = read_sls(slfile, fab, read_lmc(topo)) if slfile != '-' else None
    node = {}
    for line in open(hostmap):
        m = re.match(r'^rank:(\d+)\s+"([^"]+)"', line)
        if m:
            node[int(m.group(1))] = fab.desc2node[m.group(2)]

    def want(a, b):
        if node[a] == node[b] or rules is None:
            return '-'
        dlid = fab.lid[node[b]] + offset
        sl = rules.get((node[a], dlid), rules.get((None, dlid), 0))
        return str(sl)

    seen, per_sl, calls = {}, {}, set()
    for r in range(n):
        for line in open('%s.%d' % (prefix, r)):
            f = line.split()
            if len(f) != 7:
                sys.exit('%s.%d: no SL field: %s' % (prefix, r, line.strip()))
            kind, call, src, dst, sl = f[0], int(f[1]), int(f[2]), int(f[3]), f[6]
            if (kind == 'S') != (src == r) or (kind == 'A') != (dst == r):
                sys.exit('%s.%d: a line of another rank: %s' %
                         (prefix, r, line.strip()))
            w = want(src, dst)
            if sl != w:
                sys.exit('call %d: block %d->%d %s on SL %s, its route\'s '
                         'SL is %s' % (call, src, dst,
                                       'sent' if kind == 'S' else 'received',
                                       sl, w))
            seen.setdefault((call, src, dst), set()).add(kind)
            calls.add(call)
            if kind == 'S' and w != '-':
                per_sl[w] = per_sl.get(w, 0) + 1
    for c in calls:
        for a in range(n):
            for b in range(n):
                if a != b and seen.get((c, a, b)) != {'S', 'A'}:
                    sys.exit('call %d: block %d->%d not traced at both ends'
                             % (c, a, b))
    print('%d %d %s' % (len(calls), len(seen), ' '.join(
        '%s:%d' % kv for kv in sorted(per_sl.items())) or '-'))


main()
