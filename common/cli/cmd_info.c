/* PLACEHOLDER: being written in this session; replaced before commit. */
#include <stdio.h>
#include "cli.h"

int ibf_cmd_info(int argc, char **argv)
{
	fprintf(stderr, "ibflow info: not implemented\n");
	return IBF_EXIT_INPUT;
}
