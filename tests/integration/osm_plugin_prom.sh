#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# metrics_file of the OpenSM plugin, read by the real consumers: OpenSM
# (continuous, on ibsim) routes a 16-host fat tree with ibflow-dmodk, a
# host link goes down and comes back through ibsim's console;
# prometheus-node-exporter (loopback, a private port, textfile collector
# only) serves the plugin's file and /metrics is scraped after each
# routing's evaluation.  Checked:
#   - `promtool check metrics` accepts every file written;
#   - the scraped values are those of the plugin's log (routing number,
#     engine, routing seconds, each pattern's MMF index and ratio, the
#     deadlock verdict) and change with the sweeps: degraded 1 with one
#     host missing after the Unlink, 0 after the ReLink;
#   - lft_entries_changed equals the entries that differ between the
#     tables dump_lfts reads back before and after (counted by awk here);
#   - a fallback (ibflow-layered asked for 4 layers on LMC 0, OpenSM
#     falls back to minhop) is 1 with the plugin's refusal as reason;
#   - `ibflow eval --prom` on a path with a quote and a backslash: the
#     label is escaped and promtool accepts the file.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
IBS_SOCK_PREFIX=ibfm
OSM_PID=
NE_PID=
stop_all() {
	local p
	for p in "$OSM_PID" "$NE_PID"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	OSM_PID= NE_PID=
}
trap 'stop_all; ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$T_BUILD_DIR/osm_plugin/.libs}
NE=$(command -v prometheus-node-exporter || true)
if ! why=$(ibs_have_tools); then
	t_skip osm_plugin_prom "$why"
	t_done
fi
if [ ! -f "$PLUGIN_DIR/libibflow_osm.so" ]; then
	t_skip osm_plugin_prom "$PLUGIN_DIR/libibflow_osm.so not built"
	t_done
fi
if ! t_need promtool curl || [ -z "$NE" ]; then
	t_skip osm_plugin_prom "needs promtool (prometheus), prometheus-node-exporter and curl"
	t_done
fi
export LD_LIBRARY_PATH=$PLUGIN_DIR:$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

W=$T_TMP
mkdir -p "$W/tf"
PROM=$W/tf/ibflow.prom

# ---- ibflow eval --prom: escaping ------------------------------------------
"$IBF" gen xgft:2:4,4:1,4 -o "$W/t.ibnd" >/dev/null
odd=$W/'od"d\x.dump'
"$IBF" route --topo "$W/t.ibnd" --engine dmodk -o "$odd" >/dev/null
if "$IBF" eval --topo "$W/t.ibnd" --lfts "$odd" --patterns perm:2,shift:4 \
	--opt --prom "$W/eval.prom" >/dev/null 2>"$W/eval.err" &&
   promtool check metrics <"$W/eval.prom" >"$W/pc.out" 2>&1 &&
   grep -qF 'ibflow_mmf_index{engine="'"$W"'/od\"d\\x.dump",pattern="perm:2"}' "$W/eval.prom"; then
	t_pass "eval --prom: a quote and a backslash in the label escaped, promtool check metrics accepts it"
else
	t_fail "eval --prom" "$(cat "$W/eval.err" "$W/pc.out"; grep mmf_index "$W/eval.prom")"
fi

# ---- node_exporter on the plugin's directory -------------------------------
port=$((30000 + RANDOM % 20000))
"$NE" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$W/tf" \
	>"$W/ne.log" 2>&1 &
NE_PID=$!
scrape() { curl -sf "http://127.0.0.1:$port/metrics" | grep '^ibflow_'; }
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/metrics" >/dev/null && break; sleep 0.1; done

osm_start() { # DIR ENGINES CONF-LINES...: continuous OpenSM with the plugin
	local dir=$1 eng=$2
	shift 2
	printf 'event_plugin_name ibflow_osm\nrouting_engine %s\nforce_log_flush TRUE\n' \
		"$eng" >"$dir/osm.conf"
	printf '%s\n' "$@" >"$dir/ibflow.conf"
	IBFLOW_OSM_CONF=$dir/ibflow.conf OSM_TMP_DIR=$dir OSM_CACHE_DIR=$dir \
		IBSIM_SOCKNAME=$IBS_SOCK LD_PRELOAD=$IBS_UMAD2SIM \
		timeout -k 5 600 opensm -F "$dir/osm.conf" -f "$dir/osm.log" \
		-s 1 -D 0x43 >"$dir/opensm.out" 2>&1 &
	OSM_PID=$!
}

