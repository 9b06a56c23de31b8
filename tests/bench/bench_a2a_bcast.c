/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The broadcast half of "rank 0 computes the all-to-all schedule and
 * broadcasts it" (docs/ucx-alltoall.md): for each size, the time of
 * libibflow_ucx's broadcast algorithm (ucx_component/src/core/comm.c,
 * bcast_tree: a binomial tree of whole-message sends from the root, here
 * with MPI_Send/MPI_Recv over the same UCX) and of MPI_Bcast, the slowest
 * rank's median over --iters calls, microseconds.
 *
 *   mpirun -np N bench_a2a_bcast [--iters K] SIZE...
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void tree(char *buf, int len, int rank, int n)
{
	int mask = 1;

	for (; mask < n; mask <<= 1)
		if (rank & mask) {
			MPI_Recv(buf, len, MPI_CHAR, rank - mask, 7,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (rank + mask < n)
			MPI_Send(buf, len, MPI_CHAR, rank + mask, 7,
				 MPI_COMM_WORLD);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank, n, iters = 20, a = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc > 2 && !strcmp(argv[1], "--iters")) {
		iters = atoi(argv[2]);
		a = 3;
	}
	if (iters < 1 || iters > 1000)
		iters = 20;
	if (!rank)
		printf("# np %d, %d calls each (+2 warm-up), slowest rank, "
		       "median; bytes tree_us mpi_bcast_us\n", n, iters);
	for (; a < argc; a++) {
		int len = atoi(argv[a]);
		char *buf = calloc((size_t)len + 1, 1);
		double *tt = malloc(iters * sizeof(*tt));
		double *tb = malloc(iters * sizeof(*tb));

		for (int q = -2; q < iters; q++) {
			double t0, t, mx;

			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			tree(buf, len, rank, n);
			t = MPI_Wtime() - t0;
			MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX,
				      MPI_COMM_WORLD);
			if (q >= 0)
				tt[q] = mx;
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			MPI_Bcast(buf, len, MPI_CHAR, 0, MPI_COMM_WORLD);
			t = MPI_Wtime() - t0;
			MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX,
				      MPI_COMM_WORLD);
			if (q >= 0)
				tb[q] = mx;
		}
		qsort(tt, iters, sizeof(*tt), cmp_d);
		qsort(tb, iters, sizeof(*tb), cmp_d);
		if (!rank)
			printf("%d %.1f %.1f\n", len, tt[iters / 2] * 1e6,
			       tb[iters / 2] * 1e6);
		fflush(stdout);
		free(buf);
		free(tt);
		free(tb);
	}
	MPI_Finalize();
	return 0;
}
