/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The probe files in one place: the plan (JSON, written by probe-plan and
 * read back by probe-solve and the UCX component), the measured RTTs of a
 * plan's hosts (an RTT file, formats/rtt_io.c), and the solution's JSON.
 * The algorithms are in probe_plan.c and probe_solve.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <ibflow/prom.h>
#include <ibflow/rtt_io.h>

#include "sched/probe_internal.h"

#define NAME_MAX_LEN 256

/* One document a line; o is released. */
static ibf_status_t put_json(json_object *o, FILE *fp, ibf_err_t *err)
{
	int rc = fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		       fp);

	fputc('\n', fp);
	json_object_put(o);
	if (rc < 0 || ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}

/* ---- solutions ---------------------------------------------------------------- */

static json_object *port_name(const ibf_fabric_t *f, ibf_port_id_t p)
{
	char buf[NAME_MAX_LEN + 8];

	snprintf(buf, sizeof(buf), "%s:%u", ibf_node_desc(f, f->ports[p].node),
		 f->ports[p].num);
	return json_object_new_string(buf);
}

static json_object *host_name(const ibf_fabric_t *f, ibf_port_id_t p)
{
	char buf[NAME_MAX_LEN];

	return json_object_new_string(ibf_port_host_name(f, p, buf,
							 sizeof(buf)));
}

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* {"a", "b", "rtt"} of a measurement. */
static json_object *meas_json(const ibf_fabric_t *f, const ibf_hostlist_t *h,
			      const ibf_probe_meas_t *x)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "a", host_name(f, h->ports[x->a]));
	json_object_object_add(e, "b", host_name(f, h->ports[x->b]));
	json_object_object_add(e, "rtt", num(x->rtt));
	return e;
}

static json_object *solution_doc(const ibf_fabric_t *f,
				 const ibf_hostlist_t *h,
				 const ibf_probe_meas_t *m,
				 const ibf_probe_solution_t *s)
{
	json_object *o = json_object_new_object(), *links, *pairs, *bad;
	uint32_t i, k, a, b;
	size_t idx = 0;

	links = json_object_new_array();
	for (i = 0; i < s->nagg; i++) {
		json_object *e = json_object_new_object();
		json_object *ls = json_object_new_array(), *cs = NULL;
		bool plain = true;

		for (k = s->agg_start[i]; k < s->agg_start[i + 1]; k++) {
			json_object_array_add(ls, port_name(f,
						s->agg_links[k]));
			plain &= fabs(s->agg_coef[k] - 1) < 1e-12;
		}
		json_object_object_add(e, "links", ls);
		json_object_object_add(e, "latency", num(s->agg_latency[i]));
		if (!plain) {
			cs = json_object_new_array();
			for (k = s->agg_start[i]; k < s->agg_start[i + 1]; k++)
				json_object_array_add(cs,
					json_object_new_double(s->agg_coef[k]));
			json_object_object_add(e, "coefficients", cs);
		}
		json_object_array_add(links, e);
	}
	json_object_object_add(o, "links", links);
	pairs = json_object_new_array();
	for (a = 0; a < s->nhosts; a++)
		for (b = a + 1; b < s->nhosts; b++) {
			json_object *e = json_object_new_object();

			json_object_object_add(e, "a", host_name(f, h->ports[a]));
			json_object_object_add(e, "b", host_name(f, h->ports[b]));
			json_object_object_add(e, "rtt",
					       num(s->pair_rtt[idx++]));
			json_object_array_add(pairs, e);
		}
	json_object_object_add(o, "pairs", pairs);
	json_object_object_add(o, "residual_max",
			       json_object_new_double(s->residual_max));
	json_object_object_add(o, "model", json_object_new_string(
				       ibf_probe_model_name(s->model)));
	json_object_object_add(o, "rank", json_object_new_int64(s->rank));
	bad = json_object_new_array();
	for (i = 0; i < s->nflagged; i++) {
		const ibf_probe_meas_t *x = &m[s->flagged[i]];
		json_object *e = meas_json(f, h, x);

		json_object_object_add(e, "line", json_object_new_int(
					       (int)x->line));
		json_object_object_add(e, "residual", json_object_new_double(
					       s->residual[s->flagged[i]]));
		json_object_array_add(bad, e);
	}
	json_object_object_add(o, "inconsistent", bad);
	return o;
}

