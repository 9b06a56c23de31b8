/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * A job's nodes in a routing's host order (nodelist.h, docs/order.md).
 *
 * Every endpoint gets a key: (place of its leaf switch, place of the
 * endpoint in the order), leaves numbered as their first endpoint appears.
 * A node name (first word of a CA's NodeDescription) takes the smallest
 * key of its endpoints; the job's nodes are sorted by key.  Grouping by
 * leaf keeps the ranks of one leaf adjacent for engines whose order is
 * only the fabric's node order (minhop, layered, OpenSM's own engines);
 * on a PGFT's topological order it changes nothing, the hosts of a leaf
 * being adjacent there already.
 */
#include <ibflow/nodelist.h>

#include <stdlib.h>
#include <string.h>

#include "formats/names.h"

/* A node name of the fabric and its key. */
typedef struct named {
	const char *name;  /* into the fabric's descriptions */
	size_t len;
	uint64_t key;
} named_t;

static int cmp_name(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

/* By name, then key: the first of a run of equal names has the least. */
static int cmp_named(const void *x, const void *y)
{
	const named_t *a = x, *b = y;
	int c = cmp_name(a->name, a->len, b->name, b->len);

	return c ? c : (a->key > b->key) - (a->key < b->key);
}

/* The fabric's names with their least keys, sorted by name; *n of them. */
static named_t *fabric_names(const ibf_fabric_t *f,
			     const ibf_port_id_t *order, uint32_t norder,
			     uint32_t *n)
{
	uint32_t *leaf_seq = malloc(sizeof(*leaf_seq) * (f->nnodes + 1));
	named_t *v = malloc(sizeof(*v) * ((size_t)norder + 1));
	uint32_t i, nleaves = 0, k = 0;

	if (!leaf_seq || !v) {
		free(leaf_seq);
		free(v);
		return NULL;
	}
	memset(leaf_seq, 0xff, sizeof(*leaf_seq) * (f->nnodes + 1));
	for (i = 0; i < norder; i++) {
		const ibf_port_t *p = ibf_port(f, order[i]);
		ibf_node_id_t leaf = ibf_port(f, p->peer)->node;

		if (leaf_seq[leaf] == UINT32_MAX)
			leaf_seq[leaf] = nleaves++;
		v[k].len = ibf_names_first_word(ibf_node_desc(f, p->node), &v[k].name);
		v[k].key = (uint64_t)leaf_seq[leaf] << 32 | i;
		if (v[k].len)
			k++;
	}
	free(leaf_seq);
	qsort(v, k, sizeof(*v), cmp_named);
	*n = 0;
	for (i = 0; i < k; i++)
		if (!*n || cmp_name(v[*n - 1].name, v[*n - 1].len, v[i].name,
				    v[i].len))
			v[(*n)++] = v[i];
	return v;
}

static const named_t *lookup(const named_t *v, uint32_t n, const char *name)
{
	size_t len = strlen(name);
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = cmp_name(v[mid].name, v[mid].len, name, len);

		if (!c)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* "node 'a' is ..." for up to three unknown names, then how many more. */
static ibf_status_t unknown(const ibf_nodelist_t *nl, const uint64_t *key,
			    ibf_err_t *err)
{
	char msg[IBF_ERR_MSG_MAX] = "";
	uint32_t i, shown = 0, more = 0;
	size_t len = 0;

	for (i = 0; i < nl->n; i++) {
		if (key[i] != UINT64_MAX)
			continue;
		if (shown == 3) {
			more++;
			continue;
		}
		len += (size_t)snprintf(msg + len, len < sizeof(msg) ?
					sizeof(msg) - len : 0, "%s'%s'",
					shown ? ", " : "", nl->names[i]);
		if (len >= sizeof(msg))
			len = sizeof(msg) - 1;
		shown++;
	}
	if (more)
		return ibf_err_set(err, IBF_ERR_NOT_FOUND, "unknown nodes %s "
				   "and %u more: no connected CA's "
				   "NodeDescription begins with them", msg,
				   more);
	return ibf_err_set(err, IBF_ERR_NOT_FOUND, "unknown node%s %s: no "
			   "connected CA's NodeDescription begins with %s",
			   shown > 1 ? "s" : "", msg,
			   shown > 1 ? "them" : "it");
}

typedef struct keyed {
	uint64_t key;
	char *name;
} keyed_t;

static int cmp_keyed(const void *x, const void *y)
{
	const keyed_t *a = x, *b = y;

	return (a->key > b->key) - (a->key < b->key);
}

/* Sort nl's names by key; two equal keys are one node listed twice. */
static ibf_status_t sort_by_key(ibf_nodelist_t *nl, const uint64_t *key,
				ibf_err_t *err)
{
	keyed_t *v = malloc(sizeof(*v) * ((size_t)nl->n + 1));
	uint32_t i;

	if (!v)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < nl->n; i++) {
		v[i].key = key[i];
		v[i].name = nl->names[i];
	}
	qsort(v, nl->n, sizeof(*v), cmp_keyed);
	for (i = 1; i < nl->n; i++)
		if (v[i].key == v[i - 1].key) {
			ibf_status_t st = ibf_err_set(err, IBF_ERR_INVALID,
						      "node '%s' listed twice",
						      v[i].name);

			free(v);
			return st;
		}
	for (i = 0; i < nl->n; i++)
		nl->names[i] = v[i].name;
	free(v);
	return IBF_OK;
}

ibf_status_t ibf_nodelist_order(const ibf_fabric_t *f,
				const ibf_port_id_t *order, uint32_t norder,
				ibf_nodelist_t *nl, ibf_err_t *err)
{
	uint64_t *key = malloc(sizeof(*key) * ((size_t)nl->n + 1));
	named_t *names;
	uint32_t nnames, i;
	bool missing = false;
	ibf_status_t st;

	names = key ? fabric_names(f, order, norder, &nnames) : NULL;
	if (!names) {
		free(key);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < nl->n; i++) {
		const named_t *m = lookup(names, nnames, nl->names[i]);

		key[i] = m ? m->key : UINT64_MAX;
		missing |= !m;
	}
	st = missing ? unknown(nl, key, err) : sort_by_key(nl, key, err);
	free(names);
	free(key);
	return st;
}
