/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Slurm's topology.conf from a fabric (slurm_topo.h, docs/order.md).
 *
 * Levels first (the PGFT's, else hop distance from the hosts), then the
 * leaves' hosts, then level by level upwards the switches that have a
 * host below them: a switch is kept when one of its neighbours a level
 * down is.  What the fabric lacks (a failed link, switch or host) is
 * simply not there: the file follows the fabric as it is.
 */
#include <ibflow/slurm_topo.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/nodelist.h>
#include <ibflow/pgft.h>

#include "formats/names.h"
#include "formats/slurm_internal.h"

#define NO_LEVEL 0xffu

typedef struct builder {
	const ibf_fabric_t *f;
	const ibf_slurm_names_t *names;
	uint8_t *level;      /* per node: 0 a CA, switches 1.., NO_LEVEL */
	bool *kept;          /* per node: a switch with a host below it */
	char **name;         /* per node: its name in the file, or NULL */
	ibf_slurm_topo_t *t;
	ibf_err_t *err;
} builder_t;

static ibf_status_t nomem(builder_t *b)
{
	return ibf_err_set(b->err, IBF_ERR_NOMEM, "out of memory");
}

/* The node at the other end of n's port k, or IBF_NO_ID. */
static ibf_node_id_t neighbour(const ibf_fabric_t *f, ibf_node_id_t n,
			       unsigned k)
{
	const ibf_port_t *p = ibf_node_port(f, n, k);

	return p->peer == IBF_NO_ID ? IBF_NO_ID : ibf_port(f, p->peer)->node;
}

/* ---- levels ------------------------------------------------------------ */

static bool pgft_levels(builder_t *b)
{
	ibf_pgft_t *pg = NULL;
	ibf_err_t err;
	uint32_t i;

	ibf_err_clear(&err);
	if (ibf_pgft_recognize(b->f, &pg, &err) != IBF_OK)
		return false;
	for (i = 0; i < b->f->nnodes; i++)
		b->level[i] = pg->level[i] == IBF_PGFT_NO_LEVEL ? NO_LEVEL :
			      pg->level[i];
	ibf_pgft_destroy(pg);
	return true;
}

static bool has_ca(const ibf_fabric_t *f, ibf_node_id_t n)
{
	unsigned k;

	for (k = 1; k <= ibf_node(f, n)->nports; k++) {
		ibf_node_id_t m = neighbour(f, n, k);

		if (m != IBF_NO_ID && ibf_node(f, m)->type == IBF_NODE_CA)
			return true;
	}
	return false;
}

/* Switches with a CA are leaves; the others one more than their nearest
 * neighbour (breadth first from the leaves). */
static ibf_status_t hop_levels(builder_t *b)
{
	const ibf_fabric_t *f = b->f;
	ibf_node_id_t *queue = malloc(sizeof(*queue) * ((size_t)f->nnodes + 1));
	uint32_t head = 0, tail = 0, i;
	unsigned k;

	if (!queue)
		return nomem(b);
	for (i = 0; i < f->nnodes; i++) {
		b->level[i] = ibf_node_is_switch(f, i) ? NO_LEVEL : 0;
		if (ibf_node_is_switch(f, i) && has_ca(f, i)) {
			b->level[i] = 1;
			queue[tail++] = i;
		}
	}
	while (head < tail) {
		ibf_node_id_t n = queue[head++];

		for (k = 1; k <= ibf_node(f, n)->nports; k++) {
			ibf_node_id_t m = neighbour(f, n, k);

			if (m != IBF_NO_ID && ibf_node_is_switch(f, m) &&
			    b->level[m] == NO_LEVEL &&
			    b->level[n] < NO_LEVEL - 1) {
				b->level[m] = (uint8_t)(b->level[n] + 1);
				queue[tail++] = m;
			}
		}
	}
	free(queue);
	return IBF_OK;
}

/* ---- names --------------------------------------------------------------- */

static ibf_status_t switch_name(builder_t *b, ibf_node_id_t n)
{
	const char *given = b->names ? b->names->node[n] : NULL;
	char buf[32];

	snprintf(buf, sizeof(buf), "S-%016" PRIx64, ibf_node(b->f, n)->guid);
	b->name[n] = strdup(given ? given : buf);
	return b->name[n] ? IBF_OK : nomem(b);
}

static ibf_status_t host_name(builder_t *b, ibf_node_id_t n)
{
	const char *given = b->names ? b->names->node[n] : NULL;
	const char *desc = ibf_node_desc(b->f, n), *w;
	size_t len = ibf_names_first_word(desc, &w);

	b->name[n] = given ? strdup(given) : strndup(w, len);
	if (!b->name[n])
		return nomem(b);
	if (ibf_slurm_name_ok(b->name[n]))
		return IBF_OK;
	return ibf_err_set(b->err, IBF_ERR_INVALID, "CA 0x%016" PRIx64
			   " \"%s\": %s%s%s is not a name Slurm reads back "
			   "as written (only letters, digits, '-', '_', '.'): "
			   "name it in a host map",
			   ibf_node(b->f, n)->guid, desc,
			   len ? "its name '" : "no NodeDescription",
			   len ? b->name[n] : "", len ? "'" : "");
}

/* Who owns a name: a host by its fabric name (its CAs share it), a CA
 * without one by its GUID, a switch by its GUID. */
static char *owner(const builder_t *b, ibf_node_id_t n)
{
	const char *w;
	size_t len = ibf_names_first_word(ibf_node_desc(b->f, n), &w);
	char buf[48];

	if (len && !ibf_node_is_switch(b->f, n))
		return strndup(w, len);
	snprintf(buf, sizeof(buf), "%s 0x%016" PRIx64,
		 ibf_node_is_switch(b->f, n) ? "switch" : "CA",
		 ibf_node(b->f, n)->guid);
	return strdup(buf);
}

/* Hosts among themselves and switches among themselves: one owner per
 * name. */
static ibf_status_t check_clashes(builder_t *b, bool switches)
{
	const ibf_fabric_t *f = b->f;
	ibf_slurm_given_t *v = calloc((size_t)f->nnodes + 1, sizeof(*v));
	const ibf_slurm_given_t *c;
	ibf_status_t st = IBF_OK;
	uint32_t i, n = 0;

	if (!v)
		return nomem(b);
	for (i = 0; i < f->nnodes && st == IBF_OK; i++) {
		if (!b->name[i] || ibf_node_is_switch(f, i) != switches)
			continue;
		v[n].name = b->name[i];
		v[n].owner = owner(b, i);
		if (!v[n++].owner)
			st = nomem(b);
	}
	if (st == IBF_OK && (c = ibf_slurm_given_clash(v, n)) != NULL)
		st = ibf_err_set(b->err, IBF_ERR_INVALID, "%s and %s are both "
				 "named '%s'", c[-1].owner, c->owner, c->name);
	for (i = 0; i < n; i++)
		free(v[i].owner);
	free(v);
	return st;
}

static ibf_status_t name_nodes(builder_t *b)
{
	const ibf_fabric_t *f = b->f;
	ibf_status_t st = IBF_OK;
	uint32_t i;

	for (i = 0; i < f->nnodes && st == IBF_OK; i++)
		if (ibf_node_is_switch(f, i))
			st = switch_name(b, i);
		else if (ibf_node(f, i)->type == IBF_NODE_CA)
			st = host_name(b, i);
	if (st == IBF_OK)
		st = check_clashes(b, false);
	if (st == IBF_OK)
		st = check_clashes(b, true);
	return st;
}

/* ---- the lines ----------------------------------------------------------- */

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The names of n's neighbours that are CAs (leaf) or kept switches one
 * level down, sorted, each once; *count of them. */
static const char **children(builder_t *b, ibf_node_id_t n, uint32_t *count)
{
	const ibf_fabric_t *f = b->f;
	unsigned k, np = ibf_node(f, n)->nports;
	const char **v = malloc(sizeof(*v) * (np + 1));
	uint32_t c = 0, i;

	if (!v)
		return NULL;
	for (k = 1; k <= np; k++) {
		ibf_node_id_t m = neighbour(f, n, k);

		if (m == IBF_NO_ID)
			continue;
		if (b->level[n] == 1 ? ibf_node(f, m)->type == IBF_NODE_CA :
		    ibf_node_is_switch(f, m) && b->kept[m] &&
		    b->level[m] + 1 == b->level[n])
			v[c++] = b->name[m];
	}
	qsort(v, c, sizeof(*v), cmp_str);
	for (*count = 0, i = 0; i < c; i++)
		if (!*count || strcmp(v[*count - 1], v[i]))
			v[(*count)++] = v[i];
	return v;
}

static char *join(const char **v, uint32_t n)
{
	size_t len = 1;
	uint32_t i;
	char *s, *p;

	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	s = p = malloc(len);
	if (!s)
		return NULL;
	*s = '\0';
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? "," : "", v[i]);
	return s;
}

