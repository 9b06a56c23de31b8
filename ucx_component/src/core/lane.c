/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The control lane: a second UCP context whose traffic the fabric can
 * serve before data, so that small control messages (the all-to-all's
 * releases) do not wait behind megabytes of blocks in the queues of the
 * links they cross.
 *
 * How the fabric tells the lane apart is the transport's business, set
 * on this context only, through its UCP configuration (ucp_config_modify
 * keys that UCX 1.13 hands to the transports; the environment is not
 * touched):
 *   InfiniBand  IB_SL = UCX_IBFLOW_CTL_SL: an SL that the subnet manager
 *               maps to a high-priority VL (OpenSM's qos_sl2vl and
 *               vlarb_high);
 *   RoCE        IB_TRAFFIC_CLASS = UCX_IBFLOW_CTL_TCLASS: a DSCP that
 *               the switches serve in a strict-priority queue;
 *   TCP         PORT_RANGE = one port of UCX_IBFLOW_CTL_TCP_PORTS: every
 *               connection of the lane has one end in that range, which
 *               a classifier can match (netns-fabric --ctl-ports).
 *
 * One lane serves every context of a process that is given the same
 * ibf_ucx_lane_t (the MPI integrations: one per process, closed at
 * MPI_Finalize), so communicators cost no listening port of their own:
 * the port range bounds the processes of a machine, not their
 * communicators.  Each context takes a number on the lane (its id,
 * chosen by the receiving process and told to the senders with the
 * address), which every message to it carries in its tag.  A context
 * made without a lane object gets a lane of its own, closed with it.
 *
 * The lane is used by a context only if every process of it has one: a
 * process that sends releases on the data context while its peers listen
 * on the lane would hang them.  Without a lane, every lane_* call uses
 * the data context.
 */
#include "config.h"

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/ucx_internal.h"

/* Tag on the lane: kind (4 bits) | receiver's context id (20) | sequence
 * (16: two calls 65,536 apart never have releases in flight at once) |
 * source rank (24). */
#define LANE_ID_BITS 20
#define LANE_SEQ_BITS 16
#define LANE_SRC_BITS 24
#define LANE_MAX_IDS (1u << LANE_ID_BITS)
#define LANE_MAX_RANKS (1u << LANE_SRC_BITS)

typedef enum lane_state { LANE_UNTRIED, LANE_OPEN, LANE_FAILED } lane_state_t;

/* A process the lane has talked to, by its lane address. */
typedef struct lane_peer {
	uint8_t *addr;
	size_t len;
	ucp_ep_h ep;
} lane_peer_t;

struct ibf_ucx_lane {
	/* Everything below.  The worker itself is UCS_THREAD_MODE_MULTI:
	 * contexts of several threads send and progress on it at once. */
	pthread_mutex_t lock;
	lane_state_t state;
	ibf_ucx_err_t why;        /* LANE_FAILED: the reason */
	bool said;                /* ... printed once */
	ucp_context_h ctx;
	ucp_worker_h worker;
	int efd;
	ucp_address_t *addr;
	size_t addr_len;
	unsigned port;            /* the TCP port it listens on, or 0 */
	lane_peer_t *peers;
	uint32_t npeers, peers_cap;
	uint32_t *live;           /* context ids in use */
	uint32_t nlive, live_cap;
	uint32_t next_id;
};

/* One context's use of the lane. */
struct ibf_ucxi_lane_use {
	ibf_ucx_lane_t *l;
	uint32_t id;              /* this process's id of the context */
	uint32_t *peer_id;        /* [size]: each rank's id of it */
	uint8_t *addrs;           /* [size * stride]: len, id, address */
	size_t stride;
	ucp_ep_h *eps;            /* [size], looked up on first use */
};

/* What each process says at set-up: its lane address (len 0: none) and
 * its id of the context. */
typedef struct lane_entry {
	uint64_t len;
	uint32_t id;
	uint32_t pad;
} lane_entry_t;

