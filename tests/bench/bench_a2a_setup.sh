#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The liquid all-to-all's setup in libibflow_ucx at 16,384 ranks: the
# planner's CPU and each other rank's CPU and memory, simulated ranks in
# one process (tests/ucx/a2a_setup_bench.c runs the library's own
# planner and slice code), median of RUNS per shape.
#   tests/bench/bench_a2a_setup.sh [RUNS] [SHAPE...]
# SHAPE: SPEC:ENGINE:HOSTS:PPN (default: the 16,384-rank shapes below).
# Of the non-planner ranks one per host takes its part (a host's ranks
# get one slice); ALL_RANKS=1: every rank.
# Needs a configured build tree (BUILD_DIR, default build).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD_DIR:-$top/build}
runs=${1:-3}
[ $# -gt 0 ] && shift
make -C "$B/tests" ucx/ibflow-a2a-setup-bench >/dev/null
prog=$B/tests/ucx/ibflow-a2a-setup-bench
if [ $# -eq 0 ]; then
	set -- "pgft:3:16,8,8:1,8,8:1,1,1:dmodk:128:128" \
		"pgft:3:16,8,8:1,8,8:1,1,1:dmodk:1024:16" \
		"dragonfly:8,4,4:minhop:1024:16" \
		"pgft:3:16,8,32:1,8,8:1,1,1:dmodk:4096:4" \
		"dragonfly:8,4,4:minhop:128:128" \
		"dragonfly:8,16,4:minhop:4096:4"
fi
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| fabric (routing) | hosts x ranks | frames / bound (round robin) | planner CPU s | slices MB | other rank: CPU s | kept MB | peak MB |"
echo "|---|---|---|---|---|---|---|---|"
for shape in "$@"; do
	read -r spec engine hosts ppn <<<"$(echo "$shape" | sed 's/:\([a-z]*\):\([0-9]*\):\([0-9]*\)$/ \1 \2 \3/')"
	every=$ppn
	[ "${ALL_RANKS:-0}" = 1 ] && every=1
	"$prog" "$spec" "$engine" "$hosts" "$ppn" "$runs" "$every" | awk -v spec="$spec" \
		-v eng="$engine" -v h="$hosts" -v p="$ppn" '
	function med(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$NF != "ok" { print "FAIL: " $0; exit 1 }
	{ n++; pl[n] = $12; rc[n] = $16; fr = $6; bd = $8; rr = $10
	  sl = $14; kept[n] = $18; peak[n] = $20 }
	END { if (!n) exit 1
		printf "| `%s` (%s) | %s x %s | %d / %d (%d) | %.3f | %.1f | %.4f | %.2f | %.2f |\n",
			spec, eng, h, p, fr, bd, rr, med(pl, n), sl / 1048576,
			med(rc, n), med(kept, n) / 1048576, med(peak, n) / 1048576 }'
done
