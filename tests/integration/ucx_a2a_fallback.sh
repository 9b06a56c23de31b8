#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A liquid schedule that cannot be made or held is never an error: every
# rank of a real MPI job runs the MPI library's algorithm, rank 0 warns
# once per communicator, and the results stay right (ibflow-a2a-check
# against PMPI_Alltoall(v) through libibflow_mpi, against Open MPI's own
# through coll/ibflow).  The failures come from the runtime's test hooks
# (docs/ucx-alltoall.md, "No schedule"): IBFLOW_TEST_A2A_MAX_TRANSFERS
# lowers the planner's limit below the 4-host world's 12 host pairs (the
# 2-host halves of a split, 2 host pairs each, still plan and go liquid);
# IBFLOW_TEST_A2A_REFUSE=2 makes rank 2 refuse the memory for its part
# after the planner has made the plan (every rank still falls back
# together).  And auto over TCP declines without computing a schedule
# (no frames in the counters).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

W=$T_TMP
B=$T_BUILD_DIR
CHECK=$B/tests/ucx/ibflow-a2a-check
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"
ucx_a2a_setup ucx_a2a_fallback "$CHECK"

# ranks_with FILE WHO NAME COND: counter lines of communicator NAME
# matching COND ($7 liquid, $9 pairwise, $11 frames)
ranks_with() {
	awk -v who="$2:" -v c="$3" '$1 == who && $2 == "comm" && $3 == c &&
		('"$4"') { n++ } END { print n + 0 }' "$1"
}
ok_out() { grep -q '^a2a-check: [1-9][0-9]* cases, 0 mismatches' "$1"; }

# check HOW NAME HOOK=VALUE -- CHECK-ARGS: one mpirun of 4 ranks through
# integration HOW (mpi: libibflow_mpi preloaded against PMPI; coll:
# coll/ibflow against Open MPI's own on a duplicate with the hint
# ibflow_alltoall=off)
check() {
	local how=$1 name=$2 hook=$3 env=() margs=() ref=()
	shift 4
	if [ "$how" = mpi ]; then
		env=(-x LD_PRELOAD="$MPILIB")
	else
		margs=(--mca mca_base_component_path "$cpath")
		ref=(--ref off)
	fi
	ucx_mpirun 4 -x IBFLOW_MPI_STATS "${env[@]}" -x "$hook" \
		-x UCX_IBFLOW_FABRIC="$F" -x UCX_IBFLOW_HOSTMAP="$W/map" \
		"${margs[@]}" "$CHECK" "${ref[@]}" --sample --max-bytes 65536 \
		"$@" >"$W/$name.out" 2>"$W/$name.err"
}

for how in mpi coll; do
	if [ "$how" = mpi ]; then who=ibflow-mpi; else who=coll/ibflow; fi
	if [ "$how" = coll ] && [ -z "$cpath" ]; then
		t_skip "coll/ibflow" "not built (needs Open MPI's developer headers) or no ompi_info"
		continue
	fi

	# the planner's limit: 5 host pairs
	name=$how-cap
	check $how $name IBFLOW_TEST_A2A_MAX_TRANSFERS=5 -- \
		--variant liquid:world+split:ibflow_alltoall=liquid
	rc=$?
	E=$W/$name.err
	nw=$(grep -c "^$who: warning: all-to-all schedule: 4 hosts are 12 host pairs, more than the planner takes (5); using the MPI library's all-to-all on this communicator" "$E")
	[ $rc -eq 0 ] && ok_out "$W/$name.out" && [ "$nw" -eq 1 ] &&
		[ "$(ranks_with "$E" "$who" liquid/world "\$7 == 0 && \$9 == 0")" -eq 4 ] &&
		[ "$(ranks_with "$E" "$who" liquid/split "\$7 > 0 && \$9 == 0")" -eq 4 ] &&
		t_pass "$who, planner limit 5 host pairs: the world's every call to the MPI library, said once; the split's halves liquid ($(grep '^a2a-check: [0-9]' "$W/$name.out"))" ||
		t_fail "$who, planner limit" "rc $rc, $nw warnings: $(grep -E "^$who: (comm|warning)" "$E" | head -6) $(head -c 400 "$W/$name.out")"

	# rank 2 cannot hold its part
	name=$how-refuse
	check $how $name IBFLOW_TEST_A2A_REFUSE=2 -- \
		--variant liquid:world:ibflow_alltoall=liquid \
		--variant auto:world:ibflow_alltoall=auto,ibflow_alltoall_gain=0
	rc=$?
	E=$W/$name.err
	nw=$(grep -c "^$who: warning: all-to-all schedule: rank 2 could not hold its part; using the MPI library's all-to-all on this communicator" "$E")
	[ $rc -eq 0 ] && ok_out "$W/$name.out" && [ "$nw" -eq 2 ] &&
		[ "$(ranks_with "$E" "$who" liquid/world "\$7 == 0 && \$9 == 0")" -eq 4 ] &&
		[ "$(ranks_with "$E" "$who" auto/world "\$7 == 0 && \$9 == 0")" -eq 4 ] &&
		t_pass "$who, rank 2 refuses its part: every rank to the MPI library, forced and auto, one warning per communicator ($(grep '^a2a-check: [0-9]' "$W/$name.out"))" ||
		t_fail "$who, rank 2 refuses" "rc $rc, $nw warnings: $(grep -E "^$who: (comm|warning)" "$E" | head -6) $(head -c 400 "$W/$name.out")"
done

# auto over TCP with its default gain: declined before any schedule is
# computed (frames 0), said once with IBFLOW_MPI_STATS
name=mpi-autotcp
check mpi $name IBFLOW_TEST_A2A_REFUSE= -- \
	--variant auto:world:ibflow_alltoall=auto
rc=$?
E=$W/$name.err
nd=$(grep -c "^ibflow-mpi: all-to-all: auto: over TCP the MPI library's own (no schedule computed" "$E")
[ $rc -eq 0 ] && ok_out "$W/$name.out" && [ "$nd" -eq 1 ] &&
	[ "$(ranks_with "$E" ibflow-mpi auto/world "\$7 == 0 && \$9 == 0 && \$11 == 0")" -eq 4 ] &&
	t_pass "auto over TCP: declined without a schedule (0 frames), every call to PMPI, said once" ||
	t_fail "auto over TCP" "rc $rc, $nd lines: $(grep -E "^ibflow-mpi: (comm|all-to-all)" "$E" | head -6)"
t_done
