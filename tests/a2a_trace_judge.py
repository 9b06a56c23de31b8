#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Judge of UCX_IBFLOW_ALLTOALL_TRACE files (tests/integration/
ucx_a2a_links.sh): no two host pairs' transfers that share a directed
link, a sending or a receiving host are ever in flight at once.

    a2a_trace_judge.py TOPO LFTS HOSTMAP PREFIX NRANKS

HOSTMAP: lines 'rank:N "NODEDESC"'.  PREFIX.R: the lines of rank R,
"S CALL SRC DST FRAME NS SL" (the send started) and "A CALL SRC DST FRAME
NS SL" (the block arrived), CLOCK_MONOTONIC of one machine; SL, the
context's (tests/route_sl_judge.py judges it), may be left out.  The links come from
the tests' own walk of the LFTs (fabric_walk.py), not from libibflow.
A transfer is in flight from its start to its arrival, a host pair (the
blocks of every rank of one host to every rank of another, which the
node-aware schedule sends at once over their one path) from its first
block's start to its last block's arrival; on every link the next host
pair must start after the previous one arrived, within a call and from
one call to the next (calls of one context, in a loop).  Blocks between
ranks of one host use no link of the fabric: they only have to be
traced.  With one rank per host a host pair is one transfer.  Prints "CALLS
TRANSFERS LINKS" and exits 0, or names the first overlap and exits 1."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fabric_walk import Fabric  # noqa: E402


def main():
    topo, lfts, hostmap, prefix, n = sys.argv[1:6]
    n = int(n)
    fab = Fabric(topo, lfts)
    host = {}
    for line in open(hostmap):
        m = re.match(r'^rank:(\d+)\s+"([^"]+)"', line)
        if m:
            host[int(m.group(1))] = m.group(2)
    start, arrive = {}, {}
    for r in range(n):
        for line in open('%s.%d' % (prefix, r)):
            kind, call, src, dst, frame, ns = line.split()[:6]
            key = (int(call), int(src), int(dst))
            table = start if kind == 'S' else arrive
            if key in table:
                sys.exit('transfer %s traced twice' % (key,))
            table[key] = int(ns)
    if set(start) != set(arrive):
        sys.exit('starts and arrivals differ: %s' %
                 sorted(set(start) ^ set(arrive))[:4])
    calls = sorted({k[0] for k in start})
    for c in calls:
        pairs = {(k[1], k[2]) for k in start if k[0] == c}
        if pairs != {(a, b) for a in range(n) for b in range(n) if a != b}:
            sys.exit('call %d: not every ordered pair traced' % c)
    span = {}
    for (c, a, b), t0 in start.items():
        ha, hb = host[a], host[b]
        if ha == hb:
            continue
        t1 = arrive[(c, a, b)]
        k = (c, ha, hb)
        if k in span:
            s0, s1, ab = span[k]
            span[k] = (min(s0, t0), max(s1, t1), ab if s0 <= t0 else (a, b))
        else:
            span[k] = (t0, t1, (a, b))
    users = {}
    for (c, ha, hb), (t0, t1, (a, b)) in span.items():
        links = [('send', ha), ('recv', hb)] + fab.path(ha, hb)
        for l in links:
            users.setdefault(l, []).append((t0, t1, c, a, b))
    for l, iv in users.items():
        iv.sort()
        for x, y in zip(iv, iv[1:]):
            if y[0] < x[1]:
                sys.exit('call %d: link %s: %d->%d started %d ns before '
                         'call %d\'s %d->%d arrived' %
                         (y[2], l, y[3], y[4], x[1] - y[0], x[2], x[3], x[4]))
    print('%d %d %d' % (len(calls), len(start), len(users)))


main()
