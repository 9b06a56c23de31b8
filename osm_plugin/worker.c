/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The worker thread: export and MMF evaluation of each routing, off
 * OpenSM's routing path.
 *
 * report(UCAST_ROUTING_DONE) only posts a reference to the newest result
 * (an immutable fabric + tables owned by the plugin) and returns; OpenSM
 * never waits for the worker.
 *
 * The evaluation runs in a child process forked from this thread.  It
 * shares the result's memory copy-on-write (nothing is copied up front),
 * runs at the lowest CPU priority with at most eval_memory_mb of
 * private memory beyond what it inherited (RLIMIT_DATA), and streams one line per
 * pattern back through a pipe; this thread logs them and writes the
 * report.  So:
 *  - OpenSM's own memory never grows with the evaluation: an allocation
 *    beyond the limit fails in the child and the pattern is reported as
 *    skipped for memory;
 *  - stopping it is a SIGKILL, at any point: a newer routing or OpenSM
 *    shutting down wakes this thread (a byte on wake_fd) and the child is
 *    gone within milliseconds, with a log line saying which of the two;
 *  - eval_budget is a hard wall-clock limit on the whole evaluation.
 * The child uses only libibflow and _exit()s: it never touches OpenSM's
 * objects, locks or log (the fork copied them in whatever state).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include <ibflow/deadlock.h>
#include <ibflow/eval.h>
#include <ibflow/export.h>
#include <ibflow/io.h>
#include <ibflow/lfts_io.h>
#include <ibflow/topo_io.h>

#include "ibflow_osm.h"

#define POLL_MS 20          /* the worker's tick while a child runs */

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *export_dir(const ibf_osm_conf_t *c)
{
	return c->export_dir[0] ? c->export_dir : ibf_osm_cache_dir();
}

/* Why the current job should stop: NULL if it should not; *asked (may
 * be NULL) gets when the stop was asked. */
static const char *stop_reason(ibf_osm_t *p, double *asked)
{
	const char *why = NULL;

	pthread_mutex_lock(&p->lock);
	if (p->quit)
		why = "OpenSM is shutting down";
	else if (p->cancel)
		why = "a newer routing replaces it";
	if (asked)
		*asked = p->cancel_at;
	pthread_mutex_unlock(&p->lock);
	return why;
}

static void wake(ibf_osm_t *p)
{
	char c = 1;

	if (p->wake_fd[1] >= 0 && write(p->wake_fd[1], &c, 1) < 0) {
		/* full pipe: a wake-up is pending anyway */
	}
}

static void drain_wake(ibf_osm_t *p)
{
	char buf[64];

	while (read(p->wake_fd[0], buf, sizeof(buf)) > 0)
		;
}

static const ibf_lfts_t *result_lfts(const ibf_osm_result_t *res)
{
	return res->routing ? res->routing->lfts : res->lfts;
}

/* A routing view for other engines' tables: topological order, SL 0. */
static void foreign_view(const ibf_osm_result_t *res, ibf_routing_t *v)
{
	memset(v, 0, sizeof(*v));
	v->fabric = res->fabric;
	snprintf(v->engine, sizeof(v->engine), "%s", res->engine);
	v->lfts = res->lfts;
	v->order = res->fabric->endpoints;
	v->norder = res->fabric->nendpoints;
	v->nsls = 1;
}

/* How the evaluation spreads a pair's traffic: a layered engine's LID
 * offsets are its layers; another engine's (OpenSM's own too) are LMC
 * paths. */
static ibf_eval_paths_t eval_paths(const ibf_fabric_t *f,
				   const ibf_routing_t *r)
{
	if (f->lmc == 0)
		return IBF_EVAL_SINGLE;
	return r && ibf_route_engine_can(r->engine, IBF_ROUTE_LAYERS) ?
	       IBF_EVAL_LAYERS : IBF_EVAL_LMC;
}

/* The generation names this routing uniquely, across OpenSM restarts too
 * (the run id is drawn at plugin load). */
static void generation(const ibf_osm_t *p, const ibf_osm_result_t *res,
		       char *buf, size_t len)
{
	snprintf(buf, len, "%s-%llu", p->run_id, (unsigned long long)res->seq);
}

