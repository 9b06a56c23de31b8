/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The liquid all-to-all's setup as libibflow_ucx runs it (its own
 * planner and slice code, ucx_component/src/coll/a2a_plan.c), for a
 * communicator of simulated ranks in one process: the planner's work,
 * then every other rank taking its host's slice, one after the other.
 * Shared by tests/unit/test_a2a_setup.c and the benchmark
 * tests/ucx/a2a_setup_bench.c.
 *
 * Besides the figures, the ranks' parts are checked against each other:
 * a host pair's frame as its senders and its receivers keep it, every
 * other host's ranks once per rank, each frame's host pairs sharing no
 * egress port (traced through the LFTs here), and every release a rank
 * waits for sent by exactly one rank's list; up to 64 hosts, the
 * slices' predecessor and release lists against a brute force.
 */
#ifndef IBFLOW_TEST_A2A_SIM_H
#define IBFLOW_TEST_A2A_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct a2a_sim_result {
	int verdict;               /* ibf_ucx_status_t of the planner */
	char why[512];             /* its reason, verdict not OK */
	uint32_t nranks, nhosts, nframes, duration, rr_frames;
	double plan_cpu_s;         /* the planner, CPU seconds */
	size_t slices_bytes;       /* every host's slice */
	double take_max_s;         /* the slowest other rank, CPU seconds */
	size_t kept_max;           /* bytes any other rank keeps */
	size_t peak_max;           /* kept + its slice + the expansion's
				      scratch, at most, of any other rank */
	size_t slice_max;          /* bytes of the largest slice */
	char bad[256];             /* the first inconsistency, or "" */
} a2a_sim_result_t;

/* hosts of the fabric SPEC routed by ENGINE: nhosts endpoints spread
 * evenly over the fabric's in node order, host h with ppn[h] ranks,
 * ranks numbered host by host.  max_transfers: the planner's limit (0:
 * its own).  check: the cross-checks too (memory: 16 bytes per rank and
 * frame).  Returns 0, or -1 with res->why saying what could not be
 * built (the fabric, the routing). */
int a2a_sim_run(const char *spec, const char *engine, uint32_t nhosts,
		const uint32_t *ppn, uint64_t max_transfers, bool check,
		a2a_sim_result_t *res);
/* The same, with (check false) only the planner and every every-th other
 * rank taking its part: ranks 1, 1 + every, ...  With every = ranks per
 * host, one rank of each host (a host's ranks get one slice). */
int a2a_sim_run_every(const char *spec, const char *engine,
		      uint32_t nhosts, const uint32_t *ppn,
		      uint64_t max_transfers, bool check, uint32_t every,
		      a2a_sim_result_t *res);
/* The same as auto asks it: the least gain need_gain (0: any). */
int a2a_sim_run_gain(const char *spec, const char *engine, uint32_t nhosts,
		     const uint32_t *ppn, uint64_t max_transfers,
		     double need_gain, bool check, a2a_sim_result_t *res);
/* All of the above: need_gain as auto asks it, every as in _every. */
int a2a_sim_run_with(const char *spec, const char *engine, uint32_t nhosts,
		     const uint32_t *ppn, uint64_t max_transfers,
		     double need_gain, bool check, uint32_t every,
		     a2a_sim_result_t *res);


#endif
