/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Route SLs: the all-to-all's blocks, the probes and the bandwidth
 * map's streams on the SL of their route (UCX_IBFLOW_ROUTE_SL).
 *
 * UCX sends every packet of a UCP context on one SL, UCX_IB_SL, and asks
 * the SA for no PathRecord.  A routing that is deadlock-free only with
 * each route on its own SL (ibflow-layered with vls > 1: the export's
 * ibflow-sl.txt) therefore needs one context per SL: the one for SL k
 * opened with IB_SL = k set on its own UCP configuration
 * (ucp_config_modify, the way the control lane sets its SL; the
 * environment is never touched), and every message sent on the context
 * of its route's SL.
 *
 * A process opens the contexts of the SLs its own routes use, to and
 * from it (routes to base LID + UCX_IBFLOW_LID_OFFSET, as traced); a
 * message from a to b goes on a's context of SL(a -> b) and is received
 * on b's, which b has since that SL is one of its routes from.  Blocks
 * between ranks of one host cross no link: they stay on the data
 * context.  All or nothing: the contexts are used only if every process
 * opened all of its own (a process receiving on its SL context while the
 * sender sends on the data context would wait for ever); a process that
 * cannot open one says why, once, and the job keeps the data context,
 * the safe path for a routing deadlock-free on one SL, and rank 0 warns
 * as before that this routing is not.
 *
 * Set up in ibf_ucx_init, after the host list, over the caller's OOB.
 *
 * Test hook (environment, read by the process concerned):
 * IBFLOW_TEST_SL_REFUSE=R makes rank R fail to open its contexts.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ucx_internal.h"

#define SL_NONE 0xff   /* to / from a rank of this host: the data context */

/* What a process says after trying: nothing wanted (mode, transport, one
 * SL), its contexts open, or a failure (said by itself). */
enum { SLS_UNWANTED = 0, SLS_OPEN = 1, SLS_FAILED = 2 };

typedef struct sl_entry {
	int32_t state;
	uint32_t mask;                /* SLs of its contexts */
	uint64_t len[IBF_NSLS];       /* their worker addresses' lengths */
} sl_entry_t;

struct ibf_ucxi_sl_lanes {
	uint32_t nwires;
	uint8_t sl[IBF_NSLS];         /* wire i's SL */
	int8_t wire_of[IBF_NSLS];     /* SL -> wire, -1: none here */
	ibf_ucxi_wire_t wire[IBF_NSLS];
	uint8_t *to, *from;           /* [size]: SL of the route to / from
					 each rank, SL_NONE: same host */
};

/* ---- which SLs ---------------------------------------------------------- */

static unsigned route_sl(const ibf_ucx_t *u, uint32_t src, uint32_t dst)
{
	ibf_port_id_t s = u->hosts.ports[u->rank_host[src]];
	ibf_port_id_t d = u->hosts.ports[u->rank_host[dst]];

	return ibf_sls_get(&u->fab.sls, s, ibf_port(u->fab.fabric, d)->lid +
			   u->cfg->v.lid_offset);
}

/* The SLs of this rank's routes to and from every other host. */
static void fill_routes(const ibf_ucx_t *u, struct ibf_ucxi_sl_lanes *l,
			uint32_t *mask)
{
	uint32_t me = u->rank, r;

	*mask = 0;
	for (r = 0; r < u->size; r++) {
		if (u->rank_host[r] == u->rank_host[me]) {
			l->to[r] = l->from[r] = SL_NONE;
			continue;
		}
		l->to[r] = (uint8_t)route_sl(u, me, r);
		l->from[r] = (uint8_t)route_sl(u, r, me);
		*mask |= 1u << l->to[r] | 1u << l->from[r];
	}
}

/* Does this process want route SLs: the routing has several, the mode
 * asks for them here? */
static bool wanted(const ibf_ucx_t *u)
{
	unsigned mode = u->cfg->v.route_sl;

	if (!u->aware || u->fab.route_sls <= 1 || u->size < 2 ||
	    mode == IBF_UCX_ROUTE_SL_OFF)
		return false;
	return mode == IBF_UCX_ROUTE_SL_ANY ||
	       ibf_ucxi_transport(u->wire.ctx) == IBF_UCXI_TL_IB;
}

/* ---- opening --------------------------------------------------------------- */

static void lanes_free(struct ibf_ucxi_sl_lanes *l)
{
	if (!l)
		return;
	for (uint32_t i = 0; i < l->nwires; i++)
		ibf_ucxi_wire_close(&l->wire[i]);
	free(l->to);
	free(l->from);
	free(l);
}