static ibf_status_t add_switch(builder_t *b, ibf_node_id_t n)
{
	ibf_slurm_topo_t *t = b->t;
	ibf_slurm_switch_t *s = &t->sw[t->nsw];
	uint32_t count = 0;
	const char **v = children(b, n, &count);
	ibf_status_t st = IBF_OK;

	if (!v)
		return nomem(b);
	if (!count) {
		free(v);
		t->hostless++;
		return IBF_OK;
	}
	s->node = n;
	s->level = b->level[n];
	s->name = strdup(b->name[n]);
	if (s->level == 1)
		st = ibf_nodelist_compress(v, count, &s->children, b->err);
	else if (!(s->children = join(v, count)))
		st = nomem(b);
	free(v);
	if (st == IBF_OK && !s->name)
		st = nomem(b);
	if (st != IBF_OK) {
		free(s->name);
		free(s->children);
		return st;
	}
	b->kept[n] = true;
	t->nsw++;
	if (s->level > t->levels)
		t->levels = s->level;
	return IBF_OK;
}

static ibf_status_t add_levels(builder_t *b)
{
	const ibf_fabric_t *f = b->f;
	ibf_status_t st = IBF_OK;
	unsigned l, top = 0;
	uint32_t i;

	for (i = 0; i < f->nswitches; i++) {
		ibf_node_id_t n = f->switches[i];

		if (b->level[n] == NO_LEVEL || !b->level[n])
			b->t->hostless++;
		else if (b->level[n] > top)
			top = b->level[n];
	}
	for (l = 1; l <= top && st == IBF_OK; l++)
		for (i = 0; i < f->nswitches && st == IBF_OK; i++)
			if (b->level[f->switches[i]] == l)
				st = add_switch(b, f->switches[i]);
	return st;
}

