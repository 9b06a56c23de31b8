/* PLACEHOLDER: being written in this session; replaced before commit. */
#include <stdio.h>
#include "cli.h"

int ibf_cmd_probe_solve(int argc, char **argv)
{
	fprintf(stderr, "ibflow probe_solve: not implemented\n");
	return IBF_EXIT_INPUT;
}
