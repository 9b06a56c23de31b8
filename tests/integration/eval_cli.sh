#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `ibflow eval` end to end: generate XGFT(2;4,4;1,4), route it with dmodk
# and minhop, evaluate both on several patterns with the optimum, and judge
# the outputs with python3 (JSON) and awk (CSV), not with ibflow:
#  - every entry has the documented fields, no NaN, ratio = index / opt_index;
#  - the optimum reaches the crossbar (opt_index 1) on this full-bisection
#    tree for every pattern (Mollah et al., IEEE TPDS 2018: MMF-MCF =
#    100% of the crossbar);
#  - shift in dmodk's own --order-out order is contention-free: index 1;
#  - the CSV rows add up: per routing and pattern, sum(rate) / sum(opt_rate)
#    equals the JSON ratio (the optimum's aggregate is the crossbar's);
#  - the plot is an SVG naming routings, patterns and the optimum;
#  - bad inputs exit 2 naming what is wrong.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
W=$T_TMP
t_need_ibflow
if ! t_need python3; then
	t_skip eval_cli "python3 not found (needed to read the JSON)"
	t_done
fi

T=$W/x.topo
t_check "gen xgft:2:4,4:1,4" 0 "$IBF" gen xgft:2:4,4:1,4 -o "$T"
# Both routings are needed: dmodk's contention-free shift is what the
# checks below rely on; an engine that fails is a failure, never a skip.
ENG=(dmodk minhop)
for eng in "${ENG[@]}"; do
	if ! t_expect_exit 0 "$IBF" route --topo "$T" --engine "$eng" \
		-o "$W/$eng.lfts" --order-out "$W/$eng.order"; then
		t_fail "route --engine $eng" "exit $T_RC: $(t_errhead)"
		t_done
	fi
	t_pass "route --engine $eng"
done
LFTS=()
for eng in "${ENG[@]}"; do
	LFTS+=(--lfts "$W/$eng.lfts")
done
ORDER=$W/${ENG[0]}.order
PATS=perm:5,shift,bisect:3,randn:3:2,alltoall

# ---- the main run ---------------------------------------------------------
if t_expect_exit 0 "$IBF" eval --topo "$T" "${LFTS[@]}" --patterns "$PATS" \
	--map "$ORDER" --opt --json "$W/e.json" --flows "$W/e.csv" \
	--plot "$W/e.svg" --seed 3; then
	t_pass "eval: ${#ENG[@]} routings x 5 patterns, --opt, all outputs"
else
	t_fail "eval main run" "exit $T_RC: $(t_errhead)"
	t_done
fi
if grep -q '^routing .*pattern .*index .*opt_index .*ratio' "$T_OUT" &&
   [ "$(grep -c 'perm:5' "$T_OUT")" -eq "${#ENG[@]}" ]; then
	t_pass "table: header and one row per routing and pattern"
else
	t_fail "table" "$(head -3 "$T_OUT")"
fi

