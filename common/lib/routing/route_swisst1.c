/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * swisst1: the static routing of the Swiss-T1 cluster, Figure 15 of
 * E. Gabrielyan, "Liquid Schedule Construction Algorithm: an Efficient
 * Method for Coloring a Congestion Graph" (2006), section 8.1, on the
 * fabric of `ibflow gen swisst1` (or any fabric whose switches are named
 * t1-sw1 .. t1-sw8 and linked as that K-ring: every odd switch to every
 * even one).  Between two linked switches the route is the link; between
 * two others it goes through the switch of the table.  Hosts may hang off
 * any switch.
 */
#include <stdio.h>
#include <string.h>

#include "routing/route_internal.h"

#define T1_SW 8

/* Figure 15: transmissions from switch i to switch j (1..8) go through
 * VIA[i-1][j-1]; 0 where i and j are linked (or i == j).  Read from the
 * paper's table, which marks the linked pairs with an arrow. */
static const uint8_t VIA[T1_SW][T1_SW] = {
	{ 0, 0, 2, 0, 4, 0, 8, 0 },
	{ 0, 0, 0, 7, 0, 3, 0, 5 },
	{ 2, 0, 0, 0, 4, 0, 8, 0 },
	{ 0, 7, 0, 0, 0, 7, 0, 3 },
	{ 4, 0, 4, 0, 0, 0, 6, 0 },
	{ 0, 3, 0, 7, 0, 0, 0, 1 },
	{ 8, 0, 8, 0, 6, 0, 0, 0 },
	{ 0, 5, 0, 3, 0, 1, 0, 0 },
};

/* sw[k]: switch index of t1-sw<k+1>; port[a][b]: a's port to b, or 0. */
struct t1 {
	uint32_t sw[T1_SW];
	uint8_t port[T1_SW][T1_SW];
};

static ibf_status_t find_switches(const ibf_fabric_t *f, struct t1 *t,
				  ibf_err_t *err)
{
	uint32_t nk = 0;

	memset(t, 0, sizeof(*t));
	for (uint32_t k = 0; k < T1_SW; k++)
		t->sw[k] = UINT32_MAX;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		const char *d = ibf_node_desc(f, f->switches[s]);
		unsigned k;
		char tail;

		if (sscanf(d, "t1-sw%u%c", &k, &tail) != 1 || k < 1 ||
		    k > T1_SW || t->sw[k - 1] != UINT32_MAX)
			return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
					   "swisst1: switch \"%s\" is not one "
					   "of t1-sw1 .. t1-sw8 (the Swiss-T1 "
					   "of `ibflow gen swisst1`)", d);
		t->sw[k - 1] = s;
		nk++;
	}
	if (nk != T1_SW)
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED, "swisst1: %u "
				   "switches, the Swiss-T1 has 8", nk);
	return IBF_OK;
}

/* The K-ring: a link between a and b exactly when VIA says they are
 * linked. */
static ibf_status_t find_links(const ibf_fabric_t *f, struct t1 *t,
			       ibf_err_t *err)
{
	for (uint32_t a = 0; a < T1_SW; a++) {
		ibf_node_id_t n = f->switches[t->sw[a]];

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t q = ibf_node_port(f, n, p)->peer;

			for (uint32_t b = 0; q != IBF_NO_ID && b < T1_SW; b++)
				if (f->ports[q].node == f->switches[t->sw[b]] &&
				    !t->port[a][b])
					t->port[a][b] = (uint8_t)p;
		}
	}
	for (uint32_t a = 0; a < T1_SW; a++)
		for (uint32_t b = 0; b < T1_SW; b++)
			if (a != b && !VIA[a][b] != !!t->port[a][b])
				return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
						   "swisst1: t1-sw%u and t1-sw%u "
						   "are %s, not as in the K-ring "
						   "of the Swiss-T1", a + 1,
						   b + 1, t->port[a][b] ?
						   "linked" : "not linked");
	return IBF_OK;
}

static ibf_status_t run(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			ibf_routing_t *r, ibf_err_t *err)
{
	struct t1 t;
	ibf_status_t st;

	(void)o;
	if ((st = find_switches(f, &t, err)) != IBF_OK ||
	    (st = find_links(f, &t, err)) != IBF_OK)
		return st;
	for (unsigned lid = 1; lid <= f->lid_top; lid++) {
		uint32_t tsw;
		unsigned tport, j = T1_SW;

		if (!ibf_route_lid_target(f, lid, &tsw, &tport))
			continue;
		for (uint32_t k = 0; k < T1_SW; k++)
			if (t.sw[k] == tsw)
				j = k;
		for (uint32_t i = 0; i < T1_SW; i++) {
			unsigned next = i == j ? T1_SW :
				VIA[i][j] ? VIA[i][j] - 1u : j;

			ibf_lfts_set(r->lfts, t.sw[i], lid, (uint8_t)(
				next == T1_SW ? tport : t.port[i][next]));
		}
	}
	return IBF_OK;
}

const ibf_route_engine_t ibf_route_engine_swisst1 = {
	"swisst1",
	"the Swiss-T1's static routing (liquid scheduling paper, Figure 15)",
	run,
	0,
};
