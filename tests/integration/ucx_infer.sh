#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Topology inference over UCX: ibflow-infer and UCX_IBFLOW_FABRIC=infer
# with real UCX processes.
#
# On one machine (tcp): RTTs are flat (every pair the same path through
# the kernel), so the tree itself means nothing here; what is checked is
# the structure, by this script's own readers:
#  - ibflow-infer runs, measures fewer pairs than all, and the count it
#    prints is the number of distinct pairs in its trace;
#  - the topology file (t_canon_topo, lib.sh's awk reader) holds every
#    process as a host exactly once and is a tree (connected, links =
#    nodes - 1); `ibflow route --engine minhop` + `ibflow check` read it;
#  - the trace replays offline (`ibflow infer --rtt`) to the very same
#    topology file: the live oracle drove the same algorithm;
#  - UCX_IBFLOW_FABRIC=infer: ibflow-probe runs topology-aware on the
#    inferred tree (hosts = the processes, links over infer-s switches),
#    and MPI_Alltoall through libibflow_mpi takes the liquid path on it
#    with results equal to PMPI's;
#  - bad configuration and usage exit 2 naming what is wrong.
# On an emulated fabric (scripts/netns-fabric, a 3-switch chain of 6
# hosts, one process per host namespace over the fabric interface): the
# ping-pongs cross the emulated switches (packet counters), every host is
# in the tree.  Whether the tree can come from hop counts is judged from
# the trace: per-hop latency (veth forwarding, well under a microsecond)
# against the scatter between pairs (tens of µs of wake-ups and TCP);
# without netem it is lost in it, and the comparison with the true tree
# is then skipped with the figures (tests/vm/ checks trees under netem
# delays).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"
# shellcheck source=../netns_lib.sh
. "$T_REPO/tests/netns_lib.sh"

W=$T_TMP
B=$T_BUILD_DIR
INFER=$B/ucx_component/ibflow-infer
PROBE=$B/ucx_component/ibflow-probe
CHECK=$B/tests/ucx/ibflow-a2a-check
MPILIB=$B/ucx_component/.libs/libibflow_mpi.so
CHAIN=ibfic
ucx_libpath

if [ ! -x "$INFER" ]; then
	t_skip ucx_infer "the UCX component is not built (see configure's summary)"
	t_done
fi
if ! t_need python3; then
	t_skip ucx_infer "python3 not installed"
	t_done
fi
ucx_env_clear
export UCX_IBFLOW_TIMEOUT=30s UCX_IBFLOW_TLS=tcp

