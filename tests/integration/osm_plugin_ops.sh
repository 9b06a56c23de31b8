#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The OpenSM plugin in continuous operation on ibsim (faults through
# ibsim's console, OpenSM resweeping on its own):
#   - degraded fat trees (a reduced fault campaign on kary:4,3): one host
#     down, a leaf's hosts all down, a top switch down, random link faults;
#     each time ibflow-dmodk (not the minhop fallback) configures the
#     tables, the tables read back deliver every pair that still has an
#     up*/down* path (judged by an awk walk and an awk up*/down* search of
#     tests/lib.sh, no ibflow code) and no other, with no loop or dead end;
#     host faults move no entry of any other LID; after ReLink the tables
#     are exactly the first ones again; the export after each routing is
#     that routing's (manifest complete, one generation, sizes) and holds
#     the tables read back from the switches (nothing stale);
#   - hostile NodeDescriptions ("#h...", "  padded  ", a description two
#     hosts share, one that looks like a LID): the export reads back whole
#     (the order file lists every host, ibflow eval --map uses them all);
#   - ibflow.conf with a UTF-8 BOM, a NUL byte, junk (ESC, bytes >= 0x80,
#     30 bad lines) and "key=value": good lines kept, nothing raw in the
#     log, at most 8 error lines and a summary;
#   - ibflow.conf changed + SIGHUP: re-read at the next heavy sweep;
#   - evaluation stopped at once by a newer routing and by SIGTERM, with
#     the right log line; a memory limit it cannot fit in is reported;
#   - opensm -o five times: each evaluation ends in a line (report, stop
#     or "not run"); a key twice in ibflow.conf warned with both lines;
#     export_dir under or at a regular file: ERR IBF08 says what failed.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
IBS_SOCK_PREFIX=ibfp
OSM_PID=
osm_stop() {
	if [ -n "$OSM_PID" ]; then
		kill "$OSM_PID" 2>/dev/null
		wait "$OSM_PID" 2>/dev/null
	fi
	OSM_PID=
}
trap 'osm_stop; ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$T_BUILD_DIR/osm_plugin/.libs}
if ! why=$(ibs_have_tools); then
	t_skip osm_plugin_ops "$why"
	t_done
fi
if [ ! -f "$PLUGIN_DIR/libibflow_osm.so" ]; then
	t_skip osm_plugin_ops "$PLUGIN_DIR/libibflow_osm.so not built"
	t_done
