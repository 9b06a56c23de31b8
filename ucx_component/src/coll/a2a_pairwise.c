/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Pairwise all-to-all: topology-unaware round robin, in step k rank r
 * sends to r + k and receives from r - k.  The comparison for liquid,
 * and what runs when liquid is not chosen or cannot be.
 */
#include "config.h"

#include "coll/a2a_internal.h"

static ibf_ucx_status_t run_pairwise(ibf_ucx_t *u, struct ibf_ucxi_a2a *a,
				     const ibf_ucxi_blocks_t *b,
				     ibf_ucx_err_t *err)
{
	uint32_t n = u->size, seq = ++u->seq, k;
	ibf_ucx_status_t st;

	(void)a;
	for (k = 1; k < n; k++) {
		uint32_t to = (u->rank + k) % n, from = (u->rank + n - k) % n;

		st = ibf_ucxi_a2a_exchange(u, b, seq, &to, 1, &from, 1, false,
					   err);
		if (st != IBF_UCX_OK) {
			ibf_ucx_err_prefix(err, "all-to-all (pairwise), step "
					   "%u of %u: ", k, n - 1);
			return st;
		}
	}
	return IBF_UCX_OK;
}

const ibf_ucxi_a2a_variant_t ibf_ucxi_a2a_pairwise = {
	.name = "pairwise",
	.alg = IBF_UCX_A2A_PAIRWISE,
	.sync = IBF_UCXI_A2A_ANY_SYNC,
	.flags = IBF_UCXI_A2A_FALLBACK,
	.run = run_pairwise,
};
