/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Tests of the MMF-MCF optimum on PGFTs (mmf_opt.h):
 *  - a hand case on a slimmed 2-level tree;
 *  - explicit UAPR: every shortest path of every flow enumerated by a DFS
 *    of this test (no PGFT labels), each flow split evenly over them, MMF
 *    by the reference solver (mmf.h) -> equal to 1e-9;
 *  - an independent LP: the iterated-LP MMF algorithm over the
 *    multi-commodity-flow formulation (no routing constraint) with GLPK
 *    -> equal to 1e-6 (skipped without GLPK);
 *  - refusals: not a PGFT, degraded PGFT, unequal capacities, bad flows.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#ifdef HAVE_GLPK
#include <glpk.h>
#endif

#include "base/rng.h"
#include <ibflow/gen.h>
#include <ibflow/mmf.h>
#include <ibflow/mmf_opt.h>
#include <ibflow/patterns.h>
#include <ibflow/pgft.h>

struct tree {
	ibf_fabric_t *f;
	ibf_pgft_t *pg;
};

static void tree_build(struct tree *t, const char *spec)
{
	ibf_err_t err;

	if (ibf_gen(spec, NULL, &t->f, &err) != IBF_OK)
		fail_msg("gen %s: %s", spec, err.msg);
	if (ibf_pgft_recognize(t->f, &t->pg, &err) != IBF_OK)
		fail_msg("recognize %s: %s", spec, err.msg);
}

static void tree_free(struct tree *t)
{
	ibf_pgft_destroy(t->pg);
	ibf_fabric_destroy(t->f);
}

/* Host port of the generator's "hNNNN HCA-1"-named host number i. */
static ibf_port_id_t host(const ibf_fabric_t *f, unsigned i)
{
	char name[32];
	ibf_node_id_t n;

	snprintf(name, sizeof(name), "h%04u HCA-1", i);
	for (n = 0; n < f->nnodes; n++)
		if (!strcmp(ibf_node_desc(f, n), name))
			return ibf_node_port_id(f, n, 1);
	fail_msg("no host %s", name);
	return IBF_NO_ID;
}

/* ---- hand case ---------------------------------------------------------- */

/*
 * PGFT(2; 4,2; 1,2; 1,1): leaves L0 (hosts 0-3) and L1 (hosts 4-7), two
 * top switches, so 2 up-links per leaf for 4 hosts (2:1 slimmed).  In units
 * of the (uniform) link capacity c:
 *   A 0->4, B 1->5, C 2->6   cross L0's two up-links (2c)
 *   D 3->0, E 3->1           stay in L0; share host 3's injection (c)
 *   F 5->2 x2 copies         host 5's injection (c) for 2 copies
 * Level 1/2: D, E (host 3 injection), F (host 5 injection and host 2
 * ejection, c / 2 per copy).  Then A, B, C share 2c: 2/3 each (their
 * injections carry one flow each, host 0's ejection carries D only,
 * L0's down-links carry F's 2 x 1/2 = c of 2c).
 */
