/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The fabric model: construction, finalization, lookups.  See fabric.h. */
#include <ibflow/fabric.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "model/fabric_internal.h"

/* Node and port ids go into the hash indexes as they are; a lookup that
 * misses must read as "no id". */
_Static_assert(IBF_HASH_NONE == IBF_NO_ID, "hash miss is not IBF_NO_ID");

#define LID_SPACE (IBF_LID_UCAST_MAX + 1u)

/* GUIDs assigned at finalize when the input had none: a fixed OUI-like
 * prefix and the node id, leaving the low byte for port numbers. */
#define IBF_AUTO_GUID_BASE 0x0002c90300000000ULL

ibf_status_t ibf_fabric_create(ibf_fabric_t **out)
{
	ibf_fabric_t *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return IBF_ERR_NOMEM;
	f->priv = calloc(1, sizeof(*f->priv));
	if (!f->priv) {
		free(f);
		return IBF_ERR_NOMEM;
	}
	f->lid_port = malloc(LID_SPACE * sizeof(*f->lid_port));
	f->priv->pool = malloc(f->priv->pool_cap = 4096);
	f->priv->by_node_guid = ibf_hash_create_u64();
	f->priv->by_port_guid = ibf_hash_create_u64();
	f->priv->by_desc = ibf_hash_create_str((const char *const *)&f->priv->pool);
	if (!f->lid_port || !f->priv->pool || !f->priv->by_node_guid || !f->priv->by_port_guid ||
	    !f->priv->by_desc) {
		ibf_fabric_destroy(f);
		return IBF_ERR_NOMEM;
	}
	memset(f->lid_port, 0xff, LID_SPACE * sizeof(*f->lid_port));
	f->priv->pool[0] = '\0';
	f->priv->pool_len = 1; /* offset 0 is the empty string */
	*out = f;
	return IBF_OK;
}

void ibf_fabric_destroy(ibf_fabric_t *f)
{
	if (!f)
		return;
	free(f->nodes);
	free(f->ports);
	free(f->lid_port);
	free(f->switches);
	free(f->switch_index);
	free(f->endpoints);
	free(f->endpoint_index);
	if (f->priv) {
		free(f->priv->pool);
		free(f->priv->desc_shared);
		ibf_hash_destroy(f->priv->by_node_guid);
		ibf_hash_destroy(f->priv->by_port_guid);
		ibf_hash_destroy(f->priv->by_desc);
		free(f->priv);
	}
	free(f);
}

const char *ibf_fabric_note(const ibf_fabric_t *f)
{
	return f->priv->note;
}

void ibf_fabric_set_note(ibf_fabric_t *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->priv->note, sizeof(f->priv->note), fmt, ap);
	va_end(ap);
}

const char *ibf_node_desc(const ibf_fabric_t *f, ibf_node_id_t n)
{
	return f->priv->pool + f->nodes[n].desc;
}

static int pool_add(ibf_fabric_t *f, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (f->priv->pool_len + n > UINT32_MAX)
		return -1;
	p = ibf_array_grow(f->priv->pool, &f->priv->pool_cap,
			   f->priv->pool_len + n, 1);
	if (!p)
		return -1;
	f->priv->pool = p;
	memcpy(f->priv->pool + f->priv->pool_len, s, n);
	*off = (uint32_t)f->priv->pool_len;
	f->priv->pool_len += n;
	return 0;
}

static ibf_status_t check_open(const ibf_fabric_t *f, ibf_err_t *err)
{
	if (f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "fabric is finalized and read-only");
	return IBF_OK;
}

