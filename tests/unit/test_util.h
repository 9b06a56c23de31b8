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
#include <ibflow/route.h>

/* ibf_gen(spec) with CA ports of the given LMC. */
ibf_fabric_t *tu_gen(const char *spec, unsigned lmc);

/* ibf_route(f, engine) with default options. */
ibf_routing_t *tu_route(const ibf_fabric_t *f, const char *engine);

/* xorshift64: the next value of *state (never 0 from a non-zero state);
 * test data stays the same whatever the library's own generators do. */
uint64_t tu_rand(uint64_t *state);

/* Fisher-Yates shuffle of v[0..n) driven by tu_rand. */
void tu_shuffle(uint32_t *v, uint32_t n, uint64_t *state);

#endif
