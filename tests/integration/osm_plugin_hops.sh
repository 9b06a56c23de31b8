#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The plugin fills OpenSM's min-hop matrices itself (osm_plugin/hops.c);
# real OpenSM on ibsim shows that nothing that reads them changes:
#   - the matrices OpenSM dumps (opensm-lid-matrix.dump) after a routing by
#     each ibflow engine equal those of `opensm -R minhop` on the same
#     fabric (PGFTs at LMC 0/1, parallel links, a tree with a link down,
#     Slim Fly with layered), and the plugin's log says it filled them;
#   - fallback: ibflow-dmodk refusing a Slim Fly leaves minhop the same
#     matrices and the same tables as minhop alone;
#   - multicast: with OpenSM running, hosts join IPoIB's broadcast group
#     through the SA (tests/tools/ibf_mcjoin); the multicast tables read
#     back from the switches (ibroute -M) form one tree reaching exactly
#     the members (tests/mcast_judge.py) and equal minhop's.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$T_BUILD_DIR/osm_plugin/.libs}
MCJOIN=$T_BUILD_DIR/tests/tools/ibf_mcjoin
NETPY=$T_REPO/tests/ibsim_net.py

if ! why=$(ibs_have_tools); then
	t_skip osm_plugin_hops "$why"
	t_done
fi
if [ ! -f "$PLUGIN_DIR/libibflow_osm.so" ] || [ ! -x "$MCJOIN" ]; then
	t_skip osm_plugin_hops "plugin or tests/tools/ibf_mcjoin not built"
	t_done
fi
export LD_LIBRARY_PATH=$PLUGIN_DIR:$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# conf FILE ENGINES: an opensm.conf loading the plugin
conf() {
	printf 'event_plugin_name ibflow_osm\nrouting_engine %s\nforce_log_flush TRUE\n' \
		"$2" >"$1"
}

