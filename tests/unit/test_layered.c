/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The layered engine (FatPaths), its layers and the path diversity metrics.
 *
 * Everything is checked against values the test computes itself: the
 * all-pairs route check (trace.h), BFS distances over the fabric's switch
 * links (layer 0 minimal), per-layer BFS over the layer's links (every
 * layer-i route is a shortest path of layer i, hence only uses its links),
 * a channel dependency graph per VL built from every (source, DLID) route
 * and tested for cycles with Kahn's algorithm, and hand-computed
 * diversity on a 4-switch graph.  Node order: the fabric written as an
 * ibnetdiscover file, its node blocks shuffled by the test and read back,
 * routes to the same (switch NodeGUID, LID) -> port entries and SLs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include <ibflow/diversity.h>
#include <ibflow/gen.h>
#include <ibflow/route.h>
#include <ibflow/check.h>
#include <ibflow/topo_io.h>
#include <ibflow/trace.h>

#include <stdio.h>
#include <unistd.h>

#include "test_util.h"

#include "routing/layers.h"
#include "routing/route_internal.h"

/* ---- helpers ------------------------------------------------------------ */

static ibf_status_t route(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			  ibf_routing_t *r, ibf_err_t *err)
{
	memset(r, 0, sizeof(*r));
	r->fabric = f;
	assert_int_equal(ibf_lfts_create(f, &r->lfts), IBF_OK);
	return ibf_route_engine_layered.run(f, o, r, err);
}

static void routing_free(ibf_routing_t *r)
{
	ibf_lfts_destroy(r->lfts);
	free(r->sl_by_dlid);
	free(r->sl_by_pair);
	free(r->order);
	ibf_route_report_set(r, NULL);
}

static ibf_route_opts_t opts(unsigned n, ibf_layer_method_t m, uint64_t seed)
{
	ibf_route_opts_t o;

	memset(&o, 0, sizeof(o));
	o.layers = n;
	o.method = m;
	o.seed = seed;
	o.vls = 8; /* whole layers, SL = VL (budget_opts: one VL) */
	return o;
}

/* The default: one VL, every packet on SL 0. */
static ibf_route_opts_t budget_opts(unsigned n, uint64_t seed)
{
	ibf_route_opts_t o = opts(n, IBF_LAYERS_RANDOM, seed);

	o.vls = 1;
	return o;
}

static int64_t report_int(const ibf_routing_t *r, const char *key)
{
	json_object *v;

	assert_non_null(r->report);
	assert_true(json_object_object_get_ex(ibf_route_report_json(r), key,
					      &v));
	return json_object_get_int64(v);
}

/* Switch-level BFS over the fabric's own ports (no layers.h): hop
 * distances from switch index src over links with ok(port id). */
static void bfs(const ibf_fabric_t *f, uint32_t src, const uint8_t *port_ok,
		uint32_t *dist, uint32_t *queue)
{
	uint32_t h = 0, t = 0, i;
	unsigned p;

	for (i = 0; i < f->nswitches; i++)
		dist[i] = UINT32_MAX;
	dist[src] = 0;
	queue[t++] = src;
	while (h < t) {
		uint32_t u = queue[h++];
		ibf_node_id_t n = f->switches[u];

		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t pid = ibf_node_port_id(f, n, p);
			ibf_port_id_t q = f->ports[pid].peer;
			uint32_t v;

			if (q == IBF_NO_ID ||
			    !ibf_node_is_switch(f, f->ports[q].node) ||
			    (port_ok && !port_ok[pid]))
				continue;
			v = f->switch_index[f->ports[q].node];
			if (dist[v] == UINT32_MAX) {
				dist[v] = dist[u] + 1;
				queue[t++] = v;
			}
		}
	}
}

/* Per layer, which switch ports carry one of the layer's links. */
static uint8_t *layer_ports(const ibf_fabric_t *f, const ibf_rgraph_t *g,
			    const ibf_layers_t *ly, unsigned i)
{
	uint8_t *ok = calloc(f->nports, 1);
	const uint8_t *m = ibf_layer_mask(ly, i);
	uint32_t e;

	assert_non_null(ok);
	for (e = 0; e < g->nedges; e++)
		if (m[e]) {
			ok[ibf_node_port_id(f, f->switches[g->ea[e]],
					    g->pa[e])] = 1;
			ok[ibf_node_port_id(f, f->switches[g->eb[e]],
					    g->pb[e])] = 1;
		}
	return ok;
}

/* Follow dlid from switch index s; switch-switch hops, every egress port
 * must satisfy ok (may be NULL).  -1 on a broken route or a link outside
 * ok. */