/* What the manifest in dir says of generation gen after a failed export:
 * a failed export leaves its reason there, unless even that could not
 * be written. */
static const char *manifest_note(const char *dir, const char *gen)
{
	char path[IBF_OSM_PATH_MAX + 64], line[256], want[IBF_EXPORT_GEN_MAX + 16];
	bool ours = false, failed = false, writing = false;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, IBF_EXPORT_MANIFEST);
	snprintf(want, sizeof(want), "generation %s\n", gen);
	fp = fopen(path, "r");
	if (!fp)
		return "no manifest written";
	while (fgets(line, sizeof(line), fp)) {
		ours |= !strcmp(line, want);
		failed |= !strncmp(line, "status failed", 13);
		writing |= !strcmp(line, "status writing\n");
	}
	fclose(fp);
	if (!ours)
		return "the manifest there is an older one";
	if (failed)
		return "the manifest says so";
	return writing ? "the manifest still says writing" :
	       "the manifest does not say so";
}

/* ibf_export_write(): the manifest says "writing" first, "complete" last
 * (or "failed" and why), every file carries the generation, so a consumer
 * never takes an older or half-written set for this routing's. */
static bool do_export(ibf_osm_t *p, const ibf_osm_conf_t *c,
		      const ibf_osm_result_t *res)
{
	const char *dir = export_dir(c);
	ibf_export_info_t info;
	ibf_routing_t view;
	const ibf_routing_t *r = res->routing;
	ibf_err_t err;

	if (!r) {
		foreign_view(res, &view);
		r = &view;
	}
	/* a directory that cannot be made is the failure, not the export */
	if (mkdir(dir, 0755) && errno != EEXIST) {
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF08: export of %s "
			     "routing %llu failed: cannot create the export "
			     "directory %s: %s (nothing written)", res->engine,
			     (unsigned long long)res->seq, dir,
			     strerror(errno));
		return false;
	}
	memset(&info, 0, sizeof(info));
	generation(p, res, info.generation, sizeof(info.generation));
	snprintf(info.engine, sizeof(info.engine), "%s", res->engine);
	info.routing = res->seq;
	ibf_err_clear(&err);
	if (ibf_export_write(dir, r, &info, &err) != IBF_OK) {
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF08: export of %s "
			     "routing %llu to %s failed (%s): %s",
			     res->engine, (unsigned long long)res->seq, dir,
			     manifest_note(dir, info.generation), err.msg);
		return false;
	}
	ibf_osm_logf(p, OSM_LOG_INFO, "exported %s routing %llu "
		     "(generation %s) to %s", res->engine,
		     (unsigned long long)res->seq, info.generation, dir);
	return true;
}

/* ---- the evaluation child ---------------------------------------------- */

/* Lines from the child, one per event:
 *   R<TAB>spec<TAB>json<TAB>log text   a pattern's result
 *   M<TAB>spec<TAB>message            a pattern skipped for memory
 *   E<TAB>spec<TAB>message            a pattern failed
 *   B<TAB>spec                        budget gone before the pattern
 *   D<TAB>free|cyclic<TAB>VLs         the deadlock check of the tables
 * A result whose optimum was asked for but not computed carries the reason
 * in its JSON (opt_note) and its log text.
 */
static void child_line(int fd, const char *a, const char *b, const char *c,
		       const char *d)
{
	char buf[8192];
	int n;

	n = snprintf(buf, sizeof(buf), "%s\t%s%s%s%s%s\n", a, b,
		     c ? "\t" : "", c ? c : "", d ? "\t" : "", d ? d : "");
	if (n < 0 || (size_t)n >= sizeof(buf))
		return;
	while (n > 0) {
		ssize_t w = write(fd, buf, (size_t)n);

		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			_exit(3);
		}
		n -= (int)w;
	}
}

/* Tabs and line breaks cannot travel inside a field. */
static void flat(char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\n' || *s == '\r')
			*s = ' ';
}

static json_object *json_num(double v, bool valid)
{
	return valid ? json_object_new_double(v) : NULL;
}

