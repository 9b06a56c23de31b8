/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Traffic patterns of the LFTI set (Mollah et al., IEEE TPDS 2018, Table
 * 3) over N ranks, and
 * the placement of ranks on hosts.
 *
 * Specs (K = number of random instances, default 1; D = destinations):
 *   perm[:K]        random permutations without fixed points
 *   shift           all N - 1 shifts r -> (r + s) mod N, s = 1 .. N - 1
 *   shift:K         K shifts s drawn uniformly from 1 .. N - 1
 *   bisect[:K]      random halves paired one to one, both directions
 *   2dnn[:K]        2D nearest neighbours (4) on a random X x Y torus grid
 *   2dnndiag[:K]    the same with diagonals (8)
 *   3dnn[:K]        3D nearest neighbours (6) on a random X x Y x Z grid
 *   3dnndiag[:K]    the same with diagonals (26)
 *   randn:D[:K]     every rank sends to D distinct random other ranks
 *   random:D[:K]    N * D pairs drawn uniformly (src != dst; repeats kept)
 *   alltoall        every ordered pair of distinct ranks
 *   file:PATH       a traffic file (traffic.h), placed as written
 * Grid sizes are drawn among the factorisations of N with every side >= 3
 * (4, 8, 6, 26 distinct neighbours); if N has none, sides >= 2 (a side of
 * 2 makes the two neighbours along it coincide: they count once).
 *
 * Instance i of a pattern depends only on (pattern kind and parameters
 * other than K, N, seed, i): perm:5 is the first five instances of
 * perm:10, and one seed always gives the same patterns.  The generator is
 * xoshiro256** seeded through splitmix64, never rand().
 *
 * Rank pairs come back as an ibf_traffic_t whose src/dst are RANKS
 * (0 .. N - 1) and count 1; ibf_pattern_traffic() maps them to host ports.
 */
#ifndef IBFLOW_PATTERNS_H
#define IBFLOW_PATTERNS_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/traffic.h>

IBF_BEGIN_DECLS

typedef enum ibf_pattern_kind {
	IBF_PATTERN_PERM = 1,
	IBF_PATTERN_SHIFT,
	IBF_PATTERN_BISECT,
	IBF_PATTERN_NN,
	IBF_PATTERN_RANDN,
	IBF_PATTERN_RANDOM,
	IBF_PATTERN_ALLTOALL,
	IBF_PATTERN_FILE,
} ibf_pattern_kind_t;

#define IBF_PATTERN_MAX_K 1000000u

typedef struct ibf_pattern {
	char name[64];        /* the spec as given (truncated), for messages */
	ibf_pattern_kind_t kind;
	unsigned k;           /* instances; 0 = all (shift) */
	unsigned d;           /* randn, random */
	unsigned dims;        /* nn: 2 or 3 */
	bool diag;            /* nn with diagonals */
	char *path;           /* file */
} ibf_pattern_t;

/* Parse one spec.  Errors name it: "randn:0:5: D must be >= 1". */
ibf_status_t ibf_pattern_parse(const char *spec, ibf_pattern_t *p,
			       ibf_err_t *err);
void ibf_pattern_free(ibf_pattern_t *p);

/* Instances for N ranks (shift: N - 1; alltoall, file: 1). */
uint32_t ibf_pattern_ninstances(const ibf_pattern_t *p, uint32_t nranks);

/* Rank pairs of instance i (0-based) for N ranks.  Errors (too few ranks
 * for the pattern, D >= N, no 2D/3D grid for N) name the pattern.  file:
 * has hosts, not ranks: IBF_ERR_UNSUPPORTED here. */
ibf_status_t ibf_pattern_ranks(const ibf_pattern_t *p, uint32_t nranks,
			       uint32_t instance, uint64_t seed,
			       ibf_traffic_t *out, ibf_err_t *err);

/* Host flows of instance i: rank r runs on host port map[r] (nranks
 * entries, see ibf_rankmap); file: reads the traffic file on f instead. */
ibf_status_t ibf_pattern_traffic(const ibf_pattern_t *p,
				 const ibf_fabric_t *f,
				 const ibf_port_id_t *map, uint32_t nranks,
				 uint32_t instance, uint64_t seed,
				 ibf_traffic_t *out, ibf_err_t *err);

/* Rank -> host placement (LFTI "whole system" maps): direct = the given
 * host order (order NULL: the fabric's endpoints in node order); random =
 * a seeded uniform shuffle of it.  *map gets norder (or nendpoints)
 * entries; free() it. */
ibf_status_t ibf_rankmap(const ibf_fabric_t *f, const ibf_port_id_t *order,
			 uint32_t norder, bool random, uint64_t seed,
			 ibf_port_id_t **map, uint32_t *nranks,
			 ibf_err_t *err);

IBF_END_DECLS
#endif
