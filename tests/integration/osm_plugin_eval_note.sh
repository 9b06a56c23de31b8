#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The OpenSM plugin says why it has no MMF optimum.  Real OpenSM on ibsim
# routes a 2-level tree with one up-link at 4x DDR among 4x EDR ones (and,
# as on real clusters, every switch describing itself alike) with
# ibflow-dmodk; the exact optimum needs equal capacities within a level, so
# ibflow-eval.json must hold opt_index null with the reason in opt_note,
# and OpenSM's log line of the pattern must carry it too - the reason
# `ibflow eval --opt` gives offline for the same net, naming the switch by
# GUID.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$T_BUILD_DIR/osm_plugin/.libs}
t_need_ibflow
if ! why=$(ibs_have_tools); then
	t_skip osm_plugin_eval_note "$why"
	t_done
fi
if [ ! -f "$PLUGIN_DIR/libibflow_osm.so" ]; then
	t_skip osm_plugin_eval_note "$PLUGIN_DIR/libibflow_osm.so not built"
	t_done
fi
export LD_LIBRARY_PATH=$PLUGIN_DIR:$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

dir=$T_TMP
run=$dir/run
mkdir -p "$run"
SAME="SwitchIB Mellanox Technologies"
"$IBF" gen kary:2,2 --format ibsim |
	awk -v same="$SAME" '
	/^Switch/ { sub(/# "[^"]*"/, "# \"" same "\""); sw++ }
	sw == 1 && /^\[3\]/ { sub(/4xEDR/, "4xDDR") }
	{ print }' >"$dir/net"
if ! grep -q '4xDDR' "$dir/net"; then
	t_fail "fixture: one DDR up-link" "no 4xDDR in the net"
	t_done
fi
{
	echo "event_plugin_name ibflow_osm"
	echo "routing_engine ibflow-dmodk,minhop"
	echo "force_log_flush TRUE"
} >"$dir/osm.conf"
printf 'eval_patterns perm\neval_opt yes\n' >"$dir/ibflow.conf"

if ! ibs_start "$dir/net" "$run" 2>"$dir/ibsim.err"; then
	t_fail "ibsim" "$(head -c 300 "$dir/ibsim.err")"
	t_done
fi
IBFLOW_OSM_CONF=$dir/ibflow.conf OSM_TMP_DIR=$run OSM_CACHE_DIR=$run \
	ibs_run opensm -F "$dir/osm.conf" -f "$run/osm.log" -s 0 -D 0x43 \
	>"$run/opensm.out" 2>&1 &
osm_pid=$!
for _ in $(seq 150); do
	[ -f "$run/ibflow-eval.json" ] && break
	sleep 0.2
done
kill "$osm_pid" 2>/dev/null
wait "$osm_pid" 2>/dev/null
ibs_stop

if [ "$(ibs_engine_used "$run/osm.log")" = ibflow-dmodk ]; then
	t_pass "OpenSM routes the mixed-rate tree with ibflow-dmodk"
else
	t_fail "OpenSM routes with ibflow-dmodk" "$(grep -m3 'ibflow' "$run/osm.log" | tr '\n' ' ')"
fi

# the offline reason, to compare with
"$IBF" eval --topo "$dir/net" --lfts "$run/opensm-lfts.dump" --patterns perm \
	--opt >"$dir/eval.out" 2>"$dir/eval.err"
why=$(sed -n 's/.*exact optimum not computed: //p' "$dir/eval.err" | head -1)
if [[ "$why" == *"different capacities"*"$SAME (0x"* ]]; then
	t_pass "ibflow eval --opt: unequal capacities, the switch named by GUID"
else
	t_fail "ibflow eval --opt gives the reason" "$(head -c 300 "$dir/eval.err")"
fi

if [ -f "$run/ibflow-eval.json" ] &&
   python3 - "$run/ibflow-eval.json" "$why" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["patterns"][0]
assert p["opt_index"] is None and p["ratio"] is None, p
assert "different capacities" in (p["opt_note"] or ""), p
assert sys.argv[2] and sys.argv[2] in p["opt_note"], (p["opt_note"], sys.argv[2])
PY
then
	t_pass "ibflow-eval.json: opt_index null, opt_note gives eval's reason"
else
	t_fail "ibflow-eval.json gives the reason" "$(head -c 400 "$run/ibflow-eval.json" 2>/dev/null)"
fi

line=$(grep -m1 'ibflow: eval ibflow-dmodk *perm' "$run/osm.log")
if [[ "$line" == *"no MMF optimum: exact optimum not computed: "*"different capacities"* ]]; then
	t_pass "OpenSM's log line of the pattern says why there is no optimum"
else
	t_fail "the log line says why" "${line:-no eval line}"
fi

t_done
