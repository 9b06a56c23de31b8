/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-a2a-big: MPI_Alltoall(v) with more than 2 GiB at each rank, where
 * int sizes (what MPI_Pack takes) no longer hold the buffer: MPI_IN_PLACE
 * and separate buffers, MPI_INT and a vector type with gaps, every value
 * checked against what its sender wrote (a formula of sender, receiver
 * and index, computed here) and every gap left as it was.  Test program
 * of tests/integration/ucx_a2a_big.sh.
 *
 *   ibflow-a2a-big COUNT VCOUNT [CASE...]
 *
 * COUNT ints each rank sends each rank in the MPI_INT cases, VCOUNT in
 * those with the vector type (which need a third buffer); CASEs (all without): in-place,
 * separate, v-separate (MPI_Alltoallv), in-place-vector, v-vector-sent
 * (MPI_Alltoallv, the vector type sent and MPI_INT received).
 *
 * Prints "a2a-big: CASE: ok" or "a2a-big: CASE: N wrong (first at I:
 * V, expected E)" per case at rank 0 (the sum over the ranks) and exits 1
 * on any wrong value or an MPI error (MPI_ERRORS_RETURN: a refused call
 * is reported, never taken as a result).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* the vector type: 2 blocks of VB ints, VS apart (a gap of one int) */
#define VB 1023
#define VS 1024
#define VSIZE (2 * VB)          /* ints of data an element */
#define VEXT (VS + VB)          /* ints an element spans */
#define GAP 0x5a5a5a5au

static int rank, size;
static unsigned long nwrong_all;

static uint32_t value(int from, int to, size_t i)
{
	return (uint32_t)(from * 1000003u + to * 7919u) ^ (uint32_t)(i * 2654435761u);
}

/* ints of data of n elements of the case's type from element index 0 at
 * buffer int offset: contiguous 1:1, vector VSIZE per element */
static size_t data_at(int vec, size_t k)
{
	return vec ? k / VSIZE * VEXT + (k % VSIZE < VB ? k % VSIZE :
					    k % VSIZE - VB + VS) : k;
}

/* A buffer of size blocks of n data ints each (vec: n / VSIZE elements):
 * the values this rank sends (send) or gaps everywhere (recv). */
static uint32_t *buffer(int vec, size_t n, int send, size_t *ints)
{
	size_t span = vec ? n / VSIZE * VEXT : n, p, k;
	uint32_t *b;

	*ints = span * (size_t)size;
	b = malloc(*ints * sizeof(*b) + 1);
	if (!b)
		return NULL;
	if (vec || !send)
		for (k = 0; k < *ints; k++)
			b[k] = GAP;
	for (p = 0; send && p < (size_t)size; p++)
		for (k = 0; k < n; k++)
			b[p * span + data_at(vec, k)] = value(rank, (int)p, k);
	return b;
}

static void verify(const char *what, int vec, const uint32_t *b, size_t n,
		   size_t ints, int rc)
{
	size_t span = ints / (size_t)size, p, k, bad = 0, first = 0;
	uint32_t got = 0, want = 0, w;
	unsigned long all;
	char *isdata = NULL;

	if (rc != MPI_SUCCESS) {
		char m[MPI_MAX_ERROR_STRING];
		int len;

		MPI_Error_string(rc, m, &len);
		bad = 1;
		fprintf(stderr, "a2a-big: %s: rank %d: MPI error: %s\n", what,
			rank, m);
	}
	if (vec) {
		isdata = calloc(VEXT, 1);
		for (k = 0; k < VSIZE; k++)
			isdata[data_at(1, k)] = 1;
	}
	for (p = 0; !bad && p < (size_t)size; p++) {
		size_t d = 0;

		for (k = 0; k < span; k++) {
			int data = !vec || isdata[k % VEXT];

			w = data ? value((int)p, rank, d++) : GAP;
			if (b[p * span + k] != w && !bad++) {
				first = p * span + k;
				got = b[first];
				want = w;
			} else if (b[p * span + k] != w) {
				bad++;
			}
		}
		(void)n;
	}
	free(isdata);
	all = bad;
	MPI_Reduce(rank ? &all : MPI_IN_PLACE, &all, 1, MPI_UNSIGNED_LONG,
		   MPI_SUM, 0, MPI_COMM_WORLD);
	if (bad && rc == MPI_SUCCESS)
		fprintf(stderr, "a2a-big: %s: rank %d: %zu wrong (first at "
			"%zu: %u, expected %u)\n", what, rank, bad, first, got,
			want);
	if (!rank) {
		printf("a2a-big: %s: %s%lu\n", what, all ? "wrong " : "ok ",
		       all);
		fflush(stdout);
	}
	nwrong_all += all;
}

