#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The liquid all-to-all without barriers (UCX_IBFLOW_ALLTOALL_SYNC=links,
# the default) keeps the schedule's one guarantee: no two transfers on a
# directed link at once.  On three fabrics (a fat tree with D-mod-K, a
# Dragonfly and a random Jellyfish with min-hop), ranks mapped to a random
# subset of the hosts in random order (once two per host, once four, once
# hosts of 1, 2 and 3 ranks, once blocks cut into pieces), ibflow-a2a-check
# runs
# MPI_Alltoall(v) through libibflow_mpi (and once through coll/ibflow)
# with UCX_IBFLOW_ALLTOALL_TRACE: the results must be byte-identical to
# the MPI library's, and tests/a2a_trace_judge.py, which walks the LFTs
# itself, checks from every transfer's start and arrival times (one
# machine, one clock) that on every link, and at every sender and
# receiver, the next host pair (the node-aware schedule's unit: every
# block of one host's ranks to another's) started only after the previous
# one had arrived, within a call and from one call to the next.  The judge is shown to catch an overlap on a hand-made trace.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

W=$T_TMP
B=$T_BUILD_DIR
CHECK=$B/tests/ucx/ibflow-a2a-check
MPILIB=$B/ucx_component/.libs/libibflow_mpi.so
JUDGE=$T_REPO/tests/a2a_trace_judge.py
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"
ucx_libpath

if ! t_need mpirun || ! t_need python3 || [ ! -x "$CHECK" ] || [ ! -f "$MPILIB" ]; then
	t_skip ucx_a2a_links "libibflow_mpi is not built (needs UCX and mpicc; see configure's summary)"
	t_done
fi
ucx_env_clear
export UCX_IBFLOW_TIMEOUT=60s UCX_TLS=tcp,self UCX_IBFLOW_NET_DEVICES=lo
SEED=${T_SEED:-$$}
echo "# seed $SEED (T_SEED=$SEED to repeat)"

# fabric DIR SPEC ENGINE: an export directory as the OpenSM plugin writes it
fabric() {
	mkdir -p "$1"
	"$t_ibflow" gen "$2" -o "$1/ibflow-topology.ibnd" &&
		"$t_ibflow" route --topo "$1/ibflow-topology.ibnd" --engine "$3" \
			-o "$1/ibflow-lfts.dump" >/dev/null || return 1
	{
		echo "engine ibflow-$3"
		echo "routing 1"
		echo "endpoints $(grep -c '^Ca' "$1/ibflow-topology.ibnd")"
		echo "switches $(grep -c '^Switch' "$1/ibflow-topology.ibnd")"
		echo "lmc 0"
		echo "topology ibflow-topology.ibnd"
		echo "lfts ibflow-lfts.dump"
	} >"$1/ibflow-export.txt"
}

