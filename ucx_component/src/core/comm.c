/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Tagged point-to-point messages and the small collectives the library
 * needs (barrier, broadcast, gather), all bounded by UCX_IBFLOW_TIMEOUT.
 *
 * Waiting spins on ucp_worker_progress() only for a caller-given time and
 * then sleeps on the worker's event fd: ranks that are not in the current
 * probe round must leave the CPU to those that are (tests oversubscribe 2
 * cores with 16 processes).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ucx_internal.h"

static ibf_ucx_status_t ucx_fail(ibf_ucx_err_t *err, const char *what,
				 uint32_t peer, ucs_status_t st)
{
	return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "%s rank %u: %s", what,
			       peer, ucs_status_string(st));
}

ucs_status_t ibf_ucxi_wire_ep(ibf_ucxi_wire_t *w, uint32_t rank,
			      ucp_ep_h *ep)
{
	ucp_ep_params_t p = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS };
	ucs_status_t st;

	if (!w->eps[rank]) {
		const uint8_t *at = w->addrs + (size_t)rank * w->stride;
		uint64_t len;

		memcpy(&len, at, sizeof(len));
		if (!len)   /* that process has no such context */
			return UCS_ERR_UNREACHABLE;
		p.address = (const ucp_address_t *)(at + sizeof(uint64_t));
		st = ibf_ucxi_fault("ucp_ep_create");
		if (st == UCS_OK)
			st = ucp_ep_create(w->worker, &p, &w->eps[rank]);
		if (st != UCS_OK) {
			w->eps[rank] = NULL;
			return st;
		}
	}
	*ep = w->eps[rank];
	return UCS_OK;
}

void ibf_ucxi_wire_close(ibf_ucxi_wire_t *w)
{
	if (w->worker)
		ucp_worker_destroy(w->worker);
	if (w->ctx)
		ucp_cleanup(w->ctx);
	free(w->eps);
	free(w->addrs);
	memset(w, 0, sizeof(*w));
	w->efd = -1;
}

ibf_ucx_status_t ibf_ucx_ep(ibf_ucx_t *u, uint32_t rank, ucp_ep_h *ep,
			    ibf_ucx_err_t *err)
{
	ucs_status_t st;

	if (rank >= u->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "rank %u out of range (size %u)", rank,
				       u->size);
	st = ibf_ucxi_wire_ep(&u->wire, rank, ep);
	return st == UCS_OK ? IBF_UCX_OK :
	       ucx_fail(err, "connecting to", rank, st);
}

static ibf_ucx_status_t wire_isend(ibf_ucx_t *u, ibf_ucxi_wire_t *w,
				   uint32_t peer, ucp_tag_t tag,
				   const void *buf, size_t len,
				   ibf_ucxi_req_t *r, ibf_ucx_err_t *err)
{
	ucp_request_param_t p = { .op_attr_mask = 0 };
	ucs_status_ptr_t sp;
	ucs_status_t us;
	ucp_ep_h ep;

	r->req = NULL;
	r->what = "sending to";
	r->peer = peer;
	r->worker = w->worker;
	if (peer >= u->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "rank %u out of range (size %u)", peer,
				       u->size);
	us = ibf_ucxi_wire_ep(w, peer, &ep);
	if (us != UCS_OK)
		return ucx_fail(err, "connecting to", peer, us);
	sp = ucp_tag_send_nbx(ep, buf, len, tag, &p);
	if (UCS_PTR_IS_ERR(sp))
		return ucx_fail(err, "sending to", peer, UCS_PTR_STATUS(sp));
	r->req = sp;
	w->nsent++;
	return IBF_UCX_OK;
}

