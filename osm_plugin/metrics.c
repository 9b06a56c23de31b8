/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * metrics_file: the last routing's numbers in Prometheus' text format for
 * node_exporter's textfile collector, rewritten (atomically) after the
 * routing, after its export and after its evaluation.
 *
 * Each phase updates p->metrics under the lock and marks it dirty; the
 * worker writes the file.  A phase of an older routing (the worker was
 * still busy with it when a newer one came) changes nothing: the file
 * always describes one routing.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include "ibflow_osm.h"

static void mark(ibf_osm_t *p)
{
	p->metrics.dirty = true;
	pthread_cond_signal(&p->cond);
}

/* The first engine of OpenSM's routing_engine list, "" if none. */
static void requested_engine(ibf_osm_t *p, char *buf, size_t len)
{
	const char *names = p->osm->subn.opt.routing_engine_names;
	size_t n;

	buf[0] = '\0';
	if (!names)
		return;
	names += strspn(names, " \t,");
	n = strcspn(names, " \t,");
	if (n >= len)
		n = len - 1;
	memcpy(buf, names, n);
	buf[n] = '\0';
}

/* The degraded-tree figures of an ibflow engine's routing. */
static void tree_state(ibf_prom_routing_t *m, const ibf_routing_t *r)
{
	m->unrouted_entries = (double)r->unrouted;
	if (!r->pgft_shape)
		return;
	m->missing_hosts = (double)ibf_routing_report_int(r, "missing_hosts");
	m->missing_switches = (double)ibf_routing_report_int(
		r, "missing_switches");
	m->missing_links = (double)ibf_routing_report_int(r, "missing_links");
	m->degraded = m->missing_hosts || m->missing_switches ||
		      m->missing_links;
}

void ibf_osm_metrics_routing(ibf_osm_t *p, const char *engine,
			     const ibf_osm_result_t *res)
{
	ibf_osm_metrics_t *x = &p->metrics;
	ibf_prom_routing_t keep;
	char req[32];

	requested_engine(p, req, sizeof(req));
	pthread_mutex_lock(&p->lock);
	keep = x->m;
	ibf_prom_routing_init(&x->m);
	x->m.routings_total = (isnan(keep.routings_total) ? 0 :
			       keep.routings_total) + 1;
	x->m.fallbacks_total = isnan(keep.fallbacks_total) ? 0 :
			       keep.fallbacks_total;
	x->m.export_failures_total = isnan(keep.export_failures_total) ? 0 :
				     keep.export_failures_total;
	snprintf(x->engine, sizeof(x->engine), "%s", engine);
	snprintf(x->requested, sizeof(x->requested), "%s", req);
	x->m.engine = x->engine;
	x->m.requested = req[0] ? x->requested : NULL;
	if (req[0] && strcmp(req, engine)) {
		/* OpenSM went down its list: say why if the plugin knows */
		if (!strcmp(p->refused, req))
			snprintf(x->reason, sizeof(x->reason), "%s",
				 p->refusal);
		else
			snprintf(x->reason, sizeof(x->reason), "%s refused "
				 "the fabric", req);
		x->m.fallback_reason = x->reason;
		x->m.fallbacks_total++;
	}
	p->refused[0] = '\0';
	x->m.timestamp = (double)time(NULL);
	x->seq = res ? res->seq : 0;
	if (res) {
		x->m.sequence = (double)res->seq;
		x->m.endpoints = res->fabric->nendpoints;
		x->m.switches = res->fabric->nswitches;
		if (res->routing) {
			x->m.route_seconds = p->route_seconds;
			x->m.vls = res->routing->nsls;
			tree_state(&x->m, res->routing);
		}
	}
	mark(p);
	pthread_mutex_unlock(&p->lock);
}

/* Entries of res's tables that differ from prev's, switches matched by
 * GUID; a switch or LID prev did not have counts as changed where res
 * routes it. */