ibf_status_t ibf_probe_solution_write_json(const ibf_fabric_t *f,
					   const ibf_hostlist_t *h,
					   const ibf_probe_meas_t *m,
					   const ibf_probe_solution_t *s,
					   FILE *fp, ibf_err_t *err)
{
	return put_json(solution_doc(f, h, m, s), fp, err);
}

/* ---- health ------------------------------------------------------------------ */

/* "a:1 + b:2" of aggregated link i (coefficients other than 1 written). */
static void agg_name(const ibf_fabric_t *f, const ibf_probe_solution_t *s,
		     uint32_t i, char *buf, size_t len)
{
	uint32_t k;
	size_t o = 0;

	buf[0] = '\0';
	for (k = s->agg_start[i]; k < s->agg_start[i + 1] && o + 16 < len;
	     k++) {
		const ibf_port_t *p = &f->ports[s->agg_links[k]];
		double c = s->agg_coef[k];
		char cf[24] = "";

		if (fabs(fabs(c) - 1) > 1e-9)
			snprintf(cf, sizeof(cf), "%g * ", fabs(c));
		o += (size_t)snprintf(buf + o, len - o, "%s%s%s:%u",
				      k == s->agg_start[i] ?
				      (c < 0 ? "-" : "") : (c < 0 ? " - " :
							    " + "),
				      cf, ibf_node_desc(f, p->node), p->num);
	}
}

#define SHOW_MEAS 8

void ibf_probe_health_write_text(const ibf_fabric_t *f,
				 const ibf_hostlist_t *h,
				 const ibf_probe_meas_t *m,
				 const ibf_probe_solution_t *s,
				 const ibf_probe_health_t *hl, FILE *fp)
{
	char name[1024], a[NAME_MAX_LEN], b[NAME_MAX_LEN];
	uint32_t i, k;

	fprintf(fp, "health: %u of %u aggregated links judged against "
		"their peers (threshold %g x scale; measurement noise "
		"median %.3g), %u suspect\n", hl->njudged, hl->nagg,
		hl->threshold, hl->noise_median, hl->nsuspects);
	for (i = 0; i < hl->nsuspects; i++) {
		const ibf_probe_suspect_t *x = &hl->suspects[i];

		agg_name(f, s, x->agg, name, sizeof(name));
		fprintf(fp, "  suspect %s (kind %s): latency %.3f, reference "
			"%.3f, excess %.3f = %.1f x scale %.3g\n", name,
			hl->kind_name[hl->kind[x->agg]], x->latency,
			x->reference, x->excess, x->excess / x->scale,
			x->scale);
		fprintf(fp, "    determined by %u measurement(s):", x->nmeas);
		for (k = 0; k < x->nmeas && k < SHOW_MEAS; k++) {
			const ibf_probe_meas_t *y = &m[x->meas[k]];

			fprintf(fp, " %+g x %s-%s %.3f", x->weight[k],
				ibf_port_host_name(f, h->ports[y->a], a,
						   sizeof(a)),
				ibf_port_host_name(f, h->ports[y->b], b,
						   sizeof(b)), y->rtt);
		}
		fprintf(fp, "%s\n", x->nmeas > SHOW_MEAS ? " ..." : "");
	}
}

