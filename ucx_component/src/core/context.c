/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The context: UCP context and worker of its own, worker addresses and
 * fabric endpoints exchanged over the caller's OOB, the host list.
 *
 * Everything that can fail locally (configuration, UCX, the fabric files,
 * finding the endpoint) is recorded and exchanged before anyone gives up,
 * so that every process fails with the same message naming the process
 * that failed and why, instead of the others timing out.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ucx_internal.h"

#define MAX_LISTED 4   /* failing processes named in one message */

/* ---- local set-up ------------------------------------------------------------- */

/* The one lock of the library: UCX's own configuration state is the
 * process's, whatever context it is for. */
static pthread_mutex_t ucx_lock = PTHREAD_MUTEX_INITIALIZER;

void ibf_ucxi_ucx_lock(void)
{
	pthread_mutex_lock(&ucx_lock);
}

void ibf_ucxi_ucx_unlock(void)
{
	pthread_mutex_unlock(&ucx_lock);
}

ibf_ucx_status_t ibf_ucxi_wire_open(const ibf_ucx_config_t *cfg,
				    const char *name, const char *key,
				    const char *val, ibf_ucxi_wire_t *w,
				    ibf_ucx_err_t *err)
{
	ucp_params_t p = { .field_mask = UCP_PARAM_FIELD_FEATURES |
					 UCP_PARAM_FIELD_NAME,
			   .features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP,
			   .name = name };
	ucp_worker_params_t wp = { .field_mask =
					   UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				   .thread_mode = UCS_THREAD_MODE_SINGLE };
	ucp_config_t *uc;
	ucs_status_t us = UCS_OK;
	ibf_ucx_status_t st;

	ibf_ucxi_ucx_lock();
	st = ibf_ucxi_ucp_config(cfg, &uc, err);
	if (st != IBF_UCX_OK) {
		ibf_ucxi_ucx_unlock();
		return st;
	}
	if (key)
		us = ucp_config_modify(uc, key, val);
	if (us == UCS_OK)
		us = ibf_ucxi_fault("ucp_init");
	if (us == UCS_OK)
		us = ucp_init(&p, uc, &w->ctx);
	ucp_config_release(uc);
	if (us != UCS_OK) {
		ibf_ucxi_ucx_unlock();
		if (key)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "UCP "
					       "context with %s=%s: %s", key,
					       val, ucs_status_string(us));
		return ibf_ucxi_devices_blame(cfg, us, err);
	}
	us = ibf_ucxi_fault("ucp_worker_create");
	if (us == UCS_OK)
		us = ucp_worker_create(w->ctx, &wp, &w->worker);
	ibf_ucxi_ucx_unlock();
	if (us == UCS_OK)
		us = ibf_ucxi_fault("ucp_worker_get_efd");
	if (us == UCS_OK)
		us = ucp_worker_get_efd(w->worker, &w->efd);
	if (us != UCS_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "UCP worker: %s",
				       ucs_status_string(us));
	return IBF_UCX_OK;
}

static ibf_ucx_status_t ucx_open(ibf_ucx_t *u, ucp_address_t **addr,
				 size_t *addr_len, ibf_ucx_err_t *err)
{
	ucs_status_t us;
	ibf_ucx_status_t st;

	st = ibf_ucxi_wire_open(u->cfg, "ibflow", NULL, NULL, &u->wire, err);
	if (st != IBF_UCX_OK)
		return st;
	us = ibf_ucxi_fault("ucp_worker_get_address");
	if (us == UCS_OK)
		us = ucp_worker_get_address(u->wire.worker, addr, addr_len);
	if (us != UCS_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "UCP worker: %s",
				       ucs_status_string(us));
	return IBF_UCX_OK;
}

/* The kernel's boot id tells machines apart (network and UTS namespaces
 * do not change it). */
