/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Open-addressing hash index from 64-bit keys or strings to 32-bit ids.
 * Internal to libibflow: used when names and GUIDs from files are resolved,
 * never on routing hot paths.
 */
#ifndef IBFLOW_HASH_H
#define IBFLOW_HASH_H

#include <stddef.h>
#include <stdint.h>

#include <ibflow/status.h>

struct ibf_hash;

/* What a lookup returns for an absent key, and what marks an empty slot:
 * UINT32_MAX, the model's IBF_NO_ID (fabric.c checks they agree), so the
 * ids of nodes and ports can be stored and looked up as they are. */
#define IBF_HASH_NONE UINT32_MAX

/* A string-keyed index stores offsets into a caller-owned pool, so the
 * pool may move (realloc) without invalidating the index. */
struct ibf_hash *ibf_hash_create_u64(void);
struct ibf_hash *ibf_hash_create_str(const char *const *pool);
void ibf_hash_destroy(struct ibf_hash *h);

/* Insert; returns IBF_ERR_INVALID if the key is present (its value in *old). */
ibf_status_t ibf_hash_put_u64(struct ibf_hash *h, uint64_t key, uint32_t val,
			      uint32_t *old);
uint32_t ibf_hash_get_u64(const struct ibf_hash *h, uint64_t key);

/* String keys: key_off is the key's offset in the pool; val is stored. */
ibf_status_t ibf_hash_put_str(struct ibf_hash *h, uint32_t key_off,
			      uint32_t val, uint32_t *old);
uint32_t ibf_hash_get_str(const struct ibf_hash *h, const char *key);

#endif
