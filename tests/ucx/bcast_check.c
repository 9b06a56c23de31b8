/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-bcast-check: MPI_Bcast (through libibflow_mpi when it is
 * preloaded) against PMPI_Bcast of the MPI library itself, byte for byte,
 * for several sizes, datatypes (char, int, double, a strided vector),
 * roots and communicators.  Test program of tests/integration/ucx_infer.sh.
 *
 *   ibflow-bcast-check [--max-bytes N] [--ref bcast|sendrecv]
 *                      [--time BYTES --reps N]
 *
 * (options: the ibflow programs' table, common/cli/cli_opt.h; -h lists
 * them)
 * --ref sendrecv: the reference is the root's MPI_Send to every rank
 * instead of PMPI_Bcast (when the code under test sits below PMPI, as
 * the coll/ibflow component does).
 *
 * Prints "bcast-check: CASES cases, BAD mismatches" at rank 0 and exits
 * 1 on any mismatch.  --time: then the median time of --reps broadcasts
 * of BYTES from rank 0, "bcast-time: BYTES bytes median S s".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cli_opt.h"

static const char *const PROG = "ibflow-bcast-check";

static unsigned long ncases, nbad;
static int ref_sendrecv;

static void ref_bcast(void *buf, int count, MPI_Datatype t, int root,
		      MPI_Comm comm)
{
	int rank, size, p;

	if (!ref_sendrecv) {
		PMPI_Bcast(buf, count, t, root, comm);
		return;
	}
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (rank != root) {
		MPI_Recv(buf, count, t, root, 78, comm, MPI_STATUS_IGNORE);
		return;
	}
	for (p = 0; p < size; p++)
		if (p != root)
			MPI_Send(buf, count, t, p, 78, comm);
}

/* Every byte of the buffer a case fills (the vector's gaps stay as
 * initialised: both buffers start alike). */
static void one(MPI_Comm comm, MPI_Datatype t, int tsize, int count,
		int root, unsigned seed)
{
	MPI_Aint lb, ext;
	size_t span, i;
	unsigned char *a, *b;
	int rank, bad = 0, any;

	MPI_Comm_rank(comm, &rank);
	MPI_Type_get_extent(t, &lb, &ext);
	span = (size_t)ext * (size_t)count + 16;
	a = malloc(span);
	b = malloc(span);
	if (!a || !b)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < span; i++)
		a[i] = b[i] = rank == root ? (unsigned char)(seed + i * 7) :
			      (unsigned char)(0xa5 ^ rank);
	MPI_Bcast(a, count, t, root, comm);
	ref_bcast(b, count, t, root, comm);
	bad = memcmp(a, b, span) != 0;
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
	if (rank == 0 && any)
		fprintf(stderr, "bcast-check: mismatch: %d x %d bytes, root "
			"%d\n", count, tsize, root);
	ncases++;
	nbad += any != 0;
	free(a);
	free(b);
}

static void all_cases(MPI_Comm comm, long max_bytes)
{
	static const long sizes[] = { 1, 999, 1000, 1001, 65539, 1048583 };
	MPI_Datatype vec;
	struct { MPI_Datatype t; int size; } types[4];
	int size, r, k, j, roots[3];

	MPI_Type_vector(3, 1, 2, MPI_INT, &vec);   /* 12 bytes in 20 */
	MPI_Type_commit(&vec);
	types[0].t = MPI_BYTE;   types[0].size = 1;
	types[1].t = MPI_INT;    types[1].size = 4;
	types[2].t = MPI_DOUBLE; types[2].size = 8;
	types[3].t = vec;        types[3].size = 12;
	MPI_Comm_size(comm, &size);
	roots[0] = 0;
	roots[1] = size - 1;
	roots[2] = size / 2;
	for (k = 0; k < (int)(sizeof(sizes) / sizeof(sizes[0])); k++) {
		if (sizes[k] > max_bytes)
			continue;
		for (j = 0; j < 4; j++) {
			int count = (int)(sizes[k] / types[j].size);

			if (count < 1)
				count = 1;
			for (r = 0; r < 3; r++)
				one(comm, types[j].t, types[j].size, count,
				    roots[r], (unsigned)(k * 31 + j * 7 + r));
		}
	}
	MPI_Type_free(&vec);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void timing(long bytes, int reps)
{
	char *buf = calloc(1, (size_t)bytes);
	double *t = calloc((size_t)reps, sizeof(*t)), t0;
	int rank, i;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (!buf || !t)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < reps; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
		/* done when the last rank has it */
		MPI_Barrier(MPI_COMM_WORLD);
		t[i] = MPI_Wtime() - t0;
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_double);
	if (rank == 0)
		printf("bcast-time: %ld bytes median %.6f s\n", bytes,
		       t[reps / 2]);
	free(buf);
	free(t);
}

typedef struct args {
	unsigned max_bytes, tbytes, reps;
	int ref;            /* 0 PMPI_Bcast, 1 sendrecv */
} args_t;

/* The options (every rank parses; a usage error ends them all alike). */
static bool parse_args(int argc, char **argv, args_t *a, int *rc)
{
	static const char *const refs[] = { "bcast", "sendrecv", NULL };
	const ibf_opt_t opts[] = {
		IBF_OPT_UINT("max-bytes", &a->max_bytes, "N", 0, 1u << 30,
			     "largest broadcast of the cases",
			     .def = "2097152"),
		IBF_OPT_CHOICE("ref", &a->ref, "REF", refs,
			       "the reference: PMPI_Bcast, or the root's "
			       "MPI_Send to\nevery rank (when the code under "
			       "test sits below\nPMPI, as coll/ibflow does)",
			       .def = "bcast"),
		IBF_OPT_UINT("time", &a->tbytes, "BYTES", 1, 1u << 30,
			     "then time --reps broadcasts of BYTES from "
			     "rank 0"),
		IBF_OPT_UINT("reps", &a->reps, "N", 1, 1000000,
			     "broadcasts timed (with --time)"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t spec = {
		.name = PROG, .opts = opts,
		.about = "MPI_Bcast against the MPI library's own, byte for "
			 "byte, for several sizes,\ndatatypes, roots and "
			 "communicators (a test program).\n",
		.exit = "0 all equal, 1 a mismatch, 2 bad usage.",
	};

	memset(a, 0, sizeof(*a));
	if (!ibf_cli_parse(&spec, argc, argv, NULL, rc))
		return false;
	if (!a->tbytes != !a->reps) {
		*rc = ibf_cli_usage_error(PROG, "--time and --reps go "
					  "together");
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	int rank, size, rc;
	MPI_Comm rev, half;
	args_t a;
	long max_bytes;

	MPI_Init(&argc, &argv);
	if (!parse_args(argc, argv, &a, &rc)) {
		MPI_Finalize();
		return rc;
	}
	max_bytes = a.max_bytes;
	ref_sendrecv = a.ref == 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	all_cases(MPI_COMM_WORLD, max_bytes);
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	all_cases(rev, max_bytes < 65539 ? max_bytes : 65539);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	all_cases(half, max_bytes < 65539 ? max_bytes : 65539);
	MPI_Comm_free(&rev);
	MPI_Comm_free(&half);
	if (a.reps > 0 && a.tbytes > 0)
		timing(a.tbytes, (int)a.reps);
	if (rank == 0)
		printf("bcast-check: %lu cases, %lu mismatches\n", ncases,
		       nbad);
	MPI_Finalize();
	return nbad ? 1 : 0;
}
