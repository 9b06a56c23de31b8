/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Shared by the standalone UCX tools; see tool.h. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"

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

int ibf_tool_usage_error(const char *prog, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (--help for usage)\n");
	return EXIT_INPUT;
}

bool ibf_tool_parse_u32(const char *s, uint32_t *v)
{
	unsigned long x;
	char *end;

	if (!s[0] || s[0] == '-')
		return false;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (*end || errno || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

int ibf_tool_boot_option(const char *prog, int opt, const char *arg,
			 ibf_ucx_boot_params_t *boot, bool *have_rank)
{
	switch (opt) {
	case 'b':
		snprintf(boot->addr, sizeof(boot->addr), "%s", arg);
		return 0;
	case 'R':
		if (!ibf_tool_parse_u32(arg, &boot->rank))
			return ibf_tool_usage_error(prog, "--rank: '%s' is not "
						    "an unsigned integer", arg);
		*have_rank = true;
		return 0;
	default: /* 'Z' */
		if (!ibf_tool_parse_u32(arg, &boot->size) || !boot->size)
			return ibf_tool_usage_error(prog, "--size: '%s' is not "
						    "a positive integer", arg);
		return 0;
	}
}

int ibf_tool_boot_check(const char *prog, const ibf_ucx_boot_params_t *boot,
			bool have_rank)
{
	if (have_rank != (boot->size != 0))
		return ibf_tool_usage_error(prog, "%s",
					    "--rank and --size go together");
	return 0;
}

int ibf_tool_run(const char *prog, unsigned np, ibf_ucx_boot_params_t *boot,
		 int (*run)(void *ctx), void *ctx)
{
	return np ? ibf_tool_spawn(prog, np, boot, run, ctx) : run(ctx);
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

int ibf_tool_spawn(const char *prog, unsigned np, ibf_ucx_boot_params_t *boot,
		   int (*run)(void *ctx), void *ctx)
{
	pid_t *pids = calloc(np, sizeof(*pids));
	int rc = 0, status;
	uint32_t i;

	if (!pids)
		return EXIT_RUNTIME;
	if (!boot->addr[0] && !free_port(boot->addr, sizeof(boot->addr))) {
		fprintf(stderr, "%s: no free local port\n", prog);
		free(pids);
		return EXIT_RUNTIME;
	}
	boot->size = np;
	fflush(stdout);
	for (i = 0; i < np; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			boot->rank = i;
			_exit(run(ctx));
		}
		if (pids[i] < 0) {
			fprintf(stderr, "%s: fork: %s\n", prog,
				strerror(errno));
			rc = EXIT_RUNTIME;
			break;
		}
	}
	for (i = 0; i < np && pids[i] > 0; i++) {
		if (waitpid(pids[i], &status, 0) < 0)
			continue;
		if (WIFEXITED(status) && WEXITSTATUS(status) > rc)
			rc = WEXITSTATUS(status);
		else if (WIFSIGNALED(status) && rc < EXIT_RUNTIME) {
			fprintf(stderr, "%s: rank %u killed by signal %d\n",
				prog, i, WTERMSIG(status));
			rc = EXIT_RUNTIME;
		}
	}
	free(pids);
	return rc;
}
