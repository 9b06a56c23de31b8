/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * One exchange of an all-to-all: a group of sends and a group of
 * receives, waited for together.  The pairwise variant is a sequence of
 * them, one peer each; the frame variants one per frame.
 *
 * Blocks go on the context of their route's SL (core/sl_lanes.c), the
 * ready tokens on the data context.
 *
 * Tags: (kind, call sequence, source rank).  Within one call a process
 * sends one block and one ready token to each peer, so no frame number is
 * needed; the sequence keeps consecutive calls apart.
 */
#include "config.h"

#include <stdlib.h>

#include "coll/a2a_internal.h"

/* Every receive (and its ready token, with handshake) is posted before
 * any send waits for a token, so ranks whose groups overlap in any order
 * cannot wait for each other. */
ibf_ucx_status_t ibf_ucxi_a2a_exchange(ibf_ucx_t *u,
				       const ibf_ucxi_blocks_t *b,
				       uint32_t seq, const uint32_t *to,
				       uint32_t nto, const uint32_t *from,
				       uint32_t nfrom, bool handshake,
				       ibf_ucx_err_t *err)
{
	ibf_ucxi_req_t *r = calloc(2 * (size_t)nfrom + nto + 1, sizeof(*r));
	unsigned n = 0;
	char token = 0, ready;
	size_t len;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if (!r)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
				       "all-to-all: out of memory");
	/* receive side first: post the data receive, then say ready */
	for (uint32_t i = 0; i < nfrom && st == IBF_UCX_OK; i++) {
		void *buf = ibf_ucxi_rblock(b, from[i], &len);

		st = ibf_ucxi_route_irecv(u, from[i], ibf_ucxi_tag(
					  IBF_UCXI_TAG_A2A_DATA, seq, from[i]),
					  buf, len, &r[n], err);
		if (st == IBF_UCX_OK && ++n && handshake)
			st = ibf_ucxi_isend(u, from[i], ibf_ucxi_tag(
					    IBF_UCXI_TAG_A2A_READY, seq,
					    u->rank), &token, 1, &r[n++], err);
	}
	for (uint32_t i = 0; i < nto && st == IBF_UCX_OK; i++) {
		const void *buf = ibf_ucxi_sblock(b, to[i], &len);

		if (handshake) {
			ibf_ucxi_req_t rr;

			st = ibf_ucxi_irecv(u, to[i], ibf_ucxi_tag(
					    IBF_UCXI_TAG_A2A_READY, seq,
					    to[i]), &ready, 1, &rr, err);
			if (st == IBF_UCX_OK)
				st = ibf_ucxi_wait(u, &rr, 1, ibf_ucxi_now() +
						   u->timeout, 0, err);
		}
		if (st == IBF_UCX_OK)
			st = ibf_ucxi_route_isend(u, to[i], ibf_ucxi_tag(
						  IBF_UCXI_TAG_A2A_DATA, seq,
						  u->rank), buf, len, &r[n++],
						  err);
	}
	if (st == IBF_UCX_OK) {
		st = ibf_ucxi_wait(u, r, n, ibf_ucxi_now() + u->timeout, 0,
				   err);
	} else if (n) {
		/* give back what was posted; a short deadline cancels it */
		ibf_ucx_err_t tmp;

		ibf_ucxi_wait(u, r, n, ibf_ucxi_now(), 0, &tmp);
	}
	free(r);
	return st;
}
