#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Independent tracer for `ibflow liquid --json` schedules (liquid_limit.sh,
liquid_cli.sh): reads the ibnetdiscover topology and the LFT dump itself,
walks every transfer, and checks each transfer scheduled once, no directed
link twice in a frame, the duration recomputed, liquid iff frames ==
duration.  Prints "FRAMES DURATION LIQUID TIME_S".

  liquid_trace.py JSON TOPO LFTS HOSTFILE|- PAIRFILE|-
Pairs: all ordered pairs of HOSTFILE, or the lines "SRC<tab>DST" of
PAIRFILE (hosts by NodeDescription)."""
import json, re, sys
doc = json.load(open(sys.argv[1]))
peer, lid, desc2node, sw = {}, {}, {}, {}
node = None
for line in open(sys.argv[2]):
    m = re.match(r'^(switchguid|caguid)=(0x[0-9a-fA-F]+)', line)
    if m:
        guid = int(m.group(2), 16)
        continue
    m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"(?:\s*#\s*"([^"]*)")?', line)
    if m:
        node = m.group(2)
        if m.group(1) == 'Switch':
            sw[guid] = node
        elif m.group(3):
            desc2node[m.group(3)] = node
        continue
    m = re.match(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s*"([^"]+)"\[(\d+)\](.*)', line)
    if m and node:
        peer[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)))
        l = re.search(r'#\s*lid (\d+) lmc', m.group(4))
        if l and not node.startswith('S-'):
            lid[node] = int(l.group(1))
lft, cur = {}, None
for line in open(sys.argv[3]):
    m = re.match(r'^Unicast lids .*guid (0x[0-9a-fA-F]+)', line)
    if m:
        cur = sw[int(m.group(1), 16)]
        continue
    m = re.match(r'^(0x[0-9a-fA-F]+)\s+(\d+)', line)
    if m and cur:
        lft[(cur, int(m.group(1), 16))] = int(m.group(2))
if sys.argv[4] != '-':
    hosts = [l.strip() for l in open(sys.argv[4]) if l.strip()]
    want = [(a, b) for a in hosts for b in hosts if a != b]
else:
    want = [tuple(l.rstrip('\n').split('\t')) for l in open(sys.argv[5]) if l.strip()]
tails = {}
def path(a, b):
    na, nb = desc2node[a], desc2node[b]
    first = peer[(na, 1)]
    key = (first[0], b)
    if key not in tails:
        hops, at, d = [], first, lid[nb]
        while at[0] != nb:
            out = lft[(at[0], d)]
            hops.append((at[0], out))
            at = peer[(at[0], out)]
            assert len(hops) < 64, 'loop'
        tails[key] = hops
    return [(na, 1)] + tails[key]
load = {}
for a, b in want:
    for h in path(a, b):
        load[h] = load.get(h, 0) + 1
dur = max(load.values())
assert doc['duration'] == dur, (doc['duration'], dur)
got = []
for fr in doc['frames']:
    used = set()
    for a, b in fr:
        for h in path(a, b):
            assert h not in used, 'link %s used twice in a frame' % (h,)
            used.add(h)
        got.append((a, b))
assert sorted(got) == sorted(want), 'frames do not partition the transfers'
assert len(doc['frames']) >= dur
assert doc['liquid'] == (len(doc['frames']) == dur)
print('%d %d %s %.3f' % (len(doc['frames']), dur, doc['liquid'], doc['time_s']))