static ucp_tag_t lane_tag(uint32_t id, ucp_tag_t tag)
{
	uint64_t kind = tag >> 56, seq = (tag >> 32) & 0xffffff,
		 src = tag & 0xffffffff;

	return (kind & 0xf) << 60 |
	       (uint64_t)(id & (LANE_MAX_IDS - 1)) << 40 |
	       (seq & ((1u << LANE_SEQ_BITS) - 1)) << 24 |
	       (src & (LANE_MAX_RANKS - 1));
}

/* ---- the lane object ------------------------------------------------------- */

ibf_ucx_status_t ibf_ucx_lane_create(ibf_ucx_lane_t **out, ibf_ucx_err_t *err)
{
	ibf_ucx_lane_t *l = calloc(1, sizeof(*l));

	*out = NULL;
	if (!l || pthread_mutex_init(&l->lock, NULL)) {
		free(l);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
				       "control lane: out of memory");
	}
	l->efd = -1;
	*out = l;
	return IBF_UCX_OK;
}

/* The worker and context, as if never opened. */
static void lane_unopen(ibf_ucx_lane_t *l)
{
	if (l->addr)
		ucp_worker_release_address(l->worker, l->addr);
	if (l->worker)
		ucp_worker_destroy(l->worker);
	if (l->ctx)
		ucp_cleanup(l->ctx);
	l->addr = NULL;
	l->worker = NULL;
	l->ctx = NULL;
}

void ibf_ucx_lane_close(ibf_ucx_lane_t *l)
{
	ucp_request_param_t cp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				   .flags = UCP_EP_CLOSE_FLAG_FORCE };
	uint32_t i;

	if (!l)
		return;
	/* every release was received before its call returned anywhere:
	 * nothing is in flight, a forced close loses nothing */
	for (i = 0; i < l->npeers; i++) {
		ucs_status_ptr_t r = l->peers[i].ep ?
			ucp_ep_close_nbx(l->peers[i].ep, &cp) : NULL;
		double until = ibf_ucxi_now() + 1.0;

		while (UCS_PTR_IS_PTR(r) &&
		       ucp_request_check_status(r) == UCS_INPROGRESS &&
		       ibf_ucxi_now() < until)
			ucp_worker_progress(l->worker);
		if (UCS_PTR_IS_PTR(r))
			ucp_request_free(r);
		free(l->peers[i].addr);
	}
	lane_unopen(l);
	free(l->peers);
	free(l->live);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* ---- opening: a port of the range, each tried once ------------------------- */

/* The range "LO-HI" or "P" in *lo, *hi; false when malformed. */
static bool port_range(const char *s, unsigned *lo, unsigned *hi)
{
	char tail;

	if (sscanf(s, "%u-%u%c", lo, hi, &tail) == 2 ||
	    (sscanf(s, "%u%c", lo, &tail) == 1 && (*hi = *lo, true)))
		return *lo > 0 && *lo <= *hi && *hi <= 65535;
	return false;
}

/* Will the lane's context use TCP?  Not when the transports it may use
 * (UCX_IBFLOW_TLS, else UCX_TLS) are listed without it: a port range
 * then would only make UCX warn that nothing used it. */
static bool tcp_wanted(const ibf_ucx_cfg_t *v)
{
	const ucs_config_allow_list_t *l = &v->tls;
	const char *tls;

	if (!ibf_ucx_cfg_allow_all(l)) {
		if (l->mode != UCS_CONFIG_ALLOW_LIST_ALLOW)
			return true;
		for (unsigned i = 0; i < l->array.count; i++)
			if (strstr(l->array.names[i], "tcp") ||
			    !strcmp(l->array.names[i], "all"))
				return true;
		return false;
	}
	tls = getenv("UCX_TLS");
	return !tls || !tls[0] || tls[0] == '^' || strstr(tls, "tcp") ||
	       strstr(tls, "all");
}

/* Nothing, not even a connection in TIME_WAIT, holds port p (the same
 * test as UCX's bind without SO_REUSEADDR, on every address at once). */
