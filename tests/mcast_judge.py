#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Judge a multicast group's forwarding tables, independently of ibflow.

usage: mcast_judge.py TOPO MFTS MLID MEMBER_GUID...

TOPO: t_canon_topo output ("N type guid nports desc", "L g:p g:p");
MFTS: `ibroute -M LID` outputs of every switch, concatenated;
MLID: e.g. 0xc000; MEMBER_GUID: node GUIDs of the CAs that joined (hex).

The group is routed when its table entries form one tree: every member's
port is set at its leaf switch, no other CA's port is, switch-to-switch
ports are set on both ends, and the switches holding the group are
connected by those links without a cycle.  Prints "ok: N members, M
switches" or the first problems; exit 0 / 1.
"""
import re
import sys

from canon_topo import read_topo


def guid(s):
    return format(int(s, 16), "x")


def read_mfts(path, mlid):
    """switch guid -> set of ports with the MLID set."""
    ports, sw, cols = {}, None, None
    for line in open(path):
        m = re.search(r"guid (0x[0-9a-fA-F]+)", line)
        if line.startswith("Multicast mlids") and m:
            sw, cols = guid(m.group(1)), None
            ports[sw] = set()
            continue
        if line.lstrip().startswith("Ports:"):
            # ibroute prints port p's column at 12 + 2p
            cols = {12 + 2 * p: p for p in range(len(line.split()) - 1)}
            continue
        f = line.split()
        if sw and cols and f and f[0].lower() == mlid.lower():
            ports[sw] |= {p for c, p in cols.items()
                          if c < len(line) and line[c] == "x"}
    return ports


def judge(types, peer, ports, members):
    bad, edges = [], set()
    for sw, ps in ports.items():
        for p in ps:
            if p == 0:
                continue
            far = peer.get("%s:%d" % (sw, p))
            if far is None:
                bad.append("switch %s port %d set, no link there" % (sw, p))
                continue
            node = far.split(":")[0]
            if types.get(node) == "Switch":
                back = int(far.split(":")[1])
                if back not in ports.get(node, set()):
                    bad.append("%s port %d set, not the other end %s"
                               % (sw, p, far))
                edges.add(tuple(sorted((sw, node))))
            elif node not in members:
                bad.append("non-member CA %s reached at %s port %d"
                           % (node, sw, p))
            else:
                members[node] = True
    bad += ["member %s not reached" % m for m, ok in members.items()
            if not ok]
    tree = {sw for sw, ps in ports.items() if ps - {0}}
    if len(edges) != len(tree) - 1:
        bad.append("%d links among %d switches: not a tree"
                   % (len(edges), len(tree)))
    seen, todo = set(), [next(iter(tree))] if tree else []
    while todo:
        s = todo.pop()
        if s not in seen:
            seen.add(s)
            todo += [b if a == s else a for a, b in edges if s in (a, b)]
    if seen != tree:
        bad.append("switches of the group not connected")
    return bad, len(tree)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    types, peer = read_topo(sys.argv[1])
    ports = read_mfts(sys.argv[2], sys.argv[3])
    members = {guid(g): False for g in sys.argv[4:]}
    bad, nsw = judge(types, peer, ports, members)
    if bad:
        print("\n".join(bad[:5]))
        sys.exit(1)
    print("ok: %d members, %d switches" % (len(members), nsw))


if __name__ == "__main__":
    main()
