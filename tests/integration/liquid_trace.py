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
import json, os, re, sys
doc = json.load(open(sys.argv[1]))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from fabric_walk import Fabric
fab = Fabric(sys.argv[2], sys.argv[3])
if sys.argv[4] != '-':
    hosts = [l.strip() for l in open(sys.argv[4]) if l.strip()]
    want = [(a, b) for a in hosts for b in hosts if a != b]
else:
    want = [tuple(l.rstrip('\n').split('\t')) for l in open(sys.argv[5]) if l.strip()]
path = fab.path
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
