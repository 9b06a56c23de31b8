/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The all-pairs route check: trace every (source endpoint, destination LID)
 * pair and count what happens.  See trace.h.
 *
 * The fast path resolves each DLID once for every switch (ibf_trace_tree)
 * and then counts sources per attachment switch, so the work is
 * O(DLIDs x switches) rather than O(pairs x hops); sources are visited one
 * by one only to pick examples of defects.  The naive path traces each pair
 * with ibf_trace() and serves as the reference.  DLIDs may be split over
 * threads in contiguous ranges; each has its own counters, merged in range
 * order so the report does not depend on the thread count.
 */
#include <ibflow/check.h>
#include <ibflow/trace.h>

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/array.h"
#include "base/parallel.h"

#define MAX_THREADS 64

struct chk_ctx {
	const ibf_lfts_t *l;
	ibf_check_opts_t opts;
	uint32_t *attach;     /* per source: switch index reached, or NO_ID */
	uint32_t *nsrc_at;    /* per switch: sources attached to it */
	uint32_t *leaves;     /* switches with sources */
	uint32_t nleaves;
	uint32_t *direct;     /* sources whose link ends at a CA */
	uint32_t ndirect;
	unsigned *dlids;
	uint32_t ndlids;
	unsigned hist_len;
};

struct chk_part {
	const struct chk_ctx *c;
	uint32_t first, last; /* range of c->dlids */
	ibf_check_report_t r;
	ibf_status_t st;
};

/* ---- accumulation ------------------------------------------------------ */

static void stats_init(ibf_check_stats_t *s)
{
	memset(s, 0, sizeof(*s));
	s->hop_min = UINT_MAX;
}

static inline void stats_add(ibf_check_stats_t *s, ibf_trace_result_t r,
			     unsigned hops, uint64_t cnt)
{
	s->pairs += cnt;
	s->count[r] += cnt;
	if (r != IBF_TRACE_OK)
		return;
	s->hop_sum += (uint64_t)hops * cnt;
	if (hops < s->hop_min)
		s->hop_min = hops;
	if (hops > s->hop_max)
		s->hop_max = hops;
}

static void stats_merge(ibf_check_stats_t *d, const ibf_check_stats_t *s)
{
	unsigned i;

	d->pairs += s->pairs;
	for (i = 0; i < IBF_TRACE_NRESULTS; i++)
		d->count[i] += s->count[i];
	d->hop_sum += s->hop_sum;
	if (s->hop_min < d->hop_min)
		d->hop_min = s->hop_min;
	if (s->hop_max > d->hop_max)
		d->hop_max = s->hop_max;
}

static void stats_fini(ibf_check_stats_t *s)
{
	if (s->hop_min == UINT_MAX)
		s->hop_min = 0;
}

/* Counters for one destination LID: the overall ones and either the switch
 * or the LID-offset ones. */
struct dest {
	unsigned dlid;
	ibf_port_id_t owner;
	ibf_check_stats_t *sub;
};

static inline void add(ibf_check_report_t *r, const struct dest *d,
		       ibf_trace_result_t res, unsigned hops, uint64_t cnt)
{
	stats_add(&r->all, res, hops, cnt);
	stats_add(d->sub, res, hops, cnt);
	if (res == IBF_TRACE_OK)
		r->hop_hist[hops] += cnt;
}

static void add_example(const struct chk_ctx *c, ibf_check_report_t *r,
			const struct dest *d, ibf_port_id_t src,
			const ibf_trace_info_t *info)
{
	ibf_check_example_t *e;

	if (r->nexamples[info->result] >= c->opts.max_examples)
		return;
	e = &r->examples[info->result][r->nexamples[info->result]++];
	e->src = src;
	e->dlid = d->dlid;
	e->dst = d->owner;
	e->info = *info;
}

static bool examples_full(const struct chk_ctx *c, const ibf_check_report_t *r)
{
	unsigned i;

	for (i = 1; i < IBF_TRACE_NRESULTS; i++)
		if (r->nexamples[i] < c->opts.max_examples)
			return false;
	return true;
}

