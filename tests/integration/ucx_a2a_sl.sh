#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The all-to-all on its routes' SLs (UCX_IBFLOW_ROUTE_SL).  An export of
# ibflow-layered with several SLs (dragonfly:2,1,1, LMC 2, 4 layers,
# --vls 8: its base LIDs on SLs 0 and 1) and MPI_Alltoall(v) through
# libibflow_mpi (ibflow-a2a-check, real UCX processes under Open MPI,
# UCX over TCP): with ROUTE_SL=any every block between two hosts must go
# on the context of its route's SL at both ends (the sender's context
# and the receiver's, which is what the message matched on), and blocks
# within a host on the data context; tests/route_sl_judge.py computes each
# route's SL from the export's ibflow-sl.txt and topology itself.  The
# results must equal the MPI library's.  Default and off: the data
# context for every block (and the judge refuses that trace against the
# routes' SLs); one SL in the export: no SL contexts at all; a rank that
# cannot open its contexts says so once and every rank stays on the data
# context.  The probes' pings and pongs and the bandwidth map's streams
# (ibflow-infer --bw --verbose) are counted per rank and SL context
# against what the judge computes from the pairs measured.  What is
# verified is the choice of context per block; that a
# context opened with UCX_IB_SL=k sends on SL k is UCX's business and
# needs an InfiniBand HCA (skipped here, with the reason).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"

W=$T_TMP
CHECK=$T_BUILD_DIR/tests/ucx/ibflow-a2a-check
SLJUDGE=$T_REPO/tests/route_sl_judge.py
PROBE=$T_BUILD_DIR/ucx_component/ibflow-probe
INFER=$T_BUILD_DIR/ucx_component/ibflow-infer
LINKJUDGE=$T_REPO/tests/a2a_trace_judge.py
ucx_mpi_setup ucx_a2a_sl "$CHECK"
t_need python3 || { t_skip ucx_a2a_sl "no python3"; t_done; }

# layered DIR VLS: the export of a layered routing of dragonfly:2,1,1
layered() {
	mkdir -p "$1"
	"$t_ibflow" gen dragonfly:2,1,1 --lmc 2 -o "$1/ibflow-topology.ibnd" &&
		"$t_ibflow" route --topo "$1/ibflow-topology.ibnd" --engine layered \
			--layers 4 --vls "$2" --seed 42 -o "$1/ibflow-lfts.dump" \
			--sl-out "$1/ibflow-sl.txt" >/dev/null || return 1
	{
		echo "engine ibflow-layered"
		echo "routing 1"
		echo "endpoints 6"
		echo "switches $(grep -c '^Switch' "$1/ibflow-topology.ibnd")"
		echo "lmc 2"
		echo "topology ibflow-topology.ibnd"
		echo "lfts ibflow-lfts.dump"
	} >"$1/ibflow-export.txt"
}

F=$W/sls
F1=$W/one
if ! layered "$F" 8 || ! layered "$F1" 1; then
	t_fail "layered exports" "gen/route failed"
	t_done
fi
for i in 0 1 2 3 4 5; do echo "rank:$i \"h000$i HCA-1\""; done >"$W/map6"
# 8 ranks, two on each of four hosts (h0004, h0005: their base LIDs on
# another SL than h0000's and h0001's)
for i in 0 1 2 3 4 5 6 7; do
	h=(0 1 4 5)
	echo "rank:$i \"h000${h[i % 4]} HCA-1\""
done >"$W/map8"
nsl=$(awk '!/^#/ && NF == 3 { print $3 }' "$F/ibflow-sl.txt" | sort -u | wc -l)
nsl1=$(awk '!/^#/ && NF == 3 { print $3 }' "$F1/ibflow-sl.txt" | sort -u | wc -l)
if [ "$nsl" -ge 2 ] && [ "$nsl1" -eq 1 ]; then
	t_pass "exports: --vls 8 uses $nsl SLs, --vls 1 one"
else
	t_fail "exports" "--vls 8: $nsl SLs, --vls 1: $nsl1"
fi

