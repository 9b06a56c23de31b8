#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Route SLs over verbs: MPI_Alltoall(v) through libibflow_mpi
# (ibflow-a2a-check) with 4 ranks, one rxe device each (`softroce exec`),
# UCX_TLS=self,rc_verbs,ud_verbs, on the export of an ibflow-layered
# routing with several SLs (dragonfly:2,1,1, LMC 2, 4 layers, --vls 8).
# With UCX_IBFLOW_ROUTE_SL=any the SL contexts are opened with IB_SL set
# (the data goes over verbs) and every block between hosts must go on
# the context of its route's SL at both ends (tests/route_sl_judge.py,
# from the SL file); results equal the MPI library's.  (With the default,
# auto, the ports' link layer, Ethernet, opens no SL context; one run
# showed every block on the data context; it is left out for time.)  rxe
# puts no SL into RoCE packets, so the SL on the wire is not seen here
# either.
# vm-timeout: 300
. "$T_REPO/tests/lib.sh"
. "$T_REPO/tests/vm/helpers.sh"

N=vm/ucx_route_sl
NP=4
B=$T_BUILD_DIR
CHECK=$B/tests/ucx/ibflow-a2a-check
MPILIB=$B/ucx_component/.libs/libibflow_mpi.so
JUDGE=$T_REPO/tests/route_sl_judge.py
export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

if ! t_need mpirun python3 || [ ! -x "$CHECK" ] || [ ! -f "$MPILIB" ]; then
	t_skip "$N" "libibflow_mpi or ibflow-a2a-check not built, or no mpirun/python3"
	t_done
fi
if ! vm_need_devices $NP; then
	t_fail "$N" "rxe0..rxe$((NP - 1)) are not all ACTIVE"
	t_done
fi
for v in $(env | sed -n 's/^\(UCX_IBFLOW_[A-Z_]*\)=.*/\1/p'); do
	unset "$v"
done

F=$T_TMP/fab
mkdir -p "$F"
"$t_ibflow" gen dragonfly:2,1,1 --lmc 2 -o "$F/ibflow-topology.ibnd" &&
	"$t_ibflow" route --topo "$F/ibflow-topology.ibnd" --engine layered \
		--layers 4 --vls 8 --seed 42 -o "$F/ibflow-lfts.dump" \
		--sl-out "$F/ibflow-sl.txt" >/dev/null || {
	t_fail "$N: layered export" "gen/route failed"
	t_done
}
{
	echo "engine ibflow-layered"
	echo "routing 1"
	echo "endpoints 6"
	echo "switches $(grep -c '^Switch' "$F/ibflow-topology.ibnd")"
	echo "lmc 2"
	echo "topology ibflow-topology.ibnd"
	echo "lfts ibflow-lfts.dump"
} >"$F/ibflow-export.txt"
# h0004 and h0005's base LIDs are on another SL than h0000's and h0001's
h=(0 1 4 5)
for ((i = 0; i < NP; i++)); do echo "rank:$i \"h000${h[i]} HCA-1\""; done >"$T_TMP/map"

# run NAME [VAR=VALUE...]: a2a-check with a trace, judged against SLFILE
run() {
	local name=$1 slfile=$2 what=$3 rc out t0=$SECONDS

	shift 3
	rm -f "$T_TMP/$name".*
	mpirun -np $NP --oversubscribe --allow-run-as-root \
		--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any \
		--mca btl self --mca osc ucx \
		-x UCX_TLS=self,rc_verbs,ud_verbs -x UCX_UD_ETH_DGID_CHECK=n \
		-x LD_LIBRARY_PATH -x LD_PRELOAD="$MPILIB" -x UCX_IBFLOW_TIMEOUT=60s \
		-x UCX_IBFLOW_FABRIC="$F" -x UCX_IBFLOW_HOSTMAP="$T_TMP/map" \
		-x UCX_IBFLOW_ALLTOALL_TRACE="$T_TMP/$name.trace" "$@" \
		"$T_REPO/scripts/softroce" exec -- "$CHECK" --sample --max-bytes 16384 \
		--variant liquid:world:ibflow_alltoall=liquid \
		>"$T_TMP/$name.out" 2>&1 || rc=$?
	if [ "${rc:-0}" -ne 0 ] || ! grep -q '^a2a-check: [1-9][0-9]* cases, 0 mismatches' "$T_TMP/$name.out"; then
		t_fail "$N: $name: results" "rc ${rc:-0} $(grep -v '^#' "$T_TMP/$name.out" | tail -5)"
		return
	fi
	t_pass "$N: $name: $(grep '^a2a-check: [0-9]' "$T_TMP/$name.out") over rc_verbs ($((SECONDS - t0)) s)"
	if out=$(python3 "$JUDGE" a2a "$F/ibflow-topology.ibnd" "$slfile" \
		"$T_TMP/map" "$T_TMP/$name.trace" $NP 2>&1); then
		t_pass "$N: $name: $what ($out)"
	else
		t_fail "$N: $name: $what" "$out"
	fi
	grep -i 'invalid configuration\|unused' "$T_TMP/$name.out" | head -3
}

run any "$F/ibflow-sl.txt" "every block on the context of its route's SL (over verbs: opened with IB_SL)" \
	-x UCX_IBFLOW_ROUTE_SL=any
t_done
