#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Labels that survive faults on any cabling: on PGFTs whose switches each
# have their ports permuted differently (tests/ibsim_net.py shuffle: no
# port convention, labels come from NodeGUID order), a host, a switch or
# a link going down moves no LFT entry whose route avoided it, counted by
# the test's own trace of every entry through the tables before the fault
# (tests/lft_moves.py):
#   - offline: `ibflow route --labels-out` on the whole fabric, then
#     `--labels-from` on the fabric without the node or link; without the
#     labels the same faults move entries (the test can see moves); the
#     node or link back up (labels of the degraded routing, which keep
#     its slot) gives the first tables again;
#   - in OpenSM on ibsim: the plugin keeps the labels in OpenSM's cache
#     dir, so a restart on the fabric without the node or link (the same
#     cache, so the same LIDs) routes every other LID as before; with the
#     file removed, entries move; `ibflow route --labels-from` the kept
#     file reproduces the switches' tables; a file that no longer fits or
#     does not parse is logged and ignored, and the routing goes on.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT
t_need_ibflow

IBF=$t_ibflow
NETPY=$T_REPO/tests/ibsim_net.py
MOVES=$T_REPO/tests/lft_moves.py
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$T_BUILD_DIR/osm_plugin/.libs}

# fault_net NET FAULT OUT: NET without the node or link FAULT
# (node:NAME / link:NAME:PORT, NAME as in the net file)
fault_net() {
	local kind=${2%%:*} what=${2#*:}

	if [ "$kind" = node ]; then
		python3 "$NETPY" "$1" drop-node "$what" >"$3"
	else
		python3 "$NETPY" "$1" drop-link "${what%:*}" "${what##*:}" >"$3"
	fi
}

# the judge's fault: GUIDs from the names ("S-0002c9...")
judge_fault() {
	local kind=${1%%:*} what=${1#*:}

	what=0x${what#?-}
	echo "$kind:$what"
}

# ---- offline ------------------------------------------------------------
offline_case() {
	local spec=$1 eng=$2 seed=$3 fault=$4 dir name out

	dir=$T_TMP/off-$(echo "$spec-$eng-$fault" | tr ':,' '__')
	name="$spec shuffled ($eng) offline, ${fault%%:*} ${fault#*:} down"
	mkdir -p "$dir"
	"$IBF" gen "$spec" --format ibsim -o "$dir/full.0" >/dev/null &&
		python3 "$NETPY" "$dir/full.0" shuffle "$seed" >"$dir/full" &&
		fault_net "$dir/full" "$fault" "$dir/down" &&
		"$IBF" convert "$dir/full" -o "$dir/full.ibnd" ||
		{ t_fail "$name: fabrics" "gen/shuffle failed"; return; }
	t_canon_topo "$dir/full.ibnd" >"$dir/topo"
	if ! t_expect_exit 0 "$IBF" route --topo "$dir/full" --engine "$eng" \
	     -o "$dir/before.lft" --labels-out "$dir/labels" ||
	   ! t_expect_exit 0 "$IBF" route --topo "$dir/down" --engine "$eng" \
	     -o "$dir/after.lft" --labels-from "$dir/labels" \
	     --labels-out "$dir/labels.after" ||
	   ! t_expect_exit 0 "$IBF" route --topo "$dir/full" --engine "$eng" \
	     -o "$dir/back.lft" --labels-from "$dir/labels.after" ||
	   ! t_expect_exit 0 "$IBF" route --topo "$dir/down" --engine "$eng" \
	     -o "$dir/fresh.lft"; then
		t_fail "$name: route" "exit $T_RC: $(t_errhead)"
		return
	fi
	for x in before after fresh back; do
		t_canon_lfts "$dir/$x.lft" >"$dir/$x"
	done
	# the labels kept the missing node's slot: back, it takes it again
	t_same "$name: back up, every entry as before" "$dir/before" "$dir/back"
	if out=$(python3 "$MOVES" "$dir/topo" "$dir/before" "$dir/after" \
		 "$(judge_fault "$fault")"); then
		t_pass "$name: --labels-from moves no entry whose route avoided it ($out)"
	else
		t_fail "$name: --labels-from moves no entry whose route avoided it" "$out"
	fi
	out=$(python3 "$MOVES" "$dir/topo" "$dir/before" "$dir/fresh" \
		"$(judge_fault "$fault")")
	echo "# $name, without the labels: $out"
	FRESH_MOVED=$(echo "$out" | sed -n 's/.*moved \([0-9]*\).*/\1/p')
}

SPEC=pgft:3:4,4,6:1,4,4:1,1,1
for eng in dmodk uapr; do
	offline_case "$SPEC" "$eng" 5 node:H-0002c90100000500
	if [ "$eng" = dmodk ]; then
		if [ "${FRESH_MOVED:-0}" -gt 0 ]; then
			t_pass "$SPEC shuffled offline: without the labels a host down moves $FRESH_MOVED entries of other routes (the judge sees moves)"
		else
			t_fail "$SPEC shuffled offline: without the labels a host down moves entries" "none moved: the cabling keeps a convention?"
		fi
	fi
	offline_case "$SPEC" "$eng" 5 node:S-0002c90200001000
	offline_case "$SPEC" "$eng" 5 node:S-0002c90200002400
	offline_case "$SPEC" "$eng" 5 link:S-0002c90200001000:3
done
"$IBF" gen "$SPEC" --format ibsim -o "$T_TMP/x.net" >/dev/null
t_check "--labels-out refused for minhop" 2 "$IBF" route --topo "$T_TMP/x.net" \
	--engine minhop -o /dev/null --labels-out "$T_TMP/x.labels"
printf 'labels 1\nshape 2 4,4\n' >"$T_TMP/bad.labels"
if t_expect_exit 2 "$IBF" route --topo "$T_TMP/x.net" --engine dmodk \
   -o /dev/null --labels-from "$T_TMP/bad.labels" &&
   grep -q 'bad.labels:2:' "$T_ERR"; then
	t_pass "--labels-from: a bad file is refused with FILE:LINE"
else
	t_fail "--labels-from: a bad file is refused with FILE:LINE" "exit $T_RC: $(t_errhead)"
fi
offline_dir=$T_TMP/off-$(echo "$SPEC-dmodk-node:H-0002c90100000500" | tr ':,' '__')
"$IBF" gen kary:4,3 --format ibsim -o "$T_TMP/k.net" >/dev/null
if t_expect_exit 0 "$IBF" route --topo "$T_TMP/k.net" --engine dmodk \
   -o /dev/null --labels-from "$offline_dir/labels" &&
   grep -q 'warning: .* no longer fits the fabric' "$T_ERR"; then
	t_pass "--labels-from: labels of another fabric are ignored with a warning"
else
	t_fail "--labels-from: labels of another fabric are ignored with a warning" \
		"exit $T_RC: $(t_errhead)"
fi

# ---- in OpenSM ----------------------------------------------------------
if ! why=$(ibs_have_tools); then
	t_skip "labels in OpenSM" "$why"
	t_done
fi
if [ ! -f "$PLUGIN_DIR/libibflow_osm.so" ]; then
	t_skip "labels in OpenSM" "$PLUGIN_DIR/libibflow_osm.so not built"
	t_done
fi
export LD_LIBRARY_PATH=$PLUGIN_DIR:$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# osm_once NET CACHE RUN ENGINE LMC: one sweep with the plugin, OpenSM's
# cache in CACHE (kept between runs: LIDs and labels), tables read back.
osm_once() {
	local netf=$1 cache=$2 run=$3 eng=$4 lmc=$5

	mkdir -p "$run" "$cache"
	printf 'event_plugin_name ibflow_osm\nrouting_engine %s\n' "$eng" \
		>"$run/osm.conf"
	printf 'eval no\n' >"$run/ibflow.conf"
	ibs_start "$netf" "$run/sim" 2>"$run/ibsim.err" || return 1
	IBFLOW_OSM_CONF=$run/ibflow.conf OSM_TMP_DIR=$run OSM_CACHE_DIR=$cache \
		ibs_run opensm -F "$run/osm.conf" -f "$run/osm.log" -s 0 -o \
		-D 0x03 -l "$lmc" >"$run/opensm.out" 2>&1
	ibs_discover "$run/ibnd"
	ibs_dump_lfts "$run/dump_lfts.out"
	ibs_stop
	[ "$(ibs_engine_used "$run/osm.log")" = "$eng" ]
}

# osm_case SPEC ENGINE LMC FAULT [fresh]: before and after a restart
osm_case() {
	local spec=$1 eng=$2 lmc=$3 fault=$4 fresh=${5:-} dir name out

	dir=$T_TMP/osm-$(echo "$spec-$eng-$fault-$fresh" | tr ':,' '__')
	name="$spec lmc $lmc shuffled $eng in OpenSM, ${fault%%:*} ${fault#*:} down after a restart"
	[ -n "$fresh" ] && name="$name, labels file removed"
	mkdir -p "$dir"
	"$IBF" gen "$spec" --lmc "$lmc" --format ibsim -o "$dir/full.0" >/dev/null &&
		python3 "$NETPY" "$dir/full.0" shuffle 3 >"$dir/full" &&
		fault_net "$dir/full" "$fault" "$dir/down" ||
		{ t_fail "$name: fabrics" "gen/shuffle failed"; return; }
	if ! osm_once "$dir/full" "$dir/cache" "$dir/before" "$eng" "$lmc"; then
		t_fail "$name: first sweep" "$(grep -m2 'ibflow' "$dir/before/osm.log" | tr '\n' ' ')"
		return
	fi
	[ -n "$fresh" ] && rm -f "$dir/cache/ibflow-labels.txt"
	if ! osm_once "$dir/down" "$dir/cache" "$dir/after" "$eng" "$lmc"; then
		t_fail "$name: sweep after the fault" "$(grep -m2 'ibflow' "$dir/after/osm.log" | tr '\n' ' ')"
		return
	fi
	t_canon_topo "$dir/before/ibnd" >"$dir/topo"
	t_canon_lfts "$dir/before/dump_lfts.out" >"$dir/lb"
	t_canon_lfts "$dir/after/dump_lfts.out" >"$dir/la"
	out=$(python3 "$MOVES" "$dir/topo" "$dir/lb" "$dir/la" "$(judge_fault "$fault")")
	OSM_MOVED=$(echo "$out" | sed -n 's/.*moved \([0-9]*\).*/\1/p')
	if [ -n "$fresh" ]; then
		echo "# $name: $out"
		return
	fi
	if [ "$OSM_MOVED" = 0 ] && grep -q 'ibflow: labels of [0-9]* nodes read from' "$dir/after/osm.log"; then
		t_pass "$name: no entry whose route avoided it moved ($out)"
	else
		t_fail "$name: no entry whose route avoided it moved" \
			"$out; $(grep -m1 'labels' "$dir/after/osm.log")"
	fi
	t_check "$name: tables pass ibflow check" 0 "$IBF" check \
		--topo "$dir/after/ibnd" --lfts "$dir/after/dump_lfts.out"
	# the kept file reproduces the plugin's tables offline
	if "$IBF" route --topo "$dir/after/ibnd" --engine "${eng#ibflow-}" \
	   -o "$dir/offline.lft" --labels-from "$dir/cache/ibflow-labels.txt" \
	   >/dev/null 2>"$dir/offline.err"; then
		t_same "$name: ibflow route --labels-from the kept file gives the switches' tables" \
			"$dir/la" <(t_canon_lfts "$dir/offline.lft")
	else
		t_fail "$name: ibflow route --labels-from the kept file" "$(head -c 300 "$dir/offline.err")"
	fi
	LAST_CACHE=$dir/cache
	LAST_DOWN=$dir/down
}

OSPEC=pgft:3:4,4,4:1,4,4:1,1,1
osm_case "$OSPEC" ibflow-dmodk 0 node:H-0002c90100000500
osm_case "$OSPEC" ibflow-dmodk 0 node:H-0002c90100000500 fresh
if [ "${OSM_MOVED:-0}" -gt 0 ]; then
	t_pass "$OSPEC shuffled ibflow-dmodk in OpenSM: without the labels file a host down moves $OSM_MOVED entries of other routes"
else
	t_fail "$OSPEC shuffled ibflow-dmodk in OpenSM: without the labels file entries move" "none moved"
fi
osm_case "$OSPEC" ibflow-dmodk 0 node:S-0002c90200000c00
osm_case "$OSPEC" ibflow-uapr 2 node:H-0002c90100000500
if [ "$T_QUICK" != 1 ]; then
	osm_case "$OSPEC" ibflow-uapr 2 link:S-0002c90200000c00:2
	osm_case "$OSPEC" ibflow-dmodk 0 node:S-0002c90200002000
fi

# a file that does not parse, then one of another fabric: logged, ignored
if [ -n "${LAST_CACHE:-}" ]; then
	dir=$T_TMP/osm-badfile
	mkdir -p "$dir"
	cp -a "$LAST_CACHE" "$dir/cache"
	echo 'junk' >>"$dir/cache/ibflow-labels.txt"
	osm_once "$LAST_DOWN" "$dir/cache" "$dir/r1" ibflow-dmodk 0
	if grep -q 'ERR IBF20: .*ibflow-labels.txt ignored: .*ibflow-labels.txt:[0-9]*:' "$dir/r1/osm.log" &&
	   [ "$(ibs_engine_used "$dir/r1/osm.log")" = ibflow-dmodk ]; then
		t_pass "OpenSM: a labels file that does not parse is logged (ERR IBF20, FILE:LINE) and ibflow-dmodk routes"
	else
		t_fail "OpenSM: a labels file that does not parse is logged and ignored" \
			"$(grep -m2 'IBF2\|tables configured' "$dir/r1/osm.log" | tr '\n' ' ')"
	fi
	"$IBF" route --topo "$T_TMP/k.net" --engine dmodk -o /dev/null \
		--labels-out "$dir/cache/ibflow-labels.txt" >/dev/null
	osm_once "$LAST_DOWN" "$dir/cache" "$dir/r2" ibflow-dmodk 0
	if grep -q 'ERR IBF21: ibflow-dmodk: the labels kept in .* no longer fit the fabric' "$dir/r2/osm.log" &&
	   [ "$(ibs_engine_used "$dir/r2/osm.log")" = ibflow-dmodk ] &&
	   grep -q "^node 0x0002c90100000000 " "$dir/cache/ibflow-labels.txt"; then
		t_pass "OpenSM: labels of another fabric are logged (ERR IBF21), ignored and replaced"
	else
		t_fail "OpenSM: labels of another fabric are logged, ignored and replaced" \
			"$(grep -m2 'IBF2\|tables configured' "$dir/r2/osm.log" | tr '\n' ' ')"
	fi
fi

t_done
