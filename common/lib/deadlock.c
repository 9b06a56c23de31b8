/*
 * Deadlock check: channel dependency graphs per VL (SL->VL identity).
 *
 * No route is stored.  For one DLID the forwarding tables form a function
 * over the switches, so the routes of all sources to it form an in-tree:
 * walking from each source's first switch and stopping at a switch already
 * walked for this (DLID, VL) visits every switch once per VL, and each
 * visited switch contributes the single dependency "arrive from it, leave
 * by the next switch's entry".  A dependency is stored as one bit keyed by
 * (in-channel, out-port number of the next switch): 256 bits per channel
 * and VL, allocated for the VLs in use.  Injection channels (host to
 * switch) have no incoming dependency and ejection channels no outgoing
 * one, so neither can close a cycle and both are left out.
 *
 * Cycles are found by an iterative DFS (white/grey/black); the first back
 * edge met in a VL gives its cycle.
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/sl.h>

#define WORDS 4 /* 256 port numbers per channel */

struct cdg {
	const ibf_fabric_t *f;
	const ibf_lfts_t *l;
	uint64_t *bits[IBF_NSLS];  /* [nports * WORDS] per VL, or NULL */
	uint32_t *stamp;           /* [nswitches * IBF_NSLS] */
	uint32_t cur;
};

static ibf_status_t use_vl(struct cdg *g, unsigned vl, ibf_err_t *err)
{
	if (g->bits[vl])
		return IBF_OK;
	g->bits[vl] = calloc((size_t)g->f->nports * WORDS + 1,
			     sizeof(uint64_t));
	if (!g->bits[vl])
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory for the "
				   "dependency graph of VL %u", vl);
	return IBF_OK;
}

/* Follow dlid from switch s on vl until a switch already walked. */
static void walk(struct cdg *g, uint32_t s, unsigned vl, unsigned dlid)
{
	const ibf_fabric_t *f = g->f;
	uint64_t *bits = g->bits[vl];

	while (g->stamp[(size_t)s * IBF_NSLS + vl] != g->cur) {
		ibf_node_id_t n = f->switches[s], nn;
		unsigned e = ibf_lfts_get(g->l, s, dlid), e2;
		ibf_port_id_t c, peer;

		g->stamp[(size_t)s * IBF_NSLS + vl] = g->cur;
		if (e == 0 || e > f->nodes[n].nports)
			return;
		c = ibf_node_port_id(f, n, e);
		peer = f->ports[c].peer;
		if (peer == IBF_NO_ID)
			return;
		nn = f->ports[peer].node;
		if (!ibf_node_is_switch(f, nn))
			return;
		s = f->switch_index[nn];
		e2 = ibf_lfts_get(g->l, s, dlid);
		if (e2 >= 1 && e2 <= f->nodes[nn].nports)
			bits[(size_t)c * WORDS + e2 / 64] |=
				UINT64_C(1) << (e2 % 64);
	}
}

static bool dlid_checked(const ibf_fabric_t *f, unsigned lid, bool switches)
{
	ibf_port_id_t p = ibf_fabric_lid_owner(f, lid);

	if (!lid || p == IBF_NO_ID)
		return false;
	if (ibf_node_is_switch(f, f->ports[p].node))
		return switches;
	return f->endpoint_index[p] < f->nendpoints;
}

static ibf_status_t build(struct cdg *g, const ibf_sls_t *sls, bool switches,
			  ibf_deadlock_report_t *rep, ibf_err_t *err)
{
	const ibf_fabric_t *f = g->f;
	unsigned lid, vl;
	uint32_t e;
	ibf_status_t st;

	for (lid = 1; lid <= f->lid_top; lid++) {
		ibf_port_id_t owner = ibf_fabric_lid_owner(f, lid);

		if (!dlid_checked(f, lid, switches))
			continue;
		g->cur++;
		for (e = 0; e < f->nendpoints; e++) {
			ibf_port_id_t src = f->endpoints[e];
			ibf_port_id_t peer = f->ports[src].peer;

			if (src == owner || peer == IBF_NO_ID ||
			    !ibf_node_is_switch(f, f->ports[peer].node))
				continue;
			vl = ibf_sls_get(sls, src, lid);
			if (vl >= IBF_NSLS)
				return ibf_err_set(err, IBF_ERR_RANGE, "SL %u "
						   "out of range", vl);
			st = use_vl(g, vl, err);
			if (st != IBF_OK)
				return st;
			rep->routes[vl]++;
			walk(g, f->switch_index[f->ports[peer].node], vl, lid);
		}
	}
	return IBF_OK;
}

/* ---- cycle search ---------------------------------------------------- */

struct dfs {
	uint8_t *color;     /* 0 white, 1 grey, 2 black */
	ibf_port_id_t *stack;
	uint16_t *next;     /* next port number to try, per stack entry */
};

static bool has_deps(const uint64_t *bits, ibf_port_id_t c)
{
	const uint64_t *w = bits + (size_t)c * WORDS;

	return w[0] | w[1] | w[2] | w[3];
}