static json_object *pattern_json(const ibf_eval_t *e, const char *spec,
				 const char *opt_note)
{
	const ibf_eval_result_t *x = ibf_eval_result(e, 0, 0);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(spec));
	json_object_object_add(o, "instances",
			       json_object_new_int64(x->instances));
	json_object_object_add(o, "flows", json_object_new_int64(
				       (int64_t)x->flows));
	json_object_object_add(o, "index", json_object_new_double(x->index));
	json_object_object_add(o, "opt_index",
			       json_num(x->opt_index, x->has_opt));
	json_object_object_add(o, "ratio", json_num(x->ratio, x->has_opt));
	json_object_object_add(o, "min_rate",
			       json_object_new_double(x->min_rate));
	json_object_object_add(o, "median_rate",
			       json_object_new_double(x->median_rate));
	json_object_object_add(o, "max_link_load",
			       json_object_new_double(x->max_link_load));
	json_object_object_add(o, "seconds",
			       json_object_new_double(x->seconds));
	json_object_object_add(o, "opt_seconds",
			       json_num(x->opt_seconds, x->has_opt));
	json_object_object_add(o, "opt_note", opt_note[0] ?
			       json_object_new_string(opt_note) : NULL);
	return o;
}

/* Private writable memory the child has now (its copy-on-write share of
 * OpenSM's heap and stacks): /proc/self/status VmData, in bytes. */
static uint64_t vm_data(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *fp = fopen("/proc/self/status", "r");

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmData: %llu kB", &kb) == 1)
			break;
	fclose(fp);
	return (uint64_t)kb * 1024;
}

/* RLIMIT_DATA counts private writable memory, including what malloc's
 * per-thread arenas (reserved address space the child inherited) make
 * writable as they grow; so the limit holds whatever arena the
 * allocations come from. */
static void child_limits(const ibf_osm_conf_t *c)
{
	struct rlimit rl;
	uint64_t lim = vm_data() + (uint64_t)c->eval_mem_mb * 1024 * 1024;

	rl.rlim_cur = rl.rlim_max = (rlim_t)lim;
	setrlimit(RLIMIT_DATA, &rl);
	rl.rlim_cur = rl.rlim_max = 0;
	setrlimit(RLIMIT_CORE, &rl);
	if (setpriority(PRIO_PROCESS, 0, 19)) {
		/* best effort */
	}
}

/* The CDG of every VL the routing's SLs use (SL i on VL i, as the
 * plugin programs SL2VL), or VL 0 for other engines' tables. */
static void child_deadlock(int fd, const ibf_osm_result_t *res)
{
	ibf_deadlock_report_t dr;
	ibf_sls_t sls, *sp = NULL;
	ibf_err_t err;
	char vls[16];

	if (res->routing && res->routing->nsls > 1) {
		ibf_sls_from_routing(res->routing, &sls);
		sp = &sls;
	}
	ibf_err_clear(&err);
	if (ibf_deadlock_check(result_lfts(res), sp, NULL, &dr, &err) !=
	    IBF_OK)
		return;
	snprintf(vls, sizeof(vls), "%u", dr.nvls);
	child_line(fd, "D", ibf_deadlock_found(&dr) ? "cyclic" : "free", vls,
		   NULL);
	ibf_deadlock_report_free(&dr);
}

