/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Prometheus' text exposition format, for node_exporter's textfile
 * collector (`--collector.textfile.directory`): what the OpenSM plugin,
 * `ibflow eval --prom`, `ibflow probe-solve --prom` and `ibflow-probe
 * --prom` write.
 *
 * A family is announced once by "# HELP" and "# TYPE" and its samples
 * follow it; label values are escaped (backslash, double quote, line
 * feed) and HELP text likewise (backslash, line feed); bytes that are
 * not UTF-8 (a NodeDescription may hold any) become U+FFFD, as the
 * format is UTF-8.  Files are written
 * to a temporary name beside the target and renamed into place, so the
 * collector, which reads every *.prom file of its directory on each
 * scrape, never sees half a file.
 */
#ifndef IBFLOW_PROM_H
#define IBFLOW_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/status.h>

IBF_BEGIN_DECLS

typedef enum ibf_prom_type {
	IBF_PROM_GAUGE = 0,
	IBF_PROM_COUNTER = 1
} ibf_prom_type_t;

typedef struct ibf_prom_label {
	const char *name;   /* [a-zA-Z_][a-zA-Z0-9_]* */
	const char *value;  /* any bytes; escaped on output */
} ibf_prom_label_t;

/* "# HELP name help" and "# TYPE name gauge|counter". */
void ibf_prom_family(FILE *fp, const char *name, ibf_prom_type_t type,
		     const char *help);
/* "name{l1="v1",...} value" (no braces without labels); NaN and
 * infinities as Prometheus spells them. */
void ibf_prom_sample(FILE *fp, const char *name,
		     const ibf_prom_label_t *labels, unsigned nlabels,
		     double value);
/* A family of one sample. */
void ibf_prom_metric(FILE *fp, const char *name, ibf_prom_type_t type,
		     const char *help, const ibf_prom_label_t *labels,
		     unsigned nlabels, double value);
/* s as a label value between its quotes. */
void ibf_prom_escape_value(FILE *fp, const char *s);

typedef ibf_status_t (*ibf_prom_fill_fn)(const void *ctx, FILE *fp,
					 ibf_err_t *err);
/* Write path ("-" = stdout) atomically: fill writes the text. */
ibf_status_t ibf_prom_write_file(const char *path, ibf_prom_fill_fn fill,
				 const void *ctx, ibf_err_t *err);

/* ---- the metrics of one routing (plugin and `ibflow eval --prom`) ------- */

/* One evaluated pattern. */
typedef struct ibf_prom_pattern {
	const char *name;       /* the spec, "perm:4" */
	double index;           /* LFTI throughput index */
	double ratio;           /* index / optimum; NAN when not computed */
	double max_link_load;   /* most flows on one directed link */
} ibf_prom_pattern_t;

/* What is known of a routing; a field that is unknown (NAN, or NULL)
 * leaves its sample out. */
typedef struct ibf_prom_routing {
	const char *engine;          /* in use */
	const char *requested;       /* the engine asked for first, or NULL */
	const char *fallback_reason; /* NULL: no fallback */
	double routings_total;       /* counters since start */
	double fallbacks_total;
	double export_failures_total;
	double sequence;             /* routing number */
	double timestamp;            /* routing time, seconds since 1970 */
	double endpoints, switches;
	double route_seconds;
	double eval_seconds;
	double lft_changed;          /* entries changed against the last
				        routing */
	double degraded;             /* 1 degraded tree, 0 complete */
	double missing_hosts, missing_switches, missing_links;
	double unrouted_entries;
	double export_ok;            /* 1 written, 0 failed */
	double deadlock_free;        /* 1 every VL's CDG acyclic, 0 not */
	double vls;                  /* VLs carrying routes */
	const ibf_prom_pattern_t *patterns;
	unsigned npatterns;
	double patterns_skipped;
} ibf_prom_routing_t;

/* Every field unknown. */
void ibf_prom_routing_init(ibf_prom_routing_t *m);
/* The families of n routings on fp, every sample labelled with its
 * routing's engine (docs/osm-plugin.md, "Metrics"). */
ibf_status_t ibf_prom_routing_write(const ibf_prom_routing_t *m, unsigned n,
				    FILE *fp, ibf_err_t *err);

IBF_END_DECLS
#endif
