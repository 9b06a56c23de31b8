/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Helpers shared by the unit tests: a generated fabric, a routing, a
 * seeded shuffle.  Each fails the running cmocka test on an error, naming
 * what could not be made.
 */
#ifndef IBFLOW_TEST_UTIL_H
#define IBFLOW_TEST_UTIL_H

#include <stdint.h>

#include <ibflow/fabric.h>
#include <ibflow/lfts.h>
#include <ibflow/route.h>

/* ibf_gen(spec) with CA ports of the given LMC. */
ibf_fabric_t *tu_gen(const char *spec, unsigned lmc);

/* ibf_route(f, engine) with default options. */
ibf_routing_t *tu_route(const ibf_fabric_t *f, const char *engine);

/* Walk the LFTs from CA port src to CA port dst's base LID, writing the
 * egress ports (src first) to hops[0..max); returns their count, failing
 * the test on a route that is not delivered or longer than max. */
unsigned tu_walk(const ibf_lfts_t *l, ibf_port_id_t src, ibf_port_id_t dst,
		 ibf_port_id_t *hops, unsigned max);

/* xorshift64: the next value of *state (never 0 from a non-zero state);
 * test data stays the same whatever the library's own generators do. */
uint64_t tu_rand(uint64_t *state);

/* Fisher-Yates shuffle of v[0..n) driven by tu_rand. */
void tu_shuffle(uint32_t *v, uint32_t n, uint64_t *state);

#endif
