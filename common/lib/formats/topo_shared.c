/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* What the topology readers and writers of every format share: node ids,
 * description checks, errors located at a line, the link gathering and
 * the last step of a read.  Below the dispatcher (topo_io.c) and the
 * formats (topo_<format>.c); it calls none of them.  See topo_internal.h. */
#include <ibflow/topo_io.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/topo_internal.h"
#include "base/scan.h"

const char *ibf_topo_node_id(const ibf_fabric_t *f, ibf_node_id_t n,
			     char *buf, size_t len)
{
	const ibf_node_t *node = ibf_node(f, n);
	char c = node->type == IBF_NODE_SWITCH ? 'S' :
		 node->type == IBF_NODE_ROUTER ? 'R' : 'H';

	snprintf(buf, len, "%c-%016" PRIx64, c, node->guid);
	return buf;
}

ibf_status_t ibf_topo_check_desc(const ibf_fabric_t *f, ibf_node_id_t n,
				 const char *fmt_name, ibf_err_t *err)
{
	const char *d = ibf_node_desc(f, n);

	if (strpbrk(d, "\"\n\r"))
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
				   "node 0x%016" PRIx64 ": NodeDescription "
				   "with a quote or line break cannot be "
				   "written as %s", ibf_node(f, n)->guid,
				   fmt_name);
	return IBF_OK;
}

/* ---- helpers shared by the readers ------------------------------------- */

ibf_status_t ibf_topo_error_at(const ibf_text_t *t, unsigned line,
			       ibf_err_t *err, ibf_status_t st,
			       const char *fmt, ...)
{
	char msg[IBF_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ibf_err_set(err, st, "%s:%u: %s", t->name, line, msg);
}

ibf_status_t ibf_topo_locate(const ibf_text_t *t, unsigned line,
			     ibf_err_t *err, ibf_status_t st)
{
	ibf_err_prefix(err, "%s:%u: ", t->name, line);
	return st;
}

bool ibf_topo_err_add(ibf_err_t *err, unsigned *nerr, const ibf_err_t *e)
{
	size_t used, need = strlen(e->msg) + 2;

	if (!(*nerr)++) {
		if (err)
			*err = *e;
	} else if (err) {
		static const char more[] = "\n(further errors not shown)";

		used = strlen(err->msg);
		if (used + need + sizeof(more) > sizeof(err->msg)) {
			if (used + sizeof(more) <= sizeof(err->msg))
				memcpy(err->msg + used, more, sizeof(more));
			return false;
		}
		snprintf(err->msg + used, sizeof(err->msg) - used, "\n%s",
			 e->msg);
	}
	return e->status != IBF_ERR_NOMEM && *nerr < IBF_TOPO_MAX_ERRORS;
}

ibf_status_t ibf_topo_finalize(const ibf_text_t *t, ibf_fabric_t *f,
			       unsigned lmc, ibf_err_t *err)
{
	ibf_finalize_opts_t o = { .lmc = lmc, .lid_order = IBF_LIDS_OPENSM };
	ibf_status_t st;

	if (!f->nnodes)
		return ibf_topo_error_at(t, t->line ? t->line : 1, err,
					 IBF_ERR_PARSE,
					 "empty topology: no nodes");
	st = ibf_fabric_finalize(f, &o, err);
	if (st != IBF_OK)
		ibf_err_prefix(err, "%s: ", t->name);
	return st;
}

bool ibf_topo_parse_rate(const char **s, unsigned *width, ibf_speed_t *speed)
{
	const char *p = *s, *name;
	unsigned w;

	if (!ibf_scan_uint(&p, 12, &w) || *p != 'x')
		return false;
	name = ++p;
	while (isalnum((unsigned char)*p) || *p == '?')
		p++;
	if (p - name == 1 && *name == '?') {
		*speed = IBF_SPEED_UNKNOWN;
	} else {
		*speed = ibf_speed_from_name(name, (size_t)(p - name));
		if (*speed == IBF_SPEED_UNKNOWN)
			return false;
	}
	if (*p && *p != ' ' && *p != '\t')
		return false;
	*width = w;
	*s = p;
	return true;
}

ibf_status_t ibf_topo_links_reserve(ibf_topo_links_t *l, uint32_t nports,
				    ibf_err_t *err)
{
	uint32_t cap = l->cap ? l->cap : 256;
	ibf_topo_half_t *h;

	if (nports <= l->cap)
		return IBF_OK;
	while (cap < nports)
		cap *= 2;
	h = realloc(l->h, (size_t)cap * sizeof(*h));
	if (!h)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	memset(h + l->cap, 0, (size_t)(cap - l->cap) * sizeof(*h));
	l->h = h;
	l->cap = cap;
	return IBF_OK;
}

void ibf_topo_links_free(ibf_topo_links_t *l)
{
	free(l->h);
	l->h = NULL;
	l->cap = 0;
}

ibf_status_t ibf_topo_links_add(const ibf_text_t *t, ibf_fabric_t *f,
				ibf_topo_links_t *l, ibf_node_id_t node,
				unsigned port, const ibf_topo_half_t *h,
				ibf_err_t *err)
{
	ibf_port_id_t p;
	ibf_status_t st;

	if (port < 1 || port > ibf_node(f, node)->nports)
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "port %u out of range (node \"%s\" has "
				      "ports 1..%u)", port,
				      ibf_node_desc(f, node),
				      ibf_node(f, node)->nports);
	if ((st = ibf_topo_links_reserve(l, f->nports, err)) != IBF_OK)
		return st;
	p = ibf_node_port_id(f, node, port);
	if (l->h[p].line)
		return ibf_text_error(t, err, IBF_ERR_INVALID,
				      "port %u of \"%s\" is listed twice "
				      "(also line %u)", port,
				      ibf_node_desc(f, node), l->h[p].line);
	l->h[p] = *h;
	l->h[p].line = t->line;
	return IBF_OK;
}

