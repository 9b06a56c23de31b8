/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Topology generators, specs in the papers' notation:
 *   pgft:H:M:W:P   e.g. pgft:3:6,6,12:1,6,6:1,1,1   PGFT(h; m; w; p)
 *   xgft:H:M:W     XGFT(h; m; w) = PGFT with p = 1
 *   kary:K,N       k-ary n-tree
 *   slimfly:Q[:P]  MMS graph, P hosts per router
 *   dragonfly:A,P,H balanced Dragonfly
 *   hyperx:L:S:K[:P]
 *   jellyfish:NR,K,P[:SEED]
 *   torus:X,Y,Z[:P]
 *   tree:S,H,P[:SEED] random irregular tree (S switches, H hosts)
 * Hosts are named "hNNNN HCA-1" in the generator's topological order; the
 * fabric comes back finalized with LIDs assigned at the requested LMC.
 */
#ifndef IBFLOW_GEN_H
#define IBFLOW_GEN_H

#include <ibflow/decls.h>
#include <ibflow/fabric.h>

IBF_BEGIN_DECLS

typedef struct ibf_gen_opts {
	unsigned lmc;
} ibf_gen_opts_t;

ibf_status_t ibf_gen(const char *spec, const ibf_gen_opts_t *opts,
		     ibf_fabric_t **out, ibf_err_t *err);

IBF_END_DECLS
#endif
