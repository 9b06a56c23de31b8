/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Helpers shared by the unit tests (test_util.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ibflow/gen.h>

#include "test_util.h"

ibf_fabric_t *tu_gen(const char *spec, unsigned lmc)
{
	ibf_gen_opts_t o = { .lmc = lmc };
	ibf_fabric_t *f = NULL;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_gen(spec, &o, &f, &err) != IBF_OK)
		fail_msg("gen %s: %s", spec, err.msg);
	assert_non_null(f);
	return f;
}

ibf_routing_t *tu_route(const ibf_fabric_t *f, const char *engine)
{
	ibf_routing_t *r = NULL;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_route(f, engine, NULL, &r, &err) != IBF_OK)
		fail_msg("route %s: %s", engine, err.msg);
	assert_non_null(r);
	return r;
}

uint64_t tu_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

void tu_shuffle(uint32_t *v, uint32_t n, uint64_t *state)
{
	uint32_t i, j, t;

	for (i = n; i > 1; i--) {
		j = (uint32_t)(tu_rand(state) % i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

unsigned tu_walk(const ibf_lfts_t *l, ibf_port_id_t src, ibf_port_id_t dst,
		 ibf_port_id_t *hops, unsigned max)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned lid = f->ports[dst].lid, n = 0;
	ibf_port_id_t p = src;

	for (;;) {
		ibf_port_id_t q;
		ibf_node_id_t node;

		if (n >= max)
			fail_msg("route %u -> %u: more than %u hops", src, dst,
				 max);
		hops[n++] = p;
		q = f->ports[p].peer;
		if (q == IBF_NO_ID)
			fail_msg("route %u -> %u: port %u has no link", src,
				 dst, p);
		node = f->ports[q].node;
		if (!ibf_node_is_switch(f, node)) {
			if (q != dst)
				fail_msg("route %u -> %u: delivered to %u",
					 src, dst, q);
			return n;
		}
		p = ibf_node_port_id(f, node, ibf_lfts_get(
			l, f->switch_index[node], lid));
	}
}
