/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow: dispatch `ibflow <command> [args]` through one table. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli.h"

static size_t engine_list(char *buf, size_t size)
{
	return ibf_route_engine_names(0, ", ", ", ", buf, size);
}

static const ibf_cmd_t commands[] = {
	{ "gen", ibf_cmd_gen, "generate a topology (fat trees, Slim Fly, ...)", NULL },
	{ "convert", ibf_cmd_convert, "read a topology, write it in another format", NULL },
	{ "info", ibf_cmd_info, "summarize a topology (and LFTs)", NULL },
	{ "check", ibf_cmd_check, "trace all routes through LFTs, report defects", NULL },
	{ "paths", ibf_cmd_paths, "print the hops from one host to another", NULL },
	{ "netplan", ibf_cmd_netplan, "nodes, links, LIDs and LFT routes as a line-based plan", NULL },
	{ "route", ibf_cmd_route, "compute routing tables", engine_list },
	{ "order", ibf_cmd_order, "a job's nodes in the routing's rank order (MPI, Slurm)", NULL },
	{ "slurm-topology", ibf_cmd_slurm_topology, "Slurm's topology.conf (topology/tree) of the fabric", NULL },
	{ "eval", ibf_cmd_eval, "max-min fair rates of routings on traffic patterns", NULL },
	{ "liquid", ibf_cmd_liquid, "liquid schedule of a traffic (all-to-all, files)", NULL },
	{ "sim", ibf_cmd_sim, "packet-level simulation with credit-based flow control", NULL },
	{ "probe-plan", ibf_cmd_probe_plan, "minimal rounds of latency probes", NULL },
	{ "probe-solve", ibf_cmd_probe_solve, "link latencies from measured RTTs", NULL },
	{ "infer", ibf_cmd_infer, "infer a tree topology from RTTs", NULL },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *fp)
{
	char list[128];
	size_t i;

	fprintf(fp, "usage: ibflow <command> [options]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++) {
		list[0] = '\0';
		if (commands[i].summary_list)
			commands[i].summary_list(list, sizeof(list));
		fprintf(fp, "  %-15s %s%s%s%s\n", commands[i].name,
			commands[i].summary, list[0] ? " (" : "", list,
			list[0] ? ")" : "");
	}
	fprintf(fp, "\n`ibflow <command> --help` describes a command.\n"
		    "Exit status: 0 ok, 1 defects found, 2 bad usage or input.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return IBF_EXIT_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return IBF_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ibflow %s\n", PACKAGE_VERSION);
		return IBF_EXIT_OK;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "ibflow: '%s' is not a command\n\n", argv[1]);
	usage(stderr);
	return IBF_EXIT_INPUT;
}