# run NAME FABRIC MAP NP [mpirun options]: a2a-check with a trace
run() {
	local name=$1 fab=$2 map=$3 np=$4 rc

	shift 4
	rm -f "$W/$name".trace.*
	ucx_mpirun "$np" -x UCX_IBFLOW_FABRIC="$fab" -x UCX_IBFLOW_HOSTMAP="$map" \
		-x UCX_IBFLOW_ALLTOALL_TRACE="$W/$name.trace" -x LD_PRELOAD="$MPILIB" "$@" \
		"$CHECK" --sample --max-bytes 65536 \
		--variant liquid:world:ibflow_alltoall=liquid \
		>"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^a2a-check: [1-9][0-9]* cases, 0 mismatches' "$W/$name.out"; then
		t_pass "$name: $np ranks: $(grep '^a2a-check: [0-9]' "$W/$name.out")"
		return 0
	fi
	t_fail "$name: results" "rc $rc $(head -c 600 "$W/$name.out" "$W/$name.err")"
	return 1
}

# judge NAME FABRIC MAP NP SLFILE WHAT: the SL judge must accept the
# trace; its figures in JOUT
judge() {
	local out

	JOUT=
	if out=$(python3 "$SLJUDGE" a2a "$2/ibflow-topology.ibnd" "$5" "$3" \
		"$W/$1.trace" "$4" 2>&1); then
		JOUT=$out
		set -- "$@" $out
		t_pass "$1: $6 (${7} calls, ${8} blocks; between hosts per SL: ${*:9})"
	else
		t_fail "$1: $6" "$out"
	fi
}

# ---- on the routes' SLs -----------------------------------------------------
if run any "$F" "$W/map6" 6 -x UCX_IBFLOW_ROUTE_SL=any; then
	judge any "$F" "$W/map6" 6 "$F/ibflow-sl.txt" "every block on its route's SL at both ends"
	n=$(echo "$JOUT" | grep -o ' [0-9]*:[0-9]*' | wc -l)
	[ "$n" -ge 2 ] && t_pass "any: the job's blocks used $n SLs" ||
		t_fail "any: several SLs used" "$JOUT"
	if out=$(python3 "$LINKJUDGE" "$F/ibflow-topology.ibnd" "$F/ibflow-lfts.dump" \
		"$W/map6" "$W/any.trace" 6 2>&1); then
		t_pass "any: still no two host pairs on a link at once ($out)"
	else
		t_fail "any: link exclusivity" "$out"
	fi
	n=$(grep -c 'travel on their routes. SLs' "$W/any.err")
	[ "$n" -eq 1 ] &&
		t_pass "any: rank 0 says once that only this library's traffic is on the routes' SLs" ||
		t_fail "any: the warning" "$n times: $(head -c 400 "$W/any.err")"
fi
if run shared "$F" "$W/map8" 8 -x UCX_IBFLOW_ROUTE_SL=any; then
	judge shared "$F" "$W/map8" 8 "$F/ibflow-sl.txt" "two ranks per host: between hosts on the route's SL, within on the data context"
fi

# ---- the data context ------------------------------------------------------
# The default (auto) over TCP, and off: every block on the data context,
# which the judge refuses against the routes' SLs.
if run auto "$F" "$W/map6" 6; then
	judge auto "$F" "$W/map6" 6 - "auto over TCP: every block on the data context"
	if out=$(python3 "$SLJUDGE" a2a "$F/ibflow-topology.ibnd" "$F/ibflow-sl.txt" \
		"$W/map6" "$W/auto.trace" 6 2>&1); then
		t_fail "auto: the judge against the routes' SLs" "accepted: $out"
	else
		t_pass "auto: the judge refuses it against the routes' SLs ($out)"
	fi
	grep -q 'deadlock-free only with its [0-9]* SLs, but UCX sends' "$W/auto.err" &&
		t_pass "auto: rank 0 warns that UCX sends on UCX_IB_SL only" ||
		t_fail "auto: the warning" "$(head -c 400 "$W/auto.err")"
