/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibnetdiscover output (infiniband-diags) and ibsim net files: reader for
 * both (ibsim reads ibnetdiscover output, so they share one grammar) and the
 * ibnetdiscover writer.  docs/formats-topology.md describes what is used,
 * ignored and refused; the ibsim writer is in topo_ibsim.c.
 *
 * The two dialects differ in where GUIDs and link rates come from:
 *  - ibnetdiscover: a node's GUID is its "switchguid=/caguid=/rtguid=" line,
 *    else the hex in its "S-<guid>" id; CA port GUIDs come from "[1](guid)";
 *    a link's rate is the "4xQDR" in the comments, absent = unknown.
 *  - ibsim: GUIDs are handed out as ibsim does (per-type counters that the
 *    *guid= lines reset), CA port GUIDs are NodeGUID + port; a port's rate
 *    is an "enabled" set (defaults 4x SDR, "width=/speed=/extspeed=" lines,
 *    "w=/s=/e=" options, or the comment's "4xQDR") and the link runs at the
 *    best rate both ends enable.
 */
#include <ibflow/topo_io.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "formats/topo_internal.h"
#include "base/scan.h"

/* ibsim enable masks (PortInfo encodings) */
#define W_1X 1u
#define W_4X 2u
#define W_8X 4u
#define W_12X 8u
#define W_2X 16u
#define S_SDR 1u
#define S_DDR 2u
#define S_QDR 4u
#define E_FDR 1u
#define E_EDR 2u
#define E_HDR 4u

typedef struct rate_mask {
	uint8_t w, s, e;
} rate_mask_t;

enum { T_CA, T_SW, T_RT, T_COUNT };

typedef struct ibnd {
	ibf_text_t *t;
	bool ibsim;
	ibf_fabric_t *f;
	ibf_topo_links_t links;
	/* node ids as written in the file, and remote ids awaiting lookup */
	char *pool;
	size_t pool_len, pool_cap;
	struct ibf_hash *ids;
	uint32_t *node_line;   /* per node: line of its header */
	uint32_t nodes_cap;
	rate_mask_t *masks;    /* ibsim: per port id */
	uint32_t masks_cap;
	rate_mask_t defmask;   /* ibsim: for ports of nodes that follow */
	uint64_t guid_next[T_COUNT];
	uint64_t guid_abs[T_COUNT]; /* ibsim: last absolute base, for "+N" */
	uint64_t port0_guid;   /* from "switchguid=X(Y)" */
	bool guid_given[T_COUNT];
	ibf_node_id_t cur;     /* node whose port lines follow, or NO_ID */
} ibnd_t;

/* ---- small parsing helpers ------------------------------------------- */

static bool word(const char **s, const char *w)
{
	const char *p = *s;
	size_t n = strlen(w);

	if (strncmp(p, w, n) != 0 || isalnum((unsigned char)p[n]) ||
	    p[n] == '_' || p[n] == '-')
		return false;
	*s = p + n;
	return true;
}

static int pool_add(ibnd_t *r, const char *s, size_t n, uint32_t *off)
{
	if (r->pool_len + n + 1 > UINT32_MAX)
		return -1;
	if (r->pool_len + n + 1 > r->pool_cap) {
		char *p = ibf_array_grow(r->pool, &r->pool_cap,
					 r->pool_len + n + 1, 1);

		if (!p)
			return -1;
		r->pool = p;
	}
	memcpy(r->pool + r->pool_len, s, n);
	r->pool[r->pool_len + n] = '\0';
	*off = (uint32_t)r->pool_len;
	r->pool_len += n + 1;
	return 0;
}

static ibf_status_t nomem(ibnd_t *r, ibf_err_t *err)
{
	return ibf_text_error(r->t, err, IBF_ERR_NOMEM, "out of memory");
}

/* "lid N" and "lmc M" anywhere in s..end (blank-separated words). */
static void scan_lid_lmc(const char *s, const char *end, unsigned *lid,
			 unsigned *lmc, bool *bad)
{
	while (s < end) {
		const char *p;

		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		p = s;
		if (word(&p, "lid") || word(&p, "lmc")) {
			unsigned *v = s[1] == 'i' ? lid : lmc;

			if (!ibf_scan_uint(&p, 0xffff, v) || p > end)
				*bad = true;
			s = p;
			continue;
		}
		while (s < end && *s != ' ' && *s != '\t')
			s++;
	}
}

/* The first "4xQDR" word in s; false if none.  *bad: a word that looks
 * like a rate but names no speed we know. */
static bool scan_rate(const char *s, unsigned *width, ibf_speed_t *speed,
		      bool *bad)
{
	while (*s) {
		const char *p;

		while (*s == ' ' || *s == '\t')
			s++;
		p = s;
		if (isdigit((unsigned char)*p)) {
			if (ibf_topo_parse_rate(&p, width, speed))
				return true;
			p = s;
			while (isdigit((unsigned char)*p))
				p++;
			if (*p == 'x' && isalpha((unsigned char)p[1]))
				*bad = true;
		}
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	return false;
}

/* ---- ibsim rates --------------------------------------------------- */

static ibf_status_t reserve_masks(ibnd_t *r, ibf_err_t *err)
{
	uint32_t cap = r->masks_cap ? r->masks_cap : 256, i;
	rate_mask_t *m;

	if (r->f->nports <= r->masks_cap)
		return IBF_OK;
	while (cap < r->f->nports)
		cap *= 2;
	m = realloc(r->masks, (size_t)cap * sizeof(*m));
	if (!m)
		return nomem(r, err);
	for (i = r->masks_cap; i < cap; i++)
		m[i] = r->defmask;
	r->masks = m;
	r->masks_cap = cap;
	return IBF_OK;
}

/* What ibsim enables for a port whose line says "4xQDR". */
static void rate_to_mask(unsigned width, ibf_speed_t speed, rate_mask_t *m)
{
	switch (width) {
	case 12: m->w = W_1X | W_4X | W_12X; break;
	case 8:  m->w = W_8X; break;
	case 4:  m->w = W_1X | W_4X; break;
	case 2:  m->w = W_2X; break;
	case 1:  m->w = W_1X; break;
	default: break; /* ibsim keeps the default */
	}
	switch (speed) {
	case IBF_SPEED_SDR: m->s = S_SDR; break;
	case IBF_SPEED_DDR: m->s = S_SDR | S_DDR; break;
	case IBF_SPEED_QDR:
	case IBF_SPEED_FDR10: /* ibsim 0.10 reports FDR10 as QDR */
		m->s = S_SDR | S_DDR | S_QDR; break;
	case IBF_SPEED_FDR:
		m->s = S_SDR | S_DDR | S_QDR; m->e = E_FDR; break;
	case IBF_SPEED_EDR:
		m->s = S_SDR | S_DDR | S_QDR; m->e = E_FDR | E_EDR; break;
	case IBF_SPEED_HDR:
		m->s = S_SDR | S_DDR | S_QDR;
		m->e = E_FDR | E_EDR | E_HDR; break;
	default: break; /* NDR and unknown: ibsim keeps the default */
	}
}

/* The rate both ends enable, as ibsim computes it; false if none. */
static bool mask_active(rate_mask_t a, rate_mask_t b, unsigned *width,
			ibf_speed_t *speed)
{
	unsigned w = a.w & b.w, s = a.s & b.s, e = a.e & b.e;

	*width = w & W_12X ? 12 : w & W_8X ? 8 : w & W_4X ? 4 :
		 w & W_2X ? 2 : w & W_1X ? 1 : 0;
	if (e)
		*speed = e & E_HDR ? IBF_SPEED_HDR :
			 e & E_EDR ? IBF_SPEED_EDR : IBF_SPEED_FDR;
	else
		*speed = s & S_QDR ? IBF_SPEED_QDR :
			 s & S_DDR ? IBF_SPEED_DDR :
			 s & S_SDR ? IBF_SPEED_SDR : IBF_SPEED_UNKNOWN;
	return *width && *speed;
}

static ibf_status_t ibsim_rates(ibnd_t *r, ibf_err_t *err)
{
	ibf_fabric_t *f = r->f;
	ibf_port_id_t p, q;

	for (p = 0; p < f->nports && p < r->links.cap; p++) {
		ibf_topo_half_t *a = &r->links.h[p], *b;
		unsigned w;
		ibf_speed_t s;

		if (!a->line || a->rnode >= f->nnodes ||
		    a->rport < 1 || a->rport > ibf_node(f, a->rnode)->nports)
			continue; /* reported by ibf_topo_links_connect */
		q = ibf_node_port_id(f, a->rnode, a->rport);
		b = &r->links.h[q];
		if (!mask_active(r->masks[p], r->masks[q], &w, &s))
			return ibf_topo_error_at(r->t, a->line, err,
						 IBF_ERR_INVALID,
						 "the two ends of this link "
						 "enable no common width/speed");
		a->width = (uint8_t)w;
		a->speed = (uint8_t)s;
		if (b->line) {
			b->width = (uint8_t)w;
			b->speed = (uint8_t)s;
		}
	}
	return IBF_OK;
}

/* "width=N", "speed=N", "extspeed=N": ibsim defaults for later nodes. */
static ibf_status_t parse_default(ibnd_t *r, const char *s, uint8_t *v,
				  unsigned lo, unsigned hi, ibf_err_t *err)
{
	unsigned x;

	s = strchr(s, '=');
	if (!s || (s++, !ibf_scan_uint(&s, hi, &x)) || x < lo ||
	    !ibf_scan_end(&s))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "expected \"=N\" with N in %u..%u", lo,
				      hi);
	*v = (uint8_t)x;
	return IBF_OK;
}

/* ---- records -------------------------------------------------------- */

/* "switchguid=0x200001(200001)", "caguid=0x100009", ibsim "...+N". */
static ibf_status_t parse_guid_line(ibnd_t *r, const char *s, int type,
				    ibf_err_t *err)
{
	uint64_t v, pg = 0;
	bool rel;

	while (*s && *s != '=' && *s != '+')
		s++;
	rel = *s == '+';
	if (!*s || (s++, !ibf_scan_u64(&s, 16, &v)))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "expected a hexadecimal GUID");
	if (*s == '(') {
		s++;
		if (!ibf_scan_u64(&s, 16, &pg) || *s++ != ')')
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "bad port GUID in parentheses");
	}
	if (!ibf_scan_end(&s))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "junk after the GUID");
	if (rel && !r->ibsim)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "relative GUID base (ibsim only)");
	if (!rel)
		r->guid_abs[type] = v;
	r->guid_next[type] = rel ? r->guid_abs[type] + v : v;
	r->guid_given[type] = true;
	if (type == T_SW)
		r->port0_guid = r->ibsim ? 0 : pg;
	return IBF_OK;
}

