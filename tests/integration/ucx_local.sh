#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# libibflow_ucx and ibflow-probe on one machine, real UCX processes (tcp,
# shared memory): the UCX_IBFLOW_* table in `ucx_info -cf` (library
# preloaded) and errors naming the variable, the exported symbols, probes
# among several processes (own bootstrap and mpirun), fabric-aware runs
# with a host map (plan, files probe-solve reads back), every way a
# process can fail to be mapped (the message names the process), fabric
# directories that are not one consistent set, and bootstrap failures.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"

W=$T_TMP
B=$T_BUILD_DIR
PROBE=$B/ucx_component/ibflow-probe
LIB=$B/ucx_component/.libs/libibflow_ucx.so
HDR=$T_REPO/ucx_component/include/ibflow/ucx.h
export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Short waits: a failing case must not hold the suite for a minute.
export UCX_IBFLOW_TIMEOUT=20s

if [ ! -x "$PROBE" ] || [ ! -f "$LIB" ]; then
	t_skip ucx_local "the UCX component is not built (see configure's summary)"
	t_done
fi
for v in $(env | sed -n 's/^\(UCX_IBFLOW_[A-Z_]*\)=.*/\1/p'); do
	[ "$v" = UCX_IBFLOW_TIMEOUT ] || unset "$v"
done

VARS="FABRIC HOSTMAP ADDRMAP LID_OFFSET FALLBACK NET_DEVICES TLS TIMEOUT
PROBE_STALL PROBE_MAX PROBE_RUNS PROBE_WARMUP PROBE_SIZE PROBE_TRIES
PROBE_MODEL PROBE_ROUNDS PROBE_SPIN PROBE_CONCURRENCY ALLTOALL ALLTOALL_THRESH ALLTOALL_SYNC
ALLTOALL_GAIN ALLTOALL_SEGMENT ALLTOALL_TRACE CTL_LANE CTL_SL CTL_TCLASS CTL_TCP_PORTS
ROUTE_SL
INFER_TOL INFER_PARALLEL INFER_IN_FLIGHT BCAST BCAST_THRESH BCAST_CHUNK"

# ---- configuration in UCX's own listing ------------------------------------
if t_need ucx_info; then
	LD_PRELOAD=$LIB ucx_info -cf >"$W/info" 2>"$W/info.err"
	miss=
	for v in $VARS; do
		# each variable with a documentation comment above it
		awk -v v="UCX_IBFLOW_$v=" 'index($0, v) == 1 { ok = (prev ~ /^#/) }
			{ prev = $0 } END { exit !ok }' "$W/info" || miss="$miss $v"
	done
	n=$(grep -c '^UCX_IBFLOW_' "$W/info")
	nv=$(echo $VARS | wc -w)
	[ -z "$miss" ] && [ "$n" -eq "$nv" ] &&
		t_pass "ucx_info -cf (preloaded) lists the $nv UCX_IBFLOW_ variables with docs" ||
		t_fail "ucx_info -cf lists UCX_IBFLOW_*" "missing:$miss; $n listed"
	ucx_info -cf >"$W/info0" 2>&1
	grep -q '^UCX_IBFLOW_' "$W/info0" &&
		t_fail "ucx_info -cf without the library" "lists UCX_IBFLOW_" ||
		t_pass "ucx_info -cf without the library lists none"
	# UCX counts a variable parsed at load as used: no warning.
	UCX_IBFLOW_PROBE_RUNS=2 UCX_WARN_UNUSED_ENV_VARS=y "$PROBE" --np 2 \
		--quiet >"$W/o" 2>"$W/e"
	rc=$?
	[ $rc -eq 0 ] && ! grep -q "unused env" "$W/e" &&
		t_pass "UCX_IBFLOW_PROBE_RUNS=2: run ok, no 'unused env variable' warning" ||
		t_fail "no unused-variable warning" "rc $rc: $(head -c 300 "$W/e")"
else
	t_skip "ucx_info -cf" "ucx_info not installed (ucx-utils)"
