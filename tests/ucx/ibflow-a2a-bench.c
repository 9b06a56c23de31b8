/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-a2a-bench: MPI_Alltoall latency by block size with the options,
 * header and columns of OSU Micro-Benchmarks 7.x osu_alltoall, plus what
 * OSU lacks: the aggregate bandwidth, the liquid bound where the fabric
 * is known and the share of it reached, --algorithm to force one, and
 * the algorithm that actually ran, read from libibflow_mpi's counters
 * (docs/ucx-alltoall.md, "ibflow-a2a-bench").
 *
 *   mpirun -np N [-x LD_PRELOAD=libibflow_mpi.so] ibflow-a2a-bench
 *       [-m [MIN:]MAX] [-i N] [-x N] [-f] [-z] [-c] [-M BYTES] [-T TYPE]
 *       [--algorithm liquid|pairwise|mpi] [--link-rate GBPS]
 *
 * Latencies as OSU's: each rank's mean over the timed iterations (a
 * barrier after each), then the mean, min and max over the ranks; P50/
 * P90/P99 over the iterations of the slowest rank's time per iteration.
 * Aggregate bandwidth: N (N - 1) blocks over the slowest rank's mean.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mpi.h>

#include <ibflow/io.h>
#include <ibflow/mpi.h>
#include <json-c/json.h>

#include "config.h"
#include "cli_opt.h"

static const char *prog = "ibflow-a2a-bench";

#define EXIT_USAGE 2
#define FIELD 18                 /* OSU's column width */
#define MAX_BYTES (1L << 30)

/* ---- options ------------------------------------------------------------- */

enum alg { ALG_ENV, ALG_LIQUID, ALG_PAIRWISE, ALG_MPI };
static const char *const alg_names[] = { "env", "liquid", "pairwise", "mpi",
					 NULL };
/* the communicator's info hint ibflow_alltoall for each (NULL: none) */
static const char *const alg_hints[] = { NULL, "liquid", "pairwise", "off" };

enum dtype { T_CHAR, T_INT, T_FLOAT, T_DOUBLE };
static const char *const type_names[] = { "mpi_char", "mpi_int",
					  "mpi_float", "mpi_double", NULL };


struct opts {
	unsigned min, max;       /* block bytes */
	unsigned iters, warmup;
	uint64_t mem_limit;
	bool full, tail, validate;
	int type, alg;           /* indices into type_names, alg_names */
	double link_gbps;        /* --link-rate; 0: the fabric's */
	const char *json;        /* --json: the rows also as JSON here */
};

static bool talk;                /* rank 0 reports usage errors */

static int usage_error(const char *opt, const char *fmt, const char *arg)
{
	if (talk) {
		fprintf(stderr, "%s: %s: ", prog, opt);
		fprintf(stderr, fmt, arg);
		fprintf(stderr, "\n(see `%s --help`)\n", prog);
	}
	return EXIT_USAGE;
}

/* -m MAX, MIN:MAX or MIN: (target: the options) */
static int opt_sizes(void *target, const char *cmd, const char *v)
{
	struct opts *o = target;
	const char *colon = strchr(v, ':');
	char min[32];
	int rc;

	if (!colon)
		return ibf_cli_parse_uint(cmd, "--message-size", v, 1,
					  MAX_BYTES, &o->max);
	if ((size_t)(colon - v) >= sizeof(min))
		return ibf_cli_usage_error(cmd, "--message-size: '%s' is not "
					   "[MIN:]MAX", v);
	memcpy(min, v, (size_t)(colon - v));
	min[colon - v] = '\0';
	rc = ibf_cli_parse_uint(cmd, "--message-size", min, 1, MAX_BYTES,
				&o->min);
	if (!rc && colon[1])
		rc = ibf_cli_parse_uint(cmd, "--message-size", colon + 1, 1,
					MAX_BYTES, &o->max);
	return rc;
}