fi
if run off "$F" "$W/map6" 6 -x UCX_IBFLOW_ROUTE_SL=off; then
	judge off "$F" "$W/map6" 6 - "off: every block on the data context"
fi
if run one "$F1" "$W/map6" 6 -x UCX_IBFLOW_ROUTE_SL=any; then
	judge one "$F1" "$W/map6" 6 - "one SL in the export: no SL contexts, every block on the data context"
fi
# A rank that cannot open its contexts: said once, by it; nobody uses them.
if run refuse "$F" "$W/map6" 6 -x UCX_IBFLOW_ROUTE_SL=any -x IBFLOW_TEST_SL_REFUSE=3; then
	judge refuse "$F" "$W/map6" 6 - "rank 3 cannot open its SL contexts: every block on the data context"
	n=$(grep -c 'rank 3: route SLs (UCX_IBFLOW_ROUTE_SL): refused' "$W/refuse.err")
	[ "$n" -eq 1 ] && t_pass "refuse: rank 3 says why once" ||
		t_fail "refuse: the message" "$n times: $(head -c 400 "$W/refuse.err")"
fi

# ---- the probes --------------------------------------------------------------
# ibflow-probe, all pairs one at a time, 1 warm-up exchange and 2 runs of
# exactly 4 exchanges (PROBE_STALL = PROBE_MAX): every rank's messages on
# each SL context as --verbose counts them, against the judge's count
# from the pairs probed (the --rtt-out file, pinging host first) and the
# routes' SLs.
# probe NAME FABRIC SLFILE WHAT [VAR=VALUE...]
probe() {
	local name=$1 fab=$2 slfile=$3 what=$4 out

	shift 4
	if ! env UCX_IBFLOW_FABRIC="$fab" UCX_IBFLOW_HOSTMAP="$W/map6" \
		UCX_IBFLOW_PROBE_ROUNDS=all-pairs UCX_IBFLOW_PROBE_STALL=4 \
		UCX_IBFLOW_PROBE_MAX=4 UCX_IBFLOW_PROBE_RUNS=2 \
		UCX_IBFLOW_PROBE_WARMUP=1 "$@" timeout 120 "$PROBE" --np 6 \
		--verbose --rtt-out "$W/$name.rtt" >"$W/$name.pout" 2>"$W/$name.perr"; then
		t_fail "probes, $name" "$(head -c 400 "$W/$name.perr")"
	elif out=$(python3 "$SLJUDGE" probe "$fab/ibflow-topology.ibnd" "$slfile" \
		"$W/map6" "$W/$name.rtt" "$W/$name.pout" 1 2 4 2>&1); then
		set -- $out
		t_pass "probes, $name: $what ($1 pairs; messages per SL: ${*:2})"
	else
		t_fail "probes, $name: $what" "$out"
	fi
}
if [ -x "$PROBE" ]; then
	probe any "$F" "$F/ibflow-sl.txt" "every ping and pong on its route's SL, counted exactly" \
		UCX_IBFLOW_ROUTE_SL=any
	probe auto "$F" - "auto over TCP: none on an SL context"
else
	t_skip "probes" "ibflow-probe is not built"
fi

