#!/bin/sh
# Build and run the probe planning benchmark (see bench_probe.c).
#   tests/bench/bench_probe.sh [SPEC [ENGINE]]
# Compiled with -O2 straight from the library sources (no build tree
# needed).  CC, CFLAGS and BENCH_DIR (default /tmp/ibflow-bench) may be set.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/common/lib
out=${BENCH_DIR:-/tmp/ibflow-bench}
mkdir -p "$out"
# The liquid and eval modules are left out: the bench does not need them.
${CC:-gcc} ${CFLAGS:--O2 -g} -Wall -Wextra -Wno-unused-parameter \
	-I"$top/common/include" $(pkg-config --cflags json-c) \
	-o "$out/bench_probe" "$top/tests/bench/bench_probe.c" \
	$(ls "$lib"/*.c | grep -Ev '/(liquid|eval)[^/]*\.c$') \
	$(pkg-config --libs json-c) -lpthread -lm
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
if [ $# -gt 0 ]; then
	exec "$out/bench_probe" "$@"
fi
for spec in xgft:2:4,4:1,4 kary:4,3 xgft:3:6,6,12:1,6,6; do
	"$out/bench_probe" "$spec" dmodk
	"$out/bench_probe" "$spec" minhop
done
"$out/bench_probe" xgft:3:12,12,24:1,12,12 dmodk
