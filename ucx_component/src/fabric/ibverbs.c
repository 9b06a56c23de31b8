/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The InfiniBand ports of this process, from libibverbs: port GUID (GID 0's
 * interface id) and LID of every active port whose link layer is
 * InfiniBand and that UCX_IBFLOW_NET_DEVICES allows ("dev:port").  RoCE
 * and soft-RoCE ports (link layer Ethernet) carry no LID and are found
 * through the address map instead.
 */
#include "config.h"

#include <endian.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fabric/map.h"

static void port_of(const ibf_fabric_t *f, uint64_t guid, unsigned lid,
		    ibf_port_id_t *out)
{
	ibf_port_id_t p = ibf_fabric_port_by_guid(f, guid);

	if (p == IBF_NO_ID && lid)
		p = ibf_fabric_lid_owner(f, lid);
	if (p != IBF_NO_ID &&
	    ibf_node(f, ibf_port(f, p)->node)->type != IBF_NODE_CA)
		p = IBF_NO_ID;
	*out = p;
}

static void scan_device(struct ibv_device *dev, const ibf_ucx_config_t *cfg,
			const ibf_fabric_t *f, ibf_port_id_t *ports,
			char (*src)[IBF_UCXI_SRC_MAX], unsigned max,
			unsigned *n, char *why, size_t whylen)
{
	const char *name = ibv_get_device_name(dev);
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibv_device_attr da;
	unsigned p;

	if (!ctx)
		return;
	if (ibv_query_device(ctx, &da) != 0) {
		ibv_close_device(ctx);
		return;
	}
	for (p = 1; p <= da.phys_port_cnt; p++) {
		struct ibv_port_attr pa;
		union ibv_gid gid;
		char spec[96];
		ibf_port_id_t port;
		uint64_t guid;

		snprintf(spec, sizeof(spec), "%s:%u", name, p);
		if (ibv_query_port(ctx, (uint8_t)p, &pa) != 0 ||
		    pa.link_layer != IBV_LINK_LAYER_INFINIBAND ||
		    pa.state != IBV_PORT_ACTIVE ||
		    !ibf_ucxi_netdev_allowed(cfg, spec) ||
		    ibv_query_gid(ctx, (uint8_t)p, 0, &gid) != 0)
			continue;
		guid = be64toh(gid.global.interface_id);
		port_of(f, guid, pa.lid, &port);
		if (port == IBF_NO_ID) {
			snprintf(why, whylen, "InfiniBand port %s (GUID "
				 "0x%016llx, LID %u) is not a CA port of the "
				 "fabric", spec, (unsigned long long)guid,
				 pa.lid);
			continue;
		}
		if (*n < max) {
			ports[*n] = port;
			snprintf(src[*n], IBF_UCXI_SRC_MAX, "ibverbs %.80s", spec);
		}
		(*n)++;
	}
	ibv_close_device(ctx);
}

void ibf_ucxi_ib_ports(const ibf_ucx_config_t *cfg, const ibf_fabric_t *f,
		       ibf_port_id_t *ports, char (*src)[IBF_UCXI_SRC_MAX],
		       unsigned max, unsigned *n, char *why, size_t whylen)
{
	struct ibv_device **list;
	int i, nd = 0;

	*n = 0;
	list = ibv_get_device_list(&nd);
	if (!list)
		return;
	for (i = 0; i < nd; i++)
		scan_device(list[i], cfg, f, ports, src, max, n, why, whylen);
	ibv_free_device_list(list);
}
