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
 * to its leaf).  The radius is half the smallest gap of the second
 * group: `--tol` = l, the rule of docs/infer.md, read off the data.
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
 * inputs): the split is searched above it. */
#define RADIUS_FLOOR 1e-3
/* The step from the noise group to the hop group: the next larger gap
 * is at least this factor larger.  Inside the noise group, with many
 * gaps, consecutive ones differ by far less. */
#define RADIUS_JUMP 1.5

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

/* The split of the sorted gaps g[0..m-1] into noise and hops: the first
 * step of RADIUS_JUMP above the floor that leaves at least `min_hops`
 * gaps above it (each path used has two hop gaps at least, its ends to
 * their leaves: a step higher up is inside the hops, e.g. host links
 * longer than switch links).  Returns the index of the smallest hop gap,
 * m when there is no such step. */
static size_t split_gaps(const double *g, size_t m, size_t min_hops)
{
	double floor = g[m - 1] * RADIUS_FLOOR, below = floor;
	size_t i;

	for (i = 0; i < m && m - i >= min_hops; i++) {
		if (g[i] <= floor)
			continue;
		if (g[i] >= RADIUS_JUMP * below)
			return i;
		below = g[i];
	}
	return m;
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
	qsort(gaps, ng, sizeof(*gaps), cmp_double);
	s = split_gaps(gaps, ng, 2 * (size_t)used);
	if (s == ng) {
		explain(out, "no step between noise and hops in the gaps "
			"between branching points");
		goto out;
	}
	out->found = true;
	out->hop = gaps[s];
	out->noise = s && gaps[s - 1] > gaps[ng - 1] * RADIUS_FLOOR ?
		     gaps[s - 1] : 0;
	out->tol = out->hop / 2;
	explain(out, "half the smallest hop between branching points");
out:
	free(paths);
	free(pts);
	free(gaps);
	return st;
}
