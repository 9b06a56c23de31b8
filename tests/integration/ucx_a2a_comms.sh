#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Communicators as real codes make them, through both integrations
# (libibflow_mpi preloaded, coll/ibflow by component path), liquid forced
# on a fabric (8 ranks on the 8 hosts of two leaves), every result
# checked (ibflow-a2a-comms, ibflow-a2a-edge):
#   - 100 communicators made, used and freed in one job, then 64 alive at
#     once, each used, then 100 again: three jobs back to back.  The
#     control messages of all of them share one control lane per process
#     (one listening port of UCX_IBFLOW_CTL_TCP_PORTS each): 8 ranks x 64
#     communicators would need 512 ports of the 128 with a lane per
#     communicator.  No job may fail, no call time out (30 s), and no
#     process say that its lane could not be had.
#   - 2 and 4 threads (MPI_THREAD_MULTIPLE) making and using
#     communicators at once; the process environment the same after.
#   - a lane port range for 2 of 4 processes: the others run without the
#     lane at once, saying why once.
#   - the corners of MPI_Alltoall(v): zero counts, NULL buffers, a
#     zero-size type, in-place alltoallv with gaps, reversed splits,
#     MPI_COMM_SELF, different datatypes of matching signatures.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

W=$T_TMP
B=$T_BUILD_DIR
COMMS=$B/tests/ucx/ibflow-a2a-comms
EDGE=$B/tests/ucx/ibflow-a2a-edge
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"
ucx_a2a_setup ucx_a2a_comms "$COMMS"
for i in 0 1 2 3 4 5 6 7; do
	echo "rank:$i \"h000$i HCA-1\""
done >"$W/map8"

# job NAME NP PROG ARGS...: the integration's mpirun ($env, $margs)
job() {
	local name=$1 np=$2

	shift 2
	ucx_mpirun "$np" -x IBFLOW_MPI_STATS -x UCX_IBFLOW_FABRIC="$F" \
		-x UCX_IBFLOW_HOSTMAP="$W/map8" -x UCX_IBFLOW_ALLTOALL=liquid \
		"${env[@]}" "${margs[@]}" "$@" >"$W/$name.out" 2>"$W/$name.err"
}

# the summary line of a2a-comms in FILE: all calls right, none failed
comms_ok() { # FILE MODE NCOMMS
	grep -q "^a2a-comms: $2: $3 communicators, [1-9][0-9]* calls, 0 wrong, 0 errors" "$1"
}

# liquid calls counted at the ranks' communicators (IBFLOW_MPI_STATS)
liquid_calls() { # FILE WHO
	awk -v who="$2:" '$1 == who && $2 == "comm" { n += $7 } END { print n + 0 }' "$1"
}

# connections in TIME_WAIT on the control lane's default ports
lane_time_wait() {
	ss -Htan state time-wait 2>/dev/null | awk '{ split($3, a, ":");
		p = a[length(a)]; if (p >= 20480 && p <= 20607) n++ }
		END { print n + 0 }'
}

for how in mpi coll; do
	if [ "$how" = mpi ]; then
		env=(-x LD_PRELOAD="$MPILIB") margs=() who=ibflow-mpi
	elif [ -n "$cpath" ]; then
		env=() margs=(--mca mca_base_component_path "$cpath") who=coll/ibflow
	else
		t_skip "coll/ibflow: many communicators" "coll/ibflow is not built"
		continue
	fi
	# three jobs back to back
	for spec in "made1 made 100" "alive alive 64" "made2 made 100"; do
		read -r name mode n <<<"$spec"
		t0=$SECONDS
		job "$how-$name" 8 "$COMMS" "$mode" "$n"
		rc=$?
		out=$W/$how-$name.out err=$W/$how-$name.err
		# every call liquid: 2 a communicator at each of its ranks
		nl=$(liquid_calls "$err" "$who")
		if [ $rc -eq 0 ] && comms_ok "$out" "$mode" "$n" &&
			[ "$nl" -eq $((n * 2 * 8)) ] &&
			! grep -q "control messages share the data lane\|no answer within" "$err"; then
			t_pass "$who: $n communicators $mode, 8 ranks: $(sed -n "s/^a2a-comms: $mode: //p" "$out"), all $nl calls liquid, one lane a process; $(lane_time_wait) lane connections in TIME_WAIT after ($((SECONDS - t0)) s)"
		else
			t_fail "$who: $n communicators $mode" "rc $rc, $nl liquid calls: $(head -c 300 "$out"; grep -v '^\(ibflow-mpi\|coll/ibflow\): \(comm\|map\|rank\)' "$err" | head -c 600)"
		fi
	done
	# threads
	for nt in 2 4; do
		name=$how-threads$nt
		t0=$SECONDS
		job "$name" 4 "$COMMS" threads $nt 3
		rc=$?
		nu=$(grep -c '^a2a-comms: rank [0-9]*: environment unchanged$' "$W/$name.out")
		nl=$(liquid_calls "$W/$name.err" "$who")
		if [ $rc -eq 0 ] && comms_ok "$W/$name.out" threads $((nt * 3)) &&
			[ "$nu" -eq 4 ] && [ "$nl" -eq $((nt * 3 * 2 * 4)) ]; then
			t_pass "$who: $nt threads each making and using 3 communicators at once, 4 ranks: $(sed -n 's/^a2a-comms: threads: //p' "$W/$name.out"), all $nl calls liquid, environment unchanged at all 4 ranks ($((SECONDS - t0)) s)"
		else
			t_fail "$who: $nt threads" "rc $rc, $nu unchanged, $nl liquid: $(head -c 400 "$W/$name.out"; head -c 600 "$W/$name.err")"
		fi
	done
	# a port range for 2 of 4 processes: the other two say so once and
	# every communicator runs without the lane, at once, not after a
	# search of the timeout's length
	name=$how-ports
	job "$name" 4 -x UCX_IBFLOW_CTL_TCP_PORTS=20700-20701 "$COMMS" made 3
	rc=$?
	nw=$(grep -c "^ibflow: rank [0-9]*: control lane: no free TCP port in 20700-20701 (UCX_IBFLOW_CTL_TCP_PORTS): 2 of 2 in use; control messages share the data lane$" "$W/$name.err")
	if [ $rc -eq 0 ] && comms_ok "$W/$name.out" made 3 && [ "$nw" -eq 2 ]; then
		t_pass "$who: 2 lane ports for 4 processes: the 2 without one say so once, all calls right without the lane ($(sed -n 's/^a2a-comms: made: //p' "$W/$name.out"))"
	else
		t_fail "$who: 2 lane ports for 4 processes" "rc $rc, $nw messages: $(head -c 300 "$W/$name.out"; grep -v '^\(ibflow-mpi\|coll/ibflow\): \(comm\|map\|rank\)' "$W/$name.err" | head -c 600)"
	fi
	# the corners
	name=$how-edge
	job "$name" 4 "$EDGE"
	rc=$?
	nok=$(grep -c '^a2a-edge: .*: ok$' "$W/$name.out")
	if [ $rc -eq 0 ] && [ "$nok" -eq 12 ]; then
		t_pass "$who: 12 corner cases right ($(sed -n 's/^a2a-edge: \(.*\): ok$/\1/p' "$W/$name.out" | paste -sd ';' | sed 's/;/; /g'))"
	else
		t_fail "$who: corner cases" "rc $rc, $nok ok: $(grep -v ': ok$' "$W/$name.out" | head -c 400; head -c 400 "$W/$name.err")"
	fi
done
t_done