static int walk(const ibf_routing_t *r, uint32_t s, unsigned dlid,
		const uint8_t *ok, const uint32_t *rank)
{
	const ibf_fabric_t *f = r->fabric;
	int hops = 0, gone_down = 0;

	for (;;) {
		unsigned p = ibf_lfts_get(r->lfts, s, dlid);
		ibf_port_id_t pid, q;

		if (p == 0 || p == IBF_LFT_NO_PORT)
			return -1;
		pid = ibf_node_port_id(f, f->switches[s], p);
		q = f->ports[pid].peer;
		if (q == IBF_NO_ID)
			return -1;
		if (!ibf_node_is_switch(f, f->ports[q].node))
			return ibf_fabric_lid_owner(f, dlid) == q ? hops : -1;
		if (ok && !ok[pid])
			return -1;
		if (++hops > (int)f->nswitches)
			return -1;
		if (rank) { /* up (lower rank) after down: illegal */
			uint32_t y = f->switch_index[f->ports[q].node];

			if (rank[y] > rank[s])
				gone_down = 1;
			else if (gone_down)
				return -2;
		}
		s = f->switch_index[f->ports[q].node];
	}
}

static uint32_t host_switch(const ibf_fabric_t *f, ibf_port_id_t ep)
{
	return f->switch_index[f->ports[f->ports[ep].peer].node];
}

/* Layer 0 (LID offsets o, o mod n == 0): every route from every switch is
 * as long as the BFS distance over all links.  Layers i > 0: every route
 * only uses the layer's links, is up* then down* in the layer's order,
 * and is at least as long as the BFS distance inside the layer. */
static void check_layers(const ibf_routing_t *r, const ibf_route_opts_t *o)
{
	const ibf_fabric_t *f = r->fabric;
	ibf_layers_opts_t lo = { o->layers, o->density ? o->density :
				 IBF_LAYERS_DEFAULT_DENSITY, o->method,
				 o->seed };
	uint32_t *dist = malloc(f->nswitches * sizeof(*dist));
	uint32_t *queue = malloc(f->nswitches * sizeof(*queue));
	ibf_rgraph_t g;
	ibf_layers_t ly;
	ibf_err_t err;
	unsigned i, off;
	uint32_t t, s, k;

	assert_int_equal(ibf_rgraph_build(f, &g, &err), IBF_OK);
	assert_int_equal(ibf_layers_build(&g, &lo, &ly, &err), IBF_OK);
	for (i = 0; i < o->layers; i++) {
		uint8_t *ok = i ? layer_ports(f, &g, &ly, i) : NULL;

		for (t = 0; t < f->nswitches; t++) {
			bfs(f, t, ok, dist, queue);
			for (k = 0; k < f->nendpoints; k++) {
				ibf_port_id_t ep = f->endpoints[k];

				if (host_switch(f, ep) != t)
					continue;
				for (off = i; off < (1u << f->lmc);
				     off += o->layers)
					for (s = 0; s < f->nswitches; s++) {
						int h = walk(r, s,
							f->ports[ep].lid + off,
							ok, i ? ibf_layer_rank(
							&ly, i, g.n) : NULL);

						if (!i)
							assert_int_equal(h,
								dist[s]);
						else
							assert_true(h >= 0 &&
							(uint32_t)h >= dist[s]);
					}
			}
		}
		free(ok);
	}
	ibf_layers_free(&ly);
	ibf_rgraph_free(&g);
	free(dist);
	free(queue);
}

/* Independent deadlock check: channels are egress port ids; every (source
 * endpoint, endpoint DLID) route adds its consecutive channel pairs to
 * the CDG of its SL (= VL); each CDG must be acyclic (Kahn). */
static void check_deadlock(const ibf_routing_t *r)
{
	const ibf_fabric_t *f = r->fabric;
	uint32_t nch = f->nports, s, k, c;
	unsigned vl, dlid;
	uint8_t *adj;
	uint32_t *indeg = calloc(nch, sizeof(*indeg));
	uint32_t *queue = malloc(nch * sizeof(*queue));
	ibf_port_id_t hops[64];

	assert_true(r->nsls >= 1 && r->nsls <= 8);
	adj = calloc((size_t)r->nsls * nch * nch / 8 + 1, 1);
	assert_non_null(adj);
#define ADJ(v, a, b) adj[(((size_t)(v) * nch + (a)) * nch + (b)) / 8]
#define BIT(v, a, b) (1u << ((((size_t)(v) * nch + (a)) * nch + (b)) % 8))
	for (s = 0; s < f->nendpoints; s++)
		for (dlid = 1; dlid <= f->lid_top; dlid++) {
			ibf_port_id_t own = ibf_fabric_lid_owner(f, dlid);
			unsigned nh = 0, h;

			if (own == IBF_NO_ID || own == f->endpoints[s] ||
			    f->ports[own].peer == IBF_NO_ID ||
			    ibf_node_is_switch(f, f->ports[own].node))
				continue;
			assert_int_equal(ibf_trace(r->lfts, f->endpoints[s],
						   dlid, hops, 64, &nh),
					 IBF_TRACE_OK);
			vl = ibf_routing_sl(r, f->endpoints[s], dlid);
			assert_true(vl < r->nsls);
			for (h = 0; h + 1 < nh; h++)
				ADJ(vl, hops[h], hops[h + 1]) |=
					BIT(vl, hops[h], hops[h + 1]);
		}
	for (vl = 0; vl < r->nsls; vl++) {
		uint32_t head = 0, tail = 0;

		memset(indeg, 0, nch * sizeof(*indeg));
		for (c = 0; c < nch; c++)
			for (k = 0; k < nch; k++)
				if (ADJ(vl, c, k) & BIT(vl, c, k))
					indeg[k]++;
		for (c = 0; c < nch; c++)
			if (!indeg[c])
				queue[tail++] = c;
		while (head < tail) {
			c = queue[head++];
			for (k = 0; k < nch; k++)
				if ((ADJ(vl, c, k) & BIT(vl, c, k)) &&
				    !--indeg[k])
					queue[tail++] = k;
		}
		if (tail != nch)
			fail_msg("VL %u: channel dependency cycle", vl);
	}
#undef ADJ
#undef BIT
	free(adj);
	free(indeg);
	free(queue);
}

