/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The names of a Slurm topology.conf (slurm_topo.h): ibnetdiscover's
 * node name map for switches, a host map for hosts, and the check that
 * Slurm reads a name back as written.
 */
#define _GNU_SOURCE  /* qsort_r */
#include <ibflow/slurm_topo.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/io.h>

#include "formats/names.h"
#include "formats/slurm_internal.h"

bool ibf_slurm_name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++) {
		char c = s[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.'))
			return false;
	}
	return n > 0 && n < IBF_NAME_MAX;
}

ibf_status_t ibf_slurm_names_init(const ibf_fabric_t *f,
				  ibf_slurm_names_t *names, ibf_err_t *err)
{
	names->nnodes = f->nnodes;
	names->node = calloc((size_t)f->nnodes + 1, sizeof(*names->node));
	if (!names->node)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	return IBF_OK;
}

void ibf_slurm_names_free(ibf_slurm_names_t *names)
{
	uint32_t i;

	if (!names->node)
		return;
	for (i = 0; i < names->nnodes; i++)
		free(names->node[i]);
	free(names->node);
	memset(names, 0, sizeof(*names));
}

/* ---- names given twice -------------------------------------------------- */

static int cmp_given(const void *x, const void *y)
{
	const ibf_slurm_given_t *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

const ibf_slurm_given_t *ibf_slurm_given_clash(ibf_slurm_given_t *v,
					       uint32_t n)
{
	uint32_t i;

	qsort(v, n, sizeof(*v), cmp_given);
	for (i = 1; i < n; i++)
		if (!strcmp(v[i].name, v[i - 1].name) &&
		    strcmp(v[i].owner, v[i - 1].owner))
			return &v[i];
	return NULL;
}

/* ---- the CAs by host name (first word of the NodeDescription) ------------ */

typedef struct host_index {
	const ibf_fabric_t *f;
	ibf_node_id_t *ca;   /* CAs with a first word, sorted by it */
	uint32_t n;
} host_index_t;

static int cmp_word(const ibf_fabric_t *f, ibf_node_id_t n, const char *w,
		    size_t wlen)
{
	const char *s;
	size_t len = ibf_names_first_word(ibf_node_desc(f, n), &s);
	int c = memcmp(s, w, len < wlen ? len : wlen);

	return c ? c : (len > wlen) - (len < wlen);
}

static int cmp_ca(const void *x, const void *y, void *fabric)
{
	const ibf_fabric_t *f = fabric;
	const char *w;
	size_t len = ibf_names_first_word(
		ibf_node_desc(f, *(const ibf_node_id_t *)y), &w);

	return cmp_word(f, *(const ibf_node_id_t *)x, w, len);
}

static ibf_status_t index_hosts(const ibf_fabric_t *f, host_index_t *ix,
				ibf_err_t *err)
{
	const char *w;
	uint32_t i;

	ix->f = f;
	ix->n = 0;
	ix->ca = malloc(sizeof(*ix->ca) * ((size_t)f->nnodes + 1));
	if (!ix->ca)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < f->nnodes; i++)
		if (ibf_node(f, i)->type == IBF_NODE_CA &&
		    ibf_names_first_word(ibf_node_desc(f, i), &w))
			ix->ca[ix->n++] = i;
	qsort_r(ix->ca, ix->n, sizeof(*ix->ca), cmp_ca, (void *)f);
	return IBF_OK;
}

/* The CAs of host name w: ix->ca[*first .. *first + return). */
static uint32_t find_host(const host_index_t *ix, const char *w,
			  uint32_t *first)
{
	size_t len = strlen(w);
	uint32_t lo = 0, hi = ix->n, end;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cmp_word(ix->f, ix->ca[mid], w, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < ix->n && !cmp_word(ix->f, ix->ca[end], w, len);
	     end++)
		;
	*first = lo;
	return end - lo;
}

/* ---- map files ----------------------------------------------------------- */

static bool parse_guid(const char *s, uint64_t *g)
{
	char *end;

	errno = 0;
	*g = strtoull(s, &end, 0);
	return *s && *s != '-' && !*end && !errno && *g;
}

/* The lines of a map: words split, the name joined; fn per line. */
typedef ibf_status_t (*map_line_fn)(void *ctx, const ibf_text_t *t,
				    const char *key, const char *name,
				    ibf_err_t *err);

static ibf_status_t read_map(const char *path, const char *expect,
			     map_line_fn fn, void *ctx, ibf_err_t *err)
{
	ibf_text_t t;
	ibf_words_t w;
	char name[IBF_NAME_MAX], *line;
	ibf_status_t st = ibf_text_load(&t, path, err);

	while (st == IBF_OK && (line = ibf_text_next_line(&t)) != NULL) {
		st = ibf_words_split(&t, line, &w, err);
		if (st != IBF_OK || !w.n)
			continue;
		if (w.n < 2 || !ibf_words_join(&w, 1, w.n, name, sizeof(name)))
			st = ibf_text_error(&t, err, IBF_ERR_PARSE,
					    "expected %s", expect);
		else
			st = fn(ctx, &t, w.w[0].s, name, err);
	}
	if (t.buf)
		ibf_text_free(&t);
	return st;
}

typedef struct map_ctx {
	const ibf_fabric_t *f;
	ibf_slurm_names_t *names;
	host_index_t ix;
	ibf_slurm_given_t *given;  /* one per name given, for clashes */
	uint32_t ngiven;
} map_ctx_t;