static bool port_free(unsigned p)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)p),
				 .sin_addr.s_addr = htonl(INADDR_ANY) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	if (fd < 0)
		return true;   /* cannot tell: let UCX try */
	ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* The lane's context and worker, listening on port (0: any).  UCX tries
 * a single port once (a range it retries for ever): UCS_ERR_BUSY when
 * it is taken. */
static ucs_status_t lane_try(ibf_ucx_lane_t *l, const ibf_ucx_config_t *cfg,
			     unsigned port, ibf_ucx_err_t *err)
{
	const ibf_ucx_cfg_t *v = &cfg->v;
	ucp_params_t p = { .field_mask = UCP_PARAM_FIELD_FEATURES |
					 UCP_PARAM_FIELD_NAME,
			   .features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP,
			   .name = "ibflow-ctl" };
	ucp_worker_params_t wp = { .field_mask =
					   UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				   .thread_mode = UCS_THREAD_MODE_MULTI };
	char val[32];
	ucp_config_t *uc;
	ucs_status_t us = UCS_OK;

	/* UCX's configuration parser is the process's: one context is made
	 * at a time */
	ibf_ucxi_ucx_lock();
	if (ibf_ucxi_ucp_config(cfg, &uc, err) != IBF_UCX_OK) {
		ibf_ucxi_ucx_unlock();
		return UCS_ERR_INVALID_PARAM;
	}
	if (v->ctl_sl != UINT_MAX) {
		snprintf(val, sizeof(val), "%u", v->ctl_sl);
		us = ucp_config_modify(uc, "IB_SL", val);
	}
	if (us == UCS_OK && v->ctl_tclass != UINT_MAX) {
		snprintf(val, sizeof(val), "%u", v->ctl_tclass);
		us = ucp_config_modify(uc, "IB_TRAFFIC_CLASS", val);
	}
	if (us == UCS_OK && port) {
		snprintf(val, sizeof(val), "%u-%u", port, port);
		us = ucp_config_modify(uc, "PORT_RANGE", val);
	}
	if (us == UCS_OK)
		us = ibf_ucxi_fault("ucp_init (control lane)");
	if (us == UCS_OK)
		us = ucp_init(&p, uc, &l->ctx);
	if (us == UCS_OK)
		us = ibf_ucxi_fault("ucp_worker_create (control lane)");
	if (us == UCS_OK)
		us = ucp_worker_create(l->ctx, &wp, &l->worker);
	ucp_config_release(uc);
	ibf_ucxi_ucx_unlock();
	if (us == UCS_OK)
		us = ibf_ucxi_fault("ucp_worker_get_efd (control lane)");
	if (us == UCS_OK)
		us = ucp_worker_get_efd(l->worker, &l->efd);
	if (us == UCS_OK)
		us = ibf_ucxi_fault("ucp_worker_get_address (control lane)");
	if (us == UCS_OK)
		us = ucp_worker_get_address(l->worker, &l->addr, &l->addr_len);
	if (us != UCS_OK) {
		lane_unopen(l);
		if (us != UCS_ERR_BUSY)
			ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "control lane: "
					"%s", ucs_status_string(us));
		return us;
	}
	l->port = port;
	return UCS_OK;
}

/* Open the lane: each port of the range once, from a place of the
 * process's own, those free first tested here, within the timeout. */
static ibf_ucx_status_t lane_open(ibf_ucx_lane_t *l,
				  const ibf_ucx_config_t *cfg,
				  ibf_ucx_err_t *err)
{
	const ibf_ucx_cfg_t *v = &cfg->v;
	double deadline = ibf_ucxi_now() + v->timeout;
	unsigned lo, hi, n, k, start, busy = 0;
	ucs_status_t us;

	if (!v->ctl_tcp_ports || !v->ctl_tcp_ports[0] || !tcp_wanted(v))
		return lane_try(l, cfg, 0, err) == UCS_OK ? IBF_UCX_OK :
		       err->status;
	if (!port_range(v->ctl_tcp_ports, &lo, &hi))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "%sCTL_TCP_PORTS=%s: not a port range "
				       "LO-HI", IBF_UCX_VAR_PREFIX,
				       v->ctl_tcp_ports);
	n = hi - lo + 1;
	start = (unsigned)getpid() % n;
	for (k = 0; k < n && ibf_ucxi_now() < deadline; k++) {
		unsigned port = lo + (start + k) % n;

		if (!port_free(port)) {
			busy++;
			continue;
		}
		us = lane_try(l, cfg, port, err);
		if (us == UCS_OK)
			return IBF_UCX_OK;
		if (us != UCS_ERR_BUSY)
			return err->status;
		busy++;     /* taken since the test */
	}
	return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "control lane: no free "
			       "TCP port in %s (%sCTL_TCP_PORTS): %u of %u in "
			       "use%s", v->ctl_tcp_ports, IBF_UCX_VAR_PREFIX,
			       busy, n, k < n ? ", and the time "
			       "(UCX_IBFLOW_TIMEOUT) was up" : "");
}

