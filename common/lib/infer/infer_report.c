/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Documents of an inference: the text for people, JSON, and the trace of
 * the pairs measured (an RTT file that replays the run).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "infer/infer_internal.h"

static double rate(uint64_t x, uint64_t n)
{
	return n ? (double)x / (double)n : 0;
}

static const char *node_name(const ibf_infer_report_t *rep, uint32_t v,
			     char *buf, size_t len)
{
	if (v < rep->r->tree.nhosts) {
		if (rep->names)
			return rep->names[v];
		snprintf(buf, len, "h%u", v);
	} else {
		snprintf(buf, len, "infer-s%u", v - rep->r->tree.nhosts);
	}
	return buf;
}

static int add(json_object *o, const char *k, json_object *v)
{
	return v ? json_object_object_add(o, k, v) : -1;
}

static int add_u64(json_object *o, const char *k, uint64_t v)
{
	return add(o, k, json_object_new_int64((int64_t)v));
}

static int add_dbl(json_object *o, const char *k, double v)
{
	return add(o, k, json_object_new_double(v));
}

static int accuracy_json(const ibf_infer_report_t *rep, json_object *root)
{
	const ibf_infer_accuracy_t *a = rep->acc;
	json_object *o = json_object_new_object();
	int rc = 0;

	if (!o)
		return -1;
	if (rep->has_truth) {
		rc |= add_u64(o, "queries", a->queries);
		rc |= add(o, "exhaustive",
			  json_object_new_boolean(a->exhaustive));
		rc |= add_u64(o, "shared", a->shared);
		rc |= add_u64(o, "false_positives", a->false_pos);
		rc |= add_u64(o, "false_negatives", a->false_neg);
		rc |= add_dbl(o, "false_positive_rate",
			      rate(a->false_pos, a->queries));
		rc |= add_dbl(o, "false_negative_rate",
			      rate(a->false_neg, a->queries));
	}
	if (a->ratio_pairs) {
		rc |= add_u64(o, "ratio_pairs", a->ratio_pairs);
		rc |= add_dbl(o, "ratio_min", a->ratio_min);
		rc |= add_dbl(o, "ratio_p05", a->ratio_p05);
		rc |= add_dbl(o, "ratio_median", a->ratio_median);
		rc |= add_dbl(o, "ratio_p95", a->ratio_p95);
		rc |= add_dbl(o, "ratio_max", a->ratio_max);
	}
	return rc | add(root, "accuracy", o);
}

static int stats_json(const ibf_infer_report_t *rep, json_object *root)
{
	const ibf_infer_stats_t *s = &rep->r->stats;
	uint32_t p, d;
	int rc = 0;

	ibf_infer_tree_shape(&rep->r->tree, &p, &d);
	rc |= add_u64(root, "switches",
		      rep->r->tree.nnodes - rep->r->tree.nhosts);
	rc |= add_u64(root, "pairs", s->pairs);
	rc |= add_u64(root, "insertion_pairs", s->add_pairs);
	rc |= add_u64(root, "search_pairs", s->lookahead_pairs);
	rc |= add_u64(root, "unavailable_pairs", s->unavailable);
	rc |= add_u64(root, "max_pairs_per_host", s->max_host_pairs);
	rc |= add_u64(root, "max_insertion_pairs_per_host",
		      s->max_add_pairs);
	rc |= add_u64(root, "max_in_flight", s->max_in_flight);
	rc |= add_dbl(root, "mean_in_flight", s->mean_in_flight);
	rc |= add_u64(root, "parallel", s->parallel);
	rc |= add_u64(root, "in_flight_cap", s->in_flight_cap);
	rc |= add_u64(root, "largest_switch", p);
	rc |= add_u64(root, "diameter", d);
	rc |= add_u64(root, "bound_per_host", d ? p * (d - 1) + 1 : 1);
	rc |= add_dbl(root, "tol", rep->tol);
	rc |= add_dbl(root, "inference_s", s->cpu_s);
	rc |= add_dbl(root, "oracle_s", s->oracle_s);
	if (rep->charged_s >= 0)
		rc |= add_dbl(root, "charged_s", rep->charged_s);
	return rc;
}

