#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# MPI_Alltoall(v) through libibflow_mpi (preloaded) and through the Open
# MPI component coll/ibflow under mpirun on one machine: results
# byte-identical to the MPI library's own (ibflow-a2a-check: PMPI_Alltoall
# (v) computed in the same program; below PMPI, Open MPI's own through
# coll/ibflow declining on a duplicate with the hint ibflow_alltoall=off;
# blocks of 1 B .. 560 KB, char, int, double and a strided vector type,
# each type every other size, MPI_IN_PLACE, duplicated, reversed and split
# communicators).  One mpirun runs many configurations, one communicator
# each, chosen by the communicators' ibflow_* info hints: liquid along a
# fabric's schedule (ranks on distinct hosts of two leaves by a host map;
# the per-communicator counters prove the path and the n - 1 frames),
# barrier per frame, pairwise, auto with a gain that declines (all to the
# MPI library), auto below its threshold (alltoall to the
# MPI library, alltoallv liquid), and LFTs with a hole (no schedule: the
# MPI library's algorithm, one warning per communicator).  Faults, through
# both integrations: a rank that stalls or dies inside a call; the others
# return an error within UCX_IBFLOW_TIMEOUT (mpirun --enable-recovery keeps
# them alive to say so); every UCX object the library creates made to fail
# in turn (IBFLOW_TEST_UCX_FAIL): no signal, no hang; the no-device job
# under valgrind: nothing of the library lost.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

W=$T_TMP
B=$T_BUILD_DIR
CHECK=$B/tests/ucx/ibflow-a2a-check
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"
# ---- a fabric: 8 hosts, 2 leaves, 2 spines; rank N on host h000N ----------
# ranks 0..3 on hosts of two leaves (h0000 h0004 h0001 h0005): three
# frames at best, and the liquid schedule reaches it (F, $W/map)
ucx_a2a_setup ucx_a2a "$CHECK"
# the same fabric with a hole: s1-1 has no entry for h0000's LID 1, so the
# route from rank 1 to rank 0 cannot be traced and there is no schedule
cp -r "$F" "$W/hole"
awk '/s1-1/ { sec = 1 } /s2-0/ { sec = 0 } !(sec && $1 == "0x0001")' \
	"$F/ibflow-lfts.dump" >"$W/hole/ibflow-lfts.dump"

