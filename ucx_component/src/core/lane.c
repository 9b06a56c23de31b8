/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The control lane: a second UCP context whose traffic the fabric can
 * serve before data, so that small control messages (the all-to-all's
 * releases) do not wait behind megabytes of blocks in the queues of the
 * links they cross.
 *
 * How the fabric tells the lane apart is the transport's business, set
 * on this context only through UCP's configuration:
 *   InfiniBand  UCX_IB_SL = UCX_IBFLOW_CTL_SL: an SL that the subnet
 *               manager maps to a high-priority VL (OpenSM's qos_sl2vl
 *               and vlarb_high);
 *   RoCE        UCX_IB_TRAFFIC_CLASS = UCX_IBFLOW_CTL_TCLASS: a DSCP that
 *               the switches serve in a strict-priority queue;
 *   TCP         UCX_TCP_PORT_RANGE = UCX_IBFLOW_CTL_TCP_PORTS: every
 *               connection of the lane has one end in that range, which
 *               a classifier can match (netns-fabric --ctl-ports).
 *
 * The lane is set up collectively at the first call that wants it, and
 * only if every process could open it: a process that sends releases on
 * the data context while its peers listen on the lane would hang them.
 * Without a lane, every lane_* call uses the data context.
 */
#include "config.h"

#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ucx_internal.h"

/* The lane is a wire of its own (ibf_ucxi_wire_t), like the data
 * context's. */
static void lane_destroy(ibf_ucxi_wire_t *l)
{
	if (!l)
		return;
	ibf_ucxi_wire_close(l);
	free(l);
}

/* The marks that set the lane's traffic apart.  UCX 1.13 reads a
 * transport's settings from the environment when a worker opens its
 * interfaces, and ucp_config_modify() does not reach them ("invalid
 * configuration"): so they are put in the environment around the lane's
 * ucp_init / ucp_worker_create and taken out again. */
typedef struct lane_mark {
	const char *var;
	char val[32];
	char *saved;          /* the caller's own value, restored after */
	bool set;
} lane_mark_t;

#define NMARKS 3

static void marks_fill(const ibf_ucx_cfg_t *v, lane_mark_t *m)
{
	memset(m, 0, NMARKS * sizeof(*m));
	m[0].var = "UCX_IB_SL";
	m[1].var = "UCX_IB_TRAFFIC_CLASS";
	m[2].var = "UCX_TCP_PORT_RANGE";
	m[0].set = v->ctl_sl != UINT_MAX;
	m[1].set = v->ctl_tclass != UINT_MAX;
	m[2].set = v->ctl_tcp_ports && v->ctl_tcp_ports[0];
	snprintf(m[0].val, sizeof(m[0].val), "%u", v->ctl_sl);
	snprintf(m[1].val, sizeof(m[1].val), "%u", v->ctl_tclass);
	snprintf(m[2].val, sizeof(m[2].val), "%s",
		 m[2].set ? v->ctl_tcp_ports : "");
}

static void marks_apply(lane_mark_t *m)
{
	for (int i = 0; i < NMARKS; i++) {
		const char *old = getenv(m[i].var);

		if (!m[i].set)
			continue;
		m[i].saved = old ? strdup(old) : NULL;
		setenv(m[i].var, m[i].val, 1);
	}
}

static void marks_restore(lane_mark_t *m)
{
	for (int i = 0; i < NMARKS; i++) {
		if (!m[i].set)
			continue;
		if (m[i].saved)
			setenv(m[i].var, m[i].saved, 1);
		else
			unsetenv(m[i].var);
		free(m[i].saved);
		m[i].saved = NULL;
	}
}

static ibf_ucx_status_t lane_open(const ibf_ucx_t *u,
				  ibf_ucxi_wire_t *l,
				  ucp_address_t **addr, size_t *len,
				  ibf_ucx_err_t *err)
{
	ucp_params_t p = { .field_mask = UCP_PARAM_FIELD_FEATURES |
					 UCP_PARAM_FIELD_NAME,
			   .features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP,
			   .name = "ibflow-ctl" };
	ucp_worker_params_t wp = { .field_mask =
					   UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				   .thread_mode = UCS_THREAD_MODE_SINGLE };
	lane_mark_t marks[NMARKS];
	ucp_config_t *uc;
	ucs_status_t us;
	ibf_ucx_status_t st;

	marks_fill(&u->cfg->v, marks);
	marks_apply(marks);
	st = ibf_ucxi_ucp_config(u->cfg, &uc, err);
	if (st != IBF_UCX_OK) {
		marks_restore(marks);
		return st;
	}
	us = ucp_init(&p, uc, &l->ctx);
	ucp_config_release(uc);
	if (us == UCS_OK)
		us = ucp_worker_create(l->ctx, &wp, &l->worker);
	marks_restore(marks);
	if (us == UCS_OK)
		us = ucp_worker_get_efd(l->worker, &l->efd);
	if (us == UCS_OK)
		us = ucp_worker_get_address(l->worker, addr, len);
	if (us != UCS_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "control lane: "
				       "%s", ucs_status_string(us));
	l->eps = calloc(u->size, sizeof(*l->eps));
	if (!l->eps)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
				       "control lane: out of memory");
	return IBF_UCX_OK;
}