# hostmap DIR NP SEED [PER]: NP ranks on random hosts of the fabric in
# random order, PER (default 1) ranks on each; PER "mixed": hosts of 1,
# 2, 3, 1, 2, 3 ... ranks
hostmap() {
	python3 - "$1/ibflow-topology.ibnd" "$2" "$3" "${4:-1}" <<'EOF' >"$1/map"
import random, re, sys
hosts = sorted(set(re.findall(r'^Ca\s+\d+\s+"[^"]*"\s*#\s*"([^"]+)"',
                              open(sys.argv[1]).read(), re.M)))
rng = random.Random(int(sys.argv[3]))
np = int(sys.argv[2])
if sys.argv[4] == 'mixed':
    counts, k = [], 0
    while sum(counts) < np:
        counts.append(min(k % 3 + 1, np - sum(counts)))
        k += 1
    ranks = [h for h, c in zip(rng.sample(hosts, len(counts)), counts)
             for _ in range(c)]
    rng.shuffle(ranks)
else:
    per = int(sys.argv[4])
    ranks = rng.sample(hosts, np // per) * per
for r, h in enumerate(ranks):
    print('rank:%d "%s"' % (r, h))
EOF
}

# case NAME SPEC ENGINE NP[/PER] [MPIRUN ARGS...]: one mpirun, judged
# (PER ranks share a host, or "mixed": the schedule is the hosts')
case_run() {
	local name=$1 spec=$2 engine=$3 np=${4%/*} per=1 d=$W/$1 rc out
	[[ $4 == */* ]] && per=${4#*/}
	shift 4
	if ! fabric "$d" "$spec" "$engine" || ! hostmap "$d" "$np" "$SEED" "$per"; then
		t_fail "$name: fabric" "gen/route/map failed"
		return
	fi
	rm -f "$d"/trace.*
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$np" \
		--mca pml ob1 --mca mpi_yield_when_idle 1 -x LD_LIBRARY_PATH \
		-x UCX_IBFLOW_TIMEOUT -x UCX_TLS -x UCX_IBFLOW_NET_DEVICES \
		-x UCX_IBFLOW_FABRIC="$d" -x UCX_IBFLOW_HOSTMAP="$d/map" \
		-x UCX_IBFLOW_ALLTOALL_TRACE="$d/trace" "$@" \
		"$CHECK" --sample --max-bytes 262144 \
		--variant liquid:world:ibflow_alltoall=liquid \
		>"$d/out" 2>"$d/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^a2a-check: [1-9][0-9]* cases, 0 mismatches' "$d/out"; then
		t_pass "$name: $np ranks on $spec ($engine): $(grep '^a2a-check: [0-9]' "$d/out")"
	else
		t_fail "$name: results" "rc $rc $(head -c 600 "$d/out" "$d/err")"
		return
	fi
	if out=$(python3 "$JUDGE" "$d/ibflow-topology.ibnd" "$d/ibflow-lfts.dump" \
		"$d/map" "$d/trace" "$np" 2>&1); then
		set -- $out
		t_pass "$name: no two host pairs on a link, sending or receiving host at once ($1 calls, $2 transfers over $3 links and ends)"
	else
		t_fail "$name: link exclusivity" "$out"
	fi
}

case_run fattree xgft:2:4,2:1,2 dmodk 8 -x LD_PRELOAD="$MPILIB"
case_run dragonfly dragonfly:2,1,1 minhop 6 -x LD_PRELOAD="$MPILIB"
case_run jellyfish "jellyfish:6,3,2:$((SEED % 1000))" minhop 7 -x LD_PRELOAD="$MPILIB"
case_run shared xgft:2:4,2:1,2 dmodk 8/2 -x LD_PRELOAD="$MPILIB"
case_run shared4 dragonfly:2,1,1 minhop 8/4 -x LD_PRELOAD="$MPILIB"
case_run mixed "jellyfish:6,3,2:$((SEED % 1000))" minhop 8/mixed -x LD_PRELOAD="$MPILIB"
# blocks cut into 48 KiB pieces, each a run of the schedule
case_run segments dragonfly:2,1,1 minhop 6 -x LD_PRELOAD="$MPILIB" \
	-x UCX_IBFLOW_ALLTOALL_SEGMENT=49152
ucx_coll_path
if [ -n "$cpath" ]; then
	case_run coll xgft:2:4,2:1,2 dmodk 6 --mca mca_base_component_path "$cpath"
else
	t_skip "coll/ibflow" "not built (needs Open MPI's developer headers) or no ompi_info"
fi

# ---- the frame-by-frame progressions with host pairs -----------------------
# ALLTOALL_SYNC=ready and barrier exchange a frame's groups (every rank of
# one host to every rank of another) on the shared map: results only
d=$W/shared
timeout 300 mpirun --allow-run-as-root --oversubscribe -np 8 \
	--mca pml ob1 --mca mpi_yield_when_idle 1 -x LD_LIBRARY_PATH \
	-x UCX_IBFLOW_TIMEOUT -x UCX_TLS -x UCX_IBFLOW_NET_DEVICES \
	-x UCX_IBFLOW_FABRIC="$d" -x UCX_IBFLOW_HOSTMAP="$d/map" \
	-x LD_PRELOAD="$MPILIB" "$CHECK" --sample --max-bytes 65536 \
	--variant ready:world:ibflow_alltoall=liquid,ibflow_alltoall_sync=ready \
	--variant barrier:world:ibflow_alltoall=liquid,ibflow_alltoall_sync=barrier \
	>"$W/sync.out" 2>"$W/sync.err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^a2a-check: [1-9][0-9]* cases, 0 mismatches' "$W/sync.out"; then
	t_pass "ready and barrier, 2 ranks per host: $(grep '^a2a-check: [0-9]' "$W/sync.out")"
else
	t_fail "ready and barrier, 2 ranks per host" "rc $rc $(head -c 600 "$W/sync.out" "$W/sync.err")"
fi

# ---- the judge catches an overlap ------------------------------------------
# Ranks 0..2 on h0000 h0001 h0004 of the fat tree: 0->1 stays in leaf 0,
# 0->2 and 1->2 cross to leaf 1; 1->2 starts while 0->2, which shares
# the downlink to h0004 and h0004's receive end, is still in flight.
d=$W/fattree
printf 'rank:0 "h0000 HCA-1"\nrank:1 "h0001 HCA-1"\nrank:2 "h0004 HCA-1"\n' >"$W/map3"
printf 'S 1 0 1 0 100\nA 1 0 1 0 200\nS 1 0 2 1 300\nA 1 0 2 1 500\n' >"$W/bad.0"
printf 'S 1 1 0 0 100\nA 1 1 0 0 200\nS 1 1 2 1 400\nA 1 1 2 1 600\n' >"$W/bad.1"
printf 'S 1 2 0 0 100\nA 1 2 0 0 200\nS 1 2 1 1 300\nA 1 2 1 1 400\n' >"$W/bad.2"
if out=$(python3 "$JUDGE" "$d/ibflow-topology.ibnd" "$d/ibflow-lfts.dump" \
	"$W/map3" "$W/bad" 3 2>&1); then
	t_fail "judge: an overlap" "accepted: $out"
else
	case $out in
	*"1->2 started 100 ns before call 1's 0->2 arrived"*)
		t_pass "judge: an overlap on the way to h0004 is named ($out)" ;;
	*) t_fail "judge: an overlap" "$out" ;;
	esac
fi

t_done