fi

# Malformed values: exit 2, the message names the variable.
bad_var() { # VAR VALUE
	t_expect_exit 2 env "UCX_IBFLOW_$1=$2" "$PROBE" --np 2
	if [ "$T_RC" -eq 2 ] && grep -q "UCX_IBFLOW_$1: invalid value '$2'" "$T_ERR"; then
		t_pass "UCX_IBFLOW_$1=$2 refused, named"
	else
		t_fail "UCX_IBFLOW_$1=$2 refused" "exit $T_RC: $(t_errhead)"
	fi
}
bad_var PROBE_STALL -1
bad_var PROBE_RUNS abc
bad_var TIMEOUT 0
bad_var LID_OFFSET 200
bad_var PROBE_ROUNDS sometimes
bad_var PROBE_MODEL both
bad_var ALLTOALL sometimes
bad_var ALLTOALL_THRESH -1
bad_var ALLTOALL_THRESH 2000000000
bad_var ALLTOALL_SYNC never
bad_var CTL_SL 16
bad_var ALLTOALL_GAIN -1
bad_var ALLTOALL_GAIN 2x
bad_var CTL_TCLASS 256
bad_var INFER_TOL 2s
bad_var BCAST always
bad_var BCAST_CHUNK 0
# FABRIC=infer itself: ucx_infer.sh
t_expect_exit 2 env UCX_IBFLOW_PROBE_RUNZ=3 "$PROBE" --np 2
grep -q "UCX_IBFLOW_PROBE_RUNZ: unknown variable" "$T_ERR" &&
	t_pass "unknown UCX_IBFLOW_PROBE_RUNZ refused, named" ||
	t_fail "unknown variable" "exit $T_RC: $(t_errhead)"

# ---- UCX's devices and transports named by UCX_IBFLOW_NET_DEVICES / _TLS --
# Over tcp and self only (shared memory would reach the local peers
# whatever the network devices), as the trial that found these.
# Empty restricts nothing: no device list made of stray memory reaches
# UCX (it warned "network device '<garbage>' is not available").
t_expect_exit 0 env UCX_TLS=tcp,self UCX_LOG_LEVEL=warn UCX_IBFLOW_NET_DEVICES= "$PROBE" --np 2 --quiet
[ "$T_RC" -eq 0 ] && ! grep -q "is not available" "$T_ERR" &&
	t_pass "UCX_IBFLOW_NET_DEVICES= (empty): run ok, no device named to UCX" ||
	t_fail "UCX_IBFLOW_NET_DEVICES= (empty)" "exit $T_RC: $(t_errhead)"
# A device UCX does not know: refused at context creation (exit 2, not a
# timeout), naming the variable and the devices UCX does list.
t_expect_exit 2 env UCX_TLS=tcp,self UCX_IBFLOW_TIMEOUT=600s UCX_IBFLOW_NET_DEVICES=abc timeout 60 "$PROBE" --np 2
if [ "$T_RC" -eq 2 ] && grep -q "UCX_IBFLOW_NET_DEVICES=abc: no such device (available: .*lo" "$T_ERR"; then
	t_pass "UCX_IBFLOW_NET_DEVICES=abc: exit 2 at once, named, devices listed"
else
	t_fail "UCX_IBFLOW_NET_DEVICES=abc refused" "exit $T_RC: $(t_errhead)"
fi
# Any device UCX lists is taken (loopback is always up).
t_expect_exit 0 env UCX_TLS=tcp,self UCX_IBFLOW_NET_DEVICES=lo "$PROBE" --np 2 --quiet
[ "$T_RC" -eq 0 ] &&
	t_pass "UCX_IBFLOW_NET_DEVICES=lo: run ok" ||
	t_fail "UCX_IBFLOW_NET_DEVICES=lo" "exit $T_RC: $(t_errhead)"