/* NodeDescription in a header comment: "# "desc" ..." or ibsim's unquoted
 * "# desc base port 0 lid 4".  Returns where the rest starts. */
static const char *header_desc(const char *c, const char **d, size_t *n)
{
	static const char *const stops[] = {
		" enhanced port ", " base port ", " lid ", " lmc ",
	};
	const char *s = c + 1, *end = NULL;
	size_t i;

	ibf_scan_blanks(&s);
	if (*s == '"') {
		/* ibnetdiscover prints the description between quotes as it
		 * is, quotes included: it ends at the last quote followed by
		 * the end of the line or " base|enhanced port" (the first
		 * quote otherwise, for other writers' comments) */
		const char *q, *best = NULL, *first = strchr(s + 1, '"');

		for (q = first; q; q = strchr(q + 1, '"')) {
			const char *a = q + 1;

			while (*a == ' ' || *a == '\t')
				a++;
			if (!*a || !strncmp(q + 1, " base port ", 11) ||
			    !strncmp(q + 1, " enhanced port ", 15))
				best = q;
		}
		if (!best)
			best = first;
		if (!best) {
			*d = NULL; /* unterminated */
			return s;
		}
		*d = s + 1;
		*n = (size_t)(best - s - 1);
		return best + 1;
	}
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		const char *x = strstr(s, stops[i]);

		if (x && (!end || x < end))
			end = x;
	}
	if (!end)
		end = s + strlen(s);
	*d = s;
	*n = (size_t)(end - s);
	while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
		(*n)--;
	return end;
}

