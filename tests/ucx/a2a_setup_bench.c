/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The all-to-all setup's cost at a communicator shape, simulated ranks
 * in one process (a2a_sim.h): one line per run.
 *
 *   ibflow-a2a-setup-bench SPEC ENGINE HOSTS PPN [RUNS [EVERY]]
 *
 * EVERY (default 1): of the non-planner ranks only 1, 1 + EVERY, ...
 * take their part (EVERY = PPN: one rank per host).
 *
 * prints "ranks R hosts H frames F bound D rr RR planner_cpu_s P
 * slices_bytes S rank_cpu_s T rank_kept_bytes K rank_peak_bytes M ok"
 * per run (tests/bench/bench_a2a_setup.sh takes medians).
 */
#include <stdio.h>
#include <stdlib.h>

#include "a2a_sim.h"

int main(int argc, char **argv)
{
	unsigned long hosts, ppn, runs = 1, every = 1;
	uint32_t *p;
	a2a_sim_result_t r;

	if (argc < 5 || !(hosts = strtoul(argv[3], NULL, 10)) ||
	    !(ppn = strtoul(argv[4], NULL, 10)) ||
	    (argc > 5 && !(runs = strtoul(argv[5], NULL, 10))) ||
	    (argc > 6 && !(every = strtoul(argv[6], NULL, 10)))) {
		fprintf(stderr, "usage: %s SPEC ENGINE HOSTS PPN [RUNS "
			"[EVERY]]\n",
			argv[0]);
		return 2;
	}
	p = malloc(hosts * sizeof(*p));
	if (!p)
		return 1;
	for (unsigned long h = 0; h < hosts; h++)
		p[h] = (uint32_t)ppn;
	for (unsigned long k = 0; k < runs; k++) {
		if (a2a_sim_run_every(argv[1], argv[2], (uint32_t)hosts, p, 0,
				      false, (uint32_t)every, &r) != 0) {
			fprintf(stderr, "%s\n", r.why);
			return 1;
		}
		printf("ranks %u hosts %u frames %u bound %u rr %u "
		       "planner_cpu_s %.4f slices_bytes %zu rank_cpu_s %.5f "
		       "rank_kept_bytes %zu rank_peak_bytes %zu %s%s%s\n",
		       r.nranks, r.nhosts, r.nframes, r.duration, r.rr_frames,
		       r.plan_cpu_s, r.slices_bytes, r.take_max_s, r.kept_max,
		       r.peak_max, r.verdict || r.bad[0] ? "FAIL " : "ok",
		       r.why, r.bad);
		fflush(stdout);
		if (r.verdict || r.bad[0])
			return 1;
	}
	free(p);
	return 0;
}
