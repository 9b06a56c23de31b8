/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Benchmark of the all-pairs route check on a large fat tree.
 *
 *   bench_check [--xgft H:M1,..,MH:W1,..,WH] [--lmc N] [--runs N]
 *               [--naive-runs N] [--switches]
 *               [--write-topo FILE] [--write-lfts FILE]
 *
 * Builds XGFT(H; M; W) (default XGFT(3; 18,18,36; 1,18,18): 11,664 hosts,
 * 1,620 36-port switches) with its own small builder, fills the LFTs with a
 * simple shortest-path up/down routing (BFS from each destination's switch,
 * deterministic choice among equal next hops) and times ibf_check_run():
 * the per-DLID tree algorithm on 1 and 2 threads, and the naive per-pair
 * tracer.  Prints the median of the runs and pairs per second.  The
 * fabric and tables can be written out (ibnetdiscover, opensm-lfts.dump)
 * to time `ibflow check` itself on them.
 *
 * The routing here is bench scaffolding, not a routing engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/lfts_io.h>
#include <ibflow/topo_io.h>
#include <ibflow/check.h>
#include <ibflow/trace.h>

#define MAXH 8

struct xgft {
	unsigned h, m[MAXH + 1], w[MAXH + 1]; /* 1-based levels */
};

static int die(const char *what, const ibf_err_t *err)
{
	fprintf(stderr, "bench_check: %s: %s\n", what, err ? err->msg : "");
	exit(2);
}

static int parse_list(const char *s, unsigned *v, unsigned n)
{
	unsigned i;
	char *end;

	for (i = 1; i <= n; i++) {
		v[i] = (unsigned)strtoul(s, &end, 10);
		if (end == s || !v[i] || (i < n && *end != ',') ||
		    (i == n && *end && *end != ':'))
			return -1;
		s = end + 1;
	}
	return 0;
}

static int parse_xgft(const char *s, struct xgft *x)
{
	const char *p;
	char *end;

	x->h = (unsigned)strtoul(s, &end, 10);
	if (*end != ':' || x->h < 1 || x->h > MAXH)
		return -1;
	if (parse_list(end + 1, x->m, x->h))
		return -1;
	p = strchr(end + 1, ':');
	if (!p)
		return -1;
	return parse_list(p + 1, x->w, x->h);
}

/* Level l node (u, v), u < M_l = prod_{i>l} m_i, v < W_l = prod_{i<=l} w_i,
 * has id base[l] + u * W_l + v.  Its children (u * m_l + a, v mod W_{l-1}):
 * down port 1 + a; its parents (u / m_{l+1}, v + W_l * b): up port
 * m_l + 1 + b (hosts: 1 + b). */
static ibf_fabric_t *build_xgft(const struct xgft *x, unsigned lmc)
{
	unsigned long M[MAXH + 2], W[MAXH + 2], base[MAXH + 2], n, id;
	ibf_finalize_opts_t fo = { .lmc = lmc };
	unsigned l, b, ports;
	ibf_fabric_t *f;
	ibf_err_t err;
	char name[64];

	M[x->h] = 1;
	for (l = x->h; l > 0; l--)
		M[l - 1] = M[l] * x->m[l];
	W[0] = 1;
	for (l = 1; l <= x->h; l++)
		W[l] = W[l - 1] * x->w[l];
	if (ibf_fabric_create(&f) != IBF_OK)
		die("out of memory", NULL);
	for (l = 0, id = 0; l <= x->h; l++) {
		base[l] = id;
		ports = l == 0 ? x->w[1] :
			x->m[l] + (l < x->h ? x->w[l + 1] : 0);
		for (n = 0; n < M[l] * W[l]; n++, id++) {
			if (l == 0)
				snprintf(name, sizeof(name), "h%05lu HCA-1", n);
			else
				snprintf(name, sizeof(name), "sw L%u #%lu", l,
					 n);
			if (ibf_fabric_add_node(f, l ? IBF_NODE_SWITCH :
						IBF_NODE_CA, 0, name, ports,
						NULL, &err) != IBF_OK)
				die("add node", &err);
		}
	}
	for (l = 1; l <= x->h; l++)
		for (n = 0; n < M[l - 1] * W[l - 1]; n++) {
			unsigned long u = n / W[l - 1], v = n % W[l - 1];
			unsigned up0 = l == 1 ? 1 : x->m[l - 1] + 1;

			for (b = 0; b < x->w[l]; b++) {
				unsigned long pu = u / x->m[l];
				unsigned long pv = v + W[l - 1] * b;

				if (ibf_fabric_link(f, base[l - 1] + n, up0 + b,
						    base[l] + pu * W[l] + pv,
						    1 + u % x->m[l], 4,
						    IBF_SPEED_EDR, &err))
					die("link", &err);
			}
		}
	if (ibf_fabric_finalize(f, &fo, &err) != IBF_OK)
		die("finalize", &err);
	return f;
}

