#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The tests' own deadlock check, independent of libibflow: walk the
forwarding tables from every switch with hosts to every host LID (all
2^LMC of them), record each VL's channel dependencies (a channel is a
directed switch-to-switch link, (switch, egress port); arriving by one and
leaving by the next is a dependency) and look for a cycle in each VL's
graph.  VL = SL (SL2VL identity); without an SL file every packet is on
SL 0, as MPI over UCX sends.

    cdg_walk.py TOPO LFTS [SLFILE]

Prints one line per VL, "VL v: N dependencies, acyclic" or "VL v: cycle of
N channels: a/p -> b/q ..."; exits 1 if some VL has a cycle, 2 on a
broken route.
"""
import re
import sys

sys.path.insert(0, __import__('os').path.dirname(__file__))
from fabric_walk import Fabric  # noqa: E402


def host_lids(topo):
    """(node, base LID, LMC) of every CA port, from the topology."""
    out, node, ca = [], None, False
    for line in open(topo):
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
        if m:
            node, ca = m.group(2), m.group(1) == 'Ca'
            continue
        m = re.search(r'#\s*lid (\d+) lmc (\d+)', line)
        if ca and m and line.startswith('['):
            out.append((node, int(m.group(1)), int(m.group(2))))
    return out


def read_sls(path):
    """SL by DLID ("* DLID SL") and by (SLID, DLID)."""
    by_dlid, by_pair = {}, {}
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith('#'):
            continue
        if f[0] == '*':
            by_dlid[int(f[1])] = int(f[2])
        else:
            by_pair[(int(f[0]), int(f[1]))] = int(f[2])
    return by_dlid, by_pair


def find_cycle(deps):
    """A cycle of the graph {channel: set(next channels)}, or None
    (iterative depth-first search, three colours)."""
    colour, parent = {}, {}
    for root in deps:
        if colour.get(root):
            continue
        stack = [(root, iter(deps.get(root, ())))]
        colour[root] = 1
        while stack:
            c, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[c] = 2
                stack.pop()
                continue
            if colour.get(nxt) == 1:  # back edge: the cycle nxt .. c
                cyc, x = [c], c
                while x != nxt:
                    x = parent[x]
                    cyc.append(x)
                return cyc[::-1]
            if not colour.get(nxt):
                colour[nxt] = 1
                parent[nxt] = c
                stack.append((nxt, iter(deps.get(nxt, ()))))
    return None


def main(argv):
    topo, lfts = argv[1], argv[2]
    fab = Fabric(topo, lfts)
    by_dlid, by_pair = read_sls(argv[3]) if len(argv) > 3 else ({}, {})
    hosts = host_lids(topo)
    # sources: (the host's base LID, the switch it hangs off)
    srcs = [(lid, fab.peer[(node, 1)][0]) for node, lid, _ in hosts
            if (node, 1) in fab.peer]
    if not by_pair:  # the SL depends on the DLID only: one walk a switch
        srcs = [(None, s) for s in sorted({s for _, s in srcs})]
    owner = {}
    for node, lid, lmc in hosts:
        for o in range(1 << lmc):
            owner[lid + o] = node
    vls = {}
    for dlid in sorted(owner):
        dst = owner[dlid]
        for slid, sw in srcs:
            if slid is not None and owner.get(slid) == dst:
                continue
            vl = by_pair.get((slid, dlid), by_dlid.get(dlid, 0))
            deps = vls.setdefault(vl, {})
            at, prev, hops = sw, None, 0
            while at != dst:
                port = fab.lft.get((at, dlid))
                if port is None or (at, port) not in fab.peer:
                    print('broken route to LID %d at %s' % (dlid, at))
                    return 2
                ch = (at, port)
                if prev is not None:
                    deps.setdefault(prev, set()).add(ch)
                nxt = fab.peer[ch][0]
                # a host link ends the route: no dependency beyond it
                prev = ch if nxt != dst else None
                at = nxt
                hops += 1
                if hops > 64:
                    print('routing loop towards LID %d' % dlid)
                    return 2
    rc = 0
    for vl in sorted(vls):
        deps = vls[vl]
        n = sum(len(v) for v in deps.values())
        cyc = find_cycle(deps)
        if cyc:
            rc = 1
            print('VL %d: cycle of %d channels: %s' % (vl, len(cyc), ' -> '.join(
                '%s/%d' % c for c in cyc)))
        else:
            print('VL %d: %d dependencies, acyclic' % (vl, n))
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