t_expect_exit 2 env UCX_IBFLOW_TIMEOUT=600s UCX_IBFLOW_TLS=abc timeout 60 "$PROBE" --np 2
if [ "$T_RC" -eq 2 ] && grep -q "UCX_IBFLOW_TLS=abc: no such transport.*transports here: .*tcp" "$T_ERR"; then
	t_pass "UCX_IBFLOW_TLS=abc: exit 2 at once, named, transports listed"
else
	t_fail "UCX_IBFLOW_TLS=abc refused" "exit $T_RC: $(t_errhead)"
fi

# ---- memory errors: the tool under valgrind ------------------------------------
# memcheck follows the forked ranks; UCX's own suppressions are not
# needed for these paths (an error exits 99).
if t_need valgrind; then
	for np in 1 2; do
		t_expect_exit 0 env UCX_IBFLOW_NET_DEVICES= timeout 300 valgrind -q \
			--error-exitcode=99 --child-silent-after-fork=no \
			"$B/ucx_component/.libs/ibflow-probe" --np $np --quiet
		[ "$T_RC" -eq 0 ] &&
			t_pass "valgrind ibflow-probe --np $np: no memory errors" ||
			t_fail "valgrind ibflow-probe --np $np" "exit $T_RC: $(grep -m3 -v WARNING "$T_ERR" | tr '\n' ' ')"
	done
else
	t_skip "valgrind ibflow-probe" "valgrind not installed"
fi

# ---- usage errors name the option ------------------------------------------------
t_expect_exit 2 "$PROBE" -xq
grep -q "^ibflow-probe: unknown option '-x'" "$T_ERR" &&
	t_pass "-xq: unknown option '-x' named" ||
	t_fail "-xq named" "exit $T_RC: $(t_errhead)"
t_expect_exit 2 "$PROBE" --np
grep -q "^ibflow-probe: --np needs a value" "$T_ERR" &&
	t_pass "--np without value: named" ||
	t_fail "--np without value" "exit $T_RC: $(t_errhead)"

# ---- a rank stopped: the parent of --np kills it after the timeout ------------
ucx_stopped_child "ibflow-probe --np 3, rank 2 SIGSTOPped" \
	env UCX_IBFLOW_TIMEOUT=3s UCX_IBFLOW_PROBE_RUNS=200 \
	UCX_IBFLOW_PROBE_STALL=1000 UCX_IBFLOW_PROBE_MAX=1000 "$PROBE" --np 3 --quiet

# ---- exports: exactly the functions the header declares -------------------
if t_need nm; then
	nm -D --defined-only "$LIB" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' |
		sort >"$W/exports"
	sed -n 's/^[a-z_0-9 ]*[ *]\(ibf_ucx_[a-z_0-9]*\)(.*/\1/p' "$HDR" | sort -u >"$W/declared"
	if ! grep -qv '^ibf_ucx_' "$W/exports" && cmp -s "$W/exports" "$W/declared"; then
		t_pass "nm -D: only ibf_ucx_* exported, all $(wc -l <"$W/exports") declared functions"
	else
		t_fail "nm -D exports" "$(diff "$W/declared" "$W/exports" | head -5 | tr '\n' ' ')"
	fi
else
	t_skip "nm -D exports" "nm not installed"
fi

