/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libibflow_ucx internals shared by the folders of src/ (core, config,
 * fabric, probe, boot).  Nothing here is exported: the version script
 * keeps every symbol but ibf_ucx_* local, and these use the ibf_ucxi_
 * prefix so they never look public.
 */
#ifndef IBFLOW_UCX_INTERNAL_H
#define IBFLOW_UCX_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <ibflow/sl_io.h>
#include <ibflow/ucx.h>

#include "config/cfg.h"

#define IBF_UCXI_HOST_MAX  64   /* process host name kept per rank */
#define IBF_UCXI_WHY_MAX   384  /* a process's mapping error */
#define IBF_UCXI_SRC_MAX   96   /* how a process found its endpoint */

ibf_ucx_status_t ibf_ucx_err_set(ibf_ucx_err_t *err, ibf_ucx_status_t st,
				 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ibf_ucx_err_clear(ibf_ucx_err_t *err);
/* libibflow's error e as this library's: status st, the message of e
 * after "what: " (what NULL: the message alone).  The one bridge between
 * the two error systems. */
ibf_ucx_status_t ibf_ucxi_err_lib(ibf_ucx_err_t *err, ibf_ucx_status_t st,
				  const ibf_err_t *e, const char *what);
/* Prepend "text: " to the message. */
void ibf_ucx_err_prefix(ibf_ucx_err_t *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

double ibf_ucxi_now(void);  /* monotonic seconds */
/* Test hook (environment): IBFLOW_TEST_UCX_FAIL=N makes the process's
 * N-th call that creates a UCX object (ucp_init, ucp_worker_create,
 * ucp_worker_get_efd, ucp_worker_get_address, ucp_ep_create; what names
 * it) fail with UCS_ERR_NO_RESOURCE, said on stderr, so that a test can
 * walk every error path of opening and closing.  UCS_OK: make the call. */
ucs_status_t ibf_ucxi_fault(const char *what);

/* ---- fabric (src/fabric) ---------------------------------------------------- */

typedef struct ibf_ucxi_fabric {
	ibf_fabric_t *fabric;
	ibf_lfts_t *lfts;
	char *dir;
	char engine[64];
	uint64_t routing;        /* the manifest's routing number */
	uint64_t digest;         /* of manifest + topology + LFT bytes */
	char *addrmap;           /* path of the address map, or NULL */
	char *topo_path;         /* the data files read */
	char *lfts_path;
	unsigned route_sls;      /* SLs the routing's deadlock freedom
				    needs (its SL file), 1 without one */
	ibf_sls_t sls;           /* the routes' SLs (empty: all SL 0) */
} ibf_ucxi_fabric_t;

/* Load an export directory: manifest, topology, LFTs, checked for one
 * consistent set. */
ibf_ucx_status_t ibf_ucxi_fabric_load(const char *dir, ibf_ucxi_fabric_t *f,
				      ibf_ucx_err_t *err);
void ibf_ucxi_fabric_free(ibf_ucxi_fabric_t *f);

/* UCX_IBFLOW_NET_DEVICES naming no device UCX finds here: a
 * configuration error naming the variable and the devices there are. */
ibf_ucx_status_t ibf_ucxi_devices_check(const ibf_ucx_config_t *c,
					ibf_ucx_err_t *err);
/* The error for ucp_init's failure us: naming UCX_IBFLOW_TLS when its
 * transports leave no device. */
ibf_ucx_status_t ibf_ucxi_devices_blame(const ibf_ucx_config_t *c,
					ucs_status_t us, ibf_ucx_err_t *err);

/* What a UCP context's data goes over: a verbs transport (rc, ud, dc)
 * on an InfiniBand port, on another RDMA port (RoCE), or neither (TCP,
 * shared memory). */
typedef enum ibf_ucxi_transport {
	IBF_UCXI_TL_OTHER = 0,
	IBF_UCXI_TL_RDMA,
	IBF_UCXI_TL_IB,
} ibf_ucxi_transport_t;

ibf_ucxi_transport_t ibf_ucxi_transport(ucp_context_h ctx);

/* What this process knows about itself, exchanged with every other. */
typedef struct ibf_ucxi_whoami {
	uint64_t port_guid;      /* fabric port GUID, 0 when not mapped */
	uint64_t digest;         /* fabric files read */
	uint64_t machine;        /* hash of the kernel's boot id: processes
				    on one machine share it, whatever their
				    namespaces or hostnames */
	int32_t status;          /* ibf_ucx_status_t of the mapping */
	uint32_t pid;
	uint32_t ncpus;          /* online CPUs of the machine */
	char host[IBF_UCXI_HOST_MAX];
	char source[IBF_UCXI_SRC_MAX];  /* how the endpoint was found */
	char why[IBF_UCXI_WHY_MAX];     /* mapping error */
} ibf_ucxi_whoami_t;

/* Find this process's endpoint (HOSTMAP, ibverbs, address map, hostname);
 * on failure w->status and w->why say why. */
void ibf_ucxi_locate(const ibf_ucx_config_t *cfg, const ibf_ucxi_fabric_t *f,
		     uint32_t rank, ibf_ucxi_whoami_t *w);

/* ---- the context -------------------------------------------------------------- */

/* Tag: kind (8 bits) | sequence (24 bits) | source rank (32 bits). */
typedef enum ibf_ucxi_kind {
	IBF_UCXI_TAG_BARRIER = 1,
	IBF_UCXI_TAG_BCAST = 2,
	IBF_UCXI_TAG_GATHER = 3,
	IBF_UCXI_TAG_PROBE = 4,
	IBF_UCXI_TAG_A2A_DATA = 5,
	IBF_UCXI_TAG_A2A_READY = 6,
	IBF_UCXI_TAG_INFER = 7,
	IBF_UCXI_TAG_BCAST_PIPE = 8,
	IBF_UCXI_TAG_A2A_RELEASE = 9,
	IBF_UCXI_TAG_A2A_XRELEASE = 10,   /* sequence: the all-to-all call */
	IBF_UCXI_TAG_SCATTER = 11,
} ibf_ucxi_kind_t;

static inline ucp_tag_t ibf_ucxi_tag(ibf_ucxi_kind_t kind, uint32_t seq,
				     uint32_t src)
{
	return ((ucp_tag_t)kind << 56) | ((ucp_tag_t)(seq & 0xffffff) << 32) |
	       src;
}

/* A UCP context of this library with its worker and the way to every
 * rank: the data context's and the control lane's (lane.c). */
typedef struct ibf_ucxi_wire {
	ucp_context_h ctx;
	ucp_worker_h worker;
	int efd;
	ucp_ep_h *eps;            /* [size], created on first use */
	uint8_t *addrs;           /* [size * stride]: length + address */
	size_t stride;
	uint64_t nsent, nrecv;    /* messages posted */
} ibf_ucxi_wire_t;

/* comm.c: the endpoint to rank on w, created on first use from the
 * rank's exchanged address (UCX's status). */
ucs_status_t ibf_ucxi_wire_ep(ibf_ucxi_wire_t *w, uint32_t rank,
			      ucp_ep_h *ep);
/* comm.c: destroy the worker and the context, free eps and addrs (the
 * endpoints already closed). */
void ibf_ucxi_wire_close(ibf_ucxi_wire_t *w);
/* context.c: a UCP context and worker of this library (under the UCX
 * lock), with key = val set on its UCP configuration when key is not
 * NULL (UCX_IBFLOW_NET_DEVICES / _TLS always); w->eps and w->addrs are
 * the caller's. */
ibf_ucx_status_t ibf_ucxi_wire_open(const ibf_ucx_config_t *cfg,
				    const char *name, const char *key,
				    const char *val, ibf_ucxi_wire_t *w,
				    ibf_ucx_err_t *err);

struct ibf_ucx {
	ibf_ucx_config_t *cfg;
	ibf_ucx_oob_t oob;
	uint32_t rank, size;
	double timeout;
	ibf_ucxi_wire_t wire;     /* the data context */
	struct ibf_ucxi_sl_lanes *sl;  /* route SLs' contexts (sl_lanes.c),
					  NULL: all on the data context */
	uint32_t seq;             /* collective calls so far (same on all) */
	/* fabric view */
	ibf_ucxi_fabric_t fab;
	bool aware;
	char why[IBF_UCX_ERR_MSG_MAX];
	ibf_ucxi_whoami_t *who;   /* [size] */
	uint32_t nhosts;
	ibf_hostlist_t hosts;     /* aware: fabric port of each host */
	uint32_t *rank_host;      /* [size] */
	uint32_t *host_leader;    /* [nhosts] */
	uint32_t local_procs;     /* processes on this machine (incl. me) */
	struct ibf_ucxi_state *state; /* coll/'s and infer/'s (state.c) */
	ibf_ucx_lane_t *lanes;    /* the control lane to use (lane.c) */
	bool lane_own;            /* ... made for this context alone */
	struct ibf_ucxi_lane_use *lane;  /* its use of it, or NULL: none */
	bool lane_tried;
};

/* context.c: UCX's configuration parser and global options are the
 * process's; contexts (data and lane) are made under this lock, one at a
 * time, whichever thread makes them. */
void ibf_ucxi_ucx_lock(void);
void ibf_ucxi_ucx_unlock(void);

/* devices.c: UCP's configuration with UCX_IBFLOW_NET_DEVICES / _TLS
 * (they restrict this library's contexts only, not the application's
 * own UCX use). */
ibf_ucx_status_t ibf_ucxi_ucp_config(const ibf_ucx_config_t *c,
				     ucp_config_t **out, ibf_ucx_err_t *err);

/* ucx_hosts.c: the host list from what every process said (judged): distinct
 * endpoints in order of their lowest rank (aware), or one per process. */
ibf_ucx_status_t ibf_ucxi_hosts_build(ibf_ucx_t *u, ibf_ucx_err_t *err);

/* ---- state of the folders above the core (src/core/state.c) -------------
 *
 * coll/ and infer/ keep what they need per context under a key of their
 * own (a static ibf_ucxi_state_key_t); the context frees it with itself
 * through the key's function.  The core names no subsystem. */
typedef struct ibf_ucxi_state_key {
	const char *name;             /* for error messages */
	void (*free)(void *data);
} ibf_ucxi_state_key_t;

/* The data under key, or NULL. */
void *ibf_ucxi_state_get(const ibf_ucx_t *u, const ibf_ucxi_state_key_t *key);
/* Keep data under key (not there yet); on failure key->free(data). */
ibf_ucx_status_t ibf_ucxi_state_put(ibf_ucx_t *u,
				    const ibf_ucxi_state_key_t *key,
				    void *data, ibf_ucx_err_t *err);
/* Every key's data, freed (the context's end). */
void ibf_ucxi_state_free(ibf_ucx_t *u);

/* ---- the fabric's view of the context (src/fabric) -------------------------- */

/* fabric/inferred.c: UCX_IBFLOW_FABRIC=infer at init (collective, after
 * the host list is built topology-unaware): infer, then make the tree the
 * context's fabric and its paths the routes. */
ibf_ucx_status_t ibf_ucxi_fabric_infer(ibf_ucx_t *u, ibf_ucx_err_t *err);

/* ---- communication (src/core/comm.c) ----------------------------------------- */

/* Run the caller's OOB allgather to completion, progressing UCX. */
ibf_ucx_status_t ibf_ucxi_oob_allgather(ibf_ucx_t *u, void *sbuf, void *rbuf,
					size_t len, ibf_ucx_err_t *err);

/* A request handle: NULL when the operation completed at once. */
typedef struct ibf_ucxi_req {
	void *req;
	const char *what;  /* for timeout messages */
	uint32_t peer;
	ucp_worker_h worker;  /* it was posted on (NULL: the data context's) */
} ibf_ucxi_req_t;

ibf_ucx_status_t ibf_ucxi_isend(ibf_ucx_t *u, uint32_t peer, ucp_tag_t tag,
				const void *buf, size_t len, ibf_ucxi_req_t *r,
				ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucxi_irecv(ibf_ucx_t *u, uint32_t peer, ucp_tag_t tag,
				void *buf, size_t len, ibf_ucxi_req_t *r,
				ibf_ucx_err_t *err);
/* The same on the context of the route's SL to / from peer (the data
 * context without route SLs, or within a host): the all-to-all's blocks,
 * the probes and the bandwidth map's streams. */
ibf_ucx_status_t ibf_ucxi_route_isend(ibf_ucx_t *u, uint32_t peer,
				      ucp_tag_t tag, const void *buf,
				      size_t len, ibf_ucxi_req_t *r,
				      ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucxi_route_irecv(ibf_ucx_t *u, uint32_t peer,
				      ucp_tag_t tag, void *buf, size_t len,
				      ibf_ucxi_req_t *r, ibf_ucx_err_t *err);
/* Progress every context of u but the lane once; events seen. */
unsigned ibf_ucxi_progress_all(ibf_ucx_t *u);
/* Sleep until a context of u (or the extra worker, efd; NULL, -1:
 * none) has an event, at most max_s. */
void ibf_ucxi_sleep_all(ibf_ucx_t *u, ucp_worker_h extra, int extra_efd,
			double max_s);
/* Completed: released, *st its outcome (an error set in err); false
 * while it runs. */
bool ibf_ucxi_test(ibf_ucxi_req_t *r, ibf_ucx_status_t *st,
		   ibf_ucx_err_t *err);
/* Wait for n requests until the deadline (absolute ibf_ucxi_now()
 * seconds); spin (busy progress) at most spin_s before sleeping on the
 * worker's event fd.  Releases the requests in all cases. */
ibf_ucx_status_t ibf_ucxi_wait(ibf_ucx_t *u, ibf_ucxi_req_t *r, unsigned n,
			       double deadline, double spin_s,
			       ibf_ucx_err_t *err);
/* Progress once; sleep on the event fd at most max_s if nothing
 * happened. */
void ibf_ucxi_progress_or_sleep(ibf_ucx_t *u, double max_s);

ibf_ucx_status_t ibf_ucxi_send(ibf_ucx_t *u, uint32_t peer, ucp_tag_t tag,
			       const void *buf, size_t len,
			       ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucxi_recv(ibf_ucx_t *u, uint32_t peer, ucp_tag_t tag,
			       void *buf, size_t len, ibf_ucx_err_t *err);
/* Root receives len bytes from every rank (rank order); others send. */
ibf_ucx_status_t ibf_ucxi_gather(ibf_ucx_t *u, uint32_t root,
				 const void *sbuf, void *rbuf, size_t len,
				 ibf_ucx_err_t *err);
/* Root receives a buffer of any length from every rank: rbuf[i] malloc'd
 * (NULL when empty), rlen[i] its length; rbuf and rlen have size entries
 * and are left alone on other ranks. */
ibf_ucx_status_t ibf_ucxi_gatherv(ibf_ucx_t *u, uint32_t root,
				  const void *sbuf, size_t slen, void **rbuf,
				  size_t *rlen, ibf_ucx_err_t *err);
/* Root gives rank i the lens[i] bytes at parts[i] (parts may repeat);
 * every rank gets its part in a malloc'd *rbuf of *rlen bytes.  parts
 * and lens matter at the root only. */
ibf_ucx_status_t ibf_ucxi_scatterv(ibf_ucx_t *u, uint32_t root,
				   const void *const *parts,
				   const uint64_t *lens, void **rbuf,
				   size_t *rlen, ibf_ucx_err_t *err);
/* Broadcast of a buffer whose length only the root knows: the others get
 * a malloc'd copy. */
ibf_ucx_status_t ibf_ucxi_bcast_blob(ibf_ucx_t *u, uint32_t root,
				     void **buf, size_t *len,
				     ibf_ucx_err_t *err);

/* ---- route SLs (src/core/sl_lanes.c) ------------------------------------- */

/* Collective, in ibf_ucx_init after the host list: the contexts of this
 * process's routes' SLs, used if every process opened its own
 * (UCX_IBFLOW_ROUTE_SL; a process that cannot says why once).  Errors
 * are the exchange's. */
ibf_ucx_status_t ibf_ucxi_sl_setup(ibf_ucx_t *u, ibf_ucx_err_t *err);
/* The context a message to (to) or from peer goes on. */
ibf_ucxi_wire_t *ibf_ucxi_sl_wire(ibf_ucx_t *u, uint32_t peer, bool to);
/* The SL of the route SL context whose worker is w (a request's), -1:
 * none of them (the data context): what a trace says a message went on. */
int ibf_ucxi_worker_sl(const ibf_ucx_t *u, ucp_worker_h w);
/* The route SLs' contexts (*w, the count; 0: none). */
uint32_t ibf_ucxi_sl_wires(const ibf_ucx_t *u, ibf_ucxi_wire_t **w);
/* Close them (their endpoints already closed). */
void ibf_ucxi_sl_free(ibf_ucx_t *u);

/* ---- the control lane (src/core/lane.c) ------------------------------------ */

/* Collective, once per context (later calls return at once): use the
 * lane (opened by the first context wanting it) if UCX_IBFLOW_CTL_LANE
 * says so and every process has one.  Errors are the exchange's; a lane
 * that cannot be had is no error. */
ibf_ucx_status_t ibf_ucxi_lane_setup(ibf_ucx_t *u, ibf_ucx_err_t *err);
/* The context's use of the lane ends (and its own lane closes). */
void ibf_ucxi_lane_free(ibf_ucx_t *u);
/* Tagged messages on the lane (on the data context without one). */
ibf_ucx_status_t ibf_ucxi_lane_isend(ibf_ucx_t *u, uint32_t peer,
				     ucp_tag_t tag, const void *buf,
				     size_t len, ibf_ucxi_req_t *r,
				     ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucxi_lane_irecv(ibf_ucx_t *u, uint32_t peer,
				     ucp_tag_t tag, void *buf, size_t len,
				     ibf_ucxi_req_t *r, ibf_ucx_err_t *err);
void ibf_ucxi_lane_cancel(ibf_ucx_t *u, ibf_ucxi_req_t *r, uint32_t n);
/* Progress both contexts; sleep until either has an event. */
void ibf_ucxi_lane_progress(ibf_ucx_t *u);
void ibf_ucxi_lane_sleep(ibf_ucx_t *u, double max_s);

#endif
