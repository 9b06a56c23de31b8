#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the topology inference benchmark (see bench_infer.c).
#   tests/bench/bench_infer.sh [ARGS...]   one run of bench_infer
# Without arguments: the configurations of docs/benchmarks.md, each with
# the search off, bounded to 4 (the first tables' budget), to 8 (the
# default) and unbounded, the charged time really waited (SLEEP=1).
# CC, CFLAGS and BENCH_DIR may be set.
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_infer
if [ $# -gt 0 ]; then
	exec "$out/bench_infer" "$@"
fi
export SLEEP=${SLEEP:-1}
for la in 0 4 8 all; do
	# one cluster: 64 hosts (4-ary 3-tree), 256 hosts (16 per leaf)
	"$out/bench_infer" kary:4,3 1,0.25 0.5 pingpong "$la"
	"$out/bench_infer" tree:30,64,8:1 1,0.25 0.5 pingpong "$la"
	"$out/bench_infer" xgft:2:16,16:1,16 1,0.25 0.5 pingpong "$la"
	"$out/bench_infer" kary:4,4 1,0.25 0.5 pingpong "$la"
	# four clusters of 64 joined by 50 µs links (the paper's setting)
	"$out/bench_infer" xgft:3:16,4,4:1,1,1 1,0.25,50 0.5 pingpong "$la"
done
