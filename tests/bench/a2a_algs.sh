# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Sourced by the all-to-all benchmarks (bench_a2a_netns.sh,
# bench_a2a_softroce.sh): which mpirun settings select each algorithm.
#
# bench_alg ALG RUN: calls the caller's `bench ALG RUN MPIRUN-ARGS...`;
# IBF (array) holds the caller's libibflow_mpi arguments.  ALG: default
# (libibflow_mpi with nothing set: what a user gets, UCX_IBFLOW_ALLTOALL=
# auto), liquid (link-exact releases on the control lane), liquidnolane
# (releases on the data lane), liquidready (readiness tokens),
# liquidbar (a barrier per frame), pairwise (ours), ompi (Open MPI's
# tuned default), ompiN (its forced algorithm N).
bench_alg() {
	local alg=$1 run=$2

	case $alg in
	default)
		bench "$alg" "$run" "${IBF[@]}" ;;
	liquid|pairwise)
		bench "$alg" "$run" "${IBF[@]}" -x UCX_IBFLOW_ALLTOALL="$alg" ;;
	liquidnolane)
		bench "$alg" "$run" "${IBF[@]}" -x UCX_IBFLOW_ALLTOALL=liquid \
			-x UCX_IBFLOW_CTL_LANE=n ;;
	liquidready)
		bench "$alg" "$run" "${IBF[@]}" -x UCX_IBFLOW_ALLTOALL=liquid \
			-x UCX_IBFLOW_ALLTOALL_SYNC=ready ;;
	liquidbar)
		bench "$alg" "$run" "${IBF[@]}" -x UCX_IBFLOW_ALLTOALL=liquid \
			-x UCX_IBFLOW_ALLTOALL_SYNC=barrier ;;
	ompi)
		bench "$alg" "$run" ;;
	ompi*)
		bench "$alg" "$run" --mca coll_tuned_use_dynamic_rules 1 \
			--mca coll_tuned_alltoall_algorithm "${alg#ompi}" ;;
	*)
		echo "bench_alg: unknown algorithm '$alg'" >&2
		return 2 ;;
	esac
}