/* ---- scaffolding routing: BFS per destination switch ------------------- */

struct router {
	const ibf_fabric_t *f;
	ibf_lfts_t *l;
	uint32_t *dist, *queue;
	uint8_t *cand;     /* [switch][IBF_MAX_PORTS]: equal-cost ports */
	uint8_t *ncand;
};

static uint32_t peer_switch(const ibf_fabric_t *f, ibf_node_id_t n,
			    unsigned p)
{
	ibf_port_id_t q = f->ports[f->nodes[n].first_port + p].peer;

	if (q == IBF_NO_ID || !ibf_node_is_switch(f, f->ports[q].node))
		return IBF_NO_ID;
	return f->switch_index[f->ports[q].node];
}

/* Hop distances of every switch to switch t, and per switch the ports
 * leading one hop closer. */
static void bfs(struct router *r, uint32_t t)
{
	const ibf_fabric_t *f = r->f;
	uint32_t head = 0, tail = 0, s, x;
	unsigned p;

	for (s = 0; s < f->nswitches; s++)
		r->dist[s] = UINT32_MAX;
	r->dist[t] = 0;
	r->queue[tail++] = t;
	while (head < tail) {
		s = r->queue[head++];
		for (p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			x = peer_switch(f, f->switches[s], p);
			if (x != IBF_NO_ID && r->dist[x] == UINT32_MAX) {
				r->dist[x] = r->dist[s] + 1;
				r->queue[tail++] = x;
			}
		}
	}
	for (s = 0; s < f->nswitches; s++) {
		r->ncand[s] = 0;
		for (p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			x = peer_switch(f, f->switches[s], p);
			if (x != IBF_NO_ID && r->dist[x] + 1 == r->dist[s])
				r->cand[(size_t)s * IBF_MAX_PORTS +
					r->ncand[s]++] = (uint8_t)p;
		}
	}
}

/* Route lid towards switch t, which delivers it through port last (0 for
 * its own LID); equal next hops are picked by LID so LMC paths differ. */
static void route_lid(struct router *r, uint32_t t, unsigned lid,
		      unsigned last)
{
	uint32_t s;

	for (s = 0; s < r->f->nswitches; s++) {
		if (s == t)
			ibf_lfts_set(r->l, s, lid, (uint8_t)last);
		else if (r->ncand[s])
			ibf_lfts_set(r->l, s, lid,
				     r->cand[(size_t)s * IBF_MAX_PORTS +
					     lid % r->ncand[s]]);
	}
}

static ibf_lfts_t *route(const ibf_fabric_t *f)
{
	struct router r = { .f = f };
	uint32_t s;
	unsigned p, k;

	if (ibf_lfts_create(f, &r.l) != IBF_OK)
		die("out of memory", NULL);
	r.dist = malloc(f->nswitches * sizeof(*r.dist));
	r.queue = malloc(f->nswitches * sizeof(*r.queue));
	r.cand = malloc((size_t)f->nswitches * IBF_MAX_PORTS);
	r.ncand = malloc(f->nswitches);
	if (!r.dist || !r.queue || !r.cand || !r.ncand)
		die("out of memory", NULL);
	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t n = f->switches[s];

		bfs(&r, s);
		route_lid(&r, s, f->ports[f->nodes[n].first_port].lid, 0);
		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t q = f->ports[f->nodes[n].first_port + p]
						  .peer;

			if (q == IBF_NO_ID || ibf_node_is_switch(f,
							f->ports[q].node))
				continue;
			for (k = 0; k < (1u << f->ports[q].lmc); k++)
				route_lid(&r, s, f->ports[q].lid + k, p);
		}
	}
	free(r.dist);
	free(r.queue);
	free(r.cand);
	free(r.ncand);
	return r.l;
}

