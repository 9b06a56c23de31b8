/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Topology generators: spec parsing, dispatch to the families, and the
 * helpers they share (naming, GUIDs, size limits, links, PRNG).
 * docs/generators.md describes every family.
 */
#include <ibflow/gen.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_internal.h"

/* GUIDs: an OUI in the top 24 bits, a kind byte (1 = host, 2 = switch),
 * then the host or switch number shifted left by 8 so that the low byte
 * is free for CA port numbers (port GUID = node GUID + port). */
#define GUID_OUI    0x0002c90000000000ULL
#define GUID_HOST   (GUID_OUI | (1ULL << 32))
#define GUID_SWITCH (GUID_OUI | (2ULL << 32))

typedef ibf_status_t (*gen_fn)(ibf_gen_t *g);

static const struct family {
	const char *name;
	const char *usage;
	unsigned fmin, fmax; /* number of fields after the name */
	gen_fn fn;
	const char *names[IBF_GEN_MAX_FIELDS];
} families[] = {
	{ "pgft", "pgft:H:M1,..,MH:W1,..,WH:P1,..,PH", 4, 4, ibf_gen_pgft,
	  { "H", "M#", "W#", "P#" } },
	{ "xgft", "xgft:H:M1,..,MH:W1,..,WH", 3, 3, ibf_gen_xgft,
	  { "H", "M#", "W#" } },
	{ "kary", "kary:K,N", 1, 1, ibf_gen_kary, { "K,N" } },
	{ "slimfly", "slimfly:Q[:P]", 1, 2, ibf_gen_slimfly, { "Q", "P" } },
	{ "dragonfly", "dragonfly:A,P,H", 1, 1, ibf_gen_dragonfly,
	  { "A,P,H" } },
	{ "hyperx", "hyperx:L:S:K[:P]", 3, 4, ibf_gen_hyperx,
	  { "L", "S", "K", "P" } },
	{ "jellyfish", "jellyfish:NR,K,P[:SEED]", 1, 2, ibf_gen_jellyfish,
	  { "NR,K,P", "SEED" } },
	{ "torus", "torus:X,Y,Z[:P]", 1, 2, ibf_gen_torus,
	  { "X,Y,Z", "P" } },
	{ "tree", "tree:S,H,P[:SEED]", 1, 2, ibf_gen_tree,
	  { "S,H,P", "SEED" } },
	{ "swisst1", "swisst1", 0, 0, ibf_gen_swisst1, { NULL } },
};

#define NFAMILIES (sizeof(families) / sizeof(families[0]))

/* ---- shared helpers ---------------------------------------------------- */

ibf_status_t ibf_gen_fail(ibf_gen_t *g, ibf_status_t st, const char *fmt, ...)
{
	char msg[IBF_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ibf_err_set(g->err, st, "spec \"%.100s\": %s (usage: %s)",
			   g->spec->text, msg, g->spec->usage);
}

void ibf_gen_value_name(const char *field, unsigned i, char *buf,
			size_t len)
{
	size_t n = strlen(field);
	const char *p = field;
	unsigned k;

	if (n && field[n - 1] == '#') {
		snprintf(buf, len, "%.*s%u", (int)(n - 1), field, i + 1);
		return;
	}
	if (!strchr(field, ',')) {
		snprintf(buf, len, "%s", field);
		return;
	}
	for (k = 0; k < i && p; k++) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p)
		p = field; /* more values than names: the whole field */
	snprintf(buf, len, "%.*s", (int)strcspn(p, ","), p);
}

/* The field as a whole: "M#" -> "M". */
static int field_len(const char *field)
{
	size_t n = strlen(field);

	return (int)(n && field[n - 1] == '#' ? n - 1 : n);
}

ibf_status_t ibf_gen_check_field(ibf_gen_t *g, unsigned idx, const char *name,
				 unsigned nmin, unsigned nmax, uint64_t lo,
				 uint64_t hi)
{
	const ibf_gen_field_t *f = &g->spec->f[idx];
	unsigned i;

	char vname[32];

	if (f->n < nmin || f->n > nmax) {
		if (nmin == nmax)
			return ibf_gen_fail(g, IBF_ERR_PARSE,
					    "%.*s has %u value%s, expected %u",
					    field_len(name), name, f->n,
					    f->n == 1 ? "" : "s", nmin);
		return ibf_gen_fail(g, IBF_ERR_PARSE,
				    "%.*s has %u values, expected %u..%u",
				    field_len(name), name, f->n, nmin, nmax);
	}
	for (i = 0; i < f->n; i++) {
		if (f->v[i] >= lo && f->v[i] <= hi)
			continue;
		ibf_gen_value_name(name, i, vname, sizeof(vname));
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "%s = %llu is out of range (%llu..%llu)",
				    vname, (unsigned long long)f->v[i],
				    (unsigned long long)lo,
				    (unsigned long long)hi);
	}
	return IBF_OK;
}

