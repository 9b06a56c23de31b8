/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The coincidence radius estimated from the RTTs themselves
 * (ibf_infer_radius_estimate, docs/infer.md "Estimating the radius").
 *
 * On a path A-B of the tree every other host H branches off at
 * g = (AB + AH - BH) / 2 from A (equation (1)).  On the true tree these
 * points sit on the switches of the path, which are at least one hop
 * (2 l on the RTT scale) apart; measured, the points of one switch
 * scatter by the noise.  So the gaps between sorted points along many
 * paths fall into two groups: small ones (noise within a switch's
 * cluster) and hop-sized ones (between switches, and from each end host
 * to its leaf).  What separates them is measured apart: the four-point
 * condition's defect over random quadruples bounds the noise of such a
 * gap.  The smallest gap above that bound is a hop shortened by at most
 * the bound, and the radius half the middle of the two: `--tol` = l,
 * the rule of docs/infer.md, read off the data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer_internal.h"

/* Paths looked at, at most: enough gaps for a clear split, bounded work
 * (every path costs one pass over the hosts) on large tables. */
#define RADIUS_MAX_PATHS 1024u
/* Gaps below this fraction of the largest are "none" (rounding, exact
 * inputs), whatever the noise bound says. */
#define RADIUS_FLOOR 1e-3
/* Quadruples drawn for the noise bound: as many as a table of 64 hosts
 * has gaps between branching points several times over, so that the
 * bound is not below the noise of the gaps; and the fewest to trust. */
#define RADIUS_QUADS 200000u
#define RADIUS_MIN_QUADS 100u

static double rtt_at(const double *rtt, uint32_t n, uint32_t a, uint32_t b)
{
	double x = rtt[(size_t)a * n + b];

	return x >= 0 ? x : NAN;   /* NaN and negatives: not measured */
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Up to RADIUS_MAX_PATHS measured pairs (a < b), a seeded sample when
 * there are more: indices a * n + b into *out. */
static ibf_status_t pick_paths(const double *rtt, uint32_t n, uint64_t seed,
			       uint64_t **out, uint32_t *npaths,
			       ibf_err_t *err)
{
	uint64_t *p = NULL, seen = 0;
	ibf_rng_t rng = { seed ^ 0x7261646975730000ULL };  /* "radius" */
	uint32_t a, b, k = 0;

	p = malloc(RADIUS_MAX_PATHS * sizeof(*p));
	if (!p)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	/* reservoir sampling: every measured pair equally likely */
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			uint64_t j;

			if (isnan(rtt_at(rtt, n, a, b)))
				continue;
			j = seen < RADIUS_MAX_PATHS ? seen :
			    ibf_rng_below(&rng, seen + 1);
			if (j < RADIUS_MAX_PATHS)
				p[j] = (uint64_t)a * n + b;
			seen++;
		}
	k = seen < RADIUS_MAX_PATHS ? (uint32_t)seen : RADIUS_MAX_PATHS;
	*out = p;
	*npaths = k;
	return IBF_OK;
}

/* The branching points of every host measured to both ends of path a-b,
 * with the ends themselves, sorted; their gaps appended to gaps[*ng].
 * Returns the number of branching points (0: nothing appended). */
static uint32_t path_gaps(const double *rtt, uint32_t n, uint32_t a,
			  uint32_t b, double *pts, double *gaps, size_t *ng)
{
	double ab = rtt_at(rtt, n, a, b);
	uint32_t h, k = 0, i;

	pts[k++] = 0;
	pts[k++] = ab;
	for (h = 0; h < n; h++) {
		double ah, bh, g;

		if (h == a || h == b)
			continue;
		ah = rtt_at(rtt, n, a, h);
		bh = rtt_at(rtt, n, b, h);
		if (isnan(ah) || isnan(bh))
			continue;
		/* noise may put the point beyond an end: it belongs there */
		g = (ab + ah - bh) / 2;
		pts[k++] = g < 0 ? 0 : g > ab ? ab : g;
	}
	if (k == 2)
		return 0;
	qsort(pts, k, sizeof(*pts), cmp_double);
	for (i = 1; i < k; i++)
		gaps[(*ng)++] = pts[i] - pts[i - 1];
	return k - 2;
}

/* Four hosts: in a tree the two largest of AB + CD, AC + BD, AD + BC are
 * equal, so their difference is the noise of four measurements, the same
 * combination as the gap between two hosts branching off a path at one
 * switch ((AH - BH - AH' + BH') / 2).  Half the largest difference over
 * random quadruples bounds those gaps: the noise, whatever the topology.
 * Returns -1 when fewer than RADIUS_MIN_QUADS quadruples are measured. */
