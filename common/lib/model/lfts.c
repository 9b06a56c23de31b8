/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <ibflow/lfts.h>

#include <stdlib.h>
#include <string.h>

ibf_status_t ibf_lfts_create(const ibf_fabric_t *f, ibf_lfts_t **out)
{
	ibf_lfts_t *l;
	size_t n;

	*out = NULL;
	if (!f->finalized)
		return IBF_ERR_INVALID;
	l = calloc(1, sizeof(*l));
	if (!l)
		return IBF_ERR_NOMEM;
	l->fabric = f;
	l->nswitches = f->nswitches;
	l->stride = f->lid_top + 1;
	n = (size_t)l->nswitches * l->stride;
	l->port = malloc(n ? n : 1);
	l->has_table = calloc(l->nswitches ? l->nswitches : 1, 1);
	if (!l->port || !l->has_table) {
		ibf_lfts_destroy(l);
		return IBF_ERR_NOMEM;
	}
	memset(l->port, IBF_LFT_NO_PORT, n);
	*out = l;
	return IBF_OK;
}

void ibf_lfts_destroy(ibf_lfts_t *l)
{
	if (!l)
		return;
	free(l->port);
	free(l->has_table);
	free(l);
}
