/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libibflow_osm entry points: the osm_event_plugin symbol OpenSM looks up,
 * the routing engines it registers, and path_sl / update_sl2vl.
 *
 * Routing (ucast_build_fwd_tables, OpenSM's lock held): build the model
 * from the subnet, run the libibflow engine on it, then copy the tables
 * into the switches' new_lft.  Everything is computed before the first
 * byte is copied, so a refusal leaves OpenSM's tables untouched and the
 * next engine of `routing_engine` starts from a clean state.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>
#include <opensm/osm_version.h>
#include <iba/ib_types.h>

#include <json-c/json.h>

#include <ibflow/pgft.h>

#include "ibflow_osm.h"

static const struct {
	const char *osm_name, *ibf_name;
} engine_names[IBF_OSM_NENGINES] = {
	{ "ibflow-dmodk", "dmodk" },
	{ "ibflow-uapr", "uapr" },
	{ "ibflow-layered", "layered" },
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- routing ----------------------------------------------------------- */

/* Refusals the engines cannot see: more layers than LIDs per endpoint,
 * more VLs than the links offer. */
static ibf_status_t precheck(const ibf_osm_engine_t *e,
			     const ibf_fabric_t *f, ibf_route_opts_t *o,
			     unsigned min_vls, ibf_err_t *err)
{
	if (ibf_route_engine_can(e->ibf_name, IBF_ROUTE_LAYERS) &&
	    o->layers > (1u << f->lmc))
		return ibf_err_set(err, IBF_ERR_RANGE, "LMC %u too small for "
				   "%u layers (needs LMC >= %u)", f->lmc,
				   o->layers, o->layers <= 1 ? 0 :
				   32 - __builtin_clz(o->layers - 1));
	if (ibf_route_engine_can(e->ibf_name, IBF_ROUTE_USES_SLS) &&
	    min_vls && o->vls > min_vls)
		o->vls = min_vls;
	return IBF_OK;
}

/* A degraded fat tree: one line saying what is missing and what that
 * costs; and the shape to keep for the next routing. */
static void note_pgft(ibf_osm_t *p, const ibf_osm_engine_t *e,
		      const ibf_routing_t *r)
{
	int64_t hosts, sws, links, pairs;
	const char *shape = ibf_routing_report_str(r, "pgft");

	if (!r->pgft_shape)
		return;
	if (!p->pgft_hint)
		p->pgft_hint = malloc(sizeof(*p->pgft_hint));
	if (p->pgft_hint)
		*p->pgft_hint = *r->pgft_shape;
	hosts = ibf_routing_report_int(r, "missing_hosts");
	sws = ibf_routing_report_int(r, "missing_switches");
	links = ibf_routing_report_int(r, "missing_links");
	pairs = ibf_routing_report_int(r, "unreachable_pairs");
	if (!hosts && !sws && !links)
		return;
	ibf_osm_logf(p, OSM_LOG_INFO, "%s: degraded %s: %lld hosts, %lld "
		     "switches, %lld links missing%s; %lld host pairs without "
		     "an up*/down* path (%llu table entries left unrouted)",
		     e->osm_name, shape ? shape : "PGFT",
		     (long long)hosts, (long long)sws, (long long)links,
		     ibf_routing_report_int(r, "remembered_shape") ?
		     " (shape remembered from an earlier routing)" : "",
		     (long long)pairs, (unsigned long long)r->unrouted);
}

/* A routing whose deadlock freedom rests on more than one SL is safe only
 * for applications that take each route's SL from its PathRecord; MPI
 * over UCX does not (one SL per interface, UCX_IB_SL): say so. */
static void warn_sls(ibf_osm_t *p, const ibf_osm_engine_t *e,
		     const ibf_routing_t *r)
{
	if (r->nsls <= 1)
		return;
	ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF14: %s: warning: the routing "
		     "is deadlock-free only with each route on its own SL "
		     "(SLs 0-%u, SL i on VL i); UCX sends on UCX_IB_SL only "
		     "(one SL for all traffic, no PathRecord), so MPI over "
		     "UCX can deadlock on it; set vls 1 in ibflow.conf unless "
		     "every application takes its PathRecord's SL",
		     e->osm_name, r->nsls - 1);
}

/* The plugin's phases of a routing: min-hop matrices, model + engine,
 * copy into OpenSM's tables, keeping the labels (in memory). */
static void log_routed(ibf_osm_t *p, const ibf_osm_engine_t *e,
		       const ibf_osm_result_t *res, double route_s,
		       double copy_s)
{
	char hops[48] = "by OpenSM";

	if (p->hops_seconds >= 0)
		snprintf(hops, sizeof(hops), "%.4f s", p->hops_seconds);
	ibf_osm_logf(p, OSM_LOG_INFO, "%s: routed %u endpoints, %u switches, "
		     "LMC %u, %u SL(s) in %.4f s (min-hop matrices %s, tables "
		     "copied in %.4f s)", e->osm_name, res->fabric->nendpoints,
		     res->fabric->nswitches, res->fabric->lmc,
		     res->routing->nsls, route_s, hops, copy_s);
}

static void *hops_fill_thread(void *arg)
{
	ibf_osm_t *p = arg;
	double t0 = now_seconds();

	p->hops_ok = ibf_osm_hops_fill(p->hops_job);
	p->hops_seconds = now_seconds() - t0;
	return NULL;
}

/* Wait for the matrices (if the plugin fills them); false when the fill
 * ran out of memory. */
static bool hops_join(ibf_osm_t *p)
{
	bool ok = true;

	if (p->hops_running)
		pthread_join(p->hops_thread, NULL);
	p->hops_running = false;
	if (p->hops_job) {
		ok = p->hops_ok;
		ibf_osm_hops_free(p->hops_job);
		p->hops_job = NULL;
	}
	return ok;
}

static int route_cb(void *context)
{
	ibf_osm_engine_t *e = context;
	ibf_osm_t *p = e->plugin;
	ibf_fabric_t *f = NULL;
	ibf_routing_t *r = NULL;
	ibf_osm_result_t *res;
	ibf_route_opts_t o = p->conf.route;
	ibf_err_t err;
	unsigned min_vls = 0;
	double t0 = now_seconds(), t1, t2;
	ibf_status_t st;

	ibf_err_clear(&err);
	o.pgft_hint = p->pgft_hint;
	o.pgft_memory = ibf_osm_labels(p);
	st = ibf_osm_build_fabric(&p->osm->subn, &f, &min_vls, &err);
	if (st == IBF_OK)
		st = precheck(e, f, &o, min_vls, &err);
	if (st == IBF_OK)
		st = ibf_route(f, e->ibf_name, &o, &r, &err);
	if (st == IBF_OK && r->nsls > min_vls && min_vls)
		st = ibf_err_set(&err, IBF_ERR_RANGE, "routing needs %u VLs, "
				 "the links offer %u", r->nsls, min_vls);
	/* OpenSM keeps the matrices it was told are built: a fill that ran
	 * out of memory hands the routing to the next engine, whose own
	 * build starts afresh. */
	if (!hops_join(p) && st == IBF_OK)
		st = ibf_err_set(&err, IBF_ERR_NOMEM, "out of memory filling "
				 "the min-hop matrices");
	t1 = now_seconds();
	if (st == IBF_OK)
		st = ibf_osm_write_lfts(&p->osm->subn, r, &err);
	t2 = now_seconds();
	if (st != IBF_OK) {
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF01: %s refuses this "
			     "fabric: %s", e->osm_name, err.msg);
		pthread_mutex_lock(&p->lock); /* metrics read it */
		snprintf(p->refused, sizeof(p->refused), "%s", e->osm_name);
		snprintf(p->refusal, sizeof(p->refusal), "%s", err.msg);
		pthread_mutex_unlock(&p->lock);
		ibf_routing_destroy(r);
		ibf_fabric_destroy(f);
		ibf_osm_result_set_current(p, NULL);
		return -1;
	}
	res = ibf_osm_result_new(p, e->osm_name, f);
	if (!res) {
		/* The tables are in place; only path_sl and the export lack
		 * them.  Say so rather than fail a good routing. */
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF02: %s: out of memory "
			     "keeping the routing", e->osm_name);
		ibf_routing_destroy(r);
		ibf_fabric_destroy(f);
		ibf_osm_result_set_current(p, NULL);
		return 0;
	}
	res->routing = r;
	pthread_mutex_lock(&p->lock);
	p->route_seconds = t2 - t0;
	pthread_mutex_unlock(&p->lock);
	note_pgft(p, e, r);
	ibf_osm_labels_keep(p, e, r);
	log_routed(p, e, res, t1 - t0, t2 - t1);
	warn_sls(p, e, r);
	ibf_osm_result_set_current(p, res);
	return 0;
}

