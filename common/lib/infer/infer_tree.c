/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The inferred tree: distances, shape, and conversion for the writers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/topo_io.h>

#include "formats/topo_internal.h"
#include "infer/infer_internal.h"

#define NONE IBF_INFER_NONE

/* GUIDs of the inferred fabric: an OUI of their own so they never collide
 * with generated fabrics (0x0002c901.., 0x0002c902..). */
#define GUID_HOST   0x0002c9f100000000ULL
#define GUID_SWITCH 0x0002c9f200000000ULL

/* Adjacency in CSR form. */
struct adj {
	uint32_t *off, *nb;
	double *w;
};

static int adj_build(const ibf_infer_tree_t *t, struct adj *a)
{
	uint32_t i, *fill;

	a->off = calloc((size_t)t->nnodes + 1, sizeof(*a->off));
	a->nb = malloc(2 * (size_t)t->nedges * sizeof(*a->nb) + 1);
	a->w = malloc(2 * (size_t)t->nedges * sizeof(*a->w) + 1);
	fill = calloc((size_t)t->nnodes + 1, sizeof(*fill));
	if (!a->off || !a->nb || !a->w || !fill) {
		free(fill);
		return -1;
	}
	for (i = 0; i < t->nedges; i++) {
		a->off[t->ea[i] + 1]++;
		a->off[t->eb[i] + 1]++;
	}
	for (i = 0; i < t->nnodes; i++)
		a->off[i + 1] += a->off[i];
	for (i = 0; i < t->nedges; i++) {
		uint32_t x = t->ea[i], y = t->eb[i];

		a->nb[a->off[x] + fill[x]] = y;
		a->w[a->off[x] + fill[x]++] = t->lat[i];
		a->nb[a->off[y] + fill[y]] = x;
		a->w[a->off[y] + fill[y]++] = t->lat[i];
	}
	free(fill);
	return 0;
}

static void adj_free(struct adj *a)
{
	free(a->off);
	free(a->nb);
	free(a->w);
}

/* Weighted (w) or hop (NULL) distances from s to every node. */
static void walk(const ibf_infer_tree_t *t, const struct adj *a, uint32_t s,
		 double *d, uint32_t *hops, uint32_t *stack, uint32_t *from)
{
	uint32_t sp = 0, k;

	from[s] = NONE;
	if (d)
		d[s] = 0;
	if (hops)
		hops[s] = 0;
	stack[sp++] = s;
	while (sp) {
		uint32_t v = stack[--sp];

		for (k = a->off[v]; k < a->off[v + 1]; k++) {
			uint32_t u = a->nb[k];

			if (u == from[v])
				continue;
			from[u] = v;
			if (d)
				d[u] = d[v] + a->w[k];
			if (hops)
				hops[u] = hops[v] + 1;
			stack[sp++] = u;
		}
	}
	(void)t;
}

static ibf_status_t all_pairs(const ibf_infer_tree_t *t, double *rtt,
			      uint32_t *hops, ibf_err_t *err)
{
	uint32_t n = t->nhosts, nn = t->nnodes, s, b;
	uint32_t *stack = malloc(nn * sizeof(*stack));
	uint32_t *from = malloc(nn * sizeof(*from));
	uint32_t *h = hops ? malloc(nn * sizeof(*h)) : NULL;
	double *d = rtt ? malloc(nn * sizeof(*d)) : NULL;
	struct adj a = { 0 };
	ibf_status_t st = IBF_OK;

	if (!stack || !from || (hops && !h) || (rtt && !d) || adj_build(t, &a)) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (s = 0; s < n; s++) {
		walk(t, &a, s, d, h, stack, from);
		for (b = 0; b < n; b++) {
			if (rtt)
				rtt[(size_t)s * n + b] = 2 * d[b];
			if (hops)
				hops[(size_t)s * n + b] = h[b];
		}
	}
out:
	adj_free(&a);
	free(stack);
	free(from);
	free(h);
	free(d);
	return st;
}

ibf_status_t ibf_infer_tree_rtts(const ibf_infer_tree_t *t, double *out,
				 ibf_err_t *err)
{
	return all_pairs(t, out, NULL, err);
}

ibf_status_t ibf_infer_tree_hops(const ibf_infer_tree_t *t, uint32_t *out,
				 ibf_err_t *err)
{
	return all_pairs(t, NULL, out, err);
}