static uint64_t guid_from_id(const char *id, size_t n)
{
	const char *s = id + 2;
	uint64_t v;

	if (n != 18 || id[1] != '-' || !ibf_scan_u64(&s, 16, &v) ||
	    s != id + n)
		return 0;
	return v;
}

static ibf_status_t parse_header(ibnd_t *r, const char *s, int type,
				 ibf_err_t *err)
{
	static const ibf_node_type_t types[T_COUNT] = {
		IBF_NODE_CA, IBF_NODE_SWITCH, IBF_NODE_ROUTER,
	};
	char desc[IBF_TOPO_DESC_MAX + 1];
	const char *id, *d = NULL, *c;
	size_t idn, dn = 0;
	unsigned nports, lid = 0, lmc = 0;
	uint32_t off, old;
	ibf_node_id_t n;
	uint64_t guid;
	ibf_status_t st;
	bool bad = false, esp0 = false;

	if (!ibf_scan_uint(&s, 255, &nports) || nports == 0)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "expected a port count 1..%u after the "
				      "node type", IBF_MAX_PORTS);
	if (!ibf_scan_quoted_span(&s, &id, &idn))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "expected a quoted node id");
	if (idn == 0 || idn > IBF_TOPO_DESC_MAX)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "node id must be 1..%u characters",
				      IBF_TOPO_DESC_MAX);
	ibf_scan_blanks(&s);
	if (*s && *s != '#')
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "junk after the node id");
	if (*s == '#') {
		c = header_desc(s, &d, &dn);
		if (!d)
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "unterminated quoted "
					      "NodeDescription");
		if (type == T_SW) {
			scan_lid_lmc(c, c + strlen(c), &lid, &lmc, &bad);
			esp0 = strstr(c, "enhanced port 0") != NULL;
		}
		if (bad)
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "bad \"lid N\"/\"lmc N\" in the "
					      "comment");
	}
	if (!d || (r->ibsim && !dn)) {
		d = id; /* as ibsim does: the id stands in */
		dn = idn;
	}
	if (dn > IBF_TOPO_DESC_MAX)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "NodeDescription longer than %u "
				      "characters", IBF_TOPO_DESC_MAX);
	memcpy(desc, d, dn);
	desc[dn] = '\0';

	if (r->ibsim || r->guid_given[type])
		guid = r->guid_next[type];
	else
		guid = guid_from_id(id, idn);
	st = ibf_fabric_add_node(r->f, types[type], guid, desc, nports, &n,
				 err);
	if (st != IBF_OK)
		return ibf_topo_locate(r->t, r->t->line, err, st);
	r->f->nodes[n].enhanced_port0 = esp0;
	r->guid_next[type] = guid + (type == T_SW ? 1 : nports + 1);
	r->guid_given[type] = false;

	if (pool_add(r, id, idn, &off))
		return nomem(r, err);
	st = ibf_hash_put_str(r->ids, off, n, &old);
	if (st == IBF_ERR_INVALID)
		return ibf_text_error(r->t, err, IBF_ERR_INVALID,
				      "duplicate node id \"%s\" (also line "
				      "%u)", r->pool + off, r->node_line[old]);
	if (st != IBF_OK)
		return nomem(r, err);
	if (n >= r->nodes_cap) {
		uint32_t *nl = ibf_array_grow32(r->node_line, &r->nodes_cap,
						(uint64_t)n + 1, sizeof(*nl));

		if (!nl)
			return nomem(r, err);
		r->node_line = nl;
	}
	r->node_line[n] = r->t->line;
	if ((st = ibf_topo_links_reserve(&r->links, r->f->nports, err)) ||
	    (r->ibsim && (st = reserve_masks(r, err))))
		return st;
	if (r->ibsim) {
		unsigned p;

		for (p = 0; p <= nports; p++)
			r->masks[ibf_node_port_id(r->f, n, p)] = r->defmask;
	}
	if (type == T_SW && (lid || r->port0_guid)) {
		st = ibf_fabric_set_port(r->f, n, 0, r->port0_guid, lid, lmc,
					 err);
		if (st != IBF_OK)
			return ibf_topo_locate(r->t, r->t->line, err, st);
	}
	r->port0_guid = 0;
	r->cur = n;
	return IBF_OK;
}

