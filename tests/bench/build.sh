# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Sourced by the bench_*.sh scripts: compile a benchmark with -O2 straight
# from the library sources, so no configured build tree is needed.
#   bench_build NAME      builds $out/NAME from tests/bench/NAME.c
# CC, CFLAGS, BENCH_LIBS (extra libraries) and BENCH_DIR (default
# /tmp/ibflow-bench) may be set.
# shellcheck shell=sh
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/common/lib
out=${BENCH_DIR:-/tmp/ibflow-bench}

bench_build() {
	mkdir -p "$out"
	# The library needs no config.h: nothing of a configured tree is used.
	${CC:-gcc} ${CFLAGS:--O2 -g} -Wall -Wextra -Wno-unused-parameter \
		-I"$top/common/include" -I"$lib" $(pkg-config --cflags json-c) \
		-o "$out/$1" "$top/tests/bench/$1.c" "$lib"/*/*.c \
		$(pkg-config --libs json-c) ${BENCH_LIBS:-} -lpthread -lm
	echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
}