# python3 judges the JSON; prints "ok" or what is wrong.
res=$(python3 - "$W/e.json" "${#ENG[@]}" "$W/${ENG[0]}.lfts" "${ENG[0]}" <<'EOF'
import json, math, sys
path, nr, first, eng = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
d = json.load(open(path))
ents = d["patterns"]
keys = ["name", "flows", "index", "opt_index", "ratio", "min_rate",
        "median_rate", "max_link_load", "seconds", "opt_seconds"]
if nr > 1:
    keys.append("routing")
bad = []
if len(ents) != 5 * nr:
    bad.append("%d entries, want %d" % (len(ents), 5 * nr))
for e in ents:
    for k in keys:
        if k not in e:
            bad.append("%s lacks %s" % (e.get("name"), k))
        elif k not in ("name", "routing") and (
                e[k] is None or not math.isfinite(e[k]) or e[k] < 0):
            bad.append("%s: %s = %r" % (e.get("name"), k, e[k]))
    if bad:
        break
    if abs(e["ratio"] - e["index"] / e["opt_index"]) > 1e-9:
        bad.append("%s: ratio %r != index/opt_index" % (e["name"], e["ratio"]))
    if abs(e["opt_index"] - 1.0) > 1e-9:
        bad.append("%s: opt_index %r, want 1 (full bisection)" %
                   (e["name"], e["opt_index"]))
    if e["index"] > 1 + 1e-9 or e["min_rate"] > e["median_rate"] + 1e-9:
        bad.append("%s: index %r min %r median %r" %
                   (e["name"], e["index"], e["min_rate"], e["median_rate"]))
flows = {"perm:5": 5 * 16, "shift": 15 * 16, "bisect:3": 3 * 16,
         "randn:3:2": 2 * 16 * 3, "alltoall": 16 * 15}
for e in ents:
    if e["name"] in flows and e["flows"] != flows[e["name"]]:
        bad.append("%s: %d flows, want %d" % (e["name"], e["flows"],
                                            flows[e["name"]]))
sh = [e for e in ents if e["name"] == "shift" and
      (nr == 1 or e["routing"] == first)]
if eng == "dmodk" and (len(sh) != 1 or abs(sh[0]["index"] - 1.0) > 1e-9):
    bad.append("shift on dmodk in its order: %r, want index 1" % sh)
# Worst link load: D-mod-K puts every shift on distinct links (1); in an
# all-to-all every host link carries N - 1 = 15 flows (single path), and
# D-mod-K loads no fabric link more (each leaf up-link: 4 hosts x 12
# remote destinations / 4 spines = 12).
if eng == "dmodk" and (len(sh) != 1 or sh[0]["max_link_load"] != 1):
    bad.append("shift on dmodk: max_link_load %r, want 1" % sh)
for e in ents:
    if e["name"] == "alltoall" and (e["max_link_load"] < 15 or (
            e.get("routing", first) == first and eng == "dmodk" and
            e["max_link_load"] != 15)):
        bad.append("alltoall %s: max_link_load %r" %
                   (e.get("routing"), e["max_link_load"]))
    if e["name"].startswith("perm") and e["max_link_load"] < 1:
        bad.append("%s: max_link_load %r < 1" % (e["name"], e["max_link_load"]))
print("; ".join(bad[:5]) if bad else "ok")
EOF
)
if [ "$res" = ok ]; then
	t_pass "JSON: fields, finite, ratio = index/opt_index, opt_index 1, flow counts, max_link_load"
else
	t_fail "JSON" "$res"
fi

# CSV: header, one row per flow, sum(rate) / sum(opt_rate) = ratio.
hdr=$(head -1 "$W/e.csv")
want="pattern,instance,src,dst,rate,opt_rate"
[ "${#ENG[@]}" -gt 1 ] && want="routing,$want"
if [ "$hdr" = "$want" ]; then
	t_pass "CSV header: $hdr"
else
	t_fail "CSV header" "$hdr"
fi
res=$(python3 - "$W/e.json" "$W/e.csv" <<'EOF'
import csv, json, sys
ents = json.load(open(sys.argv[1]))["patterns"]
rows = list(csv.DictReader(open(sys.argv[2])))
bad = []
for e in ents:
    rs = [r for r in rows if r["pattern"] == e["name"] and
          r.get("routing", e.get("routing")) == e.get("routing")]
    if len(rs) != e["flows"]:
        bad.append("%s: %d rows, %d flows" % (e["name"], len(rs), e["flows"]))
        continue
    s = sum(float(r["rate"]) for r in rs)
    o = sum(float(r["opt_rate"]) for r in rs)
    if abs(s / o - e["ratio"]) > 1e-9:
        bad.append("%s: csv ratio %r json %r" % (e["name"], s / o, e["ratio"]))
    if abs(min(float(r["rate"]) for r in rs) - e["min_rate"]) > 1e-6:
        bad.append("%s: min" % e["name"])
    if any(r["src"] == r["dst"] or not r["src"].startswith("h") for r in rs):
        bad.append("%s: bad host names" % e["name"])
print("; ".join(bad[:5]) if bad else "ok")
EOF
)
if [ "$res" = ok ]; then
	t_pass "CSV: a row per flow, host names, sums give the JSON ratio and min"
