/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The all-to-all variants, one file each, in the order the selection
 * (alltoall.c) tries them.  A new variant is a file defining its
 * ibf_ucxi_a2a_variant_t and a line here.
 */
#include "config.h"

#include "coll/a2a_internal.h"

const ibf_ucxi_a2a_variant_t *const ibf_ucxi_a2a_variants[] = {
	&ibf_ucxi_a2a_links,
	&ibf_ucxi_a2a_ready,
	&ibf_ucxi_a2a_barrier,
	&ibf_ucxi_a2a_pairwise,
	NULL
};