ibf_status_t ibf_fabric_add_node(ibf_fabric_t *f, ibf_node_type_t type,
				 uint64_t guid, const char *desc,
				 unsigned nports, ibf_node_id_t *id,
				 ibf_err_t *err)
{
	ibf_node_id_t n = f->nnodes;
	uint32_t first = f->nports, old, p;
	ibf_node_t *node, *nodes;
	ibf_port_t *ports;
	ibf_status_t st;

	if ((st = check_open(f, err)) != IBF_OK)
		return st;
	if (type != IBF_NODE_CA && type != IBF_NODE_SWITCH &&
	    type != IBF_NODE_ROUTER)
		return ibf_err_set(err, IBF_ERR_INVALID, "bad node type %d",
				   (int)type);
	if (nports < 1 || nports > IBF_MAX_PORTS)
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "node \"%s\": %u ports (must be 1..%u)",
				   desc ? desc : "", nports, IBF_MAX_PORTS);
	if (f->nnodes >= IBF_NO_ID - 1 ||
	    (uint64_t)f->nports + nports + 1 >= IBF_NO_ID)
		return ibf_err_set(err, IBF_ERR_RANGE, "too many nodes or ports");
	if (guid) {
		st = ibf_hash_put_u64(f->priv->by_node_guid, guid, n, &old);
		if (st == IBF_ERR_INVALID)
			return ibf_err_set(err, st,
					   "duplicate node GUID 0x%016" PRIx64
					   " (also node \"%s\")",
					   guid, ibf_node_desc(f, old));
		if (st != IBF_OK)
			return ibf_err_set(err, st, "out of memory");
	}
	nodes = ibf_array_grow32(f->nodes, &f->priv->nodes_cap, (uint64_t)n + 1,
				 sizeof(*nodes));
	if (nodes)
		f->nodes = nodes;
	ports = ibf_array_grow32(f->ports, &f->priv->ports_cap,
				 (uint64_t)first + nports + 1, sizeof(*ports));
	if (ports)
		f->ports = ports;
	if (!nodes || !ports)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	node = &f->nodes[n];
	memset(node, 0, sizeof(*node));
	if (pool_add(f, desc ? desc : "", &node->desc))
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	node->guid = guid;
	node->type = (uint8_t)type;
	node->nports = (uint8_t)nports;
	node->first_port = first;
	for (p = 0; p <= nports; p++) {
		ibf_port_t *port = &f->ports[first + p];

		memset(port, 0, sizeof(*port));
		port->peer = IBF_NO_ID;
		port->node = n;
		port->num = (uint8_t)p;
		port->state = IBF_PORT_DOWN;
	}
	f->nnodes = n + 1;
	f->nports = first + nports + 1;
	if (id)
		*id = n;
	return IBF_OK;
}

static ibf_status_t check_port(const ibf_fabric_t *f, ibf_node_id_t node,
			       unsigned port, bool allow_zero, ibf_err_t *err)
{
	if (node >= f->nnodes)
		return ibf_err_set(err, IBF_ERR_NOT_FOUND, "no node id %u",
				   node);
	if (port > f->nodes[node].nports || (!allow_zero && port == 0))
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "node \"%s\" has no port %u (ports 1..%u)",
				   ibf_node_desc(f, node), port,
				   f->nodes[node].nports);
	return IBF_OK;
}

static ibf_status_t claim_lids(ibf_fabric_t *f, ibf_port_id_t p, unsigned lid,
			       unsigned lmc, ibf_err_t *err)
{
	unsigned n = 1u << lmc, i;

	if (lid == 0 || lid + n - 1 > IBF_LID_UCAST_MAX)
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "LID %u with LMC %u is outside the unicast "
				   "range 1..%u", lid, lmc, IBF_LID_UCAST_MAX);
	if (lid & (n - 1))
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "base LID %u is not aligned to 2^LMC = %u",
				   lid, n);
	for (i = 0; i < n; i++) {
		ibf_port_id_t owner = f->lid_port[lid + i];

		if (owner != IBF_NO_ID && owner != p)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "LID %u is already used by \"%s\" "
					   "port %u", lid + i,
					   ibf_node_desc(f, f->ports[owner].node),
					   f->ports[owner].num);
	}
	for (i = 0; i < n; i++)
		f->lid_port[lid + i] = p;
	return IBF_OK;
}

static void release_lids(ibf_fabric_t *f, const ibf_port_t *port)
{
	unsigned i;

	if (!port->lid)
		return;
	for (i = 0; i < (1u << port->lmc); i++)
		f->lid_port[port->lid + i] = IBF_NO_ID;
	f->nlid_ports--;
}

