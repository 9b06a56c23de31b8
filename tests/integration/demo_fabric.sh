#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The demo's second half (scripts/demo-fabric.sh, run by scripts/demo.sh
# after its OpenSM table) on a small routed tree without OpenSM: the
# 16-host fat tree xgft:2:4,4:1,4 routed by dmodk (`ibflow route`, host
# order from --order-out), 8 processes, links at 100 Mbit/s.  Judged by
# what is computed here, not by the tools it runs:
#  - the hosts: 8, two on each of the 4 leaf switches (awk over the
#    topology);
#  - the probes: every one of the 28 pairs measured once by --all-pairs,
#    in 28 rounds; the planned run measures fewer pairs, in fewer rounds,
#    no host twice in a round, at least ceil(pairs / 4) rounds, and
#    predicts every other pair;
#  - the liquid bound: the busiest directed link's transfers over all
#    ordered pairs, counted on the routes of t_trace_paths (lib.sh's own
#    tracer), equals the duration the demo read from `ibflow liquid`;
#  - the all-to-all: every algorithm's time at least what the links allow:
#    the busiest link's bytes less the tbf bucket (10 ms of the rate,
#    docs/netns-fabric.md) at the link rate; the algorithms that ran, by
#    libibflow_mpi's counters: Open MPI's own under the default (over TCP
#    `auto` declines, docs/ucx-alltoall.md), liquid and pairwise when
#    asked;
#  - liquid forced: every call liquid by the counters, the schedule's
#    duration the busiest link's blocks, no fewer frames;
#  - the simulated table (ibflow sim): each schedule no faster than its
#    bound, the bound the busiest link's blocks at 4xEDR (plus headers);
#  - the printed tables carry the JSON's figures, and the line saying why
#    the default declines over TCP.
# Skips (with the script's own reason) without root, namespaces, mpirun or
# the UCX component.  About 30 s.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

N=demo_fabric
W=$T_TMP
"$t_ibflow" gen xgft:2:4,4:1,4 -o "$W/topo" >/dev/null &&
	"$t_ibflow" route --topo "$W/topo" --engine dmodk -o "$W/lfts" \
		--order-out "$W/order" >/dev/null || {
	t_fail "$N: gen and route" "$(t_errhead)"
	t_done
}
BUILD_DIR=$T_BUILD_DIR DEMO_NETNS_NAME=ibfdt DEMO_HOSTS=8 DEMO_RATE=100mbit DEMO_BLOCK=262144 \
	bash "$T_REPO/scripts/demo-fabric.sh" "$W/topo" "$W/lfts" "$W/out" "" \
	"$W/order" >"$W/demo.txt" 2>&1
rc=$?
if grep -q '^   skipped: ' "$W/demo.txt"; then
	t_skip "$N" "$(sed -n 's/^   skipped: //p' "$W/demo.txt")"
	t_done
fi
if [ $rc -ne 0 ]; then
	t_fail "$N: demo-fabric.sh" "exit $rc: $(grep -m3 'FAILED\|Error\|error' "$W/demo.txt" | head -c 400)"
	t_done
fi
t_pass "$N: demo-fabric.sh ran (exit 0)"

# hosts per leaf, from the topology: CA descriptions on each switch's ports
awk '/^Switch/ { sw = $0; next } /^(Ca|Rt)/ { sw = ""; next }
     sw != "" && /"H-/ { match($0, /# "[^"]+"/); print substr($0, RSTART + 3, RLENGTH - 4), sw }' \
	"$W/topo" >"$W/leaf-of"
if awk 'FNR == NR { h = $1 " " $2; $1 = $2 = ""; leaf[h] = $0; next }
	{ n++; c[leaf[$0]]++ }
	END { if (n != 8) exit 1; k = 0; for (l in c) { k++; if (l == "" || c[l] != 2) exit 1 }
	      exit k != 4 }' "$W/leaf-of" "$W/out/hosts.txt"; then
	t_pass "$N: 8 hosts, two on each of the 4 leaves"
else
	t_fail "$N: host choice" "$(tr '\n' ';' <"$W/out/hosts.txt")"
fi

t_trace_paths "$W/topo" "$W/lfts" >"$W/paths"
python3 - "$W/out" "$W/paths" >"$W/check" 2>&1 <<'PY'
import json, math, sys
out, paths = sys.argv[1], sys.argv[2]
s = json.load(open(out + "/summary.json"))
pl = json.load(open(out + "/probe-planned.json"))
ap = json.load(open(out + "/probe-all.json"))
n = s["hosts"]
fails = []
# probes
pairs = n * (n - 1) // 2
seen = {frozenset((m["a"], m["b"])) for m in ap["measurements"]}
if len(ap["measurements"]) != pairs or len(seen) != pairs or ap["rounds"] != pairs:
    fails.append("all-pairs run: %d measurements, %d rounds" % (len(ap["measurements"]), ap["rounds"]))