/* ibsim's "w=N s=N e=N" options between the remote port and the comment */
static ibf_status_t parse_port_opts(ibnd_t *r, const char **s,
				    rate_mask_t *m, ibf_err_t *err)
{
	for (;;) {
		const char *p;
		unsigned v, hi;
		uint8_t *dst;
		char o;

		ibf_scan_blanks(s);
		p = *s;
		o = *p;
		if (!o || o == '#')
			return IBF_OK;
		if (!r->ibsim || !strchr("wse", o) || p[1] != '=')
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "junk after the remote port");
		dst = o == 'w' ? &m->w : o == 's' ? &m->s : &m->e;
		hi = o == 'w' ? 31 : 7;
		p += 2;
		if (!ibf_scan_uint(&p, hi, &v) || (o != 'e' && !v))
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "port option %c= must be %u..%u",
					      o, o == 'e' ? 0 : 1, hi);
		*dst = (uint8_t)v;
		*s = p;
	}
}

/* "[N]" at *s, N a port number (0..255). */
static bool scan_bracketed_port(const char **s, unsigned *port)
{
	return *(*s)++ == '[' && ibf_scan_uint(s, 255, port) &&
	       *(*s)++ == ']';
}

/* "(GUID)" in hex at *s, if there is one: false only for a bad one. */
static bool scan_optional_guid(const char **s, uint64_t *guid)
{
	if (**s != '(')
		return true;
	(*s)++;
	return ibf_scan_u64(s, 16, guid) && *(*s)++ == ')';
}