ibf_status_t ibf_fabric_set_port(ibf_fabric_t *f, ibf_node_id_t node,
				 unsigned port, uint64_t guid, unsigned lid,
				 unsigned lmc, ibf_err_t *err)
{
	ibf_port_id_t p;
	ibf_port_t *pp;
	ibf_status_t st;
	uint32_t old;

	if ((st = check_open(f, err)) != IBF_OK ||
	    (st = check_port(f, node, port, true, err)) != IBF_OK)
		return st;
	p = ibf_node_port_id(f, node, port);
	pp = &f->ports[p];
	if (lmc > IBF_LMC_MAX)
		return ibf_err_set(err, IBF_ERR_RANGE, "LMC %u (must be 0..7)",
				   lmc);
	if (ibf_node_is_switch(f, node) && lid && port != 0)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "switch \"%s\": only port 0 has a LID",
				   ibf_node_desc(f, node));
	if (guid && guid != pp->guid) {
		if (pp->guid)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "\"%s\" port %u: GUID given twice",
					   ibf_node_desc(f, node), port);
		/* Switch ports share the switch's port GUID: index port 0. */
		if (!ibf_node_is_switch(f, node) || port == 0) {
			st = ibf_hash_put_u64(f->priv->by_port_guid, guid, p, &old);
			if (st == IBF_ERR_INVALID)
				return ibf_err_set(err, st,
						   "duplicate port GUID 0x%016"
						   PRIx64 " (also \"%s\")", guid,
						   ibf_node_desc(f,
							f->ports[old].node));
			if (st != IBF_OK)
				return ibf_err_set(err, st, "out of memory");
		}
		pp->guid = guid;
	}
	if (lid && (lid != pp->lid || lmc != pp->lmc)) {
		ibf_port_t saved = *pp;

		release_lids(f, pp);
		st = claim_lids(f, p, lid, lmc, err);
		if (st != IBF_OK) {
			if (saved.lid) {
				claim_lids(f, p, saved.lid, saved.lmc, NULL);
				f->nlid_ports++;
			}
			return st;
		}
		pp->lid = (uint16_t)lid;
		pp->lmc = (uint8_t)lmc;
		f->nlid_ports++;
	}
	return IBF_OK;
}

ibf_status_t ibf_fabric_link(ibf_fabric_t *f, ibf_node_id_t a, unsigned pa,
			     ibf_node_id_t b, unsigned pb, unsigned width,
			     ibf_speed_t speed, ibf_err_t *err)
{
	ibf_port_id_t ia, ib;
	ibf_port_t *A, *B;
	ibf_status_t st;

	if ((st = check_open(f, err)) != IBF_OK ||
	    (st = check_port(f, a, pa, false, err)) != IBF_OK ||
	    (st = check_port(f, b, pb, false, err)) != IBF_OK)
		return st;
	if (width != 0 && width != 1 && width != 2 && width != 4 &&
	    width != 8 && width != 12)
		return ibf_err_set(err, IBF_ERR_RANGE, "link width %ux", width);
	if ((unsigned)speed >= IBF_SPEED_COUNT)
		return ibf_err_set(err, IBF_ERR_RANGE, "bad link speed");
	ia = ibf_node_port_id(f, a, pa);
	ib = ibf_node_port_id(f, b, pb);
	if (ia == ib)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "\"%s\" port %u is linked to itself",
				   ibf_node_desc(f, a), pa);
	A = &f->ports[ia];
	B = &f->ports[ib];
	if (A->peer == ib && B->peer == ia) {
		if ((width && A->width && width != A->width) ||
		    (speed && A->speed && speed != A->speed))
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "link \"%s\"[%u] - \"%s\"[%u] "
					   "listed with different width/speed",
					   ibf_node_desc(f, a), pa,
					   ibf_node_desc(f, b), pb);
		return IBF_OK;
	}
	if (A->peer != IBF_NO_ID || B->peer != IBF_NO_ID) {
		ibf_port_t *busy = A->peer != IBF_NO_ID ? A : B;
		ibf_port_t *other = &f->ports[busy->peer];

		return ibf_err_set(err, IBF_ERR_INVALID,
				   "asymmetric link: \"%s\"[%u] is already "
				   "linked to \"%s\"[%u]",
				   ibf_node_desc(f, busy->node), busy->num,
				   ibf_node_desc(f, other->node), other->num);
	}
	A->peer = ib;
	B->peer = ia;
	A->width = B->width = (uint8_t)width;
	A->speed = B->speed = (uint8_t)speed;
	A->state = B->state = IBF_PORT_ACTIVE;
	return IBF_OK;
}

