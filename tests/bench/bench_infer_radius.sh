#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the radius estimate's benchmark (bench_infer_radius.c).
#   tests/bench/bench_infer_radius.sh [SPEC LATENCIES JITTER NOISE SEED]
# Without arguments: the rows of docs/benchmarks.md (Topology inference,
# the noise table): a 64-host 3-level tree with 1-6 us links, then the noise table's fabrics at
# E = 0.45, 0.6, 1 and 2 x 0.25 us, seeds 1-3.
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_infer_radius
if [ $# -gt 0 ]; then
	exec "$out/bench_infer_radius" "$@"
fi
for seed in 1 2 3; do
	# 64 hosts, 3 levels, links 1-6 us, RTTs +-0.2 us
	"$out/bench_infer_radius" xgft:3:4,4,4:1,1,1 1 5 0.2 $seed
done
# the noise table's fabrics (host links 1 us, switch links 0.25 us x
# 1 + 0.2 U[0,1)): l = 0.25..0.3; E as a fraction of 0.25
for spec in kary:4,3 tree:100,256,16:4 xgft:3:16,4,4:1,1,1; do
	lat=1,0.25
	[ "$spec" = xgft:3:16,4,4:1,1,1 ] && lat=1,0.25,50   # 4 clusters
	for e in 0.1125 0.15 0.25 0.5; do
		for seed in 1 2 3; do
			"$out/bench_infer_radius" "$spec" $lat 0.2 $e $seed
		done
	done
done
