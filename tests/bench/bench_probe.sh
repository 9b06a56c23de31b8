#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the probe planning benchmark (see bench_probe.c).
#   tests/bench/bench_probe.sh [SPEC [ENGINE [MODEL]]]
# Compiled with -O2 straight from the library sources (no build tree
# needed).  CC, CFLAGS and BENCH_DIR (default /tmp/ibflow-bench) may be set.
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_probe
if [ $# -gt 0 ]; then
	exec "$out/bench_probe" "$@"
fi
for model in directed symmetric; do
	for spec in xgft:2:4,4:1,4 kary:4,3 xgft:3:6,6,12:1,6,6; do
		"$out/bench_probe" "$spec" dmodk $model
		"$out/bench_probe" "$spec" minhop $model
	done
	"$out/bench_probe" xgft:3:12,12,24:1,12,12 dmodk $model
done
