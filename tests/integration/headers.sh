#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Every public header stands on its own: a translation unit that includes
# just it (twice: its guard) compiles as C and as C++ with warnings as
# errors - libibflow's (common/include/ibflow/*.h) and libibflow_ucx's
# (ucx_component/include/ibflow/*.h: ucx.h over UCX's headers, mpi.h over
# MPI's).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

CC=${CC:-cc}
CXX=${CXX:-c++}
INC=(-I"$T_REPO/common/include" -I"$T_REPO/ucx_component/include")

# compile LANG HEADER EXTRA_FLAGS...: one translation unit, syntax only.
compile() {
	local lang=$1 h=$2 src
	shift 2
	src=$T_TMP/$(basename "$h" .h).$lang
	printf '#include <ibflow/%s>\n#include <ibflow/%s>\nint ibf_header_test;\n' \
		"$(basename "$h")" "$(basename "$h")" >"$src"
	if [ "$lang" = c ]; then
		"$CC" -std=c11 -Wall -Wextra -Werror -fsyntax-only "${INC[@]}" \
			"$@" "$src"
	else
		"$CXX" -std=c++11 -Wall -Wextra -Werror -fsyntax-only \
			"${INC[@]}" "$@" "$src"
	fi
}

# check HEADER EXTRA_FLAGS...: as C and as C++.
check() {
	local h=$1 lang name
	shift
	name=${h#"$T_REPO"/}
	for lang in c cpp; do
		if [ "$lang" = cpp ] && ! t_need "$CXX"; then
			t_skip "$name as C++" "no C++ compiler ($CXX)"
			continue
		fi
		if compile "$lang" "$h" "$@" >"$T_TMP/cc.log" 2>&1; then
			t_pass "$name compiles alone as $lang"
		else
			t_fail "$name compiles alone as $lang" \
				"$(head -3 "$T_TMP/cc.log" | tr '\n' ' ')"
		fi
	done
}

t_need "$CC" || { t_skip headers "no C compiler ($CC)"; t_done; }
for h in "$T_REPO"/common/include/ibflow/*.h; do
	check "$h"
done
for h in "$T_REPO"/ucx_component/include/ibflow/*.h; do
	case $(basename "$h") in
	mpi.h)
		if t_need mpicc; then
			# MPI's own headers as system headers: their warnings
			# are not ours.
			# shellcheck disable=SC2046
			check "$h" $(mpicc -showme:compile 2>/dev/null |
				     sed 's/-I/-isystem /g')
		else
			t_skip "${h#"$T_REPO"/}" "mpicc not installed (libopenmpi-dev)"
		fi ;;
	ucx.h)
		if [ -f /usr/include/ucp/api/ucp.h ] ||
		   pkg-config --exists ucx 2>/dev/null; then
			# shellcheck disable=SC2046
			check "$h" $(pkg-config --cflags ucx 2>/dev/null |
				     sed 's/-I/-isystem /g')
		else
			t_skip "${h#"$T_REPO"/}" "UCX's headers not installed (libucx-dev)"
		fi ;;
	*)
		check "$h" ;;
	esac
done
t_done