# structure CANON TRACE NHOSTS PAIRS_PRINTED: hosts, tree shape, trace
# pairs (this script's reading of both files)
structure() {
	python3 - "$@" <<'PY'
import sys
canon, trace, n, printed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
typ, desc, adj = {}, {}, {}
for line in open(canon):
    f = line.split()
    if f[0] == "N":
        typ[f[2]] = f[1]; desc[f[2]] = " ".join(f[4:]).strip('"'); adj.setdefault(f[2], [])
    elif f[0] == "L":
        a, b = f[1].split(":")[0], f[2].split(":")[0]
        adj.setdefault(a, []).append(b); adj.setdefault(b, []).append(a)
hosts = sorted(desc[g] for g in typ if typ[g] != "Switch")
want = sorted("rank%d@" % r for r in range(n))
got = sorted(h.split("@")[0] + "@" for h in hosts)
assert got == want, ("hosts", hosts)
links = sum(len(v) for v in adj.values()) // 2
assert links == len(typ) - 1, ("not a tree", links, len(typ))
seen, st = {next(iter(adj))}, [next(iter(adj))]
while st:
    for u in adj[st.pop()]:
        if u not in seen:
            seen.add(u); st.append(u)
assert len(seen) == len(typ), "not connected"
pairs = set()
names = {h for h in hosts}
for line in open(trace):
    if line.startswith("#") or not line.strip():
        continue
    f = line.split()
    assert f[0] in names and f[1] in names and f[0] != f[1], line
    lo, hi = float(f[2]), float(f[-1])
    assert 0 < lo <= hi, line
    pairs.add(frozenset(f[:2]))
assert len(pairs) == printed, ("trace pairs", len(pairs), "printed", printed)
assert printed < n * (n - 1) // 2, ("all pairs measured", printed)
print("%d hosts, %d switches, tree; %d distinct pairs of %d in the trace"
      % (len(hosts), len(typ) - len(hosts), len(pairs), n * (n - 1) // 2))
PY
}

# cap_of OUT: the cap on pairs in flight a run reported (UCX_IBFLOW_INFER_
# IN_FLIGHT=auto: this machine's CPUs when the ranks outnumber them), or 0;
# a replay needs it
cap_of() {
	local c
	c=$(sed -n 's/^pairs in flight .* in flight at most \([0-9]*\) by the cap)$/\1/p' "$1")
	echo "${c:-0}"
}

# ---- one machine ------------------------------------------------------------
NP=10
if t_expect_exit 0 "$INFER" --np $NP --lookahead 2 -o "$W/l.topo" \
	--trace "$W/l.trace" --dot "$W/l.dot" --json "$W/l.json"; then
	cp "$T_OUT" "$W/l.out"
	t_pass "ibflow-infer --np $NP over tcp: $(sed -n 's/^\(pairs measured [0-9]* of [0-9]*\).*/\1/p' "$W/l.out"), $(sed -n 's/^time: total \([0-9.]*\) s.*/\1 s/p' "$W/l.out")"
	pairs=$(sed -n 's/^pairs measured \([0-9]*\) of.*/\1/p' "$W/l.out")
	t_canon_topo "$W/l.topo" >"$W/l.canon"
	if got=$(structure "$W/l.canon" "$W/l.trace" $NP "${pairs:-0}" 2>&1); then
		t_pass "topology and trace: $got"
	else
		t_fail "topology and trace structure" "$(echo "$got" | tail -2)"
	fi
	sw=$(sed -n 's/^hosts [0-9]*  switches inferred \([0-9]*\).*/\1/p' "$W/l.out")
	[ "$(grep -c -- '--' "$W/l.dot")" -eq $((NP + sw - 1)) ] &&
		t_pass "dot: $((NP + sw - 1)) edges (hosts + switches - 1)" ||
		t_fail "dot edges" "$(grep -c -- '--' "$W/l.dot") edges, $NP hosts $sw switches"
	if "$t_ibflow" route --topo "$W/l.topo" --engine minhop -o "$W/l.lfts" >/dev/null 2>"$W/route.err" &&
	   "$t_ibflow" check --topo "$W/l.topo" --lfts "$W/l.lfts" >"$W/check.out" 2>&1; then
		t_pass "ibflow route --engine minhop + check on the written topology: $(tail -1 "$W/check.out")"
	else
		t_fail "route/check the written topology" "$(cat "$W/route.err" "$W/check.out" | head -c 300)"
	fi
	# --tol 0: what the live run used (UCX_IBFLOW_INFER_TOL), not an estimate
	if "$t_ibflow" infer --rtt "$W/l.trace" --tol 0 --lookahead 2 --seed 1 \
		--in-flight "$(cap_of "$W/l.out")" \
		-o "$W/replay.topo" >/dev/null 2>"$W/replay.err" &&
	   cmp -s "$W/l.topo" "$W/replay.topo"; then
		t_pass "the trace replays offline (ibflow infer --rtt) to the same topology file"
	else
		t_fail "offline replay of the trace" "$(head -c 300 "$W/replay.err")"
	fi
	# INFER_IN_FLIGHT=auto: $NP ranks on this machine's CPUs
	ncpu=$(nproc)
	want=0
	[ "$NP" -gt "$ncpu" ] && want=$ncpu
	flights=$(sed -n 's/^pairs in flight at most \([0-9]*\),.*/\1/p' "$W/l.out")
	if [ "$(cap_of "$W/l.out")" = "$want" ] &&
	   { [ "$want" = 0 ] || [ "${flights:-99}" -le "$want" ]; }; then
		t_pass "INFER_IN_FLIGHT=auto: cap $want for $NP ranks on $ncpu CPUs (most in flight: $flights)"
	else
		t_fail "INFER_IN_FLIGHT=auto" "cap $(cap_of "$W/l.out"), want $want; most in flight $flights"
	fi
else
	t_fail "ibflow-infer --np $NP" "exit $T_RC: $(t_errhead)"
fi

# Parallel mode, both ways: --parallel 4 and UCX_IBFLOW_INFER_PARALLEL=4.
# The trace's flights (tests/trace_flights.py, no ibflow code): no host in
# two pairs in flight at once, at times more than one pair in flight, the
# most at once as printed; the replay with the same --parallel (pairs
# ending in the file's order) gives the same file, and the serial mode
# (--parallel 1) still replays too.
# replay_same TRACE TOPO N CAP: the offline replay with --parallel N,
# --in-flight CAP (and the live run's other options) gives TOPO byte for
# byte
replay_same() {
	"$t_ibflow" infer --rtt "$1" --tol 0 --lookahead 2 --seed 1 --parallel "$3" \
		--in-flight "$4" \
		-o "$1.replay" >/dev/null 2>"$W/replay.err" && cmp -s "$2" "$1.replay"
}
for how in "--parallel 4" "UCX_IBFLOW_INFER_PARALLEL=4"; do
	case $how in
	--*) cmd=("$INFER" --parallel 4) ;;
	*) cmd=(env "$how" "$INFER") ;;
	esac
	if t_expect_exit 0 "${cmd[@]}" --np $NP --lookahead 2 -o "$W/par.topo" \
		--trace "$W/par.trace"; then
		r=$(sed -n 's/^pairs in flight at most \([0-9]*\), .* (4 hosts at once[,)].*/\1/p' "$T_OUT")
		if got=$(python3 "$T_REPO/tests/trace_flights.py" "$W/par.trace" "${r:-0}" 2>&1) &&
		   replay_same "$W/par.trace" "$W/par.topo" 4 "$(cap_of "$T_OUT")"; then
			t_pass "ibflow-infer $how: $got; the replay gives the same topology"
		else
			t_fail "ibflow-infer $how" "$got $(head -c 300 "$W/replay.err")"
		fi
	else
		t_fail "ibflow-infer $how" "exit $T_RC: $(t_errhead)"
	fi
