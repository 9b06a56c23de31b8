/* PLACEHOLDER: being written in this session; replaced before commit. */
#include <stdio.h>
#include "cli.h"

int ibf_cmd_convert(int argc, char **argv)
{
	fprintf(stderr, "ibflow convert: not implemented\n");
	return IBF_EXIT_INPUT;
}
