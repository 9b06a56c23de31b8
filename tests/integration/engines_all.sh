#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Every routing engine on every generated topology family: `ibflow route`
# then `ibflow check` (hosts and switch LIDs) must find no defect; layered
# routing must also be deadlock-free with its SLs (`check --sl --deadlock`);
# dmodk and uapr must refuse non-PGFTs with a "not a PGFT" reason (exit 2).
# The routes are also traced by the awk tracer of tests/lib.sh, which shares
# no code with ibflow, and must all be delivered.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
W=$T_TMP
t_need_ibflow

# "SPEC PGFT?" — single-plane PGFTs (dmodk/uapr apply) and the direct
# networks.  Multi-plane trees (w1 > 1) are left out: their cross-plane
# LIDs have no path by construction (docs/routing.md).
TOPOS=("xgft:2:4,4:1,4 pgft" "pgft:2:4,2:1,2:1,2 pgft" "xgft:2:4,4:1,2 pgft"
       "kary:4,3 pgft" "pgft:3:2,2,4:1,2,2:1,2,1 pgft"
       "slimfly:5 -" "dragonfly:4,2,2 -" "hyperx:2:4:1:2 -"
       "jellyfish:16,4,2:7 -" "torus:3,3,3 -")
[ "$T_QUICK" = 1 ] || TOPOS+=("slimfly:7 -" "xgft:3:4,4,8:1,4,4 pgft")

# route_and_check NAME TOPO ENGINE [route options...]
route_and_check() {
	local name=$1 topo=$2 engine=$3 out
	shift 3
	out=$W/$name.$engine
	if ! t_expect_exit 0 "$IBF" route --topo "$topo" --engine "$engine" \
	     -o "$out.lfts" --sl-out "$out.sl" "$@"; then
		t_fail "$name $engine: route" "exit $T_RC: $(t_errhead)"
		return 1
	fi
	t_check "$name $engine: ibflow check (hosts and switches)" 0 \
		"$IBF" check --topo "$topo" --lfts "$out.lfts" --switches
	local tr
	tr=$(t_trace "$topo" "$out.lfts")
	if [ "$(awk '{print $2 == $4}' <<<"$tr")" = 1 ]; then
		t_pass "$name $engine: awk tracer delivers all ($(cut -d' ' -f1-4 <<<"$tr"))"
	else
		t_fail "$name $engine: awk tracer" "$tr"
	fi
	return 0
}

for entry in "${TOPOS[@]}"; do
	read -r spec kind <<<"$entry"
	for lmc in 0 2; do
		name=$(printf '%s' "$spec" | tr ':,' '_-')_lmc$lmc
		topo=$W/$name.topo
		if ! t_expect_exit 0 "$IBF" gen "$spec" --lmc "$lmc" -o "$topo"; then
			t_fail "gen $spec --lmc $lmc" "exit $T_RC: $(t_errhead)"
			continue
		fi
		route_and_check "$name" "$topo" minhop
		if [ "$kind" = pgft ]; then
			route_and_check "$name" "$topo" dmodk
			route_and_check "$name" "$topo" uapr
		else
			for e in dmodk uapr; do
				if t_expect_exit 2 "$IBF" route --topo "$topo" \
				   --engine "$e" -o "$W/$name.$e.lfts" &&
				   grep -q "not a PGFT" "$T_ERR" &&
				   [ ! -e "$W/$name.$e.lfts" ]; then
					t_pass "$name $e: refused, not a PGFT, no file written"
				else
					t_fail "$name $e: refusal" "exit $T_RC: $(t_errhead)"
				fi
			done
		fi
		[ "$lmc" = 2 ] || continue
		if route_and_check "$name" "$topo" layered --layers 4 --seed 3; then
			t_check "$name layered: deadlock-free with its SLs" 0 \
				"$IBF" check --topo "$topo" --lfts "$W/$name.layered.lfts" \
				--sl "$W/$name.layered.sl" --deadlock
		fi
	done
done
t_done