/* Route, and `check` finds every table complete: the LID offsets
 * routed. */
static unsigned route_complete(const ibf_fabric_t *f,
			       const ibf_route_opts_t *o, ibf_routing_t *r,
			       const char *spec)
{
	ibf_check_opts_t co = IBF_CHECK_OPTS_DEFAULT;
	ibf_check_report_t rep;
	ibf_err_t err;
	unsigned n;

	if (route(f, o, r, &err))
		fail_msg("%s: %s", spec, err.msg);
	co.switches = true;
	assert_int_equal(ibf_check_run(r->lfts, &co, &rep, &err), IBF_OK);
	if (ibf_check_defects(&rep))
		fail_msg("%s: %llu defects", spec,
			 (unsigned long long)ibf_check_defects(&rep));
	n = rep.noffsets;
	ibf_check_report_free(&rep);
	return n;
}

static void check_all(const char *spec, ibf_layer_method_t m)
{
	ibf_fabric_t *f = tu_gen(spec, 2);
	ibf_route_opts_t o = opts(4, m, 42);
	ibf_routing_t r;

	assert_int_equal(route_complete(f, &o, &r, spec), 4);
	assert_int_equal(report_int(&r, "fallback_pairs"), 0);
	assert_int_equal(report_int(&r, "vls_used"), r.nsls);
	check_layers(&r, &o);
	check_deadlock(&r);
	routing_free(&r);
	ibf_fabric_destroy(f);
}

/* With the default budget of one VL: every route on SL 0, tables
 * complete, the one CDG acyclic (the test's own Kahn check), also where
 * whole layers need more than 8 VLs (dragonfly:4,2,3) and where switches
 * have more switch links than the escape tree takes children of one
 * (slimfly:7, hyperx:2:6:1: 10); and with a budget of 2 VLs no SL
 * beyond 1. */
static void check_budget(const char *spec, unsigned vls)
{
	ibf_fabric_t *f = tu_gen(spec, 2);
	ibf_route_opts_t o = budget_opts(4, 42);
	ibf_routing_t r;
	unsigned dlid;

	o.vls = vls;
	route_complete(f, &o, &r, spec);
	assert_true(r.nsls >= 1 && r.nsls <= vls);
	for (dlid = 1; dlid <= f->lid_top; dlid++)
		assert_true(!r.sl_by_dlid || r.sl_by_dlid[dlid] < vls);
	assert_int_equal(report_int(&r, "vl_budget"), vls);
	check_deadlock(&r);
	routing_free(&r);
	ibf_fabric_destroy(f);
}

