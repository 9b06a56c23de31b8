#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The probes' health verdict on an emulated fabric (scripts/netns-fabric):
# a 16-host 2-level fat tree (xgft:2:4,4:1,4, dmodk), one ibflow-probe
# process per host (own bootstrap via `netns-fabric exec`, UCX over tcp
# on the fabric interfaces), planned probes of PROBE_SIZE bytes.
#
#   clean: every link at full veth speed.  The verdict must name no
#     suspect; it is judged against the run's own noise (each pair's
#     spread over its runs, propagated through the solution's weights,
#     and the spread of each kind's latencies), never skipped.
#   slow: the same fabric with one leaf-to-spine cable (s1-1 port 6 to
#     s2-1) limited by tbf to SLOW_RATE.  A message larger than tbf's
#     bucket (16 KiB at that rate) waits (size - bucket) / rate on every
#     crossing, also for the first exchange after an idle bucket, so
#     every probe over the cable is slower by milliseconds against tens
#     of microseconds of noise.  A suspect must hold that cable (one
#     direction or the other), those that do must rank first (by excess
#     over scale), and their excess must exceed 5x the run's noise.  A
#     loaded host can make a measurement slow in every run: other rows
#     it determines may then be suspect too (said, after the cable's).
#     netem is not in this kernel (docs/netns-fabric.md), hence the rate.
#
# Each run also writes --prom (checked with promtool when installed) and
# the RTT file with MIN MAX, and `ibflow probe-solve` gives the same
# verdict offline from the files (same suspects).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"

W=$T_TMP
NAME=ibfhl
SLOW_LINK=s1-1:6
SLOW_RATE=10mbit
SIZE=24576
PROBE_ENV="UCX_IBFLOW_PROBE_SIZE=$SIZE UCX_IBFLOW_PROBE_STALL=10 UCX_IBFLOW_PROBE_MAX=40 UCX_IBFLOW_PROBE_RUNS=5 UCX_IBFLOW_TIMEOUT=120s UCX_IBFLOW_TLS=tcp UCX_IBFLOW_NET_DEVICES=fab1"
ucx_netns_setup ucx_probe_health tc python3
trap '"$NF" --name "$NAME" down >/dev/null 2>&1; t__cleanup' EXIT
"$NF" --name "$NAME" down >/dev/null 2>&1

mkdir -p "$W/fab"
"$t_ibflow" gen xgft:2:4,4:1,4 -o "$W/fab/ibflow-topology.ibnd" >/dev/null &&
	"$t_ibflow" route --topo "$W/fab/ibflow-topology.ibnd" --engine dmodk \
		-o "$W/fab/ibflow-lfts.dump" >/dev/null
ucx_export_dir "$W/fab" 16 8

run_exec() { # OUT: one process per host via netns-fabric exec
	ucx_spawn "$NAME" "$W/fab" "$1" --json "$1.json" --prom "$1.prom" \
		--rtt-out "$1.rtt" --plan-out "$1.plan"
}

# verdict OUT: "SUSPECTS|NOISE|LINKS..." from the JSON (links of every
# suspect joined by "+", suspects by " ; ")
verdict() {
	python3 - "$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["health"]
sus = h["suspects"]
print("%d|%.3f|%d|%s" % (len(sus), h["noise_median"], h["judged"],
      " ; ".join("+".join(s["links"]) + " excess %.1f scale %.2f" % (s["excess"], s["scale"]) for s in sus)))
PY
}

# run LABEL OUT [up options]: the fabric up, one planned run, down
run() {
	local label=$1 out=$2
	shift 2
	if ! "$NF" --name "$NAME" up --topo "$W/fab/ibflow-topology.ibnd" \
		--lfts "$W/fab/ibflow-lfts.dump" --mgmt "$@" >"$out.up" 2>&1; then
		t_fail "$label: netns-fabric up" "$(tail -3 "$out.up")"
		return 1
	fi
	if ! run_exec "$out"; then
		t_fail "$label: ibflow-probe" "$(head -c 400 "$out.err")"
		"$NF" --name "$NAME" down >/dev/null 2>&1
		return 1
	fi
	"$NF" --name "$NAME" down >/dev/null 2>&1
	return 0
}

