/* PLACEHOLDER: being written in this session; replaced before commit. */
#include <stdio.h>
#include "cli.h"

int ibf_cmd_eval(int argc, char **argv)
{
	fprintf(stderr, "ibflow eval: not implemented\n");
	return IBF_EXIT_INPUT;
}
