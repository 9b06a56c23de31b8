/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Probe results as text, JSON (probe-solve's document plus what only a
 * live run knows), an RTT file and a plan file that `ibflow probe-solve`
 * reads back.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "probe/ucx_probe_internal.h"

#define NAME_LEN 256

static void link_name(const ibf_fabric_t *f, ibf_port_id_t p, char *buf,
		      size_t len)
{
	snprintf(buf, len, "%s:%u", ibf_node_desc(f, ibf_port(f, p)->node),
		 ibf_port(f, p)->num);
}

static void write_links(const ibf_ucx_t *u, const ibf_probe_solution_t *s,
			FILE *fp)
{
	const ibf_fabric_t *f = u->fab.fabric;
	char name[NAME_LEN];
	uint32_t i, k;

	fprintf(fp, "link latencies (us, one direction; a row of several "
		"links is their sum):\n");
	for (i = 0; i < s->nagg; i++) {
		fprintf(fp, "  %10.2f  ", s->agg_latency[i]);
		for (k = s->agg_start[i]; k < s->agg_start[i + 1]; k++) {
			link_name(f, s->agg_links[k], name, sizeof(name));
			if (s->agg_coef[k] != 1.0)
				fprintf(fp, "%s%g * %s", k > s->agg_start[i] ?
					" + " : "", s->agg_coef[k], name);
			else
				fprintf(fp, "%s%s", k > s->agg_start[i] ?
					" + " : "", name);
		}
		fputc('\n', fp);
	}
}

static void write_matrix(const ibf_ucx_t *u, const ibf_ucx_probe_result_t *r,
			 FILE *fp)
{
	uint32_t n = r->nhosts, a, b;
	char name[NAME_LEN];

	fprintf(fp, "RTT matrix (us, %s):\n%-24s", r->all_pairs ? "measured" :
		r->solved ? "measured and predicted" : "measured", "");
	for (b = 0; b < n; b++)
		fprintf(fp, " %8u", b);
	fputc('\n', fp);
	for (a = 0; a < n; a++) {
		ibf_ucx_host_name(u, a, name, sizeof(name));
		fprintf(fp, "%4u %-19.19s", a, name);
		for (b = 0; b < n; b++) {
			double v = r->rtt[(size_t)a * n + b];

			if (a == b)
				fprintf(fp, " %8s", "-");
			else if (isnan(v))
				fprintf(fp, " %8s", "?");
			else
				fprintf(fp, " %8.2f", v);
		}
		fputc('\n', fp);
	}
}

static ibf_probe_meas_t *as_meas(const ibf_ucx_probe_result_t *r);

static void write_health(const ibf_ucx_t *u, const ibf_ucx_probe_result_t *r,
			 FILE *fp)
{
	ibf_probe_meas_t *m = as_meas(r);

	if (m)
		ibf_probe_health_write_text(u->fab.fabric, &u->hosts, m,
					    &r->solution, &r->health, fp);
	free(m);
}

ibf_ucx_status_t ibf_ucx_probe_write_text(const ibf_ucx_t *u,
					  const ibf_ucx_probe_result_t *r,
					  FILE *fp, ibf_ucx_err_t *err)
{
	fprintf(fp, "hosts %u  processes %u  %s\n", r->nhosts, u->size,
		u->aware ? "topology-aware" : "topology-unaware");
	if (r->all_pairs)
		fprintf(fp, "measured all %u pairs one by one in %u rounds\n",
			r->nmeas, r->nrounds);
	else
		fprintf(fp, "plan: rank %u, %u pairs in %u rounds (lower bound "
			"%u, %s links), planned in %.3f s\n", r->plan.rank,
			r->nmeas, r->nrounds, r->plan.lower_bound,
			ibf_probe_model_name(r->plan.model), r->plan_s);
	if (r->nsteps != r->nrounds)
		fprintf(fp, "run in %u steps (UCX_IBFLOW_PROBE_CONCURRENCY)\n",
			r->nsteps);
	fprintf(fp, "measuring %.3f s", r->measure_s);
	if (r->solved)
		fprintf(fp, "  solving %.3f s  rank %u  residual max %.3f us  "
			"inconsistent %u", r->solve_s, r->solution.rank,
			r->solution.residual_max, r->solution.nflagged);
	fputc('\n', fp);
	if (r->solved)
		write_links(u, &r->solution, fp);
	write_matrix(u, r, fp);
	if (r->solved)
		write_health(u, r, fp);
	if (ferror(fp))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_IO, "write failed");
	return IBF_UCX_OK;
}

