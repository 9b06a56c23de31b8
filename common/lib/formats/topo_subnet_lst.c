/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * OpenSM's opensm-subnet.lst reader.  One line per link direction:
 *
 *   { CA Ports:02 SystemGUID:... NodeGUID:... PortGUID:... VenID:...
 *     DevID:... Rev:... {desc} LID:0002 PN:01 } { SW-SM ... } PHY=4x
 *     LOG=ACT SPD=2.5
 *
 * Numbers are hexadecimal (Ports, LID, PN too).  A switch's LID is its
 * port 0 LID.  The file has no LMC: CA ports get the caller's LMC, which is
 * consistent because OpenSM aligns CA base LIDs to 2^LMC.  OpenSM before
 * 2007 (and ibutils' ibdm/Clusters files) ended the line at LOG=: such
 * links are taken as SDR, and the fabric's note says so.
 */
#include <ibflow/topo_io.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/array.h"
#include "formats/topo_internal.h"
#include "base/scan.h"

typedef struct lst_side {
	ibf_node_type_t type;
	unsigned nports, lid, pn;
	uint64_t node_guid, port_guid;
	const char *desc;
	size_t desc_len;
} lst_side_t;

typedef struct lst {
	ibf_text_t *t;
	ibf_fabric_t *f;
	ibf_topo_links_t links;
	unsigned lmc;
	uint32_t *node_line;
	uint32_t nodes_cap;
	unsigned no_spd, no_spd_line; /* lines without SPD=, the first */
} lst_t;

static bool field_hex(const char **s, const char *name, uint64_t *v)
{
	ibf_scan_blanks(s);
	if (strncmp(*s, name, strlen(name)) != 0)
		return false;
	*s += strlen(name);
	return **s != ' ' && ibf_scan_u64(s, 16, v);
}

static bool parse_type(const char **s, ibf_node_type_t *type)
{
	static const struct {
		const char *name;
		ibf_node_type_t type;
	} types[] = {
		{ "SW", IBF_NODE_SWITCH }, { "CA", IBF_NODE_CA },
		{ "Rt", IBF_NODE_ROUTER }, { "RT", IBF_NODE_ROUTER },
	};
	size_t i;

	ibf_scan_blanks(s);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strncmp(*s, types[i].name, 2) != 0)
			continue;
		*s += 2;
		if (strncmp(*s, "-SM", 3) == 0)
			*s += 3;
		*type = types[i].type;
		return **s == ' ';
	}
	return false;
}

/* "{ TYPE Ports:.. ... {desc} LID:.. PN:.. }" */
static ibf_status_t parse_side(lst_t *r, const char **s, lst_side_t *d,
			       ibf_err_t *err)
{
	uint64_t v, nports, lid, pn;
	const char *p = *s, *end;

	if (!ibf_scan_lit(&p, "{") || !parse_type(&p, &d->type) ||
	    !field_hex(&p, "Ports:", &nports) ||
	    !field_hex(&p, "SystemGUID:", &v) ||
	    !field_hex(&p, "NodeGUID:", &d->node_guid) ||
	    !field_hex(&p, "PortGUID:", &d->port_guid) ||
	    !field_hex(&p, "VenID:", &v) || !field_hex(&p, "DevID:", &v) ||
	    !field_hex(&p, "Rev:", &v) || !ibf_scan_lit(&p, "{"))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "malformed node record (expected \"{ "
				      "TYPE Ports:.. SystemGUID:.. NodeGUID:.. "
				      "PortGUID:.. VenID:.. DevID:.. Rev:.. "
				      "{desc} LID:.. PN:.. }\")");
	/* The description may hold braces: it ends at the "} LID:" */
	end = strstr(p, "} LID:");
	if (!end)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "unterminated {NodeDescription}");
	d->desc = p;
	d->desc_len = (size_t)(end - p);
	p = end + 1;
	if (!field_hex(&p, "LID:", &lid) || !field_hex(&p, "PN:", &pn) ||
	    !ibf_scan_lit(&p, "}"))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "malformed \"LID:.. PN:.. }\"");
	if (d->desc_len > IBF_TOPO_DESC_MAX)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "NodeDescription longer than %u "
				      "characters", IBF_TOPO_DESC_MAX);
	if (nports < 1 || nports > IBF_MAX_PORTS || pn < 1 || pn > nports)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "port %" PRIu64 " out of range (node "
				      "has ports 1..%" PRIu64 ")", pn, nports);
	if (lid > IBF_LID_UCAST_MAX)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "LID 0x%" PRIx64 " is not unicast", lid);
	d->nports = (unsigned)nports;
	d->lid = (unsigned)lid;
	d->pn = (unsigned)pn;
	*s = p;
	return IBF_OK;
}

static ibf_status_t parse_trailer(lst_t *r, const char *s, unsigned *width,
				  ibf_speed_t *speed, ibf_err_t *err)
{
	static const struct {
		const char *name;
		ibf_speed_t speed;
	} spd[] = {
		{ "2.5", IBF_SPEED_SDR }, { "5", IBF_SPEED_DDR },
		{ "10", IBF_SPEED_QDR }, { "FDR10", IBF_SPEED_FDR10 },
		{ "14", IBF_SPEED_FDR }, { "25", IBF_SPEED_EDR },
		{ "50", IBF_SPEED_HDR }, { "100", IBF_SPEED_NDR },
		{ "??", IBF_SPEED_UNKNOWN },
	};
	size_t i, n;

	*width = 0;
	if (!ibf_scan_lit(&s, "PHY="))
		goto bad;
	if (!ibf_scan_lit(&s, "??") &&
	    (!ibf_scan_uint(&s, 12, width) || *s++ != 'x'))
		goto bad;
	if (!ibf_scan_lit(&s, "LOG="))
		goto bad;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (ibf_scan_end(&s)) {
		*speed = IBF_SPEED_SDR;
		if (!r->no_spd++)
			r->no_spd_line = r->t->line;
		return IBF_OK;
	}
	if (!ibf_scan_lit(&s, "SPD="))
		goto bad;
	n = strcspn(s, " \t");
	for (i = 0; i < sizeof(spd) / sizeof(spd[0]); i++) {
		if (strlen(spd[i].name) == n && !strncmp(s, spd[i].name, n)) {
			*speed = spd[i].speed;
			s += n;
			if (!ibf_scan_end(&s))
				goto bad;
			return IBF_OK;
		}
	}
bad:
	return ibf_text_error(r->t, err, IBF_ERR_PARSE,
			      "expected \"PHY=<w>x LOG=<state> [SPD=<Gb/s>]\" "
			      "after the two node records");
}

