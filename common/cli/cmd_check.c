/* PLACEHOLDER: being written in this session; replaced before commit. */
#include <stdio.h>
#include "cli.h"

int ibf_cmd_check(int argc, char **argv)
{
	fprintf(stderr, "ibflow check: not implemented\n");
	return IBF_EXIT_INPUT;
}
