/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Ordered channel dependency graphs (routing/cdg.h): every verdict of the
 * incremental order (a dependency refused when it closes a cycle) against
 * Kahn's algorithm run from scratch on a dense copy of the graph, on
 * seeded random sequences of insertions, repeated refused insertions and
 * take-backs (so that refusals are kept, checked again by their
 * witnesses, and forgotten); after each step the order must be a
 * permutation that every dependency respects.  Hand cases first: a
 * three-cycle, a refusal that must be lifted by a take-back, and the
 * unordered cycle search.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "routing/cdg.h"

/* In these tests channel b leaves every head switch by port b. */
#define MAXCH 64u

/* ---- the reference: a dense copy and Kahn's algorithm ------------------ */

struct ref {
	uint32_t n;
	bool arc[MAXCH][MAXCH];
};

/* Is the reference graph plus a -> b acyclic? Kahn's algorithm: peel
 * channels without predecessors until none is left (acyclic) or every
 * one left has a predecessor (a cycle). */
static bool ref_acyclic_with(const struct ref *r, uint32_t a, uint32_t b)
{
	uint32_t indeg[MAXCH] = { 0 }, queue[MAXCH], head = 0, tail = 0;
	uint32_t x, y;

	for (x = 0; x < r->n; x++)
		for (y = 0; y < r->n; y++)
			indeg[y] += r->arc[x][y] || (x == a && y == b);
	for (x = 0; x < r->n; x++)
		if (!indeg[x])
			queue[tail++] = x;
	while (head < tail) {
		x = queue[head++];
		for (y = 0; y < r->n; y++)
			if ((r->arc[x][y] || (x == a && y == b)) &&
			    --indeg[y] == 0)
				queue[tail++] = y;
	}
	return tail == r->n;
}

/* The graph holds exactly the reference's dependencies, and its order is
 * a permutation of 0..n-1 that each of them respects. */
static void check_same(const ibf_cdg_t *g, const struct ref *r)
{
	bool seen[MAXCH] = { false };
	uint64_t ndeps = 0;
	uint32_t x, y;

	for (x = 0; x < r->n; x++) {
		assert_true(g->ord[x] < r->n);
		assert_false(seen[g->ord[x]]);
		seen[g->ord[x]] = true;
	}
	for (x = 0; x < r->n; x++)
		for (y = 0; y < r->n; y++) {
			assert_int_equal(ibf_cdg_has(g, x, y), r->arc[x][y]);
			if (r->arc[x][y]) {
				ndeps++;
				assert_true(g->ord[x] < g->ord[y]);
			}
		}
	assert_int_equal(g->ndeps, ndeps);
}

/* ---- hand cases -------------------------------------------------------- */

/* An ordered graph of 4 channels and its scratch, for the hand cases. */
struct hand {
	ibf_cdg_t g;
	ibf_cdg_scratch_t s;
};

static int hand_setup(void **state)
{
	struct hand *h = calloc(1, sizeof(*h));

	if (!h || ibf_cdg_init(&h->g, 4, true) ||
	    ibf_cdg_scratch_init(&h->s, 4))
		return -1;
	*state = h;
	return 0;
}

static int hand_teardown(void **state)
{
	struct hand *h = *state;

	ibf_cdg_scratch_free(&h->s);
	ibf_cdg_free(&h->g);
	free(h);
	return 0;
}

static void three_cycle(void **state)
{
	struct hand *h = *state;

	/* 2 -> 1 -> 0 goes against the initial order: two reorderings */
	assert_int_equal(ibf_cdg_insert(&h->g, &h->s, 2, 1, 1), 0);
	assert_int_equal(ibf_cdg_insert(&h->g, &h->s, 1, 0, 0), 0);
	assert_true(h->g.ord[2] < h->g.ord[1] && h->g.ord[1] < h->g.ord[0]);
	assert_int_equal(ibf_cdg_insert(&h->g, &h->s, 0, 2, 2), 1);
	assert_int_equal(ibf_cdg_insert(&h->g, &h->s, 0, 2, 2), 1); /* again */
	assert_false(ibf_cdg_has(&h->g, 0, 2));
	assert_int_equal(h->g.ndeps, 2);
	/* 2 -> 0 closes nothing: a shortcut of 2 -> 1 -> 0 */
	assert_int_equal(ibf_cdg_insert(&h->g, &h->s, 2, 0, 0), 0);
}

/* A refusal is remembered; taking back a dependency of its cycle must
 * lift it, and re-inserting that dependency must bring it back.  Each
 * row: insert (1) or take back (0) a -> b, and the verdict wanted. */
static void refusal_lifted(void **state)
{
	static const struct { int ins; uint32_t a, b; int rc; } seq[] = {
		{ 1, 1, 2, 0 }, { 1, 2, 3, 0 }, { 1, 3, 1, 1 },
		{ 1, 3, 0, 0 }, { 1, 3, 1, 1 },
		{ 0, 3, 0, 0 }, { 1, 3, 1, 1 },  /* not on the cycle */
		{ 0, 2, 3, 0 }, { 1, 3, 1, 0 },  /* on it: lifted */
		{ 0, 3, 1, 0 }, { 1, 2, 3, 0 }, { 1, 3, 1, 1 },
	};
	struct hand *h = *state;
	size_t i;

	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		if (!seq[i].ins) {
			ibf_cdg_remove_newest(&h->g, seq[i].a, seq[i].b,
					      seq[i].b);
			continue;
		}
		if (ibf_cdg_insert(&h->g, &h->s, seq[i].a, seq[i].b,
				   seq[i].b) != seq[i].rc)
			fail_msg("step %zu: %u -> %u not %d", i, seq[i].a,
				 seq[i].b, seq[i].rc);
	}
	assert_int_equal(h->g.ndeps, 2);
}

