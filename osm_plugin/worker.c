/*
 * The worker thread: export and MMF evaluation of each routing, off
 * OpenSM's routing path.
 *
 * report(UCAST_ROUTING_DONE) only posts a reference to the newest result
 * (an immutable fabric + tables owned by the plugin) and returns; OpenSM
 * never waits for the worker.  A newer routing cancels the evaluation of
 * an older one between patterns.  The time budget is checked before each
 * pattern (a pattern already running finishes), and fabrics above
 * eval_max_endpoints are not evaluated at all, so the work per routing
 * stays bounded.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include <ibflow/eval.h>
#include <ibflow/io.h>
#include <ibflow/lfts_io.h>
#include <ibflow/topo_io.h>

#include "ibflow_osm.h"

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *export_dir(const ibf_osm_t *p)
{
	return p->conf.export_dir[0] ? p->conf.export_dir :
		ibf_osm_cache_dir();
}

static bool cancelled(ibf_osm_t *p)
{
	bool c;

	pthread_mutex_lock(&p->lock);
	c = p->cancel || p->quit;
	pthread_mutex_unlock(&p->lock);
	return c;
}

static const ibf_lfts_t *result_lfts(const ibf_osm_result_t *res)
{
	return res->routing ? res->routing->lfts : res->lfts;
}

/* A routing view for other engines' tables: topological order, SL 0. */
static void foreign_view(const ibf_osm_result_t *res, ibf_routing_t *v)
{
	memset(v, 0, sizeof(*v));
	v->fabric = res->fabric;
	snprintf(v->engine, sizeof(v->engine), "%s", res->engine);
	v->lfts = res->lfts;
	v->order = res->fabric->endpoints;
	v->norder = res->fabric->nendpoints;
	v->nsls = 1;
}

static ibf_status_t write_manifest(const ibf_osm_result_t *res,
				   const ibf_routing_t *r, const char *path,
				   ibf_err_t *err)
{
	ibf_ofile_t o;
	ibf_status_t st;

	st = ibf_ofile_open(&o, path, err);
	if (st != IBF_OK)
		return st;
	fprintf(o.fp, "# ibflow OpenSM plugin export\nengine %s\n"
		"routing %llu\nendpoints %u\nswitches %u\nlmc %u\nsls %u\n"
		"topology ibflow-topology.ibnd\nlfts ibflow-lfts.dump\n"
		"order ibflow-order.txt\nsl ibflow-sl.txt\n", res->engine,
		(unsigned long long)res->seq, res->fabric->nendpoints,
		res->fabric->nswitches, res->fabric->lmc, r->nsls);
	return ibf_ofile_commit(&o, err);
}

/* Every file goes through temp + rename; the manifest is written last,
 * so a reader that sees a new manifest sees the files it names. */
static void do_export(ibf_osm_t *p, const ibf_osm_result_t *res)
{
	const char *dir = export_dir(p);
	char path[IBF_OSM_PATH_MAX + 64];
	ibf_routing_t view;
	const ibf_routing_t *r = res->routing;
	ibf_err_t err;
	ibf_status_t st;

	if (!r) {
		foreign_view(res, &view);
		r = &view;
	}
	mkdir(dir, 0755);
	ibf_err_clear(&err);
	snprintf(path, sizeof(path), "%s/ibflow-topology.ibnd", dir);
	st = ibf_topo_write_file(res->fabric, IBF_TOPO_IBNETDISCOVER, path,
				 &err);
	snprintf(path, sizeof(path), "%s/ibflow-lfts.dump", dir);
	if (st == IBF_OK)
		st = ibf_lfts_write_file(r->lfts, path, &err);
	snprintf(path, sizeof(path), "%s/ibflow-order.txt", dir);
	if (st == IBF_OK)
		st = ibf_routing_write_order(r, path, &err);
	snprintf(path, sizeof(path), "%s/ibflow-sl.txt", dir);
	if (st == IBF_OK)
		st = ibf_routing_write_sl(r, path, &err);
	snprintf(path, sizeof(path), "%s/ibflow-export.txt", dir);
	if (st == IBF_OK)
		st = write_manifest(res, r, path, &err);
	if (st != IBF_OK)
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF08: export of %s "
			     "routing %llu to %s failed: %s", res->engine,
			     (unsigned long long)res->seq, dir, err.msg);
	else
		ibf_osm_logf(p, OSM_LOG_INFO, "exported %s routing %llu to "
			     "%s", res->engine, (unsigned long long)res->seq,
			     dir);
}