/* ---- timing ------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double time_check(const ibf_lfts_t *l, const ibf_check_opts_t *o,
			 unsigned runs, ibf_check_report_t *keep)
{
	double t[64];
	unsigned i;
	ibf_err_t err;

	for (i = 0; i < runs; i++) {
		ibf_check_report_t r;
		double t0 = now();

		if (ibf_check_run(l, o, &r, &err) != IBF_OK)
			die("check", &err);
		t[i] = now() - t0;
		if (i == 0)
			*keep = r;
		else
			ibf_check_report_free(&r);
	}
	qsort(t, runs, sizeof(t[0]), cmp_double);
	return t[runs / 2];
}

static void report_line(const char *what, const ibf_check_report_t *r,
			double sec, unsigned runs)
{
	printf("%-22s %12llu pairs  median %8.3f s of %u  %8.1f Mpairs/s  "
	       "defects %llu  hops %u/%.3f/%u\n", what,
	       (unsigned long long)r->all.pairs, sec, runs,
	       r->all.pairs / sec / 1e6,
	       (unsigned long long)ibf_check_defects(r), r->all.hop_min,
	       r->all.count[IBF_TRACE_OK] ?
	       (double)r->all.hop_sum / r->all.count[IBF_TRACE_OK] : 0.0,
	       r->all.hop_max);
}

static void same(const ibf_check_report_t *a, const ibf_check_report_t *b)
{
	unsigned i;

	if (a->all.pairs != b->all.pairs || a->all.hop_sum != b->all.hop_sum ||
	    a->hop_hist_len != b->hop_hist_len)
		die("algorithms disagree", NULL);
	for (i = 0; i < IBF_TRACE_NRESULTS; i++)
		if (a->all.count[i] != b->all.count[i])
			die("algorithms disagree", NULL);
	for (i = 0; i < a->hop_hist_len; i++)
		if (a->hop_hist[i] != b->hop_hist[i])
			die("algorithms disagree", NULL);
}

int main(int argc, char **argv)
{
	struct xgft x = { 3, { 0, 18, 18, 36 }, { 0, 1, 18, 18 } };
	unsigned lmc = 0, runs = 5, naive_runs = 5, i;
	const char *wtopo = NULL, *wlfts = NULL;
	ibf_err_t err;
	ibf_check_opts_t o = IBF_CHECK_OPTS_DEFAULT;
	ibf_check_report_t r1, r2, rn;
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	double t0, sec;

	for (i = 1; i < (unsigned)argc; i++) {
		if (!strcmp(argv[i], "--xgft") && i + 1 < (unsigned)argc) {
			if (parse_xgft(argv[++i], &x))
				die("bad --xgft (H:M1,..:W1,..)", NULL);
		} else if (!strcmp(argv[i], "--lmc") && i + 1 < (unsigned)argc) {
			lmc = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--runs") && i + 1 < (unsigned)argc) {
			runs = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--naive-runs") &&
			   i + 1 < (unsigned)argc) {
			naive_runs = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--write-topo") &&
			   i + 1 < (unsigned)argc) {
			wtopo = argv[++i];
		} else if (!strcmp(argv[i], "--write-lfts") &&
			   i + 1 < (unsigned)argc) {
			wlfts = argv[++i];
		} else if (!strcmp(argv[i], "--switches")) {
			o.switches = true;
		} else {
			fprintf(stderr, "usage: bench_check [--xgft H:M..:W..] "
				"[--lmc N] [--runs N] [--naive-runs N] "
				"[--switches] [--write-topo FILE] "
				"[--write-lfts FILE]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > 64 || naive_runs > 64 || lmc > IBF_LMC_MAX)
		die("runs must be 1..64, LMC 0..7", NULL);

	t0 = now();
	f = build_xgft(&x, lmc);
	printf("fabric: XGFT(%u; ", x.h);
	for (i = 1; i <= x.h; i++)
		printf("%u%s", x.m[i], i < x.h ? "," : "; ");
	for (i = 1; i <= x.h; i++)
		printf("%u%s", x.w[i], i < x.h ? "," : ")");
	printf(" LMC %u: %u endpoints, %u switches, top LID %u (%.2f s)\n",
	       lmc, f->nendpoints, f->nswitches, f->lid_top, now() - t0);
	t0 = now();
	l = route(f);
	printf("routing (bench BFS up/down): %.2f s\n", now() - t0);
	if (wtopo && ibf_topo_write_file(f, IBF_TOPO_IBNETDISCOVER, wtopo,
					 &err) != IBF_OK)
		die("write topology", &err);
	if (wlfts && ibf_lfts_write_file(l, wlfts, &err) != IBF_OK)
		die("write LFTs", &err);

	o.nthreads = 1;
	sec = time_check(l, &o, runs, &r1);
	report_line("trees, 1 thread", &r1, sec, runs);
	o.nthreads = 2;
	sec = time_check(l, &o, runs, &r2);
	report_line("trees, 2 threads", &r2, sec, runs);
	same(&r1, &r2);
	if (naive_runs) {
		o.naive = true;
		sec = time_check(l, &o, naive_runs, &rn);
		report_line("naive, 2 threads", &rn, sec, naive_runs);
		same(&r1, &rn);
		ibf_check_report_free(&rn);
		o.nthreads = 1;
		sec = time_check(l, &o, naive_runs, &rn);
		report_line("naive, 1 thread", &rn, sec, naive_runs);
		same(&r1, &rn);
		ibf_check_report_free(&rn);
	}
	ibf_check_report_free(&r1);
	ibf_check_report_free(&r2);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	return 0;
}
