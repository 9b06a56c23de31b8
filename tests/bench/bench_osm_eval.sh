#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# What the plugin's evaluation costs OpenSM (docs/benchmarks.md, "The
# OpenSM plugin's evaluation"):
#   tests/bench/bench_osm_eval.sh [--spec SPEC] [--runs R]
# Real OpenSM with the plugin on ibsim, running continuously, once per
# configuration:
#   none      eval no
#   default   the defaults (eval_patterns perm:4,shift:8,bisect:4)
#   full      eval_patterns perm,shift,bisect,alltoall (the earlier
#             defaults), eval_budget 600, eval_memory_mb 4096
# After the first routing's evaluation (or export) is done it reads
# /proc/<opensm>/status (VmHWM: OpenSM's peak resident memory) and
# /proc/<opensm>/stat (OpenSM's own CPU time; the evaluation process's,
# reaped, in cutime+cstime) and the report's seconds.  With "full" it
# also times a stop by a newer routing (a link taken down in ibsim's
# console) and by SIGTERM, from the plugin's own log lines.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
spec=pgft:3:8,8,24:1,8,8:1,1,1
runs=1
while [ $# -gt 0 ]; do
	case $1 in
	--spec) spec=$2; shift ;;
	--runs) runs=$2; shift ;;
	*) echo "bench_osm_eval.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
build=${BUILD_DIR:-$repo/build}
IBS_SOCK_PREFIX=ibfp
# shellcheck source=../../scripts/ibsim-session.sh
. "$repo/scripts/ibsim-session.sh"
TPID=
stop_osm() {
	[ -n "$TPID" ] && { kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; }
	TPID=
}
trap 'stop_osm; ibs_stop_all' EXIT
export LD_LIBRARY_PATH=$build/osm_plugin/.libs:$build/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
dir=$(mktemp -d /tmp/ibfp-osm-eval.XXXXXX)
"$build/common/ibflow" gen "$spec" --format ibsim -o "$dir/net" >/dev/null || exit 1
tck=$(getconf CLK_TCK)
echo "# $spec, $(grep -c '^Hca' "$dir/net") hosts, $(grep -c '^Switch' "$dir/net") switches; machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"

# run NAME CONF-LINES...
run() {
	local name=$1 run=$dir/$1 osm i hwm st ut stt cut cst secs
	local done_pat

	shift
	rm -rf "$run"
	mkdir -p "$run"
	printf 'event_plugin_name ibflow_osm\nrouting_engine ibflow-dmodk,minhop\nforce_log_flush TRUE\n' >"$run/osm.conf"
	printf '%s\n' "$@" >"$run/ibflow.conf"
	ibs_start_console "$dir/net" "$run" || return 1
	IBFLOW_OSM_CONF=$run/ibflow.conf OSM_TMP_DIR=$run OSM_CACHE_DIR=$run \
		IBSIM_SOCKNAME=$IBS_SOCK LD_PRELOAD=$IBS_UMAD2SIM \
		timeout -k 5 1800 opensm -F "$run/osm.conf" -f "$run/osm.log" \
		-s 1 -D 0x43 >"$run/opensm.out" 2>&1 &
	TPID=$!
	for i in $(seq 3000); do
		case $name in
		none) grep -q 'ibflow: exported' "$run/osm.log" 2>/dev/null && break ;;
		default) grep -q '"seconds"' "$run/ibflow-eval.json" 2>/dev/null && break ;;
		# the full patterns run for many minutes: measure while the
		# all-to-all (the largest) is being evaluated
		full) grep -q 'eval ibflow-dmodk  *bisect ' "$run/osm.log" 2>/dev/null && break ;;
		esac
		sleep 0.2
	done
	sleep 0.5
	osm=$(ps --ppid "$TPID" -o pid= | tr -d ' ')
	if [ "$name" = full ]; then
		local child

		sleep 5
		child=$(ps --ppid "$osm" -o pid= | tr -d ' ' | head -1)
		[ -n "$child" ] && echo "full     evaluation process (all-to-all running) RSS $(sed -n 's/^VmRSS: *//p' "/proc/$child/status"), peak $(sed -n 's/^VmHWM: *//p' "/proc/$child/status")"
	fi
	hwm=$(sed -n 's/^VmHWM: *//p' "/proc/$osm/status")
	read -r ut stt cut cst < <(awk '{ print $14, $15, $16, $17 }' "/proc/$osm/stat")
	secs=$(python3 -c 'import json,sys
try: print("%.2f" % json.load(open(sys.argv[1]))["seconds"])
except Exception: print("-")' "$run/ibflow-eval.json")
	printf '%-8s routing %s s | OpenSM peak RSS %s | OpenSM CPU %.2f s | evaluation process CPU %.2f s | report seconds %s\n' \
		"$name" "$(sed -n 's/.*ibflow-dmodk: routed .* in \([0-9.]*\) s .*/\1/p' "$run/osm.log" | head -1)" \
		"$hwm" "$(echo "($ut + $stt) / $tck" | bc -l)" "$(echo "($cut + $cst) / $tck" | bc -l)" "$secs"
	if [ "$name" = full ]; then
		# a newer routing in the middle of the evaluation
		ibs_console "Unlink \"$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)".*"s3-0".*/\1/p' "$dir/net" | head -1)\""
		for i in $(seq 600); do
			grep -q 'stopped during' "$run/osm.log" && break
			sleep 0.1
		done
		grep -o 'eval of .* stopped during .*' "$run/osm.log" | head -1
		# the second routing's evaluation, past its first pattern
		for i in $(seq 600); do
			[ "$(grep -c 'eval ibflow-dmodk  *perm ' "$run/osm.log")" -ge 2 ] && break
			sleep 0.1
		done
		sleep 2
		kill -TERM "$osm"
		wait "$TPID" 2>/dev/null
		TPID=
		grep -o 'eval of .* stopped during .*' "$run/osm.log" | tail -1
	fi
	stop_osm
	ibs_stop
}

for r in $(seq "$runs"); do
	echo "# run $r"
	run none "eval no"
	run default
	run full "eval_patterns perm,shift,bisect,alltoall" "eval_budget 600" "eval_memory_mb 4096"
done
rm -rf "$dir"
