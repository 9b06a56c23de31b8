/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-a2a-comms: many communicators through the all-to-all
 * integrations, as real codes make them (duplicates, row and column
 * splits, libraries dup'ing their own), and threads making them at once.
 * Every MPI_Alltoall / MPI_Alltoallv result is checked against what its
 * sender wrote (a formula of communicator, sender, receiver and index).
 * Test program of tests/integration/ucx_a2a_comms.sh.
 *
 *   ibflow-a2a-comms made N     N communicators made, used, freed
 *   ibflow-a2a-comms alive N    N alive at once, each used, then freed
 *   ibflow-a2a-comms threads T N
 *                    T threads (MPI_THREAD_MULTIPLE), each making and
 *                    using N communicators of its own at once with the
 *                    others; the process environment compared before
 *                    the first all-to-all and after the last
 *
 * Prints at rank 0 "a2a-comms: MODE: C communicators, K calls, W wrong,
 * E errors, slowest call S s" and per rank "a2a-comms: rank R: environment
 * unchanged" or "...: environment changed: VAR" (threads); exits 1 on any
 * wrong value, MPI error (MPI_ERRORS_RETURN) or environment change.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define COUNT 1024      /* ints to each rank */

extern char **environ;

static int wrank, wsize;
static unsigned long nwrong, nerr, ncalls;
static double slowest;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static int value(int comm, int from, int to, int i)
{
	return comm * 1000003 + from * 7919 + to * 101 + i;
}

static void account(unsigned long wrong, int rc, double t)
{
	pthread_mutex_lock(&stats_lock);
	nwrong += wrong;
	nerr += rc != MPI_SUCCESS;
	ncalls++;
	if (t > slowest)
		slowest = t;
	pthread_mutex_unlock(&stats_lock);
}

/* An alltoall and an alltoallv (rank p gets p + 1 blocks' worth less
 * than COUNT) on comm, numbered id, checked. */
static void use(MPI_Comm comm, int id)
{
	int size, rank, p, i, rc, *s, *r, *c;
	unsigned long bad = 0;
	double t;

	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	s = malloc(sizeof(int) * COUNT * (size_t)size);
	r = malloc(sizeof(int) * COUNT * (size_t)size);
	c = malloc(4 * sizeof(int) * (size_t)size);
	for (p = 0; p < size; p++)
		for (i = 0; i < COUNT; i++)
			s[p * COUNT + i] = value(id, rank, p, i);
	t = MPI_Wtime();
	rc = MPI_Alltoall(s, COUNT, MPI_INT, r, COUNT, MPI_INT, comm);
	t = MPI_Wtime() - t;
	for (p = 0; rc == MPI_SUCCESS && p < size; p++)
		for (i = 0; i < COUNT; i++)
			bad += r[p * COUNT + i] != value(id, p, rank, i);
	account(bad, rc, t);
	/* to p: COUNT - p - rank - 1 ints (at least 1) at p * COUNT */
	for (p = 0; p < size; p++) {
		c[p] = COUNT - (p + rank) % COUNT - 1;
		c[size + p] = p * COUNT;
		c[2 * size + p] = COUNT - (p + rank) % COUNT - 1;
		c[3 * size + p] = p * COUNT;
	}
	memset(r, 0xff, sizeof(int) * COUNT * (size_t)size);
	bad = 0;
	t = MPI_Wtime();
	rc = MPI_Alltoallv(s, c, c + size, MPI_INT, r, c + 2 * size,
			   c + 3 * size, MPI_INT, comm);
	t = MPI_Wtime() - t;
	for (p = 0; rc == MPI_SUCCESS && p < size; p++)
		for (i = 0; i < COUNT; i++)
			bad += r[p * COUNT + i] != (i < c[2 * size + p] ?
						    value(id, p, rank, i) : -1);
	account(bad, rc, t);
	free(s);
	free(r);
	free(c);
}

/* The k-th communicator made from parent, named "cID": duplicates,
 * reversed and halved splits in turn. */
static MPI_Comm make(MPI_Comm parent, int k, int id)
{
	char name[32];
	MPI_Comm c;
	int rank, size;

	MPI_Comm_rank(parent, &rank);
	MPI_Comm_size(parent, &size);
	switch (k % 3) {
	case 0:
		MPI_Comm_dup(parent, &c);
		break;
	case 1:
		MPI_Comm_split(parent, 0, size - rank, &c);
		break;
	default:
		MPI_Comm_split(parent, rank % 2, rank, &c);
		break;
	}
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	snprintf(name, sizeof(name), "c%d", id);
	MPI_Comm_set_name(c, name);
	return c;
}

typedef struct job {
	MPI_Comm parent;
	int base, n;
} job_t;

static void *made(void *arg)
{
	job_t *j = arg;

	for (int k = 0; k < j->n; k++) {
		MPI_Comm c = make(j->parent, k, j->base + k);

		use(c, j->base + k);
		MPI_Comm_free(&c);
	}
	return NULL;
}

/* A sorted copy of the environment. */
static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **env_copy(size_t *n)
{
	char **e;
	size_t i;

	for (*n = 0; environ[*n]; (*n)++)
		;
	e = malloc((*n + 1) * sizeof(*e));
	for (i = 0; i < *n; i++)
		e[i] = strdup(environ[i]);
	qsort(e, *n, sizeof(*e), cmp);
	return e;
}

/* The first difference, or NULL. */
static const char *env_diff(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	for (i = 0; i < na && i < nb; i++)
		if (strcmp(a[i], b[i]))
			return strcmp(a[i], b[i]) < 0 ? a[i] : b[i];
	return i < na ? a[i] : i < nb ? b[i] : NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 0, nthreads = 0, provided, k;
	unsigned long all[3] = { 0 }, mine[3];
	char **env0 = NULL, **env1;
	size_t nenv0 = 0, nenv1;
	const char *d = NULL;
	MPI_Comm *cs;
	double worst;

	if (!strcmp(mode, "threads")) {
		nthreads = n;
		n = argc > 3 ? atoi(argv[3]) : 0;
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
		if (provided < MPI_THREAD_MULTIPLE) {
			fprintf(stderr, "a2a-comms: no MPI_THREAD_MULTIPLE\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	} else {
		MPI_Init(&argc, &argv);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	if (n <= 0 || (strcmp(mode, "made") && strcmp(mode, "alive") &&
		       (strcmp(mode, "threads") || nthreads <= 0))) {
		fprintf(stderr, "usage: ibflow-a2a-comms made|alive N | "
			"threads T N\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (!strcmp(mode, "made")) {
		job_t j = { MPI_COMM_WORLD, 0, n };

		made(&j);
	} else if (!strcmp(mode, "alive")) {
		cs = malloc(sizeof(*cs) * (size_t)n);
		for (k = 0; k < n; k++)
			cs[k] = make(MPI_COMM_WORLD, k, k);
		for (k = 0; k < n; k++)
			use(cs[k], k);
		for (k = 0; k < n; k++)
			MPI_Comm_free(&cs[k]);
		free(cs);
	} else {
		pthread_t *t = malloc(sizeof(*t) * (size_t)nthreads);
		job_t *j = malloc(sizeof(*j) * (size_t)nthreads);

		/* each thread its own parent: collectives on one
		 * communicator from two threads at once are erroneous */
		for (k = 0; k < nthreads; k++) {
			MPI_Comm_dup(MPI_COMM_WORLD, &j[k].parent);
			j[k].base = k * n;
			j[k].n = n;
		}
		env0 = env_copy(&nenv0);
		for (k = 0; k < nthreads; k++)
			pthread_create(&t[k], NULL, made, &j[k]);
		for (k = 0; k < nthreads; k++)
			pthread_join(t[k], NULL);
		env1 = env_copy(&nenv1);
		d = env_diff(env0, nenv0, env1, nenv1);
		printf("a2a-comms: rank %d: environment %s%s\n", wrank,
		       d ? "changed: " : "unchanged", d ? d : "");
		fflush(stdout);
		for (k = 0; k < nthreads; k++)
			MPI_Comm_free(&j[k].parent);
		free(t);
		free(j);
	}
	mine[0] = nwrong;
	mine[1] = nerr + (d != NULL);
	mine[2] = ncalls;
	MPI_Reduce(mine, all, 3, MPI_UNSIGNED_LONG, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	MPI_Reduce(&slowest, &worst, 1, MPI_DOUBLE, MPI_MAX, 0,
		   MPI_COMM_WORLD);
	if (!wrank)
		printf("a2a-comms: %s: %d communicators, %lu calls, %lu "
		       "wrong, %lu errors, slowest call %.2f s\n", mode,
		       nthreads ? nthreads * n : n, all[2], all[0], all[1],
		       worst);
	MPI_Finalize();
	return (wrank ? mine[0] || mine[1] : all[0] || all[1]) ? 1 : 0;
}