/* OSU's datatype names, in either case (target: int) */
static int opt_type(void *target, const char *cmd, const char *v)
{
	int i;

	for (i = 0; type_names[i]; i++)
		if (!strcasecmp(v, type_names[i])) {
			*(int *)target = i;
			return 0;
		}
	return ibf_cli_usage_error(cmd, "--type: '%s' is not one of "
				   "mpi_char, mpi_int, mpi_float, mpi_double",
				   v);
}

/* BYTES in 1..10^15 (target: uint64_t) */
static int opt_mem(void *target, const char *cmd, const char *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (!*v || *end || *v == '-' || errno || !x || x > 1000000000000000ull)
		return ibf_cli_usage_error(cmd, "--mem-limit: '%s' is not a "
					   "number in 1..10^15", v);
	*(uint64_t *)target = x;
	return 0;
}

static const char ABOUT[] =
"MPI_Alltoall latency by block size, osu_alltoall's options and columns\n"
"(docs/ucx-alltoall.md).\n";

/* Rank 0 parses (and alone prints help and errors); the others get its
 * result.  0: run; -1: help printed; else the exit status. */
static int parse_args(int argc, char **argv, struct opts *o, int rank)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_CALL("message-size", opt_sizes, o, "[MIN:]MAX",
			     "block sizes in bytes, doubling from MIN",
			     .letter = 'm', .def = "1:1048576"),
		IBF_OPT_UINT("min", &o->min, "BYTES", 1, MAX_BYTES,
			     "= -m MIN:"),
		IBF_OPT_UINT("max", &o->max, "BYTES", 1, MAX_BYTES,
			     "= -m MAX"),
		IBF_OPT_UINT("iterations", &o->iters, "N", 1, 10000000,
			     "timed iterations per size", .letter = 'i',
			     .def = "20"),
		IBF_OPT_UINT("iters", &o->iters, "N", 1, 10000000, "= -i"),
		IBF_OPT_UINT("warmup", &o->warmup, "N", 0, 10000000,
			     "untimed iterations first", .letter = 'x',
			     .def = "3"),
		IBF_OPT_FLAG("full", &o->full, "Min and Max Latency, "
			     "Iterations columns", .letter = 'f'),
		IBF_OPT_FLAG("percentiles", &o->tail, "P50, P90, P99 latency "
			     "columns", .letter = 'z'),
		IBF_OPT_FLAG("validation", &o->validate, "check every "
			     "received block: Validation and Errors",
			     .letter = 'c'),
		IBF_OPT_CALL("mem-limit", opt_mem, &o->mem_limit, "BYTES",
			     "per process: MAX x processes <= BYTES",
			     .letter = 'M', .def = "536870912"),
		IBF_OPT_CALL("type", opt_type, &o->type, "TYPE",
			     "mpi_char, mpi_int, mpi_float or mpi_double",
			     .letter = 'T', .def = "mpi_char"),
		IBF_OPT_CHOICE("algorithm", &o->alg, "ALG", alg_names,
			       "liquid, pairwise or mpi (the MPI library's), "
			       "as\nthe communicator's hint ibflow_alltoall; "
			       "env: no\nhint, UCX_IBFLOW_ALLTOALL decides",
			       .def = "env"),
		IBF_OPT_REAL("link-rate", &o->link_gbps, "GBPS", 0, 1e6,
			     "link rate for the liquid bound (the fabric's)"),
		IBF_OPT_STR("json", &o->json, "FILE",
			    "the table also as JSON (rank 0, written whole or"
			    "\nnot at all)"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t spec = {
		.name = prog, .usage = "[options]  (under mpirun -np N)",
		.about = ABOUT, .opts = opts,
		.exit = "0 measured, 1 a run failed, 2 bad usage.",
	};
	int rc = 0;

	memset(o, 0, sizeof(*o));
	if (rank == 0) {
		if (!ibf_cli_parse(&spec, argc, argv, NULL, &rc))
			rc = rc ? rc : -1;
		else if (o->min > o->max)
			rc = usage_error("-m", "%sMIN is larger than MAX", "");
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rc)
		return rc;
	MPI_Bcast(o, sizeof(*o), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (rank != 0)
		o->json = NULL;          /* rank 0's pointer; it alone writes */
	return 0;
}

/* ---- datatypes and validation -------------------------------------------- */

static MPI_Datatype mpi_type(int t)
{
	switch (t) {
	case T_INT:    return MPI_INT;
	case T_FLOAT:  return MPI_FLOAT;
	case T_DOUBLE: return MPI_DOUBLE;
	default:       return MPI_CHAR;
	}
}

static size_t type_size(int t)
{
	int s;

	MPI_Type_size(mpi_type(t), &s);
	return (size_t)s;
}

/* Element k of the block rank src sends to rank dst in iteration it:
 * small integers, exact in every type. */
static int pattern(int src, int dst, size_t k, long it)
{
	return (int)(((size_t)src * 7 + (size_t)dst * 13 + k +
		      (size_t)it) % 101);
}

static void put(void *buf, int t, size_t i, int v)
{
	switch (t) {
	case T_INT:    ((int *)buf)[i] = v; break;
	case T_FLOAT:  ((float *)buf)[i] = (float)v; break;
	case T_DOUBLE: ((double *)buf)[i] = v; break;
	default:       ((char *)buf)[i] = (char)v; break;
	}
}

static bool same(const void *buf, int t, size_t i, int v)
{
	switch (t) {
	case T_INT:    return ((const int *)buf)[i] == v;
	case T_FLOAT:  return ((const float *)buf)[i] == (float)v;
	case T_DOUBLE: return ((const double *)buf)[i] == v;
	default:       return ((const char *)buf)[i] == (char)v;
	}
}

struct run {
	struct opts o;
	int rank, size;
	MPI_Comm comm;
	char *s, *r;
	size_t tsize;
	ibflow_mpi_a2a_info_fn info;  /* libibflow_mpi's, if loaded */
	/* IBFLOW_A2A_BENCH_CORRUPT=RANK:SRC:BYTES (tests): at RANK, the
	 * block from SRC of the first timed iteration of BYTES blocks is
	 * damaged before it is checked */
	long bad_rank, bad_src, bad_bytes;
};

static void fill(struct run *x, size_t count, long it)
{
	size_t k;
	int p;

	for (p = 0; p < x->size; p++)
		for (k = 0; k < count; k++)
			put(x->s, x->o.type, (size_t)p * count + k,
			    pattern(x->rank, p, k, it));
	/* a call that delivers nothing must not pass */
	memset(x->r, 0xa5, count * x->tsize * (size_t)x->size);
}

/* Received blocks that differ from what their sender put in them. */
static long check(const struct run *x, size_t count, long it)
{
	long bad = 0;
	size_t k;
	int p;

	for (p = 0; p < x->size; p++)
		for (k = 0; k < count; k++)
			if (!same(x->r, x->o.type, (size_t)p * count + k,
				  pattern(p, x->rank, k, it))) {
				bad++;
				break;
			}
	return bad;
}

static void corrupt_hook(struct run *x, size_t bytes, long it)
{
	if (x->rank == x->bad_rank && (long)bytes == x->bad_bytes &&
	    it == x->o.warmup && x->bad_src >= 0 && x->bad_src < x->size)
		x->r[(size_t)x->bad_src * bytes] ^= 0x5a;
}

static void corrupt_env(struct run *x)
{
	const char *e = getenv("IBFLOW_A2A_BENCH_CORRUPT");

	x->bad_rank = -1;
	if (e && sscanf(e, "%ld:%ld:%ld", &x->bad_rank, &x->bad_src,
			&x->bad_bytes) != 3)
		x->bad_rank = -1;
}

/* ---- one block size ------------------------------------------------------ */

struct row {
	double avg, min, max;           /* µs, over the ranks' means */
	double p50, p90, p99;           /* µs, slowest rank per iteration */
	long errors;                    /* corrupted blocks, all ranks */
	unsigned long long liquid, pairwise; /* calls at rank 0 */
	ibflow_mpi_a2a_info_t info;     /* after the size's calls */
};

static void counters(const struct run *x, ibflow_mpi_a2a_info_t *i)
{
	memset(i, 0, sizeof(*i));
	if (x->info)
		x->info(x->comm, i);
}

static int cmp_double(const void *a, const void *b)
{
	double p = *(const double *)a, q = *(const double *)b;

	return (p > q) - (p < q);
}

/* Nearest rank: the smallest value with at least q of them at or below. */
static double pct(const double *sorted, long n, double q)
{
	long k = (long)ceil(q * (double)n) - 1;

	return sorted[k < 0 ? 0 : k];
}

/* malloc or give up the whole job: a rank without its buffer cannot
 * take part in the collectives. */
static void *alloc(const struct run *x, size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (!p) {
		fprintf(stderr, "%s: rank %d: out of memory (%zu bytes)\n",
			prog, x->rank, bytes);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

static void summarize(const struct run *x, const double *t, double mean,
		      struct row *w)
{
	double *worst = x->rank == 0 ? alloc(x, (size_t)x->o.iters *
					     sizeof(*worst)) : NULL;
	double sum = 0;

	MPI_Reduce(&mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, x->comm);
	MPI_Reduce(&mean, &w->min, 1, MPI_DOUBLE, MPI_MIN, 0, x->comm);
	MPI_Reduce(&mean, &w->max, 1, MPI_DOUBLE, MPI_MAX, 0, x->comm);
	MPI_Reduce(t, worst, (int)x->o.iters, MPI_DOUBLE, MPI_MAX, 0,
		   x->comm);
	w->avg = sum / x->size;
	if (worst) {
		qsort(worst, (size_t)x->o.iters, sizeof(*worst), cmp_double);
		w->p50 = pct(worst, x->o.iters, 0.50);
		w->p90 = pct(worst, x->o.iters, 0.90);
		w->p99 = pct(worst, x->o.iters, 0.99);
		free(worst);
	}
}

static void measure(struct run *x, size_t bytes, double *t, struct row *w)
{
	size_t count = bytes / x->tsize;
	MPI_Datatype dt = mpi_type(x->o.type);
	ibflow_mpi_a2a_info_t before;
	long it, bad = 0;
	double sum = 0;

	counters(x, &before);
	for (it = 0; it < x->o.warmup + x->o.iters; it++) {
		double t0;

		if (x->o.validate)
			fill(x, count, it);
		t0 = MPI_Wtime();
		MPI_Alltoall(x->s, (int)count, dt, x->r, (int)count, dt,
			     x->comm);
		if (it >= x->o.warmup)
			sum += t[it - x->o.warmup] = (MPI_Wtime() - t0) * 1e6;
		corrupt_hook(x, bytes, it);
		if (x->o.validate)
			bad += check(x, count, it);
		MPI_Barrier(x->comm);
	}
	counters(x, &w->info);
	w->liquid = w->info.liquid - before.liquid;
	w->pairwise = w->info.pairwise - before.pairwise;
	summarize(x, t, sum / x->o.iters, w);
	MPI_Reduce(&bad, &w->errors, 1, MPI_LONG, MPI_SUM, 0, x->comm);
}

/* ---- output ---------------------------------------------------------------- */

/* What ran for one size, from rank 0's counters. */
static const char *ran(const struct run *x, const struct row *w)
{
	unsigned long long calls = (unsigned long long)(x->o.warmup +
							x->o.iters);

	if (!x->info)
		return "unknown";
	if (w->liquid == calls)
		return "liquid";
	if (w->pairwise == calls)
		return "pairwise";
	return w->liquid + w->pairwise ? "mixed" : "mpi";
}

/* The bound columns: when the fabric is known and a link rate is. */
static double link_rate(const struct run *x, const ibflow_mpi_a2a_info_t *i)
{
	if (!i->aware)
		return 0;
	return x->o.link_gbps > 0 ? x->o.link_gbps : i->link_gbps;
}

static void header(const struct run *x, bool bound)
{
	char dt[16];
	size_t i;

	for (i = 0; type_names[x->o.type][i] && i + 1 < sizeof(dt); i++)
		dt[i] = (char)toupper((unsigned char)type_names[x->o.type][i]);
	dt[i] = '\0';
	printf("# OSU MPI All-to-All Personalized Exchange Latency Test "
	       "(ibflow-a2a-bench, ibflow %s)\n# Datatype: %s.\n",
	       PACKAGE_VERSION, dt);
	printf("# Processes: %d; algorithm requested: %s\n", x->size,
	       x->o.alg == ALG_ENV ? "by UCX_IBFLOW_ALLTOALL" :
	       alg_names[x->o.alg]);
	printf("%-10s%*s", "# Size", FIELD, "Avg Latency(us)");
	if (x->o.full)
		printf("%*s%*s%*s", FIELD, "Min Latency(us)", FIELD,
		       "Max Latency(us)", 12, "Iterations");
	if (x->o.tail)
		printf("%*s%*s%*s", FIELD, "P50 Tail Lat(us)", FIELD,
		       "P90 Tail Lat(us)", FIELD, "P99 Tail Lat(us)");
	if (x->o.validate)
		printf("%*s", 12, "Validation");
	printf("%*s", FIELD, "Agg BW(MB/s)");
	if (bound)
		printf("%*s%*s", FIELD, "Liquid Bound(us)", FIELD,
		       "Of Bound(%)");
	if (x->o.validate)
		printf("%*s", 10, "Errors");
	printf("%*s\n", 12, "Algorithm");
}

/* Aggregate bandwidth (MB/s): all blocks over the slowest rank's mean. */
static double agg_bw(const struct run *x, size_t bytes, const struct row *w)
{
	return (double)x->size * (x->size - 1) * (double)bytes / w->max;
}

/* The liquid bound (µs): duration blocks one after the other on the
 * busiest link; false where the fabric or its rate is unknown. */
static bool bound_us(const struct run *x, size_t bytes, const struct row *w,
		     double *us)
{
	double gbps = link_rate(x, &w->info);

	if (!w->info.duration || gbps <= 0)
		return false;
	*us = w->info.duration * (double)bytes * 8 / (gbps * 1e3);
	return true;
}

static void print_row(const struct run *x, size_t bytes, const struct row *w,
		      bool bound)
{
	printf("%-10zu%*.2f", bytes, FIELD, w->avg);
	if (x->o.full)
		printf("%*.2f%*.2f%*u", FIELD, w->min, FIELD, w->max, 12,
		       x->o.iters);
	if (x->o.tail)
		printf("%*.2f%*.2f%*.2f", FIELD, w->p50, FIELD, w->p90, FIELD,
		       w->p99);
	if (x->o.validate)
		printf("%*s", 12, w->errors ? "Fail" : "Pass");
	printf("%*.2f", FIELD, agg_bw(x, bytes, w));
	if (bound) {
		double us;

		if (bound_us(x, bytes, w, &us))
			printf("%*.2f%*.1f", FIELD, us, FIELD,
			       100 * us / w->avg);
		else
			printf("%*s%*s", FIELD, "-", FIELD, "-");
	}
	if (x->o.validate)
		printf("%*ld", 10, w->errors);
	printf("%*s\n", 12, ran(x, w));
	fflush(stdout);
}

/* One row of --json: the table's figures under plain names (µs, MB/s),
 * min and max always, the others where the table has their columns. */
static json_object *row_json(const struct run *x, size_t bytes,
			     const struct row *w, bool bound)
{
	json_object *o = json_object_new_object();
	double us;

	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)bytes));
	json_object_object_add(o, "avg_us", json_object_new_double(w->avg));
	json_object_object_add(o, "min_us", json_object_new_double(w->min));
	json_object_object_add(o, "max_us", json_object_new_double(w->max));
	json_object_object_add(o, "iterations",
			       json_object_new_int64(x->o.iters));
	if (x->o.tail) {
		json_object_object_add(o, "p50_us", json_object_new_double(w->p50));
		json_object_object_add(o, "p90_us", json_object_new_double(w->p90));
		json_object_object_add(o, "p99_us", json_object_new_double(w->p99));
	}
	json_object_object_add(o, "agg_bw_mbs",
			       json_object_new_double(agg_bw(x, bytes, w)));
	if (bound && bound_us(x, bytes, w, &us)) {
		json_object_object_add(o, "liquid_bound_us",
				       json_object_new_double(us));
		json_object_object_add(o, "of_bound_pct",
				       json_object_new_double(100 * us / w->avg));
	}
	if (x->o.validate)
		json_object_object_add(o, "errors",
				       json_object_new_int64(w->errors));
	json_object_object_add(o, "algorithm",
			       json_object_new_string(ran(x, w)));
	if (x->info) {  /* libibflow_mpi's counters of these calls */
		json_object_object_add(o, "liquid_calls",
			json_object_new_int64((int64_t)w->liquid));
		json_object_object_add(o, "pairwise_calls",
			json_object_new_int64((int64_t)w->pairwise));
		json_object_object_add(o, "frames",
			json_object_new_int64(w->info.nframes));
		json_object_object_add(o, "duration",
			json_object_new_int64(w->info.duration));
	}
	return o;
}

