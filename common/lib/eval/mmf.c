/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Max-min fair rates: problem storage, the fast progressive filling solver
 * and the summary.  See mmf.h; the reference solver is in mmf_ref.c.
 */
#include <ibflow/mmf.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- problem ------------------------------------------------------------ */

ibf_status_t ibf_mmf_problem_init(ibf_mmf_problem_t *p, uint32_t nlinks,
				  ibf_err_t *err)
{
	memset(p, 0, sizeof(*p));
	p->nlinks = nlinks;
	p->capacity = calloc(nlinks ? nlinks : 1, sizeof(*p->capacity));
	p->first = calloc(1, sizeof(*p->first));
	if (!p->capacity || !p->first) {
		ibf_mmf_problem_free(p);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	return IBF_OK;
}

void ibf_mmf_problem_free(ibf_mmf_problem_t *p)
{
	if (!p)
		return;
	free(p->capacity);
	free(p->weight);
	free(p->first);
	free(p->link);
	free(p->frac);
	free(p->scratch);
	memset(p, 0, sizeof(*p));
}

static int grow_flows(ibf_mmf_problem_t *p)
{
	uint32_t cap = p->flows_cap ? p->flows_cap * 2 : 1024;
	uint32_t *w;
	size_t *first;

	if (p->nflows + 1 < p->flows_cap)
		return 0;
	if (cap <= p->flows_cap)
		return -1;
	w = realloc(p->weight, (size_t)cap * sizeof(*w));
	if (!w)
		return -1;
	p->weight = w;
	first = realloc(p->first, ((size_t)cap + 1) * sizeof(*first));
	if (!first)
		return -1;
	p->first = first;
	p->flows_cap = cap;
	return 0;
}

static int grow_entries(ibf_mmf_problem_t *p, size_t need)
{
	size_t cap = p->entries_cap ? p->entries_cap : 4096;
	uint32_t *link;
	double *frac;

	if (need <= p->entries_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	link = realloc(p->link, cap * sizeof(*link));
	if (!link)
		return -1;
	p->link = link;
	frac = realloc(p->frac, cap * sizeof(*frac));
	if (!frac)
		return -1;
	p->frac = frac;
	p->entries_cap = cap;
	return 0;
}

struct entry {
	uint32_t link;
	double frac;
};

static int cmp_entry(const void *a, const void *b)
{
	uint32_t x = ((const struct entry *)a)->link;
	uint32_t y = ((const struct entry *)b)->link;

	return x < y ? -1 : x > y;
}

/* Many paths (LMC up to 7: 128 routes): sort by link, add up runs. */
static size_t merge_sorted(ibf_mmf_problem_t *p, size_t e,
			   const uint32_t *links, const double *fracs,
			   unsigned n)
{
	struct entry *v = p->scratch;
	unsigned i;

	for (i = 0; i < n; i++) {
		v[i].link = links[i];
		v[i].frac = fracs[i];
	}
	qsort(v, n, sizeof(*v), cmp_entry);
	for (i = 0; i < n; i++) {
		if (i && v[i].link == v[i - 1].link) {
			p->frac[e - 1] += v[i].frac;
			continue;
		}
		p->link[e] = v[i].link;
		p->frac[e++] = v[i].frac;
	}
	return e;
}

#define MERGE_SCAN_MAX 32u

ibf_status_t ibf_mmf_problem_add_flow(ibf_mmf_problem_t *p, uint32_t weight,
				      const uint32_t *links,
				      const double *fracs, unsigned n,
				      ibf_err_t *err)
{
	size_t base, e;
	unsigned i;

	if (p->nflows == UINT32_MAX - 1)
		return ibf_err_set(err, IBF_ERR_RANGE, "too many flows");
	if (grow_flows(p) || grow_entries(p, p->first[p->nflows] + n))
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	base = p->first[p->nflows];
	e = base;
	if (n > MERGE_SCAN_MAX) {
		if (n > p->scratch_cap) {
			void *v = realloc(p->scratch,
					  n * sizeof(struct entry));

			if (!v)
				return ibf_err_set(err, IBF_ERR_NOMEM,
						   "out of memory");
			p->scratch = v;
			p->scratch_cap = n;
		}
		e = merge_sorted(p, e, links, fracs, n);
		n = 0;
	}
	/* A path or two of a few links: a linear scan merges repeats faster
	 * than any index. */
	for (i = 0; i < n; i++) {
		size_t j;

		for (j = base; j < e && p->link[j] != links[i]; j++)
			;
		if (j < e) {
			p->frac[j] += fracs[i];
			continue;
		}
		p->link[e] = links[i];
		p->frac[e++] = fracs[i];
	}
	p->weight[p->nflows] = weight;
	p->first[++p->nflows] = e;
	return IBF_OK;
}

/* Fractions summed over several paths may exceed 1 by rounding. */
#define FRAC_SLACK 1e-9

ibf_status_t ibf_mmf_problem_check(const ibf_mmf_problem_t *p,
				   ibf_err_t *err)
{
	uint32_t k;
	size_t e;

	for (k = 0; k < p->nflows; k++) {
		if (p->first[k + 1] == p->first[k])
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "flow %u uses no link (its rate "
					   "would be unbounded)", k);
		if (!p->weight[k])
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "flow %u has weight 0", k);
		for (e = p->first[k]; e < p->first[k + 1]; e++) {
			uint32_t l = p->link[e];

			if (!(p->frac[e] > 0 && p->frac[e] <= 1 + FRAC_SLACK))
				return ibf_err_set(err, IBF_ERR_INVALID,
						   "flow %u: fraction %g on "
						   "link %u is outside (0, 1]",
						   k, p->frac[e], l);
			if (l >= p->nlinks)
				return ibf_err_set(err, IBF_ERR_RANGE,
						   "flow %u: link %u out of "
						   "range (%u links)", k, l,
						   p->nlinks);
			if (!(p->capacity[l] > 0) || !isfinite(p->capacity[l]))
				return ibf_err_set(err, IBF_ERR_INVALID,
						   "flow %u: link %u has "
						   "capacity %g", k, l,
						   p->capacity[l]);
		}
	}
	return IBF_OK;
}