/* ---- JSON ------------------------------------------------------------------- */

static ibf_probe_meas_t *as_meas(const ibf_ucx_probe_result_t *r)
{
	ibf_probe_meas_t *m = calloc(r->nmeas ? r->nmeas : 1, sizeof(*m));
	uint32_t i;

	for (i = 0; m && i < r->nmeas; i++) {
		m[i].a = r->meas[i].a;
		m[i].b = r->meas[i].b;
		m[i].rtt = r->meas[i].rtt_min;
		m[i].rtt_max = r->meas[i].rtt_max;
	}
	return m;
}

/* probe-solve's document (solution and health), parsed back to add to
 * it. */
static json_object *solution_json(const ibf_ucx_t *u,
				  const ibf_ucx_probe_result_t *r,
				  ibf_ucx_err_t *err)
{
	ibf_probe_meas_t *m = as_meas(r);
	json_object *doc = NULL;
	char *text = NULL;
	size_t len = 0;
	ibf_err_t e;
	FILE *mf;

	mf = m ? open_memstream(&text, &len) : NULL;
	if (!mf) {
		free(m);
		ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
		return NULL;
	}
	ibf_err_clear(&e);
	if (ibf_probe_report_write_json(u->fab.fabric, &u->hosts, m,
					&r->solution, &r->health, mf, &e) !=
	    IBF_OK) {
		fclose(mf);
		ibf_ucxi_err_lib(err, IBF_UCX_ERR_IO, &e, NULL);
	} else if (fclose(mf) != 0 || !(doc = json_tokener_parse(text))) {
		ibf_ucx_err_set(err, IBF_UCX_ERR_IO, "solution JSON");
	}
	free(text);
	free(m);
	return doc;
}

