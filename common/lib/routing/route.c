/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The routing framework: engine table, defaults, and the validation every
 * result passes before a caller sees it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <ibflow/io.h>
#include <ibflow/pgft.h>

#include "routing/route_internal.h"

static const ibf_route_engine_t *const engines[] = {
	&ibf_route_engine_minhop,
	&ibf_route_engine_dmodk,
	&ibf_route_engine_uapr,
	&ibf_route_engine_layered,
	&ibf_route_engine_swisst1,
};

#define NENGINES (sizeof(engines) / sizeof(engines[0]))

/* The engines live in their own files, so the NULL-terminated copy the
 * header promises is filled once at first use. */
static ibf_route_engine_t engine_table[NENGINES + 1];
static pthread_once_t engine_table_once = PTHREAD_ONCE_INIT;

static void fill_engine_table(void)
{
	size_t i;

	for (i = 0; i < NENGINES; i++)
		engine_table[i] = *engines[i];
}

const ibf_route_engine_t *ibf_route_engines(void)
{
	pthread_once(&engine_table_once, fill_engine_table);
	return engine_table;
}

const ibf_route_engine_t *ibf_route_engine_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < NENGINES; i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

bool ibf_route_engine_can(const char *name, unsigned caps)
{
	const ibf_route_engine_t *e = ibf_route_engine_find(name);

	return e && (e->caps & caps) == caps;
}

size_t ibf_route_engine_names(unsigned caps, const char *sep,
			      const char *last, char *buf, size_t size)
{
	size_t i, n = 0, len = 0, k = 0;
	int w;

	for (i = 0; i < NENGINES; i++)
		n += (engines[i]->caps & caps) == caps;
	if (size)
		buf[0] = '\0';
	for (i = 0; i < NENGINES; i++) {
		if ((engines[i]->caps & caps) != caps)
			continue;
		w = snprintf(buf + (len < size ? len : size),
			     len < size ? size - len : 0, "%s%s",
			     !k ? "" : k + 1 == n ? last : sep,
			     engines[i]->name);
		len += w > 0 ? (size_t)w : 0;
		k++;
	}
	return len;
}

bool ibf_route_lid_target(const ibf_fabric_t *f, unsigned lid,
			  uint32_t *sw, unsigned *port)
{
	ibf_port_id_t p = ibf_fabric_lid_owner(f, lid);
	ibf_port_id_t peer;

	if (lid == 0 || p == IBF_NO_ID)
		return false;
	if (ibf_node_is_switch(f, f->ports[p].node)) {
		*sw = f->switch_index[f->ports[p].node];
		*port = 0;
		return true;
	}
	peer = f->ports[p].peer;
	if (peer == IBF_NO_ID || !ibf_node_is_switch(f, f->ports[peer].node))
		return false;
	*sw = f->switch_index[f->ports[peer].node];
	*port = f->ports[peer].num;
	return true;
}

void ibf_routing_destroy(ibf_routing_t *r)
{
	if (!r)
		return;
	ibf_lfts_destroy(r->lfts);
	free(r->order);
	free(r->sl_by_dlid);
	free(r->sl_by_pair);
	free(r->pgft_shape);
	ibf_pgft_memory_destroy(r->pgft_memory);
	ibf_route_report_set(r, NULL);
	free(r);
}

/* ---- validation ------------------------------------------------------- */

static ibf_status_t validate_entry(const ibf_fabric_t *f, uint32_t s,
				   unsigned lid, unsigned want0, uint8_t e,
				   uint64_t *unrouted, ibf_err_t *err)
{
	ibf_node_id_t n = f->switches[s];

	if (e == IBF_LFT_NO_PORT && !want0 && *unrouted) {
		--*unrouted;
		return IBF_OK;
	}
	/* Called for every table entry: the switch's name is looked up only
	 * for the message of a bad one. */
	if (e == IBF_LFT_NO_PORT)
		return ibf_err_set(err, IBF_ERR_INVALID, "switch \"%s\" has "
				   "no entry for LID %u", ibf_node_desc(f, n),
				   lid);
	if (want0 && e != 0)
		return ibf_err_set(err, IBF_ERR_INVALID, "switch \"%s\" sends "
				   "its own LID %u to port %u, not 0",
				   ibf_node_desc(f, n), lid, e);
	if (want0)
		return IBF_OK;
	if (e == 0 || e > f->nodes[n].nports ||
	    ibf_node_port(f, n, e)->peer == IBF_NO_ID)
		return ibf_err_set(err, IBF_ERR_INVALID, "switch \"%s\" sends "
				   "LID %u to port %u, which has no link",
				   ibf_node_desc(f, n), lid, e);
	return IBF_OK;
}