/* One context per SL of mask, each with IB_SL set where the data goes
 * over verbs (elsewhere UCX would warn that no transport takes it). */
static ibf_ucx_status_t open_wires(ibf_ucx_t *u, struct ibf_ucxi_sl_lanes *l,
				   uint32_t mask, ibf_ucx_err_t *err)
{
	bool verbs = ibf_ucxi_transport(u->wire.ctx) != IBF_UCXI_TL_OTHER;
	char val[8];
	ibf_ucx_status_t st;

	for (unsigned sl = 0; sl < IBF_NSLS; sl++) {
		ibf_ucxi_wire_t *w = &l->wire[l->nwires];

		if (!(mask & 1u << sl))
			continue;
		snprintf(val, sizeof(val), "%u", sl);
		st = ibf_ucxi_wire_open(u->cfg, "ibflow-sl", verbs ? "IB_SL" :
					NULL, val, w, err);
		if (st == IBF_UCX_OK && !(w->eps = calloc(u->size,
							  sizeof(*w->eps))))
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					     "out of memory");
		if (st != IBF_UCX_OK) {
			ibf_ucx_err_prefix(err, "SL %u: ", sl);
			ibf_ucxi_wire_close(w);
			return st;
		}
		l->sl[l->nwires] = (uint8_t)sl;
		l->wire_of[sl] = (int8_t)l->nwires++;
	}
	return IBF_UCX_OK;
}

/* This process's contexts and its entry; on failure the reason in err. */
static ibf_ucx_status_t open_mine(ibf_ucx_t *u, struct ibf_ucxi_sl_lanes *l,
				  sl_entry_t *e, ucp_address_t **addr,
				  ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st;
	uint32_t mask;
	size_t len;

	const char *refuse = getenv("IBFLOW_TEST_SL_REFUSE");

	memset(l->wire_of, -1, sizeof(l->wire_of));
	if (refuse && *refuse && strtoul(refuse, NULL, 10) == u->rank)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "refused "
				       "(IBFLOW_TEST_SL_REFUSE=%s)", refuse);
	l->to = malloc(u->size);
	l->from = malloc(u->size);
	if (!l->to || !l->from)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	fill_routes(u, l, &mask);
	st = open_wires(u, l, mask, err);
	for (uint32_t i = 0; st == IBF_UCX_OK && i < l->nwires; i++) {
		ucs_status_t us = ibf_ucxi_fault("ucp_worker_get_address "
						 "(route SL)");

		if (us == UCS_OK)
			us = ucp_worker_get_address(l->wire[i].worker,
						    &addr[i], &len);
		if (us != UCS_OK)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "SL %u: "
					       "worker address: %s", l->sl[i],
					       ucs_status_string(us));
		e->len[l->sl[i]] = len;
	}
	e->mask = mask;
	return st;
}

/* ---- the exchange ------------------------------------------------------------ */

/* Everybody's addresses (each its SLs' in SL order, padded to the
 * longest) into each wire's per-rank table. */
static ibf_ucx_status_t share_addrs(ibf_ucx_t *u, struct ibf_ucxi_sl_lanes *l,
				    const sl_entry_t *all,
				    ucp_address_t *const *addr,
				    ibf_ucx_err_t *err)
{
	uint64_t stride = 0, tot, off;
	uint8_t *mine, *blob;
	ibf_ucx_status_t st;
	uint32_t r, i;
	unsigned sl;

	for (r = 0; r < u->size; r++) {
		for (sl = 0, tot = 0; sl < IBF_NSLS; sl++)
			tot += all[r].len[sl];
		stride = tot > stride ? tot : stride;
	}
	mine = calloc(1, stride ? stride : 1);
	blob = calloc(u->size, stride ? stride : 1);
	if (!mine || !blob) {
		free(mine);
		free(blob);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	for (i = 0, off = 0; i < l->nwires; i++) {
		memcpy(mine + off, addr[i], all[u->rank].len[l->sl[i]]);
		off += all[u->rank].len[l->sl[i]];
	}
	st = ibf_ucxi_oob_allgather(u, mine, blob, stride, err);
	for (i = 0; st == IBF_UCX_OK && i < l->nwires; i++) {
		ibf_ucxi_wire_t *w = &l->wire[i];
		uint64_t max = 0;

		for (r = 0; r < u->size; r++)
			max = all[r].len[l->sl[i]] > max ?
			      all[r].len[l->sl[i]] : max;
		w->stride = sizeof(uint64_t) + max;
		w->addrs = calloc(u->size, w->stride);
		if (!w->addrs) {
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					     "out of memory");
			break;
		}
		for (r = 0; r < u->size; r++) {
			uint8_t *at = w->addrs + (size_t)r * w->stride;
			uint64_t len = all[r].len[l->sl[i]];

			for (sl = 0, off = 0; sl < l->sl[i]; sl++)
				off += all[r].len[sl];
			memcpy(at, &len, sizeof(len));
			memcpy(at + sizeof(len), blob + r * stride + off, len);
		}
	}
	free(mine);
	free(blob);
	return st;
}