static ibf_status_t save_cycle(ibf_deadlock_report_t *rep, unsigned vl,
			       const struct dfs *d, uint32_t top,
			       ibf_port_id_t back, ibf_err_t *err)
{
	uint32_t from = top;

	while (from > 0 && d->stack[from - 1] != back)
		from--;
	from--;
	rep->cycle_len[vl] = top - from;
	rep->cycle[vl] = malloc(sizeof(ibf_port_id_t) * (top - from));
	if (!rep->cycle[vl])
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	memcpy(rep->cycle[vl], d->stack + from,
	       sizeof(ibf_port_id_t) * (top - from));
	return IBF_OK;
}

/* DFS from channel c0; stops at the first back edge. */
static ibf_status_t dfs_from(const struct cdg *g, const uint64_t *bits,
			     struct dfs *d, ibf_port_id_t c0,
			     ibf_deadlock_report_t *rep, unsigned vl,
			     ibf_err_t *err)
{
	const ibf_fabric_t *f = g->f;
	uint32_t top = 1;

	d->stack[0] = c0;
	d->next[0] = 0;
	d->color[c0] = 1;
	while (top) {
		ibf_port_id_t c = d->stack[top - 1], nxt;
		const uint64_t *w = bits + (size_t)c * WORDS;
		ibf_node_id_t nn = f->ports[f->ports[c].peer].node;
		unsigned k = d->next[top - 1];

		while (k < 256 && !(w[k / 64] >> (k % 64) & 1))
			k++;
		if (k >= 256) {
			d->color[c] = 2;
			top--;
			continue;
		}
		d->next[top - 1] = (uint16_t)(k + 1);
		nxt = ibf_node_port_id(f, nn, k);
		if (d->color[nxt] == 1) {
			rep->cyclic[vl] = true;
			return save_cycle(rep, vl, d, top, nxt, err);
		}
		if (d->color[nxt] == 0 && !has_deps(bits, nxt)) {
			d->color[nxt] = 2; /* a sink, often ejection */
		} else if (d->color[nxt] == 0) {
			d->color[nxt] = 1;
			d->stack[top] = nxt;
			d->next[top++] = 0;
		}
	}
	return IBF_OK;
}

static ibf_status_t search(const struct cdg *g, unsigned vl,
			   ibf_deadlock_report_t *rep, ibf_err_t *err)
{
	const uint64_t *bits = g->bits[vl];
	uint32_t np = g->f->nports, c, i;
	struct dfs d;
	ibf_status_t st = IBF_OK;

	for (c = 0; c < np; c++)
		for (i = 0; i < WORDS; i++)
			rep->deps[vl] += (uint64_t)__builtin_popcountll(
				bits[(size_t)c * WORDS + i]);
	d.color = calloc(np + 1, 1);
	d.stack = malloc(sizeof(*d.stack) * (np + 1));
	d.next = malloc(sizeof(*d.next) * (np + 1));
	if (!d.color || !d.stack || !d.next)
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (c = 0; st == IBF_OK && !rep->cyclic[vl] && c < np; c++)
		if (!d.color[c] && has_deps(bits, c))
			st = dfs_from(g, bits, &d, c, rep, vl, err);
	free(d.color);
	free(d.stack);
	free(d.next);
	return st;
}

ibf_status_t ibf_deadlock_check(const ibf_lfts_t *l, const ibf_sls_t *sls,
				const ibf_deadlock_opts_t *opts,
				ibf_deadlock_report_t *rep, ibf_err_t *err)
{
	struct cdg g;
	unsigned vl;
	ibf_status_t st;

	memset(rep, 0, sizeof(*rep));
	memset(&g, 0, sizeof(g));
	g.f = l->fabric;
	g.l = l;
	g.stamp = calloc((size_t)g.f->nswitches * IBF_NSLS + 1,
			 sizeof(*g.stamp));
	if (!g.stamp)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = build(&g, sls, opts && opts->switches, rep, err);
	for (vl = 0; vl < IBF_NSLS; vl++) {
		if (!g.bits[vl])
			continue;
		if (rep->routes[vl])
			rep->nvls++;
		if (st == IBF_OK)
			st = search(&g, vl, rep, err);
		free(g.bits[vl]);
	}
	free(g.stamp);
	if (st != IBF_OK)
		ibf_deadlock_report_free(rep);
	return st;
}

void ibf_deadlock_report_free(ibf_deadlock_report_t *rep)
{
	unsigned vl;

	for (vl = 0; vl < IBF_NSLS; vl++)
		free(rep->cycle[vl]);
	memset(rep, 0, sizeof(*rep));
}

bool ibf_deadlock_found(const ibf_deadlock_report_t *rep)
{
	unsigned vl;

	for (vl = 0; vl < IBF_NSLS; vl++)
		if (rep->cyclic[vl])
			return true;
	return false;
}

void ibf_deadlock_print_cycle(const ibf_fabric_t *f,
			      const ibf_deadlock_report_t *rep, unsigned vl,
			      FILE *fp)
{
	unsigned i;

	for (i = 0; vl < IBF_NSLS && i < rep->cycle_len[vl]; i++) {
		const ibf_port_t *a = &f->ports[rep->cycle[vl][i]];
		const ibf_port_t *b = &f->ports[a->peer];

		fprintf(fp, "  \"%s\"/%u -> \"%s\"/%u\n",
			ibf_node_desc(f, a->node), a->num,
			ibf_node_desc(f, b->node), b->num);
	}
}
