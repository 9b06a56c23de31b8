/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The fabric model: nodes, ports, links, LIDs.
 *
 * Layout is chosen for fabrics of 50,000+ endpoints read inside OpenSM:
 *  - nodes and ports live in two flat arrays addressed by 32-bit ids;
 *  - a node's ports are contiguous: port number p of node n is
 *    ports[nodes[n].first_port + p], p = 0..nports (port 0 exists for every
 *    node so the arithmetic needs no branch; on CAs it is never connected);
 *  - a link is a pair of port ids pointing at each other (port.peer);
 *  - LID lookups go through one flat array over the unicast LID space;
 *  - strings (NodeDescriptions) sit in one pool and are only consulted when
 *    names are parsed or printed, never on routing or tracing paths.
 *
 * A fabric is built with ibf_fabric_add_node/set_port/link and then sealed by
 * ibf_fabric_finalize(), which validates it, assigns what the input did not
 * carry (port GUIDs, LIDs) and builds the lookup indices.  After that it is
 * read-only and may be shared between threads.  Treat the struct fields as
 * read-only; change a fabric only through the functions below.
 */
#ifndef IBFLOW_FABRIC_H
#define IBFLOW_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/limits.h>
#include <ibflow/status.h>

IBF_BEGIN_DECLS

typedef uint32_t ibf_node_id_t;
typedef uint32_t ibf_port_id_t;

#define IBF_NO_ID        UINT32_MAX
#define IBF_LID_UCAST_MAX 0xBFFFu /* highest unicast LID */
#define IBF_MAX_PORTS    254u    /* physical ports per node (1..254) */

typedef enum ibf_node_type {
	IBF_NODE_CA = 1,
	IBF_NODE_SWITCH = 2,
	IBF_NODE_ROUTER = 3,
} ibf_node_type_t;

/* IB PortInfo:PortState values. */
typedef enum ibf_port_state {
	IBF_PORT_NOSTATE = 0,
	IBF_PORT_DOWN = 1,
	IBF_PORT_INIT = 2,
	IBF_PORT_ARMED = 3,
	IBF_PORT_ACTIVE = 4,
} ibf_port_state_t;

/* Per-lane signalling rates.  Numbering is ibflow's own. */
typedef enum ibf_speed {
	IBF_SPEED_UNKNOWN = 0,
	IBF_SPEED_SDR,   /* 2.5 Gb/s */
	IBF_SPEED_DDR,   /* 5 */
	IBF_SPEED_QDR,   /* 10 */
	IBF_SPEED_FDR10, /* 10.3125 */
	IBF_SPEED_FDR,   /* 14.0625 */
	IBF_SPEED_EDR,   /* 25.78125 */
	IBF_SPEED_HDR,   /* 53.125 */
	IBF_SPEED_NDR,   /* 106.25 */
	IBF_SPEED_COUNT
} ibf_speed_t;

typedef struct ibf_node {
	uint64_t guid;             /* NodeGUID */
	ibf_port_id_t first_port;  /* id of this node's port 0 */
	uint32_t desc;             /* offset of NodeDescription in the pool */
	uint8_t type;              /* ibf_node_type_t */
	uint8_t nports;            /* physical ports, numbered 1..nports */
	bool enhanced_port0;       /* switch: port 0 is an enhanced one
				    * (SwitchInfo EnhancedPort0), as the
				    * input says; else base */
} ibf_node_t;

typedef struct ibf_port {
	uint64_t guid;       /* PortGUID (CA ports; a switch's ports share one) */
	ibf_port_id_t peer;  /* port at the other end of the link, or IBF_NO_ID */
	ibf_node_id_t node;
	uint16_t lid;        /* base LID; on switches only port 0 has one */
	uint8_t num;         /* port number on its node */
	uint8_t lmc;         /* 2^lmc LIDs starting at lid */
	uint8_t width;       /* active lanes: 1, 2, 4, 8 or 12 */
	uint8_t speed;       /* ibf_speed_t */
	uint8_t state;       /* ibf_port_state_t */
} ibf_port_t;

