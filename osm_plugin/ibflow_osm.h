/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libibflow_osm: OpenSM event plugin that registers the ibflow routing
 * engines (ibflow-dmodk, ibflow-uapr, ibflow-layered), exports what the
 * UCX side needs and evaluates every routing with the MMF engine.
 *
 * Threads: OpenSM calls the routing callbacks with its subnet lock held
 * exclusively; path_sl and update_sl2vl come from its SA and QoS code;
 * report() comes from its state manager.  The plugin's one worker thread
 * (export + evaluation) never touches OpenSM objects: it works on a
 * reference-counted, read-only result (fabric + routing) of its own.
 */
#ifndef IBFLOW_OSM_H
#define IBFLOW_OSM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ibflow/fabric.h>
#include <ibflow/lfts.h>
#include <ibflow/prom.h>
#include <ibflow/route.h>

struct osm_opensm;
struct osm_subn;
struct ibf_pgft_memory;

#define IBF_OSM_NENGINES 3
#define IBF_OSM_MAX_PATTERNS 16
#define IBF_OSM_PATH_MAX 1024
#define IBF_OSM_CONF_DEFAULT "/etc/opensm/ibflow.conf"
/* Evaluation defaults (docs/osm-plugin.md, "Evaluation"). */
#define IBF_OSM_EVAL_BUDGET 10.0
#define IBF_OSM_EVAL_MAX_ENDPOINTS 0     /* no limit: budget and memory bound it */
#define IBF_OSM_EVAL_MEM_MB 256

/* ibflow.conf, see ibflow.conf.example and docs/osm-plugin.md. */
typedef struct ibf_osm_conf {
	ibf_route_opts_t route;          /* layers, density, method, seed,
					    vls, threads */
	bool do_export;
	char export_dir[IBF_OSM_PATH_MAX]; /* "" = OpenSM's cache dir */
	bool do_eval;
	char *patterns[IBF_OSM_MAX_PATTERNS];
	unsigned npatterns;
	double eval_budget;              /* seconds per evaluation */
	unsigned eval_max_endpoints;     /* larger fabrics are not evaluated */
	unsigned eval_mem_mb;            /* memory the evaluation may use */
	bool eval_opt;                   /* MMF optimum on PGFTs */
	bool eval_foreign;               /* also evaluate other engines' LFTs */
	char report_file[IBF_OSM_PATH_MAX]; /* "" = <export dir>/ibflow-eval.json */
	char metrics_file[IBF_OSM_PATH_MAX]; /* "" = no metrics */
} ibf_osm_conf_t;

/* One routing OpenSM programmed: immutable once published. */
typedef struct ibf_osm_result {
	unsigned refs;                   /* under ibf_osm_t.lock */
	uint64_t seq;                    /* routing number since start */
	char engine[32];                 /* OpenSM's name of the engine */
	ibf_fabric_t *fabric;
	ibf_routing_t *routing;          /* ibflow engines: full routing */
	ibf_lfts_t *lfts;                /* other engines: tables read back */
} ibf_osm_result_t;

/* What metrics_file says of the last routing (metrics.c): under
 * ibf_osm_t.lock; unknown numbers are NAN. */
typedef struct ibf_osm_metrics {
	ibf_prom_routing_t m;            /* strings point into this struct */
	char engine[32], requested[32];
	char reason[IBF_ERR_MSG_MAX];
	ibf_prom_pattern_t pats[IBF_OSM_MAX_PATTERNS];
	char pat_names[IBF_OSM_MAX_PATTERNS][64];
	uint64_t seq;                    /* routing the numbers belong to
					    (0: none) */
	bool dirty;                      /* changed since written */
} ibf_osm_metrics_t;

struct ibf_osm;

typedef struct ibf_osm_engine {
	struct ibf_osm *plugin;
	const char *osm_name;            /* "ibflow-dmodk" */
	const char *ibf_name;            /* "dmodk" */
} ibf_osm_engine_t;

/* What the configuration file looked like when read. */
typedef struct ibf_osm_stamp {
	bool exists;
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
} ibf_osm_stamp_t;