# wait_metrics DIR N: routing N's evaluation done and its metrics written
# after it (the last "metrics of" line names routing N).
wait_metrics() {
	local dir=$1 n=$2 i
	for i in $(seq 600); do
		if grep -q "eval of [a-z-]* routing $n done" "$dir/osm.log" 2>/dev/null &&
		   [ "$(grep 'metrics of ' "$dir/osm.log" | tail -1 | sed -n 's/.* routing \([0-9]*\) written.*/\1/p')" = "$n" ] &&
		   [ "$(sed -n '/eval of [a-z-]* routing '"$n"' done/,$p' "$dir/osm.log" | grep -c 'metrics of .* routing '"$n"' written')" -ge 1 ]; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# value METRICS NAME [LABEL-SUBSTRING]: the sample's value
value() { awk -v n="$2" -v l="${3:-}" '{ split($1, a, "{") } a[1] == n && index($1, l) { print $2; exit }' "$1"; }

# judge LABEL DIR N: the scrape against the plugin's log for routing N
judge() {
	local label=$1 dir=$2 n=$3 bad=""
	local s=$W/scrape.$n
	cp "$PROM" "$W/file.$n"
	if promtool check metrics <"$W/file.$n" >"$W/pc.$n" 2>&1; then
		t_pass "$label: promtool check metrics accepts the file of routing $n"
	else
		t_fail "$label: promtool check metrics" "$(head -5 "$W/pc.$n")"
	fi
	scrape >"$s"
	[ "$(value "$s" ibflow_routing_sequence)" = "$n" ] || bad+=" sequence $(value "$s" ibflow_routing_sequence)"
	local eng secs
	eng=$(sed -n 's/.* \([a-z-]*\): routed .*/\1/p' "$dir/osm.log" | tail -1)
	secs=$(sed -n 's/.*: routed .* in \([0-9.]*\) s (min-hop.*/\1/p' "$dir/osm.log" | tail -1)
	grep -q "^ibflow_routing_engine_info{engine=\"$eng\",requested=\"$eng\"} 1$" "$s" || bad+=" engine"
	awk -v a="$(value "$s" ibflow_routing_duration_seconds)" -v b="$secs" \
		'BEGIN { exit !(a - b < 0.00006 && b - a < 0.00006) }' || bad+=" seconds $secs"
	# every "eval ENGINE PATTERN index X optimum Y ratio Z" of routing n
	while read -r pat idx ratio; do
		awk -v a="$(value "$s" ibflow_mmf_index "pattern=\"$pat\"")" -v b="$idx" \
			'BEGIN { exit !(a != "" && a - b < 0.00006 && b - a < 0.00006) }' || bad+=" index $pat"
		awk -v a="$(value "$s" ibflow_mmf_optimum_ratio "pattern=\"$pat\"")" -v b="$ratio" \
			'BEGIN { exit !(a != "" && a - b < 0.00006 && b - a < 0.00006) }' || bad+=" ratio $pat"
	done < <(awk -v n="$n" '/routing [0-9]+ done/ { r++ } /deadlock check of .* routing / { cur = $0 ~ ("routing " n ":") }
		cur && / eval ibflow-[a-z]+ +[^ ]+ +index / { for (i = 1; i <= NF; i++) { if ($i == "index") x = $(i+1); if ($i == "ratio") y = $(i+1); if ($i ~ /^ibflow-/ && $(i+1) != "") p = $(i+1) }; print p, x, y }' "$dir/osm.log")
	grep -q "deadlock check of $eng routing $n: acyclic" "$dir/osm.log" &&
		[ "$(value "$s" ibflow_deadlock_free)" = 1 ] || bad+=" deadlock"
	[ "$(value "$s" ibflow_export_ok)" = 1 ] || bad+=" export"
	if [ -z "$bad" ]; then
		t_pass "$label: /metrics of node_exporter has routing $n as the log says ($eng, $secs s, $(grep -c '^ibflow_mmf_index' "$s") patterns' index and ratio, deadlock-free, exported)"
	else
		t_fail "$label: scrape vs log" "differs:$bad; $(grep -E 'sequence|duration|mmf_index' "$s" | head -5)"
	fi
}