static void say_failed(const ibf_ucx_t *u, const ibf_ucx_err_t *why)
{
	fprintf(stderr, "ibflow: rank %u: route SLs (%sROUTE_SL): %s; the "
		"all-to-all, the probes and the bandwidth map stay on the "
		"data context's UCX_IB_SL\n", u->rank, IBF_UCX_VAR_PREFIX,
		why->msg);
}

ibf_ucx_status_t ibf_ucxi_sl_setup(ibf_ucx_t *u, ibf_ucx_err_t *err)
{
	ucp_address_t *addr[IBF_NSLS] = { NULL };
	struct ibf_ucxi_sl_lanes *l = NULL;
	sl_entry_t mine = { .state = SLS_UNWANTED }, *all;
	ibf_ucx_status_t st = IBF_UCX_OK;
	ibf_ucx_err_t why;
	bool use = true;
	uint32_t r;

	if (!u->aware || u->fab.route_sls <= 1 || u->size < 2)
		return IBF_UCX_OK;   /* alike on every rank: no exchange */
	ibf_ucx_err_clear(&why);
	if (wanted(u)) {
		l = calloc(1, sizeof(*l));
		if (!l)
			ibf_ucx_err_set(&why, IBF_UCX_ERR_NOMEM,
					"out of memory");
		mine.state = l && open_mine(u, l, &mine, addr, &why) ==
			     IBF_UCX_OK ? SLS_OPEN : SLS_FAILED;
		if (mine.state == SLS_FAILED)
			say_failed(u, &why);
	}
	all = calloc(u->size, sizeof(*all));
	if (!all)
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	else
		st = ibf_ucxi_oob_allgather(u, &mine, all, sizeof(mine), err);
	for (r = 0; st == IBF_UCX_OK && r < u->size; r++)
		use = use && all[r].state == SLS_OPEN;
	if (st == IBF_UCX_OK && use)
		st = share_addrs(u, l, all, addr, err);
	for (r = 0; l && r < l->nwires; r++)
		if (addr[r])
			ucp_worker_release_address(l->wire[r].worker, addr[r]);
	free(all);
	if (st == IBF_UCX_OK && use)
		u->sl = l;
	else
		lanes_free(l);
	return st;
}

/* ---- use ---------------------------------------------------------------------- */

ibf_ucxi_wire_t *ibf_ucxi_sl_wire(ibf_ucx_t *u, uint32_t peer, bool to)
{
	const struct ibf_ucxi_sl_lanes *l = u->sl;
	uint8_t s;

	if (!l)
		return &u->wire;
	s = to ? l->to[peer] : l->from[peer];
	return s == SL_NONE ? &u->wire : &u->sl->wire[l->wire_of[s]];
}

int ibf_ucxi_worker_sl(const ibf_ucx_t *u, ucp_worker_h w)
{
	const struct ibf_ucxi_sl_lanes *l = u->sl;

	for (uint32_t i = 0; l && w && i < l->nwires; i++)
		if (l->wire[i].worker == w)
			return l->sl[i];
	return -1;
}

uint32_t ibf_ucxi_sl_wires(const ibf_ucx_t *u, ibf_ucxi_wire_t **w)
{
	if (!u->sl) {
		*w = NULL;
		return 0;
	}
	*w = u->sl->wire;
	return u->sl->nwires;
}

unsigned ibf_ucx_route_sl_counts(const ibf_ucx_t *u,
				 ibf_ucx_sl_count_t out[16])
{
	const struct ibf_ucxi_sl_lanes *l = u->sl;

	for (uint32_t i = 0; l && i < l->nwires; i++)
		out[i] = (ibf_ucx_sl_count_t){ .sl = l->sl[i],
					       .sent = l->wire[i].nsent,
					       .received = l->wire[i].nrecv };
	return l ? l->nwires : 0;
}

void ibf_ucxi_sl_free(ibf_ucx_t *u)
{
	lanes_free(u->sl);
	u->sl = NULL;
}
