#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The build is -Wall -Wextra clean with gcc and with clang: configure a
# private tree with --enable-werror for each compiler and build everything,
# unit tests included.  Skipped under --quick (two full builds).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

if [ "$T_QUICK" = 1 ]; then
	t_skip warnings "--quick: two full builds"
	t_done
fi
if [ ! -x "$T_REPO/configure" ]; then
	t_fail warnings "no configure in $T_REPO (run scripts/build.sh first)"
	t_done
fi

# werror_build CC: the test build was configured from scratch with CC and
# -Werror (so every object in it was compiled with it).
werror_build() {
	local mk=$T_BUILD_DIR/Makefile

	[ -f "$mk" ] && grep -qE "^CC = $1\$" "$mk" &&
		grep -qE '^WARN_CFLAGS = .*-Werror' "$mk" &&
		grep -q -- '--enable-werror' "$T_BUILD_DIR/config.status" 2>/dev/null
}

for cc in gcc clang; do
	if ! t_need "$cc"; then
		t_skip "$cc -Wall -Wextra -Werror" "$cc is not installed"
		continue
	fi
	# A test build of this compiler configured --enable-werror (as .ci/run
	# makes it) has built everything with these flags already.
	if werror_build "$cc"; then
		if make -C "$T_BUILD_DIR" -j2 all >"$T_TMP/$cc.log" 2>&1 &&
		   make -C "$T_BUILD_DIR" -j2 check TESTS= >>"$T_TMP/$cc.log" 2>&1; then
			t_pass "$cc -Wall -Wextra -Werror: library, CLI and tests build (the test build, configured --enable-werror)"
		else
			t_fail "$cc -Wall -Wextra -Werror" "$(grep -m3 -E 'warning|error' "$T_TMP/$cc.log")"
		fi
		continue
	fi
	dir=$T_TMP/$cc
	mkdir -p "$dir"
	if ! (cd "$dir" && "$T_REPO/configure" -q CC="$cc" --enable-werror) \
	     >"$dir/configure.log" 2>&1; then
		t_fail "$cc -Wall -Wextra -Werror" "configure failed: $(tail -3 "$dir/configure.log")"
		continue
	fi
	if make -C "$dir" -j2 all >"$dir/build.log" 2>&1 &&
	   make -C "$dir" -j2 check TESTS= >>"$dir/build.log" 2>&1; then
		t_pass "$cc -Wall -Wextra -Werror: library, CLI and tests build"
	else
		t_fail "$cc -Wall -Wextra -Werror" "$(grep -m3 -E 'warning|error' "$dir/build.log")"
	fi
done
t_done