# ---- the bandwidth map -------------------------------------------------------
# ibflow-infer --bw along the fabric's tree (no RTT inference: nothing
# else of this library on the SL contexts), 256 KiB in 32 KiB messages,
# 2 pairs alone too: every measurement's one-byte exchange and stream on
# their routes' SLs, every rank's messages on each SL context (--verbose)
# against the judge's count from the map's and the alone pairs.
# bwmap NAME SLFILE WHAT [VAR=VALUE...]
bwmap() {
	local name=$1 slfile=$2 what=$3 out

	shift 3
	if ! env UCX_IBFLOW_FABRIC="$F" UCX_IBFLOW_HOSTMAP="$W/map6" \
		UCX_RNDV_THRESH=inf "$@" timeout 120 "$INFER" --np 6 --verbose \
		--bw "$W/$name.bw" --bw-pairs "$W/$name.bwp" --bw-bytes 256K \
		--bw-chunk 32K --bw-alone 2 >"$W/$name.bout" 2>"$W/$name.berr"; then
		t_fail "bandwidth map, $name" "$(head -c 400 "$W/$name.berr")"
	elif out=$(python3 "$SLJUDGE" bwmap "$F/ibflow-topology.ibnd" "$slfile" \
		"$W/map6" "$W/$name.bw" "$W/$name.bwp" "$W/$name.bout" 8 2>&1); then
		set -- $out
		t_pass "bandwidth map, $name: $what ($1 streams; messages per SL: ${*:2})"
	else
		t_fail "bandwidth map, $name: $what" "$out"
	fi
}
if [ -x "$INFER" ]; then
	bwmap any "$F/ibflow-sl.txt" "every stream on its route's SL, counted exactly" \
		UCX_IBFLOW_ROUTE_SL=any
	bwmap refuse - "rank 2 cannot open its SL contexts: every stream on the data context" \
		UCX_IBFLOW_ROUTE_SL=any IBFLOW_TEST_SL_REFUSE=2
	n=$(grep -c 'rank 2: route SLs (UCX_IBFLOW_ROUTE_SL): refused.*the bandwidth map stay' \
		"$W/refuse.berr")
	[ "$n" -eq 1 ] && t_pass "bandwidth map, refuse: rank 2 says why once" ||
		t_fail "bandwidth map, refuse: the message" "$n times: $(head -c 400 "$W/refuse.berr")"
else
	t_skip "bandwidth map" "ibflow-infer is not built"
fi

# ---- the judge -------------------------------------------------------------
# Ranks 0, 1 on h0000, h0001: h0001's base LID's SL from the file, and a
# trace that claims another one for 0->1.
read -r lid0 lid1 < <(python3 -c "
import sys; sys.path.insert(0, '$T_REPO/tests')
from fabric_walk import Fabric
f = Fabric('$F/ibflow-topology.ibnd', '/dev/null')
print(*(f.lid[f.desc2node['h000%d HCA-1' % i]] for i in (0, 1)))")
sl0=$(awk -v d="$lid0" '$1 == "*" && $2 == d { print $3 }' "$F/ibflow-sl.txt")
sl1=$(awk -v d="$lid1" '$1 == "*" && $2 == d { print $3 }' "$F/ibflow-sl.txt")
wrong=$(( (${sl1:-0} + 1) % 16 ))
printf 'rank:0 "h0000 HCA-1"\nrank:1 "h0001 HCA-1"\n' >"$W/map2"
printf 'S 1 0 1 0 100 %s\nA 1 1 0 0 300 %s\n' "$wrong" "${sl0:-0}" >"$W/bad.0"
printf 'S 1 1 0 0 100 %s\nA 1 0 1 0 200 %s\n' "${sl0:-0}" "$wrong" >"$W/bad.1"
if out=$(python3 "$SLJUDGE" a2a "$F/ibflow-topology.ibnd" "$F/ibflow-sl.txt" \
	"$W/map2" "$W/bad" 2 2>&1); then
	t_fail "judge: a block on a wrong SL" "accepted: $out"
else
	case $out in
	*"block 0->1 sent on SL $wrong, its route's SL is ${sl1:-0}"*)
		t_pass "judge: a block on a wrong SL is named ($out)" ;;
	*) t_fail "judge: a block on a wrong SL" "$out" ;;
	esac
fi

# ---- the wire ---------------------------------------------------------------
# That UCX sends a context opened with IB_SL=k on SL k needs an
# InfiniBand port (the packets' SL is seen by the HCA and the switches,
# e.g. with perfquery's per-VL counters): not here.
ib=
for ll in /sys/class/infiniband/*/ports/*/link_layer; do
	[ -r "$ll" ] && grep -q InfiniBand "$ll" && ib=$ll
done
if [ -z "$ib" ]; then
	t_skip "the SL on the wire" "no InfiniBand port on this machine (UCX over TCP has no SL; the choice of context per block is what is checked above)"
else
	t_skip "the SL on the wire" "an InfiniBand port is there ($ib), but no check of the wire's SL is written"
fi

t_done