static uint32_t next_is_port(void *arg, uint32_t c, unsigned port)
{
	(void)arg;
	(void)c;
	return port;
}

/* The unordered graph's cycle search on a marked ring 0 -> 1 -> 2 -> 0
 * with a tail 3 -> 0, and again with the ring cut. */
static void find_cycle(void **state)
{
	ibf_cdg_t g;
	uint32_t *cyc, len, i;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_cdg_init(&g, 4, false), 0);
	ibf_cdg_mark(&g, 3, 0);
	ibf_cdg_mark(&g, 0, 1);
	ibf_cdg_mark(&g, 1, 2);
	assert_int_equal(ibf_cdg_find_cycle(&g, next_is_port, NULL, &cyc,
					    &len, &err), IBF_OK);
	assert_int_equal(len, 0);
	ibf_cdg_mark(&g, 2, 0);
	assert_int_equal(ibf_cdg_find_cycle(&g, next_is_port, NULL, &cyc,
					    &len, &err), IBF_OK);
	assert_int_equal(len, 3);
	for (i = 0; i < len; i++) /* each depends on the one before */
		assert_true(ibf_cdg_has(&g, cyc[(i + len - 1) % len], cyc[i]));
	free(cyc);
	ibf_cdg_free(&g);
}

/* ---- random sequences against the reference ----------------------------- */

static uint64_t rnd(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

struct run {
	ibf_cdg_t g;
	struct ref r;
	uint32_t stack[MAXCH * MAXCH][2]; /* accepted, oldest first */
	uint32_t nstack;
	uint32_t refused[MAXCH * MAXCH][2];
	uint32_t nrefused;
	unsigned accepted, refusals;
};

/* Insert a -> b into the graph, the verdict checked against Kahn's. */
static void step_insert(struct run *u, ibf_cdg_scratch_t *s, uint32_t a,
			uint32_t b)
{
	bool want = ref_acyclic_with(&u->r, a, b);
	int rc = ibf_cdg_insert(&u->g, s, a, b, b);

	if (rc != (want ? 0 : 1))
		fail_msg("%u -> %u: verdict %d, Kahn's %s", a, b, rc,
			 want ? "acyclic" : "a cycle");
	if (want) {
		u->r.arc[a][b] = true;
		u->stack[u->nstack][0] = a;
		u->stack[u->nstack++][1] = b;
		u->accepted++;
	} else {
		u->refused[u->nrefused % (MAXCH * MAXCH)][0] = a;
		u->refused[u->nrefused++ % (MAXCH * MAXCH)][1] = b;
		u->refusals++;
	}
}

static void step(struct run *u, ibf_cdg_scratch_t *s, uint64_t *x)
{
	uint32_t n = u->r.n, a, b, k, kind = (uint32_t)(rnd(x) % 16);

	if (kind < 3 && u->nstack) { /* take back the newest few */
		for (k = 1 + (uint32_t)(rnd(x) % 4); k && u->nstack; k--) {
			u->nstack--;
			a = u->stack[u->nstack][0];
			b = u->stack[u->nstack][1];
			ibf_cdg_remove_newest(&u->g, a, b, b);
			u->r.arc[a][b] = false;
		}
	} else if (kind < 8 && u->nrefused) { /* ask again */
		k = (uint32_t)(rnd(x) % (u->nrefused < MAXCH * MAXCH ?
					 u->nrefused : MAXCH * MAXCH));
		a = u->refused[k][0];
		b = u->refused[k][1];
		if (!u->r.arc[a][b])
			step_insert(u, s, a, b);
	} else {
		a = (uint32_t)(rnd(x) % n);
		b = (uint32_t)(rnd(x) % n);
		if (a != b && !u->r.arc[a][b])
			step_insert(u, s, a, b);
	}
	check_same(&u->g, &u->r);
}

/* Two graphs of different density share one scratch, as the VLs of a
 * routing do; counters start near their wrap-around. */
static void random_vs_kahn(void **state)
{
	static struct run u[2];
	ibf_cdg_scratch_t s;
	uint64_t seed;
	unsigned total_acc = 0, total_ref = 0;

	(void)state;
	for (seed = 1; seed <= 60; seed++) {
		uint64_t x = seed;
		uint32_t n = 4 + (uint32_t)(seed % 7) * 10, i, v;

		assert_true(n <= MAXCH);
		assert_int_equal(ibf_cdg_scratch_init(&s, n), 0);
		s.epoch = UINT32_MAX - 50;
		for (v = 0; v < 2; v++) {
			memset(&u[v], 0, sizeof(u[v]));
			u[v].r.n = n;
			assert_int_equal(ibf_cdg_init(&u[v].g, n, true), 0);
			if (seed % 2)
				u[v].g.removals = UINT32_MAX - 20;
			if (seed % 3 == 0) /* the witnesses start over often */
				u[v].g.wit_max = 24;
		}
		for (i = 0; i < 40 * n; i++)
			step(&u[rnd(&x) % 4 == 0], &s, &x);
		for (v = 0; v < 2; v++) {
			total_acc += u[v].accepted;
			total_ref += u[v].refusals;
			ibf_cdg_free(&u[v].g);
		}
		ibf_cdg_scratch_free(&s);
	}
	/* the sequences exercised both verdicts, many times */
	assert_true(total_acc > 1000);
	assert_true(total_ref > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(three_cycle, hand_setup,
						hand_teardown),
		cmocka_unit_test_setup_teardown(refusal_lifted, hand_setup,
						hand_teardown),
		cmocka_unit_test(find_cycle),
		cmocka_unit_test(random_vs_kahn),
	};
	return cmocka_run_group_tests_name("cdg", tests, NULL, NULL);
}
