/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-a2a-check: MPI_Alltoall(v) (through libibflow_mpi when it is
 * preloaded) against PMPI_Alltoall(v) of the MPI library itself, byte for
 * byte, for many sizes, datatypes (char, int, double, a strided vector),
 * MPI_IN_PLACE and several communicators.  Test program of
 * tests/integration/ucx_a2a.sh.
 *
 *   ibflow-a2a-check [--max-bytes N] [--sample] [--ref pmpi|sendrecv|off]
 *                    [--variant NAME:COMMS[:KEY=VALUE,...]]...
 *                    [--fault stall|die --fault-rank RANK --fault-ms MS]
 *
 * (options: the ibflow programs' table, common/cli/cli_opt.h; -h lists
 * them)
 *
 * Prints "a2a-check: CASES cases, BAD mismatches" at rank 0 and exits 1
 * on any mismatch.
 *
 * --variant runs the cases on duplicates of the communicators COMMS
 * (world, reversed, split, joined by '+') made with the info hints
 * KEY=VALUE (ibflow_alltoall=pairwise ...: libibflow_mpi and coll/ibflow
 * take UCX_IBFLOW_* per communicator from them) and named NAME/COMM (the
 * name the libraries' counters print); several variants make one run
 * test several configurations.  Without it: world, reversed and split,
 * no hints.  --sample: each datatype gets every other block size (the
 * datatypes alternate, so together they still cover all sizes).
 *
 * --fault: --fault-rank stalls (sleeps 10 s, exits) or dies (SIGKILL)
 * --fault-ms into
 * a loop of all-to-alls, inside a call; the others, with
 * MPI_ERRORS_RETURN, report the call that failed and how long it took
 * ("fault: rank R: call N rc RC after S s").
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "cli_opt.h"

static const char *const PROG = "ibflow-a2a-check";

typedef struct dtype {
	const char *name;
	MPI_Datatype t;
} dtype_t;

static unsigned long ncases, nbad;
/* --ref sendrecv: the reference is a loop of MPI_Sendrecv instead of
 * PMPI_Alltoall(v) (when the code under test sits below PMPI, as the
 * coll/ibflow component does). */
static int ref_sendrecv;
/* --ref off: the reference runs on a duplicate of each communicator with
 * the hint ibflow_alltoall=off, where both integrations hand the call to
 * the MPI library's own algorithm (coll/ibflow: the module selected
 * before it, e.g. tuned). */
static int ref_off;
static MPI_Comm ref_comm = MPI_COMM_NULL;

static MPI_Comm refc(MPI_Comm c)
{
	return ref_comm != MPI_COMM_NULL ? ref_comm : c;
}

static int ref_a2av(const void *s, const int *sc, const int *sd,
		    MPI_Datatype st, void *r, const int *rc, const int *rd,
		    MPI_Datatype rt, MPI_Comm comm)
{
	int size, rank, p, k;
	MPI_Aint lb, sext, rext;

	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	MPI_Type_get_extent(st, &lb, &sext);
	MPI_Type_get_extent(rt, &lb, &rext);
	for (k = 0; k < size; k++) {
		int to = (rank + k) % size, from = (rank + size - k) % size;

		p = MPI_Sendrecv((const char *)s + sd[to] * sext, sc[to], st,
				 to, 77, (char *)r + rd[from] * rext, rc[from],
				 rt, from, 77, comm, MPI_STATUS_IGNORE);
		if (p != MPI_SUCCESS)
			return p;
	}
	return MPI_SUCCESS;
}

/* The reference all-to-all (see ref_sendrecv). */
static int ref_a2a(const void *s, int scount, MPI_Datatype st, void *r,
		   int rcount, MPI_Datatype rt, MPI_Comm comm)
{
	int size, p, *v, rc;
	MPI_Aint lb, ext;
	void *tmp = NULL;

	if (!ref_sendrecv)
		return PMPI_Alltoall(s, scount, st, r, rcount, rt, refc(comm));
	MPI_Comm_size(comm, &size);
	v = malloc(4 * sizeof(int) * size);
	for (p = 0; p < size; p++) {
		v[p] = scount;
		v[size + p] = p * scount;
		v[2 * size + p] = rcount;
		v[3 * size + p] = p * rcount;
	}
	if (s == MPI_IN_PLACE) {
		MPI_Type_get_extent(rt, &lb, &ext);
		tmp = malloc((size_t)ext * rcount * size);
		memcpy(tmp, r, (size_t)ext * rcount * size);
		s = tmp;
		st = rt;
		for (p = 0; p < size; p++) {
			v[p] = rcount;
			v[size + p] = p * rcount;
		}
	}
	rc = ref_a2av(s, v, v + size, st, r, v + 2 * size, v + 3 * size, rt,
		      comm);
	free(tmp);
	free(v);
	return rc;
}

static void fill(unsigned char *b, size_t n, int rank, unsigned salt)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 131 + (size_t)rank * 17 + salt * 7 +
				       (i >> 8));
}