# ---- probes among local processes, topology-unaware ------------------------
# check_unaware JSON N: N processes, every pair measured once, sane values,
# the run counts the repeat rule allows, the matrix the measurements.
check_unaware() {
	python3 - "$1" "$2" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert d["all_pairs"] and not d["topology_aware"], "mode"
assert len(d["hosts"]) == n and d["processes"] == n
ms = d["measurements"]
pairs = {frozenset((m["a"], m["b"])) for m in ms}
assert len(ms) == n * (n - 1) // 2 == len(pairs), len(ms)
assert d["rounds"] == len(ms)
# Repeat rule: per run at least STALL+1 = 11 exchanges, at most 30; 3 runs.
for m in ms:
    assert 0 < m["rtt_min"] <= m["rtt_max"], m
    assert 33 <= m["exchanges"] <= 90, m
idx = {h: i for i, h in enumerate(d["hosts"])}
mat = d["matrix"]
for m in ms:
    i, j = idx[m["a"]], idx[m["b"]]
    assert mat[i][j] == mat[j][i] == m["rtt_min"]
for i in range(n):
    assert mat[i][i] is None
PY
}
for tls in tcp shm; do
	if UCX_IBFLOW_TLS=$tls "$PROBE" --np 4 --json "$W/u-$tls.json" \
		>"$W/u-$tls.out" 2>"$W/u-$tls.err" &&
	   check_unaware "$W/u-$tls.json" 4 2>"$W/u-$tls.py"; then
		t_pass "4 processes over $tls: all 6 pairs measured, repeat rule held"
	else
		t_fail "4 processes over $tls" "$(head -c 300 "$W/u-$tls.err" "$W/u-$tls.py")"
	fi
done

if t_need mpirun; then
	port=$((20000 + RANDOM % 20000))
	if timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 \
		-x LD_LIBRARY_PATH -x UCX_IBFLOW_TIMEOUT \
		-x IBFLOW_BOOT_ADDR=127.0.0.1:$port \
		"$PROBE" --json "$W/mpi.json" >"$W/mpi.out" 2>"$W/mpi.err" &&
	   check_unaware "$W/mpi.json" 3 2>"$W/mpi.py"; then
		t_pass "mpirun -np 3: ranks from OMPI_COMM_WORLD_*, all pairs measured"
	else
		t_fail "mpirun -np 3" "$(head -c 300 "$W/mpi.err" "$W/mpi.py")"
	fi
else
	t_skip "mpirun -np 3" "mpirun not installed"
fi

# ---- a fabric, processes mapped by HOSTMAP ------------------------------------
F=$W/fab
mkdir -p "$F"
"$t_ibflow" gen xgft:2:4,2:1,2 -o "$F/ibflow-topology.ibnd" &&
	"$t_ibflow" route --topo "$F/ibflow-topology.ibnd" --engine dmodk \
		-o "$F/ibflow-lfts.dump" >/dev/null
manifest() { # DIR ENDPOINTS [ROUTING]: 8 hosts, 2 leaves, 2 spines
	{
		echo "# written by ucx_local.sh"
		echo "engine ibflow-dmodk"
		echo "routing ${3:-7}"
		echo "endpoints $2"
		echo "switches 4"
		echo "lmc 0"
		echo "topology ibflow-topology.ibnd"
		echo "lfts ibflow-lfts.dump"
	} >"$1/ibflow-export.txt"
}
manifest "$F" 8
for i in 0 1 2 3 4 5 6 7; do echo "rank:$i \"h000$i HCA-1\""; done >"$W/map8"

if UCX_IBFLOW_FABRIC=$F UCX_IBFLOW_HOSTMAP=$W/map8 "$PROBE" --np 8 \
	--verbose --json "$W/p.json" --rtt-out "$W/p.rtt" \
	--plan-out "$W/p.plan" >"$W/p.out" 2>"$W/p.err"; then
	t_pass "8 processes on an 8-host fabric (HOSTMAP): planned run"
else
	t_fail "planned run" "$(head -c 300 "$W/p.err")"
fi
# UCX sends on one SL: a routing that needs more (its SL file) is said
# once, by rank 0; one without an SL file is not.
if grep -q 'deadlock-free only with its' "$W/p.err"; then
	t_fail "no SL file: no warning about SLs" "$(head -c 300 "$W/p.err")"
else
	t_pass "no SL file: no warning about SLs"