/* Everybody's lane address (or an empty one: that process failed) to
 * everybody, over the data context.  *all_ok: nobody failed. */
static ibf_ucx_status_t lane_exchange(ibf_ucx_t *u, ibf_ucxi_wire_t *l,
				      const void *addr, size_t len,
				      bool *all_ok, ibf_ucx_err_t *err)
{
	void **got = NULL, *blob = NULL;
	size_t *glen = NULL, max = 0, blen = 0;
	ibf_ucx_status_t st = IBF_UCX_OK;
	uint32_t i, n = u->size;

	if (u->rank == 0) {
		got = calloc(n, sizeof(*got));
		glen = calloc(n, sizeof(*glen));
		if (!got || !glen)
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					     "control lane: out of memory");
	}
	if (st == IBF_UCX_OK)
		st = ibf_ucxi_gatherv(u, 0, addr, len, got, glen, err);
	if (st == IBF_UCX_OK && u->rank == 0) {
		for (i = 0; i < n; i++)
			max = glen[i] > max ? glen[i] : max;
		blen = (size_t)n * (sizeof(uint64_t) + max);
		blob = calloc(1, blen);
		for (i = 0; blob && i < n; i++) {
			uint64_t x = glen[i];
			uint8_t *at = (uint8_t *)blob +
				      i * (sizeof(uint64_t) + max);

			memcpy(at, &x, sizeof(x));
			if (x)
				memcpy(at + sizeof(x), got[i], x);
		}
		if (!blob)
			blen = 0;
	}
	for (i = 0; got && i < n; i++)
		free(got[i]);
	free(got);
	free(glen);
	if (st == IBF_UCX_OK)
		st = ibf_ucxi_bcast_blob(u, 0, &blob, &blen, err);
	if (st == IBF_UCX_OK && (!blen || blen % n)) {
		free(blob);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "control lane: "
				       "malformed address list");
	}
	if (st != IBF_UCX_OK) {
		free(blob);
		return st;
	}
	l->addrs = blob;
	l->stride = blen / n;
	*all_ok = true;
	for (i = 0; i < n; i++) {
		uint64_t x;

		memcpy(&x, l->addrs + i * l->stride, sizeof(x));
		*all_ok = *all_ok && x > 0;
	}
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_lane_setup(ibf_ucx_t *u, ibf_ucx_err_t *err)
{
	ibf_ucxi_wire_t none = { 0 }, *l;
	ucp_address_t *addr = NULL;
	size_t len = 0;
	ibf_ucx_err_t why;
	ibf_ucx_status_t st;
	bool all_ok = false;

	if (u->lane_tried)
		return IBF_UCX_OK;
	u->lane_tried = true;
	if (!u->cfg->v.ctl_lane || u->size < 2)
		return IBF_UCX_OK;
	ibf_ucx_err_clear(&why);
	l = calloc(1, sizeof(*l));
	if (!l || lane_open(u, l, &addr, &len, &why) != IBF_UCX_OK) {
		if (l && addr)
			ucp_worker_release_address(l->worker, addr);
		addr = NULL;
		len = 0;
	}
	st = lane_exchange(u, l ? l : &none, addr, len, &all_ok, err);
	free(none.addrs);
	if (addr)
		ucp_worker_release_address(l->worker, addr);
	if (st != IBF_UCX_OK || !all_ok) {
		if (st == IBF_UCX_OK && why.msg[0])
			fprintf(stderr, "ibflow: rank %u: %s; control "
				"messages share the data lane\n", u->rank,
				why.msg);
		lane_destroy(l);
		return st;
	}
	u->lane = l;
	return IBF_UCX_OK;
}

