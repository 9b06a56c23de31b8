/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-a2a-bench: MPI_Alltoall latency by block size, in the manner of
 * osu_alltoall.  Run it with libibflow_mpi preloaded and
 * UCX_IBFLOW_ALLTOALL=liquid|pairwise|off to compare the algorithms with
 * each other and with the MPI library's own (docs/ucx-alltoall.md).
 *
 *   mpirun -np N [-x LD_PRELOAD=libibflow_mpi.so] ibflow-a2a-bench
 *       [--min BYTES] [--max BYTES] [--iters N] [--warmup N]
 *
 * Prints "BYTES AVG_US MIN_US MAX_US MB_S" lines at rank 0 (average over
 * the iterations of each rank, then average / min / max over the ranks;
 * MB_S the aggregate bandwidth, N (N - 1) BYTES / MAX_US: every block
 * between distinct ranks over the slowest rank's time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--min BYTES] [--max BYTES] [--iters N] "
		"[--warmup N]\n", prog);
	return 2;
}

static int parse(int argc, char **argv, long *min, long *max, int *iters,
		 int *warmup)
{
	int i;

	for (i = 1; i < argc; i += 2) {
		char *end;
		long v;

		if (i + 1 >= argc)
			return usage(argv[0]);
		v = strtol(argv[i + 1], &end, 10);
		if (*end || v < 1 || v > (1L << 30)) {
			fprintf(stderr, "%s: %s: '%s' is not 1..2^30\n",
				argv[0], argv[i], argv[i + 1]);
			return 2;
		}
		if (!strcmp(argv[i], "--min"))
			*min = v;
		else if (!strcmp(argv[i], "--max"))
			*max = v;
		else if (!strcmp(argv[i], "--iters"))
			*iters = (int)v;
		else if (!strcmp(argv[i], "--warmup"))
			*warmup = (int)v;
		else
			return usage(argv[0]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long min = 1, max = 1 << 20, b;
	int iters = 20, warmup = 3, rank, size, i, rc;
	char *s, *r;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rc = parse(argc, argv, &min, &max, &iters, &warmup);
	if (rc) {
		MPI_Finalize();
		return rc;
	}
	s = malloc((size_t)max * size);
	r = malloc((size_t)max * size);
	if (!s || !r) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(s, rank, (size_t)max * size);
	if (rank == 0)
		printf("# ibflow-a2a-bench: %d processes\n"
		       "# bytes avg_us min_us max_us aggregate_MB_s\n", size);
	for (b = min; b <= max; b *= 2) {
		double t0 = 0, t, avg, lo, hi;

		for (i = 0; i < warmup + iters; i++) {
			if (i == warmup) {
				MPI_Barrier(MPI_COMM_WORLD);
				t0 = MPI_Wtime();
			}
			MPI_Alltoall(s, (int)b, MPI_CHAR, r, (int)b, MPI_CHAR,
				     MPI_COMM_WORLD);
		}
		t = (MPI_Wtime() - t0) * 1e6 / iters;
		MPI_Reduce(&t, &avg, 1, MPI_DOUBLE, MPI_SUM, 0,
			   MPI_COMM_WORLD);
		MPI_Reduce(&t, &lo, 1, MPI_DOUBLE, MPI_MIN, 0,
			   MPI_COMM_WORLD);
		MPI_Reduce(&t, &hi, 1, MPI_DOUBLE, MPI_MAX, 0,
			   MPI_COMM_WORLD);
		if (rank == 0)
			printf("%ld %.1f %.1f %.1f %.2f\n", b, avg / size, lo,
			       hi, (double)size * (size - 1) * b / hi);
		fflush(stdout);
	}
	free(s);
	free(r);
	MPI_Finalize();
	return 0;
}