fi
F2=$W/fab-sl
mkdir -p "$F2"
cp "$F"/ibflow-* "$F2/"
lid=$(grep -m1 -o '# lid [0-9]*' "$F2/ibflow-topology.ibnd" | awk '{ print $3 }')
printf '* %s 1\n' "$lid" >"$F2/ibflow-sl.txt"
if UCX_IBFLOW_FABRIC=$F2 UCX_IBFLOW_HOSTMAP=$W/map8 UCX_IB_SL=0 "$PROBE" \
	--np 2 --quiet >"$W/sl.out" 2>"$W/sl.err" &&
   [ "$(grep -c 'warning: UCX_IBFLOW_FABRIC=.*deadlock-free only with its 2 SLs.*UCX_IB_SL=0' "$W/sl.err")" -eq 1 ]; then
	t_pass "SL file with 2 SLs: rank 0 warns once that UCX sends on UCX_IB_SL only"
else
	t_fail "SL file with 2 SLs: one warning" "$(head -c 300 "$W/sl.err")"
fi
grep -q 'rank 5: host 5 h0005 HCA-1 via UCX_IBFLOW_HOSTMAP rank rank:5' "$W/p.out" &&
	t_pass "--verbose: rank 5 mapped by HOSTMAP line rank:5" ||
	t_fail "--verbose mapping" "$(grep 'rank 5' "$W/p.out")"
# The plan as ibflow probe-plan makes it for the same hosts, and the
# prediction as ibflow probe-solve computes it from the files written.
for i in 0 1 2 3 4 5 6 7; do echo "h000$i HCA-1"; done >"$W/hosts8"
"$t_ibflow" probe-plan --topo "$F/ibflow-topology.ibnd" --lfts "$F/ibflow-lfts.dump" \
	--hosts "$W/hosts8" --json "$W/cli.plan" >/dev/null
"$t_ibflow" probe-solve --plan "$W/p.plan" --rtt "$W/p.rtt" --json "$W/cli.sol" \
	>/dev/null 2>"$W/solve.err"
if python3 - "$W" <<'PY' 2>"$W/p.py"; then
import json, sys
w = sys.argv[1]
d = json.load(open(w + "/p.json"))
cli = json.load(open(w + "/cli.plan"))
sol = json.load(open(w + "/cli.sol"))
assert d["topology_aware"] and not d["all_pairs"]
assert d["plan_rank"] == cli["rank"] == len(d["measurements"]), (d["plan_rank"], cli["rank"])
assert d["rounds"] == len(cli["rounds"])
# each round: no host twice; a pair's round as the plan has it
rounds = {}
for m in d["measurements"]:
    rounds.setdefault(m["round"], []).extend([m["a"], m["b"]])
for r, hs in rounds.items():
    assert len(hs) == len(set(hs)), r
want = {frozenset(p): k for k, r in enumerate(cli["rounds"]) for p in r}
for m in d["measurements"]:
    assert want[frozenset((m["a"], m["b"]))] == m["round"], m
# matrix: measured pairs exactly, the others as probe-solve predicts
idx = {h: i for i, h in enumerate(d["hosts"])}
mat = d["matrix"]
for m in d["measurements"]:
    assert abs(mat[idx[m["a"]]][idx[m["b"]]] - m["rtt_min"]) < 1e-6 * m["rtt_min"] + 1e-9
for p in sol["pairs"]:
    i, j = idx[p["a"]], idx[p["b"]]
    assert abs(mat[i][j] - p["rtt"]) <= 1e-3, (p, mat[i][j])
    assert mat[i][j] == mat[j][i]
assert len(sol["pairs"]) == 8 * 7 // 2
PY
	t_pass "plan = ibflow probe-plan's (rank, rounds, pairs per round); matrix = probe-solve of the written files"
else
	t_fail "planned run checked" "$(tail -c 300 "$W/p.py") $(head -c 200 "$W/solve.err")"
fi
# UCX_IBFLOW_PROBE_MODEL=symmetric: the plan probe-plan --model symmetric
# makes (fewer pairs), recorded in the plan file, and solved so.
"$t_ibflow" probe-plan --topo "$F/ibflow-topology.ibnd" --lfts "$F/ibflow-lfts.dump" \
	--hosts "$W/hosts8" --model symmetric --json "$W/clis.plan" >/dev/null