static void test_hand(void **state)
{
	struct tree t;
	ibf_flow_t fl[6];
	double r[6], c, want[6] = { 2.0 / 3, 2.0 / 3, 2.0 / 3, 0.5, 0.5, 0.5 };
	unsigned src[6] = { 0, 1, 2, 3, 3, 5 }, dst[6] = { 4, 5, 6, 0, 1, 2 };
	ibf_err_t err;
	unsigned i;

	(void)state;
	tree_build(&t, "pgft:2:4,2:1,2:1,1");
	for (i = 0; i < 6; i++) {
		fl[i].src = host(t.f, src[i]);
		fl[i].dst = host(t.f, dst[i]);
		fl[i].count = i == 5 ? 2 : 1;
	}
	c = ibf_port_capacity(&t.f->ports[fl[0].src]);
	assert_int_equal(ibf_mmf_opt_supported(t.pg, t.f, &err), IBF_OK);
	if (ibf_mmf_opt_pgft(t.pg, t.f, fl, 6, r, NULL, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	for (i = 0; i < 6; i++)
		if (fabs(r[i] - want[i] * c) > 1e-12 * c)
			fail_msg("flow %u: %.15g, want %.15g", i, r[i] / c,
				 want[i]);
	tree_free(&t);
}

/* ---- random flows ------------------------------------------------------- */

/* Connected component of every node over switch-switch and host links
 * (planes of multi-port hosts are told apart by the leaf). */
static uint32_t *components(const ibf_fabric_t *f)
{
	uint32_t *comp = malloc(f->nnodes * sizeof(*comp));
	uint32_t *queue = malloc(f->nnodes * sizeof(*queue));
	uint32_t n, c = 0, h, tl;
	unsigned q;

	assert_non_null(comp);
	assert_non_null(queue);
	for (n = 0; n < f->nnodes; n++)
		comp[n] = UINT32_MAX;
	for (n = 0; n < f->nnodes; n++) {
		if (!ibf_node_is_switch(f, n) || comp[n] != UINT32_MAX)
			continue;
		comp[n] = c;
		queue[0] = n;
		for (h = 0, tl = 1; h < tl; h++) {
			ibf_node_id_t u = queue[h];

			for (q = 1; q <= f->nodes[u].nports; q++) {
				ibf_port_id_t pp = ibf_node_port(f, u, q)->peer;
				ibf_node_id_t v;

				if (pp == IBF_NO_ID)
					continue;
				v = f->ports[pp].node;
				if (!ibf_node_is_switch(f, v) ||
				    comp[v] != UINT32_MAX)
					continue;
				comp[v] = c;
				queue[tl++] = v;
			}
		}
		c++;
	}
	free(queue);
	return comp;
}

static ibf_node_id_t leaf_of(const ibf_fabric_t *f, ibf_port_id_t ep)
{
	return f->ports[f->ports[ep].peer].node;
}

/* n random flows between distinct endpoints of one plane, COUNT 1..3. */
static ibf_flow_t *random_flows(const ibf_fabric_t *f, uint32_t n,
				ibf_xrng_t *g)
{
	ibf_flow_t *fl = malloc(n * sizeof(*fl));
	uint32_t *comp = components(f), k;

	assert_non_null(fl);
	for (k = 0; k < n; k++) {
		ibf_port_id_t s, d;

		do {
			s = f->endpoints[(uint32_t)ibf_xrng_below(g,
							       f->nendpoints)];
			d = f->endpoints[(uint32_t)ibf_xrng_below(g,
							       f->nendpoints)];
		} while (s == d ||
			 comp[leaf_of(f, s)] != comp[leaf_of(f, d)]);
		fl[k].src = s;
		fl[k].dst = d;
		fl[k].count = 1 + (uint32_t)ibf_xrng_below(g, 3);
	}
	free(comp);
	return fl;
}

/* ---- explicit UAPR ------------------------------------------------------ */

struct paths {
	const ibf_fabric_t *f;
	uint32_t *dist;          /* switch hops to the destination leaf */
	ibf_port_id_t stack[64];
	unsigned depth;
	ibf_port_id_t eject;
	uint32_t *links;         /* all paths' links, concatenated */
	size_t n, cap;
	unsigned npaths;
};

static void dist_from(const ibf_fabric_t *f, ibf_node_id_t t, uint32_t *dist)
{
	uint32_t *queue = malloc(f->nnodes * sizeof(*queue)), h, tl = 1;
	ibf_node_id_t n;
	unsigned q;

	assert_non_null(queue);
	for (n = 0; n < f->nnodes; n++)
		dist[n] = UINT32_MAX;
	dist[t] = 0;
	queue[0] = t;
	for (h = 0; h < tl; h++) {
		ibf_node_id_t u = queue[h];

		for (q = 1; q <= f->nodes[u].nports; q++) {
			ibf_port_id_t pp = ibf_node_port(f, u, q)->peer;
			ibf_node_id_t v;

			if (pp == IBF_NO_ID)
				continue;
			v = f->ports[pp].node;
			/* CAs do not forward. */
			if (!ibf_node_is_switch(f, v) || dist[v] != UINT32_MAX)
				continue;
			dist[v] = dist[u] + 1;
			queue[tl++] = v;
		}
	}
	free(queue);
}

static void push_link(struct paths *P, uint32_t l)
{
	if (P->n == P->cap) {
		P->cap = P->cap ? 2 * P->cap : 256;
		P->links = realloc(P->links, P->cap * sizeof(*P->links));
		assert_non_null(P->links);
	}
	P->links[P->n++] = l;
}

/* Every shortest switch path from u down to distance 0, explicitly. */
static void dfs(struct paths *P, ibf_node_id_t u)
{
	const ibf_fabric_t *f = P->f;
	unsigned q, i;

	if (P->dist[u] == 0) {
		for (i = 0; i < P->depth; i++)
			push_link(P, P->stack[i]);
		push_link(P, P->eject);
		P->npaths++;
		return;
	}
	for (q = 1; q <= f->nodes[u].nports; q++) {
		ibf_port_id_t pid = ibf_node_port_id(f, u, q);
		ibf_port_id_t pp = f->ports[pid].peer;

		if (pp == IBF_NO_ID ||
		    !ibf_node_is_switch(f, f->ports[pp].node) ||
		    P->dist[f->ports[pp].node] != P->dist[u] - 1)
			continue;
		P->stack[P->depth++] = pid;
		dfs(P, f->ports[pp].node);
		P->depth--;
	}
}

/* The UAPR problem: links = egress port ids, each flow split evenly over
 * all its shortest paths. */
static void uapr_problem(const ibf_fabric_t *f, const ibf_flow_t *fl,
			 uint32_t n, ibf_mmf_problem_t *p)
{
	struct paths P = { .f = f };
	double *frac = NULL;
	size_t fcap = 0, i;
	ibf_err_t err;
	ibf_port_id_t q;
	uint32_t k;

	P.dist = malloc(f->nnodes * sizeof(*P.dist));
	assert_non_null(P.dist);
	assert_int_equal(ibf_mmf_problem_init(p, f->nports, &err), IBF_OK);
	for (q = 0; q < f->nports; q++)
		p->capacity[q] = ibf_port_capacity(&f->ports[q]);
	for (k = 0; k < n; k++) {
		P.n = 0;
		P.npaths = 0;
		P.depth = 1;
		P.stack[0] = fl[k].src;          /* injection */
		P.eject = f->ports[fl[k].dst].peer;
		dist_from(f, leaf_of(f, fl[k].dst), P.dist);
		dfs(&P, leaf_of(f, fl[k].src));
		assert_true(P.npaths > 0);
		if (P.n > fcap) {
			fcap = P.n;
			frac = realloc(frac, fcap * sizeof(*frac));
			assert_non_null(frac);
		}
		for (i = 0; i < P.n; i++)
			frac[i] = 1.0 / P.npaths;
		if (ibf_mmf_problem_add_flow(p, fl[k].count, P.links, frac,
					     (unsigned)P.n, &err) != IBF_OK)
			fail_msg("%s", err.msg);
	}
	free(frac);
	free(P.links);
	free(P.dist);
}

static const char *const shapes[] = {
	"xgft:2:2,2:1,2",
	"pgft:2:4,2:1,2:1,1",       /* slimmed 2:1 */
	"pgft:2:4,4:1,2:1,2",       /* parallel links at the top */
	"pgft:2:3,2:2,2:1,1",       /* two-port hosts, two planes */
	"pgft:2:2,3:1,2:2,1",       /* parallel host links */
	"xgft:3:2,2,2:1,2,2",
	"pgft:3:2,2,3:1,2,1:1,1,1", /* slimmed at the top */
	"pgft:3:3,2,2:1,2,2:1,2,1", /* parallel middle links */
	"pgft:3:4,3,2:1,2,3:1,1,1", /* fatted */
	"pgft:1:5:1:1",             /* one switch */
	"xgft:4:2,2,2,2:1,2,2,2",
};

static void test_explicit_uapr(void **state)
{
	ibf_xrng_t g;
	unsigned s, rep;

	(void)state;
	ibf_xrng_seed(&g, 4);
	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct tree t;

		tree_build(&t, shapes[s]);
		for (rep = 0; rep < 12; rep++) {
			uint32_t n = 1 + (uint32_t)ibf_xrng_below(&g,
						3 * t.f->nendpoints);
			ibf_flow_t *fl = random_flows(t.f, n, &g);
			double *r = malloc(n * sizeof(*r));
			double *q = malloc(n * sizeof(*q));
			ibf_mmf_problem_t p;
			ibf_err_t err;
			uint32_t k;

			assert_non_null(r);
			assert_non_null(q);
			if (ibf_mmf_opt_pgft(t.pg, t.f, fl, n, r, NULL, &err))
				fail_msg("%s: %s", shapes[s], err.msg);
			uapr_problem(t.f, fl, n, &p);
			assert_int_equal(ibf_mmf_solve_ref(&p, q, NULL, &err),
					 IBF_OK);
			for (k = 0; k < n; k++)
				if (fabs(r[k] - q[k]) > 1e-9 * q[k])
					fail_msg("%s rep %u flow %u: opt %.12g, "
						 "explicit UAPR %.12g",
						 shapes[s], rep, k, r[k], q[k]);
			ibf_mmf_problem_free(&p);
			free(fl);
			free(r);
			free(q);
		}
		tree_free(&t);
	}
}

/* ---- independent LP: iterated MMF over multi-commodity flows ------------ */

#ifdef HAVE_GLPK
/*
 * Vertices: switches (node id) and endpoints (nnodes + endpoint index: a
 * CA port is its own vertex, CAs do not forward).  Arcs: every connected
 * port (its egress direction), capacity ibf_port_capacity().  Columns:
 * x[k][a] (per-copy flow of commodity k on arc a), r[k], t.  Rows:
 * conservation per (k, v), capacity per arc (sum_k COUNT_k x[k][a] <= c),
 * r[k] - t >= 0 per flow.
 */
struct lp {
	glp_prob *P;
	uint32_t F, A, V;
};

static uint32_t vertex(const ibf_fabric_t *f, ibf_port_id_t p)
{
	ibf_node_id_t n = f->ports[p].node;

	return ibf_node_is_switch(f, n) ? n
					: f->nnodes + f->endpoint_index[p];
}

static int col_x(const struct lp *L, uint32_t k, uint32_t a)
{
	return 1 + (int)(k * L->A + a);
}

static int col_r(const struct lp *L, uint32_t k)
{
	return 1 + (int)(L->F * L->A + k);
}

static int col_t(const struct lp *L)
{
	return 1 + (int)(L->F * L->A + L->F);
}

static void lp_build(struct lp *L, const ibf_fabric_t *f,
		     const ibf_flow_t *fl, uint32_t F)
{
	ibf_port_id_t *arc = malloc(f->nports * sizeof(*arc));
	int *ia, *ja, ne = 0, cap;
	double *ar;
	uint32_t a = 0, k, i;
	ibf_port_id_t p;

	assert_non_null(arc);
	for (p = 0; p < f->nports; p++)
		if (f->ports[p].peer != IBF_NO_ID)
			arc[a++] = p;
	L->F = F;
	L->A = a;
	L->V = f->nnodes + f->nendpoints;
	cap = (int)(F * L->A * 3 + F * 4 + 16);
	ia = malloc((cap + 1) * sizeof(*ia));
	ja = malloc((cap + 1) * sizeof(*ja));
	ar = malloc((cap + 1) * sizeof(*ar));
	assert_true(ia && ja && ar);
	L->P = glp_create_prob();
	glp_set_obj_dir(L->P, GLP_MAX);
	glp_add_rows(L->P, (int)(F * L->V + L->A + F));
	glp_add_cols(L->P, col_t(L));
	for (i = 1; i <= (uint32_t)col_t(L); i++)
		glp_set_col_bnds(L->P, (int)i, GLP_LO, 0, 0);
	for (i = 0; i < F * L->V; i++)
		glp_set_row_bnds(L->P, 1 + (int)i, GLP_FX, 0, 0);
	for (a = 0; a < L->A; a++)
		glp_set_row_bnds(L->P, 1 + (int)(F * L->V + a), GLP_UP, 0,
				 ibf_port_capacity(&f->ports[arc[a]]));
	for (k = 0; k < F; k++) {
		int row_rt = 1 + (int)(F * L->V + L->A + k);

		for (a = 0; a < L->A; a++) {
			p = arc[a];
			ne++;
			ia[ne] = 1 + (int)(k * L->V + vertex(f, p));
			ja[ne] = col_x(L, k, a);
			ar[ne] = 1;
			ne++;
			ia[ne] = 1 + (int)(k * L->V +
					   vertex(f, f->ports[p].peer));
			ja[ne] = col_x(L, k, a);
			ar[ne] = -1;
			ne++;
			ia[ne] = 1 + (int)(F * L->V + a);
			ja[ne] = col_x(L, k, a);
			ar[ne] = fl[k].count;
		}
		/* out - in - r = 0 at the source, out - in + r = 0 at the
		 * destination. */
		ne++;
		ia[ne] = 1 + (int)(k * L->V + vertex(f, fl[k].src));
		ja[ne] = col_r(L, k);
		ar[ne] = -1;
		ne++;
		ia[ne] = 1 + (int)(k * L->V + vertex(f, fl[k].dst));
		ja[ne] = col_r(L, k);
		ar[ne] = 1;
		ne++;
		ia[ne] = row_rt;
		ja[ne] = col_r(L, k);
		ar[ne] = 1;
		ne++;
		ia[ne] = row_rt;
		ja[ne] = col_t(L);
		ar[ne] = -1;
		glp_set_row_bnds(L->P, row_rt, GLP_LO, 0, 0);
	}
	assert_true(ne <= cap);
	glp_load_matrix(L->P, ne, ia, ja, ar);
	free(ia);
	free(ja);
	free(ar);
	free(arc);
}

static double lp_max(struct lp *L, int col)
{
	glp_smcp parm;
	int i;

	for (i = 1; i <= col_t(L); i++)
		glp_set_obj_coef(L->P, i, i == col);
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	assert_int_equal(glp_simplex(L->P, &parm), 0);
	assert_int_equal(glp_get_status(L->P), GLP_OPT);
	return glp_get_obj_val(L->P);
}

/* The generic MMF algorithm: raise the common rate t of the unfrozen
 * flows as far as possible; freeze those that cannot exceed t while the
 * others keep t (one LP each); repeat. */
static void lp_mmf(const ibf_fabric_t *f, const ibf_flow_t *fl, uint32_t F,
		   double *rate)
{
	uint8_t *frozen = calloc(F, 1), *freeze = calloc(F, 1);
	struct lp L;
	uint32_t k, left = F;

	assert_true(frozen && freeze);
	lp_build(&L, f, fl, F);
	while (left) {
		double t, m;
		unsigned nfreeze = 0;

		glp_set_col_bnds(L.P, col_t(&L), GLP_LO, 0, 0);
		t = lp_max(&L, col_t(&L));
		glp_set_col_bnds(L.P, col_t(&L), GLP_FX, t, t);
		for (k = 0; k < F; k++) {
			if (frozen[k])
				continue;
			m = lp_max(&L, col_r(&L, k));
			freeze[k] = m <= t * (1 + 1e-9) + 1e-12;
			nfreeze += freeze[k];
		}
		assert_true(nfreeze > 0);
		for (k = 0; k < F; k++) {
			if (!freeze[k])
				continue;
			freeze[k] = 0;
			frozen[k] = 1;
			left--;
			rate[k] = t;
			glp_set_col_bnds(L.P, col_r(&L, k), GLP_FX, t, t);
			glp_set_row_bnds(L.P, 1 + (int)(F * L.V + L.A + k),
					 GLP_FR, 0, 0);
		}
	}
	glp_delete_prob(L.P);
	free(frozen);
	free(freeze);
}

static void test_lp(void **state)
{
	static const char *const lp_shapes[] = {
		"xgft:2:2,2:1,2",
		"pgft:2:4,2:1,2:1,1",
		"pgft:2:3,2:2,2:1,1",
		"pgft:3:2,2,2:1,2,1:1,1,1",
		"pgft:2:3,3:1,2:1,2",
	};
	ibf_xrng_t g;
	unsigned s, rep;

	(void)state;
	glp_term_out(GLP_OFF);
	ibf_xrng_seed(&g, 44);
	for (s = 0; s < sizeof(lp_shapes) / sizeof(lp_shapes[0]); s++) {
		struct tree t;

		tree_build(&t, lp_shapes[s]);
		for (rep = 0; rep < 12; rep++) {
			uint32_t n = 2 + (uint32_t)ibf_xrng_below(&g,
						2 * t.f->nendpoints);
			ibf_flow_t *fl = random_flows(t.f, n, &g);
			double *r = malloc(n * sizeof(*r));
			double *q = malloc(n * sizeof(*q));
			ibf_err_t err;
			uint32_t k;

			assert_true(r && q);
			if (ibf_mmf_opt_pgft(t.pg, t.f, fl, n, r, NULL, &err))
				fail_msg("%s: %s", lp_shapes[s], err.msg);
			lp_mmf(t.f, fl, n, q);
			for (k = 0; k < n; k++)
				if (fabs(r[k] - q[k]) > 1e-6 * q[k])
					fail_msg("%s rep %u flow %u: opt %.12g, "
						 "LP %.12g", lp_shapes[s], rep,
						 k, r[k], q[k]);
			free(fl);
			free(r);
			free(q);
		}
		tree_free(&t);
	}
}
#else
static void test_lp(void **state)
{
	(void)state;
	print_message("[  SKIP    ] LP cross-check: built without GLPK "
		      "(configure found no libglpk)\n");
	skip();
}
#endif

/* ---- refusals ----------------------------------------------------------- */

static void expect_err(ibf_status_t got, const ibf_err_t *err,
		       ibf_status_t want, const char *text)
{
	assert_int_equal(got, want);
	if (!strstr(err->msg, text))
		fail_msg("message \"%s\" lacks \"%s\"", err->msg, text);
}

static void test_not_pgft(void **state)
{
	ibf_fabric_t *f;
	ibf_pgft_t *pg = NULL;
	ibf_flow_t fl;
	double r;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_gen("torus:3,3,3", NULL, &f, &err), IBF_OK);
	assert_int_not_equal(ibf_pgft_recognize(f, &pg, &err), IBF_OK);
	assert_null(pg);
	fl.src = f->endpoints[0];
	fl.dst = f->endpoints[1];
	fl.count = 1;
	expect_err(ibf_mmf_opt_pgft(NULL, f, &fl, 1, &r, NULL, &err), &err,
		   IBF_ERR_UNSUPPORTED,
		   "exact MMF-MCF optimum not computed: the fabric is not a "
		   "PGFT");
	expect_err(ibf_mmf_opt_supported(NULL, f, &err), &err,
		   IBF_ERR_UNSUPPORTED, "not a PGFT");
	ibf_fabric_destroy(f);
}