/* ---- evaluation ---------------------------------------------------------- */

static json_object *json_num(double v, bool valid)
{
	return valid ? json_object_new_double(v) : NULL;
}

static json_object *pattern_json(const ibf_eval_t *e, const char *spec)
{
	const ibf_eval_result_t *x = ibf_eval_result(e, 0, 0);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(spec));
	json_object_object_add(o, "instances",
			       json_object_new_int64(x->instances));
	json_object_object_add(o, "flows", json_object_new_int64(
				       (int64_t)x->flows));
	json_object_object_add(o, "index", json_object_new_double(x->index));
	json_object_object_add(o, "opt_index",
			       json_num(x->opt_index, x->has_opt));
	json_object_object_add(o, "ratio", json_num(x->ratio, x->has_opt));
	json_object_object_add(o, "min_rate",
			       json_object_new_double(x->min_rate));
	json_object_object_add(o, "median_rate",
			       json_object_new_double(x->median_rate));
	json_object_object_add(o, "seconds",
			       json_object_new_double(x->seconds));
	json_object_object_add(o, "opt_seconds",
			       json_num(x->opt_seconds, x->has_opt));
	return o;
}

static void log_row(ibf_osm_t *p, const ibf_osm_result_t *res,
		    const char *spec, const ibf_eval_t *e)
{
	const ibf_eval_result_t *x = ibf_eval_result(e, 0, 0);

	if (x->has_opt)
		ibf_osm_logf(p, OSM_LOG_INFO, "eval %-14s %-10s index %.4f "
			     "optimum %.4f ratio %.4f min rate %.4f",
			     res->engine, spec, x->index, x->opt_index,
			     x->ratio, x->min_rate);
	else
		ibf_osm_logf(p, OSM_LOG_INFO, "eval %-14s %-10s index %.4f "
			     "min rate %.4f", res->engine, spec, x->index,
			     x->min_rate);
}

static void write_report(ibf_osm_t *p, json_object *doc)
{
	char path[IBF_OSM_PATH_MAX + 64];
	const char *text;
	ibf_ofile_t o;
	ibf_err_t err;

	if (p->conf.report_file[0])
		snprintf(path, sizeof(path), "%s", p->conf.report_file);
	else
		snprintf(path, sizeof(path), "%s/ibflow-eval.json",
			 export_dir(p));
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY);
	ibf_err_clear(&err);
	if (ibf_ofile_open(&o, path, &err) == IBF_OK) {
		fprintf(o.fp, "%s\n", text);
		if (ibf_ofile_commit(&o, &err) == IBF_OK)
			return;
	}
	ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF09: evaluation report %s: %s",
		     path, err.msg);
}