/* OpenSM's min-hop matrices, which its multicast manager needs, filled by
 * the plugin (hops.c) in a fraction of OpenSM's time, in a thread beside
 * the engine (route_cb waits for it before it returns: OpenSM reads them
 * only after that); OpenSM builds them itself (return 1) where the plugin
 * would not give its numbers. */
static int lid_matrices_cb(void *context)
{
	ibf_osm_engine_t *e = context;
	ibf_osm_t *p = e->plugin;
	const char *why;

	hops_join(p);
	why = ibf_osm_hops_prepare(&p->osm->subn, &p->hops_job);
	if (why) {
		ibf_osm_logf(p, OSM_LOG_VERBOSE, "%s: OpenSM builds the "
			     "min-hop matrices: %s", e->osm_name, why);
		p->hops_seconds = -1;
		return 1;
	}
	if (pthread_create(&p->hops_thread, NULL, hops_fill_thread, p) == 0)
		p->hops_running = true;
	else
		hops_fill_thread(p);
	return 0;
}

static uint8_t path_sl_cb(void *context, uint8_t hint, const ib_net16_t slid,
			  const ib_net16_t dlid)
{
	ibf_osm_engine_t *e = context;
	ibf_osm_result_t *res = ibf_osm_result_current(e->plugin);
	unsigned s = cl_ntoh16(slid), d = cl_ntoh16(dlid);
	uint8_t sl = hint;
	ibf_port_id_t src;

	if (!res || !res->routing)
		goto out;
	src = ibf_fabric_lid_owner(res->fabric, s);
	if (src == IBF_NO_ID || d > res->fabric->lid_top ||
	    ibf_fabric_lid_owner(res->fabric, d) == IBF_NO_ID)
		goto out;
	if (res->fabric->endpoint_index[src] == UINT32_MAX)
		goto out; /* a switch as source: SL 0 paths only */
	sl = (uint8_t)ibf_routing_sl(res->routing, src, d);
out:
	ibf_osm_result_put(e->plugin, res);
	return sl;
}