/* ---- context ids -------------------------------------------------------------- */

static bool id_live(const ibf_ucx_lane_t *l, uint32_t id)
{
	for (uint32_t i = 0; i < l->nlive; i++)
		if (l->live[i] == id)
			return true;
	return false;
}

/* A number no live context of the lane has, taken in turn (an id comes
 * back only after LANE_MAX_IDS others: a message left over from a
 * failed call never meets a new context). */
static bool id_take(ibf_ucx_lane_t *l, uint32_t *id)
{
	if (l->nlive == l->live_cap) {
		uint32_t cap = l->live_cap ? 2 * l->live_cap : 16;
		uint32_t *p = realloc(l->live, cap * sizeof(*p));

		if (!p || l->nlive >= LANE_MAX_IDS)
			return false;
		l->live = p;
		l->live_cap = cap;
	}
	while (id_live(l, l->next_id))
		l->next_id = (l->next_id + 1) % LANE_MAX_IDS;
	*id = l->next_id;
	l->next_id = (l->next_id + 1) % LANE_MAX_IDS;
	l->live[l->nlive++] = *id;
	return true;
}

static void id_give(ibf_ucx_lane_t *l, uint32_t id)
{
	for (uint32_t i = 0; i < l->nlive; i++)
		if (l->live[i] == id) {
			l->live[i] = l->live[--l->nlive];
			return;
		}
}

/* ---- per context ------------------------------------------------------------ */

/* Everybody's entry (an empty one: that process has no lane) to
 * everybody, over the data context: *blob holds them, stride apart. */
static ibf_ucx_status_t lane_exchange(ibf_ucx_t *u, const void *mine,
				      size_t len, uint8_t **blob,
				      size_t *stride, ibf_ucx_err_t *err)
{
	void **got = NULL, *all = NULL;
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
		st = ibf_ucxi_gatherv(u, 0, mine, len, got, glen, err);
	if (st == IBF_UCX_OK && u->rank == 0) {
		for (i = 0; i < n; i++)
			max = glen[i] > max ? glen[i] : max;
		blen = (size_t)n * max;
		all = max ? calloc(1, blen) : NULL;
		for (i = 0; all && i < n; i++)
			if (glen[i])
				memcpy((uint8_t *)all + i * max, got[i],
				       glen[i]);
		if (!all)
			blen = 0;
	}
	for (i = 0; got && i < n; i++)
		free(got[i]);
	free(got);
	free(glen);
	if (st == IBF_UCX_OK)
		st = ibf_ucxi_bcast_blob(u, 0, &all, &blen, err);
	if (st == IBF_UCX_OK &&
	    (!blen || blen % n || blen / n < sizeof(lane_entry_t)))
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "control lane: "
				     "malformed address list");
	if (st != IBF_UCX_OK) {
		free(all);
		return st;
	}
	*blob = all;
	*stride = blen / n;
	return IBF_UCX_OK;
}

/* Every process has a lane: each one's id of the context in peer_id. */
static bool entries_ok(const uint8_t *blob, size_t stride, uint32_t n,
		       uint32_t *peer_id)
{
	for (uint32_t i = 0; i < n; i++) {
		lane_entry_t e;

		memcpy(&e, blob + i * stride, sizeof(e));
		if (!e.len || e.len > stride - sizeof(e))
			return false;
		peer_id[i] = e.id;
	}
	return true;
}

