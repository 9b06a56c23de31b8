#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Real OpenSM on ibsim for the direct (non-tree) generators: Slim Fly,
# Dragonfly, HyperX, Jellyfish and 3D torus.  For each small instance
# (LMC 0, some also LMC 1): `ibflow gen --format ibsim`, load it in ibsim,
# sweep once with OpenSM per engine that suits arbitrary topologies
# (minhop, dfsssp, updn; updn also with an explicit root switch), then
# assert:
#   - the requested engine configured the tables, or OpenSM's log gives the
#     one documented reason for a fallback (updn without a root file finds
#     no root switch in a direct network and routes with minhop);
#   - the fabric read back with ibnetdiscover equals the generated one (awk
#     reader, by GUID: node types, port counts, descriptions, every link);
#   - the awk tracer delivers every (source port, destination LID) pair, and
#     their number is hosts * (hosts - 1) * 2^LMC with the host count
#     computed here from the spec (the formulas of docs/generators.md);
#   - `ibflow check` on OpenSM's opensm-lfts.dump exits 0 and reports that
#     same number of pairs;
#   - minhop's longest route is the router graph's diameter + 2 links where
#     the diameter is known in closed form (all but Jellyfish).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
ENGINES=(minhop dfsssp updn updn-roots)

if ! why=$(ibs_have_tools); then
	t_skip direct_ibsim "$why"
	t_done
fi

# "SPEC LMC"; the LMC 1 runs of the larger fabrics only without --quick.
FABRICS=("slimfly:5 0" "dragonfly:4,2,2 0" "hyperx:2:4:1:2 0"
	 "jellyfish:16,4,2:7 0" "torus:3,3,3 0" "torus:3,3,3 1")
[ "$T_QUICK" = 1 ] || FABRICS+=("dragonfly:4,2,2 1" "slimfly:5 1"
				 "hyperx:2:4:1:2 1" "jellyfish:16,4,2:7 1")

# hosts_of SPEC: number of hosts (one port each), from the spec alone.
hosts_of() {
	awk -v spec="$1" 'BEGIN {
		nf = split(spec, f, ":"); split(f[2], v, ",")
		if (f[1] == "slimfly") {
			q = f[2]; d = (q % 4 == 1) ? 1 : -1
			k = (3 * q - d) / 2
			p = nf > 2 ? f[3] : int((k + 1) / 2)
			print 2 * q * q * p
		} else if (f[1] == "dragonfly") {
			print v[1] * (v[1] * v[3] + 1) * v[2]
		} else if (f[1] == "hyperx") {
			p = nf > 4 ? f[5] : (f[3] - 1) * f[4]
			print f[3] ^ f[2] * p
		} else if (f[1] == "jellyfish") {
			print v[1] * v[3]
		} else if (f[1] == "torus") {
			print v[1] * v[2] * v[3] * (nf > 2 ? f[3] : 1)
		}
	}'
}

# diameter_of SPEC: router graph diameter, empty when not known in closed
# form.  Slim Fly 2; Dragonfly (one global link per group pair) 3; HyperX
# L; torus sum of floor(size / 2).
diameter_of() {
	awk -v spec="$1" 'BEGIN {
		split(spec, f, ":"); split(f[2], v, ",")
		if (f[1] == "slimfly") print 2
		else if (f[1] == "dragonfly") print 3
		else if (f[1] == "hyperx") print f[2]
		else if (f[1] == "torus")
			print int(v[1] / 2) + int(v[2] / 2) + int(v[3] / 2)
	}'
}

# Pairs and max hops from ibflow check's output.
check_pairs() {
	sed -n 's/^pairs traced: *\([0-9]*\).*/\1/p' "$1" | head -1
}
check_max_hops() {
	sed -n 's/^hops (links):.*max \([0-9]*\).*/\1/p' "$1" | head -1
}

# updn with a root GUID file naming router 0 (GUID per docs/generators.md):
# without one, updn finds no root in a direct network.  Same sweep as
# ibs_opensm plus -a; sets IBS_ENGINE_USED the same way.
opensm_updn_roots() {
	local lmc=$1 run=$2 rc=0

	mkdir -p "$run" && run=$(cd "$run" && pwd) || return 1
	echo 0x0002c90200000000 >"$run/roots"
	ibs_sweep "$run" "$lmc" -R updn -a "$run/roots" || rc=$?
	[ "$rc" -eq 0 ] && [ -n "$IBS_ENGINE_USED" ]
}

# expected_fallback ENGINE LOG: the log explains a fallback to minhop.
expected_fallback() {
	[ "$1" = updn ] &&
		grep -q 'updn_lid_matrices: disabling UPDN algorithm, no root nodes were found' "$2" &&
		grep -q 'updn: cannot build lid matrices' "$2"
}

