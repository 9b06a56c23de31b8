#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The OpenSM plugin (libibflow_osm.so) in real OpenSM on ibsim:
#   - each engine on several fabrics (PGFTs with LMC 0 and 2, parallel
#     links, a slimmed tree; Slim Fly with LMC 2 for layered): OpenSM says
#     "ibflow-<engine> tables configured on all switches";
#   - the plugin's exported topology equals what ibnetdiscover reads from
#     the simulated fabric, and `ibflow route` offline on that topology
#     computes exactly the tables read back from the switches (dump_lfts);
#     for dmodk, uapr and layered also offline on the ibnetdiscover file itself
#     (another node order): every entry and the host order;
#   - the exported LFTs equal dump_lfts; `ibflow check` passes on the
#     tables read back (and --deadlock with the exported SLs for layered);
#   - fallback: ibflow-dmodk on a Slim Fly logs why (not a PGFT) and minhop
#     routes;
#   - a bad ibflow.conf line is logged with FILE:LINE and routing goes on;
#   - fault: a link unlinked in ibsim's console, OpenSM resweeps: the
#     plugin reroutes, the link is gone from the export, the new tables
#     pass `ibflow check` on the degraded fabric;
#   - layered with OpenSM running: saquery PathRecords carry the SLs of the
#     exported SL file; the MMF report is written.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$T_BUILD_DIR/osm_plugin/.libs}

if ! why=$(ibs_have_tools); then
	t_skip osm_plugin "$why"
	t_done
fi
if [ ! -f "$PLUGIN_DIR/libibflow_osm.so" ]; then
	t_skip osm_plugin "$PLUGIN_DIR/libibflow_osm.so not built"
	t_done
fi
if ! t_need saquery; then
	t_skip osm_plugin "saquery not installed"
	t_done
fi
export LD_LIBRARY_PATH=$PLUGIN_DIR:$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# osm_conf FILE ENGINES [EXTRA LINE...]
osm_conf() {
	local f=$1 e=$2

	shift 2
	{
		echo "event_plugin_name ibflow_osm"
		echo "routing_engine $e"
		printf '%s\n' "$@"
	} >"$f"
}

# osm_sweep CONF LMC RUN: one OpenSM sweep with the plugin, then read the
# fabric and the tables back.  Sets USED (engine that configured tables).
osm_sweep() {
	local conf=$1 lmc=$2 run=$3 rc=0

	ibs_sweep "$run" "$lmc" -F "$conf" || rc=$?
	USED=$IBS_ENGINE_USED
	ibs_discover "$run/ibnetdiscover.out" || rc=1
	ibs_dump_lfts "$run/dump_lfts.out" || rc=1
	return "$rc"
}

# LIDs of CA ports in an ibnetdiscover file, all 2^LMC of them, one a line.
ca_lids() {
	awk '/^Ca[ \t]/ { ca = 1; next } /^(Switch|Rt)[ \t]/ { ca = 0; next }
	ca && match($0, /# *lid [0-9]+ lmc [0-9]+/) {
		split(substr($0, RSTART, RLENGTH), v, " ")
		for (i = 0; i < 2 ^ v[5]; i++) print v[3] + i
	}' "$1" | sort -n -u
}

