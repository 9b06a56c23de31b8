/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-a2a-edge: the corners of MPI_Alltoall(v) that collective test
 * suites probe, through whichever integration is loaded: zero counts
 * with NULL buffers, a zero-size datatype, in-place alltoallv with gaps
 * between the blocks (the gaps must keep their bytes), displacements in
 * reverse order, a reversed split, MPI_COMM_SELF, and matching type
 * signatures of different datatypes on the two sides (MPI_INT against a
 * contiguous pair, a vector against MPI_INT).  Every result is checked
 * against what its sender wrote (a formula of case, sender, receiver and
 * index) and every byte outside the blocks against its sentinel.  Test
 * program of tests/integration/ucx_a2a_comms.sh.
 *
 * Prints "a2a-edge: CASE: ok" or "a2a-edge: CASE: N wrong" per case at
 * rank 0 (summed over the ranks); exits 1 on any wrong value or MPI
 * error (MPI_ERRORS_RETURN).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define N 40            /* ints a block */
#define GAP (-7)

static int wrank;
static unsigned long nbad_all;

static int value(int kase, int from, int to, int i)
{
	return kase * 100003 + from * 1009 + to * 31 + i;
}

static void report(const char *what, unsigned long bad, int rc)
{
	unsigned long all = bad + (rc != MPI_SUCCESS);

	MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	if (!wrank) {
		if (all)
			printf("a2a-edge: %s: %lu wrong\n", what, all);
		else
			printf("a2a-edge: %s: ok\n", what);
		fflush(stdout);
	}
	nbad_all += all;
}

/* Zero counts: NULL buffers are fine, nothing is touched. */
static void zero_counts(MPI_Comm comm, int size)
{
	int *z = calloc(4 * (size_t)size, sizeof(int)), rc, rc2;

	rc = MPI_Alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm);
	rc2 = MPI_Alltoallv(NULL, z, z + size, MPI_INT, NULL, z + 2 * size,
			    z + 3 * size, MPI_INT, comm);
	report("zero counts, NULL buffers (alltoall and alltoallv)", 0,
	       rc != MPI_SUCCESS ? rc : rc2);
	free(z);
}

/* A zero-size type: count 5 of it moves nothing. */
static void zero_size_type(MPI_Comm comm, int size)
{
	MPI_Datatype t;
	int s[4] = { 1, 2, 3, 4 }, r[4] = { 9, 9, 9, 9 }, rc;
	unsigned long bad = 0;

	(void)size;
	MPI_Type_contiguous(0, MPI_INT, &t);
	MPI_Type_commit(&t);
	rc = MPI_Alltoall(s, 5, t, r, 5, t, comm);
	for (int i = 0; i < 4; i++)
		bad += r[i] != 9;
	MPI_Type_free(&t);
	report("zero-size datatype, count 5", bad, rc);
}

/* alltoallv, some pairs sending nothing (rank + p odd), the blocks at
 * reverse displacements, optionally in place; gaps of 3 ints between
 * blocks keep GAP. */
static void v_gaps(const char *what, int kase, MPI_Comm comm, int in_place)
{
	int size, rank, p, i, rc, *c, span = N + 3;
	int *s, *r;
	unsigned long bad = 0;

	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	c = malloc(4 * sizeof(int) * (size_t)size);
	s = malloc(sizeof(int) * (size_t)span * size);
	r = malloc(sizeof(int) * (size_t)span * size);
	for (i = 0; i < span * size; i++)
		s[i] = r[i] = GAP;
	for (p = 0; p < size; p++) {
		int n = (rank + p) % 2 ? 0 : N - (rank + p) % 7;

		c[p] = c[2 * size + p] = n;
		/* block p at slot size - 1 - p */
		c[size + p] = c[3 * size + p] = (size - 1 - p) * span + 1;
		for (i = 0; i < c[p]; i++)
			(in_place ? r : s)[c[size + p] + i] =
				value(kase, rank, p, i);
	}
	rc = MPI_Alltoallv(in_place ? MPI_IN_PLACE : s, c, c + size, MPI_INT,
			   r, c + 2 * size, c + 3 * size, MPI_INT, comm);
	for (p = 0; rc == MPI_SUCCESS && p < size; p++) {
		int at = c[3 * size + p];

		for (i = (size - 1 - p) * span; i < (size - p) * span; i++) {
			int k = i - at;
			int want = k >= 0 && k < c[2 * size + p] ?
				   value(kase, p, rank, k) : GAP;

			bad += r[i] != want;
		}
	}
	report(what, bad, rc);
	free(c);
	free(s);
	free(r);
}