done
if t_expect_exit 0 "$INFER" --parallel 1 --np $NP --lookahead 2 -o "$W/ser.topo" \
	--trace "$W/ser.trace" &&
   grep -q '^pairs in flight at most 1, 1.00 on average (1 hosts at once)' "$T_OUT" &&
   replay_same "$W/ser.trace" "$W/ser.topo" 1 0; then
	t_pass "ibflow-infer --parallel 1: one pair at a time, replays to the same topology"
else
	t_fail "ibflow-infer --parallel 1" "exit $T_RC: $(t_errhead) $(head -c 200 "$W/replay.err")"
fi

# UCX_IBFLOW_FABRIC=infer: the probes on the inferred tree
if t_expect_exit 0 env UCX_IBFLOW_FABRIC=infer UCX_IBFLOW_INFER_TOL=3us \
	"$PROBE" --np 5 --verbose --json "$W/p.json"; then
	cp "$T_OUT" "$W/p.out"
	if python3 - "$W/p.json" "$W/p.out" >"$W/p.check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
assert "topology-aware" in out and "topology-unaware" not in out, "not aware"
hosts = d["hosts"]
assert sorted(h.split("@")[0] for h in hosts) == ["rank%d" % r for r in range(5)], hosts
names = {n for l in d["links"] for n in l["links"]}
assert names and all(n.split(":")[0] in hosts or n.startswith("infer-s") for n in names), names
print("%d hosts, %d measurements of the plan, links %s ..." % (len(hosts), len(d["measurements"]), sorted(names)[0]))
PY
	then
		t_pass "UCX_IBFLOW_FABRIC=infer: ibflow-probe plans on the inferred tree ($(cat "$W/p.check"))"
	else
		t_fail "FABRIC=infer probe output" "$(tail -c 300 "$W/p.check")"
	fi
