#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ibflow-layered on one VL (the default, every packet on SL 0 as MPI over
# UCX sends) against layered with whole layers on SLs (--vls 8) and
# OpenSM's nue (default: 1 VL), updn and minhop, on a Dragonfly, a Slim
# Fly, a HyperX and a Jellyfish of about 500 hosts (LMC 2; give SPECs for
# others, e.g. dragonfly:8,4,4 slimfly:11:4 hyperx:2:8:1:16
# jellyfish:128,8,8:7 for about 1,000).
#
# Real OpenSM on ibsim routes each fabric (one sweep per engine, under
# one ibsim); the fabric and tables are read back with ibnetdiscover and
# dump_lfts, as bench_sim.sh engines does.  Layered is routed offline on
# that read-back ibnetdiscover file: the plugin programs the same tables
# (tests/integration/osm_plugin.sh).  Per routing: `ibflow check
# --deadlock` on SL 0; `ibflow sim` linear and pairwise all-to-alls of
# every host with every packet on SL 0 (layered --vls 8 also with its
# SLs): completion time and the liquid bound of the same routes, or the
# deadlock; `ibflow eval` index on perm:4, shift:4, bisect:4, randn:2.
#
#   flock /tmp/ibflow-heavy.lock nice tests/bench/bench_layered_vls.sh \
#       [BYTES] [SPEC...]
#
# BYTES per block (default 2048: one packet), SPECs default to the four
# fabrics below.  Environment: BENCH_DIR (work files; OpenSM's tables of
# an earlier run there are used again), IBFLOW (the CLI), IBFLOW_BASE (the
# CLI of another build, e.g. of an earlier commit: its layered on one VL
# as an extra row, to compare before and after a change).  The heading
# of each fabric gives each layered routing's route_seconds (--report).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/build-dir.sh
. "$REPO/scripts/build-dir.sh"
I=${IBFLOW:-$(ibf_build_dir "$REPO")/common/ibflow}
BYTES=${1:-2048}
shift || true
SPECS=${*:-dragonfly:8,2,4 slimfly:11:2 hyperx:2:8:1:8 jellyfish:128,8,4:7}
W=${BENCH_DIR:-$(mktemp -d /tmp/bench_layered_vls.XXXXXX)}
mkdir -p "$W"
PATS=perm:4,shift:4,bisect:4,randn:2
# shellcheck source=../../scripts/ibsim-session.sh
. "$REPO/scripts/ibsim-session.sh"
trap ibs_stop_all EXIT
if ! why=$(ibs_have_tools); then
	echo "bench_layered_vls: needs ibsim and OpenSM: $why" >&2
	exit 1
fi

# sim_cell TOPO LFTS HOSTS ALG [SL]: "T ms (b %)" or "DEADLOCK (n links)"
sim_cell() {
	local out
	out=$("$I" sim --topo "$1" --lfts "$2" --alltoall "$3" \
		--algorithm "$4" --bytes "$BYTES" ${5:+--sl "$5"} 2>&1 || true)
	if [[ $out == *DEADLOCK* ]]; then
		echo "DEADLOCK ($(sed -n 's/.*credit loop of \([0-9]*\) links.*/\1/p' <<<"$out" | head -1) links)"
		return
	fi
	awk '/^time_s/ { printf "%.3f ms (%.0f %% of bound %.3f ms)", $2 * 1e3,
		100 * $4 / $2, $4 * 1e3 }' <<<"$out"
}

# route_s REPORT: the routing's route_seconds
route_s() {
	python3 -c 'import json, sys
print("%.2f" % json.load(open(sys.argv[1]))["route_seconds"])' "$1"
}

deadlock_cell() {
	if "$I" check --topo "$1" --lfts "$2" --deadlock >/dev/null 2>&1; then
		echo "free"
	else
		echo "**cycle**"
	fi
}

eval_cells() {
	"$I" eval --topo "$1" --lfts "$2" --patterns "$PATS" --json - \
		2>/dev/null | python3 -c 'import json, sys
print(" | ".join("%.3f" % p["index"] for p in json.load(sys.stdin)["patterns"]))' ||
		echo "- | - | - | -"
}

