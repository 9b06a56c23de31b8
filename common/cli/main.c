/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow: dispatch `ibflow <command> [args]` through one table. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli.h"

static const ibf_cmd_t commands[] = {
	{ "gen", ibf_cmd_gen, "generate a topology (fat trees, Slim Fly, ...)" },
	{ "convert", ibf_cmd_convert, "read a topology, write it in another format" },
	{ "info", ibf_cmd_info, "summarize a topology (and LFTs)" },
	{ "check", ibf_cmd_check, "trace all routes through LFTs, report defects" },
	{ "paths", ibf_cmd_paths, "print the hops from one host to another" },
	{ "netplan", ibf_cmd_netplan, "nodes, links, LIDs and LFT routes as a line-based plan" },
	{ "route", ibf_cmd_route, "compute routing tables (dmodk, uapr, layered, minhop)" },
	{ "order", ibf_cmd_order, "a job's nodes in the routing's rank order (MPI, Slurm)" },
	{ "slurm-topology", ibf_cmd_slurm_topology, "Slurm's topology.conf (topology/tree) of the fabric" },
	{ "eval", ibf_cmd_eval, "max-min fair rates of routings on traffic patterns" },
	{ "liquid", ibf_cmd_liquid, "liquid schedule of a traffic (all-to-all, files)" },
	{ "sim", ibf_cmd_sim, "packet-level simulation with credit-based flow control" },
	{ "probe-plan", ibf_cmd_probe_plan, "minimal rounds of latency probes" },
	{ "probe-solve", ibf_cmd_probe_solve, "link latencies from measured RTTs" },
	{ "infer", ibf_cmd_infer, "infer a tree topology from RTTs" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: ibflow <command> [options]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(fp, "  %-15s %s\n", commands[i].name,
			commands[i].summary);
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
