/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * UCX_IBFLOW_* configuration: the parsed values (private).
 *
 * To add a variable: a field here, one line in the table of config.c
 * (name, default, doc, offset, type), and docs/ucx.md.  The bounded types
 * IBF_UCX_CFG_UINT(min, max) and IBF_UCX_CFG_TIME(min, max) refuse what
 * UCX's own types would accept as nonsense (a negative unsigned).
 */
#ifndef IBFLOW_UCX_CFG_H
#define IBFLOW_UCX_CFG_H

#include <ucs/sys/preprocessor.h>
#include <ucs/config/parser.h>

#include <ibflow/ucx.h>

#define IBF_UCX_ENV_PREFIX   "UCX_"
#define IBF_UCX_TABLE_PREFIX "IBFLOW_"
#define IBF_UCX_VAR_PREFIX   IBF_UCX_ENV_PREFIX IBF_UCX_TABLE_PREFIX

typedef enum ibf_ucx_probe_rounds {
	IBF_UCX_ROUNDS_PARALLEL = 0,
	IBF_UCX_ROUNDS_SERIAL,
	IBF_UCX_ROUNDS_ALL_PAIRS,
} ibf_ucx_probe_rounds_t;

typedef enum ibf_ucx_a2a_mode {
	IBF_UCX_A2A_MODE_AUTO = 0,
	IBF_UCX_A2A_MODE_LIQUID,
	IBF_UCX_A2A_MODE_PAIRWISE,
	IBF_UCX_A2A_MODE_OFF,
} ibf_ucx_a2a_mode_t;

typedef enum ibf_ucx_a2a_sync {
	IBF_UCX_A2A_SYNC_LINKS = 0,      /* releases along every link */
	IBF_UCX_A2A_SYNC_READY,          /* pairwise readiness handshakes */
	IBF_UCX_A2A_SYNC_BARRIER,        /* a barrier before every frame */
} ibf_ucx_a2a_sync_t;

/* UCX_IBFLOW_ROUTE_SL: the all-to-all's blocks and the probes on their
 * routes' SLs (core/sl_lanes.c) */
typedef enum ibf_ucx_route_sl_mode {
	IBF_UCX_ROUTE_SL_AUTO = 0,       /* on InfiniBand, routing with SLs */
	IBF_UCX_ROUTE_SL_ANY,            /* whatever the transport */
	IBF_UCX_ROUTE_SL_OFF,            /* never: UCX_IB_SL for all */
} ibf_ucx_route_sl_mode_t;

typedef enum ibf_ucx_bcast_mode {
	IBF_UCX_BCAST_MODE_OFF = 0,
	IBF_UCX_BCAST_MODE_PIPELINE,
} ibf_ucx_bcast_mode_t;

typedef struct ibf_ucx_cfg {
	char *fabric;                    /* export dir, "" or "infer" */
	char *hostmap;                   /* file or "" */
	char *addrmap;                   /* file or "" (default in FABRIC) */
	unsigned lid_offset;
	int fallback;                    /* ucs bool */
	ucs_config_allow_list_t net_devices;
	ucs_config_allow_list_t tls;
	double timeout;                  /* seconds */
	unsigned probe_stall;
	unsigned probe_max;
	unsigned probe_runs;
	unsigned probe_warmup;
	unsigned probe_size;
	unsigned probe_tries;
	unsigned probe_rounds;           /* ibf_ucx_probe_rounds_t */
	double probe_spin;               /* seconds; < 0: auto */
	unsigned probe_concurrency;      /* UINT_MAX: auto, 0: unlimited */
	unsigned probe_model;            /* ibf_probe_model_t */
	unsigned alltoall;               /* ibf_ucx_a2a_mode_t */
	unsigned alltoall_thresh;        /* bytes per block */
	unsigned alltoall_sync;          /* ibf_ucx_a2a_sync_t */
	double alltoall_gain;            /* auto: least rr / liquid frames;
					    < 0: by transport */
	char *alltoall_trace;            /* file prefix or "" */
	unsigned alltoall_segment;       /* bytes, 0: whole blocks */
	int ctl_lane;                    /* ucs bool */
	unsigned ctl_sl;                 /* UINT_MAX: UCX's */
	unsigned ctl_tclass;             /* UINT_MAX: UCX's */
	char *ctl_tcp_ports;             /* "LO-HI" or "" */
	unsigned route_sl;               /* ibf_ucx_route_sl_mode_t */
	double infer_tol;                /* seconds of RTT */
	unsigned infer_parallel;         /* hosts inserted at once */
	unsigned infer_in_flight;        /* UINT_MAX: auto, 0: unlimited */
	unsigned bcast;                  /* ibf_ucx_bcast_mode_t */
	unsigned bcast_thresh;           /* bytes */
	unsigned bcast_chunk;            /* bytes */
} ibf_ucx_cfg_t;

struct ibf_ucx_config {
	ibf_ucx_cfg_t v;
};

/* "NET_DEVICES" etc. as UCX's own variable wants it ("all", "a,b",
 * "^a"). */
ibf_ucx_status_t ibf_ucx_cfg_string(const ibf_ucx_config_t *c,
				    const char *field, char *buf, size_t len,
				    ibf_ucx_err_t *err);
/* "all", or an empty list (UCX_IBFLOW_NET_DEVICES=): no restriction,
 * as if unset ("VAR= cmd" is how a shell user clears a setting). */
static inline bool ibf_ucx_cfg_allow_all(const ucs_config_allow_list_t *l)
{
	return l->mode == UCS_CONFIG_ALLOW_LIST_ALLOW_ALL || !l->array.count;
}
ibf_ucx_status_t ibf_ucx_config_clone(const ibf_ucx_config_t *src,
				      ibf_ucx_config_t **out,
				      ibf_ucx_err_t *err);

#endif