void ibf_ucxi_lane_free(ibf_ucx_t *u)
{
	ibf_ucxi_wire_t *l = u->lane;
	ucp_request_param_t cp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				   .flags = UCP_EP_CLOSE_FLAG_FORCE };

	if (!l)
		return;
	/* every release was received before its call returned anywhere:
	 * nothing is in flight, a forced close loses nothing */
	for (uint32_t i = 0; i < u->size; i++) {
		ucs_status_ptr_t r;

		if (!l->eps[i])
			continue;
		r = ucp_ep_close_nbx(l->eps[i], &cp);
		while (UCS_PTR_IS_PTR(r) &&
		       ucp_request_check_status(r) == UCS_INPROGRESS)
			ucp_worker_progress(l->worker);
		if (UCS_PTR_IS_PTR(r))
			ucp_request_free(r);
	}
	lane_destroy(l);
	u->lane = NULL;
}

static ibf_ucx_status_t lane_ep(ibf_ucx_t *u, uint32_t peer, ucp_ep_h *ep,
				ibf_ucx_err_t *err)
{
	ucs_status_t us = ibf_ucxi_wire_ep(u->lane, peer, ep);

	if (us != UCS_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "control lane to "
				       "rank %u: %s", peer,
				       ucs_status_string(us));
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_lane_isend(ibf_ucx_t *u, uint32_t peer,
				     ucp_tag_t tag, const void *buf,
				     size_t len, ibf_ucxi_req_t *r,
				     ibf_ucx_err_t *err)
{
	ucp_request_param_t p = { .op_attr_mask = 0 };
	ucs_status_ptr_t sp;
	ucp_ep_h ep = NULL;
	ibf_ucx_status_t st;

	if (!u->lane)
		return ibf_ucxi_isend(u, peer, tag, buf, len, r, err);
	r->req = NULL;
	r->what = "sending a control message to";
	r->peer = peer;
	st = lane_ep(u, peer, &ep, err);
	if (st != IBF_UCX_OK)
		return st;
	sp = ucp_tag_send_nbx(ep, buf, len, tag, &p);
	if (UCS_PTR_IS_ERR(sp))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "control lane: "
				       "sending to rank %u: %s", peer,
				       ucs_status_string(UCS_PTR_STATUS(sp)));
	r->req = sp;
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_lane_irecv(ibf_ucx_t *u, uint32_t peer,
				     ucp_tag_t tag, void *buf, size_t len,
				     ibf_ucxi_req_t *r, ibf_ucx_err_t *err)
{
	ucp_request_param_t p = { .op_attr_mask = 0 };
	ucs_status_ptr_t sp;

	if (!u->lane)
		return ibf_ucxi_irecv(u, peer, tag, buf, len, r, err);
	r->what = "receiving a control message from";
	r->peer = peer;
	sp = ucp_tag_recv_nbx(u->lane->worker, buf, len, tag, (ucp_tag_t)-1,
			      &p);
	if (UCS_PTR_IS_ERR(sp)) {
		r->req = NULL;
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "control lane: "
				       "receiving from rank %u: %s", peer,
				       ucs_status_string(UCS_PTR_STATUS(sp)));
	}
	r->req = sp;
	return IBF_UCX_OK;
}

void ibf_ucxi_lane_progress(ibf_ucx_t *u)
{
	while (ucp_worker_progress(u->wire.worker))
		;
	if (u->lane)
		while (ucp_worker_progress(u->lane->worker))
			;
}

/* Sleep until either worker has an event, at most max_s. */
void ibf_ucxi_lane_sleep(ibf_ucx_t *u, double max_s)
{
	struct pollfd pfd[2] = { { .fd = u->wire.efd, .events = POLLIN },
				 { .fd = -1, .events = POLLIN } };
	int ms = (int)(max_s * 1e3);

	if (ucp_worker_arm(u->wire.worker) != UCS_OK)
		return;
	if (u->lane) {
		if (ucp_worker_arm(u->lane->worker) != UCS_OK)
			return;
		pfd[1].fd = u->lane->efd;
	}
	poll(pfd, 2, ms < 1 ? 1 : ms);
}

/* Give up requests of the lane: cancel and release what is left. */
void ibf_ucxi_lane_cancel(ibf_ucx_t *u, ibf_ucxi_req_t *r, uint32_t n)
{
	ibf_ucx_err_t tmp;

	if (!u->lane) {
		ibf_ucxi_wait(u, r, n, ibf_ucxi_now(), 0, &tmp);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!r[i].req)
			continue;
		if (ucp_request_check_status(r[i].req) == UCS_INPROGRESS) {
			ucp_request_cancel(u->lane->worker, r[i].req);
			ibf_ucxi_lane_progress(u);
		}
		ucp_request_free(r[i].req);
		r[i].req = NULL;
	}
}

bool ibf_ucxi_lane_active(const ibf_ucx_t *u)
{
	return u->lane != NULL;
}
