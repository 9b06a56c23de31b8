/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Shared by the standalone UCX tools; see tool.h. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

/* What a rank gets beyond UCX_IBFLOW_TIMEOUT to end after a peer failed
 * (its own waits end within the timeout; then it reports and exits). */
#define SPAWN_GRACE_S 5.0

int ibf_tool_exit_for(ibf_ucx_status_t st)
{
	switch (st) {
	case IBF_UCX_ERR_INVALID:
	case IBF_UCX_ERR_CONFIG:
	case IBF_UCX_ERR_FABRIC:
	case IBF_UCX_ERR_MAP:
	case IBF_UCX_ERR_UNSUPPORTED:
	case IBF_UCX_ERR_IO:
		return EXIT_INPUT;
	default:
		return EXIT_RUNTIME;
	}
}

int ibf_tool_opt_boot_addr(void *boot, const char *prog, const char *arg)
{
	ibf_ucx_boot_params_t *bp = boot;

	if (strlen(arg) >= sizeof(bp->addr))
		return ibf_cli_usage_error(prog, "--boot: '%s' is too long",
					   arg);
	snprintf(bp->addr, sizeof(bp->addr), "%s", arg);
	return 0;
}

int ibf_tool_boot_check(const char *prog, const ibf_ucx_boot_params_t *boot,
			bool have_rank, unsigned np)
{
	if (have_rank != (boot->size != 0))
		return ibf_cli_usage_error(prog, "--rank and --size go "
					   "together");
	if (np && boot->size)
		return ibf_cli_usage_error(prog, "--np starts its own "
					   "processes: no --rank/--size");
	return 0;
}

ibf_status_t ibf_tool_err(const ibf_ucx_err_t *ue, ibf_err_t *err)
{
	return ibf_err_set(err, ue->status == IBF_UCX_ERR_NOMEM ?
			   IBF_ERR_NOMEM : IBF_ERR_IO, "%s", ue->msg);
}

/* What the processes of ibf_tool_spawn() run. */
typedef struct job {
	ibf_tool_main_t run;
	const void *args;
	const ibf_ucx_config_t *cfg;
} job_t;

static int run_job(void *ctx)
{
	const job_t *j = ctx;

	return j->run(j->args, j->cfg);
}

int ibf_tool_run(const char *prog, unsigned np, ibf_ucx_boot_params_t *boot,
		 bool fallback, ibf_tool_main_t run, const void *args)
{
	ibf_ucx_config_t *cfg = NULL;
	ibf_ucx_err_t e;
	job_t j = { run, args, NULL };
	int rc;

	if (ibf_ucx_config_read(&cfg, &e) != IBF_UCX_OK ||
	    (fallback && ibf_ucx_config_modify(cfg, "FALLBACK", "y", &e) !=
	     IBF_UCX_OK)) {
		fprintf(stderr, "%s: %s\n", prog, e.msg);
		ibf_ucx_config_release(cfg);
		return EXIT_INPUT;
	}
	j.cfg = cfg;
	rc = np ? ibf_tool_spawn(prog, np, boot, ibf_ucx_config_timeout(cfg),
				 run_job, &j) : run(args, cfg);
	ibf_ucx_config_release(cfg);
	return rc;
}

int ibf_tool_open(const char *prog, const ibf_ucx_boot_params_t *boot,
		  const ibf_ucx_config_t *cfg, unsigned flags,
		  ibf_tool_fail_t fail, ibf_tool_proc_t *p)
{
	ibf_ucx_params_t up = { 0 };
	ibf_ucx_err_t e;
	size_t len;
	int rc;

	memset(p, 0, sizeof(*p));
	p->bp = *boot;
	if (!p->bp.timeout_s)
		p->bp.timeout_s = ibf_ucx_config_timeout(cfg);
	if (ibf_ucx_boot_params_env(&p->bp, &e) != IBF_UCX_OK) {
		fprintf(stderr, "%s: %s\n", prog, e.msg);
		return EXIT_INPUT;
	}
	if (ibf_ucx_boot_open(&p->bp, &p->boot, &e) != IBF_UCX_OK)
		return fail(p->bp.rank, &e);
	memset(&up, 0, sizeof(up));
	up.oob = ibf_ucx_boot_oob(p->boot);
	up.config = cfg;
	up.flags = flags;
	if (ibf_ucx_init(&up, &p->u, &e) == IBF_UCX_OK)
		return 0;
	len = strlen(e.msg);
	if (e.status == IBF_UCX_ERR_OOB && ibf_ucx_boot_error(p->boot)[0])
		snprintf(e.msg + len, sizeof(e.msg) - len, ": %s",
			 ibf_ucx_boot_error(p->boot));
	rc = fail(p->bp.rank, &e);
	ibf_ucx_boot_close(p->boot);
	p->boot = NULL;
	return rc;
}

