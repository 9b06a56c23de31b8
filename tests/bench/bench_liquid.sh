#!/bin/sh
# Build and run the liquid scheduling benchmark (see bench_liquid.c).
#   tests/bench/bench_liquid.sh [--runs N] [--subsets N] [--limit S]
#                               [SPEC:ENGINE ...]
# Compiled with -O2 straight from the library sources (no configured build
# tree needed).  CC, CFLAGS and BENCH_DIR (default /tmp/ibflow-bench) may
# be set.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/common/lib
out=${BENCH_DIR:-/tmp/ibflow-bench}
mkdir -p "$out"
# Some library files include the build's config.h; they need nothing from
# it for this benchmark.
[ -f "$out/config.h" ] || : >"$out/config.h"
${CC:-gcc} ${CFLAGS:--O2 -g} -Wall -Wextra -Wno-unused-parameter \
	-I"$top/common/include" -I"$out" $(pkg-config --cflags json-c) \
	-o "$out/bench_liquid" "$top/tests/bench/bench_liquid.c" \
	"$lib"/*.c \
	$(pkg-config --libs json-c) -lpthread -lm
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
exec "$out/bench_liquid" "$@"