static ibf_status_t get_node(lst_t *r, const lst_side_t *d,
			     ibf_node_id_t *out, ibf_err_t *err)
{
	char desc[IBF_TOPO_DESC_MAX + 1];
	ibf_node_id_t n = ibf_fabric_node_by_guid(r->f, d->node_guid);
	const ibf_node_t *node;
	ibf_status_t st;
	unsigned port = d->type == IBF_NODE_SWITCH ? 0 : d->pn;

	memcpy(desc, d->desc, d->desc_len);
	desc[d->desc_len] = '\0';
	if (n == IBF_NO_ID) {
		if (!d->node_guid)
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "NodeGUID 0");
		st = ibf_fabric_add_node(r->f, d->type, d->node_guid, desc,
					 d->nports, &n, err);
		if (st != IBF_OK)
			return ibf_topo_locate(r->t, r->t->line, err, st);
		if (n >= r->nodes_cap) {
			uint32_t *nl = ibf_array_grow32(r->node_line,
							&r->nodes_cap,
							(uint64_t)n + 1,
							sizeof(*nl));

			if (!nl)
				return ibf_err_set(err, IBF_ERR_NOMEM,
						   "out of memory");
			r->node_line = nl;
		}
		r->node_line[n] = r->t->line;
	}
	node = ibf_node(r->f, n);
	if (node->type != d->type || node->nports != d->nports ||
	    strcmp(ibf_node_desc(r->f, n), desc) != 0)
		return ibf_text_error(r->t, err, IBF_ERR_INVALID,
				      "node 0x%016" PRIx64 " differs from its "
				      "description on line %u (type, ports "
				      "or NodeDescription)", d->node_guid,
				      r->node_line[n]);
	st = ibf_fabric_set_port(r->f, n, port, d->port_guid, d->lid,
				 port ? r->lmc : 0, err);
	if (st != IBF_OK) {
		if (port && r->lmc)
			ibf_err_prefix(err, "(LMC %u assumed: the file has "
				       "none) ", r->lmc);
		return ibf_topo_locate(r->t, r->t->line, err, st);
	}
	*out = n;
	return IBF_OK;
}

static ibf_status_t parse_line(lst_t *r, const char *s, ibf_err_t *err)
{
	ibf_topo_half_t h = { 0 };
	lst_side_t a, b;
	ibf_node_id_t na, nb;
	unsigned width;
	ibf_speed_t speed = IBF_SPEED_UNKNOWN;
	ibf_status_t st;

	if ((st = parse_side(r, &s, &a, err)) != IBF_OK ||
	    (st = parse_side(r, &s, &b, err)) != IBF_OK ||
	    (st = parse_trailer(r, s, &width, &speed, err)) != IBF_OK ||
	    (st = get_node(r, &a, &na, err)) != IBF_OK ||
	    (st = get_node(r, &b, &nb, err)) != IBF_OK)
		return st;
	h.rnode = nb;
	h.rport = (uint8_t)b.pn;
	h.width = (uint8_t)width;
	h.speed = (uint8_t)speed;
	return ibf_topo_links_add(r->t, r->f, &r->links, na, a.pn, &h, err);
}

ibf_status_t ibf_topo_read_subnet_lst(ibf_text_t *t, unsigned lmc,
				      ibf_fabric_t **out, ibf_err_t *err)
{
	lst_t r = { .t = t, .lmc = lmc };
	ibf_status_t st;
	unsigned nerr = 0;
	char *line;

	*out = NULL;
	if ((st = ibf_fabric_create(&r.f)) != IBF_OK)
		return ibf_err_set(err, st, "out of memory");
	while ((line = ibf_text_next_line(t))) {
		const char *s = line;
		ibf_err_t e;

		ibf_scan_blanks(&s);
		if (!*s || *s == '#')
			continue;
		ibf_err_clear(&e);
		if (parse_line(&r, s, &e) != IBF_OK &&
		    !ibf_topo_err_add(err, &nerr, &e))
			break;
	}
	if (nerr) {
		st = err ? err->status : IBF_ERR_PARSE;
		goto out;
	}
	if (r.f->nnodes &&
	    (st = ibf_topo_links_connect(t, r.f, &r.links, err)) != IBF_OK)
		goto out;
	st = ibf_topo_finalize(t, r.f, lmc, err);
	if (st == IBF_OK && r.no_spd)
		ibf_fabric_set_note(r.f, "%s:%u: %u link line%s without SPD= "
				    "(OpenSM's format before 2007): speed "
				    "taken as SDR", t->name, r.no_spd_line,
				    r.no_spd, r.no_spd == 1 ? "" : "s");
out:
	if (st == IBF_OK)
		*out = r.f;
	else
		ibf_fabric_destroy(r.f);
	ibf_topo_links_free(&r.links);
	free(r.node_line);
	return st;
}