static void child_main(const ibf_osm_conf_t *c, const ibf_osm_result_t *res,
		       int fd, pid_t parent)
{
	const ibf_fabric_t *f = res->fabric;
	const ibf_routing_t *r = res->routing;
	ibf_eval_routing_t er = { res->engine, result_lfts(res) };
	ibf_eval_opts_t eo;
	double t0 = now_seconds();
	char opt_note[IBF_ERR_MSG_MAX] = "";
	unsigned i;
	sigset_t all;

	/* OpenSM's handlers must not run here.  The signals that stop or
	 * poke OpenSM (a service manager sends SIGTERM to the whole group)
	 * are the parent's business: it stops this process itself, and if
	 * the thread that forked it dies, the kernel kills it. */
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			signal((int)i, SIG_DFL);
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(4); /* the parent went before PDEATHSIG was set */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	child_limits(c);
	memset(&eo, 0, sizeof(eo));
	eo.paths = eval_paths(f, r);
	eo.order = r ? r->order : NULL;
	eo.norder = r ? r->norder : 0;
	eo.seed = c->route.seed;
	eo.opt = c->eval_opt;
	eo.nthreads = 1;
	child_deadlock(fd, res);
	for (i = 0; i < c->npatterns; i++) {
		const char *spec = c->patterns[i];
		ibf_eval_t *e = NULL;
		ibf_err_t err;
		ibf_status_t st;
		char log[IBF_ERR_MSG_MAX + 128];

		if (now_seconds() - t0 > c->eval_budget) {
			child_line(fd, "B", spec, NULL, NULL);
			continue;
		}
		ibf_err_clear(&err);
		st = ibf_eval_run(f, &er, 1, &spec, 1, &eo, &e, &err);
		if (st != IBF_OK) {
			/* a degraded tree leaves pairs without an up*-down*
			 * path unrouted on purpose: say so, not just "no
			 * route" */
			if (r && r->unrouted && strstr(err.msg, "no route"))
				ibf_err_prefix(&err, "the pattern meets host "
					       "pairs this degraded tree "
					       "cannot route (%llu entries "
					       "unrouted): ",
					       (unsigned long long)r->unrouted);
			flat(err.msg);
			child_line(fd, st == IBF_ERR_NOMEM ? "M" : "E", spec,
				   err.msg, NULL);
			continue;
		}
		if (eo.opt && !e->opt_done && e->opt_note[0]) {
			/* the same reason holds for every pattern: the
			 * optimum is not tried again */
			snprintf(opt_note, sizeof(opt_note), "%s", e->opt_note);
			flat(opt_note);
			eo.opt = false;
		}
		{
			const ibf_eval_result_t *x = ibf_eval_result(e, 0, 0);
			json_object *o = pattern_json(e, spec, opt_note);

			if (x->has_opt)
				snprintf(log, sizeof(log), "index %.4f "
					 "optimum %.4f ratio %.4f min rate "
					 "%.4f", x->index, x->opt_index,
					 x->ratio, x->min_rate);
			else
				snprintf(log, sizeof(log), "index %.4f min "
					 "rate %.4f%s%s", x->index, x->min_rate,
					 opt_note[0] ? "; no MMF optimum: " : "",
					 opt_note);
			child_line(fd, "R", spec, json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PLAIN), log);
			json_object_put(o);
		}
		ibf_eval_destroy(e);
	}
	_exit(0);
}

/* ---- the worker's side of an evaluation ---------------------------------- */

typedef struct ev {
	ibf_osm_t *p;
	const ibf_osm_conf_t *c;
	const ibf_osm_result_t *res;
	json_object *pats, *skipped;
	char line[16384];
	size_t len;
	const char *current;     /* pattern running in the child */
	unsigned done;
	/* for metrics_file: the patterns evaluated */
	ibf_prom_pattern_t pm[IBF_OSM_MAX_PATTERNS];
	const char *pm_name[IBF_OSM_MAX_PATTERNS];
	unsigned npm;
} ev_t;

static void skip(ev_t *v, const char *spec, const char *why)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(spec));
	json_object_object_add(o, "why", json_object_new_string(why));
	json_object_array_add(v->skipped, o);
}

static double json_field(json_object *o, const char *key)
{
	json_object *x;

	return json_object_object_get_ex(o, key, &x) && x ?
	       json_object_get_double(x) : NAN;
}

/* A pattern's figures for metrics_file, from its line's JSON. */
static void note_pattern(ev_t *v, const char *spec, json_object *o)
{
	ibf_prom_pattern_t *m;

	if (v->npm == IBF_OSM_MAX_PATTERNS)
		return;
	m = &v->pm[v->npm];
	v->pm_name[v->npm++] = spec;
	m->index = json_field(o, "index");
	m->ratio = json_field(o, "ratio");
	m->max_link_load = json_field(o, "max_link_load");
}