/* ---- indexed binary min-heap of links by saturation level --------------- */

struct heap {
	uint32_t *item;   /* heap order */
	uint32_t *pos;    /* link -> index in item, UINT32_MAX if absent */
	double *key;      /* per link */
	uint32_t n;
};

static void heap_swap(struct heap *h, uint32_t i, uint32_t j)
{
	uint32_t a = h->item[i], b = h->item[j];

	h->item[i] = b;
	h->item[j] = a;
	h->pos[b] = i;
	h->pos[a] = j;
}

static void heap_up(struct heap *h, uint32_t i)
{
	while (i > 0) {
		uint32_t up = (i - 1) / 2;

		if (h->key[h->item[up]] <= h->key[h->item[i]])
			break;
		heap_swap(h, i, up);
		i = up;
	}
}

static void heap_down(struct heap *h, uint32_t i)
{
	for (;;) {
		uint32_t c = 2 * i + 1, m = i;

		if (c < h->n && h->key[h->item[c]] < h->key[h->item[m]])
			m = c;
		if (c + 1 < h->n && h->key[h->item[c + 1]] < h->key[h->item[m]])
			m = c + 1;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static void heap_remove(struct heap *h, uint32_t l)
{
	uint32_t i = h->pos[l];

	h->pos[l] = UINT32_MAX;
	if (i == --h->n)
		return;
	h->item[i] = h->item[h->n];
	h->pos[h->item[i]] = i;
	heap_up(h, i);
	heap_down(h, h->pos[h->item[i]]);
}

static void heap_update(struct heap *h, uint32_t l, double key)
{
	double old = h->key[l];

	h->key[l] = key;
	if (key < old)
		heap_up(h, h->pos[l]);
	else
		heap_down(h, h->pos[l]);
}

/* ---- fast solver -------------------------------------------------------- */

struct fast {
	const ibf_mmf_problem_t *p;
	double *rem;       /* capacity minus the load of frozen flows */
	double *sum;       /* sum of weight * fraction of unfrozen flows */
	uint32_t *nact;    /* unfrozen flows through the link */
	size_t *lfirst;    /* link -> flows CSR */
	uint32_t *lflow;
	uint8_t *frozen;
	struct heap h;
};

static void fast_free(struct fast *s)
{
	free(s->rem);
	free(s->sum);
	free(s->nact);
	free(s->lfirst);
	free(s->lflow);
	free(s->frozen);
	free(s->h.item);
	free(s->h.pos);
	free(s->h.key);
}

static int fast_init(struct fast *s, const ibf_mmf_problem_t *p)
{
	uint32_t L = p->nlinks, k, l;
	size_t E = p->first[p->nflows], e;

	memset(s, 0, sizeof(*s));
	s->p = p;
	s->rem = malloc((L + 1) * sizeof(*s->rem));
	s->sum = calloc(L + 1, sizeof(*s->sum));
	s->nact = calloc(L + 1, sizeof(*s->nact));
	s->lfirst = calloc((size_t)L + 1, sizeof(*s->lfirst));
	s->lflow = malloc((E + 1) * sizeof(*s->lflow));
	s->frozen = calloc((size_t)p->nflows + 1, 1);
	s->h.item = malloc((L + 1) * sizeof(*s->h.item));
	s->h.pos = malloc((L + 1) * sizeof(*s->h.pos));
	s->h.key = malloc((L + 1) * sizeof(*s->h.key));
	if (!s->rem || !s->sum || !s->nact || !s->lfirst || !s->lflow ||
	    !s->frozen || !s->h.item || !s->h.pos || !s->h.key)
		return -1;
	for (k = 0; k < p->nflows; k++)
		for (e = p->first[k]; e < p->first[k + 1]; e++) {
			l = p->link[e];
			s->nact[l]++;
			s->sum[l] += (double)p->weight[k] * p->frac[e];
		}
	/* lfirst[l] = end of link l's slice while filling, start after. */
	for (l = 0, e = 0; l < L; l++) {
		e += s->nact[l];
		s->lfirst[l] = e;
	}
	s->lfirst[L] = e;
	for (k = p->nflows; k-- > 0;)
		for (e = p->first[k]; e < p->first[k + 1]; e++)
			s->lflow[--s->lfirst[p->link[e]]] = k;
	for (l = 0; l < L; l++) {
		s->rem[l] = p->capacity[l];
		s->h.pos[l] = UINT32_MAX;
		if (!s->nact[l])
			continue;
		s->h.key[l] = s->rem[l] / s->sum[l];
		s->h.pos[l] = s->h.n;
		s->h.item[s->h.n++] = l;
	}
	for (l = s->h.n / 2 + 1; l-- > 0;)
		if (l < s->h.n)
			heap_down(&s->h, l);
	return 0;
}

/* Freeze flow k at level t and update every other link it uses. */
static void freeze(struct fast *s, uint32_t k, double t, double *rate)
{
	const ibf_mmf_problem_t *p = s->p;
	size_t e;

	s->frozen[k] = 1;
	rate[k] = t;
	for (e = p->first[k]; e < p->first[k + 1]; e++) {
		uint32_t m = p->link[e];
		double a = (double)p->weight[k] * p->frac[e];

		s->rem[m] -= a * t;
		s->sum[m] -= a;
		if (s->h.pos[m] == UINT32_MAX)
			continue; /* the link being saturated */
		if (!--s->nact[m]) {
			heap_remove(&s->h, m);
			continue;
		}
		/* Mathematically the level only rises (t <= rem / sum);
		 * clamp so rounding cannot take it below t. */
		heap_update(&s->h, m, fmax(s->rem[m] / s->sum[m], t));
	}
}

ibf_status_t ibf_mmf_solve(const ibf_mmf_problem_t *p, double *rate,
			   ibf_mmf_stats_t *stats, ibf_err_t *err)
{
	ibf_mmf_stats_t st = { 0 };
	struct fast s;
	double level = 0;
	ibf_status_t rc;

	if ((rc = ibf_mmf_problem_check(p, err)) != IBF_OK)
		return rc;
	if (fast_init(&s, p)) {
		fast_free(&s);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	while (s.h.n) {
		uint32_t l = s.h.item[0];
		double t = fmax(s.h.key[l], level);
		size_t i;

		if (t > level || !st.rounds)
			st.rounds++;
		level = t;
		heap_remove(&s.h, l);
		for (i = s.lfirst[l]; i < s.lfirst[l + 1]; i++)
			if (!s.frozen[s.lflow[i]])
				freeze(&s, s.lflow[i], t, rate);
	}
	fast_free(&s);
	if (stats)
		*stats = st;
	return IBF_OK;
}

/* ---- summary ------------------------------------------------------------ */

struct ranked {
	double rate;
	uint32_t weight;
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->rate;
	double y = ((const struct ranked *)b)->rate;

	return x < y ? -1 : x > y;
}

/* Rate of copy number i (0-based) in ascending order. */
static double copy_rate(const struct ranked *r, uint64_t i)
{
	uint64_t seen = 0;

	for (;; r++) {
		seen += r->weight;
		if (i < seen)
			return r->rate;
	}
}

ibf_status_t ibf_mmf_summarize(const ibf_mmf_problem_t *p,
			       const double *rate, ibf_mmf_summary_t *s,
			       ibf_err_t *err)
{
	struct ranked *r;
	uint32_t k;

	memset(s, 0, sizeof(*s));
	if (!p->nflows)
		return IBF_OK;
	r = malloc((size_t)p->nflows * sizeof(*r));
	if (!r)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (k = 0; k < p->nflows; k++) {
		r[k].rate = rate[k];
		r[k].weight = p->weight[k];
		s->copies += p->weight[k];
		s->aggregate += (double)p->weight[k] * rate[k];
	}
	qsort(r, p->nflows, sizeof(*r), cmp_ranked);
	s->min = r[0].rate;
	s->median = (copy_rate(r, (s->copies - 1) / 2) +
		     copy_rate(r, s->copies / 2)) / 2;
	free(r);
	return IBF_OK;
}
