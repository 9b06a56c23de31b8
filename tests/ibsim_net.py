#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Rewrite an ibsim net file (as `ibflow gen --format ibsim` writes it).

usage: ibsim_net.py FILE shuffle SEED      every switch's ports permuted
                                            differently (no port convention)
       ibsim_net.py FILE drop-node NAME    a node and its links removed
       ibsim_net.py FILE drop-link NAME P  the link at port P of NAME removed

The result goes to stdout.  NAME is the quoted node name ("S-..."/"H-...").
"""
import random
import re
import sys

PORT = re.compile(r'^\[(\d+)\](\s+)"([^"]+)"\[(\d+)\](.*)$')
NODE = re.compile(r'^(Switch|Hca|Ca)\s+(\d+)\s+"([^"]+)"')


def parse(path):
    """[(name, kind, lines)], node blocks in file order (name None for
    text between blocks)."""
    blocks, cur = [], [None, None, []]
    for line in open(path):
        line = line.rstrip("\n")
        m = NODE.match(line)
        if m:
            # the guid line just before belongs to the node
            guid = cur[2].pop() if cur[2] and "guid=" in cur[2][-1] else None
            blocks.append(cur)
            cur = [m.group(3), m.group(1), ([guid] if guid else []) + [line]]
        else:
            cur[2].append(line)
    blocks.append(cur)
    return blocks


def rewrite_ports(blocks, fn):
    """fn(name, port, peer, peer_port) -> (port, peer_port) or None."""
    for b in blocks:
        out = []
        for line in b[2]:
            m = PORT.match(line)
            if not m or b[0] is None:
                out.append(line)
                continue
            r = fn(b[0], int(m.group(1)), m.group(3), int(m.group(4)))
            if r is not None:
                out.append('[%d]%s"%s"[%d]%s' % (r[0], m.group(2), m.group(3),
                                                 r[1], m.group(5)))
        head = [x for x in out if not PORT.match(x)]
        ports = sorted((x for x in out if PORT.match(x)),
                       key=lambda x: int(PORT.match(x).group(1)))
        blank = [x for x in head if x == ""]
        b[2] = [x for x in head if x != ""] + ports + blank


def shuffle(blocks, seed):
    rng = random.Random(seed)
    perm = {}
    for name, kind, lines in blocks:
        if kind == "Switch":
            n = int(NODE.match(next(x for x in lines if NODE.match(x)))
                    .group(2))
            p = list(range(1, n + 1))
            rng.shuffle(p)
            perm[name] = dict(zip(range(1, n + 1), p))

    def move(name, port, peer, peer_port):
        return (perm.get(name, {}).get(port, port),
                perm.get(peer, {}).get(peer_port, peer_port))
    rewrite_ports(blocks, move)


def drop_node(blocks, victim):
    blocks[:] = [b for b in blocks if b[0] != victim]
    rewrite_ports(blocks, lambda n, p, peer, pp:
                  None if peer == victim else (p, pp))


def drop_link(blocks, name, port):
    def keep(n, p, peer, pp):
        if (n, p) == (name, port):
            keep.peer = (peer, pp)
            return None
        return (p, pp)
    keep.peer = None
    rewrite_ports(blocks, keep)
    if keep.peer:
        peer = keep.peer
        rewrite_ports(blocks, lambda n, p, q, qp:
                      None if (n, p) == peer else (p, qp))


def main():
    a = sys.argv
    if len(a) < 4:
        sys.exit(__doc__)
    blocks = parse(a[1])
    if a[2] == "shuffle":
        shuffle(blocks, int(a[3]))
    elif a[2] == "drop-node":
        drop_node(blocks, a[3])
    elif a[2] == "drop-link" and len(a) == 5:
        drop_link(blocks, a[3], int(a[4]))
    else:
        sys.exit(__doc__)
    for b in blocks:
        for line in b[2]:
            print(line)


if __name__ == "__main__":
    main()
