#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The broadcast of a liquid all-to-all schedule (bench_a2a_bcast.c) over
# UCX's TCP transport between processes of this machine: the sizes
# schedule.c broadcasts for n = 8, 16, 64, 256 and 1,024 ranks (4 bytes per
# transfer and a 16-byte header), for each NP.
#   tests/bench/bench_a2a_bcast.sh [NP...]      (default 2 4 8)
# Needs mpicc and mpirun (Open MPI with pml ucx).
set -eu
out=${BENCH_DIR:-/tmp/ibflow-bench}
mkdir -p "$out"
mpicc -O2 -Wall -o "$out/bench_a2a_bcast" "$(dirname "$0")/bench_a2a_bcast.c"
SIZES=
for n in 8 16 64 256 1024; do SIZES="$SIZES $((4 * (n * (n - 1) + 4)))"; done
for np in ${*:-2 4 8}; do
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	timeout 600 mpirun --allow-run-as-root --oversubscribe -np "$np" \
		--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any \
		--mca mpi_yield_when_idle 1 -x UCX_TLS=tcp,self \
		"$out/bench_a2a_bcast" --iters 20 $SIZES
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