static void test_budget(void **state)
{
	static const char *const cases[] = {
		"slimfly:5", "dragonfly:4,2,2", "dragonfly:4,2,3",
		"hyperx:2:4:1", "jellyfish:16,4,2:7", "xgft:2:4,4:1,4",
		"slimfly:7", "hyperx:2:6:1",
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_budget(cases[i], 1);
	check_budget("dragonfly:4,2,3", 2);
}

/* ---- HyperX: dimensions and dimension-order routes ---------------------- */

/* The generator's coordinates of switch s: its name "hx-a-b-..." */
static unsigned hx_coords(const ibf_fabric_t *f, uint32_t s, unsigned *c)
{
	const char *p = ibf_node_desc(f, f->switches[s]);
	unsigned n = 0;

	assert_true(p && strncmp(p, "hx-", 3) == 0);
	for (p += 3; *p && n < 8; n++) {
		char *end;

		c[n] = (unsigned)strtoul(p, &end, 10);
		assert_true(end != p);
		p = *end == '-' ? end + 1 : end;
	}
	return n;
}

/* The one coordinate in which switches a and b differ (-1 if not one). */
static int hx_dim(const ibf_fabric_t *f, uint32_t a, uint32_t b)
{
	unsigned ca[8], cb[8], n = hx_coords(f, a, ca), i;
	int d = -1;

	assert_int_equal(hx_coords(f, b, cb), n);
	for (i = 0; i < n; i++)
		if (ca[i] != cb[i]) {
			if (d >= 0)
				return -1;
			d = (int)i;
		}
	return d;
}

/* ibf_rgraph_hamming on the switches of spec: its result and *nd; with
 * names, every link's dimension is the coordinate in which the names of
 * its ends differ (the dimensions numbered in some order of their own,
 * the same for every link). */
static int hamming_of(const char *spec, unsigned *nd, bool names)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	unsigned map[8];
	ibf_rgraph_t g;
	ibf_err_t err;
	uint8_t *dim;
	uint32_t e;
	int rc;

	assert_int_equal(ibf_rgraph_build(f, &g, &err), IBF_OK);
	dim = malloc(g.nedges);
	assert_non_null(dim);
	rc = ibf_rgraph_hamming(&g, dim, nd);
	memset(map, 0xff, sizeof(map));
	for (e = 0; rc == 1 && names && e < g.nedges; e++) {
		int d = hx_dim(f, g.ea[e], g.eb[e]);

		assert_true(d >= 0 && dim[e] < *nd);
		if (map[dim[e]] == UINT32_MAX)
			map[dim[e]] = (unsigned)d;
		assert_int_equal(map[dim[e]], d);
	}
	free(dim);
	ibf_rgraph_free(&g);
	ibf_fabric_destroy(f);
	return rc;
}

/* HyperXes are recognised as Hamming graphs with the generator's
 * dimensions, parallel links and 2 or 3 routers a dimension included;
 * tori of rings of 3 and 4 are ones too (a ring of 3 is a complete
 * graph, a ring of 4 two dimensions of 2); other families and rings of 5
 * are not. */
static void test_hamming(void **state)
{
	static const struct { const char *spec; unsigned dims; } yes[] = {
		{ "hyperx:2:4:1", 2 }, { "hyperx:3:3:2", 3 },
		{ "hyperx:1:5:1", 1 }, { "hyperx:4:2:1", 4 },
		{ "hyperx:2:8:1:2", 2 }, { "torus:3,3,3", 3 },
		{ "torus:4,4,4", 6 }, { "torus:3,4,3", 4 },
	};
	static const char *const no[] = {
		"slimfly:5", "slimfly:7", "dragonfly:4,2,2", "dragonfly:8,2,4",
		"jellyfish:16,4,2:7", "xgft:2:4,4:1,4", "torus:5,5,5",
		"torus:3,3,5",
	};
	unsigned i, nd;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		assert_int_equal(hamming_of(yes[i].spec, &nd,
			strncmp(yes[i].spec, "hyperx", 6) == 0), 1);
		assert_int_equal(nd, yes[i].dims);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(hamming_of(no[i], &nd, false), 0);
}

/* On a HyperX with one VL every base-LID route from every switch changes
 * each coordinate at most once (minimal), and all routes change them in
 * one order of the dimensions (dimension order): "a before b" on one
 * route never meets "b before a" on another.  The CDG check as well. */
static void check_dor(const char *spec)
{
	ibf_fabric_t *f = tu_gen(spec, 2);
	ibf_route_opts_t o = budget_opts(4, 42);
	ibf_routing_t r;
	uint8_t before[8][8];
	uint32_t s, k;

	memset(before, 0, sizeof(before));
	route_complete(f, &o, &r, spec);
	assert_true(report_int(&r, "dimension_order_trees") > 0);
	for (k = 0; k < f->nendpoints; k++) {
		unsigned dlid = f->ports[f->endpoints[k]].lid;

		for (s = 0; s < f->nswitches; s++) {
			unsigned seen = 0, last = 8;
			uint32_t x = s;

			for (;;) {
				unsigned p = ibf_lfts_get(r.lfts, x, dlid);
				ibf_port_id_t q = f->ports[ibf_node_port_id(f,
					f->switches[x], p)].peer;
				uint32_t y;
				int d;

				if (!ibf_node_is_switch(f, f->ports[q].node))
					break;
				y = f->switch_index[f->ports[q].node];
				d = hx_dim(f, x, y);
				assert_true(d >= 0 && !(seen >> d & 1));
				seen |= 1u << d;
				if (last < 8) {
					assert_false(before[d][last]);
					before[last][d] = 1;
				}
				last = (unsigned)d;
				x = y;
			}
		}
	}
	check_deadlock(&r);
	routing_free(&r);
	ibf_fabric_destroy(f);
}

static void test_dor(void **state)
{
	(void)state;
	check_dor("hyperx:2:4:1");
	check_dor("hyperx:3:3:2");
	check_dor("hyperx:2:6:1:3");
}

/* The test's own view of a fabric's switch graph, from its ports (bfs
 * above): every switch with as many switch links, the largest hop
 * distance, and an odd cycle (two linked switches at the same distance
 * from switch 0; the graph is connected). */
struct sw_shape {
	bool regular;
	uint32_t diam;
	bool odd;
};