else
	t_fail "CSV" "$res"
fi

# SVG: an svg document naming routings, patterns and the optimum.
if head -c 400 "$W/e.svg" | grep -q '<svg' &&
   grep -q '>optimum<' "$W/e.svg" && grep -q '>shift<' "$W/e.svg" &&
   grep -q ">${ENG[0]}.lfts<" "$W/e.svg"; then
	t_pass "plot: SVG with routing, pattern and optimum labels"
else
	t_fail "plot" "$(head -c 200 "$W/e.svg")"
fi

# Threads change nothing; the reference solver agrees.
if t_expect_exit 0 "$IBF" eval --topo "$T" "${LFTS[@]}" --patterns "$PATS" \
	--map "$ORDER" --seed 3 --threads 3 --algo ref --json "$W/t.json"; then
	res=$(python3 - "$W/e.json" "$W/t.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))["patterns"]
b = json.load(open(sys.argv[2]))["patterns"]
bad = [x["name"] for x, y in zip(a, b)
       if abs(x["index"] - y["index"]) > 1e-9 * max(1, x["index"])
       or abs(x["median_rate"] - y["median_rate"]) > 1e-9 * x["median_rate"]
       or x["max_link_load"] != y["max_link_load"]
       or y["opt_index"] is not None]
print("ok" if not bad and len(a) == len(b) else "differ: %s" % bad)
EOF
)
	if [ "$res" = ok ]; then
		t_pass "--threads 3 --algo ref: same indices"
	else
		t_fail "--threads 3 --algo ref" "$res"
	fi
else
	t_fail "eval --threads 3 --algo ref" "exit $T_RC: $(t_errhead)"
fi

t_check "--map random" 0 "$IBF" eval --topo "$T" "${LFTS[@]}" \
	--patterns perm:2 --map random --seed 5

# max_link_load of all shifts against an own tracer (python3: its own
# parser of the topology and the LFTs), ranks in a shuffled order (seeded)
# so that shifts collide (in the topological order D-mod-K gives 1).
python3 -c 'import random, sys
h = [l.strip() for l in open(sys.argv[1]) if l.strip()]
random.Random(1).shuffle(h)
print("\n".join(h))' "$ORDER" >"$W/scrambled.order"
if t_expect_exit 0 "$IBF" eval --topo "$T" "${LFTS[@]}" --patterns shift \
	--map "$W/scrambled.order" --json "$W/load.json"; then
	res=$(python3 - "$T" "$W/scrambled.order" "$W/load.json" \
		"${LFTS[@]}" <<'EOF'
import json, re, sys
topo, order, js = sys.argv[1:4]
lftfiles = sys.argv[5::2]
link, lid, hnode, node, ca = {}, {}, {}, None, False
for line in open(topo):
    m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"\s+#\s+"([^"]+)"', line)
    if m:
        ca, node = m.group(1) == "Ca", m.group(2)
        if ca:
            hnode[m.group(3)] = node
        continue
    m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"([^"]+)"\[(\d+)\]', line)
    if m and node:
        link[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)))
        if ca:
            lid[node] = int(re.search(r'# lid (\d+)', line).group(1))