void ibf_infer_tree_shape(const ibf_infer_tree_t *t, uint32_t *p,
			  uint32_t *d)
{
	uint32_t *deg = calloc(t->nnodes ? t->nnodes : 1, sizeof(*deg));
	uint32_t *hops = NULL, i, n = t->nhosts;

	*p = *d = 0;
	if (!deg)
		return;
	for (i = 0; i < t->nedges; i++) {
		deg[t->ea[i]]++;
		deg[t->eb[i]]++;
	}
	for (i = n; i < t->nnodes; i++)
		if (deg[i] > *p)
			*p = deg[i];
	free(deg);
	hops = malloc((size_t)n * n * sizeof(*hops));
	if (hops && ibf_infer_tree_hops(t, hops, NULL) == IBF_OK)
		for (i = 0; i < n * n; i++)
			if (hops[i] > *d)
				*d = hops[i];
	free(hops);
}

/* ---- writers ------------------------------------------------------------ */

ibf_status_t ibf_infer_tree_fabric(const ibf_infer_tree_t *t,
				   const char *const *names, unsigned lmc,
				   ibf_fabric_t **out, ibf_err_t *err)
{
	ibf_finalize_opts_t fo = { .lmc = lmc };
	uint32_t *deg = calloc(t->nnodes, sizeof(*deg));
	uint32_t *used = calloc(t->nnodes, sizeof(*used));
	ibf_node_id_t *id = malloc(t->nnodes * sizeof(*id));
	ibf_fabric_t *f = NULL;
	ibf_status_t st = IBF_OK;
	uint32_t i;

	*out = NULL;
	if (!deg || !used || !id || ibf_fabric_create(&f) != IBF_OK) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < t->nedges; i++) {
		deg[t->ea[i]]++;
		deg[t->eb[i]]++;
	}
	for (i = 0; i < t->nnodes && st == IBF_OK; i++) {
		bool host = i < t->nhosts;
		char buf[32];

		if (deg[i] > IBF_MAX_PORTS) {
			st = ibf_err_set(err, IBF_ERR_RANGE, "inferred switch "
					 "infer-s%u has %u neighbours, more "
					 "than %u ports", i - t->nhosts,
					 deg[i], IBF_MAX_PORTS);
			break;
		}
		if (!host || !names)
			snprintf(buf, sizeof(buf), host ? "h%u" : "infer-s%u",
				 host ? i : i - t->nhosts);
		st = ibf_fabric_add_node(f, host ? IBF_NODE_CA :
					 IBF_NODE_SWITCH, host ?
					 GUID_HOST + ((uint64_t)i << 8) :
					 GUID_SWITCH + ((uint64_t)(i - t->nhosts) << 8),
					 host && names ? names[i] : buf, deg[i],
					 &id[i],
					 err);
	}
	for (i = 0; i < t->nedges && st == IBF_OK; i++) {
		uint32_t a = t->ea[i], b = t->eb[i];

		st = ibf_fabric_link(f, id[a], ++used[a], id[b], ++used[b],
				     4, IBF_SPEED_EDR, err);
	}
	if (st == IBF_OK)
		st = ibf_fabric_finalize(f, &fo, err);
	if (st == IBF_OK) {
		*out = f;
		f = NULL;
	}
out:
	ibf_fabric_destroy(f);
	free(deg);
	free(used);
	free(id);
	return st;
}

ibf_status_t ibf_infer_tree_write_dot(const ibf_infer_tree_t *t,
				      const char *const *names, FILE *fp,
				      ibf_err_t *err)
{
	uint32_t i;

	fprintf(fp, "// inferred by ibflow infer: %u hosts, %u switches; "
		"edge labels: one-way latency\ngraph inferred {\n"
		"\tnode [shape=ellipse];\n", t->nhosts,
		t->nnodes - t->nhosts);
	for (i = 0; i < t->nnodes; i++) {
		fprintf(fp, "\tn%u [label=", i);
		if (i < t->nhosts && names) {
			ibf_topo_dot_quoted(fp, names[i]);
			fprintf(fp, "];\n");
		} else if (i < t->nhosts) {
			fprintf(fp, "\"h%u\"];\n", i);
		} else {
			fprintf(fp, "\"infer-s%u\", shape=box];\n",
				i - t->nhosts);
		}
	}
	for (i = 0; i < t->nedges; i++)
		fprintf(fp, "\tn%u -- n%u [label=\"%.4g\"];\n", t->ea[i],
			t->eb[i], t->lat[i]);
	fprintf(fp, "}\n");
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}