static unsigned switch_links(const ibf_fabric_t *f, uint32_t s)
{
	ibf_node_id_t n = f->switches[s];
	unsigned p, k = 0;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		ibf_port_id_t q = f->ports[ibf_node_port_id(f, n, p)].peer;

		k += q != IBF_NO_ID && ibf_node_is_switch(f, f->ports[q].node);
	}
	return k;
}

static struct sw_shape shape_of(const ibf_fabric_t *f)
{
	struct sw_shape sh = { true, 0, false };
	uint32_t *dist = malloc(f->nswitches * sizeof(*dist));
	uint32_t *d0 = malloc(f->nswitches * sizeof(*d0));
	uint32_t *queue = malloc(f->nswitches * sizeof(*queue));
	uint32_t s, t;

	assert_true(dist && d0 && queue);
	bfs(f, 0, NULL, d0, queue);
	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t n = f->switches[s];
		unsigned p;

		sh.regular = sh.regular &&
			     switch_links(f, s) == switch_links(f, 0);
		bfs(f, s, NULL, dist, queue);
		for (t = 0; t < f->nswitches; t++)
			if (dist[t] > sh.diam)
				sh.diam = dist[t];
		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t q = f->ports[ibf_node_port_id(f, n, p)].peer;

			if (q != IBF_NO_ID &&
			    ibf_node_is_switch(f, f->ports[q].node) &&
			    d0[f->switch_index[f->ports[q].node]] == d0[s])
				sh.odd = true;
		}
	}
	free(dist), free(d0), free(queue);
	return sh;
}

/* The Slim Fly rule (one VL: layer 0's detours charged, the escape tree
 * capped at 4 children) applies to Slim Flies only.  Every case's shape
 * is checked first, so each "no" is refused for the reason it stands
 * for: a HyperX of two dimensions (parallel links or not) is regular
 * and of diameter 2, so is a two-level fat tree whose leaves have as many
 * up links as its spines down links (but bipartite); another fat tree
 * is of diameter 2 but not regular; Dragonflies and Jellyfishes are
 * regular, of diameter 3 or more.  The verdict is asked of
 * ibf_rgraph_slimfly() and of the routing (its report). */
static void test_slimfly(void **state)
{
	static const struct {
		const char *spec;
		bool hyperx, regular;
		uint32_t diam;
		bool odd, want;
	} cases[] = {
		{ "slimfly:5", false, true, 2, true, true },
		{ "slimfly:7", false, true, 2, true, true },
		{ "hyperx:2:4:1", true, true, 2, true, false },
		{ "hyperx:2:3:2", true, true, 2, true, false },
		{ "xgft:2:8,8:1,8", false, true, 2, false, false },
		{ "xgft:2:4,8:1,4", false, false, 2, false, false },
		{ "dragonfly:4,2,2", false, true, 3, true, false },
		{ "dragonfly:8,2,4", false, true, 3, true, false },
		{ "jellyfish:16,4,2:7", false, true, 3, true, false },
	};
	unsigned i, nd;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ibf_fabric_t *f = tu_gen(cases[i].spec, 0);
		struct sw_shape sh = shape_of(f);
		ibf_route_opts_t o = budget_opts(1, 42);
		ibf_rgraph_t g;
		ibf_routing_t r;
		ibf_err_t err;
		uint32_t *dist, *queue;
		uint8_t *dim;
		int ham;

		if (sh.regular != cases[i].regular ||
		    sh.odd != cases[i].odd ||
		    (cases[i].diam == 3 ? sh.diam < 3 :
					  sh.diam != cases[i].diam))
			fail_msg("%s: regular %d, diameter %u, odd cycle %d",
				 cases[i].spec, sh.regular, sh.diam, sh.odd);
		assert_int_equal(cases[i].want, sh.regular && sh.diam == 2 &&
				 sh.odd && !cases[i].hyperx);
		assert_int_equal(ibf_rgraph_build(f, &g, &err), IBF_OK);
		dim = malloc(g.nedges);
		dist = malloc(g.n * sizeof(*dist));
		queue = malloc(g.n * sizeof(*queue));
		assert_true(dim && dist && queue);
		ham = ibf_rgraph_hamming(&g, dim, &nd);
		assert_int_equal(ham == 1, cases[i].hyperx);
		if (ibf_rgraph_slimfly(&g, ham == 1, dist, queue) !=
		    cases[i].want)
			fail_msg("%s: ibf_rgraph_slimfly is not %d",
				 cases[i].spec, cases[i].want);
		if (route(f, &o, &r, &err))
			fail_msg("%s: %s", cases[i].spec, err.msg);
		assert_int_equal(report_int(&r, "slimfly_rule"),
				 cases[i].want);
		routing_free(&r);
		free(dim), free(dist), free(queue);
		ibf_rgraph_free(&g);
		ibf_fabric_destroy(f);
	}
}