static ibf_ucx_status_t wire_irecv(ibf_ucxi_wire_t *w, uint32_t peer,
				   ucp_tag_t tag, void *buf, size_t len,
				   ibf_ucxi_req_t *r, ibf_ucx_err_t *err)
{
	ucp_request_param_t p = { .op_attr_mask = 0 };
	ucs_status_ptr_t sp;

	r->what = "receiving from";
	r->peer = peer;
	r->worker = w->worker;
	sp = ucp_tag_recv_nbx(w->worker, buf, len, tag, (ucp_tag_t)-1, &p);
	if (UCS_PTR_IS_ERR(sp)) {
		r->req = NULL;
		return ucx_fail(err, "receiving from", peer,
				UCS_PTR_STATUS(sp));
	}
	r->req = sp;
	w->nrecv++;
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_isend(ibf_ucx_t *u, uint32_t peer, ucp_tag_t tag,
				const void *buf, size_t len, ibf_ucxi_req_t *r,
				ibf_ucx_err_t *err)
{
	return wire_isend(u, &u->wire, peer, tag, buf, len, r, err);
}

ibf_ucx_status_t ibf_ucxi_irecv(ibf_ucx_t *u, uint32_t peer, ucp_tag_t tag,
				void *buf, size_t len, ibf_ucxi_req_t *r,
				ibf_ucx_err_t *err)
{
	return wire_irecv(&u->wire, peer, tag, buf, len, r, err);
}

ibf_ucx_status_t ibf_ucxi_route_isend(ibf_ucx_t *u, uint32_t peer,
				      ucp_tag_t tag, const void *buf,
				      size_t len, ibf_ucxi_req_t *r,
				      ibf_ucx_err_t *err)
{
	if (peer >= u->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "rank %u out of range (size %u)", peer,
				       u->size);
	return wire_isend(u, ibf_ucxi_sl_wire(u, peer, true), peer, tag, buf,
			  len, r, err);
}

ibf_ucx_status_t ibf_ucxi_route_irecv(ibf_ucx_t *u, uint32_t peer,
				      ucp_tag_t tag, void *buf, size_t len,
				      ibf_ucxi_req_t *r, ibf_ucx_err_t *err)
{
	if (peer >= u->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "rank %u out of range (size %u)", peer,
				       u->size);
	return wire_irecv(ibf_ucxi_sl_wire(u, peer, false), peer, tag, buf,
			  len, r, err);
}

/* Completed: release it and keep its status in *st. */
static bool reap(ibf_ucxi_req_t *r, ucs_status_t *st)
{
	ucs_status_t s;

	if (!r->req) {
		*st = UCS_OK;
		return true;
	}
	s = ucp_request_check_status(r->req);
	if (s == UCS_INPROGRESS)
		return false;
	ucp_request_free(r->req);
	r->req = NULL;
	*st = s;
	return true;
}

bool ibf_ucxi_test(ibf_ucxi_req_t *r, ibf_ucx_status_t *st,
		   ibf_ucx_err_t *err)
{
	ucs_status_t us;

	if (!reap(r, &us))
		return false;
	*st = us == UCS_OK ? IBF_UCX_OK :
	      ucx_fail(err, r->what, r->peer, us);
	return true;
}

/* A receive buffer must not be matched after its owner gave up on it:
 * cancel, let UCX complete the cancellation, then free. */
static void abandon(ibf_ucx_t *u, ibf_ucxi_req_t *r)
{
	double until = ibf_ucxi_now() + 1.0;

	ucp_worker_h w = r->worker ? r->worker : u->wire.worker;

	if (!r->req)
		return;
	ucp_request_cancel(w, r->req);
	while (ucp_request_check_status(r->req) == UCS_INPROGRESS &&
	       ibf_ucxi_now() < until)
		ucp_worker_progress(w);
	ucp_request_free(r->req);
	r->req = NULL;
}

unsigned ibf_ucxi_progress_all(ibf_ucx_t *u)
{
	ibf_ucxi_wire_t *w;
	uint32_t n = ibf_ucxi_sl_wires(u, &w);
	unsigned ev = ucp_worker_progress(u->wire.worker);

	for (uint32_t i = 0; i < n; i++)
		ev += ucp_worker_progress(w[i].worker);
	return ev;
}

void ibf_ucxi_sleep_all(ibf_ucx_t *u, ucp_worker_h extra, int extra_efd,
			double max_s)
{
	struct pollfd pfd[IBF_NSLS + 2];
	ibf_ucxi_wire_t *w;
	uint32_t n = ibf_ucxi_sl_wires(u, &w), i, k = 0;
	int ms = (int)(max_s * 1e3);

	/* events pending on one: progress again at once */
	if (ucp_worker_arm(u->wire.worker) != UCS_OK)
		return;
	pfd[k++] = (struct pollfd){ .fd = u->wire.efd, .events = POLLIN };
	for (i = 0; i < n; i++) {
		if (ucp_worker_arm(w[i].worker) != UCS_OK)
			return;
		pfd[k++] = (struct pollfd){ .fd = w[i].efd, .events = POLLIN };
	}
	if (extra) {
		if (ucp_worker_arm(extra) != UCS_OK)
			return;
		pfd[k++] = (struct pollfd){ .fd = extra_efd, .events = POLLIN };
	}
	poll(pfd, k, ms < 1 ? 1 : ms);
}

void ibf_ucxi_progress_or_sleep(ibf_ucx_t *u, double max_s)
{
	if (!ibf_ucxi_progress_all(u))
		ibf_ucxi_sleep_all(u, NULL, -1, max_s);
}

ibf_ucx_status_t ibf_ucxi_wait(ibf_ucx_t *u, ibf_ucxi_req_t *r, unsigned n,
			       double deadline, double spin_s,
			       ibf_ucx_err_t *err)
{
	double t, spin_until = ibf_ucxi_now() + spin_s;
	ibf_ucx_status_t ret = IBF_UCX_OK;
	unsigned i, left;
	ucs_status_t st;

	for (;;) {
		while (ibf_ucxi_progress_all(u))
			;
		for (i = left = 0; i < n; i++) {
			if (!reap(&r[i], &st)) {
				left++;
			} else if (st != UCS_OK && ret == IBF_UCX_OK) {
				ret = ucx_fail(err, r[i].what, r[i].peer, st);
			}
		}
		if (!left)
			return ret;
		t = ibf_ucxi_now();
		if (t > deadline)
			break;
		if (t >= spin_until)
			ibf_ucxi_sleep_all(u, NULL, -1, deadline - t < 0.1 ?
					   deadline - t : 0.1);
	}
	for (i = 0; i < n; i++) {
		if (r[i].req && ret == IBF_UCX_OK)
			ret = ibf_ucx_err_set(err, IBF_UCX_ERR_TIMEOUT,
					      "%s rank %u: no answer within "
					      "%g s (%sTIMEOUT)", r[i].what,
					      r[i].peer, u->timeout,
					      IBF_UCX_VAR_PREFIX);
		abandon(u, &r[i]);
	}
	return ret;
}

ibf_ucx_status_t ibf_ucxi_send(ibf_ucx_t *u, uint32_t peer, ucp_tag_t tag,
			       const void *buf, size_t len,
			       ibf_ucx_err_t *err)
{
	ibf_ucxi_req_t r;
	ibf_ucx_status_t st = ibf_ucxi_isend(u, peer, tag, buf, len, &r, err);

	if (st != IBF_UCX_OK)
		return st;
	return ibf_ucxi_wait(u, &r, 1, ibf_ucxi_now() + u->timeout, 0, err);
}

ibf_ucx_status_t ibf_ucxi_recv(ibf_ucx_t *u, uint32_t peer, ucp_tag_t tag,
			       void *buf, size_t len, ibf_ucx_err_t *err)
{
	ibf_ucxi_req_t r;
	ibf_ucx_status_t st = ibf_ucxi_irecv(u, peer, tag, buf, len, &r, err);

	if (st != IBF_UCX_OK)
		return st;
	return ibf_ucxi_wait(u, &r, 1, ibf_ucxi_now() + u->timeout, 0, err);
}

/* ---- collectives -------------------------------------------------------------- */

/* Dissemination barrier: ceil(log2 n) steps, each a send to rank + 2^k
 * and a receive from rank - 2^k.  The step is part of the tag, so
 * messages of consecutive steps and barriers never match each other. */
ibf_ucx_status_t ibf_ucx_barrier(ibf_ucx_t *u, ibf_ucx_err_t *err)
{
	uint32_t seq = ++u->seq, k, step = 0;
	ibf_ucxi_req_t r[2];
	char s = 0, d;
	ibf_ucx_status_t st;

	for (k = 1; k < u->size; k <<= 1, step++) {
		uint32_t to = (u->rank + k) % u->size;
		uint32_t from = (u->rank + u->size - k) % u->size;

		st = ibf_ucxi_irecv(u, from, ibf_ucxi_tag(IBF_UCXI_TAG_BARRIER,
							  seq << 5 | step, from),
				    &d, 1, &r[0], err);
		if (st != IBF_UCX_OK)
			return st;
		st = ibf_ucxi_isend(u, to, ibf_ucxi_tag(IBF_UCXI_TAG_BARRIER,
							seq << 5 | step,
							u->rank),
				    &s, 1, &r[1], err);
		if (st != IBF_UCX_OK) {
			abandon(u, &r[0]);
			return st;
		}
		st = ibf_ucxi_wait(u, r, 2, ibf_ucxi_now() + u->timeout, 0,
				   err);
		if (st != IBF_UCX_OK) {
			ibf_ucx_err_prefix(err, "barrier: ");
			return st;
		}
	}
	return IBF_UCX_OK;
}

/* Binomial tree from the root. */
static ibf_ucx_status_t bcast_tree(ibf_ucx_t *u, uint32_t root, void *buf,
				   size_t len, uint32_t seq,
				   ibf_ucx_err_t *err)
{
	uint32_t n = u->size, vr = (u->rank + n - root) % n, mask = 1;
	ibf_ucx_status_t st;

	for (; mask < n; mask <<= 1) {
		if (vr & mask) {
			uint32_t src = (vr - mask + root) % n;

			st = ibf_ucxi_recv(u, src, ibf_ucxi_tag(
					   IBF_UCXI_TAG_BCAST, seq, src),
					   buf, len, err);
			if (st != IBF_UCX_OK)
				return st;
			break;
		}
	}
	for (mask >>= 1; mask > 0; mask >>= 1) {
		if (vr + mask < n) {
			uint32_t dst = (vr + mask + root) % n;

			st = ibf_ucxi_send(u, dst, ibf_ucxi_tag(
					   IBF_UCXI_TAG_BCAST, seq, u->rank),
					   buf, len, err);
			if (st != IBF_UCX_OK)
				return st;
		}
	}
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucx_bcast(ibf_ucx_t *u, uint32_t root, void *buf,
			       size_t len, ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st;

	if (root >= u->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "bcast: root %u out of range (size "
				       "%u)", root, u->size);
	st = bcast_tree(u, root, buf, len, ++u->seq, err);
	if (st != IBF_UCX_OK)
		ibf_ucx_err_prefix(err, "bcast: ");
	return st;
}

ibf_ucx_status_t ibf_ucxi_bcast_blob(ibf_ucx_t *u, uint32_t root,
				     void **buf, size_t *len,
				     ibf_ucx_err_t *err)
{
	uint64_t n = *len;
	ibf_ucx_status_t st = ibf_ucx_bcast(u, root, &n, sizeof(n), err);

	if (st != IBF_UCX_OK)
		return st;
	if (u->rank != root) {
		*len = n;
		*buf = malloc(n ? n : 1);
		if (!*buf)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					       "out of memory (%llu bytes)",
					       (unsigned long long)n);
	}
	return ibf_ucx_bcast(u, root, *buf, n, err);
}

/* Where each rank's part goes at the root of a gather: contiguous
 * blocks of len bytes at base, or (base NULL) bufs[i] of lens[i] bytes,
 * none when 0. */
typedef struct gather_parts {
	char *base;
	size_t len;
	void **bufs;
	const uint64_t *lens;
} gather_parts_t;

static void *gather_part(const gather_parts_t *g, uint32_t i, size_t *len,
			 bool *any)
{
	*len = g->base ? g->len : g->lens[i];
	*any = g->base || *len;
	return g->base ? g->base + (size_t)i * g->len : g->bufs[i];
}

/* The end of a root's posting of n requests r (calloc'd): wait for all
 * of them if all were posted (st OK), else give back what was; r freed. */
static ibf_ucx_status_t settle(ibf_ucx_t *u, ibf_ucxi_req_t *r, uint32_t n,
			       ibf_ucx_status_t st, ibf_ucx_err_t *err)
{
	if (st == IBF_UCX_OK)
		st = ibf_ucxi_wait(u, r, n, ibf_ucxi_now() + u->timeout, 0,
				   err);
	else
		for (uint32_t i = 0; i < n; i++)
			abandon(u, &r[i]);
	free(r);
	return st;
}

/* The root receives every other rank's part (tag GATHER, seq) and waits
 * for all; on a failure to post, what was posted is given back. */
static ibf_ucx_status_t gather_recv(ibf_ucx_t *u, uint32_t root, uint32_t seq,
				    const gather_parts_t *g,
				    ibf_ucx_err_t *err)
{
	ibf_ucxi_req_t *r = calloc(u->size, sizeof(*r));
	ibf_ucx_status_t st = IBF_UCX_OK;
	uint32_t i, n = 0;
	size_t len;
	void *buf;
	bool any;

	if (!r)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	for (i = 0; i < u->size && st == IBF_UCX_OK; i++) {
		buf = gather_part(g, i, &len, &any);
		if (i == root || !any)
			continue;
		st = ibf_ucxi_irecv(u, i, ibf_ucxi_tag(IBF_UCXI_TAG_GATHER, seq,
						       i), buf, len, &r[n], err);
		if (st == IBF_UCX_OK)
			n++;
	}
	return settle(u, r, n, st, err);
}

ibf_ucx_status_t ibf_ucxi_gather(ibf_ucx_t *u, uint32_t root,
				 const void *sbuf, void *rbuf, size_t len,
				 ibf_ucx_err_t *err)
{
	const gather_parts_t g = { .base = rbuf, .len = len };
	uint32_t seq = ++u->seq;

	if (u->rank != root)
		return ibf_ucxi_send(u, root, ibf_ucxi_tag(IBF_UCXI_TAG_GATHER,
							   seq, u->rank),
				     sbuf, len, err);
	memcpy((char *)rbuf + (size_t)root * len, sbuf, len);
	return gather_recv(u, root, seq, &g, err);
}

ibf_ucx_status_t ibf_ucxi_gatherv(ibf_ucx_t *u, uint32_t root,
				  const void *sbuf, size_t slen, void **rbuf,
				  size_t *rlen, ibf_ucx_err_t *err)
{
	uint64_t mine = slen, *lens = NULL;
	gather_parts_t g = { .bufs = rbuf };
	uint32_t seq, i;
	ibf_ucx_status_t st;

	if (u->rank == root && !(lens = calloc(u->size, sizeof(*lens))))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	st = ibf_ucxi_gather(u, root, &mine, lens, sizeof(mine), err);
	seq = ++u->seq;
	if (st != IBF_UCX_OK || u->rank != root) {
		free(lens);
		if (st != IBF_UCX_OK || !slen)
			return st;
		return ibf_ucxi_send(u, root, ibf_ucxi_tag(IBF_UCXI_TAG_GATHER,
							   seq, u->rank),
				     sbuf, slen, err);
	}
	for (i = 0; i < u->size; i++) {
		rlen[i] = lens[i];
		rbuf[i] = lens[i] ? malloc(lens[i]) : NULL;
		if (lens[i] && !rbuf[i])
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					     "out of memory");
	}
	if (st == IBF_UCX_OK && slen)
		memcpy(rbuf[root], sbuf, slen);
	g.lens = lens;
	if (st == IBF_UCX_OK)
		st = gather_recv(u, root, seq, &g, err);
	free(lens);
	return st;
}

