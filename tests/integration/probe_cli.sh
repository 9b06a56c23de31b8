#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `ibflow probe-plan` and `probe-solve` end to end: plan a routed fat tree,
# measure every planned pair with unit link latencies (RTT = hops there and
# back, counted by `ibflow paths`), solve, and compare every pair's
# predicted RTT with its hop count; a corrupted extra measurement is
# flagged (exit 1); bad input exits 2 with FILE:LINE.  The same with
# --model symmetric (unit latencies are the same both ways), the model
# read back from the plan; a plan without "model" (written before there
# was a choice) solves as directed; an unknown model exits 2.  The
# paper's 3-tree planned in the symmetric model at its lower bound.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
W=$T_TMP
t_need_ibflow
if ! command -v python3 >/dev/null; then
	t_skip probe_cli "python3 not installed"
	t_done
fi

"$IBF" gen xgft:2:4,4:1,4 -o "$W/t.topo" &&
	"$IBF" route --topo "$W/t.topo" --engine dmodk -o "$W/t.lfts" >/dev/null
grep -o '^Ca.*# "h[0-9]* HCA-1"' "$W/t.topo" | grep -o 'h[0-9]* HCA-1' >"$W/hosts"
t_check "probe-plan xgft:2:4,4:1,4" 0 "$IBF" probe-plan --topo "$W/t.topo" \
	--lfts "$W/t.lfts" --hosts "$W/hosts" --json "$W/plan.json"

# Hops of every ordered pair, by `ibflow paths`.
hops() { "$IBF" paths --topo "$W/t.topo" --lfts "$W/t.lfts" "$1" "$2" |
	 sed -n 's/.*after \([0-9]*\) hops*$/\1/p'; }
: >"$W/hops"
while read -r a; do
	while read -r b; do
		[ "$a" = "$b" ] && continue
		printf '%s|%s|%s\n' "$a" "$b" "$(hops "$a" "$b")" >>"$W/hops"
	done <"$W/hosts"
done <"$W/hosts"

python3 - "$W" <<'PY' && t_pass "plan: rank 41 (the brute-force rank of test_probe), rounds host-disjoint" || t_fail "plan JSON" "$(head -c 300 "$W/plan.json")"
import json, sys
w = sys.argv[1]
p = json.load(open(w + "/plan.json"))
hops = {}
for line in open(w + "/hops"):
    a, b, h = line.rstrip("\n").split("|")
    hops[(a, b)] = int(h)