hosts = [hnode[l.strip()] for l in open(order) if l.strip()]
n = len(hosts)
ents = json.load(open(js))["patterns"]
bad = []
for i, path in enumerate(lftfiles):
    lft, sw = {}, None
    for line in open(path):
        if line.startswith("Unicast"):
            sw = "S-" + re.search(r"guid 0x([0-9a-f]+)", line).group(1)
            lft[sw] = {}
        m = re.match(r"^0x([0-9a-f]+) (\d+)", line)
        if m and sw:
            lft[sw][int(m.group(1), 16)] = int(m.group(2))
    worst = 0
    for k in range(1, n):
        load = {}
        for r in range(n):
            s, d = hosts[r], hosts[(r + k) % n]
            cur, port = s, 1
            for _ in range(16):
                load[(cur, port)] = load.get((cur, port), 0) + 1
                cur, _in = link[(cur, port)]
                if cur == d:
                    break
                port = lft[cur][lid[d]]
        worst = max(worst, max(load.values()))
    got = ents[i]["max_link_load"] if len(ents) > i else None
    if got != worst or worst < 2:
        bad.append("%s: max_link_load %r, own tracer %d" % (path, got, worst))
    else:
        print("# %s: shift max_link_load %d" % (path, worst), file=sys.stderr)
print("; ".join(bad) if bad else "ok")
EOF
)
	if [ "$res" = ok ]; then
		t_pass "shift max_link_load in a shuffled order (> 1) equals an own tracer's"
	else
		t_fail "shift max_link_load vs own tracer" "$res"
	fi
else
	t_fail "eval shift, scrambled order" "exit $T_RC: $(t_errhead)"
fi

# ---- not a PGFT: optimum said not computed ----------------------------------
"$IBF" gen torus:3,3,3 -o "$W/t.topo" >/dev/null 2>&1
"$IBF" route --topo "$W/t.topo" --engine minhop -o "$W/t.lfts" >/dev/null 2>&1
if t_expect_exit 0 "$IBF" eval --topo "$W/t.topo" --lfts "$W/t.lfts" \
	--patterns perm:2 --opt --json "$W/torus.json" &&
   grep -q 'exact optimum not computed: not a PGFT (' "$T_ERR" &&
   python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["patterns"][0]; sys.exit(0 if e["opt_index"] is None and e["ratio"] is None and e["index"] > 0 else 1)' "$W/torus.json"; then
	t_pass "torus --opt: 'exact optimum not computed: not a PGFT', JSON nulls"
else
	t_fail "torus --opt" "exit $T_RC: $(t_errhead)"
fi

# ---- bad input: exit 2, naming what is wrong --------------------------------
L1=$W/${ENG[0]}.lfts
bad() {
	local name=$1 pat=$2

	shift 2
	if t_expect_exit 2 "$IBF" eval "$@" && grep -q -- "$pat" "$T_ERR"; then
		t_pass "$name: exit 2, says '$pat'"
	else
		t_fail "$name" "exit $T_RC: $(t_errhead)"
	fi
}
bad "bad pattern spec" "randn:0:5" --topo "$T" --lfts "$L1" \
	--patterns perm,randn:0:5
bad "unknown pattern" "4dnn" --topo "$T" --lfts "$L1" --patterns 4dnn:2
printf '"h0000 HCA-1" "nosuchhost"\n' >"$W/bad.traffic"
bad "file: pattern with a host not in the topology" "nosuchhost" \
	--topo "$T" --lfts "$L1" --patterns "file:$W/bad.traffic"
printf 'h0000 HCA-1\nnosuchhost\n' >"$W/bad.order"
bad "--map file with a host not in the topology" "bad.order:2" \
	--topo "$T" --lfts "$L1" --patterns perm --map "$W/bad.order"
# Drop s1-0's entry for LID 9 (h0008): h0000..h0003 cannot reach it.
awk '/^Unicast/ { n++ } !(n == 1 && /^0x0009 /)' "$L1" >"$W/hole.lfts"
bad "tables that do not route a pair" "h0008 HCA-1" \
	--topo "$T" --lfts "$W/hole.lfts" --patterns alltoall
bad "--paths junk" "--paths" --topo "$T" --lfts "$L1" --patterns perm \
	--paths junk
bad "missing --patterns" "required" --topo "$T" --lfts "$L1"

t_done