static json_object *health_doc(const ibf_fabric_t *f,
			       const ibf_hostlist_t *h,
			       const ibf_probe_meas_t *m,
			       const ibf_probe_solution_t *s,
			       const ibf_probe_health_t *hl)
{
	json_object *o = json_object_new_object(), *kinds, *sus;
	uint32_t i, k;

	json_object_object_add(o, "threshold",
			       json_object_new_double(hl->threshold));
	json_object_object_add(o, "judged", json_object_new_int64(hl->njudged));
	json_object_object_add(o, "noise_median",
			       json_object_new_double(hl->noise_median));
	kinds = json_object_new_array();
	for (i = 0; i < s->nagg; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "kind", json_object_new_string(
					       hl->kind_name[hl->kind[i]]));
		json_object_object_add(e, "reference", num(hl->reference[i]));
		json_object_object_add(e, "scale", isnan(hl->reference[i]) ?
				       NULL : num(hl->scale[i]));
		json_object_object_add(e, "noise", num(hl->noise[i]));
		json_object_array_add(kinds, e);
	}
	json_object_object_add(o, "rows", kinds);
	sus = json_object_new_array();
	for (i = 0; i < hl->nsuspects; i++) {
		const ibf_probe_suspect_t *x = &hl->suspects[i];
		json_object *e = json_object_new_object(), *ls, *ms;

		ls = json_object_new_array();
		for (k = s->agg_start[x->agg]; k < s->agg_start[x->agg + 1];
		     k++)
			json_object_array_add(ls, port_name(f,
						s->agg_links[k]));
		json_object_object_add(e, "links", ls);
		json_object_object_add(e, "row", json_object_new_int64(x->agg));
		json_object_object_add(e, "kind", json_object_new_string(
					       hl->kind_name[hl->kind[x->agg]]));
		json_object_object_add(e, "latency", num(x->latency));
		json_object_object_add(e, "reference", num(x->reference));
		json_object_object_add(e, "excess", num(x->excess));
		json_object_object_add(e, "scale", num(x->scale));
		ms = json_object_new_array();
		for (k = 0; k < x->nmeas; k++) {
			json_object *q = meas_json(f, h, &m[x->meas[k]]);

			json_object_object_add(q, "weight", num(x->weight[k]));
			json_object_array_add(ms, q);
		}
		json_object_object_add(e, "measurements", ms);
		json_object_array_add(sus, e);
	}
	json_object_object_add(o, "suspects", sus);
	return o;
}

ibf_status_t ibf_probe_report_write_json(const ibf_fabric_t *f,
					 const ibf_hostlist_t *h,
					 const ibf_probe_meas_t *m,
					 const ibf_probe_solution_t *s,
					 const ibf_probe_health_t *hl,
					 FILE *fp, ibf_err_t *err)
{
	json_object *o = solution_doc(f, h, m, s);

	json_object_object_add(o, "health", health_doc(f, h, m, s, hl));
	return put_json(o, fp, err);
}

/* Latencies are microseconds (ibflow-probe's unit); metrics, seconds. */
#define US 1e-6

ibf_status_t ibf_probe_health_write_prom(const ibf_fabric_t *f,
					 const ibf_probe_meas_t *m,
					 uint32_t nm,
					 const ibf_probe_solution_t *s,
					 const ibf_probe_health_t *hl,
					 FILE *fp, ibf_err_t *err)
{
	char name[1024];
	uint32_t i;

	(void)m;
	ibf_prom_metric(fp, "ibflow_probe_measurements", IBF_PROM_GAUGE,
			"Host pairs whose round-trip time was measured.",
			NULL, 0, nm);
	ibf_prom_metric(fp, "ibflow_probe_rank", IBF_PROM_GAUGE,
			"Rank of the measured pairs' link vectors.", NULL, 0,
			s->rank);
	ibf_prom_metric(fp, "ibflow_probe_residual_max_seconds",
			IBF_PROM_GAUGE, "Largest measured minus fitted RTT.",
			NULL, 0, s->residual_max * US);
	ibf_prom_metric(fp, "ibflow_probe_noise_median_seconds",
			IBF_PROM_GAUGE, "Median spread of a measurement over "
			"its runs.", NULL, 0, hl->noise_median * US);
	ibf_prom_metric(fp, "ibflow_probe_links", IBF_PROM_GAUGE,
			"Aggregated links (links, or link sums) the "
			"measurements determine.", NULL, 0, s->nagg);
	ibf_prom_metric(fp, "ibflow_probe_links_judged", IBF_PROM_GAUGE,
			"Aggregated links compared with peers of their kind.",
			NULL, 0, hl->njudged);
	ibf_prom_metric(fp, "ibflow_probe_suspects", IBF_PROM_GAUGE,
			"Aggregated links slower than their peers beyond the "
			"threshold.", NULL, 0, hl->nsuspects);
	ibf_prom_family(fp, "ibflow_probe_link_latency_seconds",
			IBF_PROM_GAUGE, "Solved one-way latency of each "
			"aggregated link.");
	for (i = 0; i < s->nagg; i++) {
		ibf_prom_label_t l[2] = { { "links", name },
					  { "kind", hl->kind_name[
						  hl->kind[i]] } };

		agg_name(f, s, i, name, sizeof(name));
		ibf_prom_sample(fp, "ibflow_probe_link_latency_seconds", l, 2,
				s->agg_latency[i] * US);
	}
	if (hl->nsuspects)
		ibf_prom_family(fp, "ibflow_probe_suspect_excess_seconds",
				IBF_PROM_GAUGE, "Latency of a suspect "
				"aggregated link above its reference.");
	for (i = 0; i < hl->nsuspects; i++) {
		const ibf_probe_suspect_t *x = &hl->suspects[i];
		ibf_prom_label_t l[2] = { { "links", name },
					  { "kind", hl->kind_name[
						  hl->kind[x->agg]] } };

		agg_name(f, s, x->agg, name, sizeof(name));
		ibf_prom_sample(fp, "ibflow_probe_suspect_excess_seconds", l,
				2, x->excess * US);
	}
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}