fi
export LD_LIBRARY_PATH=$PLUGIN_DIR:$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# osm_start DIR ENGINES [ibflow.conf lines...]: continuous OpenSM with the
# plugin on the running ibsim; log DIR/osm.log, export into DIR.  Without
# ibflow.conf lines, DIR/ibflow.conf is used as it is.
osm_start() {
	local dir=$1 eng=$2

	shift 2
	printf 'event_plugin_name ibflow_osm\nrouting_engine %s\nforce_log_flush TRUE\n' \
		"$eng" >"$dir/osm.conf"
	[ $# -gt 0 ] && printf '%s\n' "$@" >"$dir/ibflow.conf"
	IBFLOW_OSM_CONF=$dir/ibflow.conf OSM_TMP_DIR=$dir OSM_CACHE_DIR=$dir \
		IBSIM_SOCKNAME=$IBS_SOCK LD_PRELOAD=$IBS_UMAD2SIM \
		timeout -k 5 600 opensm -F "$dir/osm.conf" -f "$dir/osm.log" \
		-s 1 -D 0x43 >"$dir/opensm.out" 2>&1 &
	OSM_PID=$!
}

count() { # count PATTERN FILE
	local n

	n=$(grep -c -- "$1" "$2" 2>/dev/null)
	echo "${n:-0}"
}

# wait_routing DIR N [SECONDS]: until N routings were configured and the
# export of the last is complete.  Sets USED to the engine of the last.
wait_routing() {
	local dir=$1 n=$2 t=${3:-60} i

	for i in $(seq $((t * 10))); do
		if [ "$(count 'tables configured on all switches' "$dir/osm.log")" -ge "$n" ] &&
		   grep -q '^status complete' "$dir/ibflow-export.txt" 2>/dev/null &&
		   [ "$(sed -n 's/^routing //p' "$dir/ibflow-export.txt")" -ge "$n" ]; then
			break
		fi
		sleep 0.1
	done
	USED=$(sed -n 's/.* \([A-Za-z0-9_-]*\) tables configured on all switches.*/\1/p' \
	       "$dir/osm.log" | tail -1)
	[ "$(count 'tables configured on all switches' "$dir/osm.log")" -ge "$n" ]
}

# export_current DIR N: "ok" when DIR holds routing N's export and nothing
# older - manifest complete, routing N, every file it lists of its size
# and headed by its generation; otherwise says what is wrong.
export_current() {
	local dir=$1 n=$2

	# one awk: the manifest first, then each file it lists (first line,
	# size in bytes as read; the files are ASCII text)
	LC_ALL=C awk -v n="$n" -v dir="$dir" '
	FNR == 1 && NR > 1 { cur = FILENAME; sub(/.*\//, "", cur)
		if ($0 != "# ibflow export " gen) { print cur ": " $0 ", manifest " gen; bad = 1; exit } }
	NR == FNR { if ($1 == "status") status = $2; if ($1 == "routing") routing = $2
		if ($1 == "generation") gen = $2
		if ($1 == "file") { size[$3] = $4; nf++; ARGV[ARGC++] = dir "/" $3 }
		next }
	{ cur = FILENAME; sub(/.*\//, "", cur); got[cur] += length($0) + 1 }
	END {
		if (bad) exit
		if (status != "complete") { print "status " status; exit }
		if (routing != n) { print "routing " routing ", wanted " n; exit }
		if (nf != 4) { print nf " files listed"; exit }
		for (f in size) if (got[f] != size[f]) { print f ": " got[f] " bytes, manifest " size[f]; exit }
		print "ok"
	}' "$dir/ibflow-export.txt"
}

# Entries (switch LID port) for LIDs other than those listed.
lft_without() { # FILE LID...
	local f=$1

	shift
	t_canon_lfts "$f" | awk -v drop=" $* " 'index(drop, " " $2 " ") == 0'
}

# OPS_ONLY="faults names conf eval" runs some sections only (debugging).
want() { [ -z "${OPS_ONLY:-}" ] || [[ " $OPS_ONLY " == *" $1 "* ]]; }

# ---- degraded fat trees: a reduced fault campaign -----------------------
want faults && {
dir=$T_TMP/faults
mkdir -p "$dir"
"$IBF" gen kary:4,3 --format ibsim -o "$dir/net" >/dev/null
if ! ibs_start_console "$dir/net" "$dir"; then
	t_fail "faults: ibsim" "$(tail -3 "$dir/ibsim.log")"
else
	osm_start "$dir" "ibflow-dmodk,minhop" "eval no"
	if wait_routing "$dir" 1 && [ "$USED" = ibflow-dmodk ]; then
		t_pass "faults: healthy kary:4,3 routed by ibflow-dmodk"
	else
		t_fail "faults: healthy kary:4,3 routed by ibflow-dmodk" "used '$USED'"
	fi
	ibs_discover "$dir/healthy.ibnd"
	ibs_dump_lfts "$dir/base.lfts"
	nr=1
	# host LIDs of a CA by its NodeDescription
	lid_of() { sed -n "s/.*\"$1\" lid \([0-9]*\) .*/\1/p" "$dir/healthy.ibnd" | head -1; }
	guid_of() { sed -n "s/^Ca.*\"\(H-[0-9a-f]*\)\".*\"$1\".*/\1/p" "$dir/healthy.ibnd" | head -1; }
	sw_of() { sed -n "s/^Switch.*\"\(S-[0-9a-f]*\)\".*\"$1\".*/\1/p" "$dir/healthy.ibnd" | head -1; }

	# fault NAME HOSTS_DOWN CONSOLE_CMDS...: apply, wait, judge; ReLink
	# everything afterwards and check the first tables come back.
	fault() {
		local name=$1 hosts=$2 c

		shift 2
		for c in "$@"; do ibs_console "$c"; done
		nr=$((nr + 1))
		if wait_routing "$dir" "$nr" && [ "$USED" = ibflow-dmodk ]; then
			t_pass "faults: $name: ibflow-dmodk configures the tables (no fallback)"
		else
			t_fail "faults: $name: ibflow-dmodk configures the tables (no fallback)" \
				"used '$USED'; $(grep 'ERR IBF01' "$dir/osm.log" | tail -1)"
		fi
		# a fault may cause more than one routing: judge the last
		nr=$(count 'tables configured on all switches' "$dir/osm.log")
		wait_routing "$dir" "$nr"
		ibs_discover "$dir/deg.ibnd"
		ibs_dump_lfts "$dir/deg.lfts"
		local tr un ex
		# the export is this routing's, whole, and is what the switches carry
		ex=$(export_current "$dir" "$nr")
		if [ "$ex" = ok ] && cmp -s <(t_canon_lfts "$dir/deg.lfts") \
		   <(t_canon_lfts "$dir/ibflow-lfts.dump"); then
			t_pass "faults: $name: export of routing $nr complete, one generation, its LFTs are the switches' (no stale file)"
		else
			t_fail "faults: $name: export current" "$ex; LFTs vs switches: $(diff <(t_canon_lfts "$dir/deg.lfts") <(t_canon_lfts "$dir/ibflow-lfts.dump") | head -3)"
		fi
		tr=$(t_trace "$dir/deg.ibnd" "$dir/deg.lfts")
		un=$(t_updown_unreachable "$dir/healthy.ibnd" "$dir/deg.ibnd")
		if [[ $tr == *" no_route $un dead_end 0 loop 0 misdelivered 0 "* ]] &&
		   [[ $tr == *" ok $(( $(echo "$tr" | awk '{print $2}') - un )) "* ]]; then
			t_pass "faults: $name: every pair with an up*/down* path delivered, the $un without none, no loop ($tr)"
		else
			t_fail "faults: $name: pairs delivered" "$tr; without up*/down* path: $un"
		fi
		if [ -n "$hosts" ]; then
			t_same "faults: $name: no entry of another LID moved" \
				<(lft_without "$dir/base.lfts" $hosts) \
				<(lft_without "$dir/deg.lfts" $hosts)
		fi
		for c in "$@"; do ibs_console "ReLink ${c#Unlink }"; done
		nr=$((nr + 1))
		if wait_routing "$dir" "$nr"; then
			nr=$(count 'tables configured on all switches' "$dir/osm.log")
			wait_routing "$dir" "$nr"
			ibs_dump_lfts "$dir/back.lfts"
			t_same "faults: $name: after ReLink the tables are the first ones again" \
				<(t_canon_lfts "$dir/base.lfts") <(t_canon_lfts "$dir/back.lfts")
		else
			t_fail "faults: $name: rerouted after ReLink" "$(tail -2 "$dir/osm.log")"
		fi
	}

	fault "one host down" "$(lid_of 'h0013 HCA-1')" \
		"Unlink \"$(guid_of 'h0013 HCA-1')\""
	if grep -q 'ibflow-dmodk: degraded PGFT(3; 4,4,4; 1,4,4; 1,1,1): 1 hosts, 0 switches, 0 links missing' "$dir/osm.log"; then
		t_pass "faults: one host down: logged as a degraded PGFT(3; 4,4,4; 1,4,4; 1,1,1)"
	else
		t_fail "faults: one host down: logged as degraded" "$(grep 'degraded' "$dir/osm.log" | tail -1)"
	fi
	fault "all 4 hosts of a leaf down" \
		"$(lid_of 'h0020 HCA-1') $(lid_of 'h0021 HCA-1') $(lid_of 'h0022 HCA-1') $(lid_of 'h0023 HCA-1')" \
		"Unlink \"$(guid_of 'h0020 HCA-1')\"" "Unlink \"$(guid_of 'h0021 HCA-1')\"" \
		"Unlink \"$(guid_of 'h0022 HCA-1')\"" "Unlink \"$(guid_of 'h0023 HCA-1')\""
	fault "a top switch down" "" "Unlink \"$(sw_of s3-5)\""
	# random inter-switch links, 5%: 6 of the 128 (fixed seed)
	mapfile -t cands < <(awk '/^Switch/ { match($0, /"S-[0-9a-f]+"/); cur = substr($0, RSTART, RLENGTH) }
		/^\[[0-9]+\][ \t]*"S-/ && cur != "" { match($0, /^\[[0-9]+\]/); p = substr($0, 2, RLENGTH - 2)
			match($0, /"S-[0-9a-f]+"/); r = substr($0, RSTART, RLENGTH)
			if (cur < r) print "Unlink " cur "[" p "]" }' "$dir/healthy.ibnd")
	RANDOM=42
	picks=()
	for _ in 1 2 3 4 5 6; do
		picks+=("${cands[$((RANDOM % ${#cands[@]}))]}")
	done
	fault "6 random switch links down (5%)" "" "${picks[@]}"
	osm_stop
	ibs_stop
fi

}

# ---- hostile names --------------------------------------------------------
want names && {
dir=$T_TMP/names
mkdir -p "$dir"
"$IBF" gen xgft:2:4,4:1,4 --format ibsim -o "$dir/net0" >/dev/null
sed -e 's/# "h0001 HCA-1"/# "#h0001"/' -e 's/# "h0002 HCA-1"/# "  padded  "/' \
    -e 's/# "h0003 HCA-1"/# "dup"/' -e 's/# "h0004 HCA-1"/# "dup"/' \
    -e 's/# "h0005 HCA-1"/# "17"/' "$dir/net0" >"$dir/net"
if ibs_start_console "$dir/net" "$dir"; then
	osm_start "$dir" "ibflow-dmodk,minhop" "eval no"
	wait_routing "$dir" 1
	ibs_discover "$dir/real.ibnd"
	osm_stop
	ibs_stop
	t_same "names: exported topology equals ibnetdiscover's (names as it prints them)" \
		<(t_canon_topo "$dir/real.ibnd") <(t_canon_topo "$dir/ibflow-topology.ibnd")
	n=$(grep -vc '^#' "$dir/ibflow-order.txt")
	if [ "$n" = 16 ] && grep -qx '"#h0001"' "$dir/ibflow-order.txt" &&
	   grep -qx '"  padded  "' "$dir/ibflow-order.txt" &&
	   ! grep -q '^dup$\|^17$' "$dir/ibflow-order.txt"; then
		t_pass "names: order file lists all 16 hosts, quoted where needed, GUIDs for 'dup' and '17'"
	else
		t_fail "names: order file" "$(head -c 300 "$dir/ibflow-order.txt")"
	fi
	if t_expect_exit 0 "$IBF" eval --topo "$dir/ibflow-topology.ibnd" \
	   --lfts "$dir/ibflow-lfts.dump" --map "$dir/ibflow-order.txt" \
	   --patterns perm --json "$dir/eval.json" &&
	   python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["patterns"][0]["flows"] == 16 else 1)' "$dir/eval.json"; then
		t_pass "names: ibflow eval --map with the exported order uses all 16 ranks"
	else
		t_fail "names: eval --map uses all 16 ranks" "exit $T_RC: $(t_errhead) $(head -c 200 "$dir/eval.json" 2>/dev/null)"
	fi
else
	t_fail "names: ibsim" "$(tail -3 "$dir/ibsim.log")"
fi

}

# ---- hostile ibflow.conf, and SIGHUP -------------------------------------
want conf && {
dir=$T_TMP/conf
mkdir -p "$dir"
"$IBF" gen xgft:2:4,4:1,4 --format ibsim -o "$dir/net" >/dev/null
if ibs_start_console "$dir/net" "$dir"; then
	# BOM, a good first key, a NUL line, key=value, 30 junk lines with
	# ESC and 0xff bytes, a good last line
	{
		printf '\xef\xbb\xbfeval_budget 5\n'
		printf 'layers 2\x00junk\n'
		printf 'eval=no\n'
		for i in $(seq 30); do printf '\x1b[31mjunk%d \xff\xfe\n' "$i"; done
		printf 'export yes\n'
	} >"$dir/ibflow.conf"
	osm_start "$dir" "ibflow-dmodk,minhop"
	wait_routing "$dir" 1
	sleep 1
	errs=$(count 'ERR IBF06' "$dir/osm.log")
	if ! grep 'ibflow:' "$dir/osm.log" | LC_ALL=C grep -q '[^ -~	]'; then
		t_pass "conf: no raw control or non-ASCII byte in the plugin's log lines"
	else
		t_fail "conf: no raw bytes in the log" "$(grep 'ibflow:' "$dir/osm.log" | LC_ALL=C grep -m1 '[^ -~	]' | od -c | head -3)"
	fi
	if [ "$errs" -le 10 ] && grep -q 'ERR IBF06: .*ibflow.conf: [0-9]* more bad lines ignored, the first at line' "$dir/osm.log"; then
		t_pass "conf: $errs error lines for 31 bad lines, the rest summed up"
	else
		t_fail "conf: errors capped" "$errs ERR IBF06 lines"
	fi
	if grep -q 'ibflow.conf:2: a NUL byte' "$dir/osm.log" &&
	   ! grep -q 'ibflow.conf:1:' "$dir/osm.log" &&
	   ! grep -q 'ibflow.conf:3:' "$dir/osm.log" &&
	   [ ! -f "$dir/ibflow-eval.json" ] && [ -f "$dir/ibflow-export.txt" ]; then
		t_pass "conf: BOM line and eval=no accepted, the NUL line alone refused, good lines after it kept"
	else
		t_fail "conf: BOM, NUL, key=value" "$(grep -m3 'IBF06' "$dir/osm.log")"
	fi
	# SIGHUP: OpenSM sweeps heavily, the plugin re-reads the changed file
	printf 'eval no\nexport_dir %s/hup\n' "$dir" >"$dir/ibflow.conf"
	# to opensm itself: OSM_PID is timeout(1)'s, which would pass SIGHUP
	# on and then, with -k, SIGKILL opensm 5 s later as if it had timed out
	pkill -HUP -P "$OSM_PID" -x opensm
	for _ in $(seq 100); do
		[ -f "$dir/hup/ibflow-export.txt" ] && break
		sleep 0.1
	done
	if grep -q "ibflow.conf changed: re-reading it" "$dir/osm.log" &&
	   [ -f "$dir/hup/ibflow-export.txt" ]; then
		t_pass "conf: SIGHUP re-reads the changed ibflow.conf (the next export goes to the new export_dir)"
	else
		t_fail "conf: SIGHUP re-read" "$(grep -m2 're-reading\|configuration read' "$dir/osm.log")"
	fi
	osm_stop
	ibs_stop
else
	t_fail "conf: ibsim" "$(tail -3 "$dir/ibsim.log")"
fi

}

# ---- opensm -o: every evaluation ends in a line; configuration mistakes -----
# OpenSM routing once and exiting at once (-o) races the worker: the
# evaluation runs, is stopped, or is not started; whichever, the log ends
# it with a line of its own.  Five runs, as the trial that found two
# silent ones.  Then ibflow.conf with a key given twice, and export_dir
# under (and at) a regular file.
want once && {
dir=$T_TMP/once
mkdir -p "$dir"
"$IBF" gen xgft:2:4,4:1,4 --format ibsim -o "$dir/net" >/dev/null
printf 'event_plugin_name ibflow_osm\nrouting_engine ibflow-dmodk,minhop\n' >"$dir/osm.conf"
: >"$dir/empty.conf"
if ibs_start "$dir/net" "$dir" 2>"$dir/ibsim.err"; then
	silent=
	for i in 1 2 3 4 5; do
		run=$dir/run$i
		IBFLOW_OSM_CONF=$dir/empty.conf ibs_sweep "$run" 0 -F "$dir/osm.conf"
		n=$(count 'ibflow: exported ibflow-dmodk routing 1 ' "$run/osm.log")
		end=$(grep -c 'ibflow: eval of ibflow-dmodk routing 1 \(done:\|stopped during\|not run:\)' "$run/osm.log")
		[ "$n" -eq 1 ] && [ "$end" -eq 1 ] ||
			silent="$silent run $i: $n exported, $end end lines;"
		grep -o 'eval of ibflow-dmodk routing 1 \(done\|stopped\|not run\)[^(:]*' "$run/osm.log" >>"$dir/ends"
	done
	if [ -z "$silent" ]; then
		t_pass "opensm -o five times: each routing exported once and its evaluation ended in one line ($(sort "$dir/ends" | uniq -c | sed 's/^ *//' | tr '\n' ';'))"
	else
		t_fail "opensm -o: an end line per evaluation" "$silent"
	fi
	# a key given twice (the last wins: eval no), export_dir under a file
	: >"$dir/plain"
	printf 'eval yes\neval_budget 5\nexport_dir %s/plain/sub\n# appended\neval no\n' \
		"$dir" >"$dir/dup.conf"
	run=$dir/dup
	IBFLOW_OSM_CONF=$dir/dup.conf ibs_sweep "$run" 0 -F "$dir/osm.conf"
	if grep -q "ibflow: warning: $dir/dup.conf:5: eval set again (before at $dir/dup.conf:1): the last one wins" "$run/osm.log" &&
	   ! grep -q 'eval_budget set again\|export_dir set again' "$run/osm.log" &&
	   ! grep -q 'ibflow: eval of' "$run/osm.log"; then
		t_pass "ibflow.conf: eval given on lines 1 and 5: one warning naming both lines, the last (no) wins"
	else
		t_fail "ibflow.conf: duplicate key" "$(grep -m3 'ibflow: \(warning\|eval\)' "$run/osm.log")"
	fi
	if grep -q "ERR IBF08: export of ibflow-dmodk routing 1 failed: cannot create the export directory $dir/plain/sub: Not a directory (nothing written)" "$run/osm.log" &&
	   ! grep -q 'the manifest says so' "$run/osm.log"; then
		t_pass "export_dir under a regular file: ERR IBF08 says the directory cannot be made, claims no manifest"
	else
		t_fail "export_dir under a file" "$(grep -m2 'IBF08' "$run/osm.log")"
	fi
	printf 'eval no\nexport_dir %s/plain\n' "$dir" >"$dir/file.conf"
	run=$dir/file
	IBFLOW_OSM_CONF=$dir/file.conf ibs_sweep "$run" 0 -F "$dir/osm.conf"
	if grep -q "ERR IBF08: export of ibflow-dmodk routing 1 to $dir/plain failed (no manifest written): " "$run/osm.log"; then
		t_pass "export_dir a regular file: ERR IBF08 says no manifest was written"
	else
		t_fail "export_dir a file" "$(grep -m2 'IBF08' "$run/osm.log")"
	fi
	ibs_stop
else
	t_fail "once: ibsim" "$(head -c 300 "$dir/ibsim.err")"
fi
}

# ---- evaluation: stopped at once, memory bounded --------------------------
want eval && {
dir=$T_TMP/eval
mkdir -p "$dir"
"$IBF" gen pgft:3:6,6,12:1,6,6:1,1,1 --format ibsim -o "$dir/net" >/dev/null
if ibs_start_console "$dir/net" "$dir"; then
	# 20,000 instances of random:8 on 432 hosts after a quick perm: about
	# two minutes of work on a quiet machine (0.7 s per 100), to be
	# interrupted in the middle of a pattern.  (Four alltoalls, 0.1 s
	# each unloaded, were over before the Unlink arrived.)
	osm_start "$dir" "ibflow-dmodk,minhop" \
		"eval_patterns perm,random:8:20000" \
		"eval_budget 600"
	wait_routing "$dir" 1
	for _ in $(seq 100); do
		[ "$(count 'eval ibflow-dmodk' "$dir/osm.log")" -ge 1 ] && break
		sleep 0.1
	done
	ibs_console "Unlink \"$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)".*"s3-0".*/\1/p' "$dir/net" | head -1)\""
	for _ in $(seq 300); do
		grep -q 'stopped during .*: a newer routing replaces it' "$dir/osm.log" && break
		sleep 0.1
	done
	if grep -q 'eval of ibflow-dmodk routing 1 stopped during .*: a newer routing replaces it' "$dir/osm.log"; then
		t_pass "eval: a newer routing stops the running evaluation ($(grep -o 'stopped [0-9]* ms after it was asked, process gone [0-9]* ms later' "$dir/osm.log" | head -1))"
	else
		t_fail "eval: a newer routing stops the evaluation" "$(grep 'eval' "$dir/osm.log" | tail -2)"
	fi
	wait_routing "$dir" 2
	for _ in $(seq 100); do
		[ "$(count 'eval ibflow-dmodk  *perm' "$dir/osm.log")" -ge 2 ] && break
		sleep 0.1
	done
	t0=$(date +%s.%N)
	kill -TERM "$OSM_PID"
	wait "$OSM_PID" 2>/dev/null
	t1=$(date +%s.%N)
	OSM_PID=
	if grep -q 'stopped during .*: OpenSM is shutting down' "$dir/osm.log"; then
		t_pass "eval: SIGTERM stops the evaluation with its own log line ($(grep 'OpenSM is shutting down' "$dir/osm.log" | grep -o 'stopped [0-9]* ms after it was asked, process gone [0-9]* ms later' | head -1); OpenSM gone $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s after SIGTERM)"
	else
		t_fail "eval: SIGTERM stops the evaluation" "$(grep 'eval' "$dir/osm.log" | tail -2)"
	fi
	if ! grep -q 'cancelled by a newer routing' "$dir/osm.log"; then
		t_pass "eval: no misleading 'cancelled by a newer routing' at shutdown"
	else
		t_fail "eval: no misleading log line" "$(grep -m1 'cancelled' "$dir/osm.log")"
	fi
	# a memory limit the alltoall cannot fit in
	rm -f "$dir/osm.log" "$dir/ibflow-eval.json"
	osm_start "$dir" "ibflow-dmodk,minhop" "eval_patterns perm,alltoall" \
		"eval_memory_mb 16" "eval_budget 300"
	wait_routing "$dir" 1
	for _ in $(seq 300); do
		[ -f "$dir/ibflow-eval.json" ] && break
		sleep 0.1
	done
	if grep -q 'ERR IBF11: eval of ibflow-dmodk on alltoall needs more than eval_memory_mb 16 MB\|ERR IBF13: evaluation of ibflow-dmodk ended abnormally' "$dir/osm.log" &&
	   grep -q 'eval ibflow-dmodk  *perm ' "$dir/osm.log" &&
	   python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(0 if [p["name"] for p in d["patterns"]] == ["perm"] and d["skipped"][0]["name"] == "alltoall" else 1)' "$dir/ibflow-eval.json"; then
		t_pass "eval: eval_memory_mb 16: alltoall skipped for memory, perm evaluated, OpenSM unharmed"
	else
		t_fail "eval: memory limit" "$(grep -m2 'IBF1[13]\|eval ibflow' "$dir/osm.log")"
	fi
	if kill -0 "$OSM_PID" 2>/dev/null; then
		t_pass "eval: OpenSM still running after the evaluation hit its memory limit"
	else
		t_fail "eval: OpenSM still running" "exited"
	fi
	osm_stop
	ibs_stop
else
	t_fail "eval: ibsim" "$(tail -3 "$dir/ibsim.log")"
fi
}

t_done
