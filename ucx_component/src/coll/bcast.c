/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Pipelined long-message broadcast along a depth-first traversal of the
 * fabric (T. Shirai, H. Saito and K. Taura, "A Fast Topology Inference: a
 * building block for network-aware parallel processing", HPDC 2007,
 * section 6.2): the hosts in the order a depth-first
 * walk of the tree meets them form a chain in which consecutive hosts'
 * paths, taken together, cross every link at most once in each
 * direction; the message is cut into chunks and each process forwards
 * chunk k to its successor as soon as it has it, so all links of the
 * chain carry chunks at once.  The chain starts at the root and goes on
 * cyclically along the order.
 *
 * Known fabric (an export or the inferred tree): the depth-first order of
 * the hosts from host 0 over the fabric graph (switches in port order;
 * for a fat tree the walk's own tree of the graph), the ranks of a host
 * one after the other.  Topology-unaware: rank order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/ucx_internal.h"

/* Hosts in depth-first order of the fabric graph from host 0's node. */
static ibf_ucx_status_t dfs_hosts(const ibf_ucx_t *u, uint32_t *order,
				  ibf_ucx_err_t *err)
{
	const ibf_fabric_t *f = u->fab.fabric;
	uint32_t *host_of = malloc(f->nports * sizeof(*host_of));
	uint8_t *seen = calloc(f->nnodes, 1);
	ibf_node_id_t *stack = malloc(f->nnodes * sizeof(*stack));
	uint8_t *next = calloc(f->nnodes, 1);  /* next port to try */
	uint32_t sp = 0, n = 0, h, p;

	if (!host_of || !seen || !stack || !next) {
		free(host_of);
		free(seen);
		free(stack);
		free(next);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	for (p = 0; p < f->nports; p++)
		host_of[p] = UINT32_MAX;
	for (h = 0; h < u->nhosts; h++)
		host_of[u->hosts.ports[h]] = h;
	stack[sp++] = ibf_port(f, u->hosts.ports[0])->node;
	seen[stack[0]] = 1;
	/* the start node's hosts */
	for (p = 1; p <= ibf_node(f, stack[0])->nports; p++) {
		h = host_of[ibf_node_port_id(f, stack[0], p)];
		if (h != UINT32_MAX)
			order[n++] = h;
	}
	while (sp) {
		ibf_node_id_t v = stack[sp - 1], w;
		const ibf_node_t *nd = ibf_node(f, v);
		ibf_port_id_t peer;

		/* CAs do not forward: only the start node is left from */
		if (next[v] >= nd->nports ||
		    (!ibf_node_is_switch(f, v) && sp > 1)) {
			sp--;
			continue;
		}
		peer = ibf_node_port(f, v, ++next[v])->peer;
		if (peer == IBF_NO_ID)
			continue;
		w = ibf_port(f, peer)->node;
		if (seen[w])
			continue;
		seen[w] = 1;
		if (!ibf_node_is_switch(f, w)) {
			for (p = 1; p <= ibf_node(f, w)->nports; p++) {
				h = host_of[ibf_node_port_id(f, w, p)];
				if (h != UINT32_MAX)
					order[n++] = h;
			}
		}
		stack[sp++] = w;
	}
	free(host_of);
	free(seen);
	free(stack);
	free(next);
	if (n != u->nhosts)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC, "broadcast "
				       "order: %u of %u hosts reachable from "
				       "host 0", n, u->nhosts);
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucx_bcast_order(const ibf_ucx_t *u, uint32_t *ranks,
				     ibf_ucx_err_t *err)
{
	uint32_t *hosts, i, k, r, n = 0;
	ibf_ucx_status_t st;

	if (!u->aware) {
		for (r = 0; r < u->size; r++)
			ranks[r] = r;
		return IBF_UCX_OK;
	}
	hosts = malloc(u->nhosts * sizeof(*hosts));
	if (!hosts)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	st = dfs_hosts(u, hosts, err);
	for (i = 0; st == IBF_UCX_OK && i < u->nhosts; i++)
		for (r = 0; r < u->size; r++)
			if (u->rank_host[r] == hosts[i])
				ranks[n++] = r;
	free(hosts);
	for (k = 0; st == IBF_UCX_OK && k < n; k++)
		if (ranks[k] >= u->size)
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC,
					     "broadcast order: bad rank");
	if (st == IBF_UCX_OK && n != u->size)
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC, "broadcast "
				     "order: %u of %u ranks", n, u->size);
	return st;
}

ibf_ucx_bcast_alg_t ibf_ucx_bcast_select(const ibf_ucx_t *u, size_t len)
{
	const ibf_ucx_cfg_t *v = &u->cfg->v;

	if (v->bcast == IBF_UCX_BCAST_MODE_PIPELINE && u->size > 1 &&
	    len >= v->bcast_thresh)
		return IBF_UCX_BCAST_PIPELINE;
	return IBF_UCX_BCAST_NONE;
}

/* The pipelined broadcast's state of a context: the chain, cached (it
 * depends on the fabric and the ranks only), and the calls made. */
typedef struct bcast_state {
	uint32_t *chain;          /* [size] */
	uint64_t calls;
} bcast_state_t;

static void bcast_state_free(void *data)
{
	bcast_state_t *b = data;

	if (b)
		free(b->chain);
	free(b);
}

static const ibf_ucxi_state_key_t BCAST = { "broadcast", bcast_state_free };

