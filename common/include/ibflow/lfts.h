/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Linear forwarding tables of every switch of a fabric: DLID -> out port.
 *
 * One flat byte array, a row per switch (in fabric->switches order) and a
 * column per LID 0..lid_top.  A routing is kept apart from the topology so
 * several routings of one fabric (engines side by side, a dump read back
 * from OpenSM) can coexist.
 */
#ifndef IBFLOW_LFTS_H
#define IBFLOW_LFTS_H

#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>

IBF_BEGIN_DECLS

#define IBF_LFT_NO_PORT 0xFFu /* unrouted LID (OpenSM's OSM_NO_PATH) */

typedef struct ibf_lfts {
	const ibf_fabric_t *fabric;
	uint32_t nswitches;
	uint32_t stride;   /* LIDs per row: fabric->lid_top + 1 */
	uint8_t *port;     /* [nswitches * stride] */
	uint8_t *has_table; /* per switch: a table was given for it */
} ibf_lfts_t;

/* Tables for a finalized fabric, every entry IBF_LFT_NO_PORT. */
ibf_status_t ibf_lfts_create(const ibf_fabric_t *f, ibf_lfts_t **out);
void ibf_lfts_destroy(ibf_lfts_t *l);

static inline uint8_t ibf_lfts_get(const ibf_lfts_t *l, uint32_t sw,
				   unsigned lid)
{
	return lid < l->stride ? l->port[(size_t)sw * l->stride + lid]
			       : (uint8_t)IBF_LFT_NO_PORT;
}

static inline void ibf_lfts_set(ibf_lfts_t *l, uint32_t sw, unsigned lid,
				uint8_t port)
{
	l->port[(size_t)sw * l->stride + lid] = port;
	l->has_table[sw] = 1;
}

IBF_END_DECLS
#endif