# route_one NAME DIR ENGINE LMC: one sweep in a fresh ibsim, then read
# back; returns 1 (after t_fail) when nothing can be checked.
route_one() {
	local name=$1 dir=$2 eng=$3 lmc=$4 run=$2/$3 ok=0 want

	if ! ibs_start "$dir/net" "$run" 2>"$run.err"; then
		t_fail "$name: ibsim" "$(head -c 300 "$run.err")"
		return 1
	fi
	if [ "$eng" = updn-roots ]; then
		opensm_updn_roots "$lmc" "$run" 2>>"$run.err" || ok=$?
		want=updn
	else
		ibs_opensm "$eng" "$lmc" "$run" 2>>"$run.err" || ok=$?
		want=$eng
	fi
	if [ "$ok" -ne 0 ]; then
		t_fail "$name: OpenSM routes" "$(head -c 200 "$run.err"); $(grep -m2 ' 0x01 ' "$run/osm.log" 2>/dev/null)"
		ibs_stop
		return 1
	fi
	used=$IBS_ENGINE_USED
	ibs_discover "$run/ibnetdiscover.out" || ok=$?
	ibs_stop
	if [ "$used" = "$want" ]; then
		t_pass "$name: OpenSM routed with $used"
	elif [ "$used" = minhop ] && expected_fallback "$eng" "$run/osm.log"; then
		t_pass "$name: OpenSM's $eng found no root switch (its log says so), routed with $used"
	else
		t_fail "$name: OpenSM routed with $want" "tables configured by $used: $(grep -m3 ' 0x01 ' "$run/osm.log" | tr '\n' ' ')"
	fi
	if [ "$ok" -ne 0 ]; then
		t_fail "$name: read back" "ibnetdiscover exit $ok: $(head -c 200 "$run/ibnetdiscover.out.err")"
		return 1
	fi
	return 0
}

for fab in "${FABRICS[@]}"; do
	read -r spec lmc <<<"$fab"
	tag=$(printf '%s-lmc%s' "$spec" "$lmc" | tr ':,' '_-')
	dir=$T_TMP/$tag
	mkdir -p "$dir"
	hosts=$(hosts_of "$spec")
	want=$((hosts * (hosts - 1) * (1 << lmc)))
	diam=$(diameter_of "$spec")
	if ! t_expect_exit 0 "$IBF" gen "$spec" --lmc "$lmc" --format ibsim \
	     -o "$dir/net" ||
	   ! t_expect_exit 0 "$IBF" gen "$spec" --lmc "$lmc" \
	     --format ibnetdiscover -o "$dir/gen.ibnd"; then
		t_fail "$spec lmc $lmc: gen" "exit $T_RC: $(t_errhead)"
		continue
	fi
	t_canon_topo "$dir/gen.ibnd" >"$dir/gen.canon"

	for eng in "${ENGINES[@]}"; do
		name="$spec lmc $lmc $eng"
		run=$dir/$eng
		route_one "$name" "$dir" "$eng" "$lmc" || continue

		t_canon_topo "$run/ibnetdiscover.out" >"$run/real.canon"
		t_same "$name: fabric read back equals the generated one" \
			"$dir/gen.canon" "$run/real.canon"

		tr=$(t_trace "$run/ibnetdiscover.out" "$run/opensm-lfts.dump")
		read -r _ pairs _ tok _ _ _ _ _ _ _ _ _ _ _ tmax _ _ <<<"$tr"
		if [ "$pairs" = "$want" ] && [ "$tok" = "$want" ]; then
			t_pass "$name: awk tracer delivers all $want = $hosts*$((hosts - 1))*2^$lmc pairs"
		else
			t_fail "$name: awk tracer delivers all $want pairs" "$tr"
		fi

		if ! t_expect_exit 0 "$IBF" check --topo "$run/ibnetdiscover.out" \
		     --lfts "$run/opensm-lfts.dump"; then
			t_fail "$name: ibflow check opensm-lfts.dump" "exit $T_RC: $(head -3 "$T_OUT" | tr '\n' ' ') $(t_errhead)"
			continue
		fi
		n=$(check_pairs "$T_OUT")
		mx=$(check_max_hops "$T_OUT")
		if [ "$n" = "$want" ] && [ "$mx" = "$((tmax + 1))" ]; then
			t_pass "$name: ibflow check: no defects, $n pairs, max $mx links"
		else
			t_fail "$name: ibflow check opensm-lfts.dump" "reports '$n' pairs, max '$mx' links; expected $want pairs, the tracer max $((tmax + 1)) links"
		fi
		if [ "$eng" = minhop ] && [ -n "$diam" ]; then
			if [ "$mx" = "$((diam + 2))" ]; then
				t_pass "$name: longest minimal route is diameter $diam + 2 = $mx links"
			else
				t_fail "$name: longest minimal route" "$mx links, diameter $diam + 2 = $((diam + 2)) expected"
			fi
		fi
	done
done

t_done
