/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * minhop: balanced min-hop routing for any topology, the baseline the other
 * engines are compared with.
 *
 * Hop distances between switches come from one BFS per switch.  Each switch
 * then takes the LIDs in increasing order and sends each through one of its
 * ports that lead one hop closer to the LID's switch: the one carrying the
 * fewest LIDs so far, the lowest port number on a tie; CA LIDs are taken
 * before switch LIDs.
 *
 * Balance guarantee: on a switch, if a set P of ports is the whole min-hop
 * candidate set of every CA LID routed through any port of P, the numbers
 * of CA LIDs routed through the ports of P differ by at most 1.  On full
 * fat trees (k-ary n-trees, XGFTs) P = the up ports of any switch: every CA
 * LID not below a switch may take any up port.  The 2^LMC LIDs of one port
 * are consecutive, so they spread over different equal-cost ports.
 *
 * Switches are independent of each other, so --threads splits them.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/parallel.h"
#include "routing/route_internal.h"

#define NO_DIST 0xFFu

struct minhop {
	const ibf_fabric_t *f;
	ibf_lfts_t *l;
	uint8_t *dist;        /* [t * nsw + s]: hops from switch s to t */
	uint32_t *nbr_off;    /* [nsw + 1]: switch s's switch neighbours */
	uint32_t *nbr_sw;     /* neighbour switch index */
	uint8_t *nbr_port;    /* port of s leading to it */
	uint32_t *tgt_sw;     /* [lid_top + 1]: ibf_route_lid_target */
	uint16_t *tgt_port;   /* port, or UINT16_MAX for LIDs not in use */
};

static ibf_status_t build_neighbours(struct minhop *m, ibf_err_t *err)
{
	const ibf_fabric_t *f = m->f;
	uint32_t s, k = 0;
	unsigned p;

	m->nbr_off = calloc(f->nswitches + 1, sizeof(*m->nbr_off));
	m->nbr_sw = malloc(sizeof(*m->nbr_sw) * (f->nports + 1));
	m->nbr_port = malloc(f->nports + 1);
	if (!m->nbr_off || !m->nbr_sw || !m->nbr_port)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t n = f->switches[s];

		m->nbr_off[s] = k;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t peer = ibf_node_port(f, n, p)->peer;

			if (peer == IBF_NO_ID ||
			    !ibf_node_is_switch(f, f->ports[peer].node))
				continue;
			m->nbr_sw[k] = f->switch_index[f->ports[peer].node];
			m->nbr_port[k++] = (uint8_t)p;
		}
	}
	m->nbr_off[f->nswitches] = k;
	return IBF_OK;
}