# osm_routes NET DIR: one ibsim, a sweep per engine; DIR/ENGINE/{topo,lfts}
osm_routes() {
	local net=$1 dir=$2 e
	ibs_start "$net" "$dir/ibsim" >&2 || return 1
	for e in nue updn minhop; do
		if ibs_sweep "$dir/$e" 2 -R "$e" &&
		   [ "$IBS_ENGINE_USED" = "$e" ] &&
		   ibs_discover "$dir/$e/topo" && ibs_dump_lfts "$dir/$e/lfts"; then
			:
		else
			echo "osm $e: used '${IBS_ENGINE_USED:-none}', left out" >&2
			rm -f "$dir/$e/lfts"
		fi
	done
	ibs_stop
}

echo "# bench_layered_vls.sh: $(date -u +%F), $(nproc) cores, blocks of $BYTES bytes, LMC 2"
for spec in $SPECS; do
	n=$(echo "$spec" | tr ':,' '__')
	d=$W/$n
	mkdir -p "$d"
	[ -f "$d/osm.done" ] && continue   # a BENCH_DIR run before
	"$I" gen "$spec" --lmc 2 --format ibsim -o "$d/net"
	if osm_routes "$d/net" "$d"; then
		touch "$d/osm.done"
	else
		echo "$spec: ibsim failed" >&2
	fi
done
for spec in $SPECS; do
	n=$(echo "$spec" | tr ':,' '__')
	d=$W/$n
	topo=$d/minhop/topo
	[ -f "$topo" ] || topo=$d/nue/topo
	[ -f "$topo" ] || continue
	rows=()
	"$I" route --topo "$topo" --engine layered -o "$d/l1.lfts" \
		--order-out "$d/hosts" --report "$d/l1.json" >/dev/null
	"$I" route --topo "$topo" --engine layered --vls 8 -o "$d/l8.lfts" \
		--sl-out "$d/l8.sl" --report "$d/l8.json" >/dev/null
	times="layered 1 VL $(route_s "$d/l1.json") s, --vls 8 $(route_s "$d/l8.json") s"
	if [ -n "${IBFLOW_BASE:-}" ]; then
		"$IBFLOW_BASE" route --topo "$topo" --engine layered \
			-o "$d/l1base.lfts" --report "$d/l1base.json" >/dev/null
		times="$times, IBFLOW_BASE's 1 VL $(route_s "$d/l1base.json") s"
	fi
	sls=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sls"])' "$d/l8.json")
	echo
	echo "## $spec: $(grep -c '^Ca' "$topo") hosts, $(grep -c '^Switch' "$topo") switches; routed in $times"
	echo
	echo "| routing | CDG on SL 0 | linear, SL 0 | pairwise, SL 0 | eval ${PATS//,/ | } |"
	echo "|---|---|---|---|---|---|---|---|"
	rows+=("layered, 1 VL (default)|$d/l1.lfts|")
	[ -n "${IBFLOW_BASE:-}" ] &&
		rows+=("layered, 1 VL, IBFLOW_BASE build|$d/l1base.lfts|")
	rows+=("layered --vls 8 ($sls SLs), on SL 0|$d/l8.lfts|")
	for e in nue updn minhop; do
		[ -f "$d/$e/lfts" ] && rows+=("OpenSM $e|$d/$e/lfts|")
	done
	for r in "${rows[@]}"; do
		IFS='|' read -r name lfts _ <<<"$r"
		echo "| $name | $(deadlock_cell "$topo" "$lfts") |" \
			"$(sim_cell "$topo" "$lfts" "$d/hosts" linear) |" \
			"$(sim_cell "$topo" "$lfts" "$d/hosts" pairwise) |" \
			"$(eval_cells "$topo" "$lfts") |"
	done
	echo "| layered --vls 8, with its $sls SLs | free with its SLs |" \
		"$(sim_cell "$topo" "$d/l8.lfts" "$d/hosts" linear "$d/l8.sl") |" \
		"$(sim_cell "$topo" "$d/l8.lfts" "$d/hosts" pairwise "$d/l8.sl") |" \
		"(same tables as above) |"
done
