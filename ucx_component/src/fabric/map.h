/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Maps from what a process can see of itself to fabric endpoints:
 * UCX_IBFLOW_HOSTMAP and the testbed's address map (private).
 */
#ifndef IBFLOW_UCX_MAP_H
#define IBFLOW_UCX_MAP_H

#include "core/ucx_internal.h"

typedef enum ibf_ucxi_key {
	IBF_UCXI_KEY_RANK,     /* rank:N */
	IBF_UCXI_KEY_ADDR,     /* an IPv4 or IPv6 address */
	IBF_UCXI_KEY_NAME,     /* a hostname or an interface name */
} ibf_ucxi_key_t;

typedef struct ibf_ucxi_map_entry {
	ibf_ucxi_key_t type;
	char key[128];         /* addresses in canonical text form */
	uint32_t rank;
	ibf_port_id_t port;
	unsigned line;
} ibf_ucxi_map_entry_t;

typedef struct ibf_ucxi_map {
	char *path;
	ibf_ucxi_map_entry_t *e;
	uint32_t n;
} ibf_ucxi_map_t;

/* Read a map; every endpoint must resolve in f (FILE:LINE errors). */
ibf_ucx_status_t ibf_ucxi_map_read(const char *path, const ibf_fabric_t *f,
				   ibf_ucxi_map_t *m, ibf_ucx_err_t *err);
void ibf_ucxi_map_free(ibf_ucxi_map_t *m);

/* This process's interfaces: name and address (canonical text). */
typedef struct ibf_ucxi_ifaddr {
	char ifname[64];
	char addr[64];
} ibf_ucxi_ifaddr_t;

/* Interfaces with an address, restricted to the netdevs behind
 * UCX_IBFLOW_NET_DEVICES when it names any (RDMA devices are followed
 * to their network device); loopback left out. */
ibf_ucx_status_t ibf_ucxi_ifaddrs(const ibf_ucx_config_t *cfg,
				  ibf_ucxi_ifaddr_t **out, uint32_t *n,
				  ibf_ucx_err_t *err);

/* Is "dev:port" (or an interface name) allowed by NET_DEVICES? */
bool ibf_ucxi_netdev_allowed(const ibf_ucx_config_t *cfg, const char *name);

/* InfiniBand ports (link layer IB, active, allowed by NET_DEVICES) that
 * are CA ports of f: *n of them in ports[] (max), described in src. */
void ibf_ucxi_ib_ports(const ibf_ucx_config_t *cfg, const ibf_fabric_t *f,
		       ibf_port_id_t *ports, char (*src)[IBF_UCXI_SRC_MAX],
		       unsigned max, unsigned *n, char *why, size_t whylen);

#endif