ibf_status_t ibf_gen_seed_field(ibf_gen_t *g, unsigned idx, uint64_t *seed)
{
	ibf_status_t st;

	*seed = 0;
	if (g->spec->nfields <= idx)
		return IBF_OK;
	st = ibf_gen_check_field(g, idx, "SEED", 1, 1, 0, UINT64_MAX);
	if (st == IBF_OK)
		*seed = g->spec->f[idx].v[0];
	return st;
}

ibf_status_t ibf_gen_check_ports(ibf_gen_t *g, uint64_t nports,
				 const char *what)
{
	if (nports < 1 || nports > IBF_MAX_PORTS)
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "%s would have %llu ports (1..%u allowed)",
				    what, (unsigned long long)nports,
				    IBF_MAX_PORTS);
	return IBF_OK;
}

uint64_t ibf_gen_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

uint64_t ibf_gen_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

ibf_status_t ibf_gen_check_size(ibf_gen_t *g, uint64_t hosts,
				uint64_t host_ports, uint64_t switches)
{
	uint64_t top, n;

	if (hosts == 0)
		return ibf_gen_fail(g, IBF_ERR_RANGE, "no hosts");
	if (host_ports > IBF_GEN_MAX_HOSTS)
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "%llu endpoints (host ports), more than "
				    "the %u a generated fabric may have",
				    (unsigned long long)host_ports,
				    IBF_GEN_MAX_HOSTS);
	if (switches > IBF_LID_UCAST_MAX)
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "%llu switches, more than there are LIDs",
				    (unsigned long long)switches);
	/* ibf_fabric_finalize's order: host ports first, each aligned to
	 * 2^lmc, then one LID per switch. */
	if (g->lmc == 0)
		top = host_ports + switches;
	else
		top = ((host_ports + 1) << g->lmc) + switches - 1;
	if (top > IBF_LID_UCAST_MAX)
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "%llu host ports and %llu switches need "
				    "LIDs up to %llu at LMC %u, above 0x%X",
				    (unsigned long long)host_ports,
				    (unsigned long long)switches,
				    (unsigned long long)top, g->lmc,
				    IBF_LID_UCAST_MAX);
	g->host_digits = 4;
	for (n = 10000; n < hosts; n *= 10)
		g->host_digits++;
	return IBF_OK;
}

ibf_status_t ibf_gen_add_host(ibf_gen_t *g, unsigned nports,
			      ibf_node_id_t *id)
{
	uint64_t guid = GUID_HOST | ((uint64_t)g->nhosts << 8);
	char desc[32];
	ibf_status_t st;
	unsigned p;

	snprintf(desc, sizeof(desc), "h%0*u HCA-1", (int)g->host_digits,
		 g->nhosts);
	st = ibf_fabric_add_node(g->f, IBF_NODE_CA, guid, desc, nports, id,
				 g->err);
	for (p = 1; st == IBF_OK && p <= nports; p++)
		st = ibf_fabric_set_port(g->f, *id, p, guid + p, 0, 0, g->err);
	g->nhosts++;
	return st;
}