# entries that differ between two dump_lfts read-backs (switch, LID)
lft_diff() { awk 'FNR == NR { a[$1 " " $2] = $3; next } { k = $1 " " $2; if (!(k in a) || a[k] != $3) n++; delete a[k] }
	END { for (k in a) n++; print n + 0 }' <(t_canon_lfts "$1") <(t_canon_lfts "$2"); }

dir=$W/osm
mkdir -p "$dir"
"$IBF" gen xgft:2:4,4:1,4 --format ibsim -o "$dir/net" >/dev/null
if ! ibs_start_console "$dir/net" "$dir"; then
	t_fail "ibsim" "$(tail -3 "$dir/ibsim.log")"
	t_done
fi
osm_start "$dir" "ibflow-dmodk,minhop" "metrics_file $PROM" "export_dir $dir" \
	"eval_patterns perm:2,shift:4"
if wait_metrics "$dir" 1; then
	ibs_dump_lfts "$dir/l1"
	lp=$dir/l1
	ibs_discover "$dir/healthy.ibnd"
	judge "healthy" "$dir" 1
	s=$W/scrape.1
	if [ "$(value "$s" ibflow_fabric_degraded)" = 0 ] && [ "$(value "$s" ibflow_routings_total)" = 1 ] &&
	   [ "$(value "$s" ibflow_routing_fallback)" = 0 ] && ! grep -q '^ibflow_lft_entries_changed' "$s"; then
		t_pass "healthy: not degraded, no fallback, 1 routing, no table change reported for the first"
	else
		t_fail "healthy: state" "$(grep -E 'degraded|total|fallback|changed' "$s")"
	fi
	guid=$(sed -n 's/^Ca.*"\(H-[0-9a-f]*\)".*"h0005 HCA-1".*/\1/p' "$dir/healthy.ibnd" | head -1)
	for step in "Unlink" "ReLink"; do
		prev=$(grep -c 'tables configured on all switches' "$dir/osm.log")
		ibs_console "$step \"$guid\""
		n=
		for _ in $(seq 300); do
			c=$(grep -c 'tables configured on all switches' "$dir/osm.log")
			[ "$c" -gt "$prev" ] && n=$c && break
			sleep 0.1
		done
		# a fault may cause more than one routing: judge the last
		sleep 2
		n=$(grep -c 'tables configured on all switches' "$dir/osm.log")
		if [ -z "$n" ] || ! wait_metrics "$dir" "$n"; then
			t_fail "$step: routing and metrics" "$(tail -3 "$dir/osm.log")"
			continue
		fi
		ibs_dump_lfts "$dir/l$n"
		judge "$step h0005" "$dir" "$n"
		s=$W/scrape.$n
		want_deg=1 want_miss=1
		[ "$step" = ReLink ] && want_deg=0 want_miss=0
		d=$(lft_diff "$lp" "$dir/l$n")
		lp=$dir/l$n
		if [ "$(value "$s" ibflow_fabric_degraded)" = "$want_deg" ] &&
		   [ "$(value "$s" ibflow_fabric_missing 'kind="hosts"')" = "$want_miss" ] &&
		   [ "$(value "$s" ibflow_routings_total)" = "$n" ] &&
		   [ "$(value "$s" ibflow_lft_entries_changed)" = "$d" ] && [ "$d" -gt 0 ]; then
			t_pass "$step h0005: degraded $want_deg, $want_miss host missing, $d table entries changed (as dump_lfts before/after say)"
		else
			t_fail "$step h0005: state" "dump_lfts differ in $d, metric $(value "$s" ibflow_lft_entries_changed); $(grep -E 'degraded|missing|total|changed' "$s" | tr '\n' ' ')"
		fi
	done
else
	t_fail "healthy: routing 1 and its metrics" "$(grep -E 'ERR|metrics' "$dir/osm.log" | tail -3)"
fi
stop_all
ibs_stop_all

# ---- a fallback, its reason as a label --------------------------------------
dir=$W/fb
mkdir -p "$dir"
cp "$W/osm/net" "$dir/net"
"$NE" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$W/tf" \
	>"$W/ne2.log" 2>&1 &
NE_PID=$!
rm -f "$PROM"
if ibs_start "$dir/net" "$dir"; then
	printf 'event_plugin_name ibflow_osm\nrouting_engine ibflow-layered,minhop\n' >"$dir/osm.conf"
	printf 'metrics_file %s\nexport_dir %s\nlayers 4\neval_patterns perm:2\n' "$PROM" "$dir" >"$dir/ibflow.conf"
	IBFLOW_OSM_CONF=$dir/ibflow.conf ibs_sweep "$dir" 0 -F "$dir/osm.conf" >/dev/null 2>&1
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/metrics" >/dev/null && break; sleep 0.1; done
	scrape >"$W/scrape.fb"
	reason=$(sed -n 's/.*ERR IBF01: ibflow-layered refuses this fabric: //p' "$dir/osm.log" | head -1)
	if promtool check metrics <"$PROM" >"$W/pc.fb" 2>&1 && [ -n "$reason" ] &&
	   grep -qF "ibflow_routing_fallback{engine=\"minhop\",reason=\"$reason\",requested=\"ibflow-layered\"} 1" "$W/scrape.fb" &&
	   [ "$(value "$W/scrape.fb" ibflow_routing_fallbacks_total)" = 1 ]; then
		t_pass "fallback: minhop routed, ibflow_routing_fallback 1 with the log's reason \"$reason\"; promtool accepts the file"
	else
		t_fail "fallback" "reason '$reason'; $(cat "$W/pc.fb"; grep -E 'fallback|engine_info' "$W/scrape.fb")"
	fi
else
	t_fail "fallback: ibsim" "$(tail -3 "$dir/ibsim.log")"
fi
t_done