static ibf_status_t bad_name(const ibf_text_t *t, ibf_err_t *err,
			     const char *what, const char *name)
{
	return ibf_text_error(t, err, IBF_ERR_INVALID, "%s: name '%s' is "
			      "not one Slurm reads back as written (only "
			      "letters, digits, '-', '_', '.')", what, name);
}

static ibf_status_t give(map_ctx_t *c, const ibf_text_t *t,
			 ibf_node_id_t n, const char *name, const char *owner,
			 ibf_err_t *err)
{
	ibf_slurm_given_t *g = &c->given[c->ngiven];

	c->names->node[n] = strdup(name);
	g->name = c->names->node[n];
	g->owner = strdup(owner);
	g->line = t->line;
	if (!g->name || !g->owner) {
		free(g->owner);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	c->ngiven++;
	return IBF_OK;
}

static ibf_status_t switch_line(void *ctx, const ibf_text_t *t,
				const char *key, const char *name,
				ibf_err_t *err)
{
	map_ctx_t *c = ctx;
	char what[64];
	uint64_t guid;
	ibf_node_id_t n;

	if (!parse_guid(key, &guid))
		return ibf_text_error(t, err, IBF_ERR_PARSE, "'%s' is not a "
				      "NodeGUID", key);
	n = ibf_fabric_node_by_guid(c->f, guid);
	if (n == IBF_NO_ID || !ibf_node_is_switch(c->f, n) ||
	    c->names->node[n])
		return IBF_OK;  /* another node, or the first entry wins */
	snprintf(what, sizeof(what), "switch 0x%016llx",
		 (unsigned long long)guid);
	if (!ibf_slurm_name_ok(name))
		return bad_name(t, err, what, name);
	return give(c, t, n, name, what, err);
}

static ibf_status_t clash(map_ctx_t *c, const char *path, const char *what,
			  ibf_err_t *err)
{
	const ibf_slurm_given_t *g = ibf_slurm_given_clash(c->given,
							   c->ngiven);
	const ibf_slurm_given_t *o = g ? g - 1 : NULL;

	if (!g)
		return IBF_OK;
	return ibf_err_set(err, IBF_ERR_INVALID, "%s:%u: %s '%s' of %s is "
			   "already %s's (line %u)", path, g->line, what,
			   g->name, g->owner, o->owner, o->line);
}

static void map_done(map_ctx_t *c)
{
	uint32_t i;

	for (i = 0; i < c->ngiven; i++)
		free(c->given[i].owner);
	free(c->given);
	free(c->ix.ca);
}

static ibf_status_t map_start(const ibf_fabric_t *f, ibf_slurm_names_t *names,
			      map_ctx_t *c, ibf_err_t *err)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->names = names;
	c->given = malloc(sizeof(*c->given) * ((size_t)f->nnodes + 1));
	if (!c->given)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	return index_hosts(f, &c->ix, err);
}

ibf_status_t ibf_slurm_read_node_name_map(const ibf_fabric_t *f,
					  const char *path,
					  ibf_slurm_names_t *names,
					  ibf_err_t *err)
{
	map_ctx_t c;
	ibf_status_t st = map_start(f, names, &c, err);

	if (st == IBF_OK)
		st = read_map(path, "a NodeGUID and a name", switch_line, &c,
			      err);
	if (st == IBF_OK)
		st = clash(&c, path, "name", err);
	map_done(&c);
	return st;
}

/* A CA by 0x NodeGUID: *first .. one entry of a one-element list. */
static uint32_t host_by_guid(map_ctx_t *c, const char *key,
			     ibf_node_id_t *one)
{
	uint64_t guid;
	ibf_node_id_t n;

	if (strncmp(key, "0x", 2) || !parse_guid(key, &guid))
		return 0;
	n = ibf_fabric_node_by_guid(c->f, guid);
	if (n == IBF_NO_ID || ibf_node(c->f, n)->type != IBF_NODE_CA)
		return 0;
	*one = n;
	return 1;
}

static ibf_status_t host_line(void *ctx, const ibf_text_t *t,
			      const char *key, const char *name,
			      ibf_err_t *err)
{
	map_ctx_t *c = ctx;
	ibf_node_id_t one, *cas = &one;
	uint32_t first, i, n = host_by_guid(c, key, &one);
	ibf_status_t st;

	if (!n) {
		n = find_host(&c->ix, key, &first);
		cas = c->ix.ca + first;
	}
	if (!n)
		return ibf_text_error(t, err, IBF_ERR_NOT_FOUND, "unknown "
				      "host '%s': no CA's NodeDescription "
				      "begins with it, nor is it a CA's "
				      "NodeGUID", key);
	if (!ibf_slurm_name_ok(name))
		return bad_name(t, err, key, name);
	for (i = 0; i < n; i++)
		if (c->names->node[cas[i]])
			return ibf_text_error(t, err, IBF_ERR_INVALID, "host "
					      "'%s' is named twice", key);
	st = give(c, t, cas[0], name, key, err);
	for (i = 1; st == IBF_OK && i < n; i++) {
		c->names->node[cas[i]] = strdup(name);
		if (!c->names->node[cas[i]])
			st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	return st;
}

ibf_status_t ibf_slurm_read_host_map(const ibf_fabric_t *f, const char *path,
				     ibf_slurm_names_t *names,
				     ibf_err_t *err)
{
	map_ctx_t c;
	ibf_status_t st = map_start(f, names, &c, err);

	if (st == IBF_OK)
		st = read_map(path, "a host and its Slurm name", host_line,
			      &c, err);
	if (st == IBF_OK)
		st = clash(&c, path, "Slurm name", err);
	map_done(&c);
	return st;
}