/* The root sends rank i its part (lens[i] bytes at parts[i]): first
 * every length, then every part, all posted at once; the root's own
 * part is copied.  The others receive theirs into a malloc'd buffer. */
static ibf_ucx_status_t scatter_send(ibf_ucx_t *u, const void *const *parts,
				     const uint64_t *lens, uint32_t seq,
				     void **rbuf, size_t *rlen,
				     ibf_ucx_err_t *err)
{
	ibf_ucxi_req_t *r = calloc(2 * (size_t)u->size, sizeof(*r));
	ibf_ucx_status_t st = IBF_UCX_OK;
	uint32_t i, n = 0;

	if (!r)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	for (i = 0; i < u->size && st == IBF_UCX_OK; i++) {
		if (i == u->rank) {
			*rlen = lens[i];
			*rbuf = malloc(lens[i] ? lens[i] : 1);
			if (!*rbuf)
				st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
						     "out of memory");
			else
				memcpy(*rbuf, parts[i], lens[i]);
		} else {
			st = ibf_ucxi_isend(u, i, ibf_ucxi_tag(
					    IBF_UCXI_TAG_SCATTER, seq, u->rank),
					    &lens[i], sizeof(lens[i]), &r[n],
					    err);
			if (st == IBF_UCX_OK && ++n && lens[i])
				st = ibf_ucxi_isend(u, i, ibf_ucxi_tag(
						    IBF_UCXI_TAG_SCATTER,
						    seq + 1, u->rank),
						    parts[i], lens[i], &r[n++],
						    err);
		}
	}
	return settle(u, r, n, st, err);
}