/* Links (ports) between two switches of one level, each counted once. */
static void count_level_links(builder_t *b)
{
	const ibf_fabric_t *f = b->f;
	uint32_t i;
	unsigned k;

	for (i = 0; i < f->nswitches; i++) {
		ibf_node_id_t n = f->switches[i];

		for (k = 1; k <= ibf_node(f, n)->nports; k++) {
			ibf_node_id_t m = neighbour(f, n, k);

			if (m != IBF_NO_ID && m > n && ibf_node_is_switch(f, m) &&
			    b->level[m] == b->level[n] &&
			    b->level[n] != NO_LEVEL)
				b->t->level_links++;
		}
	}
}

static int cmp_switch(const void *x, const void *y)
{
	const ibf_slurm_switch_t *a = x, *b = y;

	if (a->level != b->level)
		return (a->level > b->level) - (a->level < b->level);
	return strcmp(a->name, b->name);
}

/* ---- hosts on a leaf and on none ----------------------------------------- */

static bool on_switch(const builder_t *b, ibf_node_id_t n)
{
	unsigned k;

	for (k = 1; k <= ibf_node(b->f, n)->nports; k++) {
		ibf_node_id_t m = neighbour(b->f, n, k);

		if (m != IBF_NO_ID && ibf_node_is_switch(b->f, m) &&
		    b->kept[m])
			return true;
	}
	return false;
}

/* Distinct names of v[0..n), sorted; returns how many. */
static uint32_t distinct(const char **v, uint32_t n)
{
	uint32_t i, c = 0;

	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++)
		if (!c || strcmp(v[c - 1], v[i]))
			v[c++] = v[i];
	return c;
}