static void handle_line(ev_t *v, char *l)
{
	char *f[4] = { l, NULL, NULL, NULL };
	unsigned n = 1;
	char *t;

	for (t = l; *t && n < 4; t++)
		if (*t == '\t') {
			*t = '\0';
			f[n++] = t + 1;
		}
	if (!f[1])
		return;
	if (!strcmp(f[0], "D")) {
		ibf_osm_logf(v->p, OSM_LOG_INFO, "deadlock check of %s routing "
			     "%llu: %s over %s VL(s)", v->res->engine,
			     (unsigned long long)v->res->seq,
			     !strcmp(f[1], "free") ? "acyclic" : "CYCLIC",
			     f[2] ? f[2] : "?");
		ibf_osm_metrics_deadlock(v->p, v->res, !strcmp(f[1], "free"),
					 f[2] ? (unsigned)atoi(f[2]) : 0);
		return;
	}
	v->done++;
	v->current = v->done < v->c->npatterns ?
		     v->c->patterns[v->done] : NULL;
	if (!strcmp(f[0], "R") && f[2] && f[3]) {
		json_object *o = json_tokener_parse(f[2]);

		if (o) {
			note_pattern(v, v->c->patterns[v->done - 1], o);
			json_object_array_add(v->pats, o);
		}
		ibf_osm_logf(v->p, OSM_LOG_INFO, "eval %-14s %-10s %s",
			     v->res->engine, f[1], f[3]);
	} else if (!strcmp(f[0], "B")) {
		skip(v, f[1], "budget");
	} else if (!strcmp(f[0], "M")) {
		ibf_osm_logf(v->p, OSM_LOG_ERROR, "ERR IBF11: eval of %s on "
			     "%s needs more than eval_memory_mb %u MB: "
			     "skipped", v->res->engine, f[1],
			     v->c->eval_mem_mb);
		skip(v, f[1], "memory");
	} else if (!strcmp(f[0], "E")) {
		ibf_osm_logf(v->p, OSM_LOG_ERROR, "ERR IBF10: eval of %s on "
			     "%s: %s", v->res->engine, f[1],
			     f[2] ? f[2] : "");
		skip(v, f[1], "error");
	}
}

static void take_output(ev_t *v, int fd, bool *eof)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		ssize_t i;

		for (i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (v->len + 1 < sizeof(v->line))
					v->line[v->len++] = buf[i];
				continue;
			}
			v->line[v->len] = '\0';
			handle_line(v, v->line);
			v->len = 0;
		}
	}
	if (n == 0)
		*eof = true;
}

/* The evaluation's last log line: where its report went (or why it did
 * not), so that every evaluation ends in a line of its own. */
static void write_report(ibf_osm_t *p, const ibf_osm_conf_t *c,
			 const ibf_osm_result_t *res, const ev_t *v,
			 json_object *doc)
{
	char path[IBF_OSM_PATH_MAX + 64];
	const char *text;
	ibf_ofile_t o;
	ibf_err_t err;

	if (c->report_file[0])
		snprintf(path, sizeof(path), "%s", c->report_file);
	else
		snprintf(path, sizeof(path), "%s/ibflow-eval.json",
			 export_dir(c));
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY);
	ibf_err_clear(&err);
	if (ibf_ofile_open(&o, path, &err) == IBF_OK) {
		fprintf(o.fp, "%s\n", text);
		if (ibf_ofile_commit(&o, &err) == IBF_OK) {
			ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s routing %llu "
				     "done: %u of %u patterns evaluated, "
				     "report %s", res->engine,
				     (unsigned long long)res->seq,
				     (unsigned)json_object_array_length(
					     v->pats), c->npatterns, path);
			return;
		}
	}
	ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF09: evaluation report %s: %s",
		     path, err.msg);
}

/* The deadlock verdict of the routing with sls (NULL: every packet on
 * SL 0, as MPI over UCX sends): true, false, or null if unknown. */