static uint64_t machine_id(void)
{
	char buf[64] = "";
	uint64_t h = 0xcbf29ce484222325ull;
	FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "r");
	size_t i;

	if (fp) {
		if (!fgets(buf, sizeof(buf), fp))
			buf[0] = '\0';
		fclose(fp);
	}
	if (!buf[0])
		gethostname(buf, sizeof(buf) - 1);
	for (i = 0; buf[i]; i++) {
		h ^= (unsigned char)buf[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "?");
	buf[len - 1] = '\0';
}

/* Record a local failure in what the process tells the others. */
static void record(ibf_ucxi_whoami_t *w, const ibf_ucx_err_t *e)
{
	w->status = e->status;
	snprintf(w->why, sizeof(w->why), "%.*s", (int)sizeof(w->why) - 1,
		 e->msg);
}

/* ---- judging what everybody said -------------------------------------------- */

static bool is_map_failure(int32_t st)
{
	return st == IBF_UCX_ERR_MAP;
}

/* Name up to MAX_LISTED failing processes of one kind. */
static ibf_ucx_status_t report(ibf_ucx_t *u, bool map_failures,
			       ibf_ucx_status_t st, ibf_ucx_err_t *err)
{
	char msg[IBF_UCX_ERR_MSG_MAX];
	size_t off = 0;
	uint32_t i, nbad = 0;

	uint32_t j, same;

	/* One entry per distinct reason: the first process that gave it,
	 * and how many more gave the very same. */
	for (i = 0; i < u->size; i++) {
		const ibf_ucxi_whoami_t *w = &u->who[i];

		if (w->status == IBF_UCX_OK ||
		    is_map_failure(w->status) != map_failures)
			continue;
		for (j = 0; j < i; j++)
			if (u->who[j].status == w->status &&
			    !strcmp(u->who[j].why, w->why))
				break;
		if (j < i)
			continue;   /* reported with process j */
		for (j = i + 1, same = 0; j < u->size; j++)
			same += u->who[j].status == w->status &&
				!strcmp(u->who[j].why, w->why);
		if (nbad++ < MAX_LISTED && off < sizeof(msg))
			off += snprintf(msg + off, sizeof(msg) - off,
					"%sprocess %u (%s pid %u)%s: %s",
					nbad > 1 ? "; " : "", i, w->host,
					w->pid, same ? " and others" : "",
					w->why);
		if (same && off < sizeof(msg))
			off += snprintf(msg + off, sizeof(msg) - off,
					" (%u more processes alike)", same);
	}
	if (nbad > MAX_LISTED && off < sizeof(msg))
		snprintf(msg + off, sizeof(msg) - off, "; and %u more reasons",
			 nbad - MAX_LISTED);
	return ibf_ucx_err_set(err, st, "%s", msg);
}

static uint32_t count_status(const ibf_ucx_t *u, bool map_failures)
{
	uint32_t i, n = 0;

	for (i = 0; i < u->size; i++)
		n += u->who[i].status != IBF_UCX_OK &&
		     is_map_failure(u->who[i].status) == map_failures;
	return n;
}

static ibf_ucx_status_t check_digests(ibf_ucx_t *u, ibf_ucx_err_t *err)
{
	uint32_t i;

	for (i = 1; i < u->size; i++)
		if (u->who[i].digest != u->who[0].digest)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC,
					       "process %u (%s) read other "
					       "fabric files than process 0 "
					       "(%s): was %s re-exported "
					       "meanwhile?", i, u->who[i].host,
					       u->who[0].host, u->fab.dir);
	return IBF_UCX_OK;
}