static ibf_ucx_status_t chain(ibf_ucx_t *u, bcast_state_t **out,
			      ibf_ucx_err_t *err)
{
	bcast_state_t *b = ibf_ucxi_state_get(u, &BCAST);
	ibf_ucx_status_t st;

	*out = b;
	if (b)
		return IBF_UCX_OK;
	b = calloc(1, sizeof(*b));
	if (b)
		b->chain = malloc(u->size * sizeof(*b->chain));
	if (!b || !b->chain) {
		bcast_state_free(b);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	st = ibf_ucx_bcast_order(u, b->chain, err);
	if (st != IBF_UCX_OK) {
		bcast_state_free(b);
		return st;
	}
	st = ibf_ucxi_state_put(u, &BCAST, b, err);
	*out = st == IBF_UCX_OK ? b : NULL;
	return st;
}

/* Sends in flight per process.  Chunks sent all at once share the link
 * and complete together at the end, which turns the pipeline into
 * store-and-forward; two keep the link busy and finish in order. */
#define SEND_WINDOW 2

/* Receive every chunk from prev (all posted at once: chunks of one
 * sender and tag match in order), forward each to next as it comes. */
static ibf_ucx_status_t relay(ibf_ucx_t *u, uint32_t prev, uint32_t next,
			      ucp_tag_t tin, ucp_tag_t tout, char *buf,
			      size_t len, size_t chunk, ibf_ucx_err_t *err)
{
	size_t nch = (len + chunk - 1) / chunk, k, j;
	ibf_ucxi_req_t *rr = calloc(nch, sizeof(*rr));
	ibf_ucxi_req_t *sr = calloc(nch, sizeof(*sr));
	ibf_ucx_status_t st = IBF_UCX_OK;
	size_t nr = 0, ns = 0;

	if (!rr || !sr) {
		free(rr);
		free(sr);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	for (k = 0; prev != UINT32_MAX && k < nch && st == IBF_UCX_OK; k++) {
		size_t off = k * chunk, l = len - off < chunk ? len - off :
					    chunk;

		st = ibf_ucxi_irecv(u, prev, tin, buf + off, l, &rr[k], err);
		nr += st == IBF_UCX_OK;
	}
	for (k = 0; k < nch && st == IBF_UCX_OK; k++) {
		size_t off = k * chunk, l = len - off < chunk ? len - off :
					    chunk;

		if (prev != UINT32_MAX) {
			st = ibf_ucxi_wait(u, &rr[k], 1, ibf_ucxi_now() +
					   u->timeout, 0, err);
			rr[k].req = NULL;
			if (st != IBF_UCX_OK)
				break;
		}
		if (next != UINT32_MAX && k >= SEND_WINDOW) {
			st = ibf_ucxi_wait(u, &sr[k - SEND_WINDOW], 1,
					   ibf_ucxi_now() + u->timeout, 0, err);
			sr[k - SEND_WINDOW].req = NULL;
			if (st != IBF_UCX_OK)
				break;
		}
		if (next != UINT32_MAX) {
			st = ibf_ucxi_isend(u, next, tout, buf + off, l,
					    &sr[k], err);
			ns += st == IBF_UCX_OK;
		}
	}
	/* the last window (requests already waited for are NULL: done) */
	if (st == IBF_UCX_OK && ns)
		st = ibf_ucxi_wait(u, sr, (unsigned)ns, ibf_ucxi_now() +
				   u->timeout, 0, err);
	else if (ns)   /* deadline in the past: cancel what is left */
		ibf_ucxi_wait(u, sr, (unsigned)ns, 0, 0, NULL);
	if (st != IBF_UCX_OK) {
		for (j = 0; j < nr; j++)
			if (rr[j].req)
				ibf_ucxi_wait(u, &rr[j], 1, 0, 0, NULL);
	}
	free(rr);
	free(sr);
	return st;
}

ibf_ucx_status_t ibf_ucx_bcast_pipeline(ibf_ucx_t *u, uint32_t root,
					void *buf, size_t len, size_t chunk,
					ibf_ucx_err_t *err)
{
	uint32_t seq, pos, i, prev, next;
	bcast_state_t *b;
	ibf_ucx_status_t st;

	if (root >= u->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID, "broadcast: "
				       "root %u of %u ranks", root, u->size);
	if (!chunk)
		chunk = u->cfg->v.bcast_chunk;
	seq = ++u->seq;
	st = chain(u, &b, err);
	if (st != IBF_UCX_OK || u->size < 2 || !len)
		return st;
	for (pos = 0; b->chain[pos] != root; pos++)
		;
	/* my place in the chain rotated to start at the root */
	for (i = 0; b->chain[(pos + i) % u->size] != u->rank; i++)
		;
	prev = i ? b->chain[(pos + i - 1) % u->size] : UINT32_MAX;
	next = i + 1 < u->size ? b->chain[(pos + i + 1) % u->size] :
	       UINT32_MAX;
	st = relay(u, prev, next,
		   ibf_ucxi_tag(IBF_UCXI_TAG_BCAST_PIPE, seq, prev),
		   ibf_ucxi_tag(IBF_UCXI_TAG_BCAST_PIPE, seq, u->rank), buf,
		   len, chunk, err);
	if (st == IBF_UCX_OK)
		b->calls++;
	else
		ibf_ucx_err_prefix(err, "pipelined broadcast from rank %u: ",
				   root);
	return st;
}

uint64_t ibf_ucx_bcast_pipeline_calls(const ibf_ucx_t *u)
{
	const bcast_state_t *b = ibf_ucxi_state_get(u, &BCAST);

	return b ? b->calls : 0;
}
