#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run every libFuzzer target tests/fuzz/fuzz_<name>.c for a short
# time on a copy of its seed corpus tests/fuzz/corpus/<name>/.
#
# Targets are linked with libibflow's sources (common/lib/*/*.c) compiled by
# clang with -fsanitize=fuzzer,address,undefined, UBSan made fatal, so any
# crash, leak, out-of-bounds access, undefined behaviour or timeout fails the
# target; the reproducer path and the head of the sanitizer report are
# printed.  Without clang every target is skipped with the reason.
#
#   tests/fuzz/run.sh [NAME...]        (default: all targets)
#   tests/fuzz/run.sh --build [NAME...]  only build (tests/run.sh does it
#                                        beside the soft-RoCE VM; a later
#                                        run relinks nothing up to date)
#
# Environment: FUZZ_SECONDS (per target, default 15), FUZZ_JOBS (targets
# and compilations at a time, default 2), BUILD_DIR (for
# config.h; default <repo>/build), FUZZ_OUT (work dir, default
# $BUILD_DIR/fuzz).  Replay one reproducer: $FUZZ_OUT/fuzz_<name> FILE
set -uo pipefail

T_NAME=fuzz
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

REPO=$T_REPO
SECS=${FUZZ_SECONDS:-15}
OUT=${FUZZ_OUT:-$T_BUILD_DIR/fuzz}
CLANG=${CLANG:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
CFLAGS_F="-g -O1 -std=gnu11 -fno-omit-frame-pointer -I$REPO/common/include -I$REPO/common/lib -I$T_BUILD_DIR $(pkg-config --cflags json-c 2>/dev/null)"
LIBS="$(pkg-config --libs json-c 2>/dev/null || echo -ljson-c) -lm -lpthread"

BUILD_ONLY=0
if [ "${1:-}" = --build ]; then
	BUILD_ONLY=1
	shift
fi
targets=()
if [ $# -gt 0 ]; then
	for n in "$@"; do
		targets+=("$REPO/tests/fuzz/fuzz_${n#fuzz_}.c")
	done
else
	for f in "$REPO"/tests/fuzz/fuzz_*.c; do
		[ -e "$f" ] && targets+=("$f")
	done
fi
if [ ${#targets[@]} -eq 0 ]; then
	t_skip fuzz "no fuzz targets (tests/fuzz/fuzz_*.c) yet"
	t_done
fi

skip_all() {
	local f

	for f in "${targets[@]}"; do
		t_skip "$(basename "$f" .c)" "$1"
	done
	t_done
}

command -v "$CLANG" >/dev/null 2>&1 || skip_all "clang not installed"
[ -f "$T_BUILD_DIR/config.h" ] ||
	skip_all "no $T_BUILD_DIR/config.h (run scripts/build.sh first)"
# libFuzzer ships in a separate package on some systems.
probe=$T_TMP/probe.c
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	'{ (void)d; (void)n; return 0; }' >"$probe"
"$CLANG" -fsanitize=fuzzer "$probe" -o "$T_TMP/probe" >/dev/null 2>&1 ||
	skip_all "$CLANG cannot link libFuzzer (Debian: libclang-rt-dev)"

mkdir -p "$OUT/obj"

# The library once, instrumented for coverage but without libFuzzer's main,
# JOBS objects at a time.
JOBS=${FUZZ_JOBS:-2}
stale() { # OBJ SRC: true when OBJ must be rebuilt
	[ ! -f "$1" ] || [ "$2" -nt "$1" ] ||
	[ -n "$(find "$REPO/common/include" "$REPO/common/lib" \
		"$T_BUILD_DIR/config.h" -name '*.h' -newer "$1" 2>/dev/null)" ]
}
compile_obj() { # SRC OBJ
	# shellcheck disable=SC2086
	"$CLANG" $CFLAGS_F -fsanitize=fuzzer-no-link $SAN -c "$1" -o "$2" \
		2>"$2.log" || { echo "# $CLANG failed on $1" >&2; return 1; }
}
build_lib() {
	local src obj objs=() failed=0

	for src in "$REPO"/common/lib/*/*.c; do
		obj=$OUT/obj/$(basename "$src" .c).o
		objs+=("$obj")
		stale "$obj" "$src" || continue
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
			wait -n || failed=1
		done
		rm -f "$obj"
		compile_obj "$src" "$obj" &
	done
	while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
		wait -n || failed=1
	done
	cat "$OUT"/obj/*.o.log >>"$OUT/lib.build.log" 2>/dev/null
	for obj in "${objs[@]}"; do
		[ -f "$obj" ] || failed=1
	done
	LIB_OBJS=("${objs[@]}")
	return $failed
}

: >"$OUT/lib.build.log"
if ! build_lib; then
	sed 's/^/# /' "$OUT/lib.build.log" | grep -E 'error' | head -10
	for f in "${targets[@]}"; do
		t_fail "$(basename "$f" .c)" "libibflow does not compile with clang (log: $OUT/lib.build.log)"
	done
	t_done
fi

# Targets beyond libibflow: the sources and flags they add.  fuzz_export
# reads export directories with libibflow_ucx's loader and map readers
# (UCX's headers for its types only; READ_TRIES 1: no 100 ms naps).
extra_sources() {
	case $1 in
	fuzz_export)
		echo "$REPO/ucx_component/src/fabric/ucx_export.c" \
			"$REPO/ucx_component/src/fabric/map.c" \
			"$REPO/ucx_component/src/core/ucx_status.c" ;;
	esac
}
extra_flags() {
	case $1 in
	fuzz_export)
		echo "-I$REPO/ucx_component/include -I$REPO/ucx_component/src" \
			"$(pkg-config --cflags ucx 2>/dev/null) -DREAD_TRIES=1" ;;
	esac
}

# build_target SRC: link the target unless its binary is newer than its
# sources, the library objects and the headers; false when it does not
# compile (the log in $OUT/<name>.build.log).
build_target() {
	local src=$1 name bin f

	name=$(basename "$src" .c)
	bin=$OUT/$name
	if [ -f "$bin" ] && [ -f "$OUT/$name.built" ]; then
		for f in "$src" $(extra_sources "$name") "${LIB_OBJS[@]}"; do
			[ "$f" -nt "$OUT/$name.built" ] && break
			f=
		done
		if [ -z "$f" ] && ! stale "$OUT/$name.built" "$src" &&
		   [ -z "$(find "$REPO/ucx_component/include" \
			"$REPO/ucx_component/src" -name '*.h' \
			-newer "$OUT/$name.built" 2>/dev/null)" ]; then
			return 0
		fi
	fi
	rm -f "$OUT/$name.built"
	# shellcheck disable=SC2086
	"$CLANG" $CFLAGS_F $(extra_flags "$name") -fsanitize=fuzzer $SAN \
		"$src" $(extra_sources "$name") "${LIB_OBJS[@]}" \
		$LIBS -o "$bin" >"$OUT/$name.build.log" 2>&1 &&
		: >"$OUT/$name.built"
}

# fuzz_run SRC: build and run one target; its exit status goes to
# $OUT/<name>.rc (b: does not compile, s: skipped), its output to the logs.
fuzz_run() {
	local src=$1 name base bin corpus seeds log rc=0

	name=$(basename "$src" .c)
	base=${name#fuzz_}
	bin=$OUT/$name
	log=$OUT/$name.log
	seeds=$REPO/tests/fuzz/corpus/$base
	if [ "$name" = fuzz_export ] && ! pkg-config --exists ucx; then
		echo s >"$OUT/$name.rc"
		return
	fi
	if ! build_target "$src"; then
		echo b >"$OUT/$name.rc"
		return
	fi
	[ "$BUILD_ONLY" = 0 ] || return 0
	# Fuzz a copy: new inputs must not pile up in the source tree.
	corpus=$OUT/corpus-$base
	rm -rf "$corpus" "$OUT/$base-"crash-* "$OUT/$base-"leak-* "$OUT/$base-"timeout-* "$OUT/$base-"oom-*
	mkdir -p "$corpus"
	if [ -d "$seeds" ]; then
		cp -r "$seeds"/. "$corpus"/
	else
		echo "# $name: no seed corpus $seeds; starting from nothing" >"$OUT/$name.note"
	fi
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ASAN_OPTIONS=detect_leaks=1 \
	timeout -k 10 $((SECS + 120)) "$bin" -max_total_time="$SECS" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$OUT/$base-" "$corpus" \
		>"$log" 2>&1 || rc=$?
	echo "$rc" >"$OUT/$name.rc"
}

# fuzz_judge SRC: the TAP line of a target fuzz_run has run.
fuzz_judge() {
	local name base bin log rc art

	name=$(basename "$1" .c)
	base=${name#fuzz_}
	bin=$OUT/$name
	log=$OUT/$name.log
	rc=$(cat "$OUT/$name.rc" 2>/dev/null || echo "none")
	[ -f "$OUT/$name.note" ] && cat "$OUT/$name.note"
	case $rc in
	s) t_skip "$name" "UCX's headers not installed (libucx-dev)"; return ;;
	b) grep -E 'error' "$OUT/$name.build.log" | head -5 | sed 's/^/# /'
	   t_fail "$name" "does not compile (log: $OUT/$name.build.log)"; return ;;
	0) t_pass "$name ($(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$log" |
		grep -oE '[0-9]+$') runs in ${SECS}s, corpus $(find "$OUT/corpus-$base" -type f | wc -l))"
	   return ;;
	esac
	art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | head -1)
	echo "# $name: exit $rc; reproducer: ${art:-none written}"
	echo "#   replay: $bin ${art:-<file>}"
	grep -m1 -E -A12 '^==[0-9]+==ERROR|runtime error|ERROR: libFuzzer' "$log" |
		sed 's/^/#   /'
	t_fail "$name" "exit $rc, reproducer ${art:-none} (log: $log)"
}

# JOBS targets at a time (each is one process); verdicts in target order.
for f in "${targets[@]}"; do
	rm -f "$OUT/$(basename "$f" .c).rc" "$OUT/$(basename "$f" .c).note"
	[ -f "$f" ] || continue
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	fuzz_run "$f" &
done
wait
if [ "$BUILD_ONLY" = 1 ]; then
	for f in "${targets[@]}"; do
		[ "$(cat "$OUT/$(basename "$f" .c).rc" 2>/dev/null)" != b ] ||
			echo "# $(basename "$f" .c): does not compile"
	done
	exit 0
fi
for f in "${targets[@]}"; do
	if [ ! -f "$f" ]; then
		t_fail "$(basename "$f" .c)" "no such target $f"
		continue
	fi
	fuzz_judge "$f"
done
t_done