else
	t_fail "UCX_IBFLOW_FABRIC=infer ibflow-probe" "exit $T_RC: $(t_errhead)"
fi

# UCX_IBFLOW_FABRIC=infer under MPI: the liquid all-to-all on the tree.
# A short UCX_IBFLOW_TIMEOUT: the run's wall time grows with it (one or
# two whole timeouts at the end, with or without a fabric).
if t_need mpirun && [ -x "$CHECK" ] && [ -f "$MPILIB" ]; then
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np 4 --mca pml ob1 \
		-x LD_PRELOAD="$MPILIB" -x LD_LIBRARY_PATH -x UCX_IBFLOW_TIMEOUT=5s \
		-x UCX_IBFLOW_TLS -x UCX_TLS=tcp,self -x IBFLOW_MPI_STATS=1 \
		-x UCX_IBFLOW_FABRIC=infer -x UCX_IBFLOW_ALLTOALL=liquid \
		"$CHECK" --max-bytes 1024 >"$W/mpi.out" 2>"$W/mpi.err"
	rc=$?
	n=$(grep -cE '^ibflow-mpi: comm .* rank [0-9]+: liquid [1-9]' "$W/mpi.err")
	if [ $rc -eq 0 ] && [ "$n" -ge 4 ] &&
	   grep -q '^a2a-check: [1-9][0-9]* cases, 0 mismatches' "$W/mpi.out"; then
		t_pass "FABRIC=infer, mpirun -np 4: MPI_Alltoall liquid on the inferred tree, $(grep '^a2a-check' "$W/mpi.out")"
	else
		t_fail "FABRIC=infer under MPI" "rc $rc, $n liquid ranks: $(head -c 400 "$W/mpi.out" "$W/mpi.err")"
	fi
else
	t_skip "FABRIC=infer under MPI" "libibflow_mpi or mpirun missing"
fi

# UCX_IBFLOW_BCAST=pipeline: MPI_Bcast along the depth-first chain of the
# inferred tree, byte for byte as PMPI_Bcast (chunks of 4000 bytes: many
# chunks and a partial last one)
BCHECK=$B/tests/ucx/ibflow-bcast-check
if t_need mpirun && [ -x "$BCHECK" ] && [ -f "$MPILIB" ]; then
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np 4 --mca pml ob1 \
		-x LD_PRELOAD="$MPILIB" -x LD_LIBRARY_PATH -x UCX_IBFLOW_TIMEOUT=5s \
		-x UCX_IBFLOW_TLS -x UCX_TLS=tcp,self -x IBFLOW_MPI_STATS=1 \
		-x UCX_IBFLOW_FABRIC=infer -x UCX_IBFLOW_BCAST=pipeline \
		-x UCX_IBFLOW_BCAST_THRESH=0 -x UCX_IBFLOW_BCAST_CHUNK=4000 \
		"$BCHECK" >"$W/bc.out" 2>"$W/bc.err"
	rc=$?
	n=$(grep -cE '^ibflow-mpi: comm .* rank [0-9]+: bcast-pipeline [1-9]' "$W/bc.err")
	np=$(grep -cE '^ibflow-mpi: rank [0-9]+: calls ibflow [1-9][0-9]* pmpi 0$' "$W/bc.err")
	if [ $rc -eq 0 ] && [ "$n" -ge 4 ] && [ "$np" -eq 4 ] &&
	   grep -q '^bcast-check: [1-9][0-9]* cases, 0 mismatches' "$W/bc.out"; then
		t_pass "BCAST=pipeline on the inferred tree, mpirun -np 4: $(grep '^bcast-check' "$W/bc.out") against PMPI_Bcast, every call pipelined"
	else
		t_fail "BCAST=pipeline under MPI" "rc $rc, $n pipelined contexts, $np ranks all ibflow: $(head -c 400 "$W/bc.out" "$W/bc.err")"
	fi
else
	t_skip "BCAST=pipeline under MPI" "libibflow_mpi or mpirun missing"