static ibf_ucx_status_t judge(ibf_ucx_t *u, bool fallback,
			      ibf_ucx_err_t *err)
{
	const ibf_ucxi_whoami_t *me = &u->who[u->rank];
	ibf_ucx_err_t why;
	uint32_t i;

	for (i = 0, u->local_procs = 0; i < u->size; i++)
		u->local_procs += u->who[i].machine == me->machine;
	if (count_status(u, false)) {
		report(u, false, me->status != IBF_UCX_OK &&
		       !is_map_failure(me->status) ? me->status :
		       IBF_UCX_ERR_PEER, err);
		return err ? err->status : IBF_UCX_ERR_PEER;
	}
	u->aware = u->fab.fabric != NULL;
	if (u->aware && check_digests(u, err) != IBF_UCX_OK)
		return IBF_UCX_ERR_FABRIC;
	if (u->aware && count_status(u, true)) {
		report(u, true, IBF_UCX_ERR_MAP, &why);
		if (!fallback) {
			ibf_ucx_err_set(err, IBF_UCX_ERR_MAP, "%s", why.msg);
			return IBF_UCX_ERR_MAP;
		}
		snprintf(u->why, sizeof(u->why), "%s", why.msg);
		u->aware = false;
	} else if (!u->fab.fabric) {
		snprintf(u->why, sizeof(u->why), "no fabric configured (%s"
			 "FABRIC)", IBF_UCX_VAR_PREFIX);
	}
	return ibf_ucxi_hosts_build(u, err);
}

/* ---- init / finalize ------------------------------------------------------- */

typedef struct exch1 {
	ibf_ucxi_whoami_t who;
	uint64_t addr_len;
} exch1_t;

static ibf_ucx_status_t check_params(const ibf_ucx_params_t *p,
				     ibf_ucx_err_t *err)
{
	const ibf_ucx_oob_t *o = p ? p->oob : NULL;

	if (!o || !o->allgather || !o->req_test || !o->req_free)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "ibf_ucx_init: an OOB allgather "
				       "(allgather, req_test, req_free) is "
				       "required");
	if (!o->size || o->rank >= o->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "ibf_ucx_init: OOB rank %u of size %u",
				       o->rank, o->size);
	return IBF_UCX_OK;
}

/* A routing deadlock-free only with per-route SLs is not so for this
 * job: UCX sends all of it on one SL (UCX_IB_SL), or, with route SLs,
 * all but this library's all-to-all, probes and bandwidth maps.  Said
 * once, by rank 0. */
static void warn_route_sls(const ibf_ucx_t *u)
{
	const char *sl = getenv("UCX_IB_SL");
	ibf_ucxi_wire_t *w;

	if (u->rank != 0 || u->fab.route_sls <= 1)
		return;
	if (ibf_ucxi_sl_wires(u, &w)) {
		fprintf(stderr, "ibflow: warning: %sFABRIC=%s: the routing (%s) "
			"is deadlock-free only with its %u SLs: this library's "
			"all-to-all, probes and bandwidth maps travel on their "
			"routes' SLs (%sROUTE_SL), but the job's other UCX "
			"traffic (the MPI library's own) on one SL "
			"(UCX_IB_SL=%s), which this routing does not keep "
			"deadlock-free (route for one VL, ibflow.conf vls 1, "
			"if that traffic is large)\n", IBF_UCX_VAR_PREFIX,
			u->fab.dir ? u->fab.dir : "",
			u->fab.engine[0] ? u->fab.engine : "unnamed",
			u->fab.route_sls, IBF_UCX_VAR_PREFIX, sl ? sl : "auto");
		return;
	}
	fprintf(stderr, "ibflow: warning: %sFABRIC=%s: the routing (%s) is "
		"deadlock-free only with its %u SLs, but UCX sends this "
		"job's traffic on one SL (UCX_IB_SL=%s): an all-to-all can "
		"deadlock the fabric; route for one VL (ibflow.conf vls 1)\n",
		IBF_UCX_VAR_PREFIX, u->fab.dir ? u->fab.dir : "",
		u->fab.engine[0] ? u->fab.engine : "unnamed",
		u->fab.route_sls, sl ? sl : "auto");
}