typedef struct ibf_osm {
	struct osm_opensm *osm;
	ibf_osm_conf_t conf;             /* replaced under lock on reload;
					    the worker copies it per job */
	char conf_path[IBF_OSM_PATH_MAX];
	bool conf_required;              /* named by IBFLOW_OSM_CONF */
	ibf_osm_stamp_t conf_stamp;
	char run_id[20];                 /* drawn at load: export generations
					    "RUN-ROUTING" never repeat */
	ibf_osm_engine_t engines[IBF_OSM_NENGINES];

	pthread_mutex_t lock;
	pthread_cond_t cond;
	ibf_osm_result_t *cur;           /* last routing of an ibflow engine */
	ibf_osm_result_t *job;           /* next result for the worker */
	uint64_t seq;
	bool cancel;                     /* the worker's job is outdated */
	double cancel_at;                /* when cancel/quit was asked
					    (CLOCK_MONOTONIC seconds) */
	bool quit;
	bool worker_started;
	pthread_t worker;
	int wake_fd[2];                  /* a byte here wakes the worker
					    while it watches an evaluation */
	ibf_osm_metrics_t metrics;
	/* The routing thread's last word on this sweep for metrics (under
	 * lock): the ibflow engine that refused and why, the time an ibflow
	 * engine took. */
	char refused[32];
	char refusal[IBF_ERR_MSG_MAX];
	double route_seconds;

	/* The PGFT shape of the last dmodk/uapr routing: a tree that loses
	 * nodes keeps its labels (only OpenSM's routing thread uses it). */
	struct ibf_pgft_shape *pgft_hint;
	/* OpenSM's min-hop matrices, filled by a thread of the plugin's
	 * while the engine routes (started by build_lid_matrices, joined in
	 * ucast_build_fwd_tables, both under OpenSM's lock): the job, its
	 * thread, whether it succeeded, and the time it took (-1 when OpenSM
	 * built them).  Routing thread only, apart from the fill itself. */
	struct ibf_osm_hops *hops_job;
	pthread_t hops_thread;
	bool hops_running;
	bool hops_ok;
	double hops_seconds;
	/* The PGFT labels kept across sweeps and restarts (labels.c; routing
	 * thread only). */
	struct ibf_pgft_memory *labels;
	bool labels_loaded;
	bool labels_dirty;               /* changed since written */
} ibf_osm_t;

/* conf.c */
void ibf_osm_conf_defaults(ibf_osm_conf_t *c);
void ibf_osm_conf_free(ibf_osm_conf_t *c);
/* Deep copy (patterns duplicated); false when out of memory. */
bool ibf_osm_conf_copy(ibf_osm_conf_t *dst, const ibf_osm_conf_t *src);
/* Read path into p->conf (defaults, then the file); bad lines are logged
 * "FILE:LINE: ..." and skipped.  A missing file is not an error when
 * !required. */
void ibf_osm_conf_load(ibf_osm_t *p, const char *path, bool required);
/* Read the file again if it changed since (or appeared, or went away):
 * called when OpenSM starts a heavy sweep, which is when it re-reads
 * opensm.conf (SIGHUP asks for one).  True if it was read. */
bool ibf_osm_conf_refresh(ibf_osm_t *p);
/* The i-th key ibflow.conf knows, NULL past the last (for the test that
 * compares them with the documentation). */
const char *ibf_osm_conf_key_name(unsigned i);
/* s for a log line: printable ASCII, other bytes as \xNN, cut short. */
const char *ibf_osm_show(const char *s, char *buf, size_t len);

/* model.c: the subnet as a finalized libibflow fabric.  Call with OpenSM's
 * lock held.  min_vls gets the smallest VL capability over the switch
 * links (data VLs). */
ibf_status_t ibf_osm_build_fabric(struct osm_subn *subn, ibf_fabric_t **out,
				  unsigned *min_vls, ibf_err_t *err);
/* Tables OpenSM holds for the switches (p_sw->lft), for evaluation of
 * other engines' routings. */