/* --json: the rows with what was run, written whole or not at all. */
static int write_json(const struct run *x, json_object *rows)
{
	json_object *doc = json_object_new_object();
	ibf_ofile_t of;
	ibf_err_t err;
	ibf_status_t st;

	json_object_object_add(doc, "benchmark",
			       json_object_new_string("ibflow-a2a-bench"));
	json_object_object_add(doc, "processes",
			       json_object_new_int(x->size));
	json_object_object_add(doc, "datatype",
			       json_object_new_string(type_names[x->o.type]));
	json_object_object_add(doc, "algorithm_requested",
			       json_object_new_string(alg_names[x->o.alg]));
	json_object_object_add(doc, "libibflow_mpi",
			       json_object_new_boolean(x->info != NULL));
	json_object_object_add(doc, "rows", json_object_get(rows));
	ibf_err_clear(&err);
	st = ibf_ofile_open(&of, x->o.json, &err);
	if (st == IBF_OK) {
		fprintf(of.fp, "%s\n", json_object_to_json_string_ext(doc,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		st = ibf_ofile_commit(&of, &err);
	}
	json_object_put(doc);
	if (st == IBF_OK)
		return 0;
	fprintf(stderr, "%s: --json: %s\n", prog, err.msg);
	return 1;
}

/* The line naming what ran: the same at every size, or size by size. */
static void algorithm_line(const struct run *x, const char *const *algs,
			   long nsizes)
{
	long i;

	if (!x->info) {
		printf("# Algorithm: unknown (libibflow_mpi not loaded: the "
		       "MPI library's own, or coll/ibflow)\n");
		return;
	}
	for (i = 1; i < nsizes && algs[i] == algs[0]; i++)
		;
	if (i == nsizes)
		printf("# Algorithm: %s at every size (libibflow_mpi "
		       "counters)\n", nsizes ? algs[0] : "none");
	else
		printf("# Algorithm: by size, see the Algorithm column "
		       "(libibflow_mpi counters)\n");
}

/* ---- setup ----------------------------------------------------------------- */

/* The benchmark's communicator: world, with the --algorithm hint. */
static MPI_Comm make_comm(int alg)
{
	MPI_Comm c;
	MPI_Info info;

	MPI_Info_create(&info);
	if (alg_hints[alg])
		MPI_Info_set(info, "ibflow_alltoall", alg_hints[alg]);
	MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
	MPI_Info_free(&info);
	MPI_Comm_set_name(c, "ibflow-a2a-bench");
	return c;
}

/* OSU's rule for -M: the largest block times the processes fits. */
static int apply_mem_limit(struct run *x)
{
	uint64_t cap = x->o.mem_limit / (uint64_t)x->size;

	if (x->o.max <= cap)
		return 0;
	if (cap < x->o.min || cap < x->tsize)
		return usage_error("-M", "%s: too small for the smallest "
				   "block", "the limit");
	if (x->rank == 0)
		printf("# -M %llu: largest block %llu bytes (blocks x processes "
		       "within the limit)\n",
		       (unsigned long long)x->o.mem_limit,
		       (unsigned long long)cap);
	x->o.max = (unsigned)cap;
	return 0;
}

static int setup(struct run *x)
{
	size_t total;

	x->tsize = type_size(x->o.type);
	if (apply_mem_limit(x))
		return EXIT_USAGE;
	total = (size_t)x->o.max * (size_t)x->size;
	x->s = alloc(x, total);
	x->r = alloc(x, total);
	memset(x->s, x->rank, total);
	x->comm = make_comm(x->o.alg);
	x->info = (ibflow_mpi_a2a_info_fn)dlsym(RTLD_DEFAULT,
						 IBFLOW_MPI_A2A_INFO_SYM);
	corrupt_env(x);
	return 0;
}

static int run_sizes(struct run *x)
{
	size_t b, first = (size_t)x->o.min < x->tsize ? x->tsize :
			  (size_t)x->o.min;
	const char *algs[64];
	double *t = alloc(x, (size_t)x->o.iters * sizeof(*t));
	ibflow_mpi_a2a_info_t i0;
	json_object *rows = x->o.json && x->rank == 0 ?
			    json_object_new_array() : NULL;
	long n = 0;
	bool bound;
	int rc = 0;

	/* one call first: it makes libibflow_mpi's context, whose fabric
	 * decides the bound columns */
	MPI_Alltoall(x->s, (int)(first / x->tsize), mpi_type(x->o.type),
		     x->r, (int)(first / x->tsize), mpi_type(x->o.type),
		     x->comm);
	counters(x, &i0);
	bound = link_rate(x, &i0) > 0;
	if (x->rank == 0)
		header(x, bound);
	for (b = first; b <= (size_t)x->o.max; b *= 2) {
		struct row w;

		memset(&w, 0, sizeof(w));
		measure(x, b, t, &w);
		if (x->rank == 0) {
			print_row(x, b, &w, bound);
			if (rows)
				json_object_array_add(rows,
						      row_json(x, b, &w, bound));
			if (n < 64)
				algs[n++] = ran(x, &w);
		}
	}
	if (x->rank == 0)
		algorithm_line(x, algs, n);
	if (rows)
		rc = write_json(x, rows);
	json_object_put(rows);
	free(t);
	return rc;
}

int main(int argc, char **argv)
{
	struct run x;
	int rc;

	memset(&x, 0, sizeof(x));
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &x.size);
	talk = x.rank == 0;
	rc = parse_args(argc, argv, &x.o, x.rank);
	if (!rc)
		rc = setup(&x);
	if (!rc) {
		rc = run_sizes(&x);
		MPI_Comm_free(&x.comm);
	}
	free(x.s);
	free(x.r);
	MPI_Finalize();
	return rc < 0 ? 0 : rc;        /* -1: help printed */
}