/* alltoall on comm, checked; stype/scount against rtype/rcount (the
 * same signature: N ints a block either way). */
static void a2a(const char *what, int kase, MPI_Comm comm, int in_place,
		MPI_Datatype st, int scount, MPI_Datatype rt, int rcount,
		int svec)
{
	int size, rank, p, i, rc;
	int *s, *r;
	unsigned long bad = 0;

	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	/* the vector type: N ints a block, every other int of 2N */
	s = malloc(sizeof(int) * 2 * N * (size_t)size);
	r = malloc(sizeof(int) * N * (size_t)size);
	for (i = 0; i < 2 * N * size; i++)
		s[i] = GAP;
	for (p = 0; p < size; p++)
		for (i = 0; i < N; i++) {
			if (in_place)
				r[p * N + i] = value(kase, rank, p, i);
			else
				s[svec ? p * 2 * N + 2 * i : p * N + i] =
					value(kase, rank, p, i);
		}
	rc = MPI_Alltoall(in_place ? MPI_IN_PLACE : s, scount, st, r, rcount,
			  rt, comm);
	for (p = 0; rc == MPI_SUCCESS && p < size; p++)
		for (i = 0; i < N; i++)
			bad += r[p * N + i] != value(kase, p, rank, i);
	report(what, bad, rc);
	free(s);
	free(r);
}

int main(int argc, char **argv)
{
	MPI_Comm rev, half;
	MPI_Datatype pair, vec, vecr;
	int size, kase = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
	MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, size - wrank, &half);
	MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	/* N ints, every other one of 2N; resized so that blocks of one
	 * element are 2N ints apart */
	MPI_Type_vector(N, 1, 2, MPI_INT, &vecr);
	MPI_Type_create_resized(vecr, 0, (MPI_Aint)(2 * N * sizeof(int)),
				&vec);
	MPI_Type_commit(&vec);
	zero_counts(MPI_COMM_WORLD, size);
	zero_size_type(MPI_COMM_WORLD, size);
	v_gaps("alltoallv, zero counts, reverse displacements, gaps", ++kase,
	       MPI_COMM_WORLD, 0);
	v_gaps("alltoallv in place, zero counts, gaps", ++kase,
	       MPI_COMM_WORLD, 1);
	v_gaps("alltoallv in place on a reversed split", ++kase, rev, 1);
	a2a("alltoall on a reversed split", ++kase, rev, 0, MPI_INT, N,
	    MPI_INT, N, 0);
	a2a("alltoall on reversed halves", ++kase, half, 0, MPI_INT, N,
	    MPI_INT, N, 0);
	a2a("alltoall on MPI_COMM_SELF", ++kase, MPI_COMM_SELF, 0, MPI_INT, N,
	    MPI_INT, N, 0);
	a2a("alltoall in place on MPI_COMM_SELF", ++kase, MPI_COMM_SELF, 1,
	    MPI_INT, N, MPI_INT, N, 0);
	v_gaps("alltoallv on MPI_COMM_SELF", ++kase, MPI_COMM_SELF, 0);
	a2a("alltoall MPI_INT sent, pairs received", ++kase, MPI_COMM_WORLD,
	    0, MPI_INT, N, pair, N / 2, 0);
	a2a("alltoall vector sent, MPI_INT received", ++kase, MPI_COMM_WORLD,
	    0, vec, 1, MPI_INT, N, 1);
	MPI_Type_free(&pair);
	MPI_Type_free(&vec);
	MPI_Type_free(&vecr);
	MPI_Comm_free(&rev);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return nbad_all ? 1 : 0;
}
