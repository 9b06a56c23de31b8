#!/bin/sh
# Build and run the MMF-MCF optimum benchmark (see bench_opt.c).
#   tests/bench/bench_opt.sh [bench_opt options...]
# e.g.  tests/bench/bench_opt.sh --threads 2 --check
# The bench is compiled with -O2 straight from the library sources it uses, so it
# needs no configured build tree.  CC, CFLAGS and
# BENCH_DIR (default /tmp/ibflow-bench) may be set.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/common/lib
out=${BENCH_DIR:-/tmp/ibflow-bench}
mkdir -p "$out"
${CC:-gcc} ${CFLAGS:--O2 -g} -Wall -Wextra -Wno-unused-parameter \
	-I"$top/common/include" $(pkg-config --cflags json-c) \
	-o "$out/bench_opt" "$top/tests/bench/bench_opt.c" \
	$(for m in status fabric hash io hosts gen gen_direct gen_fattree \
		pgft patterns mmf mmf_ref mmf_opt; do echo "$lib/$m.c"; done) \
	$(pkg-config --libs json-c) -lpthread -lm
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
exec "$out/bench_opt" "$@"