static void check(const char *what, const void *a, const void *b, size_t n,
		  MPI_Comm comm, const char *cname, const char *tname,
		  int count)
{
	int rank;

	ncases++;
	if (memcmp(a, b, n)) {
		MPI_Comm_rank(comm, &rank);
		fprintf(stderr, "a2a-check: MISMATCH %s comm %s type %s count "
			"%d rank %d\n", what, cname, tname, count, rank);
		nbad++;
	}
}

/* Alltoall, then in place, for count elements per block. */
static void case_a2a(MPI_Comm comm, const char *cname, const dtype_t *d,
		     int count)
{
	int size, rank;
	MPI_Aint lb, ext;
	size_t n;
	unsigned char *s, *r1, *r2;

	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	MPI_Type_get_extent(d->t, &lb, &ext);
	n = (size_t)ext * count * size;
	s = malloc(n);
	r1 = malloc(n);
	r2 = malloc(n);
	fill(s, n, rank, 1);
	memset(r1, 0xa5, n);
	memset(r2, 0xa5, n);
	MPI_Alltoall(s, count, d->t, r1, count, d->t, comm);
	ref_a2a(s, count, d->t, r2, count, d->t, comm);
	check("alltoall", r1, r2, n, comm, cname, d->name, count);
	fill(r1, n, rank, 2);
	fill(r2, n, rank, 2);
	MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r1, count, d->t,
		     comm);
	ref_a2a(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r2, count, d->t, comm);
	check("alltoall in place", r1, r2, n, comm, cname, d->name, count);
	free(s);
	free(r1);
	free(r2);
}

/* Alltoallv: rank i sends (i + j) % 3 * count + 1 elements to j, blocks
 * at displacements with a one-element gap, in reverse peer order. */