pp = len(pl["measurements"])
if not (0 < pp < pairs and pl["rounds"] < pairs and pl["rounds"] >= math.ceil(pp / (n // 2))):
    fails.append("plan: %d pairs in %d rounds" % (pp, pl["rounds"]))
byround = {}
for m in pl["measurements"]:
    byround.setdefault(m["round"], []).extend([m["a"], m["b"]])
if any(len(h) != len(set(h)) for h in byround.values()):
    fails.append("a host probed twice in one round")
if s["probe"]["predicted"] != pairs - pp or s["probe"]["planned_pairs"] != pp:
    fails.append("predicted %d, expected %d" % (s["probe"]["predicted"], pairs - pp))
if not pl["topology_aware"] or pl["all_pairs"]:
    fails.append("the planned run was not topology-aware")
# the bound: the busiest directed link over the hosts' ordered pairs, on
# the routes of lib.sh's tracer (guid:port of each host from the host map)
gp = {}
for line in open(out + "/hostmap"):
    if not line.startswith("#"):
        f = line.split()
        gp[" ".join(f[11:])] = "%x:%d" % (int(f[7], 16), int(f[3]))
hosts = [l.strip() for l in open(out + "/hosts.txt") if l.strip()]
want = {gp[h] for h in hosts}
load = {}
for line in open(paths):
    src, dlid, dst, res, lids = line.split()[:5]
    src, dst = ("%x:%d" % (int(x.split(":")[0], 16), int(x.split(":")[1])) for x in (src, dst))
    if src not in want or dst not in want or src == dst:
        continue
    if res != "ok":
        fails.append("route %s -> %s: %s" % (src, dst, res))
        continue
    hops = [src] + (lids.split(",") if lids != "-" else []) + [dst]
    for l in zip(hops, hops[1:]):
        load[l] = load.get(l, 0) + 1
busiest = max(load.values())
if s["liquid"]["duration"] != busiest:
    fails.append("liquid duration %d, busiest link %d" % (s["liquid"]["duration"], busiest))
# the all-to-all against what the links allow
rate = s["rate_bps"] / 8
floor_us = max(0.0, busiest * s["block_bytes"] - 0.010 * rate) / rate * 1e6
for alg, want_ran in (("default", "mpi"), ("liquid", "liquid"), ("ompi", "unknown"),
                      ("pairwise", "pairwise")):
    a = s["a2a"].get(alg)
    if not a:
        fails.append("%s: no result" % alg)
        continue
    if a["max_us"] < floor_us:
        fails.append("%s: %.0f us, faster than the links allow (%.0f)" % (alg, a["max_us"], floor_us))
    if a["ran"] != want_ran:
        fails.append("%s ran %s" % (alg, a["ran"]))
# liquid forced: every call liquid by the counters, its schedule no
# shorter than the busiest link's blocks
lq = s["a2a"].get("liquid") or {}
if lq.get("liquid_calls") != 4 or lq.get("duration") != busiest or \
   (lq.get("frames") or 0) < busiest:
    fails.append("liquid forced: %s calls liquid, %s frames, duration %s (busiest %d)" % (
        lq.get("liquid_calls"), lq.get("frames"), lq.get("duration"), busiest))
# the simulation: every schedule completes no sooner than its bound, the
# bound the busiest link's blocks at 4xEDR (4 x 25.78125 Gb/s, 64b/66b)
# plus packet headers (under 5 % at a 2048-byte MTU)
edr4 = 4 * 25.78125e9 * 64 / 66
floor_s = busiest * s["block_bytes"] * 8 / edr4
for alg in ("liquid", "linear", "pairwise"):
    v = s.get("sim", {}).get(alg)
    if not v:
        fails.append("sim %s: no result" % alg)
    elif not (floor_s <= v["bound_s"] <= 1.05 * floor_s and v["time_s"] >= v["bound_s"]):
        fails.append("sim %s: %.3g s, bound %.3g s, the links' %.3g s" % (
            alg, v["time_s"], v["bound_s"], floor_s))
print("%d of %d pairs planned in %d rounds (all pairs: %d rounds), %d predicted; "
      "busiest link %d blocks = liquid duration; all-to-all %s us >= %.0f us "
      "(bound %.0f us)" % (pp, pairs, pl["rounds"], ap["rounds"], pairs - pp, busiest,
      " / ".join("%s %.0f" % (k, v["max_us"]) for k, v in s["a2a"].items()),
      floor_us, s["liquid"]["bound_us"]))
# the table prints the JSON's figures
txt = open(sys.argv[1] + "/../demo.txt").read()
for alg, label in (("default", "default (libibflow_mpi preloaded)"), ("ompi", "Open MPI's own"),
                   ("liquid", "liquid forced"), ("pairwise", "round robin (pairwise)")):
    row = [l for l in txt.splitlines() if label in l]
    a = s["a2a"].get(alg)
    if a and (not row or "%.0f ms" % (a["max_us"] / 1e3) not in row[0]):
        fails.append("table row of %s does not show %.0f ms" % (alg, a["max_us"] / 1e3))
    if alg == "liquid" and a and row and "%d frames" % a["frames"] not in row[0]:
        fails.append("liquid row does not show %d frames" % a["frames"])
for alg, label in (("liquid", "liquid schedule"), ("linear", "linear (all at once)"),
                   ("pairwise", "round robin (pairwise)")):
    v = s.get("sim", {}).get(alg)
    row = [l for l in txt.splitlines() if l.startswith("  " + label) and " us " in l]
    if v and (not row or "%.1f %%" % v["of_bound"] not in row[0]):
        fails.append("simulated row of %s does not show %.1f %%" % (alg, v["of_bound"]))
if "over TCP `auto` never takes liquid" not in " ".join(txt.split()):
    fails.append("no line saying why the default declines over TCP")
if fails:
    print("; ".join(fails))
sys.exit(1 if fails else 0)
PY
if [ $? -eq 0 ]; then
	t_pass "$N: $(head -1 "$W/check")"
else
	t_fail "$N: figures" "$(tr '\n' ';' <"$W/check" | head -c 600)"
fi
t_done