static const char *const specs[] = {
	"slimfly:5", "slimfly:7", "dragonfly:4,2,2", "hyperx:2:4:1",
	"jellyfish:16,4,2:7", "xgft:2:4,4:1,4",
};

static void test_random(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		check_all(specs[i], IBF_LAYERS_RANDOM);
}

static void test_overlap(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		check_all(specs[i], IBF_LAYERS_OVERLAP);
}

/* ---- reproducibility ---------------------------------------------------- */

static void test_seed(void **state)
{
	ibf_fabric_t *f = tu_gen("slimfly:5", 2);
	ibf_routing_t a, b, c;
	ibf_route_opts_t o = opts(4, IBF_LAYERS_RANDOM, 7);
	ibf_err_t err;
	size_t sz;
	unsigned m;

	(void)state;
	for (m = 0; m < 2; m++) {
		o = opts(4, m, 7);
		assert_int_equal(route(f, &o, &a, &err), IBF_OK);
		assert_int_equal(route(f, &o, &b, &err), IBF_OK);
		o.seed = 8;
		assert_int_equal(route(f, &o, &c, &err), IBF_OK);
		sz = (size_t)a.lfts->nswitches * a.lfts->stride;
		assert_memory_equal(a.lfts->port, b.lfts->port, sz);
		assert_memory_equal(a.sl_by_dlid, b.sl_by_dlid,
				    f->lid_top + 1);
		assert_memory_not_equal(a.lfts->port, c.lfts->port, sz);
		routing_free(&a);
		routing_free(&b);
		routing_free(&c);
	}
	ibf_fabric_destroy(f);
}

/* ---- node order does not matter ------------------------------------------ */

/* OpenSM's plugin builds its model in its own node order, ibnetdiscover
 * lists nodes in discovery order: the tables must depend only on GUIDs,
 * cabling and the seed. */

/* f as an ibnetdiscover file at path, its node blocks (blank-line
 * separated, after the header) in an order shuffled with seed. */
static void write_shuffled(const ibf_fabric_t *f, const char *path,
			   uint64_t seed)
{
	char *text = NULL, **blk = NULL;
	size_t len = 0;
	uint32_t nb = 0, cap = 0, *ord, i;
	FILE *mf = open_memstream(&text, &len), *fp;
	char *p, *q;
	ibf_err_t err;
	uint64_t st = seed * 0x9E3779B97F4A7C15ULL + 1;

	assert_non_null(mf);
	assert_int_equal(ibf_topo_write(f, IBF_TOPO_IBNETDISCOVER, mf, &err),
			 IBF_OK);
	assert_int_equal(fclose(mf), 0);
	/* split at "\n\n": block 0 is the header */
	for (p = text; *p; p = q) {
		q = strstr(p, "\n\n");
		q = q ? q + 2 : p + strlen(p);
		if (nb == cap) {
			cap = cap ? 2 * cap : 64;
			blk = realloc(blk, cap * sizeof(*blk));
			assert_non_null(blk);
		}
		blk[nb] = strndup(p, (size_t)(q - p));
		assert_non_null(blk[nb]);
		nb++;
	}
	assert_true(nb > 2);
	ord = malloc(nb * sizeof(*ord));
	assert_non_null(ord);
	for (i = 0; i + 1 < nb; i++)
		ord[i] = i + 1;
	tu_shuffle(ord, nb - 1, &st);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(blk[0], fp);
	for (i = 0; i + 1 < nb; i++) {
		size_t l = strlen(blk[ord[i]]);

		/* every block ends in a blank line, the last one too */
		fputs(blk[ord[i]], fp);
		if (l < 2 || strcmp(blk[ord[i]] + l - 2, "\n\n"))
			fputs(l && blk[ord[i]][l - 1] == '\n' ? "\n" : "\n\n",
			      fp);
	}
	assert_int_equal(fclose(fp), 0);
	for (i = 0; i < nb; i++)
		free(blk[i]);
	free(blk);
	free(ord);
	free(text);
}

/* Entries of a on fa equal those of b on fb, switches matched by
 * NodeGUID; SLs by DLID equal.  Returns the entries compared. */
static uint64_t same_entries(const char *what, const ibf_fabric_t *fa,
			     const ibf_routing_t *a, const ibf_fabric_t *fb,
			     const ibf_routing_t *b)
{
	uint32_t s, lid, diff = 0, fs = 0, fl = 0;
	uint64_t n = 0;

	assert_int_equal(fa->lid_top, fb->lid_top);
	assert_int_equal(fa->nswitches, fb->nswitches);
	for (s = 0; s < fa->nswitches; s++) {
		ibf_node_id_t m = ibf_fabric_node_by_guid(fb,
					fa->nodes[fa->switches[s]].guid);

		assert_int_not_equal(m, IBF_NO_ID);
		for (lid = 1; lid <= fa->lid_top; lid++, n++)
			if (ibf_lfts_get(a->lfts, s, lid) !=
			    ibf_lfts_get(b->lfts, fb->switch_index[m], lid) &&
			    !diff++) {
				fs = s;
				fl = lid;
			}
	}
	if (diff)
		fail_msg("%s: %u entries differ in the shuffled file, first "
			 "switch \"%s\" LID %u", what, diff,
			 ibf_node_desc(fa, fa->switches[fs]), fl);
	for (lid = 1; lid <= fa->lid_top; lid++)
		if (a->sl_by_dlid[lid] != b->sl_by_dlid[lid])
			fail_msg("%s: SL of DLID %u differs", what, lid);
	return n;
}