# run NAME NP [ENV=VALUE...] -- [MPIRUN ARGS] -- [ARGS]: ibflow-a2a-check
run() {
	local name=$1 np=$2 xs=() ms=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		xs+=(-x "$1")
		shift
	done
	[ $# -gt 0 ] && shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		ms+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	ucx_mpirun "$np" -x IBFLOW_MPI_STATS "${ms[@]}" "${xs[@]}" \
		"$CHECK" "$@" >"$W/$name.out" 2>"$W/$name.err"
}

# Counter lines "WHO: comm NAME rank R: liquid N pairwise M frames F
# duration D[ liquid]" of communicator NAME in FILE: how many ranks match
# the awk condition COND (fields: $7 liquid, $9 pairwise, $11 frames,
# $13 duration).
ranks_with() { # FILE WHO NAME COND
	awk -v who="$2:" -v c="$3" '$1 == who && $2 == "comm" && $3 == c &&
		('"$4"') { n++ } END { print n + 0 }' "$1"
}
# cases rank 0 ran in variant V (FILE: the a2a-check output)
cases_of() { sed -n "s/^a2a-check: variant $2: \([0-9]*\) cases.*/\1/p" "$1"; }
ok_out() { grep -q '^a2a-check: [1-9][0-9]* cases, 0 mismatches' "$1"; }

# ---- libibflow_mpi: one run, five configurations ---------------------------
name=mpi4
t0=$SECONDS
run $name 4 LD_PRELOAD="$MPILIB" UCX_IBFLOW_FABRIC="$F" \
	UCX_IBFLOW_HOSTMAP="$W/map" -- -- --sample --max-bytes 1048576 \
	--variant liquid:world+reversed+split:ibflow_alltoall=liquid \
	--variant barrier:world:ibflow_alltoall=liquid,ibflow_alltoall_sync=barrier \
	--variant pairwise:split:ibflow_alltoall=pairwise \
	--variant auto:world:ibflow_alltoall=auto,ibflow_alltoall_thresh=1073741824,ibflow_alltoall_gain=0 \
	--variant declined:world:ibflow_alltoall=auto,ibflow_alltoall_gain=100 \
	--variant hole:world+split:ibflow_alltoall=liquid,ibflow_fabric="$W/hole"
rc=$?
if [ $rc -eq 0 ] && ok_out "$W/$name.out"; then
	t_pass "np 4 libibflow_mpi vs PMPI_Alltoall(v): $(grep '^a2a-check: [0-9]' "$W/$name.out") ($((SECONDS - t0)) s)"
else
	t_fail "np 4 libibflow_mpi" "rc $rc $(head -c 600 "$W/$name.out" "$W/$name.err")"
fi
E=$W/$name.err
n=$(cases_of "$W/$name.out" liquid)
# every call of a liquid communicator went liquid: 1 per case at each rank
# (a case is one MPI_Alltoall(v) call and its reference)
for c in liquid/world liquid/reversed; do
	[ "$(ranks_with "$E" ibflow-mpi $c "\$7 > 0 && \$9 == 0 && \$11 == 3 && \$13 == 3")" -eq 4 ] &&
		t_pass "$c: all 4 ranks liquid, 3 frames = duration 3 (n - 1: optimal)" ||
		t_fail "$c counters" "$(grep "comm $c " "$E")"
done
# split: halves of 2 ranks, one frame each
[ "$(ranks_with "$E" ibflow-mpi liquid/split "\$7 > 0 && \$11 == 1")" -eq 4 ] &&
	t_pass "liquid/split: both halves liquid, 1 frame" ||
	t_fail "liquid/split counters" "$(grep "comm liquid/split " "$E")"
[ "$(ranks_with "$E" ibflow-mpi barrier/world "\$7 > 0 && \$9 == 0")" -eq 4 ] &&
	t_pass "barrier/world: liquid with a barrier per frame, $(cases_of "$W/$name.out" barrier) cases" ||
	t_fail "barrier counters" "$(grep "comm barrier/" "$E")"
[ "$(ranks_with "$E" ibflow-mpi pairwise/split "\$7 == 0 && \$9 > 0")" -eq 4 ] &&
	t_pass "pairwise/split: pairwise at every rank" ||
	t_fail "pairwise counters" "$(grep "comm pairwise/" "$E")"
# auto below the threshold: alltoall to PMPI, alltoallv (no threshold)
# liquid: half of the calls
na=$(cases_of "$W/$name.out" auto)
[ -n "$na" ] && [ "$(ranks_with "$E" ibflow-mpi auto/world "\$7 == $na / 2")" -eq 4 ] &&
	t_pass "auto/world, threshold 2^30: the $((na / 2)) alltoall calls went to PMPI, the $((na / 2)) alltoallv liquid" ||
	t_fail "auto counters" "cases $na: $(grep "comm auto/" "$E")"
# auto with a gain the schedule cannot promise: the first call computes
# the schedule and declines (no block sent), every call goes to PMPI,
# and rank 0 says why once (IBFLOW_MPI_STATS)
nd=$(cases_of "$W/$name.out" declined)
[ -n "$nd" ] && [ "$nd" -gt 0 ] &&
	[ "$(ranks_with "$E" ibflow-mpi declined/world "\$7 == 0 && \$9 == 0 && \$11 > 0")" -eq 4 ] &&
	[ "$(grep -c 'auto: liquid [0-9]* frames, round robin [0-9]*: gain .* below 100.00' "$E")" -eq 1 ] &&
	t_pass "declined/world, gain 100: the schedule computed once, all $nd calls to PMPI, said once" ||
	t_fail "declined counters" "cases $nd: $(grep "comm declined/\|auto:" "$E")"
nw=$(grep -c "^ibflow-mpi: warning: .*no route; using the MPI library's all-to-all on this communicator" "$E")
[ "$(ranks_with "$E" ibflow-mpi hole/world "\$7 == 0 && \$9 == 0")" -eq 4 ] &&
[ "$(ranks_with "$E" ibflow-mpi hole/split "\$7 == 0 && \$9 == 0")" -eq 4 ] &&
[ "$nw" -eq 3 ] &&
	t_pass "LFTs with a hole: no schedule, every call to the MPI library (results equal), one warning per communicator (3)" ||
	t_fail "schedule fallback" "$nw warnings; $(grep -E "comm hole/|warning" "$E" | head -5)"
[ -n "$n" ] || t_fail "variant liquid ran" "$(head -c 300 "$W/$name.out")"

# ---- the Open MPI component coll/ibflow (no preload) ------------------------
if [ -n "$cpath" ]; then
	OMPI_MCA_mca_base_component_path=$cpath ompi_info >"$W/ompi_info" 2>&1
	grep -q 'MCA coll: ibflow' "$W/ompi_info" &&
		t_pass "ompi_info lists coll/ibflow (component path $cpath)" ||
		t_fail "ompi_info lists coll/ibflow" "$(grep -i coll "$W/ompi_info" | head -3)"
	# The component sits below PMPI: the reference is MPI_Alltoall(v) on
	# a duplicate with the hint ibflow_alltoall=off, where coll/ibflow
	# hands the call to the module selected before it (Open MPI's own).
	name=coll3
	t0=$SECONDS
	run $name 3 UCX_IBFLOW_FABRIC="$F" UCX_IBFLOW_HOSTMAP="$W/map" -- \
		--mca mca_base_component_path "$cpath" -- --ref off \
		--sample --max-bytes 65536 \
		--variant liquid:world:ibflow_alltoall=liquid \
		--variant liquids:split:ibflow_alltoall=liquid \
		--variant pairwise:reversed:ibflow_alltoall=pairwise
	rc=$?
	if [ $rc -eq 0 ] && ok_out "$W/$name.out"; then
		t_pass "coll/ibflow np 3 vs Open MPI's own alltoall(v): $(grep '^a2a-check: [0-9]' "$W/$name.out") ($((SECONDS - t0)) s)"
	else
		t_fail "coll/ibflow np 3" "rc $rc $(head -c 600 "$W/$name.out" "$W/$name.err")"
	fi
	# alltoall and alltoallv both through the component: a liquid call
	# per case; the reference's communicator none
	nl=$(cases_of "$W/$name.out" liquid)
	[ -n "$nl" ] &&
	[ "$(ranks_with "$W/$name.err" coll/ibflow liquid/world "\$7 == $nl && \$11 == 2")" -eq 3 ] &&
	[ "$(ranks_with "$W/$name.err" coll/ibflow pairwise/reversed "\$9 > 0 && \$7 == 0")" -eq 3 ] &&
	[ "$(ranks_with "$W/$name.err" coll/ibflow ref-liquid/world "\$9 == 0 && \$7 == 0")" -eq 3 ] &&
		t_pass "coll/ibflow: liquid/world took all its $nl alltoall(v) calls at every rank (2 frames), pairwise/reversed pairwise, the reference's none" ||
		t_fail "coll/ibflow counters" "cases $nl: $(grep '^coll/ibflow' "$W/$name.err" | head -8)"
else
	t_skip "coll/ibflow" "not built (needs Open MPI's developer headers) or no ompi_info"
fi

# integration mpi|coll: sets env (for run), margs (mpirun) and who (the
# prefix of its lines); false when coll/ibflow is not there
integration() {
	if [ "$1" = mpi ]; then
		env=(LD_PRELOAD="$MPILIB") margs=() who=ibflow-mpi
	elif [ -n "${cpath:-}" ]; then
		env=() margs=(--mca mca_base_component_path "$cpath") who=coll/ibflow
	else
		return 1
	fi
}

# ---- a device UCX does not know: the MPI library's algorithm ---------------------
# UCX_IBFLOW_NET_DEVICES=abc leaves the context (UCX_TLS=tcp,self: no
# shared memory to reach the local peers by) no transport to the peers:
# context creation fails once, naming the variable, and every call goes to
# the MPI library (results equal) without waiting for the timeout (60 s:
# one timed-out call would make the run slower than the whole of it).
for how in mpi coll; do
	name=nodev-$how
	integration "$how" || continue
	UCX_TLS=tcp,self UCX_IBFLOW_TIMEOUT=60s UCX_IBFLOW_NET_DEVICES=abc \
		run "$name" 3 "${env[@]}" \
		UCX_IBFLOW_FABRIC="$F" UCX_IBFLOW_HOSTMAP="$W/map" -- "${margs[@]}" -- \
		--sample --max-bytes 4096 --variant liquid:world:ibflow_alltoall=liquid
	rc=$?
	nw=$(grep -c "^$who: .*UCX_IBFLOW_NET_DEVICES=abc: no such device (available: .*); using the MPI library's all-to-all" "$W/$name.err")
	if [ $rc -eq 0 ] && ok_out "$W/$name.out" && [ "$nw" -eq 1 ] &&
		! grep -q "^$who: comm" "$W/$name.err"; then
		t_pass "$who, UCX_IBFLOW_NET_DEVICES=abc: one warning naming it, every call to the MPI library ($(grep '^a2a-check: [0-9]' "$W/$name.out"))"
	else
		t_fail "$who, UCX_IBFLOW_NET_DEVICES=abc" "rc $rc, $nw warnings: $(head -c 600 "$W/$name.out" "$W/$name.err")"
	fi
done

# ---- no device, under valgrind: nothing of the library left behind ---------------
# Every context of the job fails (as above); the process's control lane
# object, made by the first attempt, must still be closed at MPI_Finalize:
# no block allocated by the library is definitely lost at exit (2 ranks,
# the blocks' stacks named with --keep-debuginfo: coll/ibflow is unloaded
# by then).
if t_need valgrind; then
	for how in mpi coll; do
		integration "$how" || continue
		rm -f "$W"/vg-$how.*.log
		xs=()
		for e in "${env[@]}"; do
			xs+=(-x "$e")
		done
		UCX_TLS=tcp,self UCX_IBFLOW_NET_DEVICES=abc ucx_mpirun 2 \
			"${margs[@]}" -x UCX_IBFLOW_FABRIC="$F" \
			-x UCX_IBFLOW_HOSTMAP="$W/map" "${xs[@]}" \
			valgrind --leak-check=full --keep-debuginfo=yes \
			--log-file="$W/vg-$how.%p.log" "$B/tests/ucx/.libs/ibflow-a2a-check" \
			--sample --max-bytes 4096 \
			--variant liquid:world:ibflow_alltoall=liquid \
			>"$W/vg-$how.out" 2>"$W/vg-$how.err"
		rc=$?
		nlog=$(grep -l "HEAP SUMMARY" "$W"/vg-$how.*.log 2>/dev/null | wc -l)
		# loss records of definitely lost blocks allocated through the
		# library's functions (Open MPI's keyvals, which coll/ibflow
		# never frees, are Open MPI's blocks)
		ours=$(awk '/definitely lost in loss record/ { rec = $0; mine = 0; n++ }
			rec && / ibf_[a-z_]* \(/ { mine = 1 }
			rec && /^==[0-9]*== *$/ { if (mine) print rec; rec = "" }' \
			"$W"/vg-$how.*.log | sed 's/^==[0-9]*== *//')
		if [ $rc -eq 0 ] && ok_out "$W/vg-$how.out" && [ "$nlog" -eq 2 ] &&
			[ -z "$ours" ]; then
			t_pass "$who, no device, under valgrind: both ranks' leak checks name no block of the library definitely lost"
		else
			t_fail "$who, no device, under valgrind" "rc $rc, $nlog leak checks: $(echo "$ours" | head -3 | tr '\n' ' ')$(head -c 300 "$W/vg-$how.err")"
		fi
	done
else
	t_skip "no device under valgrind" "valgrind is not installed"
fi

# ---- every UCX object made to fail in turn ----------------------------------------
# IBFLOW_TEST_UCX_FAIL=N fails each process's N-th call that creates a UCX
# object (the data context's ucp_init, worker, event fd and address, the
# control lane's, the endpoints), N = 1, 2, ... until no process makes an
# N-th one: the error paths of opening and closing, walked one by one.
# Each run must end without a signal or a hang, either with every result
# right (no context: the MPI library's all-to-all; no lane: the data
# lane) or, for a failed endpoint, with the call's error naming it.
for how in mpi coll; do
	integration "$how" || continue
	n=0 bad= kinds=
	while [ $n -lt 40 ]; do
		n=$((n + 1))
		name=fail-$how-$n
		run "$name" 3 "${env[@]}" IBFLOW_TEST_UCX_FAIL=$n \
			UCX_IBFLOW_FABRIC="$F" UCX_IBFLOW_HOSTMAP="$W/map" -- \
			"${margs[@]}" -- --sample --max-bytes 4096 \
			--variant liquid:world:ibflow_alltoall=liquid
		rc=$?
		made=$(sed -n "s/^ibflow: IBFLOW_TEST_UCX_FAIL=$n: \(.*\) made to fail (pid [0-9]*)$/\1/p" "$W/$name.err" | sort -u)
		[ -n "$made" ] || break
		kinds=$(printf '%s\n%s\n' "$kinds" "$made" | sort -u | grep .)
		if grep -qi "signal\|segmentation\|AddressSanitizer" "$W/$name.err" ||
			[ $rc -eq 124 ] || [ $rc -gt 128 ] ||
			! { [ $rc -eq 0 ] && ok_out "$W/$name.out" ||
			    { [ $rc -ne 0 ] && grep -q "^$who: .*No resources are available" "$W/$name.err"; }; }; then
			bad="$bad; N=$n ($(echo "$made" | paste -sd,)): rc $rc $(grep -v 'made to fail' "$W/$name.err" | head -c 300)"
		fi
	done
	nk=$(echo "$kinds" | grep -c .)
	if [ -z "$bad" ] && [ $n -lt 40 ] &&
		echo "$kinds" | grep -qx ucp_init &&
		echo "$kinds" | grep -qx ucp_ep_create &&
		echo "$kinds" | grep -qx "ucp_init (control lane)"; then
		t_pass "$who: each of the $((n - 1)) UCX creating calls made to fail in turn ($nk kinds: $(echo "$kinds" | paste -sd, | sed 's/,/, /g')): no signal, no hang; right results or the failed call named"
	else
		t_fail "$who: UCX calls made to fail" "$((n - 1)) walked, kinds: $(echo "$kinds" | paste -sd,)$bad"
	fi
done

# ---- faults inside a call ------------------------------------------------------
# Rank 1 stalls (for 10 s) or dies 300 ms into a loop of 64 KiB
# all-to-alls, inside a call; ranks 0 and 2 must return an error within
# the 3 s timeout (plus slack for a loaded machine) instead of hanging.
# Both integrations: libibflow_mpi preloaded, coll/ibflow by component path.
for fault in "mpi stall" "mpi die" "coll stall" "coll die"; do
	read -r how mode <<<"$fault"
	name=$how-$mode
	integration "$how" || continue
	UCX_IBFLOW_TIMEOUT=3s run "$name" 3 "${env[@]}" UCX_IBFLOW_FABRIC="$F" \
		UCX_IBFLOW_HOSTMAP="$W/map" UCX_IBFLOW_ALLTOALL=liquid -- \
		--enable-recovery "${margs[@]}" -- --fault "$mode" \
		--fault-rank 1 --fault-ms 300
	ok=0
	for r in 0 2; do
		awk -v r=$r '$1 == "fault:" && $3 == r ":" && $4 == "call" &&
			$6 == "rc" && $7 != 0 && $9 < 8 { f = 1 }
			END { exit !f }' "$W/$name.out" && ok=$((ok + 1))
	done
	[ $ok -eq 2 ] && grep -q "^$who: all-to-all (liquid)[,:] .*frame\\|^$who: all-to-all (liquid): " "$W/$name.err" &&
		t_pass "$who: rank 1 ${mode}s inside a call: ranks 0 and 2 return an error within the 3 s timeout ($(grep -h 'rank [02]: call' "$W/$name.out" | tr '\n' ' '))" ||
		t_fail "$who: rank 1 ${mode}s" "$(head -c 800 "$W/$name.out" "$W/$name.err")"
done

t_done