typedef struct ibf_fabric {
	ibf_node_t *nodes;
	uint32_t nnodes;
	ibf_port_t *ports;
	uint32_t nports;

	/* Built by finalize. */
	uint8_t lmc;                   /* LMC of the CA ports (max over them) */
	uint32_t lid_top;              /* highest LID in use */
	ibf_port_id_t *lid_port;       /* [0..lid_top]: owner of each LID */
	ibf_node_id_t *switches;       /* switch node ids, in node order */
	uint32_t nswitches;
	uint32_t *switch_index;        /* node id -> index in switches[] */
	ibf_port_id_t *endpoints;      /* connected CA ports, in node order */
	uint32_t nendpoints;
	uint32_t *endpoint_index;      /* port id -> index in endpoints[] */
	bool finalized;

	uint32_t nlid_ports;           /* ports given a LID by the input */
	bool lids_assumed;             /* the input had none: finalize chose */
	ibf_port_id_t sm_port;         /* the SM port that assumption is for
					* (IBF_NO_ID: none, or node order) */

	/* The library's own: NodeDescription pool, growth capacities, the
	 * GUID and name indices (opaque; read names with ibf_node_desc). */
	struct ibf_fabric_priv *priv;
} ibf_fabric_t;

/* ---- construction ---------------------------------------------------- */

ibf_status_t ibf_fabric_create(ibf_fabric_t **out);
void ibf_fabric_destroy(ibf_fabric_t *f);

/* Add a node.  guid 0 means "assign one at finalize".  Duplicate non-zero
 * GUIDs are refused. */
ibf_status_t ibf_fabric_add_node(ibf_fabric_t *f, ibf_node_type_t type,
				 uint64_t guid, const char *desc,
				 unsigned nports, ibf_node_id_t *id,
				 ibf_err_t *err);

/* Set a port's GUID and LID/LMC as the input carries them (0 = unknown).
 * For switches use port 0 for the LID. */
ibf_status_t ibf_fabric_set_port(ibf_fabric_t *f, ibf_node_id_t node,
				 unsigned port, uint64_t guid, unsigned lid,
				 unsigned lmc, ibf_err_t *err);

/* Connect two ports.  Linking a pair that is already linked to each other is
 * accepted (inputs list every link from both ends) provided width and speed
 * agree; a port already linked elsewhere is an asymmetric link and refused.
 * width 0 / IBF_SPEED_UNKNOWN mean "not given": such links have capacity
 * 1.0 (see ibf_port_capacity()). */
ibf_status_t ibf_fabric_link(ibf_fabric_t *f, ibf_node_id_t a, unsigned pa,
			     ibf_node_id_t b, unsigned pb, unsigned width,
			     ibf_speed_t speed, ibf_err_t *err);

/* Mark a port's state (links are ACTIVE when made). */
ibf_status_t ibf_fabric_set_state(ibf_fabric_t *f, ibf_node_id_t node,
				  unsigned port, ibf_port_state_t state,
				  ibf_err_t *err);

/* How finalize numbers LIDs when the input carried none. */
typedef enum ibf_lid_order {
	/* sequentially from 1 in port (node) order: what generators use,
	 * and write into their files */
	IBF_LIDS_NODE_ORDER = 0,
	/* as OpenSM 3.3's first sweep does with its SM on the first node:
	 * the SM's port first, then by port GUID read lowest byte first
	 * (model/lid_assign.c, docs/formats.md) */
	IBF_LIDS_OPENSM,
} ibf_lid_order_t;

typedef struct ibf_finalize_opts {
	unsigned lmc; /* LMC for CA ports that carry no LID in the input */
	ibf_lid_order_t lid_order;
} ibf_finalize_opts_t;

/* Validate and seal.  LIDs given by the input are kept and checked (range,
 * alignment to 2^LMC, overlaps); if the input carried no LIDs at all they are
 * assigned in opts->lid_order from 1, CA base LIDs aligned to 2^lmc,
 * switches one LID each, and lids_assumed is set.  A fabric where only some
 * ports have LIDs is inconsistent and refused. */
ibf_status_t ibf_fabric_finalize(ibf_fabric_t *f,
				 const ibf_finalize_opts_t *opts,
				 ibf_err_t *err);

/* ---- access ----------------------------------------------------------- */