/* One case: alltoall or alltoallv (v), in place or not, MPI_INT or the
 * vector type on the receive side (vec) and the send side (svec). */
static void run(const char *what, int v, int in_place, int vec, int svec,
		size_t n, MPI_Datatype vt)
{
	size_t sints = 0, rints = 0, span;
	uint32_t *s = NULL, *r;
	MPI_Datatype rt = vec ? vt : MPI_INT, st = svec ? vt : MPI_INT;
	int cnt = (int)(vec ? n / VSIZE : n), scnt = (int)(svec ? n / VSIZE : n);
	int *c, rc, p;

	r = buffer(vec, n, in_place, &rints);
	if (!in_place)
		s = buffer(svec, n, 1, &sints);
	c = malloc(4 * sizeof(int) * (size_t)size);
	if (!r || (!in_place && !s) || !c) {
		fprintf(stderr, "a2a-big: %s: rank %d: out of memory\n", what,
			rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	span = rints / (size_t)size;
	for (p = 0; p < size; p++) {
		c[p] = scnt;                    /* send counts, displs */
		c[size + p] = p * scnt;
		c[2 * size + p] = cnt;          /* receive */
		c[3 * size + p] = p * cnt;
	}
	(void)span;
	if (v)
		rc = MPI_Alltoallv(in_place ? MPI_IN_PLACE : s, c, c + size,
				   st, r, c + 2 * size, c + 3 * size, rt,
				   MPI_COMM_WORLD);
	else
		rc = MPI_Alltoall(in_place ? MPI_IN_PLACE : s, scnt, st, r,
				  cnt, rt, MPI_COMM_WORLD);
	free(s);
	verify(what, vec, r, n, rints, rc);
	free(r);
	free(c);
}

static const struct {
	const char *name, *what;
	int v, in_place, vec, svec;
} cases[] = {
	{ "in-place", "alltoall in place, MPI_INT", 0, 1, 0, 0 },
	{ "separate", "alltoall separate, MPI_INT", 0, 0, 0, 0 },
	{ "v-separate", "alltoallv separate, MPI_INT", 1, 0, 0, 0 },
	{ "in-place-vector", "alltoall in place, vector", 0, 1, 1, 1 },
	{ "v-vector-sent", "alltoallv vector sent, MPI_INT received", 1, 0,
	  0, 1 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

int main(int argc, char **argv)
{
	MPI_Datatype vt;
	size_t n = 0, vn = 0;
	int i, k;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (argc < 3 || (n = strtoull(argv[1], NULL, 10)) == 0 ||
	    n > (size_t)INT32_MAX || (vn = strtoull(argv[2], NULL, 10)) <
	    VSIZE || vn > (size_t)INT32_MAX) {
		fprintf(stderr, "usage: ibflow-a2a-big COUNT VCOUNT [CASE...]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	vn -= vn % VSIZE;    /* whole vector elements */
	MPI_Type_vector(2, VB, VS, MPI_INT, &vt);
	MPI_Type_commit(&vt);
	if (!rank) {
		printf("a2a-big: %d ranks, %zu ints a block, %.2f GiB a rank "
		       "(vector type: %zu, %.2f GiB)\n", size, n,
		       (double)n * 4 * size / (1u << 30), vn,
		       (double)vn * 4 * size / (1u << 30));
		fflush(stdout);
	}
	for (i = 0; i < (int)NCASES; i++) {
		int want = argc == 3;

		for (k = 3; k < argc; k++)
			want |= !strcmp(argv[k], cases[i].name);
		if (want)
			run(cases[i].what, cases[i].v, cases[i].in_place,
			    cases[i].vec, cases[i].svec,
			    cases[i].vec || cases[i].svec ? vn : n, vt);
	}
	MPI_Type_free(&vt);
	MPI_Finalize();
	return nwrong_all ? 1 : 0;
}