/* A copy of src without the link at port `cut` (node order, ports and
 * capacities kept). */
static ibf_fabric_t *without_link(const ibf_fabric_t *src, ibf_port_id_t cut)
{
	ibf_fabric_t *f;
	ibf_node_id_t n, id;
	ibf_port_id_t p;
	ibf_err_t err;

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (n = 0; n < src->nnodes; n++) {
		assert_int_equal(ibf_fabric_add_node(f, src->nodes[n].type,
				 src->nodes[n].guid, ibf_node_desc(src, n),
				 src->nodes[n].nports, &id, &err), IBF_OK);
		assert_int_equal(id, n);
	}
	for (p = 0; p < src->nports; p++) {
		const ibf_port_t *a = &src->ports[p];

		if (a->peer == IBF_NO_ID || a->peer < p || p == cut ||
		    a->peer == cut)
			continue;
		if (ibf_fabric_link(f, a->node, a->num,
				    src->ports[a->peer].node,
				    src->ports[a->peer].num, a->width,
				    a->speed, &err) != IBF_OK)
			fail_msg("link: %s", err.msg);
	}
	if (ibf_fabric_finalize(f, NULL, &err) != IBF_OK)
		fail_msg("finalize: %s", err.msg);
	return f;
}

static void test_degraded(void **state)
{
	struct tree t;
	ibf_fabric_t *f;
	ibf_pgft_t *pg;
	ibf_node_id_t leaf;
	ibf_flow_t fl;
	double r;
	ibf_err_t err;

	(void)state;
	tree_build(&t, "xgft:2:4,4:1,2");
	leaf = leaf_of(t.f, t.f->endpoints[0]);
	f = without_link(t.f, ibf_node_port_id(t.f, leaf,
			 ibf_pgft_up_port(t.pg, leaf, 0, 0)));
	assert_int_equal(ibf_pgft_recognize(f, &pg, &err), IBF_OK);
	assert_int_equal(pg->missing_links, 1);
	fl.src = f->endpoints[0];
	fl.dst = f->endpoints[f->nendpoints - 1];
	fl.count = 1;
	expect_err(ibf_mmf_opt_pgft(pg, f, &fl, 1, &r, NULL, &err), &err,
		   IBF_ERR_UNSUPPORTED,
		   "not computed: degraded PGFT (1 links missing)");
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	tree_free(&t);
}