/* SL i -> VL i for the SLs the routing uses (that is what made it
 * deadlock-free); other SLs keep what QoS configured. */
static void update_sl2vl_cb(void *context, osm_physp_t *port, uint8_t in,
			    uint8_t out, ib_slvl_table_t *t)
{
	ibf_osm_engine_t *e = context;
	ibf_osm_result_t *res = ibf_osm_result_current(e->plugin);
	unsigned sl, n = 1;

	if (res && res->routing)
		n = res->routing->nsls;
	for (sl = 0; sl < n && sl < 15; sl++)
		ib_slvl_table_set(t, (uint8_t)sl, (uint8_t)sl);
	ibf_osm_result_put(e->plugin, res);
}

static void engine_destroy_cb(void *context)
{
	/* The plugin owns the engine contexts; delete() frees them. */
}

static int engine_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	ibf_osm_engine_t *e = re->context;

	re->build_lid_matrices = lid_matrices_cb;
	re->ucast_build_fwd_tables = route_cb;
	re->destroy = engine_destroy_cb;
	if (ibf_route_engine_can(e->ibf_name, IBF_ROUTE_USES_SLS)) {
		re->path_sl = path_sl_cb;
		re->update_sl2vl = update_sl2vl_cb;
	}
	return 0;
}

/* ---- evaluation of other engines' tables ------------------------------ */

/* After a routing by another engine (minhop fallback, ftree, ...) read the
 * programmed tables back so the worker can evaluate and export them too. */
static ibf_osm_result_t *foreign_result(ibf_osm_t *p)
{
	osm_opensm_t *osm = p->osm;
	ibf_fabric_t *f = NULL;
	ibf_lfts_t *l = NULL;
	ibf_osm_result_t *res = NULL;
	ibf_err_t err;
	unsigned vls;
	const char *name;

	if (!osm->routing_engine_used)
		return NULL;
	name = osm_routing_engine_type_str(osm->routing_engine_used->type);
	ibf_err_clear(&err);
	CL_PLOCK_ACQUIRE(&osm->lock);
	if (ibf_osm_build_fabric(&osm->subn, &f, &vls, &err) == IBF_OK &&
	    ibf_osm_read_lfts(&osm->subn, f, &l, &err) == IBF_OK)
		res = ibf_osm_result_new(p, name, f);
	CL_PLOCK_RELEASE(&osm->lock);
	if (!res) {
		ibf_osm_logf(p, OSM_LOG_INFO, "export and eval of %s not "
			     "run: its tables were not read back: %s", name,
			     err.msg[0] ? err.msg : "out of memory");
		ibf_lfts_destroy(l);
		ibf_fabric_destroy(f);
		return NULL;
	}
	res->lfts = l;
	return res;
}

