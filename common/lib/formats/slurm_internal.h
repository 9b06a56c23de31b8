/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Shared by the Slurm topology.conf writer and its map readers
 * (slurm_topo.h).  Internal to libibflow. */
#ifndef IBFLOW_FORMATS_SLURM_INTERNAL_H
#define IBFLOW_FORMATS_SLURM_INTERNAL_H

#include <stdint.h>

/* A name given to something (a host, a switch), where. */
typedef struct ibf_slurm_given {
	const char *name;
	char *owner;     /* what has it: "h0001", "switch 0x..." */
	unsigned line;   /* of the map; 0: not from a map */
} ibf_slurm_given_t;

/* Sorts v by name; the first entry whose name an entry before it with
 * another owner has (that one is the entry just before), or NULL. */
const ibf_slurm_given_t *ibf_slurm_given_clash(ibf_slurm_given_t *v,
					       uint32_t n);

#endif