/* This process's entry: the lane opened (once for the lane object) and
 * an id taken, or an empty entry saying why not once. */
static uint8_t *lane_join(ibf_ucx_t *u, ibf_ucx_lane_t *l, uint32_t *id,
			  size_t *len)
{
	lane_entry_t e = { 0 };
	uint8_t *mine = NULL;

	*len = sizeof(e);
	pthread_mutex_lock(&l->lock);
	if (l->state == LANE_UNTRIED) {
		ibf_ucx_err_clear(&l->why);
		l->state = lane_open(l, u->cfg, &l->why) == IBF_UCX_OK ?
			   LANE_OPEN : LANE_FAILED;
	}
	if (l->state == LANE_OPEN && u->size <= LANE_MAX_RANKS &&
	    id_take(l, id)) {
		e.len = l->addr_len;
		e.id = *id;
	}
	if (l->state == LANE_FAILED && !l->said) {
		fprintf(stderr, "ibflow: rank %u: %s; control messages share "
			"the data lane\n", u->rank, l->why.msg);
		l->said = true;
	}
	mine = malloc(sizeof(e) + e.len);
	if (mine) {
		memcpy(mine, &e, sizeof(e));
		if (e.len)
			memcpy(mine + sizeof(e), l->addr, e.len);
		*len += e.len;
	} else if (e.len) {
		id_give(l, *id);
	}
	pthread_mutex_unlock(&l->lock);
	return mine;
}

static void use_free(struct ibf_ucxi_lane_use *use)
{
	if (!use)
		return;
	free(use->peer_id);
	free(use->addrs);
	free(use->eps);
	free(use);
}

static struct ibf_ucxi_lane_use *use_new(ibf_ucx_lane_t *l, uint32_t n)
{
	struct ibf_ucxi_lane_use *use = calloc(1, sizeof(*use));

	if (!use)
		return NULL;
	use->l = l;
	use->peer_id = calloc(n, sizeof(*use->peer_id));
	use->eps = calloc(n, sizeof(*use->eps));
	if (!use->peer_id || !use->eps) {
		use_free(use);
		return NULL;
	}
	return use;
}

ibf_ucx_status_t ibf_ucxi_lane_setup(ibf_ucx_t *u, ibf_ucx_err_t *err)
{
	struct ibf_ucxi_lane_use *use;
	ibf_ucx_lane_t *l = u->lanes;
	lane_entry_t none = { 0 };
	ibf_ucx_status_t st;
	uint8_t *mine = NULL, *blob = NULL;
	uint32_t id = 0;
	size_t len = 0, stride = 0;
	bool joined;

	if (u->lane_tried)
		return IBF_UCX_OK;
	u->lane_tried = true;
	if (!u->cfg->v.ctl_lane || u->size < 2 || !l)
		return IBF_UCX_OK;
	use = use_new(l, u->size);
	if (use)
		mine = lane_join(u, l, &id, &len);
	joined = mine && len > sizeof(lane_entry_t);
	/* taken part in even without a lane: the others wait for it */
	st = lane_exchange(u, joined ? (void *)mine : &none,
			   joined ? len : sizeof(none), &blob, &stride, err);
	free(mine);
	if (st != IBF_UCX_OK || !use ||
	    !entries_ok(blob, stride, u->size, use->peer_id)) {
		if (joined) {
			pthread_mutex_lock(&l->lock);
			id_give(l, id);
			pthread_mutex_unlock(&l->lock);
		}
		free(blob);
		use_free(use);
		return st;
	}
	use->addrs = blob;
	use->stride = stride;
	use->id = id;
	u->lane = use;
	return IBF_UCX_OK;
}

void ibf_ucxi_lane_free(ibf_ucx_t *u)
{
	struct ibf_ucxi_lane_use *use = u->lane;

	if (use) {
		pthread_mutex_lock(&use->l->lock);
		id_give(use->l, use->id);
		pthread_mutex_unlock(&use->l->lock);
		use_free(use);
		u->lane = NULL;
	}
	if (u->lane_own)
		ibf_ucx_lane_close(u->lanes);
	u->lanes = NULL;
	u->lane_own = false;
}

