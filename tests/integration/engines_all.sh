#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Every routing engine that `ibflow route --help` lists (an engine it lists
# and this script does not cover fails) on every generated topology
# family: `ibflow route` then `ibflow check` (hosts and switch LIDs) must
# find no defect; layered routing must also be deadlock-free with its SLs
# (`check --sl --deadlock`); dmodk and uapr must refuse non-PGFTs with a
# "not a PGFT" reason (exit 2), swisst1 every fabric but the Swiss-T1.
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

# route_refused NAME TOPO ENGINE REASON: exit 2 with REASON, no file.
route_refused() {
	local name=$1 topo=$2 engine=$3 reason=$4
	if t_expect_exit 2 "$IBF" route --topo "$topo" --engine "$engine" \
	   -o "$W/$name.$engine.lfts" && grep -q "$reason" "$T_ERR" &&
	   [ ! -e "$W/$name.$engine.lfts" ]; then
		t_pass "$name $engine: refused ($reason), no file written"
	else
		t_fail "$name $engine: refusal" "exit $T_RC: $(t_errhead)"
	fi
}

# The engines are those `ibflow route --help` lists, so that an engine
# added there and not here fails until this test covers it.
ENGINES=$("$IBF" route --help | sed -n 's/^ *--engine NAME *//p' |
	sed 's/,* or / /; s/,/ /g' | tr -s ' ')
COVERED="minhop dmodk uapr layered swisst1"
if [ -n "$ENGINES" ]; then
	t_pass "route --help lists the engines: $ENGINES"
else
	t_fail "route --help lists the engines" "no --engine line"
fi
for e in $ENGINES; do
	case " $COVERED " in
	*" $e "*) ;;
	*) t_fail "engine $e (route --help) covered by engines_all.sh" \
		"no case for it below" ;;
	esac
done
for e in $COVERED; do
	case " $ENGINES " in
	*" $e "*) ;;
	*) t_fail "engine $e listed by route --help" "not in: $ENGINES" ;;
	esac
done

for entry in "${TOPOS[@]}"; do
	read -r spec kind <<<"$entry"
	for lmc in 0 2; do
		name=$(printf '%s' "$spec" | tr ':,' '_-')_lmc$lmc
		topo=$W/$name.topo
		if ! t_expect_exit 0 "$IBF" gen "$spec" --lmc "$lmc" -o "$topo"; then
			t_fail "gen $spec --lmc $lmc" "exit $T_RC: $(t_errhead)"
			continue
		fi
		for e in $ENGINES; do
			case $e in
			minhop)
				route_and_check "$name" "$topo" minhop ;;
			dmodk|uapr)
				if [ "$kind" = pgft ]; then
					route_and_check "$name" "$topo" "$e"
				else
					route_refused "$name" "$topo" "$e" "not a PGFT"
				fi ;;
			layered)
				[ "$lmc" = 2 ] || continue
				if route_and_check "$name" "$topo" layered \
				   --layers 4 --seed 3; then
					t_check "$name layered: deadlock-free with its SLs" 0 \
						"$IBF" check --topo "$topo" \
						--lfts "$W/$name.layered.lfts" \
						--sl "$W/$name.layered.sl" --deadlock
				fi ;;
			swisst1)
				route_refused "$name" "$topo" swisst1 \
					"the Swiss-T1 of" ;;
			esac
		done
	done
done
# swisst1 routes the fabric it was written for (Figure 15's routes).
for lmc in 0 2; do
	topo=$W/swisst1_lmc$lmc.topo
	if t_expect_exit 0 "$IBF" gen swisst1 --lmc "$lmc" -o "$topo"; then
		route_and_check "swisst1_lmc$lmc" "$topo" swisst1
	else
		t_fail "gen swisst1 --lmc $lmc" "exit $T_RC: $(t_errhead)"
	fi
done
t_done