int ibf_tool_close(ibf_tool_proc_t *p, ibf_tool_fail_t fail, int rc)
{
	ibf_ucx_err_t e;

	if (ibf_ucx_finalize(p->u, &e) != IBF_UCX_OK && !rc)
		rc = fail(p->bp.rank, &e);
	ibf_ucx_boot_close(p->boot);
	p->u = NULL;
	p->boot = NULL;
	return rc;
}

void ibf_tool_print_sl_counts(const ibf_ucx_t *u)
{
	ibf_ucx_sl_count_t c[16];
	unsigned n = ibf_ucx_route_sl_counts(u, c);
	char line[1024];
	size_t off;

	off = (size_t)snprintf(line, sizeof(line), "rank %u: route SLs:",
			       ibf_ucx_rank(u));
	for (unsigned i = 0; i < n && off < sizeof(line); i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off,
					" SL %u sent %llu received %llu%s",
					c[i].sl,
					(unsigned long long)c[i].sent,
					(unsigned long long)c[i].received,
					i + 1 < n ? "," : "");
	printf("%s%s\n", line, n ? "" : " none (the data context)");
	fflush(stdout);
}

static bool free_port(char *addr, size_t len)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	if (fd < 0)
		return false;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	     getsockname(fd, (struct sockaddr *)&sa, &sl) == 0;
	close(fd);
	if (ok)
		snprintf(addr, len, "127.0.0.1:%u", ntohs(sa.sin_port));
	return ok;
}

/* The children of one spawn and what became of them. */
typedef struct kids {
	const char *prog;
	pid_t *pids;        /* 0 once reaped */
	unsigned np, left;
	int rc;
	int failed;         /* first rank that failed, -1 none */
} kids_t;

static void reaped(kids_t *k, unsigned i, int status)
{
	int rc = EXIT_RUNTIME;

	if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
	} else {
		fprintf(stderr, "%s: rank %u killed by signal %d\n", k->prog,
			i, WTERMSIG(status));
	}
	if (rc > k->rc)
		k->rc = rc;
	if (rc && k->failed < 0)
		k->failed = (int)i;
	k->pids[i] = 0;
	k->left--;
}

static void reap_ready(kids_t *k)
{
	int status;
	unsigned i;
	pid_t p;

	while (k->left && (p = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < k->np; i++)
			if (k->pids[i] == p)
				reaped(k, i, status);
}

/* A stopped or hung child would keep the parent forever, although its
 * peers gave up after the timeout: once one rank failed, the others get
 * the timeout and a margin to end, then they are killed (SIGKILL ends a
 * stopped process too). */
static void kill_left(kids_t *k, double grace)
{
	unsigned i;

	for (i = 0; i < k->np; i++) {
		if (!k->pids[i])
			continue;
		fprintf(stderr, "%s: rank %u still running %.0f s after rank "
			"%d failed: killed\n", k->prog, i, grace, k->failed);
		kill(k->pids[i], SIGKILL);
		waitpid(k->pids[i], NULL, 0);
		k->pids[i] = 0;
		k->left--;
	}
	k->rc = EXIT_RUNTIME > k->rc ? EXIT_RUNTIME : k->rc;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Wait for every child; SIGCHLD is blocked, so none is missed between
 * reaping and sleeping. */
static void wait_kids(kids_t *k, const sigset_t *chld, double grace)
{
	double deadline = 0;
	struct timespec ts;

	for (reap_ready(k); k->left; reap_ready(k)) {
		if (k->failed >= 0 && !deadline)
			deadline = now_s() + grace;
		if (deadline && now_s() >= deadline) {
			kill_left(k, grace);
			break;
		}
		ts.tv_sec = 1;
		ts.tv_nsec = 0;
		sigtimedwait(chld, NULL, &ts);
	}
}

int ibf_tool_spawn(const char *prog, unsigned np, ibf_ucx_boot_params_t *boot,
		   double timeout, int (*run)(void *ctx), void *ctx)
{
	kids_t k = { prog, calloc(np, sizeof(pid_t)), 0, 0, 0, -1 };
	sigset_t chld, old;
	uint32_t i;

	if (!k.pids)
		return EXIT_RUNTIME;
	if (!boot->addr[0] && !free_port(boot->addr, sizeof(boot->addr))) {
		fprintf(stderr, "%s: no free local port\n", prog);
		free(k.pids);
		return EXIT_RUNTIME;
	}
	boot->size = np;
	fflush(stdout);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	for (i = 0; i < np; i++) {
		k.pids[i] = fork();
		if (k.pids[i] == 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			boot->rank = i;
			_exit(run(ctx));
		}
		if (k.pids[i] < 0) {
			fprintf(stderr, "%s: fork: %s\n", prog,
				strerror(errno));
			k.pids[i] = 0;
			k.rc = EXIT_RUNTIME;
			k.failed = (int)i;
			break;
		}
		k.left++;
	}
	k.np = i;
	wait_kids(&k, &chld, timeout + SPAWN_GRACE_S);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(k.pids);
	return k.rc;
}
