#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ibflow-probe on an emulated fabric (scripts/netns-fabric, root needed):
# planned probes against all pairs, time and rounds, median of RUNS runs.
#   tests/bench/bench_ucx_probe.sh [SPEC [ENGINE]]   (default xgft:2:4,4:1,4 dmodk)
# Uses the build tree (BUILD_DIR, default <repo>/build) and mpirun through
# the fabric's rsh agent; the repeat rule is UCX_IBFLOW_PROBE_* as set in
# the environment (the paper's 10 / 30 / 3 by default).  Prints one line
# per mode: pairs, rounds, steps, exchanges, measuring seconds (median),
# and how far the predictions of pairs not measured are from the all-pairs
# minima (median and largest absolute difference, us).
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD_DIR:-$REPO/build}
SPEC=${1:-xgft:2:4,4:1,4}
ENGINE=${2:-dmodk}
RUNS=${RUNS:-3}
NAME=ibfub
NF=$REPO/scripts/netns-fabric
STATE=${NETNS_FABRIC_STATE:-/run/ibflow-netns}
W=$(mktemp -d /tmp/ibfu-bench.XXXXXX)
export IBFLOW=$B/common/ibflow
export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs
trap '"$NF" --name "$NAME" down >/dev/null 2>&1; rm -rf "$W"' EXIT

"$IBFLOW" gen "$SPEC" -o "$W/ibflow-topology.ibnd" >/dev/null
"$IBFLOW" route --topo "$W/ibflow-topology.ibnd" --engine "$ENGINE" \
	-o "$W/ibflow-lfts.dump" >/dev/null
printf 'topology ibflow-topology.ibnd\nlfts ibflow-lfts.dump\n' >"$W/ibflow-export.txt"
"$NF" --name "$NAME" down >/dev/null 2>&1
"$NF" --name "$NAME" up --topo "$W/ibflow-topology.ibnd" \
	--lfts "$W/ibflow-lfts.dump" --mgmt >/dev/null || exit 1
MAP=$STATE/$NAME/hosts
hosts=$(awk '!/^#/ { printf "%s%s", s, $1; s = "," }' "$MAP")
mnet=$(sed -n 's/^# name .* mgmt \(10\.[0-9]*\.0\.0\/16\).*/\1/p' "$MAP")
np=$(grep -vc '^#' "$MAP")

probe() { # OUT.json [ARGS]: one run on every host
	local out=$1 boot
	shift
	boot=$(awk '!/^#/ { print $9; exit }' "$MAP"):$((20000 + RANDOM % 20000))
	timeout 900 mpirun --allow-run-as-root --oversubscribe -np "$np" -H "$hosts" \
		--mca plm_rsh_agent "$STATE/$NAME/rsh" --mca oob_tcp_if_include "$mnet" \
		-x LD_LIBRARY_PATH -x IBFLOW_BOOT_ADDR="$boot" \
		$(env | sed -n 's/^\(UCX_IBFLOW_PROBE_[A-Z_]*\)=.*/-x \1/p') \
		-x UCX_IBFLOW_FABRIC="$W" -x UCX_IBFLOW_ADDRMAP="$MAP" \
		-x UCX_IBFLOW_TLS=tcp -x UCX_IBFLOW_NET_DEVICES=fab1 \
		"$B/ucx_component/ibflow-probe" --quiet --json "$out" "$@" \
		>/dev/null 2>"$out.err" || { echo "run failed: $(head -3 "$out.err")" >&2; return 1; }
}

for i in $(seq "$RUNS"); do
	probe "$W/all.$i.json" --all-pairs
	probe "$W/plan.$i.json"
	UCX_IBFLOW_PROBE_CONCURRENCY=0 probe "$W/par.$i.json"
	probe "$W/serial.$i.json" --serial
done
echo "$SPEC $ENGINE: $np hosts, $(uptime | sed 's/.*load/load/')"
python3 - "$W" "$RUNS" <<'PY'
import json, statistics, sys
w, runs = sys.argv[1], int(sys.argv[2])
def load(mode):
    return [json.load(open("%s/%s.%d.json" % (w, mode, i))) for i in range(1, runs + 1)]
allp = load("all")
ref = {}
for d in allp:
    for m in d["measurements"]:
        ref.setdefault(frozenset((m["a"], m["b"])), []).append(m["rtt_min"])
ref = {k: statistics.median(v) for k, v in ref.items()}
print("%-34s %5s %6s %5s %9s %10s %12s" % ("mode", "pairs", "rounds", "steps",
      "exchanges", "measure_s", "|pred-all| us"))
for mode, label in (("all", "--all-pairs (one pair at a time)"),
                    ("plan", "planned, concurrency auto"),
                    ("par", "planned, whole rounds at once"),
                    ("serial", "planned, --serial")):
    ds = load(mode)
    d = ds[0]
    ex = statistics.median(sum(m["exchanges"] for m in x["measurements"]) for x in ds)
    t = statistics.median(x["measure_s"] for x in ds)
    err = ""
    if mode != "all":
        diffs = []
        for x in ds:
            idx = {h: i for i, h in enumerate(x["hosts"])}
            meas = {frozenset((m["a"], m["b"])) for m in x["measurements"]}
            for k, v in ref.items():
                if k in meas:
                    continue
                a, b = sorted(k)
                diffs.append(abs(x["matrix"][idx[a]][idx[b]] - v))
        err = "%.1f / %.1f" % (statistics.median(diffs), max(diffs))
    print("%-34s %5d %6d %5d %9d %10.2f %12s" % (label, len(d["measurements"]),
          d["rounds"], d["steps"], ex, t, err))
PY