# route_case SPEC LMC ENGINE
route_case() {
	local spec=$1 lmc=$2 eng=$3 name dir run
	local args=()

	name="$spec lmc $lmc ibflow-$eng"
	dir=$T_TMP/$(printf '%s-lmc%s-%s' "$spec" "$lmc" "$eng" | tr ':,' '_-')
	run=$dir/run
	mkdir -p "$run"
	if ! t_expect_exit 0 "$IBF" gen "$spec" --lmc "$lmc" --format ibsim \
	     -o "$dir/net"; then
		t_fail "$name: gen" "exit $T_RC: $(t_errhead)"
		return
	fi
	if [ "$eng" = layered ]; then
		osm_conf "$dir/osm.conf" "ibflow-$eng,minhop" "qos TRUE"
	else
		osm_conf "$dir/osm.conf" "ibflow-$eng,minhop"
	fi
	if ! ibs_start "$dir/net" "$run" 2>"$dir/ibsim.err"; then
		t_fail "$name: ibsim" "$(head -c 300 "$dir/ibsim.err")"
		return
	fi
	osm_sweep "$dir/osm.conf" "$lmc" "$run"
	local rc=$?
	ibs_stop
	if [ "$rc" -ne 0 ]; then
		t_fail "$name: OpenSM sweep and read back" "exit $rc: $(grep -m2 ' 0x01 ' "$run/osm.log")"
		return
	fi
	if [ "$USED" = "ibflow-$eng" ]; then
		t_pass "$name: OpenSM says ibflow-$eng tables configured on all switches"
	else
		t_fail "$name: routed by ibflow-$eng" "tables configured by '$USED': $(grep -m2 'ibflow' "$run/osm.log" | tr '\n' ' ')"
		return
	fi

	t_canon_topo "$run/ibnetdiscover.out" >"$dir/real.topo"
	t_canon_topo "$run/ibflow-topology.ibnd" >"$dir/export.topo"
	t_same "$name: exported topology equals ibnetdiscover's" \
		"$dir/real.topo" "$dir/export.topo"

	t_canon_lfts "$run/dump_lfts.out" >"$dir/switches.lft"
	t_canon_lfts "$run/ibflow-lfts.dump" >"$dir/export.lft"
	t_same "$name: exported LFTs equal dump_lfts" \
		"$dir/switches.lft" "$dir/export.lft"

	if t_expect_exit 0 "$IBF" route --topo "$run/ibflow-topology.ibnd" \
	   --engine "$eng" -o "$dir/offline.dump" --sl-out "$dir/offline.sl"; then
		t_canon_lfts "$dir/offline.dump" >"$dir/offline.lft"
		t_same "$name: dump_lfts equals ibflow route offline" \
			"$dir/offline.lft" "$dir/switches.lft"
	else
		t_fail "$name: ibflow route offline" "exit $T_RC: $(t_errhead)"
	fi
	# The ibnetdiscover file lists the nodes in discovery order, the
	# plugin's model is in NodeGUID order: dmodk and uapr break ties by
	# GUID and port number only, so every entry (CA and switch LIDs) and
	# the host order must come out the same.  (layered: below.)
	if [ "$eng" != layered ]; then
		if t_expect_exit 0 "$IBF" route --topo "$run/ibnetdiscover.out" \
		   --engine "$eng" -o "$dir/offline-ibnd.dump" \
		   --order-out "$dir/offline-ibnd.order"; then
			t_canon_lfts "$dir/offline-ibnd.dump" >"$dir/offline-ibnd.lft"
			t_same "$name: dump_lfts equals ibflow route on the ibnetdiscover file (all entries)" \
				"$dir/offline-ibnd.lft" "$dir/switches.lft"
			# (the export's first line names its generation)
			t_same "$name: exported host order equals ibflow route's on the ibnetdiscover file" \
				"$dir/offline-ibnd.order" <(grep -v '^# ibflow export ' "$run/ibflow-order.txt")
		else
			t_fail "$name: ibflow route on the ibnetdiscover file" \
				"exit $T_RC: $(t_errhead)"
		fi
	fi
	# layered depends on GUIDs, port numbers and the seed only too: every
	# entry and SL the same (its host order is the fabric's node order).
	if [ "$eng" = layered ]; then
		if t_expect_exit 0 "$IBF" route --topo "$run/ibnetdiscover.out" \
		   --engine layered -o "$dir/offline-ibnd.dump" \
		   --sl-out "$dir/offline-ibnd.sl"; then
			t_canon_lfts "$dir/offline-ibnd.dump" >"$dir/offline-ibnd.lft"
			t_same "$name: dump_lfts equals ibflow route on the ibnetdiscover file (all entries)" \
				"$dir/offline-ibnd.lft" "$dir/switches.lft"
			t_same "$name: exported SLs equal ibflow route's on the ibnetdiscover file" \
				<(grep -v '^#' "$dir/offline-ibnd.sl") \
				<(grep -v '^#' "$run/ibflow-sl.txt")
		else
			t_fail "$name: ibflow route on the ibnetdiscover file" \
				"exit $T_RC: $(t_errhead)"
		fi
	fi

	[ "$eng" = layered ] && args=(--sl "$run/ibflow-sl.txt" --deadlock)
	t_check "$name: ibflow check${args:+ --deadlock with the exported SLs} on the tables read back" 0 \
		"$IBF" check --topo "$run/ibnetdiscover.out" \
		--lfts "$run/dump_lfts.out" "${args[@]}"
	if [ "$eng" = layered ]; then
		t_same "$name: exported SLs equal ibflow route offline" \
			<(grep -v '^#' "$dir/offline.sl") \
			<(grep -v '^#' "$run/ibflow-sl.txt")
		# the default budget, one VL: safe for UCX, so no warning
		t_check "$name: deadlock-free with every packet on SL 0 (check --deadlock, no SLs)" 0 \
			"$IBF" check --topo "$run/ibnetdiscover.out" \
			--lfts "$run/dump_lfts.out" --deadlock
		if grep -q 'IBF14' "$run/osm.log"; then
			t_fail "$name: one VL, no ERR IBF14 in OpenSM's log" \
				"$(grep -m1 IBF14 "$run/osm.log")"
		else
			t_pass "$name: one VL, no ERR IBF14 in OpenSM's log"
		fi
	fi
}