static ibf_status_t validate_lfts(const ibf_routing_t *r, ibf_err_t *err)
{
	const ibf_fabric_t *f = r->fabric;
	const ibf_lfts_t *l = r->lfts;
	uint32_t s, lid, *owner_of;
	ibf_status_t st = IBF_OK;
	uint64_t unrouted = r->unrouted;
	unsigned port;

	if (!l || l->fabric != f || l->nswitches != f->nswitches)
		return ibf_err_set(err, IBF_ERR_INVALID, "no forwarding tables "
				   "for this fabric");
	for (s = 0; s < f->nswitches; s++)
		if (!l->has_table[s])
			return ibf_err_set(err, IBF_ERR_INVALID, "switch \"%s\" "
					   "has no table", ibf_node_desc(f,
					   f->switches[s]));
	/* Which switch owns each LID (its own LID -> port 0), resolved once;
	 * then each switch's row is walked in memory order. */
	owner_of = malloc(((size_t)f->lid_top + 1) * sizeof(*owner_of));
	if (!owner_of)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (lid = 0; lid <= f->lid_top; lid++) {
		uint32_t owner;

		if (lid == 0 || !ibf_route_lid_target(f, lid, &owner, &port))
			owner_of[lid] = IBF_NO_ID - 1; /* not a target */
		else
			owner_of[lid] = port ? IBF_NO_ID : owner;
	}
	for (s = 0; s < f->nswitches && st == IBF_OK; s++)
		for (lid = 1; lid <= f->lid_top && st == IBF_OK; lid++)
			if (owner_of[lid] != IBF_NO_ID - 1)
				st = validate_entry(f, s, lid,
						    owner_of[lid] == s,
						    ibf_lfts_get(l, s, lid),
						    &unrouted, err);
	free(owner_of);
	if (st == IBF_OK && unrouted)
		st = ibf_err_set(err, IBF_ERR_INVALID, "%llu entries said to "
				 "be unrouted are routed",
				 (unsigned long long)r->unrouted);
	return st;
}

static ibf_status_t validate_order(const ibf_routing_t *r, ibf_err_t *err)
{
	const ibf_fabric_t *f = r->fabric;
	uint8_t *seen;
	uint32_t i, e;

	if (!r->order || r->norder != f->nendpoints)
		return ibf_err_set(err, IBF_ERR_INVALID, "host order has %u "
				   "entries, the fabric %u endpoints",
				   r->order ? r->norder : 0, f->nendpoints);
	seen = calloc(f->nendpoints ? f->nendpoints : 1, 1);
	if (!seen)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < r->norder; i++) {
		ibf_port_id_t p = r->order[i];

		e = p < f->nports ? f->endpoint_index[p] : UINT32_MAX;
		if (e >= f->nendpoints || f->endpoints[e] != p || seen[e]) {
			free(seen);
			return ibf_err_set(err, IBF_ERR_INVALID, "host order "
					   "entry %u is not an endpoint or "
					   "repeats one", i);
		}
		seen[e] = 1;
	}
	free(seen);
	return IBF_OK;
}

static ibf_status_t validate_sls(const ibf_routing_t *r, ibf_err_t *err)
{
	size_t n = 0, i;
	const uint8_t *a = NULL;
	unsigned max = 0;

	if (r->sl_by_pair) {
		a = r->sl_by_pair;
		n = (size_t)r->fabric->nendpoints * (r->fabric->lid_top + 1);
	} else if (r->sl_by_dlid) {
		a = r->sl_by_dlid;
		n = (size_t)r->fabric->lid_top + 1;
	}
	for (i = 0; i < n; i++)
		if (a[i] > max)
			max = a[i];
	if (max > 15 || max >= r->nsls || r->nsls > 16)
		return ibf_err_set(err, IBF_ERR_INVALID, "SL %u in use but "
				   "%u SLs declared (at most 16)", max,
				   r->nsls);
	return IBF_OK;
}

ibf_status_t ibf_routing_validate(const ibf_routing_t *r, ibf_err_t *err)
{
	ibf_status_t st;

	if (!r || !r->fabric)
		return ibf_err_set(err, IBF_ERR_INVALID, "no routing");
	st = validate_lfts(r, err);
	if (st == IBF_OK)
		st = validate_order(r, err);
	if (st == IBF_OK)
		st = validate_sls(r, err);
	return st;
}