static void case_a2av(MPI_Comm comm, const char *cname, const dtype_t *d,
		      int count)
{
	int size, rank, p, *sc, *sd, *rc, *rd, stot = 0, rtot = 0;
	MPI_Aint lb, ext;
	unsigned char *s, *r1, *r2;

	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	MPI_Type_get_extent(d->t, &lb, &ext);
	sc = malloc(4 * sizeof(int) * size);
	sd = sc + size;
	rc = sd + size;
	rd = rc + size;
	for (p = size - 1; p >= 0; p--) {
		sc[p] = (rank + p) % 3 * count + 1;
		rc[p] = (p + rank) % 3 * count + 1;
		sd[p] = stot;
		rd[p] = rtot;
		stot += sc[p] + 1;
		rtot += rc[p] + 1;
	}
	s = malloc((size_t)ext * stot);
	r1 = malloc((size_t)ext * rtot);
	r2 = malloc((size_t)ext * rtot);
	fill(s, (size_t)ext * stot, rank, 3);
	memset(r1, 0x5a, (size_t)ext * rtot);
	memset(r2, 0x5a, (size_t)ext * rtot);
	MPI_Alltoallv(s, sc, sd, d->t, r1, rc, rd, d->t, comm);
	if (ref_sendrecv)
		ref_a2av(s, sc, sd, d->t, r2, rc, rd, d->t, comm);
	else
		PMPI_Alltoallv(s, sc, sd, d->t, r2, rc, rd, d->t, refc(comm));
	check("alltoallv", r1, r2, (size_t)ext * rtot, comm, cname, d->name,
	      count);
	/* in place needs sc == rc: true here, (i + j) is symmetric */
	fill(r1, (size_t)ext * rtot, rank, 4);
	fill(r2, (size_t)ext * rtot, rank, 4);
	MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r1, rc, rd,
		      d->t, comm);
	if (ref_sendrecv) {
		/* the send data is what the receive buffer held */
		unsigned char *t = malloc((size_t)ext * rtot);

		memcpy(t, r2, (size_t)ext * rtot);
		ref_a2av(t, rc, rd, d->t, r2, rc, rd, d->t, comm);
		free(t);
	} else {
		PMPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL,
			       r2, rc, rd, d->t, refc(comm));
	}
	check("alltoallv in place", r1, r2, (size_t)ext * rtot, comm, cname,
	      d->name, count);
	free(s);
	free(r1);
	free(r2);
	free(sc);
}

static int sample;   /* --sample */

