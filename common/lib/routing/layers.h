/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Router graphs and FatPaths routing layers (Besta et al., "FatPaths:
 * Routing in Supercomputers and Data Centers when Shortest Paths Fall
 * Short", SC'20, section V-B), for the layered engine (route_layered.c)
 * and its tests.
 *
 * The router graph holds the switches of a fabric (by index in
 * fabric->switches) and their switch-to-switch links as undirected edges;
 * parallel links are separate edges, hosts are left out.  A layer is a
 * subset of the edges: layer 0 is all of them, layers 1..n-1 come from
 * random uniform edge sampling (Listing 1) or the overlap-minimizing
 * construction (Listing 2).  Every layer is then made connected again by
 * adding back the fewest edges of the full graph (a spanning-forest
 * completion in seeded random order), so every pair is routable in every
 * layer; the number of edges added back is kept per layer.
 *
 * Each layer also carries an up/down order of its routers derived from
 * the random vertex permutation pi that Listings 1 and 2 draw per layer.
 *
 * Node order does not matter: edges are numbered by their ends' (NodeGUID,
 * port), lower end first, and every random draw walks the routers in
 * NodeGUID order (ord), so the layers depend only on the GUIDs, the
 * cabling and the seed -- the same from an ibnetdiscover file as from
 * OpenSM's own node order.
 */
#ifndef IBFLOW_LAYERS_H
#define IBFLOW_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/fabric.h>
#include <ibflow/route.h>

#include "base/rng.h"


typedef struct ibf_rgraph {
	uint32_t n;          /* routers = fabric->nswitches */
	uint32_t nedges;     /* switch-switch links */
	uint32_t *ea, *eb;   /* [nedges] endpoints (switch indices) */
	uint8_t *pa, *pb;    /* [nedges] port numbers at ea / eb */
	uint32_t *adj_off;   /* [n + 1] CSR offsets */
	uint32_t *adj_edge;  /* [2 * nedges] edge ids around each router,
				increasing */
	uint32_t *ord;       /* [n] routers in NodeGUID order */
} ibf_rgraph_t;

static inline uint32_t ibf_rgraph_other(const ibf_rgraph_t *g, uint32_t e,
					uint32_t u)
{
	return g->ea[e] == u ? g->eb[e] : g->ea[e];
}

/* Port number of edge e at router u. */
static inline unsigned ibf_rgraph_port(const ibf_rgraph_t *g, uint32_t e,
				       uint32_t u)
{
	return g->ea[e] == u ? g->pa[e] : g->pb[e];
}

ibf_status_t ibf_rgraph_build(const ibf_fabric_t *f, ibf_rgraph_t *g,
			      ibf_err_t *err);
void ibf_rgraph_free(ibf_rgraph_t *g);

/* BFS hop distances from src over the edges with mask[e] != 0 (mask NULL:
 * all edges); UINT32_MAX where unreachable.  queue: [g->n] scratch. */
void ibf_rgraph_bfs(const ibf_rgraph_t *g, const uint8_t *mask, uint32_t src,
		    uint32_t *dist, uint32_t *queue);

/* A Hamming graph (the switches of a HyperX or flattened butterfly: a
 * Cartesian product of complete graphs, parallel links allowed)
 * recognised by its lines: each link and the common neighbours of its
 * ends form a clique (the line of one dimension), and the lines at a
 * router map to those at its neighbour through 4-cycles.  1: it is one,
 * dim[e] (g->nedges) the dimension of every link, *ndims their number,
 * numbered by the first router in NodeGUID order; 0 not recognised
 * (dim undefined); -1 out of memory. */
#define IBF_HAMMING_MAX_ROUTERS 4096u
int ibf_rgraph_hamming(const ibf_rgraph_t *g, uint8_t *dim, unsigned *ndims);

/* A Slim Fly as the layered engine tells one (its one-VL routing has a
 * rule of its own for them, route_layered.c): the routers are regular
 * (every router has as many links, parallel links counted), of
 * diameter 2, not bipartite (a two-level fat tree whose leaves have as
 * many up links as its spines down links is regular and of diameter 2
 * too, but bipartite) and not a Hamming graph (hamming: what
 * ibf_rgraph_hamming() said; a HyperX of two dimensions or a complete
 * graph is regular and of diameter 2).  dist, queue: [g->n] scratch. */
bool ibf_rgraph_slimfly(const ibf_rgraph_t *g, bool hamming, uint32_t *dist,
			uint32_t *queue);

typedef struct ibf_layers_opts {
	unsigned n;               /* layers, >= 1 */
	double density;           /* rho in (0, 1] */
	ibf_layer_method_t method;
	uint64_t seed;
} ibf_layers_opts_t;

#define IBF_LAYERS_DEFAULT_DENSITY 0.6
/* The overlap construction keeps an all-pairs distance matrix. */
#define IBF_LAYERS_OVERLAP_MAX_ROUTERS 4096u

typedef struct ibf_layers {
	unsigned n;
	uint32_t nedges;
	uint8_t *in;         /* [n * nedges]: edge e is in layer i */
	uint32_t *nin;       /* [n] edges in each layer */
	uint32_t *repaired;  /* [n] edges added back to connect the layer */
	uint32_t ncomponents; /* of the full graph (1 when connected) */
	/* [n * routers]: the layer's up/down order (rank of each router;
	 * identity for layer 0).  Listing 1 orients a layer's links along a
	 * random vertex permutation pi to make it acyclic; here the order is
	 * a BFS order of the finished layer from the router first in pi,
	 * neighbours taken in pi order: still random, and every pair has an
	 * up-then-down path (up = toward lower rank).  The engine routes
	 * layers 1..n-1 that way, so each is deadlock-free on one VL. */
	uint32_t *rank;
} ibf_layers_t;

static inline const uint32_t *ibf_layer_rank(const ibf_layers_t *l,
					     unsigned i, uint32_t nrouters)
{
	return l->rank + (size_t)i * nrouters;
}

static inline const uint8_t *ibf_layer_mask(const ibf_layers_t *l, unsigned i)
{
	return l->in + (size_t)i * l->nedges;
}

/* Same graph, options and seed give the same layers. */
ibf_status_t ibf_layers_build(const ibf_rgraph_t *g,
			      const ibf_layers_opts_t *o, ibf_layers_t *out,
			      ibf_err_t *err);
void ibf_layers_free(ibf_layers_t *l);

#endif