static ibf_status_t connect_one(const ibf_text_t *t, ibf_fabric_t *f,
				ibf_topo_links_t *l, ibf_port_id_t p,
				ibf_err_t *err)
{
	const ibf_topo_half_t *a = &l->h[p], *b;
	const ibf_port_t *pa = ibf_port(f, p);
	const char *da = ibf_node_desc(f, pa->node), *db;
	ibf_port_id_t q;
	unsigned width;
	ibf_speed_t speed;
	ibf_status_t st;

	if (a->rnode >= f->nnodes)
		return ibf_topo_error_at(t, a->line, err, IBF_ERR_INVALID,
					 "link to an unknown node");
	db = ibf_node_desc(f, a->rnode);
	if (a->rport < 1 || a->rport > ibf_node(f, a->rnode)->nports)
		return ibf_topo_error_at(t, a->line, err, IBF_ERR_PARSE,
					 "remote port %u out of range (node "
					 "\"%s\" has ports 1..%u)", a->rport,
					 db, ibf_node(f, a->rnode)->nports);
	q = ibf_node_port_id(f, a->rnode, a->rport);
	if (q == p)
		return ibf_topo_error_at(t, a->line, err, IBF_ERR_INVALID,
					 "port %u of \"%s\" is linked to "
					 "itself", pa->num, da);
	b = &l->h[q];
	if (!b->line)
		return ibf_topo_error_at(t, a->line, err, IBF_ERR_INVALID,
					 "asymmetric link: \"%s\"[%u] -> "
					 "\"%s\"[%u], but \"%s\" lists no "
					 "link on port %u", da, pa->num, db,
					 a->rport, db, a->rport);
	if (b->rnode != pa->node || b->rport != pa->num)
		return ibf_topo_error_at(t, a->line, err, IBF_ERR_INVALID,
					 "asymmetric link: \"%s\"[%u] -> "
					 "\"%s\"[%u], but line %u says "
					 "\"%s\"[%u] -> \"%s\"[%u]", da,
					 pa->num, db, a->rport, b->line, db,
					 a->rport,
					 b->rnode < f->nnodes ?
					 ibf_node_desc(f, b->rnode) : "?",
					 b->rport);
	if (q < p)
		return IBF_OK; /* done from the other end */
	if ((a->width && b->width && a->width != b->width) ||
	    (a->speed && b->speed && a->speed != b->speed))
		return ibf_topo_error_at(t, b->line > a->line ? b->line
							      : a->line,
					 err, IBF_ERR_INVALID,
					 "link \"%s\"[%u] - \"%s\"[%u]: ends "
					 "disagree on width/speed (%ux%s on "
					 "line %u, %ux%s on line %u)", da,
					 pa->num, db, a->rport, a->width,
					 ibf_speed_name(a->speed), a->line,
					 b->width, ibf_speed_name(b->speed),
					 b->line);
	width = a->width ? a->width : b->width;
	speed = (ibf_speed_t)(a->speed ? a->speed : b->speed);
	st = ibf_fabric_link(f, pa->node, pa->num, a->rnode, a->rport, width,
			     speed, err);
	if (st != IBF_OK)
		return ibf_topo_locate(t, a->line, err, st);
	return IBF_OK;
}

ibf_status_t ibf_topo_links_connect(const ibf_text_t *t, ibf_fabric_t *f,
				    ibf_topo_links_t *l, ibf_err_t *err)
{
	ibf_port_id_t p;
	ibf_status_t st;

	for (p = 0; p < f->nports && p < l->cap; p++) {
		if (!l->h[p].line)
			continue;
		if ((st = connect_one(t, f, l, p, err)) != IBF_OK)
			return st;
	}
	return IBF_OK;
}