static json_object *num_or_null(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static void add_extras(const ibf_ucx_t *u, const ibf_ucx_probe_result_t *r,
		       json_object *doc)
{
	json_object *hosts = json_object_new_array();
	json_object *meas = json_object_new_array();
	json_object *mat = json_object_new_array();
	char name[NAME_LEN];
	uint32_t i, j, n = r->nhosts;

	for (i = 0; i < n; i++)
		json_object_array_add(hosts, json_object_new_string(
					      ibf_ucx_host_name(u, i, name,
								sizeof(name))));
	for (i = 0; i < r->nmeas; i++) {
		const ibf_ucx_probe_meas_t *m = &r->meas[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "a", json_object_new_string(
			ibf_ucx_host_name(u, m->a, name, sizeof(name))));
		json_object_object_add(o, "b", json_object_new_string(
			ibf_ucx_host_name(u, m->b, name, sizeof(name))));
		json_object_object_add(o, "round", json_object_new_int64(
					       m->round));
		json_object_object_add(o, "step", json_object_new_int64(
					       m->step));
		json_object_object_add(o, "rtt_min", num_or_null(m->rtt_min));
		json_object_object_add(o, "rtt_max", num_or_null(m->rtt_max));
		json_object_object_add(o, "exchanges", json_object_new_int64(
					       m->exchanges));
		json_object_array_add(meas, o);
	}
	for (i = 0; i < n; i++) {
		json_object *row = json_object_new_array();

		for (j = 0; j < n; j++)
			json_object_array_add(row, num_or_null(
				r->rtt[(size_t)i * n + j]));
		json_object_array_add(mat, row);
	}
	json_object_object_add(doc, "hosts", hosts);
	json_object_object_add(doc, "measurements", meas);
	json_object_object_add(doc, "matrix", mat);
	json_object_object_add(doc, "processes", json_object_new_int64(u->size));
	json_object_object_add(doc, "all_pairs",
			       json_object_new_boolean(r->all_pairs));
	json_object_object_add(doc, "topology_aware",
			       json_object_new_boolean(u->aware));
	json_object_object_add(doc, "rounds", json_object_new_int64(r->nrounds));
	json_object_object_add(doc, "steps", json_object_new_int64(r->nsteps));
	if (!r->all_pairs) {
		json_object_object_add(doc, "plan_rank",
				       json_object_new_int64(r->plan.rank));
		json_object_object_add(doc, "lower_bound", json_object_new_int64(
					       r->plan.lower_bound));
	}
	json_object_object_add(doc, "plan_s", json_object_new_double(r->plan_s));
	json_object_object_add(doc, "measure_s",
			       json_object_new_double(r->measure_s));
	json_object_object_add(doc, "solve_s",
			       json_object_new_double(r->solve_s));
}

ibf_ucx_status_t ibf_ucx_probe_write_json(const ibf_ucx_t *u,
					  const ibf_ucx_probe_result_t *r,
					  FILE *fp, ibf_ucx_err_t *err)
{
	json_object *doc;

	doc = r->solved ? solution_json(u, r, err) : json_object_new_object();
	if (!doc)
		return err ? err->status : IBF_UCX_ERR_IO;
	add_extras(u, r, doc);
	fprintf(fp, "%s\n", json_object_to_json_string_ext(
			doc, JSON_C_TO_STRING_PRETTY |
			JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
	if (ferror(fp))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_IO, "write failed");
	return IBF_UCX_OK;
}

/* ---- files for ibflow probe-solve ---------------------------------------------- */

static void write_quoted(FILE *fp, const char *s)
{
	if (strpbrk(s, " \t"))
		fprintf(fp, "\"%s\"", s);
	else
		fputs(s, fp);
}

ibf_ucx_status_t ibf_ucx_probe_write_rtt(const ibf_ucx_t *u,
					 const ibf_ucx_probe_result_t *r,
					 FILE *fp, ibf_ucx_err_t *err)
{
	char name[NAME_LEN];
	uint32_t i;

	if (!u->aware)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UNSUPPORTED,
				       "an RTT file names fabric hosts: "
				       "topology-unaware run");
	fprintf(fp, "# ibflow-probe: %u measurements (us; minimum of %s)\n",
		r->nmeas, "the runs' best exchanges");
	for (i = 0; i < r->nmeas; i++) {
		if (!isfinite(r->meas[i].rtt_min))
			continue;
		write_quoted(fp, ibf_ucx_host_name(u, r->meas[i].a, name,
						   sizeof(name)));
		fputc(' ', fp);
		write_quoted(fp, ibf_ucx_host_name(u, r->meas[i].b, name,
						   sizeof(name)));
		/* MIN MAX: probe-solve takes the spread as the noise */
		if (isfinite(r->meas[i].rtt_max) &&
		    r->meas[i].rtt_max > r->meas[i].rtt_min)
			fprintf(fp, " %.4f %.4f\n", r->meas[i].rtt_min,
				r->meas[i].rtt_max);
		else
			fprintf(fp, " %.4f\n", r->meas[i].rtt_min);
	}
	if (ferror(fp))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_IO, "write failed");
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucx_probe_write_prom(const ibf_ucx_t *u,
					  const ibf_ucx_probe_result_t *r,
					  FILE *fp, ibf_ucx_err_t *err)
{
	ibf_probe_meas_t *m;
	ibf_status_t st;
	ibf_err_t e;

	if (!r->solved)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UNSUPPORTED,
				       "no link latencies: %s", u->aware ?
				       "nothing solved" :
				       "topology-unaware run");
	if (!(m = as_meas(r)))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
				       "out of memory");
	ibf_err_clear(&e);
	st = ibf_probe_health_write_prom(u->fab.fabric, m, r->nmeas,
					 &r->solution, &r->health, fp, &e);
	free(m);
	if (st != IBF_OK)
		return ibf_ucxi_err_lib(err, IBF_UCX_ERR_IO, &e, NULL);
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucx_probe_write_plan(const ibf_ucx_t *u,
					  const ibf_ucx_probe_result_t *r,
					  FILE *fp, ibf_ucx_err_t *err)
{
	ibf_err_t e;

	if (!u->aware || r->all_pairs || !r->plan.npairs)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UNSUPPORTED,
				       "no plan: %s", r->all_pairs ?
				       "all pairs were measured" :
				       "topology-unaware run");
	ibf_err_clear(&e);
	if (ibf_probe_plan_write_json(u->fab.fabric, &u->hosts, &r->plan,
				      u->fab.topo_path, u->fab.lfts_path, fp,
				      &e) != IBF_OK)
		return ibf_ucxi_err_lib(err, IBF_UCX_ERR_IO, &e, NULL);
	return IBF_UCX_OK;
}