static double noise_bound(const double *rtt, uint32_t n, uint64_t seed)
{
	ibf_rng_t rng = { seed ^ 0x6e6f697365000000ULL };  /* "noise" */
	uint32_t tries, used = 0;
	double worst = 0;

	for (tries = 0; tries < 4 * RADIUS_QUADS && used < RADIUS_QUADS;
	     tries++) {
		uint32_t h[4], k;
		double s[3], t;

		for (k = 0; k < 4; k++)
			h[k] = (uint32_t)ibf_rng_below(&rng, n);
		if (h[0] == h[1] || h[0] == h[2] || h[0] == h[3] ||
		    h[1] == h[2] || h[1] == h[3] || h[2] == h[3])
			continue;
		s[0] = rtt_at(rtt, n, h[0], h[1]) + rtt_at(rtt, n, h[2], h[3]);
		s[1] = rtt_at(rtt, n, h[0], h[2]) + rtt_at(rtt, n, h[1], h[3]);
		s[2] = rtt_at(rtt, n, h[0], h[3]) + rtt_at(rtt, n, h[1], h[2]);
		if (isnan(s[0] + s[1] + s[2]))
			continue;
		/* sort descending: the two largest in s[0], s[1] */
		for (k = 0; k < 2; k++)
			if (s[k + 1] > s[0]) {
				t = s[0]; s[0] = s[k + 1]; s[k + 1] = t;
			}
		if (s[2] > s[1])
			s[1] = s[2];
		if (s[0] - s[1] > worst)
			worst = s[0] - s[1];
		used++;
	}
	return used < RADIUS_MIN_QUADS ? -1 : worst / 2;
}

/* The first gap above the noise bound, in the sorted gaps g[0..m-1], with
 * at least min_hops gaps from it on (each path used has two hop gaps at
 * least, its ends to their leaves; fewer above means the noise reaches
 * the hops).  Returns its index, m when there is none. */
static size_t first_hop(const double *g, size_t m, double noise,
			size_t min_hops)
{
	double floor = g[m - 1] * RADIUS_FLOOR;
	size_t i;

	if (noise < floor)
		noise = floor;   /* rounding of exact inputs is no hop */
	for (i = 0; i < m && g[i] <= noise; i++)
		;
	return m - i >= min_hops ? i : m;
}

static void explain(ibf_infer_radius_t *r, const char *why)
{
	snprintf(r->why, sizeof(r->why), "%s", why);
}

ibf_status_t ibf_infer_radius_estimate(const double *rtt, uint32_t n,
				       uint64_t seed, ibf_infer_radius_t *out,
				       ibf_err_t *err)
{
	uint64_t *paths = NULL;
	double *pts = NULL, *gaps = NULL;
	uint32_t npaths = 0, used = 0, i;
	size_t ng = 0, s;
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	if (n < 3) {
		explain(out, "fewer than 3 hosts: no branching points");
		return IBF_OK;
	}
	st = pick_paths(rtt, n, seed, &paths, &npaths, err);
	if (st != IBF_OK)
		return st;
	pts = malloc((size_t)n * sizeof(*pts));
	gaps = malloc((size_t)npaths * n * sizeof(*gaps) + sizeof(*gaps));
	if (!pts || !gaps) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < npaths; i++) {
		uint32_t a = (uint32_t)(paths[i] / n), b = (uint32_t)(paths[i] % n);

		if (path_gaps(rtt, n, a, b, pts, gaps, &ng))
			used++;
	}
	out->paths = used;
	out->gaps = ng;
	if (!used) {
		explain(out, "no three hosts measured pairwise: no branching "
			"points");
		goto out;
	}
	out->noise = noise_bound(rtt, n, seed);
	if (out->noise < 0) {
		out->noise = 0;
		explain(out, "too few hosts measured pairwise in fours for "
			"the noise");
		goto out;
	}
	qsort(gaps, ng, sizeof(*gaps), cmp_double);
	s = first_hop(gaps, ng, out->noise, 2 * (size_t)used);
	if (s == ng) {
		explain(out, "the noise reaches the hops between branching "
			"points");
		goto out;
	}
	out->found = true;
	out->hop = gaps[s];
	/* the smallest hop 2 l is at most hop + noise: its half, so that a
	 * point off by the noise still meets its switch */
	out->tol = (out->hop + out->noise) / 2;
	explain(out, "(smallest hop above the noise + noise) / 2");
out:
	free(paths);
	free(pts);
	free(gaps);
	return st;
}
