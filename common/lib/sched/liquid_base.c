/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The bottom of the liquid scheduler: the work clock that bounds every
 * search, the round-robin order of transfers (phase keys) and a JSON string
 * writer.  liquid.c (the API), liquid_search.c, liquid_ff.c, liquid_a2a.c
 * and liquid_plan.c build on it; it calls none of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/liquid_base.h"

double lq_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void lq_clock_start(struct lq_clock *c, double limit, uint64_t work_limit)
{
	memset(c, 0, sizeof(*c));
	c->start = lq_now();
	c->deadline = c->start + limit;
	c->work_limit = work_limit ? work_limit : UINT64_MAX;
	c->next = LQ_TICK < c->work_limit ? LQ_TICK : c->work_limit;
}

/* One stable counting sort of in[0..T) by key(x) < nkeys into out. */
static bool count_sort(const uint32_t *in, uint32_t *out, uint32_t T,
		       const uint32_t *key, uint32_t nkeys)
{
	uint32_t *c = calloc((size_t)nkeys + 1, sizeof(uint32_t));

	if (!c)
		return false;
	for (uint32_t i = 0; i < T; i++)
		c[key[in[i]] + 1]++;
	for (uint32_t v = 0; v < nkeys; v++)
		c[v + 1] += c[v];
	for (uint32_t i = 0; i < T; i++)
		out[c[key[in[i]]]++] = in[i];
	free(c);
	return true;
}

bool lq_phase_keys(const ibf_liquid_traffic_t *t, const uint32_t *pos,
		   struct lq_pkey *k)
{
	uint32_t T = t->ntransfers, n = t->nhosts ? t->nhosts : 1, maxc = 0;
	uint32_t *a = malloc(((size_t)T + 1) * sizeof(uint32_t));
	uint32_t *b = malloc(((size_t)T + 1) * sizeof(uint32_t));
	uint32_t *ks = malloc(((size_t)T + 1) * sizeof(uint32_t));
	uint32_t *ph = malloc(((size_t)T + 1) * sizeof(uint32_t));
	bool ok = a && b && ks && ph;

	for (uint32_t x = 0; ok && x < T; x++) {
		uint32_t s = t->src[x] % n, d = t->dst[x] % n;

		s = pos ? pos[s] : s;
		d = pos ? pos[d] : d;
		ks[x] = s;
		ph[x] = (d + n - s) % n;
		a[x] = x;
	}
	/* (phase, sender, x), then copies numbered within each pair. */
	ok = ok && count_sort(a, b, T, ks, n) && count_sort(b, a, T, ph, n);
	for (uint32_t i = 0; ok && i < T; i++) {
		uint32_t x = a[i], y = i ? a[i - 1] : 0;

		b[x] = i && ph[x] == ph[y] && ks[x] == ks[y] ? b[y] + 1 : 0;
		if (b[x] > maxc)
			maxc = b[x];
	}
	ok = ok && count_sort(a, ks, T, b, maxc + 1);
	for (uint32_t i = 0; ok && i < T; i++)
		k[i] = (struct lq_pkey){ ks[i], b[ks[i]], ph[ks[i]] };
	free(a);
	free(b);
	free(ks);
	free(ph);
	return ok;
}

void lq_json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(fp, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(fp, "\\u%04x", ch);
		else
			fputc(ch, fp);
	}
	fputc('"', fp);
}
