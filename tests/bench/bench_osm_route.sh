#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Routing time inside OpenSM (docs/benchmarks.md, "The OpenSM plugin at
# scale"):
#   tests/bench/bench_osm_route.sh [--runs R] [SPEC...]
# Real OpenSM on ibsim, one heavy sweep per run (-s 0 -o -D 0x47), each
# engine once per round, rounds interleaved (engine A, B, C, A, B, C, ...)
# so a busy moment of the shared machine hits all engines alike.  Routing
# time = OpenSM's log from "building routing with" to "tables configured on
# all switches"; for the ibflow engines the plugin's own log line splits
# it into the min-hop matrices, model + engine, and the copy into
# OpenSM's tables.  Prints one row per (spec, LMC, engine): medians of R.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
runs=3
specs=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift ;;
	-*) echo "bench_osm_route.sh: unknown option $1" >&2; exit 2 ;;
	*) specs+=("$1") ;;
	esac
	shift
done
[ ${#specs[@]} -gt 0 ] || specs=(pgft:2:16,16:1,16:1,1 pgft:3:8,8,8:1,8,8:1,1,1
				 pgft:3:8,8,16:1,8,8:1,1,1)
build=${BUILD_DIR:-$repo/build}
IBS_SOCK_PREFIX=ibfr
# shellcheck source=../../scripts/ibsim-session.sh
. "$repo/scripts/ibsim-session.sh"
trap 'ibs_stop_all' EXIT
export LD_LIBRARY_PATH=$build/osm_plugin/.libs:$build/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
dir=$(mktemp -d /tmp/ibfr-osm-route.XXXXXX)

# log time "Mon DD HH:MM:SS USEC" -> seconds of the day
osm_secs() {
	awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }'
}

# sweep NET LMC ENGINE RUN: prints "total hops route copy" (- when none)
sweep() {
	local lmc=$2 eng=$3 run=$4 t0 t1 args=(-R "$3")

	rm -rf "$run"
	mkdir -p "$run"
	case $eng in
	ibflow-*)
		printf 'event_plugin_name ibflow_osm\nrouting_engine %s\n' \
			"$eng" >"$run/osm.conf"
		printf 'export no\neval no\n' >"$run/ibflow.conf"
		args=(-F "$run/osm.conf") ;;
	esac
	IBFLOW_OSM_CONF=$run/ibflow.conf OSM_TMP_DIR=$run OSM_CACHE_DIR=$run \
		ibs_run opensm "${args[@]}" -f "$run/osm.log" -s 0 -o -D 0x47 \
		-l "$lmc" >"$run/opensm.out" 2>&1
	[ "$(ibs_engine_used "$run/osm.log")" = "$eng" ] || { echo "fail"; return; }
	t0=$(grep -m1 'building routing with' "$run/osm.log" | osm_secs)
	t1=$(grep 'tables configured on all switches' "$run/osm.log" | tail -1 | osm_secs)
	awk -v t="$(echo "$t1 - $t0" | bc -l)" '
	/: routed .* SL\(s\) in / {
		for (i = 1; i <= NF; i++) {
			if ($i == "in" && $(i + 2) == "s" && !r) r = $(i + 1)
			if ($i == "matrices") h = $(i + 1)
			if ($i == "copied") c = $(i + 2)
		}
	}
	END { printf "%.4f %s %s %s\n", t, h == "" ? "-" : h, r == "" ? "-" : r, c == "" ? "-" : c }' \
		"$run/osm.log"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }

echo "# $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %3s %-15s %8s %8s %8s %8s   %s\n' spec lmc engine total matrices engine copy runs
for spec in "${specs[@]}"; do
	net=$dir/$(echo "$spec" | tr ':,' '_-').net
	"$build/common/ibflow" gen "$spec" --format ibsim -o "$net" >/dev/null || exit 1
	ibs_start "$net" "$dir/sim" >/dev/null 2>&1 || { echo "ibsim failed on $spec"; continue; }
	for lmc in 0 2; do
		if [ "$lmc" = 0 ]; then
			engines=(ibflow-dmodk ibflow-uapr ftree minhop)
		else
			engines=(ibflow-dmodk ibflow-uapr minhop)
		fi
		for r in $(seq "$runs"); do
			for e in "${engines[@]}"; do
				sweep "$net" "$lmc" "$e" "$dir/run" >>"$dir/$lmc-$e.txt"
			done
		done
		for e in "${engines[@]}"; do
			f=$dir/$lmc-$e.txt
			printf '%-28s %3s %-15s %8s %8s %8s %8s   %s\n' "$spec" "$lmc" "$e" \
				"$(cut -d' ' -f1 "$f" | median)" \
				"$(cut -d' ' -f2 "$f" | median)" \
				"$(cut -d' ' -f3 "$f" | median)" \
				"$(cut -d' ' -f4 "$f" | median)" \
				"$(cut -d' ' -f1 "$f" | tr '\n' ' ')"
			rm -f "$f"
		done
	done
	ibs_stop
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$dir"