ibf_status_t ibf_fabric_set_state(ibf_fabric_t *f, ibf_node_id_t node,
				  unsigned port, ibf_port_state_t state,
				  ibf_err_t *err)
{
	ibf_status_t st;

	if ((st = check_open(f, err)) != IBF_OK ||
	    (st = check_port(f, node, port, false, err)) != IBF_OK)
		return st;
	if (state > IBF_PORT_ACTIVE)
		return ibf_err_set(err, IBF_ERR_RANGE, "bad port state %d",
				   (int)state);
	f->ports[ibf_node_port_id(f, node, port)].state = (uint8_t)state;
	return IBF_OK;
}

/* ---- finalize ---------------------------------------------------------- */

static bool port_is_endpoint(const ibf_fabric_t *f, const ibf_port_t *p)
{
	return f->nodes[p->node].type != IBF_NODE_SWITCH && p->num != 0 &&
	       p->peer != IBF_NO_ID;
}

/* A port that must carry a LID: switch port 0, connected CA port. */
bool ibf_port_needs_lid(const ibf_fabric_t *f, const ibf_port_t *p)
{
	if (f->nodes[p->node].type == IBF_NODE_SWITCH)
		return p->num == 0;
	return port_is_endpoint(f, p);
}

static ibf_status_t assign_guids(ibf_fabric_t *f, ibf_err_t *err)
{
	ibf_node_id_t n;
	ibf_status_t st;
	uint32_t old;

	for (n = 0; n < f->nnodes; n++) {
		ibf_node_t *node = &f->nodes[n];
		unsigned p;

		if (!node->guid) {
			node->guid = IBF_AUTO_GUID_BASE + ((uint64_t)n << 8);
			st = ibf_hash_put_u64(f->priv->by_node_guid, node->guid, n,
					      &old);
			if (st != IBF_OK)
				return ibf_err_set(err, st,
						   "cannot assign node GUID to "
						   "\"%s\": 0x%016" PRIx64
						   " is taken",
						   ibf_node_desc(f, n),
						   node->guid);
		}
		for (p = 0; p <= node->nports; p++) {
			ibf_port_t *port = &f->ports[node->first_port + p];
			uint64_t guid;

			if (node->type == IBF_NODE_SWITCH) {
				if (p == 0 && !port->guid)
					ibf_fabric_set_port(f, n, 0, node->guid,
							    0, 0, NULL);
				if (p > 0)
					port->guid = f->ports[node->first_port]
							     .guid;
				continue;
			}
			if (p == 0 || port->guid)
				continue;
			guid = node->guid + p;
			st = ibf_fabric_set_port(f, n, p, guid, 0, 0, err);
			if (st != IBF_OK)
				return st;
		}
	}
	return IBF_OK;
}

static ibf_status_t check_lids(const ibf_fabric_t *f, ibf_err_t *err)
{
	ibf_port_id_t p;

	for (p = 0; p < f->nports; p++) {
		const ibf_port_t *port = &f->ports[p];

		if (ibf_port_needs_lid(f, port) && !port->lid)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "\"%s\" port %u has no LID while "
					   "other ports have LIDs",
					   ibf_node_desc(f, port->node),
					   port->num);
	}
	return IBF_OK;
}