/* "[1](10000a)  "S-..."[2](guid)  # lid 10 lmc 1 "desc" lid 4 4xSDR" */
static ibf_status_t parse_port(ibnd_t *r, const char *s, ibf_err_t *err)
{
	const ibf_node_t *node;
	ibf_topo_half_t h = { .rnode = IBF_NO_ID };
	rate_mask_t m;
	const char *rid, *c, *q;
	size_t ridn;
	unsigned port, rport = 1, lid = 0, lmc = 0, width = 0;
	ibf_speed_t speed = IBF_SPEED_UNKNOWN;
	uint64_t pguid = 0, rguid;
	bool is_ca, bad = false, has_rate;
	ibf_status_t st;

	if (r->cur == IBF_NO_ID)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "port line outside a node record");
	node = ibf_node(r->f, r->cur);
	is_ca = node->type != IBF_NODE_SWITCH;
	if (!scan_bracketed_port(&s, &port))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "expected \"[port]\"");
	if (!scan_optional_guid(&s, &pguid))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "bad port GUID in parentheses");
	if (!ibf_scan_quoted_span(&s, &rid, &ridn) || !ridn ||
	    ridn > IBF_TOPO_DESC_MAX)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "expected the quoted id of the remote "
				      "node");
	if (*s == '[') {
		if (!scan_bracketed_port(&s, &rport))
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "expected \"[remote port]\"");
	} else if (!r->ibsim) {
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "expected \"[remote port]\" after the "
				      "remote node id");
	}
	if (!scan_optional_guid(&s, &rguid))
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "bad remote port GUID");
	m = r->ibsim && port <= node->nports ?
	    r->masks[ibf_node_port_id(r->f, r->cur, port)] : r->defmask;
	if ((st = parse_port_opts(r, &s, &m, err)) != IBF_OK)
		return st;
	if (*s == '#') {
		c = s + 1;
		q = strchr(c, '"');
		if (is_ca)
			scan_lid_lmc(c, q ? q : c + strlen(c), &lid, &lmc,
				     &bad);
		if (bad)
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "bad \"lid N\"/\"lmc N\" in the "
					      "comment");
		q = strrchr(c, '"');
		has_rate = scan_rate(q ? q + 1 : c, &width, &speed, &bad);
		if (bad && !has_rate)
			return ibf_text_error(r->t, err, IBF_ERR_PARSE,
					      "unknown link width/speed in the "
					      "comment");
		if (r->ibsim && has_rate)
			rate_to_mask(width, speed, &m);
	}
	if (port == 0 || port > node->nports)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "port %u out of range (node \"%s\" has "
				      "ports 1..%u)", port,
				      ibf_node_desc(r->f, r->cur),
				      node->nports);
	if (rport == 0)
		return ibf_text_error(r->t, err, IBF_ERR_PARSE,
				      "remote port 0 cannot be linked");
	if (pool_add(r, rid, ridn, &h.rref))
		return nomem(r, err);
	h.rport = (uint8_t)rport;
	h.width = (uint8_t)width;
	h.speed = (uint8_t)speed;
	st = ibf_topo_links_add(r->t, r->f, &r->links, r->cur, port, &h, err);
	if (st != IBF_OK)
		return st;
	if (r->ibsim)
		r->masks[ibf_node_port_id(r->f, r->cur, port)] = m;
	if (!is_ca || r->ibsim)
		pguid = 0; /* ibsim derives CA port GUIDs itself */
	if (pguid || lid) {
		st = ibf_fabric_set_port(r->f, r->cur, port, pguid, lid, lmc,
					 err);
		if (st != IBF_OK)
			return ibf_topo_locate(r->t, r->t->line, err, st);
	}
	return IBF_OK;
}