ibf_ucx_status_t ibf_ucxi_scatterv(ibf_ucx_t *u, uint32_t root,
				   const void *const *parts,
				   const uint64_t *lens, void **rbuf,
				   size_t *rlen, ibf_ucx_err_t *err)
{
	uint32_t seq = (u->seq += 2) - 1;
	uint64_t n = 0;
	ibf_ucx_status_t st;

	*rbuf = NULL;
	*rlen = 0;
	if (u->rank == root)
		return scatter_send(u, parts, lens, seq, rbuf, rlen, err);
	st = ibf_ucxi_recv(u, root, ibf_ucxi_tag(IBF_UCXI_TAG_SCATTER, seq,
						 root), &n, sizeof(n), err);
	if (st != IBF_UCX_OK)
		return st;
	*rbuf = malloc(n ? n : 1);
	if (!*rbuf)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory "
				       "(%llu bytes)", (unsigned long long)n);
	*rlen = n;
	if (!n)
		return IBF_UCX_OK;
	return ibf_ucxi_recv(u, root, ibf_ucxi_tag(IBF_UCXI_TAG_SCATTER,
						   seq + 1, root),
			     *rbuf, n, err);
}

/* ---- the caller's OOB ------------------------------------------------------- */

ibf_ucx_status_t ibf_ucxi_oob_allgather(ibf_ucx_t *u, void *sbuf, void *rbuf,
					size_t len, ibf_ucx_err_t *err)
{
	double deadline = ibf_ucxi_now() + u->timeout;
	struct timespec nap = { 0, 200000 };
	ibf_ucx_status_t st;
	void *req = NULL;

	st = u->oob.allgather(sbuf, rbuf, len, u->oob.coll_info, &req);
	if (st != IBF_UCX_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_OOB, "out-of-band "
				       "allgather failed to start: %s",
				       ibf_ucx_status_str(st));
	while ((st = u->oob.req_test(req)) == IBF_UCX_INPROGRESS) {
		if (ibf_ucxi_now() > deadline) {
			u->oob.req_free(req);
			return ibf_ucx_err_set(err, IBF_UCX_ERR_TIMEOUT,
					       "out-of-band allgather: not "
					       "complete within %g s (%s"
					       "TIMEOUT)", u->timeout,
					       IBF_UCX_VAR_PREFIX);
		}
		/* The OOB may be waiting for a peer that waits for our
		 * UCX progress (endpoint flush at finalize). */
		if (u->wire.worker)
			ibf_ucxi_progress_all(u);
		nanosleep(&nap, NULL);
	}
	u->oob.req_free(req);
	if (st != IBF_UCX_OK)
		return ibf_ucx_err_set(err, st == IBF_UCX_ERR_TIMEOUT ? st :
				       IBF_UCX_ERR_OOB, "out-of-band "
				       "allgather failed: %s",
				       ibf_ucx_status_str(st));
	return IBF_UCX_OK;
}