/* ---- plan files: writing --------------------------------------------------------------- */

ibf_status_t ibf_probe_plan_write_json(const ibf_fabric_t *f,
				       const ibf_hostlist_t *h,
				       const ibf_probe_plan_t *p,
				       const char *topo, const char *lfts,
				       FILE *fp, ibf_err_t *err)
{
	json_object *o = json_object_new_object(), *rounds, *hosts;
	uint32_t r, i;

	json_object_object_add(o, "rank", json_object_new_int64(p->rank));
	json_object_object_add(o, "pairs", json_object_new_int64(p->npairs));
	rounds = json_object_new_array();
	for (r = 0; r < p->nrounds; r++) {
		json_object *round = json_object_new_array();

		for (i = p->round_start[r]; i < p->round_start[r + 1]; i++) {
			json_object *pr = json_object_new_array();

			json_object_array_add(pr, host_name(f,
					h->ports[p->pairs[i].a]));
			json_object_array_add(pr, host_name(f,
					h->ports[p->pairs[i].b]));
			json_object_array_add(round, pr);
		}
		json_object_array_add(rounds, round);
	}
	json_object_object_add(o, "rounds", rounds);
	json_object_object_add(o, "lower_bound",
			       json_object_new_int64(p->lower_bound));
	hosts = json_object_new_array();
	for (i = 0; i < h->n; i++)
		json_object_array_add(hosts, host_name(f, h->ports[i]));
	json_object_object_add(o, "hosts", hosts);
	if (topo)
		json_object_object_add(o, "topo",
				       json_object_new_string(topo));
	if (lfts)
		json_object_object_add(o, "lfts",
				       json_object_new_string(lfts));
	json_object_object_add(o, "model", json_object_new_string(
				       ibf_probe_model_name(p->model)));
	json_object_object_add(o, "links", json_object_new_int64(p->nlinks));
	json_object_object_add(o, "time_s",
			       json_object_new_double(p->time_s));
	return put_json(o, fp, err);
}

/* ---- plan files: reading ------------------------------------------------------------ */

static char *json_strdup(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return strdup(json_object_get_string(v));
}

