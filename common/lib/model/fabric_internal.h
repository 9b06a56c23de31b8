/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The parts of ibf_fabric_t that only the model itself touches.
 */
#ifndef IBFLOW_MODEL_FABRIC_INTERNAL_H
#define IBFLOW_MODEL_FABRIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ibflow/fabric.h>

struct ibf_fabric_priv {
	uint32_t nodes_cap, ports_cap;
	/* NodeDescriptions, NUL-terminated; offset 0 is "".  The name index
	 * holds offsets, so the pool may move when it grows. */
	char *pool;
	size_t pool_len, pool_cap;
	struct ibf_hash *by_node_guid, *by_port_guid, *by_desc;
	uint8_t *desc_shared; /* per node: another node has the same desc */
	char note[IBF_ERR_MSG_MAX]; /* ibf_fabric_note */
};

struct ibf_fabric;
struct ibf_port;

/* A port that must carry a LID: switch port 0, connected CA port. */
bool ibf_port_needs_lid(const struct ibf_fabric *f, const struct ibf_port *p);

/* Give every port that needs one a LID, in the order asked for
 * (lid_assign.c); sets lids_assumed and sm_port. */
ibf_status_t ibf_lids_assign(struct ibf_fabric *f, unsigned lmc,
			     ibf_lid_order_t order, ibf_err_t *err);

#endif