static void do_eval(ibf_osm_t *p, const ibf_osm_result_t *res)
{
	const ibf_fabric_t *f = res->fabric;
	const ibf_routing_t *r = res->routing;
	ibf_eval_routing_t er = { res->engine, result_lfts(res) };
	ibf_eval_opts_t eo;
	json_object *doc, *pats, *skipped;
	double t0 = now_seconds();
	const char *note = NULL;
	unsigned i;

	if (f->nendpoints > p->conf.eval_max_endpoints) {
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s skipped: %u "
			     "endpoints > eval_max_endpoints %u", res->engine,
			     f->nendpoints, p->conf.eval_max_endpoints);
		return;
	}
	memset(&eo, 0, sizeof(eo));
	eo.paths = f->lmc == 0 ? IBF_EVAL_SINGLE :
		(r && !strcmp(r->engine, "layered") ? IBF_EVAL_LAYERS :
		 IBF_EVAL_LMC);
	eo.order = r ? r->order : NULL;
	eo.norder = r ? r->norder : 0;
	eo.seed = p->conf.route.seed;
	eo.opt = p->conf.eval_opt;
	eo.nthreads = 1;

	doc = json_object_new_object();
	pats = json_object_new_array();
	skipped = json_object_new_array();
	for (i = 0; i < p->conf.npatterns; i++) {
		const char *spec = p->conf.patterns[i];
		ibf_eval_t *e = NULL;
		ibf_err_t err;

		if (cancelled(p)) {
			note = "cancelled by a newer routing";
			break;
		}
		if (now_seconds() - t0 > p->conf.eval_budget) {
			json_object_array_add(skipped,
					      json_object_new_string(spec));
			continue;
		}
		ibf_err_clear(&err);
		if (ibf_eval_run(f, &er, 1, &spec, 1, &eo, &e, &err) !=
		    IBF_OK) {
			ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF10: eval of %s "
				     "on %s: %s", res->engine, spec, err.msg);
			json_object_array_add(skipped,
					      json_object_new_string(spec));
			continue;
		}
		log_row(p, res, spec, e);
		json_object_array_add(pats, pattern_json(e, spec));
		if (eo.opt && !e->opt_done && e->opt_note[0]) {
			ibf_osm_logf(p, OSM_LOG_VERBOSE, "no MMF optimum: %s",
				     e->opt_note);
			eo.opt = false; /* same reason for every pattern */
		}
		ibf_eval_destroy(e);
	}
	if (note) {
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s routing %llu %s",
			     res->engine, (unsigned long long)res->seq, note);
		json_object_put(doc);
		json_object_put(pats);
		json_object_put(skipped);
		return;
	}
	if (json_object_array_length(skipped))
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s: %u pattern(s) "
			     "skipped (budget %.1f s or errors)", res->engine,
			     (unsigned)json_object_array_length(skipped),
			     p->conf.eval_budget);
	json_object_object_add(doc, "engine",
			       json_object_new_string(res->engine));
	json_object_object_add(doc, "routing",
			       json_object_new_int64((int64_t)res->seq));
	json_object_object_add(doc, "endpoints",
			       json_object_new_int64(f->nendpoints));
	json_object_object_add(doc, "switches",
			       json_object_new_int64(f->nswitches));
	json_object_object_add(doc, "lmc", json_object_new_int(f->lmc));
	json_object_object_add(doc, "paths", json_object_new_string(
				       ibf_eval_paths_name(eo.paths)));
	json_object_object_add(doc, "budget_seconds",
			       json_object_new_double(p->conf.eval_budget));
	json_object_object_add(doc, "seconds",
			       json_object_new_double(now_seconds() - t0));
	json_object_object_add(doc, "patterns", pats);
	json_object_object_add(doc, "skipped", skipped);
	write_report(p, doc);
	json_object_put(doc);
}

/* ---- thread ----------------------------------------------------------- */

static void *worker_main(void *arg)
{
	ibf_osm_t *p = arg;
	ibf_osm_result_t *res;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (!p->job && !p->quit)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->quit && !p->job) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		res = p->job;
		p->job = NULL;
		p->cancel = false;
		pthread_mutex_unlock(&p->lock);

		if (p->conf.do_export)
			do_export(p, res);
		if (p->conf.do_eval && !cancelled(p))
			do_eval(p, res);
		ibf_osm_result_put(p, res);
	}
	return NULL;
}

ibf_status_t ibf_osm_worker_start(ibf_osm_t *p, ibf_err_t *err)
{
	if (pthread_create(&p->worker, NULL, worker_main, p))
		return ibf_err_set(err, IBF_ERR_NOMEM, "cannot start the "
				   "worker thread");
	p->worker_started = true;
	return IBF_OK;
}

/* Finishes the export in progress (and of a routing still waiting: the
 * last routing before OpenSM exits is exported), cancels evaluation. */
void ibf_osm_worker_stop(ibf_osm_t *p)
{
	if (!p->worker_started)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	p->cancel = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->worker, NULL);
	p->worker_started = false;
}

void ibf_osm_worker_post(ibf_osm_t *p, ibf_osm_result_t *res)
{
	ibf_osm_result_t *old;

	if (!p->worker_started)
		return;
	pthread_mutex_lock(&p->lock);
	res->refs++;
	old = p->job;
	p->job = res;
	p->cancel = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	ibf_osm_result_put(p, old);
}