if UCX_IBFLOW_PROBE_MODEL=symmetric UCX_IBFLOW_FABRIC=$F \
	UCX_IBFLOW_HOSTMAP=$W/map8 "$PROBE" --np 8 --json "$W/ps.json" \
	--plan-out "$W/ps.plan" >"$W/ps.out" 2>"$W/ps.err" &&
   python3 - "$W" <<'PY' 2>"$W/ps.py"; then
import json, sys
w = sys.argv[1]
d, p = json.load(open(w + "/ps.json")), json.load(open(w + "/ps.plan"))
cli, dr = json.load(open(w + "/clis.plan")), json.load(open(w + "/cli.plan"))
assert p["model"] == cli["model"] == d["model"] == "symmetric", (p["model"], d.get("model"))
assert d["plan_rank"] == cli["rank"] == len(d["measurements"]) < dr["rank"], (d["plan_rank"], cli["rank"], dr["rank"])
assert d["rounds"] == len(cli["rounds"])
PY
	t_pass "UCX_IBFLOW_PROBE_MODEL=symmetric: plan = probe-plan --model symmetric's (rank $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rank"])' "$W/clis.plan") < directed's), model in the plan and solution"
else
	t_fail "PROBE_MODEL=symmetric" "$(head -c 300 "$W/ps.err" "$W/ps.py")"
fi
# Two processes on one endpoint: one host, probed by its leader.
sed 's/^rank:7 .*/rank:7 "h0000 HCA-1"/' "$W/map8" >"$W/map7"
if UCX_IBFLOW_FABRIC=$F UCX_IBFLOW_HOSTMAP=$W/map7 "$PROBE" --np 8 \
	--all-pairs --json "$W/s.json" >"$W/s.out" 2>"$W/s.err" &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert len(d["hosts"]) == 7 and d["processes"] == 8
assert len(d["measurements"]) == 21' "$W/s.json" 2>"$W/s.py"; then
	t_pass "ranks 0 and 7 on one endpoint: 7 hosts, 21 pairs"
else
	t_fail "shared endpoint" "$(head -c 300 "$W/s.err" "$W/s.py")"
fi

# The fabric-aware path under valgrind too: export directory, host map,
# plan and the planned probes.
if t_need valgrind; then
	t_expect_exit 0 env UCX_IBFLOW_FABRIC="$F" UCX_IBFLOW_HOSTMAP="$W/map8" \
		timeout 300 valgrind -q --error-exitcode=99 \
		"$B/ucx_component/.libs/ibflow-probe" --np 2 --quiet
	[ "$T_RC" -eq 0 ] &&
		t_pass "valgrind ibflow-probe --np 2 on the fabric (HOSTMAP): no memory errors" ||
		t_fail "valgrind fabric-aware probe" "exit $T_RC: $(grep -m3 -v WARNING "$T_ERR" | tr '\n' ' ')"
fi

# ---- mapping failures name the process -----------------------------------------
head -3 "$W/map8" >"$W/map3"
t_expect_exit 2 env UCX_IBFLOW_FABRIC="$F" UCX_IBFLOW_HOSTMAP="$W/map3" "$PROBE" --np 4
if grep -q "process 3 (.* pid [0-9]*): no fabric endpoint: no line of $W/map3 matches rank 3" "$T_ERR" &&
   ! grep -q "process [012] (" "$T_ERR"; then
	t_pass "HOSTMAP without rank 3: 'process 3 (host pid N): no fabric endpoint: ...' and why"
else
	t_fail "unmapped process named" "exit $T_RC: $(t_errhead)"
fi
# Hostname: the machine's name is no host part of h0000..h0007.
t_expect_exit 2 env UCX_IBFLOW_FABRIC="$F" "$PROBE" --np 2
grep -q "process 0 (.*: no fabric endpoint: .*hostname $(hostname) is the host part of no NodeDescription" "$T_ERR" &&
	t_pass "no map: the failure says hostname $(hostname) matched no NodeDescription" ||
	t_fail "hostname mapping failure" "exit $T_RC: $(t_errhead)"