ibf_status_t ibf_gen_add_switch(ibf_gen_t *g, unsigned nports,
				ibf_node_id_t *id, const char *fmt, ...)
{
	uint64_t guid = GUID_SWITCH | ((uint64_t)g->nswitches << 8);
	char desc[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	g->nswitches++;
	return ibf_fabric_add_node(g->f, IBF_NODE_SWITCH, guid, desc, nports,
				   id, g->err);
}

ibf_status_t ibf_gen_link(ibf_gen_t *g, ibf_node_id_t a, unsigned pa,
			  ibf_node_id_t b, unsigned pb)
{
	return ibf_fabric_link(g->f, a, pa, b, pb, IBF_GEN_WIDTH,
			       IBF_GEN_SPEED, g->err);
}

/* ---- spec parsing -------------------------------------------------------- */

/* One decimal value: digits only, no sign, no blanks.  Returns 0, or -1
 * when it is not a number, 1 when it does not fit in 64 bits. */
static int parse_value(const char *s, size_t len, uint64_t *v)
{
	size_t i;

	if (len == 0)
		return -1;
	*v = 0;
	for (i = 0; i < len; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (*v > (UINT64_MAX - d) / 10)
			return 1;
		*v = *v * 10 + d;
	}
	return 0;
}

/* "W2", or "field 5 value 2" past the family's fields. */
static void value_label(const ibf_gen_spec_t *s, unsigned field,
			unsigned i, char *buf, size_t len)
{
	if (field < IBF_GEN_MAX_FIELDS && s->names[field])
		ibf_gen_value_name(s->names[field], i, buf, len);
	else
		snprintf(buf, len, "field %u value %u", field + 1, i + 1);
}

static ibf_status_t parse_fields(ibf_gen_t *g, ibf_gen_spec_t *s,
				 const char *p)
{
	char vname[48];
	ibf_gen_field_t *f;
	int rc;

	for (;;) {
		if (s->nfields == IBF_GEN_MAX_FIELDS)
			return ibf_gen_fail(g, IBF_ERR_PARSE,
					    "too many ':'-separated fields");
		f = &s->f[s->nfields++];
		for (;;) {
			size_t len = strcspn(p, ",:");

			if (f->n == IBF_GEN_MAX_VALS)
				return ibf_gen_fail(g, IBF_ERR_PARSE,
						    "field %u has more than "
						    "%u values", s->nfields,
						    IBF_GEN_MAX_VALS);
			rc = parse_value(p, len, &f->v[f->n]);
			if (rc) {
				value_label(s, s->nfields - 1, f->n, vname,
					    sizeof(vname));
				return ibf_gen_fail(g, rc < 0 ? IBF_ERR_PARSE :
						    IBF_ERR_RANGE,
						    "%s '%.*s' is %s", vname,
						    (int)(len > 40 ? 40 : len),
						    p, rc < 0 ? "not a number" :
						    "too large");
			}
			f->n++;
			p += len;
			if (*p != ',')
				break;
			p++;
		}
		if (*p == '\0')
			return IBF_OK;
		p++; /* ':' */
	}
}

static void finalize_error(ibf_gen_t *g)
{
	ibf_err_prefix(g->err, "spec \"%.100s\": ", g->spec->text);
}

ibf_status_t ibf_gen(const char *spec, const ibf_gen_opts_t *opts,
		     ibf_fabric_t **out, ibf_err_t *err)
{
	ibf_finalize_opts_t fo = { .lmc = opts ? opts->lmc : 0 };
	ibf_gen_spec_t s = { .text = spec, .usage = "FAMILY:PARAMS" };
	ibf_gen_t g = { .spec = &s, .err = err, .lmc = fo.lmc };
	const struct family *fam = NULL;
	size_t namelen;
	ibf_status_t st;
	size_t i;

	*out = NULL;
	if (!spec)
		return ibf_err_set(err, IBF_ERR_PARSE, "no topology spec");
	if (g.lmc > IBF_LMC_MAX)
		return ibf_err_set(err, IBF_ERR_RANGE, "LMC %u (must be 0..%u)",
				   g.lmc, IBF_LMC_MAX);
	namelen = strcspn(spec, ":");
	for (i = 0; i < NFAMILIES; i++)
		if (strlen(families[i].name) == namelen &&
		    !strncmp(spec, families[i].name, namelen))
			fam = &families[i];
	if (!fam)
		return ibf_gen_fail(&g, IBF_ERR_PARSE,
				    "unknown family '%.*s' (pgft, xgft, kary, "
				    "slimfly, dragonfly, hyperx, jellyfish, "
				    "torus, tree, swisst1)", (int)(namelen > 40 ? 40 : namelen),
				    spec);
	s.usage = fam->usage;
	s.names = fam->names;
	if (spec[namelen] != ':' && (fam->fmin || spec[namelen]))
		return ibf_gen_fail(&g, IBF_ERR_PARSE, "no parameters");
	/* A family without fields is its name alone. */
	st = spec[namelen] ? parse_fields(&g, &s, spec + namelen + 1) : IBF_OK;
	if (st != IBF_OK)
		return st;
	if (s.nfields < fam->fmin || s.nfields > fam->fmax)
		return ibf_gen_fail(&g, IBF_ERR_PARSE,
				    "%u ':'-separated field%s after '%s', "
				    "expected %u%s", s.nfields,
				    s.nfields == 1 ? "" : "s", fam->name,
				    fam->fmin, fam->fmax > fam->fmin ?
				    " or one more" : "");
	if (ibf_fabric_create(&g.f) != IBF_OK)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = fam->fn(&g);
	if (st == IBF_OK) {
		st = ibf_fabric_finalize(g.f, &fo, err);
		if (st != IBF_OK)
			finalize_error(&g);
	}
	if (st != IBF_OK) {
		ibf_fabric_destroy(g.f);
		return st;
	}
	*out = g.f;
	return IBF_OK;
}