/* A new peer of the lane at *at: its address kept, an endpoint made. */
static ucs_status_t peer_add(ibf_ucx_lane_t *l, const uint8_t *addr,
			     size_t len, uint32_t *at)
{
	ucp_ep_params_t p = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
			      .address = (const ucp_address_t *)addr };
	lane_peer_t *np = l->peers;
	ucs_status_t us;
	uint8_t *copy;

	if (l->npeers == l->peers_cap) {
		uint32_t cap = l->peers_cap ? 2 * l->peers_cap : 8;

		np = realloc(l->peers, cap * sizeof(*np));
		if (!np)
			return UCS_ERR_NO_MEMORY;
		l->peers = np;
		l->peers_cap = cap;
	}
	copy = malloc(len);
	if (!copy)
		return UCS_ERR_NO_MEMORY;
	memcpy(copy, addr, len);
	us = ibf_ucxi_fault("ucp_ep_create (control lane)");
	if (us == UCS_OK)
		us = ucp_ep_create(l->worker, &p, &np[l->npeers].ep);
	if (us != UCS_OK) {
		free(copy);
		return us;
	}
	np[l->npeers].addr = copy;
	np[l->npeers].len = len;
	*at = l->npeers++;
	return UCS_OK;
}

/* The lane's endpoint to rank peer: the one to its process if the lane
 * has it (another context made it), else a new one. */
static ibf_ucx_status_t lane_ep(ibf_ucx_t *u, uint32_t peer, ucp_ep_h *ep,
				ibf_ucx_err_t *err)
{
	struct ibf_ucxi_lane_use *use = u->lane;
	ibf_ucx_lane_t *l = use->l;
	const uint8_t *at = use->addrs + (size_t)peer * use->stride;
	ucs_status_t us = UCS_OK;
	lane_entry_t e;
	uint32_t i;

	if (!use->eps[peer]) {
		memcpy(&e, at, sizeof(e));
		at += sizeof(e);
		pthread_mutex_lock(&l->lock);
		for (i = 0; i < l->npeers; i++)
			if (l->peers[i].len == e.len &&
			    !memcmp(l->peers[i].addr, at, e.len))
				break;
		if (i == l->npeers)
			us = peer_add(l, at, e.len, &i);
		if (us == UCS_OK)
			use->eps[peer] = l->peers[i].ep;
		pthread_mutex_unlock(&l->lock);
	}
	if (us != UCS_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "control lane to "
				       "rank %u: %s", peer,
				       ucs_status_string(us));
	*ep = use->eps[peer];
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
	r->worker = u->lane->l->worker;
	st = lane_ep(u, peer, &ep, err);
	if (st != IBF_UCX_OK)
		return st;
	sp = ucp_tag_send_nbx(ep, buf, len,
			      lane_tag(u->lane->peer_id[peer], tag), &p);
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
	r->worker = u->lane->l->worker;
	sp = ucp_tag_recv_nbx(u->lane->l->worker, buf, len,
			      lane_tag(u->lane->id, tag), (ucp_tag_t)-1, &p);
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
	while (ibf_ucxi_progress_all(u))
		;
	if (u->lane)
		while (ucp_worker_progress(u->lane->l->worker))
			;
}

/* Sleep until either worker has an event, at most max_s.  (Another
 * thread's context on the same lane may take the lane's event: then this
 * one sleeps its max_s, no longer.) */
void ibf_ucxi_lane_sleep(ibf_ucx_t *u, double max_s)
{
	if (u->lane)
		ibf_ucxi_sleep_all(u, u->lane->l->worker, u->lane->l->efd,
				   max_s);
	else
		ibf_ucxi_sleep_all(u, NULL, -1, max_s);
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
			ucp_request_cancel(u->lane->l->worker, r[i].req);
			ibf_ucxi_lane_progress(u);
		}
		ucp_request_free(r[i].req);
		r[i].req = NULL;
	}
}