static json_object *deadlock_free(const ibf_routing_t *r, bool own_sls)
{
	ibf_deadlock_opts_t o = { .switches = false };
	ibf_deadlock_report_t rep;
	ibf_sls_t sls;
	ibf_err_t err;
	json_object *v;

	if (!r)
		return NULL;
	ibf_sls_from_routing(r, &sls);
	ibf_err_clear(&err);
	if (ibf_deadlock_check(r->lfts, own_sls ? &sls : NULL, &o, &rep,
			       &err) != IBF_OK)
		return NULL;
	v = json_object_new_boolean(!ibf_deadlock_found(&rep));
	ibf_deadlock_report_free(&rep);
	return v;
}

static json_object *report_doc(ev_t *v, double secs, const char *stopped)
{
	const ibf_fabric_t *f = v->res->fabric;
	json_object *doc = json_object_new_object();
	char gen[IBF_EXPORT_GEN_MAX];

	generation(v->p, v->res, gen, sizeof(gen));
	json_object_object_add(doc, "engine",
			       json_object_new_string(v->res->engine));
	json_object_object_add(doc, "routing", json_object_new_int64(
				       (int64_t)v->res->seq));
	json_object_object_add(doc, "generation",
			       json_object_new_string(gen));
	json_object_object_add(doc, "endpoints",
			       json_object_new_int64(f->nendpoints));
	json_object_object_add(doc, "switches",
			       json_object_new_int64(f->nswitches));
	json_object_object_add(doc, "lmc", json_object_new_int(f->lmc));
	json_object_object_add(doc, "paths", json_object_new_string(
		ibf_eval_paths_name(eval_paths(f, v->res->routing))));
	json_object_object_add(doc, "sls", json_object_new_int(
		v->res->routing ? (int)v->res->routing->nsls : 0));
	json_object_object_add(doc, "deadlock_free_with_sls",
			       deadlock_free(v->res->routing, true));
	json_object_object_add(doc, "deadlock_free_on_one_sl",
			       deadlock_free(v->res->routing, false));
	json_object_object_add(doc, "budget_seconds",
			       json_object_new_double(v->c->eval_budget));
	json_object_object_add(doc, "memory_mb",
			       json_object_new_int((int)v->c->eval_mem_mb));
	json_object_object_add(doc, "seconds", json_object_new_double(secs));
	json_object_object_add(doc, "stopped", stopped ?
			       json_object_new_string(stopped) : NULL);
	json_object_object_add(doc, "patterns", json_object_get(v->pats));
	json_object_object_add(doc, "skipped", json_object_get(v->skipped));
	return doc;
}

