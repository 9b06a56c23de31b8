#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# MPI_Alltoall(v) of more than 2 GiB at each rank through both
# integrations (libibflow_mpi preloaded, coll/ibflow by component path),
# liquid forced, 2 ranks on hosts of two leaves: MPI_IN_PLACE and separate
# buffers, MPI_INT and a vector type with gaps, every value checked
# (ibflow-a2a-big).  int sizes no longer hold such a buffer: the packing
# goes in pieces, and a call that cannot be done is refused, never
# answered wrong.  2.06 GiB a rank where the machine's free memory allows
# (the job may take 60 % of it: 12.4 GB for the vector cases), else the
# largest that fits, said as such.  Runs under the heavy-job lock (its
# waits included, 2-8 minutes here); skipped under --quick.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

W=$T_TMP
B=$T_BUILD_DIR
BIG=$B/tests/ucx/ibflow-a2a-big
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"
if [ "$T_QUICK" = 1 ]; then
	t_skip ucx_a2a_big "--quick: 8 GB and minutes of all-to-alls"
	t_done
fi
ucx_a2a_setup ucx_a2a_big "$BIG"

# ints a block, 2 blocks a rank, 4 bytes an int: 2.06 GiB a rank, past
# 2^31 bytes, where the machine's free memory allows (at most 60 % of
# it for the job): the MPI_INT cases hold 2 buffers of a rank's size at
# each of 2 ranks, those with the vector type 3; else the largest that
# fits, said as such
avail=$(awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo)
target=276000000
fit() { # BUFFERS_A_RANK
	awk -v a="$avail" -v w=$target -v k="$1" 'BEGIN { n = a * 0.6 / (2 * k * 8);
		printf "%d", n < w ? n : w }'
}
count=$(fit 2) vcount=$(fit 3)
gib() { awk -v n="$1" 'BEGIN { printf "%.2f", n * 8 / 2^30 }'; }
for n in $count $vcount; do
	[ "$n" -eq $target ] ||
		echo "# only $(gib "$n") GiB a rank fit the free memory (below 2 GiB)"
done
size="$(gib "$count") GiB a rank ($(gib "$vcount") with the vector type)"

# The four kinds (in place and separate, MPI_INT and the vector type),
# shared out between the integrations (the packing code is the same):
# a case of this size takes a minute on a busy machine.
# IBFLOW_A2A_BIG_ALL=1: all five cases through both.
for how in mpi coll; do
	if [ "$how" = mpi ]; then
		env=(-x LD_PRELOAD="$MPILIB") margs=() who=ibflow-mpi
		cases=(in-place v-vector-sent)
	elif [ -n "$cpath" ]; then
		env=() margs=(--mca mca_base_component_path "$cpath") who=coll/ibflow
		cases=(separate in-place-vector)
	else
		t_skip "coll/ibflow, big buffers" "coll/ibflow is not built"
		continue
	fi
	[ -n "${IBFLOW_A2A_BIG_ALL:-}" ] && cases=()
	t0=$SECONDS
	flock /tmp/ibflow-heavy.lock \
		timeout 600 mpirun --allow-run-as-root --oversubscribe -np 2 \
		--mca pml ob1 --mca mpi_yield_when_idle 1 -x LD_LIBRARY_PATH \
		-x UCX_IBFLOW_TIMEOUT=120s -x UCX_TLS -x UCX_IBFLOW_NET_DEVICES \
		-x IBFLOW_MPI_STATS -x UCX_IBFLOW_FABRIC="$F" \
		-x UCX_IBFLOW_HOSTMAP="$W/map" -x UCX_IBFLOW_ALLTOALL=liquid \
		"${env[@]}" "${margs[@]}" "$BIG" "$count" "$vcount" "${cases[@]}" \
		>"$W/$how.out" 2>"$W/$how.err"
	rc=$?
	ncase=$(grep -c '^a2a-big: .*: ok 0$' "$W/$how.out")
	want=${#cases[@]}
	[ "$want" -eq 0 ] && want=5
	# every call liquid at both ranks
	nliq=$(awk -v who="$who:" -v n=$want '$1 == who && $2 == "comm" &&
		$7 == n && $9 == 0 { k++ } END { print k + 0 }' "$W/$how.err")
	if [ $rc -eq 0 ] && [ "$ncase" -eq "$want" ] && [ "$nliq" -eq 2 ]; then
		t_pass "$who, $size: $(sed -n 's/^a2a-big: \(.*\): ok 0$/\1/p' "$W/$how.out" | paste -sd ';' | sed 's/;/; /g'): all values right, all $want calls liquid at both ranks ($((SECONDS - t0)) s)"
	else
		t_fail "$who, $size" "rc $rc, $ncase of $want cases right, $nliq ranks liquid: $(head -c 800 "$W/$how.out" "$W/$how.err")"
	fi
done
t_done