static ibf_status_t parse_line(ibnd_t *r, const char *s, ibf_err_t *err)
{
	const char *p = s;

	if (*s == '[')
		return parse_port(r, s, err);
	if (*s == '@')
		return ibf_text_error(r->t, err, IBF_ERR_UNSUPPORTED,
				      "ibsim port aliases are not supported");
	r->cur = IBF_NO_ID; /* anything else ends a node record */
	if (word(&p, "Switch"))
		return parse_header(r, p, T_SW, err);
	if (word(&p, "Ca") || (r->ibsim && word(&p, "Hca")))
		return parse_header(r, p, T_CA, err);
	if (word(&p, "Rt"))
		return parse_header(r, p, T_RT, err);
	if (!strncmp(s, "switchguid", 10))
		return parse_guid_line(r, s, T_SW, err);
	if (!strncmp(s, "caguid", 6) ||
	    (r->ibsim && !strncmp(s, "hcaguids", 8)))
		return parse_guid_line(r, s, T_CA, err);
	if (!strncmp(s, "rtguid", 6))
		return parse_guid_line(r, s, T_RT, err);
	if (!strncmp(s, "vendid", 6) || !strncmp(s, "devid", 5) ||
	    !strncmp(s, "sysimgguid", 10))
		return IBF_OK; /* not part of the model */
	/* ibnetdiscover -g groups nodes under chassis headings */
	if (!strncmp(s, "Chassis", 7) || !strncmp(s, "Non-Chassis", 11))
		return IBF_OK;
	if (r->ibsim) {
		if (!strncmp(s, "extspeed", 8))
			return parse_default(r, s, &r->defmask.e, 0, 7, err);
		if (!strncmp(s, "width", 5))
			return parse_default(r, s, &r->defmask.w, 1, 31, err);
		if (!strncmp(s, "speed", 5))
			return parse_default(r, s, &r->defmask.s, 1, 7, err);
		if (!strncmp(s, "pdebug", 6))
			return IBF_OK;
		if (!strncmp(s, "include", 7) || !strncmp(s, "module", 6) ||
		    !strncmp(s, "do", 2))
			return ibf_text_error(r->t, err, IBF_ERR_UNSUPPORTED,
					      "ibsim \"include\", \"module\" "
					      "and \"do\" lines are not "
					      "supported");
	}
	return ibf_text_error(r->t, err, IBF_ERR_PARSE,
			      "unrecognized line (expected a node header, a "
			      "port line or a GUID line)");
}