fi
# the same through the Open MPI component coll/ibflow (below PMPI: the
# reference is the root's MPI_Send to every rank)
COLL=$B/ucx_component/.libs/mca_coll_ibflow.so
if t_need mpirun ompi_info && [ -x "$BCHECK" ] && [ -f "$COLL" ]; then
	cpath="$(dirname "$COLL"):$(ompi_info --path pkglibdir | sed 's/.*: *//')"
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np 4 --mca pml ob1 \
		--mca mca_base_component_path "$cpath" -x LD_LIBRARY_PATH \
		-x UCX_IBFLOW_TIMEOUT=5s -x UCX_IBFLOW_TLS -x UCX_TLS=tcp,self \
		-x IBFLOW_MPI_STATS=1 -x UCX_IBFLOW_FABRIC=infer \
		-x UCX_IBFLOW_BCAST=pipeline -x UCX_IBFLOW_BCAST_THRESH=0 \
		-x UCX_IBFLOW_BCAST_CHUNK=4000 \
		"$BCHECK" --ref sendrecv >"$W/cc.out" 2>"$W/cc.err"
	rc=$?
	n=$(grep -cE '^coll/ibflow: comm MPI_COMM_WORLD rank [0-9]+: bcast-pipeline [1-9]' "$W/cc.err")
	if [ $rc -eq 0 ] && [ "$n" -eq 4 ] &&
	   grep -q '^bcast-check: [1-9][0-9]* cases, 0 mismatches' "$W/cc.out"; then
		t_pass "BCAST=pipeline through coll/ibflow, np 4: $(grep '^bcast-check' "$W/cc.out") against MPI_Send from the root"
	else
		t_fail "BCAST=pipeline through coll/ibflow" "rc $rc, $n ranks pipelined: $(head -c 400 "$W/cc.out" "$W/cc.err")"
	fi
else
	t_skip "BCAST=pipeline through coll/ibflow" "component not built or no ompi_info"
fi

# ---- bad input ------------------------------------------------------------------
t_expect_exit 2 env UCX_IBFLOW_INFER_TOL=-1 "$INFER" --np 2 &&
	grep -q UCX_IBFLOW_INFER_TOL "$T_ERR" &&
	t_pass "UCX_IBFLOW_INFER_TOL=-1: exit 2 naming the variable" ||
	t_fail "INFER_TOL=-1" "exit $T_RC: $(t_errhead)"
t_expect_exit 2 env UCX_IBFLOW_INFER_PARALLEL=0 "$INFER" --np 2 &&
	grep -q UCX_IBFLOW_INFER_PARALLEL "$T_ERR" &&
	t_pass "UCX_IBFLOW_INFER_PARALLEL=0: exit 2 naming the variable" ||
	t_fail "INFER_PARALLEL=0" "exit $T_RC: $(t_errhead)"
t_expect_exit 2 "$INFER" --parallel 0 --np 2 && grep -q -- "--parallel" "$T_ERR" &&
	t_pass "--parallel 0: exit 2 naming the option" ||
	t_fail "--parallel 0" "exit $T_RC: $(t_errhead)"
t_expect_exit 2 env UCX_IBFLOW_FABRIC=infer UCX_IBFLOW_LID_OFFSET=1 "$INFER" --np 2 &&
	grep -q "UCX_IBFLOW_LID_OFFSET" "$T_ERR" &&
	t_pass "FABRIC=infer with LID_OFFSET=1: exit 2 naming it" ||
	t_fail "FABRIC=infer LID_OFFSET" "exit $T_RC: $(t_errhead)"
t_expect_exit 2 "$INFER" --np 1 && grep -q -- "--np" "$T_ERR" &&
	t_pass "--np 1: exit 2 (at least two hosts)" ||
	t_fail "--np 1" "exit $T_RC: $(t_errhead)"
t_expect_exit 2 "$INFER" --np 2 -o "$W/nodir/x.topo" &&
	[ ! -e "$W/nodir" ] &&
	t_pass "-o into a missing directory: exit 2, nothing written" ||
	t_fail "-o unwritable" "exit $T_RC: $(t_errhead)"

t_expect_exit 2 "$INFER" -xq
grep -q "^ibflow-infer: unknown option '-x'" "$T_ERR" &&
	t_pass "-xq: exit 2, unknown option '-x' named" ||
	t_fail "-xq named" "exit $T_RC: $(t_errhead)"
