/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The state the folders above the core (coll/, infer/) keep per context,
 * hung on it under keys of their own: the core holds it and frees it with
 * the context through the owner's function, without knowing what it is.
 * A handful of keys per context: a list is enough.
 */
#include "config.h"

#include <stdlib.h>

#include "core/ucx_internal.h"

struct ibf_ucxi_state {
	const ibf_ucxi_state_key_t *key;
	void *data;
	struct ibf_ucxi_state *next;
};

void *ibf_ucxi_state_get(const ibf_ucx_t *u, const ibf_ucxi_state_key_t *key)
{
	const struct ibf_ucxi_state *s;

	for (s = u->state; s; s = s->next)
		if (s->key == key)
			return s->data;
	return NULL;
}

ibf_ucx_status_t ibf_ucxi_state_put(ibf_ucx_t *u,
				    const ibf_ucxi_state_key_t *key,
				    void *data, ibf_ucx_err_t *err)
{
	struct ibf_ucxi_state *s = calloc(1, sizeof(*s));

	if (!s) {
		key->free(data);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "%s: out of "
				       "memory", key->name);
	}
	s->key = key;
	s->data = data;
	s->next = u->state;
	u->state = s;
	return IBF_UCX_OK;
}

void ibf_ucxi_state_free(ibf_ucx_t *u)
{
	struct ibf_ucxi_state *s, *next;

	for (s = u->state; s; s = next) {
		next = s->next;
		s->key->free(s->data);
		free(s);
	}
	u->state = NULL;
}