static ibf_status_t build_indices(ibf_fabric_t *f, ibf_err_t *err)
{
	ibf_node_id_t n;
	ibf_port_id_t p;
	uint32_t old;
	unsigned lid;

	f->switch_index = malloc((f->nnodes ? f->nnodes : 1) *
				 sizeof(*f->switch_index));
	f->switches = malloc((f->nnodes ? f->nnodes : 1) *
			     sizeof(*f->switches));
	f->endpoints = malloc((f->nports ? f->nports : 1) *
			      sizeof(*f->endpoints));
	f->endpoint_index = malloc((f->nports ? f->nports : 1) *
				   sizeof(*f->endpoint_index));
	f->priv->desc_shared = calloc(f->nnodes ? f->nnodes : 1, 1);
	if (!f->switch_index || !f->switches || !f->endpoints ||
	    !f->endpoint_index || !f->priv->desc_shared)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (n = 0; n < f->nnodes; n++) {
		f->switch_index[n] = IBF_NO_ID;
		if (f->nodes[n].type == IBF_NODE_SWITCH) {
			f->switch_index[n] = f->nswitches;
			f->switches[f->nswitches++] = n;
		}
		if (ibf_hash_put_str(f->priv->by_desc, f->nodes[n].desc, n, &old) ==
		    IBF_ERR_INVALID)
			f->priv->desc_shared[old] = f->priv->desc_shared[n] = 1;
	}
	for (p = 0; p < f->nports; p++) {
		const ibf_port_t *port = &f->ports[p];

		f->endpoint_index[p] = IBF_NO_ID;
		if (port_is_endpoint(f, port)) {
			f->endpoint_index[p] = f->nendpoints;
			f->endpoints[f->nendpoints++] = p;
			if (port->lmc > f->lmc)
				f->lmc = port->lmc;
		}
	}
	for (lid = IBF_LID_UCAST_MAX; lid > 0; lid--)
		if (f->lid_port[lid] != IBF_NO_ID)
			break;
	f->lid_top = lid;
	return IBF_OK;
}

ibf_status_t ibf_fabric_finalize(ibf_fabric_t *f,
				 const ibf_finalize_opts_t *opts,
				 ibf_err_t *err)
{
	unsigned lmc = opts ? opts->lmc : 0;
	ibf_lid_order_t order = opts ? opts->lid_order : IBF_LIDS_NODE_ORDER;
	ibf_status_t st;

	if ((st = check_open(f, err)) != IBF_OK)
		return st;
	if (lmc > IBF_LMC_MAX)
		return ibf_err_set(err, IBF_ERR_RANGE, "LMC %u (must be 0..7)",
				   lmc);
	if ((st = assign_guids(f, err)) != IBF_OK)
		return st;
	f->sm_port = IBF_NO_ID;
	st = f->nlid_ports ? check_lids(f, err)
			   : ibf_lids_assign(f, lmc, order, err);
	if (st != IBF_OK)
		return st;
	if ((st = build_indices(f, err)) != IBF_OK)
		return st;
	f->finalized = true;
	return IBF_OK;
}

/* ---- access ------------------------------------------------------------ */

unsigned ibf_port_base_lid(const ibf_fabric_t *f, ibf_port_id_t p)
{
	const ibf_port_t *port = &f->ports[p];

	if (f->nodes[port->node].type == IBF_NODE_SWITCH)
		return f->ports[f->nodes[port->node].first_port].lid;
	return port->lid;
}

static const struct {
	const char *name;
	double gbps;
} speeds[IBF_SPEED_COUNT] = {
	[IBF_SPEED_UNKNOWN] = { "?", 0 },
	[IBF_SPEED_SDR] = { "SDR", 2.5 },
	[IBF_SPEED_DDR] = { "DDR", 5.0 },
	[IBF_SPEED_QDR] = { "QDR", 10.0 },
	[IBF_SPEED_FDR10] = { "FDR10", 10.3125 },
	[IBF_SPEED_FDR] = { "FDR", 14.0625 },
	[IBF_SPEED_EDR] = { "EDR", 25.78125 },
	[IBF_SPEED_HDR] = { "HDR", 53.125 },
	[IBF_SPEED_NDR] = { "NDR", 106.25 },
};

double ibf_speed_lane_gbps(ibf_speed_t s)
{
	return (unsigned)s < IBF_SPEED_COUNT ? speeds[s].gbps : 0;
}

const char *ibf_speed_name(ibf_speed_t s)
{
	return (unsigned)s < IBF_SPEED_COUNT ? speeds[s].name : "?";
}