FABRICS=("xgft:2:4,4:1,4 0 dmodk" "xgft:2:4,4:1,4 2 dmodk"
	 "xgft:2:4,4:1,4 2 uapr" "pgft:2:4,4:1,2:1,2 0 dmodk"
	 "pgft:2:4,4:1,2:1,2 1 uapr" "pgft:2:4,4:1,2:1,1 0 dmodk"
	 "slimfly:5 2 layered")
[ "$T_QUICK" = 1 ] || FABRICS+=("xgft:2:4,4:1,4 0 uapr"
				 "pgft:3:4,4,4:1,4,2:1,1,2 1 uapr"
				 "dragonfly:4,2,2 2 layered")
for c in "${FABRICS[@]}"; do
	read -r spec lmc eng <<<"$c"
	route_case "$spec" "$lmc" "$eng"
done

# ---- fallback and a bad configuration line ------------------------------
dir=$T_TMP/fallback
run=$dir/run
mkdir -p "$run"
"$IBF" gen slimfly:5 --format ibsim -o "$dir/net" >/dev/null 2>&1
osm_conf "$dir/osm.conf" "ibflow-dmodk,minhop"
printf 'layers 2\nno_such_key 1\ndensity 7\n' >"$dir/ibflow.conf"
if ibs_start "$dir/net" "$run" 2>"$dir/ibsim.err"; then
	IBFLOW_OSM_CONF=$dir/ibflow.conf osm_sweep "$dir/osm.conf" 0 "$run"
	ibs_stop
	if grep -q 'ERR IBF01: ibflow-dmodk refuses this fabric: .*not a PGFT' \
	   "$run/osm.log" && [ "$(grep -c 'ibflow-dmodk refuses' "$run/osm.log")" = 1 ]; then
		t_pass "slimfly:5 ibflow-dmodk: one ERR line naming the engine and why"
	else
		t_fail "slimfly:5 ibflow-dmodk: one ERR line naming the engine and why" \
			"$(grep -m3 ' 0x01 ' "$run/osm.log")"
	fi
	if [ "$USED" = minhop ]; then
		t_pass "slimfly:5 ibflow-dmodk: OpenSM falls back to minhop"
	else
		t_fail "slimfly:5 ibflow-dmodk: OpenSM falls back to minhop" "used '$USED'"
	fi
	if grep -q "ERR IBF06: $dir/ibflow.conf:2: unknown key" "$run/osm.log" &&
	   grep -q "ERR IBF06: $dir/ibflow.conf:3: density" "$run/osm.log"; then
		t_pass "bad ibflow.conf lines logged as FILE:LINE"
	else
		t_fail "bad ibflow.conf lines logged as FILE:LINE" "$(grep -m3 'IBF06' "$run/osm.log")"
	fi
	t_check "slimfly:5 minhop fallback tables pass ibflow check" 0 \
		"$IBF" check --topo "$run/ibnetdiscover.out" --lfts "$run/dump_lfts.out"
else
	t_fail "fallback: ibsim" "$(head -c 300 "$dir/ibsim.err")"
fi

