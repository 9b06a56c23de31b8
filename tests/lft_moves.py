#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Count the LFT entries a fault moved that it had no business moving.

usage: lft_moves.py TOPO LFTS_BEFORE LFTS_AFTER FAULT

TOPO: t_canon_topo output of the fabric before the fault; LFTS_*:
t_canon_lfts output ("switch_guid lid port").  FAULT: node:GUID (a host
or switch went down) or link:GUID:PORT (the link at that port).

Every entry (switch, LID) of the tables before is traced through them
(independently of ibflow): its route avoided the fault when it neither
visits the node nor crosses the link.  Such an entry must be the same
after.  Prints "entries N, route avoided the fault M, moved K, changed
in all C"; exit 1 when K > 0.
"""
import sys

from canon_topo import read_topo


def read_lfts(path):
    t = {}
    for line in open(path):
        f = line.split()
        if len(f) == 3:
            t[(f[0], int(f[1]))] = int(f[2])
    return t


def avoids(types, peer, lft, sw, lid, node, link):
    """Does the route of entry (sw, lid) avoid the fault?"""
    seen = set()
    while True:
        if sw == node:
            return False
        if sw in seen:
            return True                # a loop that never met the fault
        seen.add(sw)
        port = lft.get((sw, lid))
        if port is None or port == 0 or port == 255:
            return True                # ends here: never met the fault
        here = "%s:%d" % (sw, port)
        if here in link:
            return False
        far = peer.get(here)
        if far is None:
            return True
        nxt = far.split(":")[0]
        if nxt == node:
            return False
        if types.get(nxt) != "Switch":
            return True
        sw = nxt


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    types, peer = read_topo(sys.argv[1])
    before, after = read_lfts(sys.argv[2]), read_lfts(sys.argv[3])
    kind, _, what = sys.argv[4].partition(":")
    node, link = None, set()
    if kind == "node":
        node = format(int(what, 16), "x")
    elif kind == "link":
        g, p = what.rsplit(":", 1)
        a = "%s:%d" % (format(int(g, 16), "x"), int(p))
        link = {a, peer.get(a, a)}
    else:
        sys.exit(__doc__)
    avoided = moved = changed = 0
    for (sw, lid), port in before.items():
        if after.get((sw, lid)) != port:
            changed += 1
        if sw == node or not avoids(types, peer, before, sw, lid, node,
                                    link):
            continue
        avoided += 1
        if after.get((sw, lid)) != port:
            moved += 1
    print("entries %d, route avoided the fault %d, moved %d, changed in "
          "all %d" % (len(before), avoided, moved, changed))
    sys.exit(1 if moved else 0)


if __name__ == "__main__":
    main()