ibf_status_t ibf_probe_plan_file_read(const char *path,
				      ibf_probe_plan_file_t *out,
				      ibf_err_t *err)
{
	json_object *root, *hosts, *model;
	size_t i, n;

	memset(out, 0, sizeof(*out));
	root = json_object_from_file(path);
	if (!root)
		return ibf_err_set(err, IBF_ERR_PARSE, "%s: not a readable "
				   "JSON plan", path);
	if (!json_object_object_get_ex(root, "hosts", &hosts) ||
	    !json_object_is_type(hosts, json_type_array) ||
	    (n = json_object_array_length(hosts)) < 2) {
		json_object_put(root);
		return ibf_err_set(err, IBF_ERR_INVALID, "%s: the plan has no "
				   "\"hosts\" list of at least 2 names", path);
	}
	out->hosts = calloc(n, sizeof(*out->hosts));
	for (i = 0; out->hosts && i < n; i++) {
		json_object *e = json_object_array_get_idx(hosts, i);

		if (!json_object_is_type(e, json_type_string))
			break;
		out->hosts[i] = strdup(json_object_get_string(e));
		if (!out->hosts[i])
			break;
		out->nhosts++;
	}
	out->topo = json_strdup(root, "topo");
	out->lfts = json_strdup(root, "lfts");
	/* Plans without "model" were all directed. */
	if (json_object_object_get_ex(root, "model", &model) &&
	    (!json_object_is_type(model, json_type_string) ||
	     ibf_probe_model_parse(json_object_get_string(model),
				   &out->model) != IBF_OK)) {
		ibf_err_set(err, IBF_ERR_INVALID, "%s: \"model\" is %s, not "
			    "\"directed\" or \"symmetric\"", path,
			    json_object_to_json_string(model));
		json_object_put(root);
		ibf_probe_plan_file_free(out);
		return IBF_ERR_INVALID;
	}
	json_object_put(root);
	if (!out->hosts || out->nhosts != n) {
		ibf_probe_plan_file_free(out);
		return ibf_err_set(err, IBF_ERR_INVALID, "%s: host %zu of the "
				   "plan is not a name", path, i + 1);
	}
	return IBF_OK;
}

void ibf_probe_plan_file_free(ibf_probe_plan_file_t *p)
{
	uint32_t i;

	for (i = 0; p->hosts && i < p->nhosts; i++)
		free(p->hosts[i]);
	free(p->hosts);
	free(p->topo);
	free(p->lfts);
	memset(p, 0, sizeof(*p));
}

/* ---- RTT file ------------------------------------------------------------ */

/* The file's names are hosts of the plan: the reader (formats/rtt_io.c)
 * splits and checks the lines; "A B MIN MAX" counts as MIN, the least
 * disturbed round trip. */
struct plan_hosts {
	const ibf_fabric_t *f;
	const uint32_t *idx; /* port id -> host index, or IBF_PROBE_NONE */
};

static ibf_status_t plan_host(void *ctx, const char *name, uint32_t *out)
{
	const struct plan_hosts *ph = ctx;
	ibf_port_id_t p;

	if (ibf_fabric_resolve_host(ph->f, name, &p, NULL) != IBF_OK ||
	    ph->idx[p] == IBF_PROBE_NONE)
		return IBF_ERR_NOT_FOUND;
	*out = ph->idx[p];
	return IBF_OK;
}

ibf_status_t ibf_probe_rtt_read(const ibf_fabric_t *f,
				const ibf_hostlist_t *h, const char *path,
				ibf_probe_meas_t **out, uint32_t *n,
				ibf_err_t *err)
{
	struct plan_hosts ph = { f, NULL };
	ibf_rtt_set_t set;
	ibf_probe_meas_t *m;
	uint32_t *idx, i;
	ibf_status_t st;

	*out = NULL;
	*n = 0;
	idx = malloc((size_t)f->nports * sizeof(*idx));
	if (!idx)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < f->nports; i++)
		idx[i] = IBF_PROBE_NONE;
	for (i = 0; i < h->n; i++)
		idx[h->ports[i]] = i;
	ph.idx = idx;
	st = ibf_rtt_read(path, plan_host, &ph, &set, err);
	free(idx);
	if (st != IBF_OK)
		return st;
	m = malloc(set.n * sizeof(*m));
	if (!m) {
		ibf_rtt_set_free(&set);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < set.n; i++) {
		m[i].a = set.m[i].a;
		m[i].b = set.m[i].b;
		m[i].rtt = set.m[i].min;
		m[i].rtt_max = set.m[i].max;
		m[i].line = set.m[i].line;
	}
	*out = m;
	*n = set.n;
	ibf_rtt_set_free(&set);
	return IBF_OK;
}