static ibf_status_t resolve(ibnd_t *r, ibf_err_t *err)
{
	ibf_port_id_t p;

	for (p = 0; p < r->f->nports && p < r->links.cap; p++) {
		ibf_topo_half_t *h = &r->links.h[p];

		if (!h->line)
			continue;
		h->rnode = ibf_hash_get_str(r->ids, r->pool + h->rref);
		if (h->rnode == IBF_NO_ID)
			return ibf_topo_error_at(r->t, h->line, err,
						 IBF_ERR_INVALID,
						 "node \"%s\" is referenced "
						 "but never defined",
						 r->pool + h->rref);
	}
	return IBF_OK;
}

/* Every line; on a bad one go on (the port lines of a bad node header are
 * skipped, they would only repeat it), up to a few errors. */
static ibf_status_t read_lines(ibnd_t *r, ibf_err_t *err)
{
	bool skip_ports = false;
	unsigned nerr = 0;
	ibf_err_t e;
	char *line;

	while ((line = ibf_text_next_line(r->t))) {
		const char *s = line;

		ibf_scan_blanks(&s);
		if (*s == '\0') {
			r->cur = IBF_NO_ID;
			continue;
		}
		if (*s == '#' || (*s == '[' && skip_ports))
			continue;
		ibf_err_clear(&e);
		if (parse_line(r, s, &e) == IBF_OK) {
			skip_ports = skip_ports && *s == '[';
			continue;
		}
		skip_ports = *s != '[';
		if (skip_ports)
			r->cur = IBF_NO_ID;
		if (!ibf_topo_err_add(err, &nerr, &e))
			break;
	}
	return nerr ? (err ? err->status : IBF_ERR_PARSE) : IBF_OK;
}

static ibf_status_t read_all(ibnd_t *r, ibf_err_t *err)
{
	ibf_status_t st;

	if ((st = read_lines(r, err)) != IBF_OK)
		return st;
	if (!r->f->nnodes)
		return ibf_topo_finalize(r->t, r->f, 0, err);
	if ((st = resolve(r, err)) != IBF_OK)
		return st;
	if (r->ibsim && (st = ibsim_rates(r, err)) != IBF_OK)
		return st;
	return ibf_topo_links_connect(r->t, r->f, &r->links, err);
}

ibf_status_t ibf_topo_read_ibnd(ibf_text_t *t, bool ibsim, unsigned lmc,
				ibf_fabric_t **out, ibf_err_t *err)
{
	ibnd_t r = { .t = t, .ibsim = ibsim, .cur = IBF_NO_ID,
		     .defmask = { .w = W_4X, .s = S_SDR } };
	ibf_status_t st;

	*out = NULL;
	/* ibsim's first GUIDs when a file gives none */
	r.guid_next[T_CA] = r.guid_abs[T_CA] = 0x100000;
	r.guid_next[T_SW] = r.guid_abs[T_SW] = 0x200000;
	r.ids = ibf_hash_create_str((const char *const *)&r.pool);
	st = ibf_fabric_create(&r.f);
	if (st != IBF_OK || !r.ids) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = read_all(&r, err);
	if (st == IBF_OK)
		st = ibf_topo_finalize(t, r.f, lmc, err);
out:
	if (st == IBF_OK)
		*out = r.f;
	else
		ibf_fabric_destroy(r.f);
	ibf_hash_destroy(r.ids);
	ibf_topo_links_free(&r.links);
	free(r.pool);
	free(r.node_line);
	free(r.masks);
	return st;
}