/* Local phase: whatever fails is recorded in me, not returned. */
static void local_setup(ibf_ucx_t *u, ibf_ucxi_whoami_t *me,
			ucp_address_t **addr, size_t *addr_len)
{
	ibf_ucx_err_t e;

	ibf_ucx_err_clear(&e);
	me->pid = (uint32_t)getpid();
	me->machine = machine_id();
	me->ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	host_name(me->host, sizeof(me->host));
	if (ucx_open(u, addr, addr_len, &e) != IBF_UCX_OK) {
		record(me, &e);
		return;
	}
	if (u->cfg->v.fabric[0] && strcmp(u->cfg->v.fabric, "infer")) {
		if (ibf_ucxi_fabric_load(u->cfg->v.fabric, &u->fab, &e) !=
		    IBF_UCX_OK) {
			record(me, &e);
			return;
		}
		me->digest = u->fab.digest;
		if (u->cfg->v.lid_offset >= 1u << u->fab.fabric->lmc) {
			ibf_ucx_err_set(&e, IBF_UCX_ERR_CONFIG, "%sLID_OFFSET="
					"%u: the fabric's LMC is %u (offsets 0.."
					"%u)", IBF_UCX_VAR_PREFIX,
					u->cfg->v.lid_offset,
					u->fab.fabric->lmc,
					(1u << u->fab.fabric->lmc) - 1);
			record(me, &e);
			return;
		}
		ibf_ucxi_locate(u->cfg, &u->fab, u->rank, me);
	}
}

