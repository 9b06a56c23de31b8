/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The parts of ibf_fabric_t that only the model itself touches.
 */
#ifndef IBF_MODEL_FABRIC_INTERNAL_H
#define IBF_MODEL_FABRIC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

struct ibf_fabric_priv {
	uint32_t nodes_cap, ports_cap;
	/* NodeDescriptions, NUL-terminated; offset 0 is "".  The name index
	 * holds offsets, so the pool may move when it grows. */
	char *pool;
	size_t pool_len, pool_cap;
	struct ibf_hash *by_node_guid, *by_port_guid, *by_desc;
	uint8_t *desc_shared; /* per node: another node has the same desc */
};

#endif
