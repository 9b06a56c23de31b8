/* PLACEHOLDER: being written in this session; replaced before commit. */
#include <stdio.h>
#include "cli.h"

int ibf_cmd_route(int argc, char **argv)
{
	fprintf(stderr, "ibflow route: not implemented\n");
	return IBF_EXIT_INPUT;
}
