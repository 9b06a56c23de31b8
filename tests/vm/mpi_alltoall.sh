#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Open MPI over rxe: mpirun -np 4 with pml ucx and only rc_verbs/ud_verbs
# (and self) allowed, one rxe device per rank (`softroce exec`), running
# tests/vm/mpi_alltoall.c (MPI_Alltoall at 4 B, 4 KiB and 64 KiB per peer,
# every element checked by every rank).  Each rank's interface must have
# sent at least its share of the payload in 4096-byte RoCE packets.
# vm-timeout: 240
. "$T_REPO/tests/lib.sh"
. "$T_REPO/tests/vm/helpers.sh"

N=vm/mpi_alltoall
NP=4
PROG=$T_BUILD_DIR/tests/vm/mpi_alltoall

if ! t_need mpirun; then
	t_skip "$N" "mpirun not installed (openmpi-bin)"
	t_done
fi
if [ ! -x "$PROG" ]; then
	t_skip "$N" "$PROG not built (mpicc missing on the host?)"
	t_done
fi
if ! vm_need_devices $NP; then
	t_fail "$N" "rxe0..rxe$((NP - 1)) are not all ACTIVE"
	t_done
fi

# Payload one rank sends to its NP-1 peers: 3 iterations of
# 4 + 4096 + 65536 bytes each, at most 4096 bytes per packet.
min_packets=$(((NP - 1) * 3 * (4 + 4096 + 65536) / 4096))
declare -A tx
for ((i = 0; i < NP; i++)); do
	tx[$i]=$(vm_packets "$(vm_netdev rxe$i)" tx)
done
rc=0
mpirun -np $NP --oversubscribe --allow-run-as-root \
	--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any \
	--mca btl self --mca osc ucx \
	-x UCX_TLS=self,rc_verbs,ud_verbs -x UCX_UD_ETH_DGID_CHECK=n \
	"$T_REPO/scripts/softroce" exec -- "$PROG" >"$T_TMP/mpi.out" 2>&1 || rc=$?
cat "$T_TMP/mpi.out"
if [ "$rc" -eq 0 ] && grep -q "^alltoall ok np=$NP " "$T_TMP/mpi.out"; then
	t_pass "$N: np=$NP MPI_Alltoall over pml ucx / rc_verbs, every element right"
else
	t_fail "$N: np=$NP MPI_Alltoall" "mpirun exit $rc: $(tail -5 "$T_TMP/mpi.out")"
fi
low=
for ((i = 0; i < NP; i++)); do
	nd=$(vm_netdev rxe$i)
	d=$(($(vm_packets "$nd" tx) - tx[$i]))
	[ "$d" -ge "$min_packets" ] || low+="$nd sent $d; "
done
if [ -z "$low" ]; then
	t_pass "$N: each rank's interface sent >= $min_packets packets"
else
	t_fail "$N: each rank's interface sent >= $min_packets packets" "$low"
fi
t_done
