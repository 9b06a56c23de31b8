/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * MPI smoke test for soft-RoCE: MPI_Alltoall at a few sizes, checked
 * element by element against the values every rank can compute for its
 * peers, so a wrong, shifted or duplicated block is caught.
 *
 * Rank r sends to rank j the block  v(r, j, k) = r * 1000003 + j * 1009 + k,
 * k = 0..count-1, so rank r must receive v(i, r, k) from every rank i.
 * Sizes span UCX's eager and rendezvous protocols.  Rank 0 prints
 *   alltoall ok np=N sizes=... iterations=...
 * or the first mismatches; the exit status is 0 only when every rank
 * received everything right.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERATIONS 3

static int value(int from, int to, int k)
{
	return from * 1000003 + to * 1009 + k;
}

/* Errors seen by this rank for one size. */
static long check_size(int rank, int np, int count)
{
	int *send = malloc((size_t)np * count * sizeof(int));
	int *recv = malloc((size_t)np * count * sizeof(int));
	long bad = 0;
	int it, i, k;

	if (!send || !recv) {
		fprintf(stderr, "rank %d: out of memory for count %d\n", rank, count);
		free(send);
		free(recv);
		return 1;
	}
	for (i = 0; i < np; i++)
		for (k = 0; k < count; k++)
			send[(size_t)i * count + k] = value(rank, i, k);
	for (it = 0; it < ITERATIONS; it++) {
		for (i = 0; i < np * count; i++)
			recv[i] = -1;
		MPI_Alltoall(send, count, MPI_INT, recv, count, MPI_INT,
			     MPI_COMM_WORLD);
		for (i = 0; i < np; i++)
			for (k = 0; k < count; k++) {
				int got = recv[(size_t)i * count + k];

				if (got == value(i, rank, k))
					continue;
				if (bad++ < 3)
					fprintf(stderr, "rank %d: count %d: element %d from rank %d is %d, expected %d\n",
						rank, count, k, i, got, value(i, rank, k));
			}
	}
	free(send);
	free(recv);
	return bad;
}

int main(int argc, char **argv)
{
	/* 4 B (eager), 4 KiB, 64 KiB per peer (rendezvous). */
	static const int counts[] = { 1, 1024, 16384 };
	int rank, np, s;
	long bad = 0, total = 0;

	(void)argc;
	(void)argv;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	for (s = 0; s < (int)(sizeof(counts) / sizeof(counts[0])); s++)
		bad += check_size(rank, np, counts[s]);
	MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		if (total == 0)
			printf("alltoall ok np=%d sizes=4,4096,65536 iterations=%d\n",
			       np, ITERATIONS);
		else
			printf("alltoall FAILED np=%d: %ld wrong elements\n", np, total);
	}
	MPI_Finalize();
	return total == 0 ? 0 : 1;
}