ibf_status_t ibf_infer_write_json(const ibf_infer_report_t *rep, FILE *fp,
				  ibf_err_t *err)
{
	const ibf_infer_tree_t *t = &rep->r->tree;
	json_object *root = json_object_new_object();
	json_object *hosts = json_object_new_array();
	json_object *edges = json_object_new_array();
	int rc = !root || !hosts || !edges;
	uint32_t i;

	for (i = 0; i < t->nhosts && !rc; i++) {
		char buf[32];

		rc |= json_object_array_add(hosts, json_object_new_string(
					    node_name(rep, i, buf,
						      sizeof(buf))));
	}
	for (i = 0; i < t->nedges && !rc; i++) {
		json_object *e = json_object_new_object();
		char ba[32], bb[32];

		rc |= !e;
		rc |= add(e, "a", json_object_new_string(
			  node_name(rep, t->ea[i], ba, sizeof(ba))));
		rc |= add(e, "b", json_object_new_string(
			  node_name(rep, t->eb[i], bb, sizeof(bb))));
		rc |= add_dbl(e, "latency", t->lat[i]);
		rc |= json_object_array_add(edges, e);
	}
	if (!rc) {
		rc |= json_object_object_add(root, "hosts", hosts);
		hosts = NULL;
		rc |= json_object_object_add(root, "edges", edges);
		edges = NULL;
		rc |= stats_json(rep, root);
		if (rep->acc)
			rc |= accuracy_json(rep, root);
	}
	json_object_put(hosts);
	json_object_put(edges);
	if (!rc)
		rc = fputs(json_object_to_json_string_ext(root,
			   JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED),
			   fp) < 0 || fputc('\n', fp) == EOF;
	json_object_put(root);
	return rc ? ibf_err_set(err, IBF_ERR_NOMEM, "cannot write the JSON "
				"report") : IBF_OK;
}

/* The measurements started after i were over, as a list per i
 * (counting sort): first[i]..first[i + 1] in idx. */
static int starts_index(const ibf_infer_result_t *r, uint32_t **first,
			uint32_t **idx)
{
	uint32_t i, n = r->nmeas;

	*first = calloc((size_t)n + 2, sizeof(**first));
	*idx = malloc(((size_t)n + 1) * sizeof(**idx));
	if (!*first || !*idx)
		return -1;
	for (i = 0; i < n; i++)
		(*first)[r->meas[i].started_after + 2]++;
	for (i = 0; i < n; i++)
		(*first)[i + 2] += (*first)[i + 1];
	for (i = 0; i < n; i++)
		(*idx)[(*first)[r->meas[i].started_after + 1]++] = i;
	return 0;
}