static void do_eval(ibf_osm_t *p, const ibf_osm_conf_t *c,
		    const ibf_osm_result_t *res)
{
	const ibf_fabric_t *f = res->fabric;
	double t0 = now_seconds(), t_stop = 0, t_asked = 0;
	const char *why = NULL;
	int pfd[2], status = 0;
	ev_t v = { .p = p, .c = c, .res = res };
	bool eof = false, budget = false;
	pid_t pid, self;
	unsigned i;

	if (c->eval_max_endpoints && f->nendpoints > c->eval_max_endpoints) {
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s skipped: %u "
			     "endpoints > eval_max_endpoints %u", res->engine,
			     f->nendpoints, c->eval_max_endpoints);
		return;
	}
	if (!c->npatterns) {
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s routing %llu not "
			     "run: eval_patterns names none", res->engine,
			     (unsigned long long)res->seq);
		return;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF12: no evaluation: "
			     "pipe: %s", strerror(errno));
		return;
	}
	drain_wake(p);
	self = getpid();
	pid = fork();
	if (pid < 0) {
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF12: no evaluation: "
			     "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		child_main(c, res, pfd[1], self);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	v.pats = json_object_new_array();
	v.skipped = json_object_new_array();
	v.current = c->patterns[0];
	while (!eof) {
		struct pollfd pf[2] = {
			{ pfd[0], POLLIN, 0 }, { p->wake_fd[0], POLLIN, 0 },
		};

		if (poll(pf, 2, POLL_MS) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			drain_wake(p);
		take_output(&v, pfd[0], &eof);
		if (eof)
			break;
		if ((why = stop_reason(p, &t_asked)))
			break;
		if (c->eval_budget && now_seconds() - t0 > c->eval_budget) {
			budget = true;
			break;
		}
	}
	if (!eof) {
		/* back to normal priority first: a dying process tears its
		 * memory down in its own time slices */
		if (setpriority(PRIO_PROCESS, (id_t)pid, 0)) {
			/* not allowed: it ends at its own pace */
		}
		kill(pid, SIGKILL);
		t_stop = now_seconds();
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (why) {
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s routing %llu stopped "
			     "during %s (%u of %u patterns done; stopped %.0f "
			     "ms after it was asked, process gone %.0f ms "
			     "later): %s", res->engine,
			     (unsigned long long)res->seq,
			     v.current ? v.current : "?", v.done,
			     c->npatterns, (t_stop - t_asked) * 1e3,
			     (now_seconds() - t_stop) * 1e3, why);
		json_object_put(v.pats);
		json_object_put(v.skipped);
		return;
	}
	if (budget) {
		/* the pattern running and those after it did not fit */
		for (i = v.done; i < c->npatterns; i++)
			skip(&v, c->patterns[i], "budget");
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s: eval_budget %.1f s "
			     "reached during %s: %u pattern(s) not evaluated",
			     res->engine, c->eval_budget,
			     v.current ? v.current : "?",
			     c->npatterns - v.done);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		/* a crash or an allocation the limit refused outside the
		 * library's checks: the rest of the patterns are lost */
		for (i = v.done; i < c->npatterns; i++)
			skip(&v, c->patterns[i], "evaluation process died");
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF13: evaluation of %s "
			     "ended abnormally (%s %d) during %s; "
			     "eval_memory_mb is %u", res->engine,
			     WIFSIGNALED(status) ? "signal" : "exit status",
			     WIFSIGNALED(status) ? WTERMSIG(status) :
			     WEXITSTATUS(status), v.current ? v.current : "?",
			     c->eval_mem_mb);
	} else if (json_object_array_length(v.skipped)) {
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s: %u pattern(s) "
			     "skipped (budget %.1f s, memory %u MB or errors)",
			     res->engine,
			     (unsigned)json_object_array_length(v.skipped),
			     c->eval_budget, c->eval_mem_mb);
	}
	ibf_osm_metrics_eval(p, res, v.pm_name, v.pm, v.npm,
			     (unsigned)json_object_array_length(v.skipped),
			     now_seconds() - t0);
	{
		json_object *doc = report_doc(&v, now_seconds() - t0,
					      budget ? "budget" : NULL);

		write_report(p, c, res, &v, doc);
		json_object_put(doc);
	}
	json_object_put(v.pats);
	json_object_put(v.skipped);
}

/* ---- thread ----------------------------------------------------------- */

/* OpenSM may be leaving (opensm -o exits right after its one routing)
 * or a newer routing waiting by the time the export is done: the
 * evaluation is then not started, and the log says so. */
static void eval_unless_stopped(ibf_osm_t *p, const ibf_osm_conf_t *c,
				const ibf_osm_result_t *res)
{
	const char *why = stop_reason(p, NULL);

	if (!why) {
		do_eval(p, c, res);
		return;
	}
	ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s routing %llu not run: %s "
		     "before it started", res->engine,
		     (unsigned long long)res->seq, why);
}

/* A routing still waiting for the worker when a newer one comes is never
 * exported or evaluated: said once, here.  Called with p->lock held. */
static void note_replaced(ibf_osm_t *p, const ibf_osm_result_t *old)
{
	if (old && p->conf.do_eval)
		ibf_osm_logf(p, OSM_LOG_INFO, "eval of %s routing %llu not "
			     "run: a newer routing replaced it before it "
			     "started", old->engine,
			     (unsigned long long)old->seq);
}

/* Metrics of a routing without a job (other engines' tables not read
 * back): written with the configuration as it is now. */
static void flush_metrics(ibf_osm_t *p)
{
	ibf_osm_conf_t c;
	bool have;

	pthread_mutex_lock(&p->lock);
	have = ibf_osm_conf_copy(&c, &p->conf);
	pthread_mutex_unlock(&p->lock);
	if (!have)
		return;
	ibf_osm_metrics_flush(p, &c);
	ibf_osm_conf_free(&c);
}