static void test_node_order(void **state)
{
	static const char *const cases[] = {
		"slimfly:5", "dragonfly:4,2,2", "jellyfish:16,4,2:7",
		"xgft:2:4,4:1,4",
	};
	char path[] = "/tmp/test_layered_orderXXXXXX";
	unsigned i, m, seed;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ibf_fabric_t *f = tu_gen(cases[i], 2);

		for (seed = 1; seed <= 2; seed++) {
			ibf_topo_read_opts_t ro = { IBF_TOPO_AUTO, 2 };
			ibf_fabric_t *g = NULL;
			ibf_err_t err;
			uint32_t n, moved = 0;

			write_shuffled(f, path, seed);
			if (ibf_topo_read(path, &ro, &g, &err) != IBF_OK)
				fail_msg("%s: reading the shuffled file: %s",
					 cases[i], err.msg);
			for (n = 0; n < f->nnodes; n++)
				moved += f->nodes[n].guid != g->nodes[n].guid;
			assert_true(moved > f->nnodes / 2);
			for (m = 0; m < 4; m++) {
				ibf_route_opts_t o = m < 2 ?
					opts(4, m, 3 + seed) :
					budget_opts(4, 3 + seed);
				ibf_routing_t a, b;
				char what[96];
				uint64_t ne;

				assert_int_equal(route(f, &o, &a, &err),
						 IBF_OK);
				if (route(g, &o, &b, &err) != IBF_OK)
					fail_msg("%s shuffled: %s", cases[i],
						 err.msg);
				snprintf(what, sizeof(what), "%s %s seed %u",
					 cases[i], m ? "overlap" : "random",
					 seed);
				ne = same_entries(what, f, &a, g, &b);
				print_message("%s: %llu entries equal\n", what,
					      (unsigned long long)ne);
				routing_free(&a);
				routing_free(&b);
			}
			ibf_fabric_destroy(g);
		}
		ibf_fabric_destroy(f);
	}
	unlink(path);
}

/* ---- refusals ----------------------------------------------------------- */

static void test_refuse(void **state)
{
	ibf_fabric_t *f = tu_gen("slimfly:5", 1);
	ibf_route_opts_t o = opts(4, IBF_LAYERS_RANDOM, 1);
	ibf_routing_t r;
	ibf_err_t err;

	(void)state;
	/* 2^LMC = 2 < 4 layers */
	assert_int_equal(route(f, &o, &r, &err), IBF_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "2^LMC"));
	assert_null(r.sl_by_dlid);
	routing_free(&r);
	o = opts(1, IBF_LAYERS_RANDOM, 1);
	o.vls = 16;
	assert_int_equal(route(f, &o, &r, &err), IBF_ERR_RANGE);
	routing_free(&r);
	ibf_fabric_destroy(f);
}

/* ---- path diversity on a hand graph -------------------------------------
 *
 *   S0 --p1/p2-- S1        switch ports: 1 to the next switch on the
 *   |  \        / |        ring, 2 to the previous one, 3 the chord
 *   |    chord    |        S1-S3, 4 a host.  Host h2 on S2, LMC 2:
 *   S3 --------- S2        four LIDs = four "layers".
 */
struct hand {
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	ibf_node_id_t s[4], h2;
	unsigned lid;
};

static void hand_build(struct hand *h)
{
	ibf_finalize_opts_t fo = { .lmc = 2 };
	ibf_err_t err;
	unsigned i;

	assert_int_equal(ibf_fabric_create(&h->f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_CA, 0, "h2", 1,
					     &h->h2, &err), IBF_OK);
	for (i = 0; i < 4; i++) {
		char name[8] = "s0";

		name[1] = (char)('0' + i);
		assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_SWITCH, 0,
				 name, 4, &h->s[i], &err), IBF_OK);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(ibf_fabric_link(h->f, h->s[i], 1,
				 h->s[(i + 1) % 4], 2, 4, IBF_SPEED_EDR,
				 &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h->f, h->s[1], 3, h->s[3], 3, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h->f, h->s[2], 4, h->h2, 1, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_finalize(h->f, &fo, &err), IBF_OK);
	assert_int_equal(ibf_lfts_create(h->f, &h->l), IBF_OK);
	h->lid = ibf_node_port(h->f, h->h2, 1)->lid;
	for (i = 0; i < 4; i++)
		ibf_lfts_set(h->l, 2, h->lid + i, 4);
}