static ibf_ucx_status_t exchange(ibf_ucx_t *u, const ibf_ucxi_whoami_t *me,
				 const ucp_address_t *addr, size_t addr_len,
				 ibf_ucx_err_t *err)
{
	exch1_t mine, *all;
	uint8_t *pad;
	uint64_t max = 0;
	uint32_t i;
	ibf_ucx_status_t st;

	memset(&mine, 0, sizeof(mine));
	mine.who = *me;
	mine.addr_len = addr ? addr_len : 0;
	all = calloc(u->size, sizeof(*all));
	u->who = calloc(u->size, sizeof(*u->who));
	if (!all || !u->who) {
		free(all);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	st = ibf_ucxi_oob_allgather(u, &mine, all, sizeof(mine), err);
	for (i = 0; st == IBF_UCX_OK && i < u->size; i++) {
		u->who[i] = all[i].who;
		u->who[i].host[IBF_UCXI_HOST_MAX - 1] = '\0';
		u->who[i].why[IBF_UCXI_WHY_MAX - 1] = '\0';
		u->who[i].source[IBF_UCXI_SRC_MAX - 1] = '\0';
		if (all[i].addr_len > max)
			max = all[i].addr_len;
	}
	free(all);
	if (st != IBF_UCX_OK)
		return st;
	/* Worker addresses, padded to the longest, each after its length.
	 * Done even when someone failed, so nobody is left waiting. */
	u->wire.stride = sizeof(uint64_t) + max;
	pad = calloc(1, u->wire.stride);
	u->wire.addrs = calloc(u->size, u->wire.stride);
	if (!pad || !u->wire.addrs) {
		free(pad);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	memcpy(pad, &mine.addr_len, sizeof(uint64_t));
	if (addr)
		memcpy(pad + sizeof(uint64_t), addr, addr_len);
	st = ibf_ucxi_oob_allgather(u, pad, u->wire.addrs, u->wire.stride, err);
	free(pad);
	return st;
}

static void destroy(ibf_ucx_t *u)
{
	ibf_ucxi_lane_free(u);
	ibf_ucxi_sl_free(u);
	ibf_ucxi_wire_close(&u->wire);
	ibf_ucxi_fabric_free(&u->fab);
	ibf_ucx_config_release(u->cfg);
	free(u->who);
	free(u->rank_host);
	free(u->host_leader);
	free(u->hosts.ports);
	ibf_ucxi_state_free(u);
	free(u);
}

ibf_ucx_status_t ibf_ucx_init(const ibf_ucx_params_t *p, ibf_ucx_t **out,
			      ibf_ucx_err_t *err)
{
	ibf_ucxi_whoami_t me;
	ucp_address_t *addr = NULL;
	size_t addr_len = 0;
	ibf_ucx_status_t st;
	ibf_ucx_t *u;

	*out = NULL;
	ibf_ucx_err_clear(err);
	st = check_params(p, err);
	if (st != IBF_UCX_OK)
		return st;
	u = calloc(1, sizeof(*u));
	if (!u)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	u->oob = *p->oob;
	u->rank = p->oob->rank;
	u->size = p->oob->size;
	u->timeout = 60;
	u->wire.efd = -1;
	u->lanes = p->lane;
	if (!u->lanes && ibf_ucx_lane_create(&u->lanes, NULL) == IBF_UCX_OK)
		u->lane_own = true;
	memset(&me, 0, sizeof(me));
	st = p->config ? ibf_ucx_config_clone(p->config, &u->cfg, err) :
	     ibf_ucx_config_read(&u->cfg, err);
	if (st == IBF_UCX_OK) {
		u->timeout = u->cfg->v.timeout;
		u->wire.eps = calloc(u->size, sizeof(*u->wire.eps));
		if (!u->wire.eps)
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					     "out of memory");
	}
	if (st != IBF_UCX_OK)
		record(&me, err);
	else
		local_setup(u, &me, &addr, &addr_len);
	st = exchange(u, &me, addr, addr_len, err);
	if (addr)
		ucp_worker_release_address(u->wire.worker, addr);
	if (st == IBF_UCX_OK)
		st = judge(u, (p->flags & IBF_UCX_INIT_FALLBACK) ||
			   (u->cfg && u->cfg->v.fallback), err);
	if (st == IBF_UCX_OK)
		st = ibf_ucxi_sl_setup(u, err);
	if (st == IBF_UCX_OK && u->aware)
		warn_route_sls(u);
	/* No export: the fabric is the tree inferred from RTTs. */
	if (st == IBF_UCX_OK && !strcmp(u->cfg->v.fabric, "infer"))
		st = ibf_ucxi_fabric_infer(u, err);
	if (st != IBF_UCX_OK) {
		destroy(u);
		return st;
	}
	*out = u;
	return IBF_UCX_OK;
}

/* Every context of u but the lane: the data context, then the route
 * SLs' (at most IBF_NSLS + 1). */
static uint32_t all_wires(ibf_ucx_t *u, ibf_ucxi_wire_t **out)
{
	ibf_ucxi_wire_t *w;
	uint32_t n = ibf_ucxi_sl_wires(u, &w);

	out[0] = &u->wire;
	for (uint32_t i = 0; i < n; i++)
		out[i + 1] = &w[i];
	return n + 1;
}

/* What this process sent on w must have left it before a forced close
 * (a completed eager send may still sit in the transport's buffer). */
static void wire_flush(ibf_ucx_t *u, ibf_ucxi_wire_t *w, double deadline)
{
	ucp_request_param_t fp = { .op_attr_mask = 0 };
	ucs_status_ptr_t f = ucp_worker_flush_nbx(w->worker, &fp);

	while (UCS_PTR_IS_PTR(f) &&
	       ucp_request_check_status(f) == UCS_INPROGRESS &&
	       ibf_ucxi_now() < deadline)
		ibf_ucxi_progress_or_sleep(u, 0.01);
	if (UCS_PTR_IS_PTR(f))
		ucp_request_free(f);
}

/* Close w's endpoints, forced; the requests in r[size] (NULL: none). */
static void wire_close_eps(ibf_ucxi_wire_t *w, uint32_t size,
			   ucs_status_ptr_t *r)
{
	ucp_request_param_t cp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				   .flags = UCP_EP_CLOSE_FLAG_FORCE };

	for (uint32_t i = 0; i < size; i++) {
		if (!w->eps[i])
			continue;
		if (r)
			r[i] = ucp_ep_close_nbx(w->eps[i], &cp);
		else
			ucp_ep_destroy(w->eps[i]);
		w->eps[i] = NULL;
	}
}

