# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The tests' own reading of `ibflow order`, independent of libibflow:

  order_judge.py expect TOPO ORDER JOB
      the job's nodes (JOB: one name a line) in the routing's order, one a
      line: ORDER is a host list (the export's ibflow-order.txt: full
      NodeDescriptions, '#' lines skipped), hosts grouped by the switch
      their port links to, switches in the order their first host comes,
      a node (first word of its NodeDescription) at its first host.
  order_judge.py load TOPO LFTS RANKS
      the worst directed-link load of any shift permutation among the
      ranks (RANKS: a node name a line, rank = line), walked through the
      LFTs: for every s in 1..n-1, rank i sends to rank (i+s) mod n.
      Prints "worst W shift S" (the first shift reaching W).
  order_judge.py hostlist NAME...
      the names as one Slurm hostlist, runs of numbers in brackets with
      the width of the names (what Slurm writes in SLURM_JOB_NODELIST).
"""
import re
import sys

from fabric_walk import Fabric


def first_word(desc):
    return desc.split()[0] if desc.split() else ''


def expect(topo, order, job):
    fab = Fabric(topo, '/dev/null')
    leaf_of = {}
    for desc, node in fab.desc2node.items():
        leaf_of[desc] = fab.peer[(node, 1)][0]
    hosts = [ln.rstrip('\n') for ln in open(order)
             if ln.strip() and not ln.startswith('#')]
    leaves = []
    for h in hosts:
        if leaf_of[h] not in leaves:
            leaves.append(leaf_of[h])
    grouped = sorted(range(len(hosts)),
                     key=lambda i: (leaves.index(leaf_of[hosts[i]]), i))
    seen, out = set(), []
    for i in grouped:
        w = first_word(hosts[i])
        if w not in seen:
            seen.add(w)
            out.append(w)
    want = set(ln.strip() for ln in open(job) if ln.strip())
    for w in out:
        if w in want:
            print(w)


def load(topo, lfts, ranks):
    fab = Fabric(topo, lfts)
    by_name = {first_word(d): d for d in fab.desc2node}
    r = [by_name[ln.strip()] for ln in open(ranks) if ln.strip()]
    n, worst, at = len(r), 0, 0
    for s in range(1, n):
        links = {}
        for i in range(n):
            for hop in fab.path(r[i], r[(i + s) % n]):
                links[hop] = links.get(hop, 0) + 1
        w = max(links.values())
        if w > worst:
            worst, at = w, s
    print('worst %d shift %d' % (worst, at))


def hostlist(names):
    groups = {}
    for nm in names:
        m = re.match(r'^(.*?)(\d+)$', nm)
        pre, num = (m.group(1), m.group(2)) if m else (nm, None)
        groups.setdefault(pre, []).append(num)
    parts = []
    for pre, nums in groups.items():
        if nums == [None]:
            parts.append(pre)
            continue
        width = len(nums[0])
        vals = sorted(int(x) for x in nums)
        runs, lo = [], vals[0]
        for a, b in zip(vals, vals[1:] + [None]):
            if b != a + 1:
                runs.append('%0*d' % (width, lo) if lo == a else
                            '%0*d-%0*d' % (width, lo, width, a))
                lo = b
        parts.append('%s[%s]' % (pre, ','.join(runs)))
    print(','.join(parts))


if __name__ == '__main__':
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'expect':
        expect(*args)
    elif cmd == 'load':
        load(*args)
    elif cmd == 'hostlist':
        hostlist(args)
    else:
        sys.exit('order_judge.py: unknown command ' + cmd)
