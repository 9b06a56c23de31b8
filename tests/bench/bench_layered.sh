#!/bin/sh
# Build and run the layered engine benchmark (see bench_layered.c).
#   tests/bench/bench_layered.sh [bench_layered options...]
# e.g.  tests/bench/bench_layered.sh --runs 3 --check
# The bench is compiled with -O2 straight from the library sources, so it
# needs no configured build tree.  CC, CFLAGS and
# BENCH_DIR (default /tmp/ibflow-bench) may be set.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/common/lib
out=${BENCH_DIR:-/tmp/ibflow-bench}
mkdir -p "$out"
${CC:-gcc} ${CFLAGS:--O2 -g} -Wall -Wextra -Wno-unused-parameter \
	-I"$top/common/include" $(pkg-config --cflags json-c) \
	-o "$out/bench_layered" "$top/tests/bench/bench_layered.c" \
	"$lib"/*.c \
	$(pkg-config --libs json-c) -lpthread -lm
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
exec "$out/bench_layered" "$@"