assert p["rank"] == p["pairs"] == 41, p["rank"]
assert sum(len(r) for r in p["rounds"]) == p["pairs"]
assert p["lower_bound"] == -(-p["pairs"] // 8)
for r in p["rounds"]:
    hs = [h for pair in r for h in pair]
    assert len(hs) == len(set(hs))
with open(w + "/rtt", "w") as f:
    for r in p["rounds"]:
        for a, b in r:
            f.write('"%s" "%s" %d\n' % (a, b, hops[(a, b)] + hops[(b, a)]))
PY

t_check "probe-solve (consistent)" 0 "$IBF" probe-solve --plan "$W/plan.json" \
	--rtt "$W/rtt" --json "$W/sol.json"
python3 - "$W" <<'PY' && t_pass "solve: every pair's RTT = hops both ways" || t_fail "solve JSON" "$(head -c 300 "$W/sol.json")"
import json, sys
w = sys.argv[1]
s = json.load(open(w + "/sol.json"))
hops = {}
for line in open(w + "/hops"):
    a, b, h = line.rstrip("\n").split("|")
    hops[(a, b)] = int(h)
assert len(s["pairs"]) == 16 * 15 // 2
for p in s["pairs"]:
    assert abs(p["rtt"] - hops[(p["a"], p["b"])] - hops[(p["b"], p["a"])]) < 1e-9
assert s["residual_max"] < 1e-9
PY

# An extra, wrong measurement: flagged, exit 1.
cp "$W/rtt" "$W/rtt2"
printf '"h0000 HCA-1" "h0015 HCA-1" 99\n' >>"$W/rtt2"
t_check "probe-solve flags an inconsistent measurement" 1 "$IBF" probe-solve \
	--plan "$W/plan.json" --rtt "$W/rtt2" --json "$W/sol2.json"
if grep -q '"inconsistent":\[{' "$W/sol2.json"; then
	t_pass "inconsistent measurement listed in the JSON"
else
	t_fail "inconsistent list" "$(tail -c 300 "$W/sol2.json")"
fi

# The symmetric model: one unknown per link (cable).  16 host links and
# 16 leaf-spine links: rank 32 (test_probe's brute force), fewer than 41.
t_check "probe-plan --model symmetric" 0 "$IBF" probe-plan --topo "$W/t.topo" \
	--lfts "$W/t.lfts" --hosts "$W/hosts" --model symmetric --json "$W/plans.json"
python3 - "$W" <<'PY' && t_pass "symmetric plan: model recorded, rank 32, 32 links, rounds host-disjoint" || t_fail "symmetric plan JSON" "$(head -c 300 "$W/plans.json")"
import json, sys
w = sys.argv[1]
p = json.load(open(w + "/plans.json"))
hops = {}
for line in open(w + "/hops"):
    a, b, h = line.rstrip("\n").split("|")
    hops[(a, b)] = int(h)
assert p["model"] == "symmetric" and p["rank"] == p["pairs"] == 32, p["rank"]
assert p["links"] == 32, p["links"]
assert json.load(open(w + "/plan.json"))["model"] == "directed"
for r in p["rounds"]:
    hs = [h for pair in r for h in pair]
    assert len(hs) == len(set(hs))
with open(w + "/rtts", "w") as f:
    for r in p["rounds"]:
        for a, b in r:
            f.write('"%s" "%s" %d\n' % (a, b, hops[(a, b)] + hops[(b, a)]))
PY
t_check "probe-solve (symmetric plan)" 0 "$IBF" probe-solve --plan "$W/plans.json" \
	--rtt "$W/rtts" --json "$W/sols.json"
python3 - "$W" <<'PY' && t_pass "symmetric solve: model read from the plan, every link 1 one way, every pair's RTT = hops both ways" || t_fail "symmetric solve JSON" "$(head -c 300 "$W/sols.json")"
import json, sys
w = sys.argv[1]
s = json.load(open(w + "/sols.json"))
hops = {}
for line in open(w + "/hops"):
    a, b, h = line.rstrip("\n").split("|")
    hops[(a, b)] = int(h)
assert s["model"] == "symmetric" and s["rank"] == 32
for p in s["pairs"]:
    assert abs(p["rtt"] - hops[(p["a"], p["b"])] - hops[(p["b"], p["a"])]) < 1e-9
# host links are determined alone: one link, one way, latency 1
single = [l for l in s["links"] if len(l["links"]) == 1]
assert len(single) >= 16 and all(abs(l["latency"] - 1) < 1e-9 for l in single)
PY

# The PMM paper's 12-port 3-tree, D-mod-K, symmetric model: rank 1,296
# (one per cable) in 6 rounds of 216, its lower bound (rounds by design).
"$IBF" gen xgft:3:6,6,12:1,6,6 -o "$W/p.topo" &&
	"$IBF" route --topo "$W/p.topo" --engine dmodk -o "$W/p.lfts" >/dev/null
grep -o '^Ca.*# "h[0-9]* HCA-1"' "$W/p.topo" | grep -o 'h[0-9]* HCA-1' >"$W/phosts"
t_check "probe-plan --model symmetric, the paper's tree" 0 "$IBF" probe-plan \
	--topo "$W/p.topo" --lfts "$W/p.lfts" --hosts "$W/phosts" \
	--model symmetric --json "$W/planp.json"
python3 - "$W" <<'PY' && t_pass "paper's tree, symmetric: 1,296 pairs in 6 rounds of 216 hosts-disjoint, the lower bound" || t_fail "paper's tree plan JSON" "$(head -c 300 "$W/planp.json")"
import json, sys
p = json.load(open(sys.argv[1] + "/planp.json"))
assert p["rank"] == p["pairs"] == p["links"] == 1296, p["rank"]
assert len(p["rounds"]) == p["lower_bound"] == 6, len(p["rounds"])
for r in p["rounds"]:
    hs = [h for pair in r for h in pair]
    assert len(r) == 216 and len(set(hs)) == 432
assert len({tuple(sorted(pair)) for r in p["rounds"] for pair in r}) == 1296
PY

# A plan written before there was a choice (no "model"): directed.
python3 -c 'import json,sys; p = json.load(open(sys.argv[1])); del p["model"]; json.dump(p, open(sys.argv[2], "w"))' \
	"$W/plan.json" "$W/plan-old.json"
if t_expect_exit 0 "$IBF" probe-solve --plan "$W/plan-old.json" --rtt "$W/rtt" \
	--json "$W/sol-old.json" && grep -q '"model":"directed","rank":41' "$W/sol-old.json"; then
	t_pass "plan without \"model\" solves as directed (rank 41)"
else
	t_fail "plan without model" "exit $T_RC: $(t_errhead) $(head -c 200 "$W/sol-old.json")"
fi
sed 's/"model":"directed"/"model":"both"/' "$W/plan.json" >"$W/plan-bad.json"
if t_expect_exit 2 "$IBF" probe-solve --plan "$W/plan-bad.json" --rtt "$W/rtt" &&
   grep -q 'plan-bad.json: "model" is "both"' "$T_ERR"; then
	t_pass "unknown model in the plan: exit 2 naming the file"
else
	t_fail "unknown model in the plan" "exit $T_RC: $(t_errhead)"
fi
t_check "probe-plan --model bogus" 2 "$IBF" probe-plan --topo "$W/t.topo" \
	--lfts "$W/t.lfts" --hosts "$W/hosts" --model bogus

# Bad input.
printf 'h0000 HCA-1 h0001 HCA-1 4\nh0000 HCA-1 nosuch 3\n' >"$W/bad.rtt"
if t_expect_exit 2 "$IBF" probe-solve --plan "$W/plan.json" --rtt "$W/bad.rtt" &&
   grep -q "bad.rtt:2:" "$T_ERR"; then
	t_pass "bad RTT line: exit 2 with FILE:LINE"
else
	t_fail "bad RTT line" "exit $T_RC: $(t_errhead)"
fi
t_check "probe-plan without --hosts" 2 "$IBF" probe-plan --topo "$W/t.topo" \
	--lfts "$W/t.lfts"
t_done