/* ---- running an engine ------------------------------------------------- */

static ibf_status_t fill_defaults(ibf_routing_t *r, ibf_err_t *err)
{
	const ibf_fabric_t *f = r->fabric;

	if (!r->order) {
		/* Topological order: the fabric's endpoint order, which is
		 * the generators' host numbering. */
		r->order = malloc(sizeof(*r->order) *
				  (f->nendpoints ? f->nendpoints : 1));
		if (!r->order)
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
		memcpy(r->order, f->endpoints,
		       sizeof(*r->order) * f->nendpoints);
		r->norder = f->nendpoints;
	}
	if (!r->nsls)
		r->nsls = 1;
	return IBF_OK;
}

static void prefix_engine(ibf_err_t *err, const char *name)
{
	size_t n = strlen(name);

	if (!err)
		return;
	if (!err->msg[0])
		snprintf(err->msg, sizeof(err->msg), "%s",
			 ibf_status_str(err->status));
	if (strncmp(err->msg, name, n) || strncmp(err->msg + n, ": ", 2))
		ibf_err_prefix(err, "%s: ", name);
}

ibf_status_t ibf_route(const ibf_fabric_t *f, const char *engine,
		       const ibf_route_opts_t *o, ibf_routing_t **out,
		       ibf_err_t *err)
{
	static const ibf_route_opts_t defaults;
	const ibf_route_engine_t *e = ibf_route_engine_find(engine);
	ibf_routing_t *r;
	ibf_status_t st;
	char names[128];

	*out = NULL;
	if (!e) {
		ibf_route_engine_names(0, ", ", " or ", names, sizeof(names));
		return ibf_err_set(err, IBF_ERR_NOT_FOUND, "unknown routing "
				   "engine '%s' (one of %s)",
				   engine ? engine : "", names);
	}
	if (!f || !f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID, "%s: fabric not "
				   "finalized", e->name);
	r = calloc(1, sizeof(*r));
	if (!r)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	r->fabric = f;
	snprintf(r->engine, sizeof(r->engine), "%s", e->name);
	st = ibf_lfts_create(f, &r->lfts);
	if (st != IBF_OK) {
		ibf_err_set(err, st, "out of memory");
	} else {
		ibf_err_clear(err);
		st = e->run(f, o ? o : &defaults, r, err);
		if (st == IBF_OK)
			st = fill_defaults(r, err);
		if (st == IBF_OK)
			st = ibf_routing_validate(r, err);
	}
	if (st != IBF_OK) {
		if (err && err->status == IBF_OK)
			err->status = st;
		prefix_engine(err, e->name);
		ibf_routing_destroy(r);
		return st;
	}
	*out = r;
	return IBF_OK;
}

int64_t ibf_routing_report_int(const ibf_routing_t *r, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(ibf_route_report_json(r), key, &v))
		return 0;
	return json_object_get_int64(v);
}

const char *ibf_routing_report_str(const ibf_routing_t *r, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(ibf_route_report_json(r), key, &v))
		return NULL;
	return json_object_get_string(v);
}

/* ---- report ------------------------------------------------------------ */

static struct json_object *fabric_json(const ibf_fabric_t *f)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "endpoints",
			       json_object_new_int64(f->nendpoints));
	json_object_object_add(o, "switches",
			       json_object_new_int64(f->nswitches));
	json_object_object_add(o, "lmc", json_object_new_int(f->lmc));
	json_object_object_add(o, "lid_top", json_object_new_int64(f->lid_top));
	return o;
}

ibf_status_t ibf_routing_write_report(const ibf_routing_t *r, double seconds,
				      FILE *fp, ibf_err_t *err)
{
	struct json_object *o = json_object_new_object();
	json_object *findings = ibf_route_report_json(r);
	int rc;

	if (!o)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	json_object_object_add(o, "engine", json_object_new_string(r->engine));
	json_object_object_add(o, "fabric", fabric_json(r->fabric));
	json_object_object_add(o, "route_seconds",
			       json_object_new_double(seconds));
	json_object_object_add(o, "sls", json_object_new_int((int)r->nsls));
	json_object_object_add(o, "report", findings ?
			       json_object_get(findings) : NULL);
	rc = fprintf(fp, "%s\n", json_object_to_json_string_ext(o,
		     JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	if (rc < 0 || ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}
