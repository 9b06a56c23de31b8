#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Judge of libibflow_ucx's route SLs (UCX_IBFLOW_ROUTE_SL; tests/
integration/ucx_a2a_sl.sh): messages between two hosts on the context of
their route's SL, at both ends; within a host on the data context.

    route_sl_judge.py a2a TOPO SLFILE HOSTMAP PREFIX NRANKS
    route_sl_judge.py probe TOPO SLFILE HOSTMAP RTTFILE OUTPUT W R N
    route_sl_judge.py bwmap TOPO SLFILE HOSTMAP DOC PAIRS OUTPUT N

TOPO: the export's ibnetdiscover topology (LIDs and LMC read here, with
tests/fabric_walk.py); SLFILE: its ibflow-sl.txt ("* DLID SL" and "SLID
DLID SL" lines, the latter overriding, pairs no line covers on SL 0;
docs/routing.md), read here, not by libibflow; "-": every message must
be on the data context.  HOSTMAP: lines 'rank:N "NODEDESC"'.  The route
from host a to host b goes to b's base LID.

a2a: PREFIX.R are UCX_IBFLOW_ALLTOALL_TRACE files, "S|A CALL SRC DST
FRAME NS SL", SL the one of the context the block was sent (S) or
received (A) on, "-" for the data context.  Prints "CALLS BLOCKS
SL:COUNT..." (blocks between hosts per SL, from the senders' lines).

probe: an all-pairs run of ibflow-probe --verbose, one rank per host:
RTTFILE its --rtt-out ('"A" "B" ...' per pair, A the host that pinged),
OUTPUT its stdout with the lines "rank R: route SLs: SL k sent S
received C, ...".  With W warm-up exchanges, R runs of exactly N
exchanges each, A sends B W + R (N + 1) messages (the pings and a stop
per run) and B sends A W + R N (the pongs), each on its route's SL; the
counts of every rank and SL must be exactly those.  Prints "PAIRS
SL:MESSAGES...".

bwmap: a bandwidth map of ibflow-infer --bw --verbose, one rank per host:
DOC its map (the rounds' pairs, "a" streaming to "b"), PAIRS its
--bw-pairs (a pair with a measured ALONE column: A streamed to B once
more, alone), OUTPUT its stdout with the route SL lines as above.  Every
measurement is a one-byte exchange both ways and then N messages from
sender to receiver (--bw-bytes / --bw-chunk, rounded up), each on its
route's SL: the sender sends N + 1 on SL(a -> b) and 1 is sent back on
SL(b -> a).  Prints "MEASUREMENTS SL:MESSAGES...".

Exits 0, or names the first message on another context and exits 1."""
import json
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


class Routes:
    """The SL each rank's messages to another rank must go on."""

    def __init__(self, topo, slfile, hostmap):
        self.fab = fab = Fabric(topo, os.devnull)
        self.rules = (read_sls(slfile, fab, read_lmc(topo))
                      if slfile != '-' else None)
        self.node, self.rank_of = {}, {}
        for line in open(hostmap):
            m = re.match(r'^rank:(\d+)\s+"([^"]+)"', line)
            if m:
                self.node[int(m.group(1))] = fab.desc2node[m.group(2)]
                self.rank_of[m.group(2)] = int(m.group(1))

    def want(self, a, b):
        if self.node[a] == self.node[b] or self.rules is None:
            return '-'
        dlid = self.fab.lid[self.node[b]]
        return str(self.rules.get((self.node[a], dlid),
                                  self.rules.get((None, dlid), 0)))


def a2a(topo, slfile, hostmap, prefix, n):
    n = int(n)
    want = Routes(topo, slfile, hostmap).want
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


def read_counts(output):
    """(rank, SL, 'sent' | 'received') -> messages, zeros left out."""
    got = {}
    for line in open(output):
        m = re.match(r'^rank (\d+): route SLs:(.*)', line)
        if not m:
            continue
        for sl, s, c in re.findall(r'SL (\d+) sent (\d+) received (\d+)',
                                   m.group(2)):
            got[(int(m.group(1)), sl, 'sent')] = int(s)
            got[(int(m.group(1)), sl, 'received')] = int(c)
    return {k: v for k, v in got.items() if v}


def compare(want, got):
    """Exit naming the first count that differs; messages sent per SL."""
    if '-' in {k[1] for k in want}:
        want = {}   # the data context: no message on an SL context
    for k in sorted(set(want) | set(got)):
        if want.get(k, 0) != got.get(k, 0):
            sys.exit('rank %d, SL %s: %d messages %s, %d expected' %
                     (k[0], k[1], got.get(k, 0), k[2], want.get(k, 0)))
    per_sl = {}
    for (rank, sl, kind), v in want.items():
        if kind == 'sent':
            per_sl[sl] = per_sl.get(sl, 0) + v
    return ' '.join('%s:%d' % kv for kv in sorted(per_sl.items())) or '-'


def counter(rt):
    """want, add(src, dst, count): count messages src -> dst on their
    route's SL."""
    want = {}

    def add(src, dst, count):
        sl = rt.want(src, dst)
        for key in ((src, sl, 'sent'), (dst, sl, 'received')):
            want[key] = want.get(key, 0) + count
    return want, add


def bwmap(topo, slfile, hostmap, doc, pairs, output, n):
    n = int(n)
    rt = Routes(topo, slfile, hostmap)
    want, add = counter(rt)
    meas = [(p['a'], p['b']) for r in json.load(open(doc))['rounds']
            for p in r['pairs']]
    for line in open(pairs):
        m = re.match(r'^"([^"]+)"\s+"([^"]+)"\s+\S+\s+(\S+)', line)
        if m and m.group(3) != '-':
            meas.append((m.group(1), m.group(2)))
    for a, b in meas:
        add(rt.rank_of[a], rt.rank_of[b], n + 1)
        add(rt.rank_of[b], rt.rank_of[a], 1)
    print('%d %s' % (len(meas), compare(want, read_counts(output))))


def probe(topo, slfile, hostmap, rttfile, output, w, r, n):
    w, r, n = int(w), int(r), int(n)
    rt = Routes(topo, slfile, hostmap)
    want, add = counter(rt)
    rank_of = rt.rank_of
    ping, pong = w + r * (n + 1), w + r * n
    pairs = 0
    for line in open(rttfile):
        m = re.match(r'^"([^"]+)"\s+"([^"]+)"', line)
        if m:
            a, b = rank_of[m.group(1)], rank_of[m.group(2)]
            add(a, b, ping)
            add(b, a, pong)
            pairs += 1
    print('%d %s' % (pairs, compare(want, read_counts(output))))


if len(sys.argv) == 7 and sys.argv[1] == 'a2a':
    a2a(*sys.argv[2:])
elif len(sys.argv) == 10 and sys.argv[1] == 'probe':
    probe(*sys.argv[2:])
elif len(sys.argv) == 9 and sys.argv[1] == 'bwmap':
    bwmap(*sys.argv[2:])
else:
    sys.exit(__doc__)