# offline OUT: probe-solve on the files the run wrote; same suspects
offline() {
	local label=$1 out=$2 want=$3 rc
	"$t_ibflow" probe-solve --plan "$out.plan" --rtt "$out.rtt" \
		--json "$out.solve.json" --prom "$out.solve.prom" >"$out.solve" 2>&1
	rc=$?
	if python3 - "$out.json" "$out.solve.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["health"] for p in sys.argv[1:3])
key = lambda h: sorted(tuple(s["links"]) for s in h["suspects"])
sys.exit(0 if key(a) == key(b) else 1)
PY
	then
		if [ "$rc" -eq "$want" ]; then
			t_pass "$label: ibflow probe-solve on the run's plan and RTT files: the same suspects, exit $rc"
		else
			t_fail "$label: probe-solve exit status" "exit $rc, wanted $want"
		fi
	else
		t_fail "$label: probe-solve offline" "$(grep -A3 '^health' "$out.solve")"
	fi
	if t_need promtool; then
		if promtool check metrics <"$out.prom" >"$out.pc" 2>&1 &&
		   promtool check metrics <"$out.solve.prom" >>"$out.pc" 2>&1; then
			t_pass "$label: promtool check metrics accepts ibflow-probe's and probe-solve's --prom"
		else
			t_fail "$label: promtool" "$(head -3 "$out.pc")"
		fi
	else
		t_skip "$label: promtool check metrics" "promtool (prometheus) not installed"
	fi
}

# ---- clean ---------------------------------------------------------------
if run "clean" "$W/clean"; then
	v=$(verdict "$W/clean")
	IFS='|' read -r ns noise judged list <<<"$v"
	if [ "$ns" = 0 ] && [ "$judged" -gt 0 ]; then
		t_pass "clean: no suspect among $judged judged links (measurement noise median $noise us)"
	else
		t_fail "clean: no suspect" "$ns suspect(s), noise $noise us: $list; $(grep -A4 '^health' "$W/clean.out")"
	fi
	offline "clean" "$W/clean" 0
fi

# ---- one slow cable ----------------------------------------------------------
if run "slow" "$W/slow" --rate "$SLOW_LINK=$SLOW_RATE"; then
	v=$(verdict "$W/slow")
	IFS='|' read -r ns noise judged list <<<"$v"
	# the cable's other direction: the peer switch's port, from the topology
	rev=$(awk -v sw="${SLOW_LINK%%:*}" -v p="${SLOW_LINK##*:}" '
		/^Switch/ { cur = ($0 ~ "\"" sw "\"") }
		cur && $1 == "[" p "]" { match($0, /"\[[0-9]+\]/); q = substr($0, RSTART, RLENGTH)
			gsub(/[^0-9]/, "", q); n = $0; sub(/.*# "/, "", n); sub(/".*/, "", n)
			print n ":" q; exit }' "$W/fab/ibflow-topology.ibnd")
	bad=$(python3 - "$W/slow.json" "$SLOW_LINK" "$rev" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ways = set(sys.argv[2:4])
h = d["health"]
sus = h["suspects"]          # by excess / scale, largest first
holds = [bool(ways & set(s["links"])) for s in sus]
out = []
if not any(holds):
    out.append("no suspect holds the cable")
elif False in holds and holds.index(False) < len(holds) - holds[::-1].index(True) - 1:
    out.append("a row without the cable ranks above one with it")
for s, x in zip(sus, holds):
    if x and s["excess"] <= 5 * max(s["scale"], h["noise_median"]):
        out.append("excess %.1f within noise" % s["excess"])
others = ["+".join(s["links"]) for s, x in zip(sus, holds) if not x]
print("; ".join(out) + "|" + " ; ".join(others))
PY
)
	IFS='|' read -r bad others <<<"$bad"
	if [ -z "$bad" ]; then
		t_pass "slow: $SLOW_LINK ($SLOW_RATE) named: the suspects holding it or $rev rank first: $list (noise median $noise us)${others:+; also suspect on this run, after them: $others}"
	else
		t_fail "slow: the slow link named" "$bad; $ns suspect(s): $list"
	fi
	offline "slow" "$W/slow" 1
fi
t_done
