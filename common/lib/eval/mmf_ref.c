/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Reference max-min fair solver: textbook water-filling (Bertsekas and
 * Gallager).  Every round recomputes, from the flow list alone, each link's
 * frozen load and the coefficient sum of its unfrozen flows, raises all
 * unfrozen flows to the lowest link saturation level and freezes the flows
 * of every link saturated at that level.  No incremental state survives a
 * round, so it shares no bookkeeping with the fast solver it checks.
 */
#include <ibflow/mmf.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Links within this relative distance of the round's level saturate in
 * the same round (the fast solver then pops them one after the other at
 * levels differing only by rounding). */
#define REF_TIE 1e-12

ibf_status_t ibf_mmf_solve_ref(const ibf_mmf_problem_t *p, double *rate,
			       ibf_mmf_stats_t *stats, ibf_err_t *err)
{
	double *load = NULL, *sum = NULL, level = 0;
	uint8_t *frozen = NULL, *sat = NULL;
	uint32_t left = p->nflows, k, l;
	ibf_mmf_stats_t st = { 0 };
	ibf_status_t rc;
	size_t e;

	if ((rc = ibf_mmf_problem_check(p, err)) != IBF_OK)
		return rc;
	load = malloc(((size_t)p->nlinks + 1) * sizeof(*load));
	sum = malloc(((size_t)p->nlinks + 1) * sizeof(*sum));
	sat = malloc((size_t)p->nlinks + 1);
	frozen = calloc((size_t)p->nflows + 1, 1);
	if (!load || !sum || !sat || !frozen) {
		rc = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	while (left) {
		double t = INFINITY;

		memset(load, 0, p->nlinks * sizeof(*load));
		memset(sum, 0, p->nlinks * sizeof(*sum));
		for (k = 0; k < p->nflows; k++)
			for (e = p->first[k]; e < p->first[k + 1]; e++) {
				double a = (double)p->weight[k] * p->frac[e];

				if (frozen[k])
					load[p->link[e]] += a * rate[k];
				else
					sum[p->link[e]] += a;
			}
		for (l = 0; l < p->nlinks; l++)
			if (sum[l] > 0)
				t = fmin(t, (p->capacity[l] - load[l]) /
					    sum[l]);
		t = fmax(t, level);
		level = t;
		st.rounds++;
		for (l = 0; l < p->nlinks; l++)
			sat[l] = sum[l] > 0 && (p->capacity[l] - load[l]) /
				 sum[l] <= t * (1 + REF_TIE);
		for (k = 0; k < p->nflows; k++) {
			if (frozen[k])
				continue;
			for (e = p->first[k]; e < p->first[k + 1]; e++)
				if (sat[p->link[e]])
					break;
			if (e < p->first[k + 1]) {
				frozen[k] = 1;
				rate[k] = t;
				left--;
			}
		}
	}
out:
	free(load);
	free(sum);
	free(sat);
	free(frozen);
	if (rc == IBF_OK && stats)
		*stats = st;
	return rc;
}