static uint64_t lft_changes(const ibf_osm_result_t *prev,
			    const ibf_osm_result_t *res)
{
	const ibf_fabric_t *f = res->fabric, *g = prev->fabric;
	const ibf_lfts_t *a = res->routing ? res->routing->lfts : res->lfts;
	const ibf_lfts_t *b = prev->routing ? prev->routing->lfts :
			      prev->lfts;
	uint64_t n = 0;
	uint32_t s, lid;

	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t o = ibf_fabric_node_by_guid(
			g, ibf_node(f, f->switches[s])->guid);
		uint32_t t = o == IBF_NO_ID ? UINT32_MAX : g->switch_index[o];

		for (lid = 1; lid <= f->lid_top; lid++) {
			uint8_t now = ibf_lfts_get(a, s, lid);

			if (t == UINT32_MAX)
				n += now != IBF_LFT_NO_PORT;
			else
				n += now != ibf_lfts_get(b, t, lid);
		}
	}
	return n;
}

void ibf_osm_metrics_lft_changes(ibf_osm_t *p, const ibf_osm_result_t *prev,
				 const ibf_osm_result_t *res)
{
	double n = prev ? (double)lft_changes(prev, res) : NAN;

	pthread_mutex_lock(&p->lock);
	if (p->metrics.seq == res->seq) {
		p->metrics.m.lft_changed = n;
		mark(p);
	}
	pthread_mutex_unlock(&p->lock);
}

void ibf_osm_metrics_export(ibf_osm_t *p, const ibf_osm_result_t *res,
			    bool ok)
{
	pthread_mutex_lock(&p->lock);
	if (!ok)
		p->metrics.m.export_failures_total =
			(isnan(p->metrics.m.export_failures_total) ? 0 :
			 p->metrics.m.export_failures_total) + 1;
	if (p->metrics.seq == res->seq)
		p->metrics.m.export_ok = ok;
	mark(p);
	pthread_mutex_unlock(&p->lock);
}

void ibf_osm_metrics_eval(ibf_osm_t *p, const ibf_osm_result_t *res,
			  const char *const *names,
			  const ibf_prom_pattern_t *pats, unsigned n,
			  unsigned skipped, double seconds)
{
	ibf_osm_metrics_t *x = &p->metrics;
	unsigned i;

	pthread_mutex_lock(&p->lock);
	if (x->seq == res->seq) {
		for (i = 0; i < n && i < IBF_OSM_MAX_PATTERNS; i++) {
			snprintf(x->pat_names[i], sizeof(x->pat_names[i]),
				 "%s", names[i]);
			x->pats[i] = pats[i];
			x->pats[i].name = x->pat_names[i];
		}
		x->m.patterns = x->pats;
		x->m.npatterns = i;
		x->m.patterns_skipped = skipped;
		x->m.eval_seconds = seconds;
		mark(p);
	}
	pthread_mutex_unlock(&p->lock);
}

void ibf_osm_metrics_deadlock(ibf_osm_t *p, const ibf_osm_result_t *res,
			      bool free_, unsigned vls)
{
	pthread_mutex_lock(&p->lock);
	if (p->metrics.seq == res->seq) {
		p->metrics.m.deadlock_free = free_;
		p->metrics.m.vls = vls;
		mark(p);
	}
	pthread_mutex_unlock(&p->lock);
}

static ibf_status_t put(const void *ctx, FILE *fp, ibf_err_t *err)
{
	return ibf_prom_routing_write(ctx, 1, fp, err);
}

void ibf_osm_metrics_flush(ibf_osm_t *p, const ibf_osm_conf_t *c)
{
	ibf_osm_metrics_t snap;
	ibf_err_t err;
	unsigned i;

	pthread_mutex_lock(&p->lock);
	if (!p->metrics.dirty || !p->metrics.m.engine) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	p->metrics.dirty = false;
	snap = p->metrics;
	pthread_mutex_unlock(&p->lock);
	if (!c->metrics_file[0])
		return;
	/* the copy's strings must point into the copy */
	snap.m.engine = snap.engine;
	snap.m.requested = snap.m.requested ? snap.requested : NULL;
	snap.m.fallback_reason = snap.m.fallback_reason ? snap.reason : NULL;
	snap.m.patterns = snap.pats;
	for (i = 0; i < snap.m.npatterns; i++)
		snap.pats[i].name = snap.pat_names[i];
	ibf_err_clear(&err);
	if (ibf_prom_write_file(c->metrics_file, put, &snap.m, &err) !=
	    IBF_OK)
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF14: metrics_file: %s",
			     err.msg);
	else
		ibf_osm_logf(p, OSM_LOG_INFO, "metrics of %s routing %llu "
			     "written to %s", snap.engine,
			     (unsigned long long)snap.seq, c->metrics_file);
}