/* One BFS per destination switch t over the switch graph. */
static ibf_status_t build_dist(struct minhop *m, ibf_err_t *err)
{
	uint32_t nsw = m->f->nswitches, t, *queue, head, tail, s, k;

	m->dist = malloc((size_t)nsw * nsw + 1);
	queue = malloc(sizeof(*queue) * (nsw + 1));
	if (!m->dist || !queue) {
		free(queue);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	memset(m->dist, NO_DIST, (size_t)nsw * nsw);
	for (t = 0; t < nsw; t++) {
		uint8_t *d = m->dist + (size_t)t * nsw;

		d[t] = 0;
		queue[0] = t;
		for (head = 0, tail = 1; head < tail; head++) {
			s = queue[head];
			if (d[s] >= NO_DIST - 1)
				break; /* deeper than the byte can say */
			for (k = m->nbr_off[s]; k < m->nbr_off[s + 1]; k++) {
				uint32_t n = m->nbr_sw[k];

				if (d[n] != NO_DIST)
					continue;
				d[n] = d[s] + 1;
				queue[tail++] = n;
			}
		}
	}
	free(queue);
	return IBF_OK;
}

static ibf_status_t build_targets(struct minhop *m, ibf_err_t *err)
{
	const ibf_fabric_t *f = m->f;
	unsigned lid, port;

	m->tgt_sw = malloc(sizeof(*m->tgt_sw) * (f->lid_top + 1));
	m->tgt_port = malloc(sizeof(*m->tgt_port) * (f->lid_top + 1));
	if (!m->tgt_sw || !m->tgt_port)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (lid = 0; lid <= f->lid_top; lid++) {
		m->tgt_port[lid] = UINT16_MAX;
		if (ibf_route_lid_target(f, lid, &m->tgt_sw[lid], &port))
			m->tgt_port[lid] = (uint16_t)port;
	}
	return IBF_OK;
}

/* Route lid on switch s: the least loaded port one hop closer. */
static ibf_status_t route_lid(const struct minhop *m, uint32_t s,
			      unsigned lid, uint32_t *load, ibf_err_t *err)
{
	const ibf_fabric_t *f = m->f;
	uint32_t t = m->tgt_sw[lid], k, best = UINT32_MAX;
	const uint8_t *d;

	if (t == s) {
		ibf_lfts_set(m->l, s, lid, (uint8_t)m->tgt_port[lid]);
		return IBF_OK;
	}
	d = m->dist + (size_t)t * f->nswitches;
	if (d[s] == NO_DIST)
		return ibf_err_set(err, IBF_ERR_INVALID, "switch \"%s\" cannot "
				   "reach LID %u (switch \"%s\"): the fabric "
				   "is not connected", ibf_node_desc(f,
				   f->switches[s]), lid, ibf_node_desc(f,
				   f->switches[t]));
	for (k = m->nbr_off[s]; k < m->nbr_off[s + 1]; k++) {
		if (d[m->nbr_sw[k]] + 1 != d[s])
			continue;
		/* Ports come in increasing order: strict < keeps the
		 * lowest port number among the least loaded. */
		if (best == UINT32_MAX ||
		    load[m->nbr_port[k]] < load[m->nbr_port[best]])
			best = k;
	}
	load[m->nbr_port[best]]++;
	ibf_lfts_set(m->l, s, lid, m->nbr_port[best]);
	return IBF_OK;
}

/* The LFT of switch s.  CA LIDs first, switch LIDs after, so the few
 * switch LIDs (whose min-hop port sets differ from the hosts') cannot
 * upset the balance of the host LIDs. */
static ibf_status_t route_switch(const struct minhop *m, uint32_t s,
				 ibf_err_t *err)
{
	const ibf_fabric_t *f = m->f;
	uint32_t load[256];
	unsigned lid, pass;
	ibf_status_t st;

	memset(load, 0, sizeof(load));
	for (pass = 0; pass < 2; pass++)
		for (lid = 1; lid <= f->lid_top; lid++) {
			bool to_sw;

			if (m->tgt_port[lid] == UINT16_MAX)
				continue;
			to_sw = ibf_node_is_switch(f,
				f->ports[f->lid_port[lid]].node);
			if (to_sw != (pass == 1))
				continue;
			st = route_lid(m, s, lid, load, err);
			if (st != IBF_OK)
				return st;
		}
	m->l->has_table[s] = 1;
	return IBF_OK;
}

struct worker {
	const struct minhop *m;
	uint32_t first, step;
	ibf_status_t st;
	ibf_err_t err;
};

static void work(void *arg, unsigned index)
{
	struct worker *w = (struct worker *)arg + index;
	uint32_t s;

	w->st = IBF_OK;
	for (s = w->first; s < w->m->f->nswitches && w->st == IBF_OK;
	     s += w->step)
		w->st = route_switch(w->m, s, &w->err);
	}

static ibf_status_t route_all(const struct minhop *m, unsigned nthreads,
			      ibf_err_t *err)
{
	struct worker *w;
	unsigned i;
	ibf_status_t st = IBF_OK;

	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > m->f->nswitches)
		nthreads = m->f->nswitches ? m->f->nswitches : 1;
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < nthreads; i++) {
		w[i].m = m;
		w[i].first = i;
		w[i].step = nthreads;
		ibf_err_clear(&w[i].err);
	}
	ibf_parallel_run(nthreads, work, w);
	for (i = 0; i < nthreads && st == IBF_OK; i++)
		if (w[i].st != IBF_OK) {
			st = w[i].st;
			if (err)
				*err = w[i].err;
		}
	free(w);
	return st;
}

static unsigned diameter(const struct minhop *m)
{
	size_t i, n = (size_t)m->f->nswitches * m->f->nswitches;
	unsigned d = 0;

	for (i = 0; i < n; i++)
		if (m->dist[i] != NO_DIST && m->dist[i] > d)
			d = m->dist[i];
	return d;
}

static ibf_status_t run(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			ibf_routing_t *r, ibf_err_t *err)
{
	struct minhop m;
	ibf_status_t st;

	memset(&m, 0, sizeof(m));
	m.f = f;
	m.l = r->lfts;
	st = build_neighbours(&m, err);
	if (st == IBF_OK)
		st = build_dist(&m, err);
	if (st == IBF_OK)
		st = build_targets(&m, err);
	if (st == IBF_OK)
		st = route_all(&m, o->nthreads, err);
	if (st == IBF_OK) {
		json_object *rep = json_object_new_object();

		if (rep)
			json_object_object_add(rep, "switch_diameter",
				json_object_new_int((int)diameter(&m)));
		ibf_route_report_set(r, rep);
	}
	free(m.dist);
	free(m.nbr_off);
	free(m.nbr_sw);
	free(m.nbr_port);
	free(m.tgt_sw);
	free(m.tgt_port);
	return st;
}

const ibf_route_engine_t ibf_route_engine_minhop = {
	"minhop", "balanced min-hop, any topology", run, 0
};