static bool used_is_ours(ibf_osm_t *p)
{
	struct osm_routing_engine *re = p->osm->routing_engine_used;
	unsigned i;

	for (i = 0; re && i < IBF_OSM_NENGINES; i++)
		if (re->context == &p->engines[i])
			return true;
	return false;
}

/* OpenSM's name of the engine that routed, as its log says it. */
static const char *used_name(ibf_osm_t *p)
{
	struct osm_routing_engine *re = p->osm->routing_engine_used;

	if (!re)
		return "none";
	if (used_is_ours(p))
		return ((ibf_osm_engine_t *)re->context)->osm_name;
	return osm_routing_engine_type_str(re->type);
}

/* ---- plugin interface --------------------------------------------------- */

/* 64 bits from the clock and the process: no two loads of the plugin
 * (OpenSM restarts) share export generations. */
static void new_run_id(ibf_osm_t *p)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	x ^= (uint64_t)getpid() << 40;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	snprintf(p->run_id, sizeof(p->run_id), "%016llx",
		 (unsigned long long)x);
}

static void *plugin_create(osm_opensm_t *osm)
{
	ibf_osm_t *p = calloc(1, sizeof(*p));
	external_routing_engine_module_t m;
	const char *path = getenv("IBFLOW_OSM_CONF");
	ibf_err_t err;
	unsigned i;

	if (!p) {
		osm_log(&osm->log, OSM_LOG_ERROR,
			"ibflow: ERR IBF03: out of memory\n");
		return NULL;
	}
	p->osm = osm;
	p->wake_fd[0] = p->wake_fd[1] = -1;
	new_run_id(p);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	ibf_osm_conf_defaults(&p->conf);
	if (path && *path)
		ibf_osm_conf_load(p, path, true);
	else
		ibf_osm_conf_load(p, IBF_OSM_CONF_DEFAULT, false);

	for (i = 0; i < IBF_OSM_NENGINES; i++) {
		p->engines[i].plugin = p;
		p->engines[i].osm_name = engine_names[i].osm_name;
		p->engines[i].ibf_name = engine_names[i].ibf_name;
		m.name = engine_names[i].osm_name;
		m.setup = engine_setup;
		m.context = &p->engines[i];
		if (osm_register_external_routing_engine(osm, &m,
							 &p->engines[i]))
			ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF04: cannot "
				     "register routing engine %s", m.name);
	}
	ibf_err_clear(&err);
	if (ibf_osm_worker_start(p, &err) != IBF_OK)
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF05: no export or "
			     "evaluation: %s", err.msg);
	ibf_osm_logf(p, OSM_LOG_INFO, "plugin %s loaded: engines "
		     "ibflow-dmodk, ibflow-uapr, ibflow-layered", PACKAGE_VERSION);
	return p;
}

static void plugin_delete(void *data)
{
	ibf_osm_t *p = data;

	if (!p)
		return;
	hops_join(p);
	ibf_osm_worker_stop(p);
	ibf_osm_result_set_current(p, NULL);
	ibf_osm_conf_free(&p->conf);
	free(p->pgft_hint);
	ibf_pgft_memory_destroy(p->labels);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static void plugin_report(void *data, osm_epi_event_id_t id, void *ev)
{
	ibf_osm_t *p = data;
	ibf_osm_result_t *res;

	if (!p)
		return;
	/* OpenSM re-reads opensm.conf at the start of every heavy sweep
	 * (SIGHUP asks for one): ibflow.conf follows, if it changed */
	if (id == OSM_EVENT_ID_HEAVY_SWEEP_START) {
		ibf_osm_conf_refresh(p);
		return;
	}
	if (id != OSM_EVENT_ID_UCAST_ROUTING_DONE)
		return;
	ibf_osm_labels_flush(p);
	if (used_is_ours(p))
		res = ibf_osm_result_current(p);
	else if (p->conf.eval_foreign)
		res = foreign_result(p);
	else
		res = NULL;
	ibf_osm_metrics_routing(p, used_name(p), res);
	if (!res)
		return;
	ibf_osm_worker_post(p, res);
	ibf_osm_result_put(p, res);
}

/* The symbol OpenSM looks up, and the only one the plugin exports
 * (libibflow_osm.map); osm_version must equal OpenSM's. */
__attribute__((visibility("default")))
osm_event_plugin_t osm_event_plugin = {
	OSM_VERSION,
	plugin_create,
	plugin_delete,
	plugin_report,
};