# ---- layered with OpenSM running: SA PathRecords, MMF report -----------
dir=$T_TMP/sa
run=$dir/run
mkdir -p "$run"
"$IBF" gen slimfly:5 --lmc 2 --format ibsim -o "$dir/net" >/dev/null 2>&1
osm_conf "$dir/osm.conf" "ibflow-layered,minhop" "qos TRUE" \
	"force_log_flush TRUE"
# vls 8: the applications take the PathRecords' SLs (whole layers on SLs)
printf 'eval_patterns perm,shift:4\neval_opt no\nvls 8\n' >"$dir/ibflow.conf"
if ibs_start "$dir/net" "$run" 2>"$dir/ibsim.err"; then
	IBFLOW_OSM_CONF=$dir/ibflow.conf OSM_TMP_DIR=$run OSM_CACHE_DIR=$run \
		ibs_run opensm -F "$dir/osm.conf" -f "$run/osm.log" -s 0 \
		-D 0x43 -l 2 >"$run/opensm.out" 2>&1 &
	osm_pid=$!
	for _ in $(seq 150); do
		[ -f "$run/ibflow-eval.json" ] && grep -q 'SUBNET UP' "$run/osm.log" 2>/dev/null && break
		sleep 0.2
	done
	# 40 pairs: sources of the first 4 hosts, destinations every 5th LID.
	ibs_discover "$run/ibnetdiscover.out"
	ca_lids "$run/ibnetdiscover.out" >"$dir/calids"
	srcs=$(awk 'NR % 4 == 1' "$dir/calids" | head -4)
	dsts=$(awk 'NR % 5 == 2' "$dir/calids" | head -10)
	: >"$dir/sa.sl"
	for s in $srcs; do
		for d in $dsts; do
			sl=$(ibs_run saquery -p --slid "$s" --dlid "$d" 2>/dev/null |
			     sed -n 's/.*[[:space:]]sl\.*0x\([0-9a-f]*\).*/\1/p' | head -1)
			echo "$s $d $((16#${sl:-ff}))" >>"$dir/sa.sl"
		done
	done
	kill "$osm_pid" 2>/dev/null
	wait "$osm_pid" 2>/dev/null
	ibs_stop
	# Expected SLs from the exported SL file ("*" lines then pair lines).
	awk 'NR == FNR { if ($1 == "*") any[$2] = $3; else if ($1 !~ /^#/) pair[$1 " " $2] = $3; next }
	     { k = $1 " " $2; sl = (k in pair) ? pair[k] : (($2 in any) ? any[$2] : 0)
	       print $1, $2, sl }' "$run/ibflow-sl.txt" "$dir/sa.sl" >"$dir/want.sl"
	if [ -s "$dir/sa.sl" ] && [ "$(awk '$3 > 0' "$dir/want.sl" | wc -l)" -gt 0 ]; then
		t_same "slimfly:5 lmc 2 layered: saquery PathRecord SLs equal the plugin's SL file ($(wc -l <"$dir/sa.sl") pairs)" \
			"$dir/want.sl" "$dir/sa.sl"
	else
		t_fail "slimfly:5 lmc 2 layered: saquery PathRecord SLs" "no pairs or no SL > 0 expected"
	fi
	if [ -f "$run/ibflow-eval.json" ] &&
	   python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); p = [x["name"] for x in d["patterns"]]; sys.exit(0 if d["engine"] == "ibflow-layered" and p == ["perm", "shift:4"] and all(0 < x["index"] <= 1.000001 for x in d["patterns"]) else 1)' \
	   "$run/ibflow-eval.json" && grep -q 'ibflow: eval ibflow-layered perm ' "$run/osm.log"; then
		t_pass "slimfly:5 lmc 2 layered: MMF report written and logged"
	else
		t_fail "slimfly:5 lmc 2 layered: MMF report written and logged" \
			"$(head -c 200 "$run/ibflow-eval.json" 2>&1)"
	fi
	# A routing on several SLs: OpenSM's log warns that UCX sends on
	# one SL, and the report's verdicts say why (the SLs make it safe).
	if grep -q 'ERR IBF14: ibflow-layered: warning: .*SLs 0-[1-9].*UCX_IB_SL only' "$run/osm.log" &&
	   python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["sls"] > 1 and d["deadlock_free_with_sls"] is True and d["deadlock_free_on_one_sl"] is False else 1)' "$run/ibflow-eval.json"; then
		t_pass "slimfly:5 lmc 2 layered vls 8: ERR IBF14 warns of UCX's one SL; report: deadlock-free with its SLs, not on one"
	else
		t_fail "slimfly:5 lmc 2 layered vls 8: ERR IBF14 and the report's verdicts" \
			"$(grep 'IBF14' "$run/osm.log" | head -c 300) $(grep deadlock_free "$run/ibflow-eval.json" 2>&1 | head -c 200)"
	fi