# A rank stopped: the parent of --np kills it after the timeout.
ucx_stopped_child "ibflow-infer --np 3, rank 2 SIGSTOPped" \
	env UCX_IBFLOW_TIMEOUT=3s UCX_IBFLOW_PROBE_RUNS=200 \
	UCX_IBFLOW_PROBE_STALL=1000 UCX_IBFLOW_PROBE_MAX=1000 \
	"$INFER" --np 3 -o "$W/stop.topo"

# ---- the emulated fabric -----------------------------------------------------------
if [ "$T_QUICK" = 1 ]; then
	t_skip "ibflow-infer on netns-fabric" "--quick"
	t_done
fi
if [ "$(id -u)" -ne 0 ] || ! t_need ip || [ ! -x "$NF" ]; then
	t_skip "ibflow-infer on netns-fabric" "needs root, ip and scripts/netns-fabric"
	t_done
fi
trap '"$NF" --name "$CHAIN" down >/dev/null 2>&1; t__cleanup' EXIT
"$NF" --name "$CHAIN" down >/dev/null 2>&1
mkdir -p "$W/chain"
ucx_chain_topo "$W/chain/ibflow-topology.ibnd"
"$t_ibflow" route --topo "$W/chain/ibflow-topology.ibnd" --engine minhop \
	-o "$W/chain/ibflow-lfts.dump" >/dev/null
export IBFLOW=$t_ibflow
if ! t_expect_exit 0 "$NF" --name "$CHAIN" up --topo "$W/chain/ibflow-topology.ibnd" \
	--lfts "$W/chain/ibflow-lfts.dump" --mgmt; then
	t_fail "netns-fabric up $CHAIN" "$(t_errhead)"
	t_done
