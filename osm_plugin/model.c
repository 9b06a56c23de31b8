/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * OpenSM's subnet <-> the libibflow model.
 *
 * Nodes are added in OpenSM's node table order (by NodeGUID), with the LIDs
 * OpenSM assigned, the active width and speed of every link, and the CA
 * ports' LMC; routers are left out (no engine routes through them).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>
#include <iba/ib_types.h>

#include "ibflow_osm.h"

static unsigned width_lanes(uint8_t w)
{
	switch (w) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

/* LinkSpeedExtActive is 0 on ports without extended speeds; switch ports
 * other than 0 carry no CapabilityMask, so the field itself decides. */
static ibf_speed_t link_speed(const ib_port_info_t *pi)
{
	switch (ib_port_info_get_link_speed_ext_active(pi)) {
	case 1: return IBF_SPEED_FDR;
	case 2: return IBF_SPEED_EDR;
	case 4: return IBF_SPEED_HDR;
	default: break;
	}
	switch (ib_port_info_get_link_speed_active(pi)) {
	case 1: return IBF_SPEED_SDR;
	case 2: return IBF_SPEED_DDR;
	case 4: return IBF_SPEED_QDR;
	default: return IBF_SPEED_UNKNOWN;
	}
}

/* Data VLs a port supports: VLCap 1 = VL0, 2 = VL0-1, 3 = VL0-3, ... */
static unsigned port_vls(const ib_port_info_t *pi)
{
	unsigned cap = ib_port_info_get_vl_cap(pi);

	return cap >= 1 && cap <= 5 ? (cap == 5 ? 15 : 1u << (cap - 1)) : 1;
}

static bool node_routed(osm_node_t *n)
{
	uint8_t t = osm_node_get_type(n);

	return t == IB_NODE_TYPE_CA || t == IB_NODE_TYPE_SWITCH;
}

/*
 * NodeDescriptions as ibnetdiscover shows them: at most 63 characters,
 * every byte outside printable ASCII a blank.  The model, the exported
 * topology, the host order and OpenSM's log then agree with what the
 * administrator's tools print, and no raw control or non-UTF-8 byte
 * reaches a log line.
 */
static void clean_desc(char *d)
{
	d[63] = '\0';
	for (; *d; d++)
		if ((unsigned char)*d < 0x20 || (unsigned char)*d > 0x7e)
			*d = ' ';
}

static ibf_status_t add_nodes(osm_subn_t *subn, ibf_fabric_t *f,
			      ibf_err_t *err)
{
	cl_qmap_t *tbl = &subn->node_guid_tbl;
	cl_map_item_t *it;
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];
	ibf_node_id_t id;
	ibf_status_t st;

	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_node_t *n = (osm_node_t *)it;

		if (!node_routed(n))
			continue;
		memcpy(desc, n->node_desc.description,
		       IB_NODE_DESCRIPTION_SIZE);
		desc[IB_NODE_DESCRIPTION_SIZE] = '\0';
		clean_desc(desc);
		st = ibf_fabric_add_node(f, osm_node_get_type(n) ==
					 IB_NODE_TYPE_SWITCH ? IBF_NODE_SWITCH :
					 IBF_NODE_CA,
					 cl_ntoh64(osm_node_get_node_guid(n)),
					 desc, osm_node_get_num_physp(n) - 1,
					 &id, err);
		if (st != IBF_OK)
			return st;
		if (n->sw)
			f->nodes[id].enhanced_port0 =
				ib_switch_info_is_enhanced_port0(
					&n->sw->switch_info) != 0;
	}
	return IBF_OK;
}

static unsigned lmc_of(osm_port_t *port, unsigned *base)
{
	uint16_t lo = 0, hi = 0;
	unsigned lmc = 0;

	osm_port_get_lid_range_ho(port, &lo, &hi);
	while (lmc < IBF_LMC_MAX && (1u << lmc) < (unsigned)(hi - lo + 1))
		lmc++;
	*base = lo;
	return lmc;
}

/* LIDs of every port OpenSM knows (switch port 0, CA ports). */
static ibf_status_t add_lids(osm_subn_t *subn, ibf_fabric_t *f,
			     ibf_err_t *err)
{
	cl_qmap_t *tbl = &subn->port_guid_tbl;
	cl_map_item_t *it;
	ibf_status_t st;

	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_port_t *port = (osm_port_t *)it;
		osm_node_t *n = port->p_node;
		unsigned base, lmc, num;
		ibf_node_id_t id;

		if (!n || !node_routed(n) || !port->p_physp)
			continue;
		id = ibf_fabric_node_by_guid(f,
				cl_ntoh64(osm_node_get_node_guid(n)));
		if (id == IBF_NO_ID)
			continue;
		lmc = lmc_of(port, &base);
		if (!base)
			continue; /* no LID yet: the port is not routed */
		num = osm_physp_get_port_num(port->p_physp);
		st = ibf_fabric_set_port(f, id, num,
					 cl_ntoh64(port->guid), base,
					 ibf_node_is_switch(f, id) ? 0 : lmc,
					 err);
		if (st != IBF_OK)
			return st;
	}
	return IBF_OK;
}

