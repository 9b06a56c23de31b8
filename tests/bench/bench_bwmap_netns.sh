#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Bandwidth maps over UCX (ibflow-infer --bw, the paper's section 6.1) on
# emulated trees with links of different tbf rates (scripts/netns-fabric),
# one process per host, the fabric known (UCX_IBFLOW_FABRIC + the host
# map), UCX's TCP transport on the fabric with UCX_RNDV_THRESH=inf.  Each
# run measures the map, then every pair alone (--bw-alone all), and
# tests/bwmap_judge.py compares the predictions with the configured
# bottlenecks of the routes and with the pairs alone.
#
#   tests/bench/bench_bwmap_netns.sh [RUNS] [BYTES] [FABRICS]
#
# RUNS (default 3), BYTES per measurement (default 1M), FABRICS a list of
# "a" and/or "b" (default "a b"):
#   a  xgft:3:2,2,2:1,1,1, 8 hosts: host links 10 (s1-0), 20 (s1-1), 40
#      (s1-2, s1-3) Mbit/s, uplinks of s1-1..s1-3 10, others unlimited
#      (the paper's assumptions hold; tests/integration/ucx_bwmap.sh)
#   b  xgft:2:4,4:1,1, 16 hosts: s1-0 hosts 40 uplink 20, s1-1 hosts 20,
#      s1-2 hosts 40 uplink 10, s1-3 hosts 40 40 20 20 (ports of one
#      switch unlike: the paper's assumption (1) broken)
# Output per fabric: the judge's line per run, then the medians; the load
# average before and after.  Raw files: $BWMAP_BENCH_OUT or a temp dir.
set -uo pipefail

RUNS=${1:-3}
BYTES=${2:-1M}
FABRICS=${3:-a b}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD_DIR:-$REPO/build}
INFER=$B/ucx_component/ibflow-infer
NAME=bwb
OUT=${BWMAP_BENCH_OUT:-$(mktemp -d /tmp/bwmapbench.XXXXXX)}
T_NAME=bench_bwmap
T_BUILD_DIR=$B
# shellcheck source=../lib.sh
. "$REPO/tests/lib.sh"
# shellcheck source=../netns_lib.sh
. "$REPO/tests/netns_lib.sh"
export IBFLOW=$t_ibflow
export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

down() { "$NF" --name "$NAME" down >/dev/null 2>&1; }
trap 'down; t__cleanup' EXIT

rates_a() {
	printf '%s\n' "h0000 10" "h0001 10" "h0002 20" "h0003 20" "h0004 40" \
		"h0005 40" "h0006 40" "h0007 40" "s1-1:3 10" "s1-2:3 10" "s1-3:3 10"
}
rates_b() {
	local h
	for h in 0 1 2 3 8 9 10 11 12 13; do printf 'h%04d 40\n' $h; done
	for h in 4 5 6 7 14 15; do printf 'h%04d 20\n' $h; done
	printf '%s\n' "s1-0:5 20" "s1-2:5 10"
}

# run FABRIC-DIR TAG: ibflow-infer on every host
run() {
	netns_spawn "$NAME" "$OUT/$2" env LD_LIBRARY_PATH="$LD_LIBRARY_PATH" \
		UCX_IBFLOW_TLS=tcp UCX_IBFLOW_NET_DEVICES=fab1 UCX_IBFLOW_TIMEOUT=60s \
		UCX_RNDV_THRESH=inf UCX_IBFLOW_FABRIC="$1" \
		UCX_IBFLOW_ADDRMAP="$STATE/$NAME/hosts" timeout 900 "$INFER" \
		--bw "$OUT/$2.json" --bw-pairs "$OUT/$2.pairs" --bw-alone all \
		--bw-bytes "$BYTES"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for fab in $FABRICS; do
	case $fab in
	a) spec=xgft:3:2,2,2:1,1,1 ;;
	b) spec=xgft:2:4,4:1,1 ;;
	*) echo "unknown fabric $fab" >&2; exit 2 ;;
	esac
	F=$OUT/fab-$fab
	mkdir -p "$F"
	"$t_ibflow" gen "$spec" -o "$F/ibflow-topology.ibnd" || exit 1
	"$t_ibflow" route --topo "$F/ibflow-topology.ibnd" --engine minhop \
		-o "$F/ibflow-lfts.dump" >/dev/null || exit 1
	printf 'topology ibflow-topology.ibnd\nlfts ibflow-lfts.dump\n' >"$F/ibflow-export.txt"
	"rates_$fab" >"$F/rates"
	args=()
	while read -r l r; do args+=(--rate "$l=${r}mbit"); done <"$F/rates"
	down
	"$NF" --name "$NAME" up --topo "$F/ibflow-topology.ibnd" \
		--lfts "$F/ibflow-lfts.dump" --mgmt "${args[@]}" >"$OUT/up-$fab.log" 2>&1 ||
		{ echo "netns-fabric up failed: $(tail -3 "$OUT/up-$fab.log")" >&2; exit 1; }
	t_trace_paths "$F/ibflow-topology.ibnd" "$F/ibflow-lfts.dump" outs >"$F/paths"
	t_canon_topo "$F/ibflow-topology.ibnd" >"$F/canon"
	echo "# fabric $fab: $spec, rates (Mbit/s): $(tr '\n' ' ' <"$F/rates")"
	for run in $(seq 1 "$RUNS"); do
		tag=$fab.$run
		if ! run "$F" "$tag"; then
			echo "# run $tag failed: $(cat "$OUT/$tag".err.* | head -c 300)" >&2
			continue
		fi
		python3 "$REPO/tests/bwmap_judge.py" "$F/canon" "$F/paths" "$F/rates" \
			"$OUT/$tag.json" "$OUT/$tag.pairs" "$OUT/$tag.out.0" >"$OUT/$tag.judge" 2>&1
		echo "run $run: $(cat "$OUT/$tag.judge")"
		grep -E '^(time|alone):' "$OUT/$tag.out.0" | sed "s/^/run $run: /"
		echo "run $run: load average $(cut -d' ' -f1-3 /proc/loadavg)"
	done
	for k in map alone; do
		printf '%s %s s (median of runs)\n' "$k" "$(cat "$OUT/$fab".*.out.0 2>/dev/null |
			sed -n "s/^time: tree [0-9.]* s  map \([0-9.]*\) s.*/\1/p; s/^alone: [0-9]* pairs in \([0-9.]*\) s.*/A\1/p" |
			if [ $k = map ]; then grep -v '^A'; else sed -n 's/^A//p'; fi | median)"
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# raw files: $OUT"
