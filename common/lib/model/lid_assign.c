/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * LIDs for a fabric whose input carried none.
 *
 * OpenSM 3.3 (osm_lid_mgr.c), on the first sweep of a subnet whose ports
 * have no LIDs and with no guid2lid cache, gives the SM's own port the first
 * free range, then walks its port table - a map keyed by port GUID in
 * network byte order, so on little- and big-endian hosts alike the walk is
 * by the GUID's bytes read lowest first - taking for each port the next free
 * range: one LID for a switch's port 0, 2^LMC aligned LIDs for a CA port
 * (the gap an alignment skips stays unused).  Only ports OpenSM discovered,
 * i.e. reachable from the SM's port, get LIDs.  Reproduced here with the SM
 * on the file's first node (the node ibsim binds its clients to): its port 0
 * if it is a switch, else its first cabled port.  Ports not reachable from
 * there (OpenSM would leave them without LIDs) are numbered after the rest
 * so every endpoint can still be named.
 */
#include <ibflow/fabric.h>

#include <stdlib.h>

#include "model/fabric_internal.h"

/* The order of OpenSM's port map: the GUID as stored in network order, read
 * as a little-endian number, i.e. byte-reversed. */
static uint64_t opensm_port_key(uint64_t guid)
{
	return __builtin_bswap64(guid);
}

typedef struct {
	uint64_t key;
	ibf_port_id_t port;
	uint8_t unreached;
} lid_slot_t;

static int slot_cmp(const void *a, const void *b)
{
	const lid_slot_t *x = a, *y = b;

	if (x->unreached != y->unreached)
		return x->unreached < y->unreached ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static ibf_port_id_t sm_port_of(const ibf_fabric_t *f)
{
	const ibf_node_t *node;
	unsigned p;

	if (!f->nnodes)
		return IBF_NO_ID;
	node = &f->nodes[0];
	if (node->type == IBF_NODE_SWITCH)
		return node->first_port;
	for (p = 1; p <= node->nports; p++)
		if (f->ports[node->first_port + p].peer != IBF_NO_ID)
			return node->first_port + p;
	return IBF_NO_ID;
}

/* Nodes reachable from node 0 over links; 1 per reached node. */
static uint8_t *reached_nodes(const ibf_fabric_t *f)
{
	uint8_t *seen = calloc(f->nnodes ? f->nnodes : 1, 1);
	ibf_node_id_t *queue = malloc((f->nnodes ? f->nnodes : 1) *
				      sizeof(*queue));
	uint32_t head = 0, tail = 0;

	if (!seen || !queue) {
		free(seen);
		free(queue);
		return NULL;
	}
	if (f->nnodes) {
		seen[0] = 1;
		queue[tail++] = 0;
	}
	while (head < tail) {
		const ibf_node_t *node = &f->nodes[queue[head++]];
		unsigned p;

		for (p = 1; p <= node->nports; p++) {
			ibf_port_id_t q = f->ports[node->first_port + p].peer;
			ibf_node_id_t m;

			if (q == IBF_NO_ID)
				continue;
			m = f->ports[q].node;
			if (!seen[m]) {
				seen[m] = 1;
				queue[tail++] = m;
			}
		}
	}
	free(queue);
	return seen;
}

static ibf_status_t set_next(ibf_fabric_t *f, ibf_port_id_t p, unsigned lmc,
			     unsigned *next, ibf_err_t *err)
{
	const ibf_port_t *port = &f->ports[p];
	unsigned l = f->nodes[port->node].type == IBF_NODE_SWITCH ? 0 : lmc;

	*next = (*next + (1u << l) - 1) & ~((1u << l) - 1);
	if (ibf_fabric_set_port(f, port->node, port->num, 0, *next, l, err) !=
	    IBF_OK)
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "LID space exhausted: %u endpoints and "
				   "switches need more than %u LIDs at LMC %u",
				   f->nnodes, IBF_LID_UCAST_MAX, lmc);
	*next += 1u << l;
	return IBF_OK;
}

static ibf_status_t assign_in_node_order(ibf_fabric_t *f, unsigned lmc,
					 ibf_err_t *err)
{
	unsigned next = 1;
	ibf_port_id_t p;
	ibf_status_t st;

	for (p = 0; p < f->nports; p++)
		if (ibf_port_needs_lid(f, &f->ports[p]) &&
		    (st = set_next(f, p, lmc, &next, err)) != IBF_OK)
			return st;
	return IBF_OK;
}

static ibf_status_t assign_as_opensm(ibf_fabric_t *f, unsigned lmc,
				     ibf_err_t *err)
{
	ibf_port_id_t sm = sm_port_of(f), p;
	uint8_t *reached = reached_nodes(f);
	lid_slot_t *slots = malloc((f->nports ? f->nports : 1) *
				   sizeof(*slots));
	ibf_status_t st = IBF_OK;
	unsigned next = 1;
	uint32_t n = 0, i;

	if (!reached || !slots) {
		free(reached);
		free(slots);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (p = 0; p < f->nports; p++) {
		const ibf_port_t *port = &f->ports[p];

		if (p == sm || !ibf_port_needs_lid(f, port))
			continue;
		slots[n].key = opensm_port_key(port->guid);
		slots[n].port = p;
		slots[n].unreached = !reached[port->node];
		n++;
	}
	qsort(slots, n, sizeof(*slots), slot_cmp);
	if (sm != IBF_NO_ID)
		st = set_next(f, sm, lmc, &next, err);
	for (i = 0; st == IBF_OK && i < n; i++)
		st = set_next(f, slots[i].port, lmc, &next, err);
	free(reached);
	free(slots);
	return st;
}

ibf_status_t ibf_lids_assign(ibf_fabric_t *f, unsigned lmc,
			     ibf_lid_order_t order, ibf_err_t *err)
{
	f->lids_assumed = true;
	f->sm_port = IBF_NO_ID;
	if (order == IBF_LIDS_NODE_ORDER)
		return assign_in_node_order(f, lmc, err);
	f->sm_port = sm_port_of(f);
	return assign_as_opensm(f, lmc, err);
}