fi
switch_rx() {
	local ns
	for ns in $(awk '!/^#/ { print $2 }' "$STATE/$CHAIN/switches"); do
		ip netns exec "$ns" cat /proc/net/dev
	done | awk -F'[: ]+' '$2 ~ /^p[0-9]+$/ { s += $4 } END { print s + 0 }'
}
n=$(grep -vc '^#' "$STATE/$CHAIN/hosts")
# chain_run TAG [ARGS]: ibflow-infer, one process per host via exec
chain_run() {
	local tag=$1 rc=0
	shift
	netns_spawn "$CHAIN" "$W/$tag" env LD_LIBRARY_PATH="$LD_LIBRARY_PATH" \
		UCX_IBFLOW_TLS=tcp UCX_IBFLOW_NET_DEVICES=fab1 UCX_IBFLOW_TIMEOUT=60s \
		timeout 300 "$INFER" -o "$W/$tag.topo" --trace "$W/$tag.trace" "$@" ||
		rc=1
	t_canon_topo "$W/$tag.topo" >"$W/$tag.canon" 2>/dev/null
	return $rc
}
# the inferred tree's splits (host sets cut off by one edge) against the
# chain's: {h1,h2} and {h5,h6} apart from the rest
SPLITS='
import sys
typ, desc, adj = {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "N":
        typ[f[2]] = f[1]; desc[f[2]] = " ".join(f[4:]).strip("\"").split("@")[-1]; adj.setdefault(f[2], [])
    elif f[0] == "L":
        a, b = f[1].split(":")[0], f[2].split(":")[0]
        adj.setdefault(a, []).append(b); adj.setdefault(b, []).append(a)
hosts = {g for g in typ if typ[g] != "Switch"}
allh = {desc[g] for g in hosts}
splits = set()
for a in adj:
    for b in adj[a]:
        seen, st, side = {a, b}, [a], set()
        while st:
            v = st.pop()
            if v in hosts:
                side.add(desc[v])
            for u in adj[v]:
                if u not in seen:
                    seen.add(u); st.append(u)
        if 1 < len(side) < len(hosts) - 1:
            splits.add(frozenset(side if "h1" not in side else allh - side))
want = {frozenset({"h3", "h4", "h5", "h6"}), frozenset({"h5", "h6"})}
print("splits %s" % ("as the chain" if splits == want else
      "%s, the chain has %s" % (sorted(sorted(x) for x in splits), sorted(sorted(x) for x in want))))
sys.exit(0 if splits == want else 1)
'
rx0=$(switch_rx)
if ! chain_run c --lookahead all; then
	t_fail "ibflow-infer on the chain" "$(cat "$W"/c.err.* | head -c 400)"
	t_done
fi
rx1=$(switch_rx)
ex=$(sed -n 's/.*ping-pongs \([0-9]*\).*/\1/p' "$W/c.out.0")
pairs=$(sed -n 's/^pairs measured \([0-9]*\) of.*/\1/p' "$W/c.out.0")
hosts_ok=$(awk '$1 == "N" && $2 != "Switch"' "$W/c.canon" | grep -cE ' rank[0-9]+@h[1-6]$')
if [ "${ex:-0}" -gt 0 ] && [ $((rx1 - rx0)) -ge $((2 * ex)) ] && [ "$hosts_ok" -eq "$n" ]; then
	t_pass "chain, $n hosts in their namespaces: $pairs pairs, $ex ping-pongs crossed the emulated switches ($((rx1 - rx0)) switch packets); all $n hosts in the topology"
else
	t_fail "ibflow-infer on the chain" "ping-pongs ${ex:-?}, switch packets $((rx1 - rx0)), hosts $hosts_ok of $n"
fi
# Hop latency against the noise, from the first run's trace (the search
# unbounded: nearly every pair): pairs by the switches on their path (1
# same switch, 2 neighbours, 3 the ends of the chain).  One more switch
# adds one link each way: l = half the step of the RTT.  The tree is
# exact when every RTT is within l/2 of the truth (docs/infer.md); it is
# judged only when the classes do not overlap, each spans less than l/2
# and each step is within l/2 of 2 l, with --tol l.
python3 - "$W/c.trace" >"$W/c.hops" 2>&1 <<'PY'
import sys, statistics
sw = {"h1": 0, "h2": 0, "h3": 1, "h4": 1, "h5": 2, "h6": 2}
by = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    f = line.split()
    a, b = (x.split("@")[1] for x in f[:2])
    by.setdefault(abs(sw[a] - sw[b]) + 1, []).append(float(f[2]))
ks = sorted(by)
med = {k: statistics.median(by[k]) for k in ks}
l = (med[ks[-1]] - med[ks[0]]) / (ks[-1] - ks[0]) / 2 if len(ks) > 1 else 0
span = max(max(v) - min(v) for v in by.values())
# Every switch more must add the same (one link each way, all links
# alike): seen once, 1 and 2 switches 1 us apart and 3 switches 22 us
# beyond (every pair between the ends in a slow mode of the 2-core host).
steps = [med[b] - med[a] for a, b in zip(ks, ks[1:])]
ok = (len(ks) == 3 and l > 0 and span < l / 2 and
      all(max(by[a]) < min(by[b]) for a, b in zip(ks, ks[1:])) and
      all(abs(st - 2 * l) < l / 2 for st in steps))
print("min-RTTs by switches on the path %s; l = %.2f us one-way per link; widest class %.2f us%s"
      % (", ".join("%d: %.1f..%.1f us" % (k, min(by[k]), max(by[k])) for k in ks), l, span,
         "" if ok else " (classes overlap, wider than l/2 or uneven steps)"))
print("%.3f" % l)
sys.exit(0 if ok else 3)
PY
case $? in
0)
	l=$(tail -1 "$W/c.hops")
	if chain_run j --tol "$l" && got=$(python3 -c "$SPLITS" "$W/j.canon" 2>&1); then
		t_pass "chain: the tree inferred with --tol $l has the chain's splits ($got): $(head -1 "$W/c.hops")"
	else
		t_fail "inferred tree vs the chain" "$got: $(head -1 "$W/c.hops")"
	fi ;;
3) t_skip "inferred tree vs the chain" "hop latency not measurable against the noise: $(head -1 "$W/c.hops")" ;;
*) t_fail "hop latency figures" "$(tail -c 300 "$W/c.hops")" ;;
esac
t_done