static void test_unequal_capacity(void **state)
{
	struct tree t;
	ibf_node_id_t leaf;
	ibf_flow_t fl;
	double r;
	ibf_err_t err;

	(void)state;
	tree_build(&t, "xgft:2:4,4:1,2");
	/* Fabrics are read-only after finalize; a test may still narrow
	 * one cable to 1x in place to make the capacities unequal. */
	leaf = leaf_of(t.f, t.f->endpoints[0]);
	t.f->ports[ibf_node_port_id(t.f, leaf,
		   ibf_pgft_up_port(t.pg, leaf, 1, 0))].width = 1;
	fl.src = t.f->endpoints[0];
	fl.dst = t.f->endpoints[t.f->nendpoints - 1];
	fl.count = 1;
	expect_err(ibf_mmf_opt_pgft(t.pg, t.f, &fl, 1, &r, NULL, &err), &err,
		   IBF_ERR_UNSUPPORTED, "level-1 up-links of one sub-fat-tree "
		   "have different capacities");
	tree_free(&t);
}

static void test_bad_flows(void **state)
{
	struct tree t;
	ibf_flow_t fl;
	double r;
	ibf_err_t err;

	(void)state;
	tree_build(&t, "pgft:2:3,2:2,2:1,1"); /* two planes */
	fl.src = host(t.f, 0);
	fl.dst = fl.src;
	fl.count = 1;
	expect_err(ibf_mmf_opt_pgft(t.pg, t.f, &fl, 1, &r, NULL, &err), &err,
		   IBF_ERR_INVALID, "h0000 HCA-1 -> h0000 HCA-1: source and "
		   "destination are the same host port");
	fl.dst = ibf_node_port_id(t.f, t.f->ports[fl.src].node, 2);
	expect_err(ibf_mmf_opt_pgft(t.pg, t.f, &fl, 1, &r, NULL, &err), &err,
		   IBF_ERR_INVALID, "different planes");
	fl.dst = host(t.f, 1);
	fl.count = 0;
	expect_err(ibf_mmf_opt_pgft(t.pg, t.f, &fl, 1, &r, NULL, &err), &err,
		   IBF_ERR_INVALID, "COUNT 0");
	fl.count = 1;
	fl.dst = leaf_of(t.f, fl.src); /* a node id, not a host port */
	fl.dst = ibf_node_port_id(t.f, fl.dst, 1);
	expect_err(ibf_mmf_opt_pgft(t.pg, t.f, &fl, 1, &r, NULL, &err), &err,
		   IBF_ERR_INVALID, "destination is not a connected host port");
	/* No flows: nothing to do, no error. */
	assert_int_equal(ibf_mmf_opt_pgft(t.pg, t.f, &fl, 0, &r, NULL, &err),
			 IBF_OK);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_explicit_uapr),
		cmocka_unit_test(test_lp),
		cmocka_unit_test(test_not_pgft),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_unequal_capacity),
		cmocka_unit_test(test_bad_flows),
	};

	return cmocka_run_group_tests_name("mmf_opt", tests, NULL, NULL);
}