ibf_speed_t ibf_speed_from_name(const char *name, size_t len)
{
	unsigned s;

	for (s = IBF_SPEED_SDR; s < IBF_SPEED_COUNT; s++)
		if (strlen(speeds[s].name) == len &&
		    strncasecmp(speeds[s].name, name, len) == 0)
			return (ibf_speed_t)s;
	return IBF_SPEED_UNKNOWN;
}

double ibf_port_capacity(const ibf_port_t *p)
{
	if (!p->width || !p->speed)
		return 1.0;
	return p->width * ibf_speed_lane_gbps((ibf_speed_t)p->speed);
}

const char *ibf_node_type_name(ibf_node_type_t t)
{
	switch (t) {
	case IBF_NODE_CA:     return "Ca";
	case IBF_NODE_SWITCH: return "Switch";
	case IBF_NODE_ROUTER: return "Rt";
	}
	return "?";
}

/* ---- lookups by name ---------------------------------------------------- */

ibf_node_id_t ibf_fabric_node_by_guid(const ibf_fabric_t *f, uint64_t guid)
{
	return ibf_hash_get_u64(f->priv->by_node_guid, guid);
}

ibf_port_id_t ibf_fabric_port_by_guid(const ibf_fabric_t *f, uint64_t guid)
{
	return ibf_hash_get_u64(f->priv->by_port_guid, guid);
}

ibf_node_id_t ibf_fabric_node_by_desc(const ibf_fabric_t *f,
				      const char *desc, bool *ambiguous)
{
	ibf_node_id_t n = ibf_hash_get_str(f->priv->by_desc, desc);

	if (ambiguous)
		*ambiguous = n != IBF_NO_ID && f->priv->desc_shared &&
			     f->priv->desc_shared[n];
	return n;
}

static ibf_port_id_t first_endpoint(const ibf_fabric_t *f, ibf_node_id_t n)
{
	const ibf_node_t *node = &f->nodes[n];
	unsigned p;

	if (node->type == IBF_NODE_SWITCH)
		return IBF_NO_ID;
	for (p = 1; p <= node->nports; p++)
		if (f->ports[node->first_port + p].peer != IBF_NO_ID)
			return node->first_port + p;
	return IBF_NO_ID;
}

static bool parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!*s)
		return false;
	*v = strtoull(s, &end, base);
	return *end == '\0';
}

ibf_status_t ibf_fabric_resolve_host(const ibf_fabric_t *f, const char *name,
				     ibf_port_id_t *port, ibf_err_t *err)
{
	ibf_port_id_t p = IBF_NO_ID;
	ibf_node_id_t n;
	bool ambiguous = false;
	uint64_t v;

	if (!f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID, "fabric not finalized");
	if ((name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) &&
	    parse_u64(name + 2, 16, &v)) {
		p = ibf_fabric_port_by_guid(f, v);
		if (p == IBF_NO_ID &&
		    (n = ibf_fabric_node_by_guid(f, v)) != IBF_NO_ID)
			p = first_endpoint(f, n);
	} else if (isdigit((unsigned char)name[0]) && parse_u64(name, 10, &v)) {
		p = v <= IBF_LID_UCAST_MAX ? ibf_fabric_lid_owner(f, (unsigned)v)
					   : IBF_NO_ID;
	} else if ((n = ibf_fabric_node_by_desc(f, name, &ambiguous)) !=
		   IBF_NO_ID) {
		if (ambiguous)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "host \"%s\" is ambiguous: several "
					   "nodes have this NodeDescription; "
					   "name it by port GUID or LID", name);
		p = first_endpoint(f, n);
	}
	if (p == IBF_NO_ID || !port_is_endpoint(f, &f->ports[p]))
		return ibf_err_set(err, IBF_ERR_NOT_FOUND,
				   "host \"%s\" is not a connected CA port of "
				   "the topology", name);
	*port = p;
	return IBF_OK;
}

