/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libFuzzer target: `ibflow sim --trace` files ("TIME_US BYTES SRC DST")
 * read against a fixed one-switch fabric whose NodeDescriptions make
 * splitting hard (blanks, a '#', prefixes).  A file that reads is then
 * simulated (at most 200,000 events: sizes go up to 2^40 bytes); unless
 * cut short every message must be delivered, and none may start before
 * its time.  A file that does not read must say
 * "fuzz:LINE:" (or name the message it refused).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/route.h>
#include <ibflow/sim.h>

static const char *const descs[] = {
	"a", "b c", "a b", "c", "rack #3", "h1", "h2", "7up",
};
#define NCA (sizeof(descs) / sizeof(descs[0]))

/* Built once and kept: test code, the fuzzer process ends with it. */
static const ibf_routing_t *routing(void)
{
	static ibf_routing_t *r;
	ibf_fabric_t *f;
	ibf_node_id_t sw, ca;
	unsigned n;

	if (r)
		return r;
	if (ibf_fabric_create(&f) ||
	    ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0, "sw", NCA, &sw, NULL))
		abort();
	for (n = 0; n < NCA; n++)
		if (ibf_fabric_add_node(f, IBF_NODE_CA, 0, descs[n], 1, &ca,
					NULL) ||
		    ibf_fabric_link(f, ca, 1, sw, n + 1, 4, IBF_SPEED_EDR,
				    NULL))
			abort();
	if (ibf_fabric_finalize(f, NULL, NULL) ||
	    ibf_route(f, "minhop", NULL, &r, NULL))
		abort();
	return r;
}

static void simulate(ibf_sim_t *s)
{
	ibf_sim_result_t res;
	ibf_err_t err;
	uint32_t i;

	if (ibf_sim_run(s, &res, &err) != IBF_OK || res.deadlocked ||
	    (res.undelivered && !res.truncated))
		abort();
	for (i = 0; i < res.nmsgs; i++)
		if (res.msg[i].first_s >= 0 &&
		    res.msg[i].first_s + 1e-12 < res.msg[i].ready_s)
			abort();
	ibf_sim_result_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const ibf_routing_t *r = routing();
	ibf_sim_opts_t o;
	ibf_sim_t *s;
	ibf_text_t t;
	ibf_err_t err;
	ibf_status_t st;

	if (ibf_text_from_buf(&t, "fuzz", (const char *)data, size, &err))
		return 0;
	ibf_sim_opts_default(&o);
	o.max_events = 200000;
	if (ibf_sim_create(r->lfts, &o, &s, &err))
		abort();
	st = ibf_sim_add_trace_text(s, &t, &err);
	if (st != IBF_OK && strncmp(err.msg, "fuzz:", 5) != 0)
		abort();
	if (st == IBF_OK)
		simulate(s);
	ibf_sim_destroy(s);
	ibf_text_free(&t);
	return 0;
}
