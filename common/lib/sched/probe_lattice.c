/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Six perfect rounds by design on a three-level fat tree, symmetric model
 * (docs/probe.md, "Rounds by design").
 *
 * Shape.  Every host x is reached, from far enough away (from the first
 * host or from one farthest from it), down one switch path top -> middle
 * -> leaf; under D-mod-K on a full-bisection XGFT that path depends on x
 * alone.  Label x by three coordinates: x0 (hosts with the same middle
 * or the same top switch share it), x1 (same leaf or same top) and its
 * pod (same leaf or same middle).  Two hosts that differ in
 * one coordinate only -- the same leaf; the same x0 in one pod; the same
 * position (x0, x1) in two pods -- route both ways over the same cables,
 * so each such pair measures twice the sum of its two hosts' "own"
 * cables: host link (h), then leaf link (l), then top link (t) towards
 * it.  In the unknowns h, h + l, h + l + t (a triangular change of
 * basis) such a pair is e_x + e_y within one layer, and a set of them is
 * independent exactly when, in each layer, every connected component has
 * at most one cycle and it is odd.  Their links never clash either: a
 * host climbs only its own cables, and descends only its partner's.
 *
 * Design.  In each layer every host lies in one triangle (rank: all
 * components odd cycles, as many edges as hosts), and the three
 * triangles of a host take its six colours (rounds) two each:
 *  - leaf layer: triangles of consecutive x0; triangle t takes colours
 *    3(t%2) .. 3(t%2)+2, its host of role r = x0%3 misses 3(t%2) + r.
 *    N = that colour and the other half's three: the four colours the
 *    other two layers must give it;
 *  - pod layer, in each (x0, pod): triangles of consecutive x1, role
 *    r1 = x1%3; the pod's index i = pod%4 and k = (pod/4)%3 give
 *    nu = N[i], left to the cross layer by all three roles, and
 *    sigma(r1) = N[(i + 1 + (k + r1)%3)%4], left to it by role r1 alone;
 *  - cross layer, in each (x0, x1) over a block of twelve pods: pod
 *    (i, k) holds the pair {N[i], N[j]}, j the index of sigma; over the
 *    block every ordered pair of the four indices occurs once, and the
 *    four triangles of indices (all but d) take each unordered pair once
 *    per orientation.
 * Hence: leaf group sizes a multiple of 6, pods' x1 counts a multiple of
 * 3, pods a multiple of 12 (the paper's XGFT(3;6,6,12;1,6,6): 6, 6, 12).
 * Nothing is taken on trust: every round is checked host- and
 * link-disjoint and every pair independent before the plan is used.
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/trace.h>

#include "sched/probe_internal.h"

#define NONE IBF_PROBE_NONE
#define COLOURS 6u

/* Hosts by coordinates: coord[3x .. 3x+2] = (x0, x1, pod), host[] the
 * inverse, m[] the extent of each coordinate. */
struct lattice {
	uint32_t m[3];
	uint32_t *coord, *host;
};

/* ---- shape -------------------------------------------------------------- */

/* Egress ports of the route from host a to host b into hops; their
 * count, 0 when the route is broken or too long. */
static unsigned route(const ibf_lfts_t *l, const ibf_hostlist_t *h,
		      uint32_t a, uint32_t b, ibf_port_id_t *hops)
{
	unsigned nh;

	if (a == b ||
	    ibf_trace(l, h->ports[a], l->fabric->ports[h->ports[b]].lid, hops,
		      IBF_PROBE_MAX_HOPS, &nh) != IBF_TRACE_OK ||
	    nh > IBF_PROBE_MAX_HOPS)
		return 0;
	return nh;
}

/* A host farthest (in hops) from the first one: in another pod, so that
 * every host is far from one of the two. */
static uint32_t farthest(const ibf_lfts_t *l, const ibf_hostlist_t *h)
{
	ibf_port_id_t hops[IBF_PROBE_MAX_HOPS];
	uint32_t x, far = 0;
	unsigned nh, most = 0;

	for (x = 1; x < h->n; x++)
		if ((nh = route(l, h, 0, x, hops)) > most) {
			most = nh;
			far = x;
		}
	return far;
}

/* The last three switches on the longer of the routes from host 0 and
 * from host far to x (leaf, middle, top); false when neither climbs three
 * switches or a route is broken. */
static bool descent(const ibf_lfts_t *l, const ibf_hostlist_t *h,
		    uint32_t far, uint32_t x, ibf_node_id_t sw[3])
{
	const ibf_fabric_t *f = l->fabric;
	ibf_port_id_t hops[IBF_PROBE_MAX_HOPS], best[3];
	unsigned s, nh, most = 0, k;
	const uint32_t src[2] = { 0, far };

	for (s = 0; s < 2; s++) {
		if ((nh = route(l, h, src[s], x, hops)) <= most)
			continue;
		most = nh;
		for (k = 0; k < 3 && k < nh; k++)
			best[k] = hops[nh - 1 - k];
	}
	if (most < 4)
		return false;
	for (k = 0; k < 3; k++) {
		sw[k] = f->ports[best[k]].node;
		if (!ibf_node_is_switch(f, sw[k]))
			return false;
	}
	return true;
}

static uint32_t uf_root(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

/* label[x] = class of x under "same switch at level a or at level b"
 * (sw[3x + level]), classes numbered by their first host; returns their
 * count.  first: [nnodes] scratch, uf: [n] scratch. */
static uint32_t classes(uint32_t n, const ibf_node_id_t *sw, unsigned a,
			unsigned b, uint32_t nnodes, uint32_t *first,
			uint32_t *uf, uint32_t *label)
{
	const unsigned lev[2] = { a, b };
	uint32_t x, count = 0;
	unsigned k;

	for (x = 0; x < n; x++)
		uf[x] = x;
	for (k = 0; k < 2; k++) {
		for (x = 0; x < nnodes; x++)
			first[x] = NONE;
		for (x = 0; x < n; x++) {
			ibf_node_id_t s = sw[3 * x + lev[k]];

			if (first[s] == NONE)
				first[s] = x;
			else
				uf[uf_root(uf, x)] = uf_root(uf, first[s]);
		}
	}
	for (x = 0; x < n; x++)
		first[x] = NONE;	/* n <= nnodes: root -> class */
	for (x = 0; x < n; x++) {
		uint32_t r = uf_root(uf, x);

		if (first[r] == NONE)
			first[r] = count++;
		label[x] = first[r];
	}
	return count;
}

/* Coordinates of every host and the inverse map; false when the hosts do
 * not fill an m0 x m1 x m2 box the design covers. */
static bool shape(const ibf_lfts_t *l, const ibf_hostlist_t *h,
		  struct lattice *lt, ibf_node_id_t *sw, uint32_t *scratch)
{
	uint32_t n = h->n, nn = l->fabric->nnodes, x, k, *lab;
	uint32_t far = farthest(l, h);
	/* coordinate k: classes of the two levels other than k's own */
	static const unsigned lv[3][2] = { { 1, 2 }, { 0, 2 }, { 0, 1 } };

	for (x = 0; x < n; x++)
		if (!descent(l, h, far, x, sw + 3 * x))
			return false;
	lab = scratch + nn + n;
	for (k = 0; k < 3; k++) {
		lt->m[k] = classes(n, sw, lv[k][0], lv[k][1], nn, scratch,
				   scratch + nn, lab);
		for (x = 0; x < n; x++)
			lt->coord[3 * x + k] = lab[x];
	}
	if ((uint64_t)lt->m[0] * lt->m[1] * lt->m[2] != n ||
	    lt->m[0] % 6 || lt->m[1] % 3 || lt->m[2] % 12)
		return false;
	for (x = 0; x < n; x++)
		lt->host[x] = NONE;
	for (x = 0; x < n; x++) {
		const uint32_t *c = lt->coord + 3 * x;
		uint32_t at = c[0] + lt->m[0] * (c[1] + lt->m[1] * c[2]);

		if (lt->host[at] != NONE)
			return false;
		lt->host[at] = x;
	}
	return true;
}

/* ---- design ------------------------------------------------------------- */

/* The colours a host of leaf index x0 gets outside the leaf layer. */
static void need_colours(uint32_t x0, uint32_t *need)
{
	uint32_t half = (x0 / 3) % 2, other = 3 * (1 - half);

	need[0] = 3 * half + x0 % 3;
	need[1] = other;
	need[2] = other + 1;
	need[3] = other + 2;
}

static uint32_t sigma_index(uint32_t i, uint32_t k, uint32_t r1)
{
	return (i + 1 + (k + r1) % 3) % 4;
}

/* The cross triangle (by its missing index) that takes pair i -> j. */
static uint32_t cross_triangle(uint32_t i, uint32_t j)
{
	uint32_t d, other[2], no = 0;

	for (d = 0; d < 4; d++)
		if (d != i && d != j)
			other[no++] = d;
	return i < j ? other[0] : other[1];
}

/* The partner, in colour c, of the host at coordinates x. */
static void partner(const uint32_t *x, uint32_t c, uint32_t *y)
{
	uint32_t x0 = x[0], x1 = x[1], pod = x[2];
	uint32_t half = (x0 / 3) % 2, r0 = x0 % 3, r1 = x1 % 3;
	uint32_t i = pod % 4, k = (pod / 4) % 3, j, need[4], q, r;

	memcpy(y, x, 3 * sizeof(*y));
	if (c / 3 == half && c % 3 != r0) {	/* leaf triangle */
		y[0] = x0 - r0 + (3 - r0 - c % 3);
		return;
	}
	need_colours(x0, need);
	j = sigma_index(i, k, r1);
	if (c == need[i] || c == need[j]) {	/* cross triangle */
		uint32_t ci = c == need[i] ? i : j, d = cross_triangle(i, j);

		for (q = 0; q < 12; q++) {
			uint32_t qi = q % 4, qj = sigma_index(qi, q / 4, r1);

			if (q != 4 * k + i && cross_triangle(qi, qj) == d &&
			    (qi == ci || qj == ci)) {
				y[2] = pod - pod % 12 + q;
				return;
			}
		}
		return;
	}
	for (r = 0; r < 3; r++)	/* pod triangle: the other role with c */
		if (r != r1 && need[sigma_index(i, k, r)] != c) {
			y[1] = x1 - r1 + r;
			return;
		}
}

static uint32_t partner_host(const struct lattice *lt, uint32_t x,
			     uint32_t c)
{
	uint32_t y[3];

	partner(lt->coord + 3 * x, c, y);
	if (y[0] >= lt->m[0] || y[1] >= lt->m[1] || y[2] >= lt->m[2])
		return NONE;
	return lt->host[y[0] + lt->m[0] * (y[1] + lt->m[1] * y[2])];
}

/* ---- the rounds, checked ------------------------------------------------ */

struct check {
	ibf_probe_cols_t cols;
	ibf_probe_ech_t ech;
	uint32_t *perm;
	uint32_t *link_round;	/* [nports]: round using it + 1, or 0 */
};

/* Pair (x, y) in round c: its links unused in c so far, its vector
 * independent of every pair before it.  1 yes, 0 no, -1 no memory. */
static int check_pair(const ibf_lfts_t *l, const ibf_hostlist_t *h,
		      struct check *ck, uint32_t x, uint32_t y, uint32_t c)
{
	ibf_probe_vec_t v, w;
	unsigned i;

	if (ibf_probe_vec_make(l, &ck->cols, h->ports[x], h->ports[y], &v,
			       NULL) != IBF_OK)
		return 0;
	for (i = 0; i < v.nlinks; i++) {
		if (ck->link_round[v.links[i]] == c + 1)
			return 0;
		ck->link_round[v.links[i]] = c + 1;
	}
	return ibf_probe_ech_add(&ck->ech,
				 ibf_probe_vec_permute(ck->perm, &v, &w),
				 true);
}

/* The six rounds into out, each pair checked.  1 all good, 0 not, -1 no
 * memory. */
static int build_rounds(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			const struct lattice *lt, struct check *ck,
			ibf_probe_plan_t *out)
{
	uint32_t n = h->n, c, x, y, np = 0;
	int res;

	for (c = 0; c < COLOURS; c++) {
		out->round_start[c] = np;
		for (x = 0; x < n; x++) {
			y = partner_host(lt, x, c);
			if (y == NONE || y == x || partner_host(lt, y, c) != x)
				return 0;
			if (y < x)
				continue;
			if ((res = check_pair(l, h, ck, x, y, c)) != 1)
				return res;
			out->pairs[np].a = x;
			out->pairs[np++].b = y;
		}
	}
	out->round_start[COLOURS] = np;
	return 1;
}

static int check_init(const ibf_lfts_t *l, const ibf_hostlist_t *h,
		      struct check *ck)
{
	const ibf_fabric_t *f = l->fabric;

	memset(ck, 0, sizeof(*ck));
	if (ibf_probe_cols_init(f, h, IBF_PROBE_SYMMETRIC, &ck->cols,
				NULL) != IBF_OK)
		return -1;
	ck->perm = malloc(ck->cols.ncols * sizeof(*ck->perm));
	ck->link_round = calloc(f->nports + 1, sizeof(*ck->link_round));
	if (!ck->perm || !ck->link_round ||
	    ibf_probe_ech_init(&ck->ech, ck->cols.ncols) != IBF_OK ||
	    ibf_probe_col_order(f, &ck->cols, ck->perm) < 0)
		return -1;
	return 0;
}

static void check_free(struct check *ck)
{
	ibf_probe_cols_free(&ck->cols);
	ibf_probe_ech_free(&ck->ech);
	free(ck->perm);
	free(ck->link_round);
}

static int plan_checked(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			const struct lattice *lt, ibf_probe_plan_t *out)
{
	struct check ck;
	int res = -1;

	memset(&ck, 0, sizeof(ck));
	out->pairs = malloc((size_t)3 * h->n * sizeof(*out->pairs));
	out->round_start = calloc(COLOURS + 1, sizeof(*out->round_start));
	if (out->pairs && out->round_start && check_init(l, h, &ck) == 0)
		res = build_rounds(l, h, lt, &ck, out);
	check_free(&ck);
	return res;
}

int ibf_probe_plan_lattice(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			   uint32_t rank, ibf_probe_plan_t *out)
{
	uint32_t n = h->n, nn = l->fabric->nnodes;
	struct lattice lt;
	ibf_node_id_t *sw;
	uint32_t *scratch;
	int res = 0;

	memset(out, 0, sizeof(*out));
	if (n < 2 || rank != 3 * n || nn < n)
		return 0;	/* six perfect rounds hold 3n pairs */
	sw = malloc((size_t)3 * n * sizeof(*sw));
	scratch = malloc(((size_t)nn + 2 * n) * sizeof(*scratch));
	lt.coord = malloc((size_t)3 * n * sizeof(*lt.coord));
	lt.host = malloc((size_t)n * sizeof(*lt.host));
	if (!sw || !scratch || !lt.coord || !lt.host)
		res = -1;
	else if (shape(l, h, &lt, sw, scratch))
		res = plan_checked(l, h, &lt, out);
	free(sw);
	free(scratch);
	free(lt.coord);
	free(lt.host);
	if (res != 1) {
		free(out->pairs);
		free(out->round_start);
		memset(out, 0, sizeof(*out));
		return res;
	}
	out->nhosts = n;
	out->npairs = out->rank = rank;
	out->nrounds = COLOURS;
	out->lower_bound = (rank + n / 2 - 1) / (n / 2);
	out->tested = rank;
	out->model = IBF_PROBE_SYMMETRIC;
	return 1;
}
