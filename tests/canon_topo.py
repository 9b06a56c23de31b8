# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Read t_canon_topo output (tests/lib.sh) for the tests' Python judges:
"N type guid nports desc" and "L guid:port guid:port" lines."""


def read_topo(path):
    """(types: guid -> node type, peer: "guid:port" -> "guid:port")."""
    types, peer = {}, {}
    for line in open(path):
        f = line.split()
        if f and f[0] == "N":
            types[f[2]] = f[1]
        elif f and f[0] == "L":
            peer[f[1]] = f[2]
            peer[f[2]] = f[1]
    return types, peer