/* One routing: its changes against the last one, export, evaluation;
 * the metrics file follows each step. */
static void run_job(ibf_osm_t *p, const ibf_osm_conf_t *c,
		    const ibf_osm_result_t *prev, const ibf_osm_result_t *res)
{
	ibf_osm_metrics_lft_changes(p, prev, res);
	ibf_osm_metrics_flush(p, c);
	if (c->do_export) {
		ibf_osm_metrics_export(p, res, do_export(p, c, res));
		ibf_osm_metrics_flush(p, c);
	}
	if (c->do_eval)
		eval_unless_stopped(p, c, res);
	ibf_osm_metrics_flush(p, c);
}

static void *worker_main(void *arg)
{
	ibf_osm_t *p = arg;
	ibf_osm_result_t *res, *prev = NULL;
	ibf_osm_conf_t c;
	bool have, keep;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (!p->job && !p->quit && !p->metrics.dirty)
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->job) {
			bool quit = p->quit;

			pthread_mutex_unlock(&p->lock);
			flush_metrics(p);
			if (quit)
				break;
			continue;
		}
		res = p->job;
		p->job = NULL;
		p->cancel = false;
		/* this job's configuration: a reload cannot change it
		 * under the export or the evaluation */
		have = ibf_osm_conf_copy(&c, &p->conf);
		pthread_mutex_unlock(&p->lock);

		keep = false;
		if (!have) {
			ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF03: out of "
				     "memory");
		} else {
			run_job(p, &c, prev, res);
			keep = c.metrics_file[0] != '\0';
			ibf_osm_conf_free(&c);
		}
		/* kept (with metrics only: it is a second copy of the
		 * tables) to count the next routing's table changes */
		ibf_osm_result_put(p, prev);
		prev = keep ? res : NULL;
		if (!keep)
			ibf_osm_result_put(p, res);
	}
	ibf_osm_result_put(p, prev);
	return NULL;
}

ibf_status_t ibf_osm_worker_start(ibf_osm_t *p, ibf_err_t *err)
{
	if (pipe2(p->wake_fd, O_CLOEXEC | O_NONBLOCK))
		return ibf_err_set(err, IBF_ERR_IO, "cannot create the "
				   "worker's wake-up pipe: %s",
				   strerror(errno));
	if (pthread_create(&p->worker, NULL, worker_main, p)) {
		close(p->wake_fd[0]);
		close(p->wake_fd[1]);
		p->wake_fd[0] = p->wake_fd[1] = -1;
		return ibf_err_set(err, IBF_ERR_NOMEM, "cannot start the "
				   "worker thread");
	}
	p->worker_started = true;
	return IBF_OK;
}

/* With p->lock held: the work in progress is to stop (when it was asked
 * goes into the log), and a worker waiting for work looks again. */
static void cancel_locked(ibf_osm_t *p)
{
	p->cancel = true;
	p->cancel_at = now_seconds();
	pthread_cond_signal(&p->cond);
}

/* Finishes the export in progress (and of a routing still waiting: the
 * last routing before OpenSM exits is exported), stops an evaluation at
 * once. */
void ibf_osm_worker_stop(ibf_osm_t *p)
{
	if (!p->worker_started)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	cancel_locked(p);
	pthread_mutex_unlock(&p->lock);
	wake(p);
	pthread_join(p->worker, NULL);
	p->worker_started = false;
	close(p->wake_fd[0]);
	close(p->wake_fd[1]);
	p->wake_fd[0] = p->wake_fd[1] = -1;
}

void ibf_osm_worker_post(ibf_osm_t *p, ibf_osm_result_t *res)
{
	ibf_osm_result_t *old;

	if (!p->worker_started)
		return;
	pthread_mutex_lock(&p->lock);
	res->refs++;
	old = p->job;
	note_replaced(p, old);
	p->job = res;
	cancel_locked(p);
	pthread_mutex_unlock(&p->lock);
	wake(p);
	ibf_osm_result_put(p, old);
}
