/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Internals shared by the topology generators (gen.c, gen_fattree.c,
 * gen_direct.c): the parsed spec, the build context and its helpers for
 * naming, GUIDs, size limits and links.  Not installed.
 */
#ifndef IBFLOW_GEN_INTERNAL_H
#define IBFLOW_GEN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <ibflow/gen.h>

#define IBF_GEN_MAX_FIELDS 6
#define IBF_GEN_MAX_VALS   16   /* values per field: PGFT levels */
#define IBF_GEN_MAX_HOSTS  100000u /* endpoints (connected CA ports) */

/* Every link is 4x EDR. */
#define IBF_GEN_WIDTH 4
#define IBF_GEN_SPEED IBF_SPEED_EDR

/* A spec split at ':' into fields and at ',' into values. */
typedef struct ibf_gen_field {
	unsigned n;
	uint64_t v[IBF_GEN_MAX_VALS];
} ibf_gen_field_t;

typedef struct ibf_gen_spec {
	const char *text;       /* the whole spec, for messages */
	const char *usage;      /* e.g. "pgft:H:M:W:P" */
	const char *const *names; /* per field, see ibf_gen_value_name() */
	unsigned nfields;       /* fields after the family name */
	ibf_gen_field_t f[IBF_GEN_MAX_FIELDS];
} ibf_gen_spec_t;

/* Build context: the fabric under construction and naming counters. */
typedef struct ibf_gen {
	ibf_fabric_t *f;
	const ibf_gen_spec_t *spec;
	ibf_err_t *err;
	unsigned lmc;
	uint32_t nhosts;       /* hosts added so far */
	uint32_t nswitches;    /* switches added so far */
	unsigned host_digits;  /* width of the host number in "hNNNN" */
} ibf_gen_t;

/* Report a bad spec: "spec \"TEXT\": message (usage: ...)". */
ibf_status_t ibf_gen_fail(ibf_gen_t *g, ibf_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Name of value i of a field for messages: field names are "H" (one
 * value), "M#" (a list: "M1", "M2", ..) or "A,P,H" (one name per value). */
void ibf_gen_value_name(const char *field, unsigned i, char *buf,
			size_t len);

/* Check that field idx (named name) has between nmin and nmax values, each
 * within [lo, hi].  Missing optional fields are the caller's business. */
ibf_status_t ibf_gen_check_field(ibf_gen_t *g, unsigned idx, const char *name,
				 unsigned nmin, unsigned nmax, uint64_t lo,
				 uint64_t hi);

/* The optional SEED field idx: its value when given, else *seed = 0. */
ibf_status_t ibf_gen_seed_field(ibf_gen_t *g, unsigned idx, uint64_t *seed);

/* Check a switch's port count against IBF_MAX_PORTS. */
ibf_status_t ibf_gen_check_ports(ibf_gen_t *g, uint64_t nports,
				 const char *what);

/* Check the sizes of the fabric about to be built: endpoint count and the
 * LID space at g->lmc (hosts come first in node order, then switches, LIDs
 * assigned as ibf_fabric_finalize does).  Also fixes the host name width. */
ibf_status_t ibf_gen_check_size(ibf_gen_t *g, uint64_t hosts,
				uint64_t host_ports, uint64_t switches);

/* Saturating arithmetic for size formulas. */
uint64_t ibf_gen_mul(uint64_t a, uint64_t b);
uint64_t ibf_gen_add(uint64_t a, uint64_t b);

/* Add the next host ("hNNNN HCA-1", a CA with nports ports). */
ibf_status_t ibf_gen_add_host(ibf_gen_t *g, unsigned nports,
			      ibf_node_id_t *id);
/* Add the next switch with a printf-made NodeDescription. */
ibf_status_t ibf_gen_add_switch(ibf_gen_t *g, unsigned nports,
				ibf_node_id_t *id, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A 4x EDR link. */
ibf_status_t ibf_gen_link(ibf_gen_t *g, ibf_node_id_t a, unsigned pa,
			  ibf_node_id_t b, unsigned pb);


/* Families.  Each validates its own fields, checks sizes, builds. */
ibf_status_t ibf_gen_pgft(ibf_gen_t *g);
ibf_status_t ibf_gen_xgft(ibf_gen_t *g);
ibf_status_t ibf_gen_kary(ibf_gen_t *g);
ibf_status_t ibf_gen_slimfly(ibf_gen_t *g);
ibf_status_t ibf_gen_dragonfly(ibf_gen_t *g);
ibf_status_t ibf_gen_hyperx(ibf_gen_t *g);
ibf_status_t ibf_gen_jellyfish(ibf_gen_t *g);
ibf_status_t ibf_gen_torus(ibf_gen_t *g);
ibf_status_t ibf_gen_tree(ibf_gen_t *g);
ibf_status_t ibf_gen_swisst1(ibf_gen_t *g);

#endif