static void dest_init(const struct chk_ctx *c, ibf_check_report_t *r,
		      unsigned dlid, struct dest *d)
{
	const ibf_fabric_t *f = c->l->fabric;
	ibf_port_id_t o = ibf_fabric_lid_owner(f, dlid);

	d->dlid = dlid;
	d->owner = o;
	if (ibf_node_is_switch(f, f->ports[o].node))
		d->sub = &r->to_switches;
	else
		d->sub = &r->by_offset[dlid - f->ports[o].lid];
}

/* ---- per DLID ----------------------------------------------------------- */

static void check_dlid_naive(const struct chk_ctx *c, ibf_check_report_t *r,
			     unsigned dlid)
{
	const ibf_fabric_t *f = c->l->fabric;
	ibf_trace_info_t info;
	struct dest d;
	uint32_t i;

	dest_init(c, r, dlid, &d);
	for (i = 0; i < f->nendpoints; i++) {
		ibf_port_id_t src = f->endpoints[i];

		if (src == d.owner)
			continue;
		ibf_trace_info(c->l, src, dlid, NULL, 0, &info);
		add(r, &d, info.result, info.nhops, 1);
		if (info.result != IBF_TRACE_OK)
			add_example(c, r, &d, src, &info);
	}
}

static void check_dlid_tree(const struct chk_ctx *c, ibf_check_report_t *r,
			    ibf_trace_tree_t *t, unsigned dlid)
{
	const ibf_fabric_t *f = c->l->fabric;
	uint32_t i, self = IBF_NO_ID;
	ibf_trace_info_t info;
	bool defects = false;
	struct dest d;

	dest_init(c, r, dlid, &d);
	ibf_trace_tree_build(t, dlid);
	if (!ibf_node_is_switch(f, f->ports[d.owner].node)) {
		ibf_port_id_t in = f->ports[d.owner].peer;

		self = f->switch_index[f->ports[in].node];
	}
	for (i = 0; i < c->nleaves; i++) {
		uint32_t s = c->leaves[i];
		uint64_t cnt = c->nsrc_at[s] - (s == self);
		ibf_trace_result_t res = (ibf_trace_result_t)t->result[s];

		if (!cnt)
			continue;
		add(r, &d, res, 1 + t->dist[s], cnt);
		defects |= res != IBF_TRACE_OK;
	}
	for (i = 0; i < c->ndirect; i++) {
		ibf_port_id_t src = f->endpoints[c->direct[i]];

		if (src == d.owner)
			continue;
		ibf_trace_tree_from(t, src, &info);
		add(r, &d, info.result, info.nhops, 1);
		defects |= info.result != IBF_TRACE_OK;
	}
	if (!defects || examples_full(c, r))
		return;
	for (i = 0; i < f->nendpoints; i++) {
		ibf_port_id_t src = f->endpoints[i];

		if (src == d.owner)
			continue;
		if (ibf_trace_tree_from(t, src, &info) != IBF_TRACE_OK)
			add_example(c, r, &d, src, &info);
	}
}

/* ---- report allocation and merge --------------------------------------- */

static ibf_status_t report_init(const struct chk_ctx *c, ibf_check_report_t *r)
{
	unsigned i;

	memset(r, 0, sizeof(*r));
	stats_init(&r->all);
	stats_init(&r->to_switches);
	for (i = 0; i < IBF_CHECK_MAX_OFFSETS; i++)
		stats_init(&r->by_offset[i]);
	r->hop_hist_len = c->hist_len;
	r->hop_hist = calloc(c->hist_len, sizeof(*r->hop_hist));
	if (!r->hop_hist)
		return IBF_ERR_NOMEM;
	for (i = 1; i < IBF_TRACE_NRESULTS; i++) {
		r->examples[i] = calloc(c->opts.max_examples ?
					c->opts.max_examples : 1,
					sizeof(*r->examples[i]));
		if (!r->examples[i])
			return IBF_ERR_NOMEM;
	}
	return IBF_OK;
}