# net SPEC LMC DIR [ibsim_net.py ARGS]: DIR/net
net() {
	local spec=$1 lmc=$2 dir=$3

	shift 3
	mkdir -p "$dir"
	"$IBF" gen "$spec" --lmc "$lmc" --format ibsim -o "$dir/net.0" ||
		return 1
	if [ $# -gt 0 ]; then
		python3 "$NETPY" "$dir/net.0" "$@" >"$dir/net"
	else
		mv "$dir/net.0" "$dir/net"
	fi
}

# ---- the matrices equal OpenSM's own -----------------------------------
# matrix_case SPEC LMC ENGINE [ibsim_net.py ARGS]
matrix_case() {
	local spec=$1 lmc=$2 eng=$3 dir name
	shift 3
	name="$spec lmc $lmc ibflow-$eng${1:+ ($*)}"
	dir=$T_TMP/m-$(printf '%s-%s-%s-%s' "$spec" "$lmc" "$eng" "${1:-}" | tr ':, ' '_--')
	net "$spec" "$lmc" "$dir" "$@" || { t_fail "$name: gen" ""; return; }
	conf "$dir/osm.conf" "ibflow-$eng"
	if ! ibs_start "$dir/net" "$dir/sim" 2>"$dir/ibsim.err"; then
		t_fail "$name: ibsim" "$(head -c 300 "$dir/ibsim.err")"
		return
	fi
	ibs_sweep "$dir/plugin" "$lmc" -F "$dir/osm.conf"
	local used=$IBS_ENGINE_USED
	ibs_opensm minhop "$lmc" "$dir/minhop"
	ibs_stop
	if [ "$used" != "ibflow-$eng" ] ||
	   ! grep -q "ibflow-$eng: routed .*min-hop matrices 0\.[0-9]* s" \
		"$dir/plugin/osm.log"; then
		t_fail "$name: the plugin routes and fills the matrices" \
			"used '$used': $(grep -m2 'ibflow' "$dir/plugin/osm.log" | tr '\n' ' ')"
		return
	fi
	t_same "$name: min-hop matrices equal minhop's ($(grep -c '^Switch' "$dir/minhop/opensm-lid-matrix.dump") switches)" \
		"$dir/minhop/opensm-lid-matrix.dump" "$dir/plugin/opensm-lid-matrix.dump"
}

matrix_case xgft:2:4,4:1,4 0 dmodk
matrix_case pgft:3:4,4,4:1,4,2:1,1,2 1 uapr
matrix_case xgft:3:4,4,4:1,4,4 0 dmodk drop-link S-0002c90200001000 3
matrix_case slimfly:5 2 layered
[ "$T_QUICK" = 1 ] || matrix_case xgft:3:4,4,4:1,4,4 2 uapr shuffle 3

# ---- fallback: minhop after a refusal ----------------------------------
dir=$T_TMP/fallback
if net slimfly:5 0 "$dir" && ibs_start "$dir/net" "$dir/sim" 2>"$dir/ibsim.err"; then
	conf "$dir/osm.conf" "ibflow-dmodk,minhop"
	ibs_sweep "$dir/plugin" 0 -F "$dir/osm.conf"
	used=$IBS_ENGINE_USED
	ibs_opensm minhop 0 "$dir/minhop"
	ibs_stop
	if [ "$used" = minhop ] && grep -q 'ibflow-dmodk refuses' "$dir/plugin/osm.log"; then
		t_pass "slimfly:5: ibflow-dmodk refuses, minhop routes"
	else
		t_fail "slimfly:5: ibflow-dmodk refuses, minhop routes" "used '$used'"
	fi
	t_same "slimfly:5 fallback: min-hop matrices equal minhop's alone" \
		"$dir/minhop/opensm-lid-matrix.dump" "$dir/plugin/opensm-lid-matrix.dump"
	t_same "slimfly:5 fallback: minhop's tables equal minhop's alone" \
		<(t_canon_lfts "$dir/minhop/opensm-lfts.dump") \
		<(t_canon_lfts "$dir/plugin/opensm-lfts.dump")
else
	t_fail "fallback: ibsim" "$(head -c 300 "$dir/ibsim.err" 2>/dev/null)"
fi

# ---- multicast ----------------------------------------------------------
# mcast_run NET RUNDIR ENGINE HOST...: OpenSM running with ENGINE, HOSTs
# join, then the fabric and every switch's multicast table are read back.
mcast_run() {
	local netf=$1 run=$2 eng=$3 pid l ok=0

	shift 3
	mkdir -p "$run"
	conf "$run/osm.conf" "$eng"
	ibs_start "$netf" "$run/sim" 2>"$run/ibsim.err" || return 1
	OSM_TMP_DIR=$run OSM_CACHE_DIR=$run ibs_run opensm -F "$run/osm.conf" \
		-f "$run/osm.log" -s 0 -D 0x03 >"$run/opensm.out" 2>&1 &
	pid=$!
	for _ in $(seq 150); do
		grep -q 'SUBNET UP' "$run/osm.log" 2>/dev/null && break
		sleep 0.2
	done
	: >"$run/joins"
	for h in "$@"; do
		SIM_HOST=$h ibs_run "$MCJOIN" >>"$run/joins" 2>>"$run/joins.err" ||
			ok=1
	done
	# the SA answers before the multicast manager has programmed the
	# switches: wait until the tables stop changing
	local prev=x cur
	for _ in $(seq 20); do
		sleep 0.5
		ibs_discover "$run/ibnd"
		for l in $(sed -n 's/^Switch.*# .* lid \([0-9]*\) .*/\1/p' "$run/ibnd"); do
			ibs_run ibroute -M "$l" 2>/dev/null
		done >"$run/mft"
		cur=$(md5sum <"$run/mft")
		[ "$cur" = "$prev" ] && grep -q '^0xc000' "$run/mft" && break
		prev=$cur
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	ibs_stop
	return "$ok"
}

dir=$T_TMP/mcast
spec=xgft:3:4,4,4:1,4,4
net "$spec" 0 "$dir" shuffle 11
# six hosts in different leaves and subtrees, two sharing a leaf
hosts=(H-0002c90100000000 H-0002c90100000100 H-0002c90100000600
       H-0002c90100001500 H-0002c90100002a00 H-0002c90100003f00)
members=(${hosts[@]/H-/0x})
for eng in ibflow-dmodk minhop; do
	run=$dir/$eng
	if ! mcast_run "$dir/net" "$run" "$eng" "${hosts[@]}"; then
		t_fail "$spec multicast $eng: ${#hosts[@]} joins" \
			"$(head -c 300 "$run/joins.err" 2>/dev/null)"
		continue
	fi
	t_canon_topo "$run/ibnd" >"$run/topo"
	if out=$(python3 "$T_REPO/tests/mcast_judge.py" "$run/topo" \
		 "$run/mft" 0xc000 "${members[@]}"); then
		t_pass "$spec multicast $eng: the group's tables form one tree reaching exactly the members ($out)"
	else
		t_fail "$spec multicast $eng: the group's tables form one tree" "$out"
	fi
done
if [ -s "$dir/minhop/mft" ]; then
	t_same "$spec multicast: ibflow-dmodk's multicast tables equal minhop's" \
		"$dir/minhop/mft" "$dir/ibflow-dmodk/mft"
fi

t_done