static ibf_status_t add_links(osm_subn_t *subn, ibf_fabric_t *f,
			      unsigned *min_vls, ibf_err_t *err)
{
	cl_qmap_t *tbl = &subn->node_guid_tbl;
	cl_map_item_t *it;
	ibf_status_t st;
	unsigned vls = 15;

	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_node_t *n = (osm_node_t *)it;
		ibf_node_id_t a, b;
		unsigned i, np;

		if (!node_routed(n))
			continue;
		a = ibf_fabric_node_by_guid(f,
				cl_ntoh64(osm_node_get_node_guid(n)));
		np = osm_node_get_num_physp(n);
		for (i = 1; i < np; i++) {
			osm_physp_t *pp = osm_node_get_physp_ptr(n, i);
			osm_physp_t *rp;
			osm_node_t *rn;
			const ib_port_info_t *pi;

			if (!pp || !(rp = osm_physp_get_remote(pp)))
				continue;
			rn = osm_physp_get_node_ptr(rp);
			if (!rn || !node_routed(rn))
				continue;
			b = ibf_fabric_node_by_guid(f,
					cl_ntoh64(osm_node_get_node_guid(rn)));
			if (a == IBF_NO_ID || b == IBF_NO_ID)
				continue;
			/* Every link is seen from both ends: add it once. */
			if (a > b || (a == b && i > osm_physp_get_port_num(rp)))
				continue;
			pi = &pp->port_info;
			if (ibf_node_is_switch(f, a) && ibf_node_is_switch(f, b)
			    && port_vls(pi) < vls)
				vls = port_vls(pi);
			st = ibf_fabric_link(f, a, i, b,
					     osm_physp_get_port_num(rp),
					     width_lanes(pi->link_width_active),
					     link_speed(pi), err);
			if (st != IBF_OK)
				return st;
		}
	}
	*min_vls = vls;
	return IBF_OK;
}

ibf_status_t ibf_osm_build_fabric(osm_subn_t *subn, ibf_fabric_t **out,
				  unsigned *min_vls, ibf_err_t *err)
{
	ibf_finalize_opts_t fo = { .lmc = subn->opt.lmc };
	ibf_fabric_t *f = NULL;
	ibf_status_t st;

	*out = NULL;
	st = ibf_fabric_create(&f);
	if (st != IBF_OK)
		return ibf_err_set(err, st, "out of memory");
	st = add_nodes(subn, f, err);
	if (st == IBF_OK)
		st = add_lids(subn, f, err);
	if (st == IBF_OK)
		st = add_links(subn, f, min_vls, err);
	if (st == IBF_OK)
		st = ibf_fabric_finalize(f, &fo, err);
	if (st != IBF_OK) {
		ibf_err_prefix(err, "subnet model: ");
		ibf_fabric_destroy(f);
		return st;
	}
	*out = f;
	return IBF_OK;
}

static osm_switch_t *find_switch(osm_subn_t *subn, const ibf_fabric_t *f,
				 uint32_t s)
{
	return osm_get_switch_by_guid(subn,
			cl_hton64(f->nodes[f->switches[s]].guid));
}

ibf_status_t ibf_osm_write_lfts(osm_subn_t *subn, const ibf_routing_t *r,
				ibf_err_t *err)
{
	const ibf_fabric_t *f = r->fabric;
	uint32_t s;
	unsigned lid;

	if (cl_qmap_count(&subn->sw_guid_tbl) != f->nswitches)
		return ibf_err_set(err, IBF_ERR_INVALID, "OpenSM has %u "
				   "switches, the model %u",
				   (unsigned)cl_qmap_count(&subn->sw_guid_tbl),
				   f->nswitches);
	for (s = 0; s < f->nswitches; s++) {
		osm_switch_t *sw = find_switch(subn, f, s);

		if (!sw || !sw->new_lft || sw->lft_size <= f->lid_top ||
		    sw->max_lid_ho < f->lid_top)
			return ibf_err_set(err, IBF_ERR_INVALID, "switch "
					   "0x%016llx has no table for LIDs "
					   "up to %u",
					   (unsigned long long)
					   f->nodes[f->switches[s]].guid,
					   f->lid_top);
	}
	for (s = 0; s < f->nswitches; s++) {
		osm_switch_t *sw = find_switch(subn, f, s);

		for (lid = 1; lid <= f->lid_top; lid++)
			sw->new_lft[lid] = ibf_lfts_get(r->lfts, s, lid);
	}
	return IBF_OK;
}

ibf_status_t ibf_osm_read_lfts(osm_subn_t *subn, const ibf_fabric_t *f,
			       ibf_lfts_t **out, ibf_err_t *err)
{
	ibf_lfts_t *l;
	uint32_t s;
	unsigned lid;

	if (ibf_lfts_create(f, &l) != IBF_OK)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (s = 0; s < f->nswitches; s++) {
		osm_switch_t *sw = find_switch(subn, f, s);
		const uint8_t *t = sw ? (sw->new_lft ? sw->new_lft : sw->lft)
				      : NULL;

		if (!t) {
			ibf_lfts_destroy(l);
			return ibf_err_set(err, IBF_ERR_INVALID, "switch "
					   "0x%016llx has no table",
					   (unsigned long long)
					   f->nodes[f->switches[s]].guid);
		}
		for (lid = 1; lid <= f->lid_top && lid < sw->lft_size; lid++)
			ibf_lfts_set(l, s, lid, t[lid]);
	}
	*out = l;
	return IBF_OK;
}