void ibf_check_report_free(ibf_check_report_t *r)
{
	unsigned i;

	if (!r)
		return;
	free(r->hop_hist);
	for (i = 0; i < IBF_TRACE_NRESULTS; i++)
		free(r->examples[i]);
	memset(r, 0, sizeof(*r));
}

static void report_merge(const struct chk_ctx *c, ibf_check_report_t *d,
			 const ibf_check_report_t *s)
{
	unsigned i, k;

	stats_merge(&d->all, &s->all);
	stats_merge(&d->to_switches, &s->to_switches);
	for (i = 0; i < IBF_CHECK_MAX_OFFSETS; i++)
		stats_merge(&d->by_offset[i], &s->by_offset[i]);
	for (i = 0; i < c->hist_len; i++)
		d->hop_hist[i] += s->hop_hist[i];
	for (i = 1; i < IBF_TRACE_NRESULTS; i++)
		for (k = 0; k < s->nexamples[i] &&
			    d->nexamples[i] < c->opts.max_examples; k++)
			d->examples[i][d->nexamples[i]++] = s->examples[i][k];
}

static void report_fini(ibf_check_report_t *r)
{
	unsigned i;

	stats_fini(&r->all);
	stats_fini(&r->to_switches);
	for (i = 0; i < IBF_CHECK_MAX_OFFSETS; i++)
		stats_fini(&r->by_offset[i]);
	/* Trim the histogram to the longest route seen. */
	r->hop_hist_len = r->all.hop_max + 1;
}

/* ---- driver ------------------------------------------------------------- */

static void run_part(void *arg, unsigned index)
{
	struct chk_part *p = (struct chk_part *)arg + index;
	const struct chk_ctx *c = p->c;
	ibf_trace_tree_t *t = NULL;
	uint32_t i;

	if (!c->opts.naive) {
		p->st = ibf_trace_tree_create(c->l, &t);
		if (p->st != IBF_OK)
			return;
	}
	for (i = p->first; i < p->last; i++) {
		if (c->opts.naive)
			check_dlid_naive(c, &p->r, c->dlids[i]);
		else
			check_dlid_tree(c, &p->r, t, c->dlids[i]);
	}
	ibf_trace_tree_destroy(t);
}

static bool is_endpoint(const ibf_fabric_t *f, ibf_port_id_t p)
{
	const ibf_port_t *port = &f->ports[p];

	return !ibf_node_is_switch(f, port->node) && port->num != 0 &&
	       port->peer != IBF_NO_ID;
}

static ibf_status_t ctx_init(struct chk_ctx *c, const ibf_lfts_t *l)
{
	const ibf_fabric_t *f = l->fabric;
	size_t ns = f->nswitches ? f->nswitches : 1;
	size_t ne = f->nendpoints ? f->nendpoints : 1;
	unsigned lid;
	uint32_t i;

	c->l = l;
	c->hist_len = f->nswitches + 3; /* longest route: every switch */
	if (IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(c->attach, ne),
			   IBF_CALLOC_ARRAY(c->nsrc_at, ns),
			   IBF_CALLOC_ARRAY(c->leaves, ns),
			   IBF_CALLOC_ARRAY(c->direct, ne),
			   IBF_CALLOC_ARRAY(c->dlids, (size_t)f->lid_top + 1)))
		return IBF_ERR_NOMEM;
	for (i = 0; i < f->nendpoints; i++) {
		ibf_node_id_t x = f->ports[f->ports[f->endpoints[i]].peer].node;

		c->attach[i] = f->switch_index[x];
		if (c->attach[i] == IBF_NO_ID)
			c->direct[c->ndirect++] = i;
		else if (c->nsrc_at[c->attach[i]]++ == 0)
			c->leaves[c->nleaves++] = c->attach[i];
	}
	for (lid = 1; lid <= f->lid_top; lid++) {
		ibf_port_id_t o = f->lid_port[lid];

		if (o == IBF_NO_ID)
			continue;
		if (is_endpoint(f, o) ||
		    (c->opts.switches && ibf_node_is_switch(f, f->ports[o].node)))
			c->dlids[c->ndlids++] = lid;
	}
	return IBF_OK;
}

