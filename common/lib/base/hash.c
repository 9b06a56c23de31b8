/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Linear-probing hash index; see hash.h. */
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>


struct ibf_hash {
	uint64_t *keys;    /* u64 key, or string offset in the pool */
	uint32_t *vals;    /* IBF_HASH_NONE marks an empty slot */
	size_t cap;        /* power of two */
	size_t len;
	const char *const *pool; /* NULL for u64 keys */
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return mix64(h);
}

static struct ibf_hash *hash_create(const char *const *pool)
{
	struct ibf_hash *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->cap = 64;
	h->pool = pool;
	h->keys = malloc(h->cap * sizeof(*h->keys));
	h->vals = malloc(h->cap * sizeof(*h->vals));
	if (!h->keys || !h->vals) {
		ibf_hash_destroy(h);
		return NULL;
	}
	memset(h->vals, 0xff, h->cap * sizeof(*h->vals));
	return h;
}

struct ibf_hash *ibf_hash_create_u64(void)
{
	return hash_create(NULL);
}

struct ibf_hash *ibf_hash_create_str(const char *const *pool)
{
	return hash_create(pool);
}

void ibf_hash_destroy(struct ibf_hash *h)
{
	if (!h)
		return;
	free(h->keys);
	free(h->vals);
	free(h);
}

static uint64_t slot_hash(const struct ibf_hash *h, uint64_t key)
{
	return h->pool ? hash_str(*h->pool + key) : mix64(key);
}

static int keys_equal(const struct ibf_hash *h, uint64_t stored,
		      uint64_t key, const char *skey)
{
	if (!h->pool)
		return stored == key;
	return strcmp(*h->pool + stored, skey) == 0;
}

/* Slot holding key, or the empty slot where it would go. */
static size_t find_slot(const struct ibf_hash *h, uint64_t hv, uint64_t key,
			const char *skey)
{
	size_t mask = h->cap - 1;
	size_t i = hv & mask;

	while (h->vals[i] != IBF_HASH_NONE && !keys_equal(h, h->keys[i], key, skey))
		i = (i + 1) & mask;
	return i;
}

static ibf_status_t grow(struct ibf_hash *h)
{
	size_t old_cap = h->cap, i;
	uint64_t *old_keys = h->keys;
	uint32_t *old_vals = h->vals;

	h->cap *= 2;
	h->keys = malloc(h->cap * sizeof(*h->keys));
	h->vals = malloc(h->cap * sizeof(*h->vals));
	if (!h->keys || !h->vals) {
		free(h->keys);
		free(h->vals);
		h->keys = old_keys;
		h->vals = old_vals;
		h->cap = old_cap;
		return IBF_ERR_NOMEM;
	}
	memset(h->vals, 0xff, h->cap * sizeof(*h->vals));
	for (i = 0; i < old_cap; i++) {
		size_t j;

		if (old_vals[i] == IBF_HASH_NONE)
			continue;
		j = slot_hash(h, old_keys[i]) & (h->cap - 1);
		while (h->vals[j] != IBF_HASH_NONE)
			j = (j + 1) & (h->cap - 1);
		h->keys[j] = old_keys[i];
		h->vals[j] = old_vals[i];
	}
	free(old_keys);
	free(old_vals);
	return IBF_OK;
}

static ibf_status_t put(struct ibf_hash *h, uint64_t key, const char *skey,
			uint32_t val, uint32_t *old)
{
	size_t i;

	if ((h->len + 1) * 2 > h->cap && grow(h) != IBF_OK)
		return IBF_ERR_NOMEM;
	i = find_slot(h, h->pool ? hash_str(skey) : mix64(key), key, skey);
	if (h->vals[i] != IBF_HASH_NONE) {
		if (old)
			*old = h->vals[i];
		return IBF_ERR_INVALID;
	}
	h->keys[i] = key;
	h->vals[i] = val;
	h->len++;
	return IBF_OK;
}

ibf_status_t ibf_hash_put_u64(struct ibf_hash *h, uint64_t key, uint32_t val,
			      uint32_t *old)
{
	return put(h, key, NULL, val, old);
}

ibf_status_t ibf_hash_put_str(struct ibf_hash *h, uint32_t key_off,
			      uint32_t val, uint32_t *old)
{
	return put(h, key_off, *h->pool + key_off, val, old);
}

uint32_t ibf_hash_get_u64(const struct ibf_hash *h, uint64_t key)
{
	return h->vals[find_slot(h, mix64(key), key, NULL)];
}

uint32_t ibf_hash_get_str(const struct ibf_hash *h, const char *key)
{
	return h->vals[find_slot(h, hash_str(key), 0, key)];
}