static void run_comm(MPI_Comm comm, const char *cname, const dtype_t *d,
		     int nd, long max_bytes)
{
	static const int counts[] = { 1, 3, 100, 1000, 4096, 70000, 262144 };
	int i, k, tsize;

	for (i = 0; i < nd; i++) {
		MPI_Type_size(d[i].t, &tsize);
		for (k = 0; k < (int)(sizeof(counts) / sizeof(counts[0])); k++) {
			if ((long)counts[k] * tsize > max_bytes)
				break;
			if (sample && k % 2 != i % 2)
				continue;
			case_a2a(comm, cname, &d[i], counts[k]);
			case_a2av(comm, cname, &d[i], counts[k]);
		}
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- faults ---------------------------------------------------------------- */

static volatile sig_atomic_t in_call, fault_die;

/* SIGALRM at the faulty rank: inside an all-to-all, stall (10 s, then
 * exit, unable to go on) or die; between calls, try again in 1 ms. */
static void on_alarm(int sig)
{
	struct itimerval t = { .it_value = { .tv_usec = 1000 } };
	struct timespec ts = { .tv_sec = 10 };

	(void)sig;
	if (!in_call) {
		setitimer(ITIMER_REAL, &t, NULL);
		return;
	}
	if (fault_die)
		kill(getpid(), SIGKILL);
	nanosleep(&ts, NULL);
	_exit(0);
}

static int fault(int dies, int who, int ms)
{
	struct itimerval t = { .it_value = { .tv_sec = ms / 1000,
					     .tv_usec = ms % 1000 * 1000 } };
	int rank, size, rc = MPI_SUCCESS, i;
	int *s, *r;
	double t0 = 0, start;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	s = calloc((size_t)size * 16384, sizeof(int));
	r = calloc((size_t)size * 16384, sizeof(int));
	rc = MPI_Alltoall(s, 16384, MPI_INT, r, 16384, MPI_INT,
			  MPI_COMM_WORLD);
	printf("fault: rank %d: first rc %d\n", rank, rc);
	fflush(stdout);
	if (rank == who) {
		fault_die = dies;
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &t, NULL);
	}
	start = now();
	for (i = 1; rc == MPI_SUCCESS && now() - start < 120; i++) {
		t0 = now();
		in_call = 1;
		rc = MPI_Alltoall(s, 16384, MPI_INT, r, 16384, MPI_INT,
				  MPI_COMM_WORLD);
		in_call = 0;
	}
	printf("fault: rank %d: call %d rc %d after %.1f s\n", rank, i - 1,
	       rc, now() - t0);
	fflush(stdout);
	_exit(0);   /* MPI cannot finish with a failed rank */
}

/* ---- variants -------------------------------------------------------------- */

/* NAME:COMMS[:KEY=VALUE,...] (see the top).  Returns 0 or prints why. */
static int run_variant(const char *spec, const dtype_t *d, int nd,
		       long max_bytes)
{
	char *buf = strdup(spec), *name, *comms, *hints, *tok, *save;
	char cname[MPI_MAX_OBJECT_NAME];
	int rank, size, bad = 0;
	unsigned long n0 = ncases;
	double t0 = now();
	MPI_Info info;
	MPI_Comm base, c;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	name = buf;
	comms = strchr(buf, ':');
	if (!comms) {
		free(buf);
		return -1;
	}
	*comms++ = '\0';
	hints = strchr(comms, ':');
	if (hints)
		*hints++ = '\0';
	MPI_Info_create(&info);
	for (tok = hints ? strtok_r(hints, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			bad = 1;
			break;
		}
		*eq = '\0';
		MPI_Info_set(info, tok, eq + 1);
	}
	for (tok = bad ? NULL : strtok_r(comms, "+", &save); tok;
	     tok = strtok_r(NULL, "+", &save)) {
		if (!strcmp(tok, "world"))
			MPI_Comm_dup(MPI_COMM_WORLD, &base);
		else if (!strcmp(tok, "reversed"))
			MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &base);
		else if (!strcmp(tok, "split"))
			MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &base);
		else {
			bad = 1;
			break;
		}
		MPI_Comm_dup_with_info(base, info, &c);
		if (ref_off) {
			MPI_Info off;

			MPI_Info_create(&off);
			MPI_Info_set(off, "ibflow_alltoall", "off");
			MPI_Comm_dup_with_info(base, off, &ref_comm);
			MPI_Info_free(&off);
			snprintf(cname, sizeof(cname), "ref-%s/%s", name, tok);
			MPI_Comm_set_name(ref_comm, cname);
		}
		MPI_Comm_free(&base);
		snprintf(cname, sizeof(cname), "%s/%s", name, tok);
		MPI_Comm_set_name(c, cname);
		run_comm(c, cname, d, nd, max_bytes);
		MPI_Comm_free(&c);
		if (ref_comm != MPI_COMM_NULL)
			MPI_Comm_free(&ref_comm);
	}
	MPI_Info_free(&info);
	if (!bad && rank == 0)
		printf("a2a-check: variant %s: %lu cases at rank 0, %.1f s\n",
		       name, ncases - n0, now() - t0);
	free(buf);
	return bad ? -1 : 0;
}

typedef struct args {
	unsigned max_bytes;
	bool sample;
	int ref;                /* 0 PMPI, 1 sendrecv, 2 off */
	const char **var;       /* --variant, in order */
	unsigned nvar;
	int fault;              /* 0 stall, 1 die */
	bool faulty;            /* --fault given */
	unsigned fault_rank, fault_ms;
	bool has_rank, has_ms;
} args_t;

/* --variant SPEC, repeated: kept in order. */
static int opt_variant(void *target, const char *cmd, const char *v)
{
	args_t *a = target;

	(void)cmd;
	a->var[a->nvar++] = v;
	return IBF_EXIT_OK;
}