static void ctx_free(struct chk_ctx *c)
{
	free(c->attach);
	free(c->nsrc_at);
	free(c->leaves);
	free(c->direct);
	free(c->dlids);
}

static ibf_status_t run_parts(struct chk_ctx *c, struct chk_part *parts,
			      unsigned n, ibf_err_t *err)
{
	unsigned i;
	ibf_status_t st = IBF_OK;

	for (i = 0; i < n; i++) {
		parts[i].c = c;
		parts[i].first = (uint32_t)((uint64_t)c->ndlids * i / n);
		parts[i].last = (uint32_t)((uint64_t)c->ndlids * (i + 1) / n);
		if ((parts[i].st = report_init(c, &parts[i].r)) != IBF_OK)
			return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	ibf_parallel_run(n, run_part, parts);
	for (i = 0; i < n; i++)
		if (parts[i].st != IBF_OK)
			st = parts[i].st;
	if (st != IBF_OK)
		return ibf_err_set(err, st, "route check: %s",
				   ibf_status_str(st));
	return IBF_OK;
}

ibf_status_t ibf_check_run(const ibf_lfts_t *l, const ibf_check_opts_t *opts,
			   ibf_check_report_t *report, ibf_err_t *err)
{
	static const ibf_check_opts_t defaults = IBF_CHECK_OPTS_DEFAULT;
	const ibf_fabric_t *f = l->fabric;
	struct chk_part *parts = NULL;
	struct chk_ctx c;
	ibf_status_t st;
	unsigned n, i;

	memset(&c, 0, sizeof(c));
	memset(report, 0, sizeof(*report));
	c.opts = opts ? *opts : defaults;
	n = c.opts.nthreads ? c.opts.nthreads : 1;
	if (n > MAX_THREADS)
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "%u threads (at most %u)", n, MAX_THREADS);
	if (!f->finalized || l->nswitches != f->nswitches ||
	    l->stride != f->lid_top + 1)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "LFTs do not belong to a finalized fabric");
	st = ctx_init(&c, l);
	if (st == IBF_OK && !(parts = calloc(n, sizeof(*parts))))
		st = IBF_ERR_NOMEM;
	if (st == IBF_OK)
		st = report_init(&c, report);
	if (st != IBF_OK)
		ibf_err_set(err, st, "out of memory");
	else
		st = run_parts(&c, parts, n, err);
	if (st == IBF_OK) {
		for (i = 0; i < n; i++)
			report_merge(&c, report, &parts[i].r);
		report_fini(report);
		report->nsources = f->nendpoints;
		report->ndlids = c.ndlids;
		report->noffsets = 1u << f->lmc;
		for (i = 0; i < l->nswitches; i++)
			report->switches_without_table += !l->has_table[i];
	}
	for (i = 0; parts && i < n; i++)
		ibf_check_report_free(&parts[i].r);
	free(parts);
	ctx_free(&c);
	if (st != IBF_OK)
		ibf_check_report_free(report);
	return st;
}

uint64_t ibf_check_defects(const ibf_check_report_t *r)
{
	return r->all.pairs - r->all.count[IBF_TRACE_OK];
}

/* ---- JSON --------------------------------------------------------------- */

/* "no route" -> "no_route" */
static void result_key(ibf_trace_result_t res, char *buf, size_t len)
{
	char *s;

	snprintf(buf, len, "%s", ibf_trace_result_str(res));
	for (s = buf; *s; s++)
		if (*s == ' ')
			*s = '_';
}

