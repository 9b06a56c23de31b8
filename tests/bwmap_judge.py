#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Judge a bandwidth map (ibflow-infer --bw) against the true fabric.

    bwmap_judge.py CANON PATHS RATES DOC PAIRS OUT [--range LO HI]
                   [--alone-range LO HI] [--alone N]

CANON: t_canon_topo output of the fabric (tests/lib.sh); PATHS:
t_trace_paths TOPO LFTS outs (the routes as the LFTs walk them); RATES:
lines "LINK MBIT" (LINK = a node description's first word, with :PORT for
switches) - the rates netns-fabric was given, a link's rate the least of
its two ends' entries, unlimited when none; DOC: the map (--bw); PAIRS:
--bw-pairs; OUT: the tool's text output.  Nothing here uses ibflow's code:
the prediction of a pair is recomputed from the document's edges (the
least bandwidth on the path in the tree they form).

Checks (exit 1 with the reasons): no two measurements of a round share a
link of the fabric; the tool's predictions equal the recomputed ones; the
printed counts equal the document's; with --range, every prediction
within [LO, HI] of its pair's configured bottleneck; with --alone N, N
pairs measured alone, their predicted/measured within --alone-range.
Prints one summary line (and "stats K V" lines with --stats).
"""
import json
import re
import shlex
import statistics
import sys


def load(argv):
    canon, paths, rates, doc, pairs, out = argv[:6]
    desc, peer = {}, {}
    for line in open(canon):
        f = line.split()
        if f[0] == "N":
            desc[f[2]] = " ".join(f[4:]).strip('"').split()[0]
        elif f[0] == "L":
            peer[f[1]] = f[2]
            peer[f[2]] = f[1]

    def name(gp):
        return desc[gp.split(":")[0]]

    rate = {}
    for line in open(rates):
        if line.strip() and not line.startswith("#"):
            link, r = line.split()
            rate[link if ":" in link else link + ":1"] = float(r)

    def link_rate(p):
        return min(rate.get("%s:%s" % (name(x), x.split(":")[1]),
                            float("inf")) for x in (p, peer[p]))

    # routes host -> host: the links (egress ports) crossed, undirected
    route, truth = {}, {}
    for line in open(paths):
        src, _dlid, dst, res, _lids, outs = line.split()
        if res != "ok":
            raise SystemExit("route %s -> %s: %s" % (src, dst, res))
        hops = [src] + ([] if outs == "-" else outs.split(","))
        key = (name(src), name(dst))
        route[key] = [frozenset((p, peer[p])) for p in hops]
        truth[key] = min(link_rate(p) for p in hops)
    d = json.load(open(doc))
    adj = {}
    for e in d["edges"]:
        a, b = e["a"].split()[0], e["b"].split()[0]
        adj.setdefault(a, []).append((b, e["bw"]))
        adj.setdefault(b, []).append((a, e["bw"]))
    tool = []
    for line in open(pairs):
        if not line.startswith("#"):
            a, b, p, m = shlex.split(line)
            tool.append((a.split()[0], b.split()[0], float(p),
                         None if m == "-" else float(m)))
    return route, truth, d, adj, tool, open(out).read()


def predict(adj, a, b):
    st, seen = [(a, float("inf"))], {a}
    while st:
        v, lo = st.pop()
        if v == b:
            return lo
        for u, bw in adj[v]:
            if u not in seen:
                seen.add(u)
                st.append((u, lo if bw is None else min(lo, bw)))
    return None


def opt_pair(argv, flag):
    if flag in argv:
        i = argv.index(flag)
        return float(argv[i + 1]), float(argv[i + 2])
    return None


def main(argv):
    route, truth, d, adj, tool, out = load(argv)
    rng = opt_pair(argv, "--range")
    arng = opt_pair(argv, "--alone-range") or (0.8, 1.25)
    nalone = int(argv[argv.index("--alone") + 1]) if "--alone" in argv else None
    bad = []
    hosts = sorted({a for a, _ in route})
    conf = []
    for i, a in enumerate(hosts):
        for b in hosts[i + 1:]:
            p = predict(adj, a, b)
            t = truth[(a, b)]
            if truth[(b, a)] != t:
                bad.append("%s-%s: routes of different rates" % (a, b))
            conf.append(p / t)
            if rng and not rng[0] <= p / t <= rng[1]:
                bad.append("%s-%s predicted %.2f, bottleneck %g" % (a, b, p, t))
    alone, alone_conf = [], []
    for a, b, p, m in tool:
        if abs(p - predict(adj, a, b)) > 1e-3 * p:
            bad.append("%s-%s: the tool predicts %.3f, the edges %.3f"
                       % (a, b, p, predict(adj, a, b)))
        if m is not None:
            alone.append(p / m)
            alone_conf.append(m / truth[(a, b)])
    if nalone is not None:
        if len(alone) != nalone:
            bad.append("%d pairs measured alone, not %d" % (len(alone), nalone))
        bad += ["predicted/alone %.3f" % x for x in alone
                if not arng[0] <= x <= arng[1]]
    conc = 0
    for r in d["rounds"]:
        used = {}
        ps = [(p["a"].split()[0], p["b"].split()[0]) for p in r["pairs"]]
        conc = max(conc, len(ps))
        for a, b in ps:
            for link in route[(a, b)]:
                if link in used:
                    bad.append("round shares link %s: %s and %s"
                               % (sorted(link), used[link], (a, b)))
                used[link] = (a, b)
    m = re.search(r"(\d+) stages, (\d+) rounds, (\d+) measurements of (\d+) pairs", out)
    if not m or (int(m.group(1)), int(m.group(2)), int(m.group(3))) != \
            (d["stages"], len(d["rounds"]), d["measurements"]):
        bad.append("printed counts %s, document %s stages %d rounds %d measurements"
                   % (m and m.groups(), d["stages"], len(d["rounds"]), d["measurements"]))
    if bad:
        print("\n".join(bad[:8]))
        return 1

    def mmm(v):
        return "%.3f/%.3f/%.3f" % (min(v), statistics.median(v), max(v)) if v else "-"
    print("%s stages, %s rounds, %s measurements (up to %d at once) for %s pairs; "
          "predicted/configured min/median/max %s over %d pairs (bottlenecks %s Mbit/s); "
          "%d alone: predicted/measured %s, measured/configured %s"
          % (m.group(1), m.group(2), m.group(3), conc, m.group(4), mmm(conf), len(conf),
             "/".join("%g" % x for x in sorted(set(truth.values()))), len(alone),
             mmm(alone), mmm(alone_conf)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