t_expect_exit 0 env UCX_IBFLOW_FABRIC="$F" UCX_IBFLOW_HOSTMAP="$W/map3" \
	"$PROBE" --np 4 --fallback --verbose
grep -q "topology-unaware: process 3 " "$T_OUT" && grep -q "measured all 6 pairs" "$T_OUT" &&
	t_pass "--fallback: topology-unaware all-pairs run, the reason printed" ||
	t_fail "--fallback" "exit $T_RC: $(head -c 300 "$T_OUT") $(t_errhead)"
{ cat "$W/map3"; echo 'rank:3 "nope HCA-1"'; } >"$W/mapbad"
t_expect_exit 2 env UCX_IBFLOW_FABRIC="$F" UCX_IBFLOW_HOSTMAP="$W/mapbad" "$PROBE" --np 4
grep -q "UCX_IBFLOW_HOSTMAP: $W/mapbad:4: host \"nope HCA-1\"" "$T_ERR" &&
	t_pass "HOSTMAP line naming no host: FILE:LINE" ||
	t_fail "bad HOSTMAP line" "exit $T_RC: $(t_errhead)"

# ---- fabric directories that are not one consistent set --------------------------
bad_dir() { # NAME PATTERN (the directory is $W/bad)
	t_expect_exit 2 env UCX_IBFLOW_FABRIC="$W/bad" UCX_IBFLOW_HOSTMAP="$W/map8" \
		"$PROBE" --np 2
	if grep -q -- "$2" "$T_ERR"; then t_pass "$1"; else
		t_fail "$1" "exit $T_RC: $(t_errhead)"; fi
}
rm -rf "$W/bad" && mkdir "$W/bad"
bad_dir "no manifest: exit 2, named" "$W/bad/ibflow-export.txt"
cp "$F"/ibflow-* "$W/bad/" && manifest "$W/bad" 9
bad_dir "manifest of 9 endpoints, topology of 8: mismatched set" "states endpoints 9, the topology has 8: mismatched set"
manifest "$W/bad" 8 8
{ echo "# routing 7"; cat "$F/ibflow-lfts.dump"; } >"$W/bad/ibflow-lfts.dump"
bad_dir "LFTs of routing 7, manifest of routing 8: mismatched set" "is from routing 7, the manifest from routing 8: mismatched set"
manifest "$W/bad" 8 7
t_expect_exit 0 env UCX_IBFLOW_FABRIC="$W/bad" UCX_IBFLOW_HOSTMAP="$W/map8" "$PROBE" --np 2 --quiet
[ "$T_RC" -eq 0 ] && t_pass "LFTs and manifest of routing 7: accepted" ||
	t_fail "matching generation accepted" "exit $T_RC: $(t_errhead)"
sed -i '/^lfts /d' "$W/bad/ibflow-export.txt"
bad_dir "manifest naming no LFTs" "names no lfts"
# The LFT dump cut at a table boundary (2 of the 4 switch tables): every
# line reads, so only counting the tables against the topology tells.
manifest "$W/bad" 8 7
awk '/^Unicast lids/ { n++ } n <= 2' "$F/ibflow-lfts.dump" >"$W/bad/ibflow-lfts.dump"
[ "$(grep -c '^Unicast lids' "$W/bad/ibflow-lfts.dump")" -eq 2 ] ||
	t_fail "LFT dump cut to 2 tables" "the cut went wrong"
bad_dir "LFT dump cut after 2 of 4 switch tables: refused, file named" \
	"ibflow-lfts.dump: tables for 2 of the topology's 4 switches"

# The OpenSM plugin's manifest format 1: generation, status, four files
# with sizes, each headed by its generation (docs/formats-routing.md),
# read through libibflow's ibf_export_load().
"$t_ibflow" route --topo "$F/ibflow-topology.ibnd" --engine dmodk -o "$W/x.lfts" \
	--order-out "$W/x.order" --sl-out "$W/x.sl" >/dev/null