ibf_status_t ibf_osm_read_lfts(struct osm_subn *subn, const ibf_fabric_t *f,
			       ibf_lfts_t **out, ibf_err_t *err);
/* Copy a routing into every switch's new_lft, after checking that every
 * switch exists and is large enough (nothing is written otherwise). */
ibf_status_t ibf_osm_write_lfts(struct osm_subn *subn,
				const ibf_routing_t *r, ibf_err_t *err);

/* hops.c: OpenSM's min-hop matrices (switch LIDs, every switch port), as
 * its own build would leave them.  prepare reads the switch graph (with
 * OpenSM's lock held, after OpenSM prepared the switches for routing):
 * NULL with a job, or why OpenSM must build them itself.  fill writes
 * the switches' hop rows and nothing else of OpenSM's, so it may run in
 * a thread of its own while the engine reads the subnet; false when
 * memory ran out (rows then hold exact values or none). */
struct ibf_osm_hops;
const char *ibf_osm_hops_prepare(struct osm_subn *subn,
				 struct ibf_osm_hops **out);
bool ibf_osm_hops_fill(struct ibf_osm_hops *h);
void ibf_osm_hops_free(struct ibf_osm_hops *h);

/* labels.c: the labels to route with (read from OpenSM's cache dir at
 * the first call), keeping a routing's labels (taken from r), and writing
 * them to the cache dir when they changed (after the routing is done). */
const struct ibf_pgft_memory *ibf_osm_labels(ibf_osm_t *p);
void ibf_osm_labels_keep(ibf_osm_t *p, const ibf_osm_engine_t *e,
			 ibf_routing_t *r);
void ibf_osm_labels_flush(ibf_osm_t *p);

/* worker.c */
ibf_status_t ibf_osm_worker_start(ibf_osm_t *p, ibf_err_t *err);
void ibf_osm_worker_stop(ibf_osm_t *p);
/* Hand a result to the worker (takes a reference), cancelling the
 * evaluation of an older one. */
void ibf_osm_worker_post(ibf_osm_t *p, ibf_osm_result_t *res);

/* result.c: a new result holds one reference; put drops one and frees
 * with the last; current takes one on p->cur (or returns NULL);
 * set_current replaces p->cur (NULL clears it), dropping the old one. */
ibf_osm_result_t *ibf_osm_result_new(ibf_osm_t *p, const char *engine,
				     ibf_fabric_t *f);
void ibf_osm_result_put(ibf_osm_t *p, ibf_osm_result_t *res);
ibf_osm_result_t *ibf_osm_result_current(ibf_osm_t *p);
void ibf_osm_result_set_current(ibf_osm_t *p, ibf_osm_result_t *res);

/* metrics.c: a routing was done (OpenSM's report thread; res may be
 * NULL), its export and its evaluation (the worker).  Each marks the
 * metrics to be written; ibf_osm_metrics_flush writes them (the worker,
 * never OpenSM's threads: a slow disk must not hold up the SM). */
void ibf_osm_metrics_routing(ibf_osm_t *p, const char *engine,
			     const ibf_osm_result_t *res);
void ibf_osm_metrics_lft_changes(ibf_osm_t *p, const ibf_osm_result_t *prev,
				 const ibf_osm_result_t *res);
void ibf_osm_metrics_export(ibf_osm_t *p, const ibf_osm_result_t *res,
			    bool ok);
void ibf_osm_metrics_eval(ibf_osm_t *p, const ibf_osm_result_t *res,
			  const char *const *names,
			  const ibf_prom_pattern_t *pats, unsigned n,
			  unsigned skipped, double seconds);
void ibf_osm_metrics_deadlock(ibf_osm_t *p, const ibf_osm_result_t *res,
			      bool free_, unsigned vls);
void ibf_osm_metrics_flush(ibf_osm_t *p, const ibf_osm_conf_t *c);

/* osm_env.c */
void ibf_osm_logf(ibf_osm_t *p, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *ibf_osm_cache_dir(void);

#endif