const char *ibf_port_host_name(const ibf_fabric_t *f, ibf_port_id_t p,
			       char *buf, size_t len)
{
	const ibf_port_t *port = &f->ports[p];
	ibf_node_id_t n = port->node;

	if (first_endpoint(f, n) == p && !f->priv->desc_shared[n] &&
	    ibf_node_desc(f, n)[0] && !isdigit((unsigned char)ibf_node_desc(f, n)[0]))
		snprintf(buf, len, "%s", ibf_node_desc(f, n));
	else
		snprintf(buf, len, "0x%016" PRIx64, port->guid);
	return buf;
}

const char *ibf_node_name(const ibf_fabric_t *f, ibf_node_id_t n, char *buf,
			  size_t len)
{
	const char *d = ibf_node_desc(f, n);

	if (d[0] && !(f->priv->desc_shared && f->priv->desc_shared[n]))
		snprintf(buf, len, "%s", d);
	else if (d[0])
		snprintf(buf, len, "%s (0x%016" PRIx64 ")", d,
			 f->nodes[n].guid);
	else
		snprintf(buf, len, "0x%016" PRIx64, f->nodes[n].guid);
	return buf;
}

/* ---- comparison --------------------------------------------------------- */

static ibf_status_t compare_port(const ibf_fabric_t *a, const ibf_port_t *pa,
				 const ibf_fabric_t *b, const ibf_port_t *pb,
				 ibf_err_t *err)
{
	const char *d = ibf_node_desc(a, pa->node);
	const ibf_port_t *qa, *qb;

	if (pa->lid != pb->lid || pa->lmc != pb->lmc)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "\"%s\" port %u: LID %u/LMC %u vs %u/%u", d,
				   pa->num, pa->lid, pa->lmc, pb->lid, pb->lmc);
	if (pa->guid != pb->guid)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "\"%s\" port %u: port GUIDs differ", d,
				   pa->num);
	if ((pa->peer == IBF_NO_ID) != (pb->peer == IBF_NO_ID))
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "\"%s\" port %u: linked in one, not the other",
				   d, pa->num);
	if (pa->peer == IBF_NO_ID)
		return IBF_OK;
	qa = &a->ports[pa->peer];
	qb = &b->ports[pb->peer];
	if (a->nodes[qa->node].guid != b->nodes[qb->node].guid ||
	    qa->num != qb->num)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "\"%s\" port %u: linked to different peers",
				   d, pa->num);
	if (pa->width != pb->width || pa->speed != pb->speed)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "\"%s\" port %u: width/speed %ux%s vs %ux%s",
				   d, pa->num, pa->width,
				   ibf_speed_name((ibf_speed_t)pa->speed),
				   pb->width,
				   ibf_speed_name((ibf_speed_t)pb->speed));
	return IBF_OK;
}

ibf_status_t ibf_fabric_compare(const ibf_fabric_t *a, const ibf_fabric_t *b,
				ibf_err_t *err)
{
	ibf_node_id_t n;
	ibf_status_t st;

	if (a->nnodes != b->nnodes)
		return ibf_err_set(err, IBF_ERR_INVALID, "%u nodes vs %u",
				   a->nnodes, b->nnodes);
	for (n = 0; n < a->nnodes; n++) {
		const ibf_node_t *na = &a->nodes[n];
		ibf_node_id_t m = ibf_fabric_node_by_guid(b, na->guid);
		const ibf_node_t *nb;
		unsigned p;

		if (m == IBF_NO_ID)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "node \"%s\" (0x%016" PRIx64
					   ") missing", ibf_node_desc(a, n),
					   na->guid);
		nb = &b->nodes[m];
		if (na->type != nb->type || na->nports != nb->nports ||
		    strcmp(ibf_node_desc(a, n), ibf_node_desc(b, m)) != 0)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "node 0x%016" PRIx64
					   ": %s %u \"%s\" vs %s %u \"%s\"",
					   na->guid,
					   ibf_node_type_name(na->type),
					   na->nports, ibf_node_desc(a, n),
					   ibf_node_type_name(nb->type),
					   nb->nports, ibf_node_desc(b, m));
		for (p = 0; p <= na->nports; p++) {
			st = compare_port(a, &a->ports[na->first_port + p], b,
					  &b->ports[nb->first_port + p], err);
			if (st != IBF_OK)
				return st;
		}
	}
	return IBF_OK;
}