/* Switch index = i (switches in node order). */
static void set(struct hand *h, unsigned sw, unsigned off, unsigned port)
{
	ibf_lfts_set(h->l, sw, h->lid + off, (uint8_t)port);
}

static void pair_is(struct hand *h, unsigned s, unsigned n,
		    unsigned distinct, unsigned cdp)
{
	unsigned d[4] = { h->lid, h->lid + 1, h->lid + 2, h->lid + 3 };
	unsigned di, cd;

	assert_int_equal(ibf_diversity_pair(h->l, s, d, n, &di, &cd), 0);
	assert_int_equal(di, distinct);
	assert_int_equal(cd, cdp);
}

static void test_diversity_hand(void **state)
{
	struct hand h;
	ibf_diversity_t d;
	unsigned rep[16] = { 0 }, i, di, cd, dl[1];
	ibf_err_t err;

	(void)state;
	hand_build(&h);
	/* S1 and S3 go straight to S2 in every layer */
	for (i = 0; i < 4; i++) {
		set(&h, 1, i, 1);       /* S1 -> S2 */
		set(&h, 3, i, 2);       /* S3 -> S2 */
	}
	/* S0: layer 0 via S1, layer 1 via S3 */
	set(&h, 0, 0, 1);
	set(&h, 0, 1, 2);
	set(&h, 0, 2, 1);
	set(&h, 0, 3, 2);
	pair_is(&h, 0, 1, 1, 1);
	pair_is(&h, 0, 2, 2, 2);  /* S0-S1-S2, S0-S3-S2: disjoint */
	pair_is(&h, 0, 4, 2, 2);  /* the same two, twice */
	pair_is(&h, 1, 4, 1, 1);
	/* layer 2: S1 takes the chord to S3: S0-S1-S3-S2 is a third
	 * distinct path, but S0 has two links: cdp stays 2 */
	set(&h, 1, 2, 3);
	pair_is(&h, 0, 3, 3, 2);
	/* from S1: S1-S2 and S1-S3-S2 are disjoint */
	pair_is(&h, 1, 4, 2, 2);
	/* all pairs toward S2 (the only switch with an endpoint), 4
	 * layers: S0 {S1S2, S3S2, S1S3S2, S3S2} distinct 3, cdp 2;
	 * S1 {S2, S2, S3S2, S2} distinct 2, cdp 2; S3 {S2} x4: 1, 1 */
	for (i = 0; i < 4; i++)
		rep[2 * 4 + i] = h.lid + i;
	assert_int_equal(ibf_diversity_compute(h.l, 4, rep, &d, &err), 0);
	assert_int_equal(d.pairs, 3);
	assert_int_equal(d.broken, 0);
	assert_int_equal(d.distinct_sum, 3 + 2 + 1);
	assert_int_equal(d.cdp_sum, 2 + 2 + 1);
	assert_int_equal(d.cdp_min, 1);
	assert_int_equal(d.pairs_cdp_ge3, 0);
	assert_int_equal(d.cdp_hist[2], 2);
	/* opposite directions on the chord: routes S0-S1-S3-S2 and
	 * S0-S3-S1-S2 share a link (no two routes are disjoint), but
	 * their links contain S0-S1-S2 and S0-S3-S2: cdp 2 */
	set(&h, 0, 0, 1);
	set(&h, 1, 0, 3);
	set(&h, 0, 1, 2);
	set(&h, 3, 1, 3);
	set(&h, 1, 1, 1);
	pair_is(&h, 0, 2, 2, 2);
	/* a broken route: S3 has no entry */
	set(&h, 3, 3, IBF_LFT_NO_PORT);
	dl[0] = h.lid + 3;
	assert_int_equal(ibf_diversity_pair(h.l, 3, dl, 1, &di, &cd), -1);
	ibf_lfts_destroy(h.l);
	ibf_fabric_destroy(h.f);
}

/* On a generated Slim Fly the report's figures are consistent. */
static void test_report(void **state)
{
	ibf_fabric_t *f = tu_gen("slimfly:5", 2);
	ibf_route_opts_t o = opts(4, IBF_LAYERS_RANDOM, 3);
	ibf_routing_t r;
	ibf_err_t err;
	json_object *d, *v;

	(void)state;
	assert_int_equal(route(f, &o, &r, &err), IBF_OK);
	assert_true(json_object_object_get_ex(ibf_route_report_json(&r),
					      "diversity", &d));
	assert_true(json_object_object_get_ex(d, "router_pairs", &v));
	assert_int_equal(json_object_get_int64(v), 50 * 49);
	assert_true(json_object_object_get_ex(d, "broken_pairs", &v));
	assert_int_equal(json_object_get_int64(v), 0);
	routing_free(&r);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diversity_hand),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_node_order),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_hamming),
		cmocka_unit_test(test_dor),
		cmocka_unit_test(test_slimfly),
	};

	return cmocka_run_group_tests_name("layered", tests, NULL, NULL);
}