/* The options (every rank parses; a usage error ends them all alike). */
static bool parse_args(int argc, char **argv, args_t *a, int *rc)
{
	static const char *const refs[] = { "pmpi", "sendrecv", "off", NULL };
	static const char *const faults[] = { "stall", "die", NULL };
	const ibf_opt_t opts[] = {
		IBF_OPT_UINT("max-bytes", &a->max_bytes, "N", 0, 1u << 30,
			     "largest block of the cases", .def = "1048576"),
		IBF_OPT_FLAG("sample", &a->sample,
			     "each datatype every other block size"),
		IBF_OPT_CHOICE("ref", &a->ref, "REF", refs,
			       "the reference: PMPI_Alltoall(v), MPI_Send/"
			       "MPI_Recv\n(code under test below PMPI), or "
			       "none", .def = "pmpi"),
		IBF_OPT_CALL("variant", opt_variant, a, "SPEC",
			     "NAME:COMMS[:KEY=VALUE,...]: the cases on "
			     "duplicates\nof COMMS (world, reversed, split, "
			     "joined by '+')\nwith those info hints; "
			     "repeated"),
		IBF_OPT_CHOICE("fault", &a->fault, "MODE", faults,
			       "--fault-rank stalls or dies --fault-ms into "
			       "a loop\nof all-to-alls", .seen = &a->faulty),
		IBF_OPT_UINT("fault-rank", &a->fault_rank, "RANK", 0,
			     1000000, "the faulty rank (with --fault)",
			     .seen = &a->has_rank),
		IBF_OPT_UINT("fault-ms", &a->fault_ms, "MS", 0, 3600000,
			     "when it fails (with --fault)",
			     .seen = &a->has_ms),
		IBF_OPT_END
	};
	const ibf_cli_spec_t spec = {
		.name = PROG, .opts = opts,
		.about = "MPI_Alltoall(v) against the MPI library's own, byte "
			 "for byte, for many\nsizes, datatypes, MPI_IN_PLACE "
			 "and communicators (a test program).\n",
		.exit = "0 all equal, 1 a mismatch, 2 bad usage.",
	};

	if (!ibf_cli_parse(&spec, argc, argv, NULL, rc))
		return false;
	if (a->faulty != a->has_rank || a->faulty != a->has_ms) {
		*rc = ibf_cli_usage_error(PROG, "--fault, --fault-rank and "
					  "--fault-ms go together");
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	int rank, size, i, rc;
	long max_bytes;
	unsigned long tot[2], loc[2];
	MPI_Datatype vec;
	dtype_t d[4];
	args_t a = { 0 };

	MPI_Init(&argc, &argv);
	a.var = calloc((size_t)argc + 1, sizeof(*a.var));
	if (!a.var || !parse_args(argc, argv, &a, &rc)) {
		free(a.var);
		MPI_Finalize();
		return a.var ? rc : 2;
	}
	max_bytes = a.max_bytes;
	sample = a.sample;
	ref_sendrecv = a.ref == 1;
	ref_off = a.ref == 2;
	if (a.faulty)
		return fault(a.fault == 1, (int)a.fault_rank, (int)a.fault_ms);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* two ints every three: a strided type, extent 3 ints */
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &vec);
	MPI_Type_commit(&vec);
	d[0] = (dtype_t){ "char", MPI_CHAR };
	d[1] = (dtype_t){ "int", MPI_INT };
	d[2] = (dtype_t){ "double", MPI_DOUBLE };
	d[3] = (dtype_t){ "vector", vec };
	if (!a.nvar)
		a.var[a.nvar++] = "default:world+reversed+split";
	/* reversed rank order, and halves (odd/even) reversed too */
	for (i = 0; i < (int)a.nvar; i++)
		if (run_variant(a.var[i], d, 4, max_bytes)) {
			fprintf(stderr, "%s: --variant %s: expected NAME:world|"
				"reversed|split[+...][:KEY=VALUE,...]\n",
				argv[0], a.var[i]);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	free(a.var);
	MPI_Type_free(&vec);
	loc[0] = ncases;
	loc[1] = nbad;
	MPI_Reduce(loc, tot, 2, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Bcast(tot, 2, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("a2a-check: %lu cases, %lu mismatches\n", tot[0],
		       tot[1]);
	MPI_Finalize();
	return tot[1] ? 1 : 0;
}