ibf_status_t ibf_infer_write_trace(const ibf_infer_result_t *r,
				   const char *const *names, FILE *fp,
				   ibf_err_t *err)
{
	uint32_t i, j, *first = NULL, *idx = NULL;
	/* In parallel, "# start K" where the K-th pair below (from 1)
	 * started: with the lines in the order the pairs ended, the file
	 * shows what was in flight at any time. */
	bool starts = r->stats.parallel > 1;
	ibf_status_t st = IBF_OK;

	if (starts && starts_index(r, &first, &idx)) {
		free(first);
		free(idx);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	fprintf(fp, "# pairs measured by ibflow infer, in order: A B RTT or "
		"A B MIN MAX\n");
	/* The hosts in index order: measured in parallel, they need not
	 * first appear in it, and a replay numbers them as here. */
	if (names)
		st = ibf_rtt_write_hosts(fp, names, r->tree.nhosts, err);
	if (!names) {
		fputs(IBF_RTT_HOSTS_TAG, fp);
		for (i = 0; i < r->tree.nhosts; i++)
			fprintf(fp, " h%u", i);
		fputc('\n', fp);
	}
	for (i = 0; i < r->nmeas && st == IBF_OK; i++) {
		const ibf_infer_meas_t *m = &r->meas[i];
		uint32_t a = m->a < m->b ? m->a : m->b;
		uint32_t b = m->a < m->b ? m->b : m->a;
		char ba[32], bb[32];

		for (j = starts ? first[i] : 0; starts && j < first[i + 1]; j++)
			fprintf(fp, "# start %u\n", idx[j] + 1);
		/* The lower index first, as older traces had it. */
		snprintf(ba, sizeof(ba), "h%u", a);
		snprintf(bb, sizeof(bb), "h%u", b);
		st = ibf_rtt_write_line(fp, names ? names[a] : ba,
					names ? names[b] : bb, m->min, m->max,
					err);
	}
	free(first);
	free(idx);
	if (st == IBF_OK && ferror(fp))
		st = ibf_err_set(err, IBF_ERR_IO, "write error");
	return st;
}

/* ---- text ------------------------------------------------------------------ */

/* Each switch with its neighbours and the one-way latency of the edge. */
static void text_tree(const ibf_infer_report_t *rep, FILE *fp)
{
	const ibf_infer_tree_t *t = &rep->r->tree;
	char buf[32];
	uint32_t s, i, o;

	for (s = t->nhosts; s < t->nnodes; s++) {
		fprintf(fp, "%s:", node_name(rep, s, buf, sizeof(buf)));
		for (i = 0; i < t->nedges; i++) {
			o = t->ea[i] == s ? t->eb[i] :
			    t->eb[i] == s ? t->ea[i] : UINT32_MAX;
			if (o != UINT32_MAX)
				fprintf(fp, " %s (%.2f us)",
					node_name(rep, o, buf, sizeof(buf)),
					t->lat[i]);
		}
		fprintf(fp, "\n");
	}
}

/* The pairs measured: live runs against all pairs, with the ping-pongs;
 * offline ones with the pairs the oracle could not answer. */
static void text_pairs(const ibf_infer_report_t *rep, FILE *fp)
{
	const ibf_infer_stats_t *s = &rep->r->stats;
	uint64_t n = rep->r->tree.nhosts;

	if (rep->live)
		fprintf(fp, "pairs measured %llu of %llu (insertion %llu, "
			"close-host search %llu)  %.2f per host  ping-pongs "
			"%llu\n", (unsigned long long)s->pairs,
			(unsigned long long)(n * (n - 1) / 2),
			(unsigned long long)s->add_pairs,
			(unsigned long long)s->lookahead_pairs,
			(double)s->pairs / (double)n,
			(unsigned long long)rep->exchanges);
	else
		fprintf(fp, "pairs measured %llu (insertion %llu, close-host "
			"search %llu, unavailable %llu)  %.2f per host\n",
			(unsigned long long)s->pairs,
			(unsigned long long)s->add_pairs,
			(unsigned long long)s->lookahead_pairs,
			(unsigned long long)s->unavailable,
			(double)s->pairs / rep->r->tree.nhosts);
}

static void text_times(const ibf_infer_report_t *rep, FILE *fp)
{
	const ibf_infer_stats_t *s = &rep->r->stats;

	if (rep->live) {
		fprintf(fp, "time: total %.3f s  measuring %.3f s  inference "
			"%.3f s  tol %.3f us\n", rep->total_s, s->oracle_s,
			s->cpu_s, rep->tol);
		return;
	}
	fprintf(fp, "time: inference %.3f s  oracle %.3f s", s->cpu_s,
		s->oracle_s);
	if (rep->charged_s >= 0)
		fprintf(fp, "  measurements charged %.3f s  total %.3f s",
			rep->charged_s, s->cpu_s + rep->charged_s);
	fprintf(fp, "\n");
}

static void text_accuracy(const ibf_infer_report_t *rep, FILE *fp)
{
	const ibf_infer_accuracy_t *a = rep->acc;

	if (rep->has_truth)
		fprintf(fp, "shared-link queries %llu (%s): truly shared %llu  "
			"false positives %llu (%.4f)  false negatives %llu "
			"(%.4f)\n", (unsigned long long)a->queries,
			a->exhaustive ? "all" : "random",
			(unsigned long long)a->shared,
			(unsigned long long)a->false_pos,
			rate(a->false_pos, a->queries),
			(unsigned long long)a->false_neg,
			rate(a->false_neg, a->queries));
	if (a->ratio_pairs)
		fprintf(fp, "predicted/measured RTT over %llu pairs: min %.4f  "
			"5%% %.4f  median %.4f  95%% %.4f  max %.4f\n",
			(unsigned long long)a->ratio_pairs, a->ratio_min,
			a->ratio_p05, a->ratio_median, a->ratio_p95,
			a->ratio_max);
}

void ibf_infer_write_text(const ibf_infer_report_t *rep, FILE *fp)
{
	const ibf_infer_result_t *r = rep->r;
	const ibf_infer_stats_t *s = &r->stats;
	uint32_t p, d;

	ibf_infer_tree_shape(&r->tree, &p, &d);
	fprintf(fp, "hosts %u  switches inferred %u  largest switch %u "
		"ports  diameter %u hops\n", r->tree.nhosts,
		r->tree.nnodes - r->tree.nhosts, p, d);
	text_pairs(rep, fp);
	fprintf(fp, "most pairs for one host %u (insertion alone %u; bound "
		"p(d-1)+1 = %u)\n", s->max_host_pairs, s->max_add_pairs,
		d ? p * (d - 1) + 1 : 1);
	fprintf(fp, "pairs in flight at most %u, %.2f on average (%u hosts "
		"at once", s->max_in_flight, s->mean_in_flight, s->parallel);
	if (s->in_flight_cap)
		fprintf(fp, ", in flight at most %u by the cap",
			s->in_flight_cap);
	fprintf(fp, ")\n");
	text_times(rep, fp);
	if (rep->acc)
		text_accuracy(rep, fp);
	if (rep->live)
		text_tree(rep, fp);
}