static inline ibf_node_t *ibf_node(const ibf_fabric_t *f, ibf_node_id_t n)
{
	return &f->nodes[n];
}

static inline ibf_port_t *ibf_port(const ibf_fabric_t *f, ibf_port_id_t p)
{
	return &f->ports[p];
}

static inline ibf_port_id_t ibf_node_port_id(const ibf_fabric_t *f,
					      ibf_node_id_t n, unsigned num)
{
	return f->nodes[n].first_port + num;
}

static inline ibf_port_t *ibf_node_port(const ibf_fabric_t *f,
					ibf_node_id_t n, unsigned num)
{
	return &f->ports[f->nodes[n].first_port + num];
}

/* A node's NodeDescription ("" when the input had none). */
const char *ibf_node_desc(const ibf_fabric_t *f, ibf_node_id_t n);

/* What a reader had to assume about its input, for the user ("" if
 * nothing): set by readers with ibf_fabric_set_note (the last one holds). */
const char *ibf_fabric_note(const ibf_fabric_t *f);
void ibf_fabric_set_note(ibf_fabric_t *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline bool ibf_node_is_switch(const ibf_fabric_t *f, ibf_node_id_t n)
{
	return f->nodes[n].type == IBF_NODE_SWITCH;
}

/* The port that owns a LID (any of a CA port's 2^LMC LIDs), or IBF_NO_ID. */
static inline ibf_port_id_t ibf_fabric_lid_owner(const ibf_fabric_t *f,
						 unsigned lid)
{
	return lid <= f->lid_top ? f->lid_port[lid] : IBF_NO_ID;
}

/* The LID addressing port p: a switch's port 0 LID for any switch port. */
unsigned ibf_port_base_lid(const ibf_fabric_t *f, ibf_port_id_t p);

/* Link capacity in Gb/s (width x lane rate); 1.0 when unknown, so fabrics
 * without link attributes are "uniform links = 1". */
double ibf_port_capacity(const ibf_port_t *p);

double ibf_speed_lane_gbps(ibf_speed_t s);
const char *ibf_speed_name(ibf_speed_t s);        /* "SDR", ... */
ibf_speed_t ibf_speed_from_name(const char *name, size_t len);
const char *ibf_node_type_name(ibf_node_type_t t); /* "Ca", "Switch", ... */

/* ---- lookups by name (not for hot paths) ----------------------------- */

ibf_node_id_t ibf_fabric_node_by_guid(const ibf_fabric_t *f, uint64_t guid);
ibf_port_id_t ibf_fabric_port_by_guid(const ibf_fabric_t *f, uint64_t guid);
/* First node with this NodeDescription; *ambiguous set if several share it. */
ibf_node_id_t ibf_fabric_node_by_desc(const ibf_fabric_t *f,
				      const char *desc, bool *ambiguous);

/* Resolve a host name as users write it: a NodeDescription, a 0x... port or
 * node GUID, or a decimal LID.  Result: a connected CA port. */
ibf_status_t ibf_fabric_resolve_host(const ibf_fabric_t *f, const char *name,
				     ibf_port_id_t *port, ibf_err_t *err);

/* Human-readable host name for an endpoint (its NodeDescription, or the
 * port GUID when the CA has several connected ports).  buf >= 64 bytes. */
const char *ibf_port_host_name(const ibf_fabric_t *f, ibf_port_id_t p,
			       char *buf, size_t len);

/* A node's name for reports: its NodeDescription, followed by " (0xGUID)"
 * when another node shares it or it is empty (real switches often all say
 * "SwitchIB Mellanox Technologies").  buf >= 96 bytes. */
const char *ibf_node_name(const ibf_fabric_t *f, ibf_node_id_t n, char *buf,
			  size_t len);

/* Compare two finalized fabrics structurally (same nodes by GUID, same
 * descriptions, links, LIDs, widths, speeds).  Returns IBF_OK when equal,
 * otherwise IBF_ERR_INVALID with the first difference in err. */
ibf_status_t ibf_fabric_compare(const ibf_fabric_t *a, const ibf_fabric_t *b,
				ibf_err_t *err);

IBF_END_DECLS
#endif
