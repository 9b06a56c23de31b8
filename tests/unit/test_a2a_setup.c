/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The liquid all-to-all's setup code of libibflow_ucx (its planner and
 * each rank's part, ucx_component/src/coll/a2a_plan.c) for communicators
 * of 2,048 and 16,384 simulated ranks in one process (tests/ucx/
 * a2a_sim.c): the plan is made, every rank's part agrees with the
 * others' (host pairs' frames, releases), no frame has an egress port
 * twice, and what each rank but the planner keeps is counted against an
 * O(ranks) bound: at most KEPT_PER_RANK bytes per rank of the
 * communicator.  A rank that held the whole traffic would keep
 * n (n - 1) frames alone, 4 n^2 bytes: 16 MiB at 2,048 ranks against the
 * bound's 512 KiB.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#ifdef IBF_HAVE_UCX_COMPONENT
#include "ibflow/ucx.h"
#include "ucx/a2a_sim.h"

/* Per rank: a send and a receive peer, its frame maps and release
 * lists (a release per link of a predecessor host pair, up to the
 * paths' length) - 256 bytes is the bound, 64 words */
#define KEPT_PER_RANK 256

static uint32_t *fill(uint32_t nhosts, uint32_t ppn)
{
	uint32_t *p = malloc(nhosts * sizeof(*p));

	assert_non_null(p);
	for (uint32_t h = 0; h < nhosts; h++)
		p[h] = ppn;
	return p;
}

static void run_case(const char *spec, const char *engine, uint32_t nhosts,
		     const uint32_t *ppn, uint32_t want_ranks)
{
	a2a_sim_result_t r;

	assert_int_equal(a2a_sim_run(spec, engine, nhosts, ppn, 0, true, &r),
			 0);
	print_message("# %s %s: %u ranks on %u hosts: %u frames (bound %u, "
		      "round robin %u), planner %.3f s CPU, slices %zu "
		      "bytes; other ranks at most %.4f s, kept %zu bytes, "
		      "peak %zu bytes%s%s\n", spec, engine, r.nranks,
		      r.nhosts, r.nframes, r.duration, r.rr_frames,
		      r.plan_cpu_s, r.slices_bytes, r.take_max_s, r.kept_max,
		      r.peak_max, r.why[0] ? "; " : "", r.why);
	assert_int_equal(r.verdict, IBF_UCX_OK);
	assert_int_equal(r.nranks, want_ranks);
	if (r.bad[0])
		fail_msg("%s", r.bad);
	assert_true(r.nframes >= r.duration);
	assert_true(r.kept_max > 0);
	assert_true(r.kept_max <= (size_t)KEPT_PER_RANK * r.nranks);
}

/* 2,048 ranks: 1,024 hosts x 2 of the scale table's PGFT */
static void test_2048(void **state)
{
	uint32_t *p = fill(1024, 2);

	(void)state;
	run_case("pgft:3:16,8,8:1,8,8:1,1,1", "dmodk", 1024, p, 2048);
	free(p);
}

/* 16,384 ranks: 128 hosts x 128 */
static void test_16384(void **state)
{
	uint32_t *p = fill(128, 128);

	(void)state;
	run_case("pgft:3:16,8,8:1,8,8:1,1,1", "dmodk", 128, p, 16384);
	free(p);
}

/* Hosts of 1..5 ranks on a Dragonfly; one host alone (no frame) */
static void test_mixed(void **state)
{
	uint32_t p[24], n = 0, one = 6;

	(void)state;
	for (uint32_t h = 0; h < 24; h++)
		n += p[h] = h % 5 + 1;
	run_case("dragonfly:4,2,2", "minhop", 24, p, n);
	run_case("xgft:2:4,4:1,4", "dmodk", 1, &one, 6);
}

/* Up to 64 hosts the slices' predecessor and release lists are also
 * computed again by brute force from the traced paths (a2a_sim.c,
 * check_preds): a tree, a Dragonfly, 64 hosts of the scale table's PGFT */
static void test_brute(void **state)
{
	uint32_t *p = fill(64, 3);

	(void)state;
	run_case("xgft:2:4,4:1,4", "dmodk", 16, p, 48);
	run_case("dragonfly:4,2,2", "minhop", 32, p, 96);
	run_case("pgft:3:16,8,8:1,8,8:1,1,1", "dmodk", 64, p, 192);
	free(p);
}

/* A limit below the host pairs: the verdict, with the reason */
static void test_limit(void **state)
{
	uint32_t *p = fill(16, 2);
	a2a_sim_result_t r;

	(void)state;
	assert_int_equal(a2a_sim_run("xgft:2:4,4:1,4", "dmodk", 16, p, 100,
				     true, &r), 0);
	assert_int_equal(r.verdict, IBF_UCX_ERR_SCHEDULE);
	assert_string_equal(r.why, "all-to-all schedule: 16 hosts are 240 "
			    "host pairs, more than the planner takes (100)");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_brute),
		cmocka_unit_test(test_2048),
		cmocka_unit_test(test_16384),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
	printf("ok - a2a setup # SKIP the UCX component is not built "
	       "(configure found no UCX devel headers or libibverbs)\n");
	return 0;
}
#endif