else
	t_fail "sa: ibsim" "$(head -c 300 "$dir/ibsim.err")"
fi

# ---- fault: a link taken down in ibsim, OpenSM resweeps ----------------
# ibsim gets its console on a fifo (ibs_start gives it /dev/null), same
# socket-name isolation as ibsim-session.sh.
dir=$T_TMP/fault
run=$dir/run
mkdir -p "$run"
"$IBF" gen xgft:2:4,4:1,4 --format ibsim -o "$dir/net" >/dev/null 2>&1
osm_conf "$dir/osm.conf" "ibflow-dmodk,minhop" "force_log_flush TRUE"
mkfifo "$dir/console"
IBS_SOCK=ibflow-$$-fault-$RANDOM$RANDOM
IBSIM_SOCKNAME=$IBS_SOCK timeout -k 5 300 ibsim -s "$dir/net" \
	<"$dir/console" >"$dir/ibsim.log" 2>&1 &
IBS_PID=$!
IBS_ALL_PIDS="$IBS_ALL_PIDS $IBS_PID"
exec 9>"$dir/console"
for _ in $(seq 100); do
	grep -q 'simulator ready' "$dir/ibsim.log" && break
	sleep 0.1
done
OSM_TMP_DIR=$run OSM_CACHE_DIR=$run ibs_run opensm -F "$dir/osm.conf" \
	-f "$run/osm.log" -s 1 -D 0x43 >"$run/opensm.out" 2>&1 &
osm_pid=$!
routed() {
	local n

	n=$(grep -c "ibflow-dmodk tables configured on all switches" \
	    "$run/osm.log" 2>/dev/null)
	echo "${n:-0}"
}
for _ in $(seq 100); do
	[ "$(routed)" -ge 1 ] && grep -q 'SUBNET UP' "$run/osm.log" && break
	sleep 0.1
done
n0=$(routed)
# Leaf s1-0 (GUID ...0000) port 5 goes up to spine s2-0 (GUID ...0400).
echo 'Unlink "S-0002c90200000000"[5]' >&9
for _ in $(seq 150); do
	[ "$(routed)" -gt "$n0" ] && [ -f "$run/ibflow-export.txt" ] &&
		grep -q "^routing $((n0 + 1))" "$run/ibflow-export.txt" &&
		grep -q "^status complete" "$run/ibflow-export.txt" && break
	sleep 0.1
done
ibs_discover "$run/ibnetdiscover.out"
ibs_dump_lfts "$run/dump_lfts.out"
kill "$osm_pid" 2>/dev/null
wait "$osm_pid" 2>/dev/null
exec 9>&-
ibs_stop
if [ "$(routed)" -gt "$n0" ]; then
	t_pass "fault: ibflow-dmodk reroutes after the link went down"
else
	t_fail "fault: ibflow-dmodk reroutes after the link went down" \
		"$(routed) routings; $(grep -m2 ' 0x01 ' "$run/osm.log")"
fi
if grep -q '"S-0002c90200000400"' "$run/ibnetdiscover.out" &&
   ! grep -q '^\[1\].*"S-0002c90200000000"\[5\]' "$run/ibnetdiscover.out" &&
   ! grep -q '^\[5\].*"S-0002c90200000400"\[1\]' "$run/ibflow-topology.ibnd"; then
	t_pass "fault: the link is gone from ibnetdiscover and from the export"
else
	t_fail "fault: the link is gone from ibnetdiscover and from the export" "still listed"
fi
t_check "fault: new tables pass ibflow check on the degraded fabric" 0 \
	"$IBF" check --topo "$run/ibnetdiscover.out" --lfts "$run/dump_lfts.out"

t_done