/* ---- writer --------------------------------------------------------- */

/* A description as ibnetdiscover prints it: between quotes, quotes left
 * as they are; a character that cannot stand in a line (a control
 * character: a line break) becomes a blank, as ibnetdiscover's cleaning
 * does. */
static void put_desc(const char *d, FILE *fp)
{
	fputc('"', fp);
	for (; *d; d++)
		fputc((unsigned char)*d < 0x20 || *d == 0x7f ? ' ' : *d, fp);
	fputc('"', fp);
}

void ibf_topo_print_peer(const ibf_fabric_t *f, const ibf_port_t *pt,
			 const char *rdesc, FILE *fp)
{
	put_desc(rdesc, fp);
	fprintf(fp, " lid %u", ibf_port_base_lid(f, pt->peer));
	if (pt->width || pt->speed)
		fprintf(fp, " %ux%s", pt->width,
			ibf_speed_name((ibf_speed_t)pt->speed));
	fputc('\n', fp);
}

static void write_node(const ibf_fabric_t *f, ibf_node_id_t n, FILE *fp)
{
	const ibf_node_t *node = ibf_node(f, n);
	const ibf_port_t *p0 = ibf_node_port(f, n, 0);
	char id[32], rid[32];
	unsigned p;

	ibf_topo_node_id(f, n, id, sizeof(id));
	if (node->type == IBF_NODE_SWITCH) {
		fprintf(fp, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n",
			node->guid, p0->guid);
		fprintf(fp, "Switch\t%u \"%s\"\t\t# ", node->nports, id);
		put_desc(ibf_node_desc(f, n), fp);
		fprintf(fp, " %s port 0 lid %u lmc %u\n",
			node->enhanced_port0 ? "enhanced" : "base", p0->lid,
			p0->lmc);
	} else {
		bool ca = node->type == IBF_NODE_CA;

		fprintf(fp, "%s=0x%" PRIx64 "\n", ca ? "caguid" : "rtguid",
			node->guid);
		fprintf(fp, "%s\t%u \"%s\"\t\t# ", ca ? "Ca" : "Rt",
			node->nports, id);
		put_desc(ibf_node_desc(f, n), fp);
		fputc('\n', fp);
	}
	for (p = 1; p <= node->nports; p++) {
		const ibf_port_t *pt = ibf_node_port(f, n, p), *peer;
		ibf_node_id_t rn;

		if (pt->peer == IBF_NO_ID)
			continue;
		peer = ibf_port(f, pt->peer);
		rn = peer->node;
		ibf_topo_node_id(f, rn, rid, sizeof(rid));
		if (node->type == IBF_NODE_SWITCH) {
			fprintf(fp, "[%u]\t\"%s\"[%u]", p, rid, peer->num);
			if (!ibf_node_is_switch(f, rn))
				fprintf(fp, "(%" PRIx64 ") ", peer->guid);
			fprintf(fp, "\t\t# ");
		} else {
			fprintf(fp, "[%u](%" PRIx64 ") \t\"%s\"[%u]\t\t# lid %u "
				"lmc %u ", p, pt->guid, rid, peer->num,
				pt->lid, pt->lmc);
		}
		ibf_topo_print_peer(f, pt, ibf_node_desc(f, rn), fp);
	}
	fputc('\n', fp);
}

ibf_status_t ibf_topo_write_ibnd(const ibf_fabric_t *f, FILE *fp,
				 ibf_err_t *err)
{
	ibf_node_id_t n;

	(void)err;
	fprintf(fp, "#\n# Topology file: written by ibflow (%u nodes, %u "
		"switches, %u endpoints)\n#\n\n", f->nnodes, f->nswitches,
		f->nendpoints);
	for (n = 0; n < f->nnodes; n++)
		write_node(f, n, fp);
	return IBF_OK;
}