static ibf_status_t count_hosts(builder_t *b)
{
	const ibf_fabric_t *f = b->f;
	const char **on = malloc(sizeof(*on) * ((size_t)f->nnodes + 1));
	const char **off = malloc(sizeof(*off) * ((size_t)f->nnodes + 1));
	uint32_t non = 0, noff = 0, i, j, k = 0;
	ibf_status_t st = IBF_OK;

	if (!on || !off) {
		free(on);
		free(off);
		return nomem(b);
	}
	for (i = 0; i < f->nnodes; i++)
		if (ibf_node(f, i)->type == IBF_NODE_CA) {
			if (on_switch(b, i))
				on[non++] = b->name[i];
			else
				off[noff++] = b->name[i];
		}
	non = distinct(on, non);
	noff = distinct(off, noff);
	/* a host with a CA on a switch is on the tree */
	for (i = 0, j = 0; i < noff; i++) {
		while (j < non && strcmp(on[j], off[i]) < 0)
			j++;
		if (j == non || strcmp(on[j], off[i]))
			off[k++] = off[i];
	}
	b->t->hosts = non;
	b->t->noff_switch = k;
	if (k)
		st = ibf_nodelist_compress(off, k, &b->t->off_switch, b->err);
	free(on);
	free(off);
	return st;
}

ibf_status_t ibf_slurm_topo_build(const ibf_fabric_t *f,
				  const ibf_slurm_names_t *names,
				  ibf_slurm_topo_t *t, ibf_err_t *err)
{
	builder_t b = { .f = f, .names = names, .t = t, .err = err };
	ibf_status_t st = IBF_OK;
	uint32_t i;

	memset(t, 0, sizeof(*t));
	b.level = malloc((size_t)f->nnodes + 1);
	b.kept = calloc((size_t)f->nnodes + 1, sizeof(*b.kept));
	b.name = calloc((size_t)f->nnodes + 1, sizeof(*b.name));
	t->sw = calloc((size_t)f->nswitches + 1, sizeof(*t->sw));
	if (!b.level || !b.kept || !b.name || !t->sw)
		st = nomem(&b);
	if (st == IBF_OK) {
		t->pgft = pgft_levels(&b);
		if (!t->pgft)
			st = hop_levels(&b);
	}
	if (st == IBF_OK)
		st = name_nodes(&b);
	if (st == IBF_OK) {
		count_level_links(&b);
		st = add_levels(&b);
	}
	if (st == IBF_OK)
		st = count_hosts(&b);
	if (st == IBF_OK)
		qsort(t->sw, t->nsw, sizeof(*t->sw), cmp_switch);
	for (i = 0; b.name && i < f->nnodes; i++)
		free(b.name[i]);
	free(b.name);
	free(b.kept);
	free(b.level);
	if (st != IBF_OK)
		ibf_slurm_topo_free(t);
	return st;
}

ibf_status_t ibf_slurm_topo_write(const ibf_slurm_topo_t *t, FILE *fp,
				  ibf_err_t *err)
{
	uint32_t i;

	fprintf(fp, "# Slurm topology.conf (TopologyPlugin=topology/tree), "
		"written by ibflow slurm-topology:\n"
		"# %" PRIu32 " switches on %u level%s (%s), %" PRIu32
		" hosts\n", t->nsw, t->levels, t->levels == 1 ? "" : "s",
		t->pgft ? "the PGFT's" : "hop distance from the hosts",
		t->hosts);
	for (i = 0; i < t->nsw; i++)
		fprintf(fp, "SwitchName=%s %s=%s\n", t->sw[i].name,
			t->sw[i].level == 1 ? "Nodes" : "Switches",
			t->sw[i].children);
	if (t->off_switch)
		fprintf(fp, "# %" PRIu32 " hosts on no switch, left out (every "
			"node of the tree must be on a switch): %s\n",
			t->noff_switch, t->off_switch);
	if (t->level_links)
		fprintf(fp, "# %" PRIu32 " links between switches of one level "
			"left out (the tree has no place for them)\n",
			t->level_links);
	if (t->hostless)
		fprintf(fp, "# %" PRIu32 " switch%s with no host below, "
			"left out (Slurm refuses a switch without children)\n",
			t->hostless, t->hostless == 1 ? "" : "es");
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}

void ibf_slurm_topo_free(ibf_slurm_topo_t *t)
{
	uint32_t i;

	for (i = 0; t->sw && i < t->nsw; i++) {
		free(t->sw[i].name);
		free(t->sw[i].children);
	}
	free(t->sw);
	free(t->off_switch);
	memset(t, 0, sizeof(*t));
}