export1() { # DIR GEN STATUS [LFTS_GEN [LFTS_BYTES_DELTA]]
	local d=$1 g=$2 k f n
	rm -f "$d"/ibflow-*
	{ echo "# ibflow export $g"; cat "$F/ibflow-topology.ibnd"; } >"$d/ibflow-topology.ibnd"
	{ echo "# ibflow export ${4:-$g}"; cat "$W/x.lfts"; } >"$d/ibflow-lfts.dump"
	{ echo "# ibflow export $g"; cat "$W/x.order"; } >"$d/ibflow-order.txt"
	{ echo "# ibflow export $g"; cat "$W/x.sl"; } >"$d/ibflow-sl.txt"
	{
		printf '# ibflow export manifest\nformat 1\ngeneration %s\nstatus %s\n' "$g" "$3"
		printf 'engine ibflow-dmodk\nrouting 12\nendpoints 8\nswitches 4\nlmc 0\nsls 1\n'
		for k in topology:ibflow-topology.ibnd lfts:ibflow-lfts.dump \
			 order:ibflow-order.txt sl:ibflow-sl.txt; do
			f=${k#*:}
			n=$(stat -c %s "$d/$f")
			[ "$f" = ibflow-lfts.dump ] && n=$((n + ${5:-0}))
			echo "file ${k%%:*} $f $n"
		done
	} >"$d/ibflow-export.txt"
}
export1 "$W/bad" 80b648bb438b05cd-12 complete
t_expect_exit 0 env UCX_IBFLOW_FABRIC="$W/bad" UCX_IBFLOW_HOSTMAP="$W/map8" "$PROBE" --np 2 --quiet
[ "$T_RC" -eq 0 ] && t_pass "plugin manifest format 1, status complete, generations and sizes agree: accepted" ||
	t_fail "format 1 complete accepted" "exit $T_RC: $(t_errhead)"
export1 "$W/bad" 80b648bb438b05cd-12 writing
bad_dir "format 1, status writing: refused after retries" "generation 80b648bb438b05cd-12 is being written"
export1 "$W/bad" 80b648bb438b05cd-12 "failed topology does not read back"
bad_dir "format 1, status failed: refused with the reason" "the export of generation 80b648bb438b05cd-12 failed: topology does not read back"
export1 "$W/bad" 80b648bb438b05cd-12 complete 80b648bb438b05cd-11
bad_dir "format 1, LFTs of the previous generation: mismatched set" "ibflow-lfts.dump: not generation 80b648bb438b05cd-12 of the manifest"
export1 "$W/bad" 80b648bb438b05cd-12 complete 80b648bb438b05cd-12 5
bad_dir "format 1, LFT file size other than the manifest's" "bytes, the manifest says"

# ---- bootstrap ---------------------------------------------------------------------
t_expect_exit 2 env -u IBFLOW_BOOT_ADDR "$PROBE"
grep -q "IBFLOW_BOOT_ADDR is not set" "$T_ERR" &&
	t_pass "no bootstrap address: exit 2 naming IBFLOW_BOOT_ADDR" ||
	t_fail "missing IBFLOW_BOOT_ADDR" "exit $T_RC: $(t_errhead)"
port=$((20000 + RANDOM % 20000))
UCX_IBFLOW_TIMEOUT=3s "$PROBE" --boot 127.0.0.1:$port --rank 1 --size 3 \
	>/dev/null 2>"$W/r1.err" &
t_expect_exit 3 env UCX_IBFLOW_TIMEOUT=3s "$PROBE" --boot 127.0.0.1:$port --rank 0 --size 3
wait
grep -q "2 of 3 processes connected within 3 s (rank 2 missing)" "$T_ERR" &&
	t_pass "rank 2 never started: rank 0 exits 3 naming it" ||
	t_fail "missing rank" "exit $T_RC: $(t_errhead)"

t_done