/* Close every endpoint with a flush, then an OOB fence so that nobody
 * destroys its worker while a peer still flushes towards it. */
ibf_ucx_status_t ibf_ucx_finalize(ibf_ucx_t *u, ibf_ucx_err_t *err)
{
	ibf_ucxi_wire_t *w[IBF_NSLS + 1];
	ucs_status_ptr_t *r;
	double deadline;
	uint32_t i, left, nw, nr;
	char x = 0, *all;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if (!u)
		return IBF_UCX_OK;
	/* Every process first says it is done: then all its receives have
	 * completed, so no message of this context is still on its way and
	 * the endpoints can be closed without a flush.  (A flushing close
	 * needs the peer to progress its worker, which it no longer does
	 * once it is back in the application: each close then waited for
	 * the whole timeout.) */
	all = malloc(u->size);
	if (all) {
		st = ibf_ucxi_oob_allgather(u, &x, all, 1, err);
		free(all);
	}
	/* Without the exchange above (a caller that cannot do one any
	 * more) the flush is all that keeps the last messages. */
	deadline = ibf_ucxi_now() + u->timeout;
	nw = all_wires(u, w);
	for (i = 0; i < nw; i++)
		wire_flush(u, w[i], deadline);
	/* And every process says it has flushed before any closes: over
	 * rc_verbs a flush completes only when the peer's QP answers, so a
	 * process that closed and left early made the others' flushes wait
	 * the whole timeout (seen with rxe in the soft-RoCE VM).  The OOB
	 * progresses this worker while it waits. */
	if (st == IBF_UCX_OK && (all = malloc(u->size)) != NULL) {
		st = ibf_ucxi_oob_allgather(u, &x, all, 1, err);
		free(all);
	}
	ibf_ucxi_lane_free(u);
	nr = nw * u->size;
	r = calloc(nr + 1, sizeof(*r));
	for (i = 0; i < nw; i++)
		wire_close_eps(w[i], u->size, r ? r + i * u->size : NULL);
	do {
		for (i = left = 0; r && i < nr; i++) {
			if (!UCS_PTR_IS_PTR(r[i]))
				continue;
			if (ucp_request_check_status(r[i]) != UCS_INPROGRESS) {
				ucp_request_free(r[i]);
				r[i] = NULL;
			} else {
				left++;
			}
		}
		if (left)
			ibf_ucxi_progress_or_sleep(u, 0.01);
	} while (left && ibf_ucxi_now() < deadline);
	for (i = 0; r && i < nr; i++)
		if (UCS_PTR_IS_PTR(r[i]))
			ucp_request_free(r[i]);
	free(r);
	destroy(u);
	return st;
}

/* ---- accessors ------------------------------------------------------------- */

uint32_t ibf_ucx_rank(const ibf_ucx_t *u) { return u->rank; }
uint32_t ibf_ucx_size(const ibf_ucx_t *u) { return u->size; }
const ibf_ucx_config_t *ibf_ucx_get_config(const ibf_ucx_t *u)
{
	return u->cfg;
}
ucp_context_h ibf_ucx_ucp_context(const ibf_ucx_t *u) { return u->wire.ctx; }
ucp_worker_h ibf_ucx_ucp_worker(const ibf_ucx_t *u) { return u->wire.worker; }
bool ibf_ucx_topology_aware(const ibf_ucx_t *u) { return u->aware; }
const char *ibf_ucx_unaware_why(const ibf_ucx_t *u)
{
	return u->aware ? "" : u->why;
}
const ibf_fabric_t *ibf_ucx_fabric(const ibf_ucx_t *u)
{
	return u->aware ? u->fab.fabric : NULL;
}
const ibf_lfts_t *ibf_ucx_lfts(const ibf_ucx_t *u)
{
	return u->aware ? u->fab.lfts : NULL;
}
