/* PLACEHOLDER: being written in this session; replaced before commit. */
#include <stdio.h>
#include "cli.h"

int ibf_cmd_liquid(int argc, char **argv)
{
	fprintf(stderr, "ibflow liquid: not implemented\n");
	return IBF_EXIT_INPUT;
}
