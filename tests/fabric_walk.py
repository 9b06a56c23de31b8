# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The tests' own reading of a fabric, independent of libibflow: an
ibnetdiscover topology and an OpenSM LFT dump, and the directed links
(node, egress port) of the route from one host to another.

    fab = Fabric(TOPO, LFTS)
    fab.path("h0001 HCA-1", "h0005 HCA-1")  # [(node, port), ...]
"""
import re


class Fabric:
    def __init__(self, topo, lfts):
        self.peer, self.lid, self.desc2node, sw = {}, {}, {}, {}
        node = guid = None
        for line in open(topo):
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
                    self.desc2node[m.group(3)] = node
                continue
            m = re.match(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s*"([^"]+)"\[(\d+)\](.*)', line)
            if m and node:
                self.peer[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)))
                lid = re.search(r'#\s*lid (\d+) lmc', m.group(4))
                if lid and not node.startswith('S-'):
                    self.lid[node] = int(lid.group(1))
        self.lft, cur = {}, None
        for line in open(lfts):
            m = re.match(r'^Unicast lids .*guid (0x[0-9a-fA-F]+)', line)
            if m:
                cur = sw[int(m.group(1), 16)]
                continue
            m = re.match(r'^(0x[0-9a-fA-F]+)\s+(\d+)', line)
            if m and cur:
                self.lft[(cur, int(m.group(1), 16))] = int(m.group(2))
        self._tails = {}

    def path(self, a, b):
        """Directed links from host a to host b (NodeDescriptions), the
        source's port first, walked through the LFTs to b's base LID."""
        na, nb = self.desc2node[a], self.desc2node[b]
        first = self.peer[(na, 1)]
        key = (first[0], b)
        if key not in self._tails:
            hops, at, d = [], first, self.lid[nb]
            while at[0] != nb:
                out = self.lft[(at[0], d)]
                hops.append((at[0], out))
                at = self.peer[(at[0], out)]
                assert len(hops) < 64, 'routing loop towards ' + b
            self._tails[key] = hops
        return [(na, 1)] + self._tails[key]
