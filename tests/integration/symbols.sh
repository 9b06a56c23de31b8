#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# libibflow.so exports exactly its public API: every dynamic symbol it
# defines is a function or object declared in common/include/ibflow/*.h,
# and every function declared there is exported.  The list of declared
# names is read from the headers by this script, not taken from the build.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

so=$T_BUILD_DIR/common/.libs/libibflow.so
if [ ! -f "$so" ]; then
	t_fail "libibflow.so built" "no $so"
	t_done
fi
t_need nm || { t_skip symbols "nm (binutils) is not installed"; t_done; }

# Names followed by "(" at the start of a declaration line, outside
# static inline definitions: the functions the headers declare.
declared=$T_TMP/declared
awk '
	/^static inline/ { skip = 1 }
	skip && /^}/ { skip = 0; next }
	skip { next }
	{
		line = $0
		while (match(line, /ibf_[a-z0-9_]+\(/)) {
			name = substr(line, RSTART, RLENGTH - 1)
			# a declaration names its function after its type
			pre = substr(line, 1, RSTART - 1)
			if (pre ~ /^[a-z][a-z0-9_ *]*[ *]$/)
				print name
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$T_REPO"/common/include/ibflow/*.h | sort -u >"$declared"

exported=$T_TMP/exported
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ { sub(/@.*/, "", $3); print $3 }' |
	sort -u >"$exported"

t_check "library exports symbols" 0 test -s "$exported"
extra=$(comm -13 "$declared" "$exported" | tr '\n' ' ')
if [ -z "$extra" ]; then
	t_pass "every exported symbol is declared in a public header"
else
	t_fail "every exported symbol is declared in a public header" \
		"exported but not public: $extra"
fi
missing=$(comm -23 "$declared" "$exported" | tr '\n' ' ')
if [ -z "$missing" ]; then
	t_pass "every public function is exported"
else
	t_fail "every public function is exported" "declared, not exported: $missing"
fi
bad=$(grep -v '^ibf_' "$exported" | tr '\n' ' ')
if [ -z "$bad" ]; then
	t_pass "only ibf_ names exported"
else
	t_fail "only ibf_ names exported" "$bad"
fi
# The version script tags every exported symbol.
if nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/' | grep -qv '@@IBFLOW_0'; then
	t_fail "symbols versioned IBFLOW_0" "$(nm -D --defined-only "$so" | grep -v '@@IBFLOW_0' | head -3)"
else
	t_pass "symbols versioned IBFLOW_0"
fi
# The OpenSM plugin exports the one symbol OpenSM dlsym()s and nothing else
# (its helpers must not clash with OpenSM's or another plugin's names).
plugin=$T_BUILD_DIR/osm_plugin/.libs/libibflow_osm.so
if [ -f "$plugin" ]; then
	pexp=$(nm -D --defined-only "$plugin" | awk '$2 ~ /^[TDBRV]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u | tr '\n' ' ')
	if [ "$pexp" = "osm_event_plugin " ]; then
		t_pass "plugin exports only osm_event_plugin"
	else
		t_fail "plugin exports only osm_event_plugin" "exports: $pexp"
	fi
else
	t_skip "plugin exports only osm_event_plugin" "no $plugin (configure found no OpenSM headers)"
fi
t_done