static json_object *json_u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static json_object *stats_json(const ibf_check_stats_t *s)
{
	json_object *o = json_object_new_object(), *res;
	char key[32];
	unsigned i;

	json_object_object_add(o, "pairs", json_u64(s->pairs));
	res = json_object_new_object();
	for (i = 0; i < IBF_TRACE_NRESULTS; i++) {
		result_key((ibf_trace_result_t)i, key, sizeof(key));
		json_object_object_add(res, key, json_u64(s->count[i]));
	}
	json_object_object_add(o, "results", res);
	json_object_object_add(o, "hop_min", json_object_new_int(
		(int)s->hop_min));
	json_object_object_add(o, "hop_max", json_object_new_int(
		(int)s->hop_max));
	json_object_object_add(o, "hop_mean", json_object_new_double(
		s->count[IBF_TRACE_OK] ?
		(double)s->hop_sum / (double)s->count[IBF_TRACE_OK] : 0.0));
	return o;
}

static json_object *example_json(const ibf_fabric_t *f,
				 const ibf_check_example_t *e)
{
	json_object *o = json_object_new_object();
	char buf[128];

	json_object_object_add(o, "source", json_object_new_string(
		ibf_port_host_name(f, e->src, buf, sizeof(buf))));
	json_object_object_add(o, "dlid", json_object_new_int((int)e->dlid));
	if (ibf_node_is_switch(f, f->ports[e->dst].node))
		ibf_node_name(f, f->ports[e->dst].node, buf, sizeof(buf));
	else
		ibf_port_host_name(f, e->dst, buf, sizeof(buf));
	json_object_object_add(o, "destination", json_object_new_string(buf));
	json_object_object_add(o, "node", json_object_new_string(
		ibf_node_desc(f, e->info.node)));
	snprintf(buf, sizeof(buf), "0x%016" PRIx64, f->nodes[e->info.node].guid);
	json_object_object_add(o, "node_guid", json_object_new_string(buf));
	json_object_object_add(o, "port", json_object_new_int(
		(int)e->info.port));
	json_object_object_add(o, "hops", json_object_new_int(
		(int)e->info.nhops));
	return o;
}

ibf_status_t ibf_check_report_write_json(const ibf_lfts_t *l,
					 const ibf_check_report_t *r,
					 FILE *fp, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	json_object *root = json_object_new_object(), *a, *d;
	char key[32];
	unsigned i, k;
	int rc;

	if (!root)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	json_object_object_add(root, "sources", json_u64(r->nsources));
	json_object_object_add(root, "dlids", json_u64(r->ndlids));
	json_object_object_add(root, "lid_offsets", json_u64(r->noffsets));
	json_object_object_add(root, "switches_without_table",
			       json_u64(r->switches_without_table));
	json_object_object_add(root, "defects", json_u64(ibf_check_defects(r)));
	json_object_object_add(root, "all", stats_json(&r->all));
	if (r->to_switches.pairs)
		json_object_object_add(root, "to_switches",
				       stats_json(&r->to_switches));
	a = json_object_new_array();
	for (i = 0; i < r->noffsets && i < IBF_CHECK_MAX_OFFSETS; i++)
		json_object_array_add(a, stats_json(&r->by_offset[i]));
	json_object_object_add(root, "by_lid_offset", a);
	a = json_object_new_array();
	for (i = 0; i < r->hop_hist_len; i++)
		json_object_array_add(a, json_u64(r->hop_hist[i]));
	json_object_object_add(root, "hop_histogram", a);
	d = json_object_new_object();
	for (i = 1; i < IBF_TRACE_NRESULTS; i++) {
		a = json_object_new_array();
		for (k = 0; k < r->nexamples[i]; k++)
			json_object_array_add(a, example_json(f,
							&r->examples[i][k]));
		result_key((ibf_trace_result_t)i, key, sizeof(key));
		json_object_object_add(d, key, a);
	}
	json_object_object_add(root, "examples", d);
	rc = fprintf(fp, "%s\n", json_object_to_json_string_ext(root,
		     JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	if (rc < 0)
		return ibf_err_set(err, IBF_ERR_IO, "cannot write JSON report");
	return IBF_OK;
}
