/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Routing files: linear forwarding tables as OpenSM dumps them
 * (opensm-lfts.dump, opensm.fdbs) and as infiniband-diags prints them
 * (ibroute, dump_lfts, dump_fts).  See docs/formats-routing.md.
 *
 * The reader works block by block: a header line names a switch by GUID,
 * entry lines "0xLID PORT ..." follow, and (for the "Unicast lids" forms) a
 * "N [valid ]lids dumped" footer closes the block.  The footer is required
 * because OpenSM writes its dump in place, not atomically: a reader racing
 * with a sweep may see a file cut short, and the missing footer is how we
 * notice.  Every format can appear in one input, in any order.
 */
#include <ibflow/lfts_io.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/scan.h"

enum blk_kind {
	BLK_NONE,
	BLK_UNICAST, /* "Unicast lids [..] of switch ..." + footer */
	BLK_FDBS,    /* "dump_ucast_routes: Switch 0x..." (opensm.fdbs) */
};

struct lft_parser {
	const ibf_fabric_t *f;
	ibf_text_t *t;
	ibf_lfts_t *l;
	ibf_err_t *err;
	uint8_t *seen;      /* bitmap [nswitches * stride]: entry given */
	enum blk_kind kind;
	uint32_t sw;        /* switch index of the open block */
	unsigned top;       /* highest LID of the header's range */
	unsigned hdr_line;  /* line of the open block's header */
	unsigned nentries;  /* entries of the open block */
	unsigned nvalid;    /* ... of which with a port (not 255) */
	unsigned nblocks;
};

static const char *sw_desc(const struct lft_parser *p, uint32_t sw)
{
	return ibf_node_desc(p->f, p->f->switches[sw]);
}

static ibf_status_t perr(const struct lft_parser *p, ibf_status_t st,
			 const char *what)
{
	return ibf_text_error(p->t, p->err, st, "%s", what);
}

/* A number written either 0x-hex or decimal (header ranges use both). */
static bool scan_num(const char **s, unsigned max, unsigned *v)
{
	const char *save = *s;
	uint64_t x;

	ibf_scan_blanks(s);
	if ((*s)[0] == '0' && ((*s)[1] == 'x' || (*s)[1] == 'X')) {
		if (!ibf_scan_u64(s, 16, &x) || x > max) {
			*s = save;
			return false;
		}
		*v = (unsigned)x;
		return true;
	}
	return ibf_scan_uint(s, max, v);
}

/* Close the open block at a new header or at the end of the input. */
static ibf_status_t close_block(struct lft_parser *p)
{
	if (p->kind == BLK_UNICAST)
		return ibf_text_error(p->t, p->err, IBF_ERR_PARSE,
				      "table of switch \"%s\" (header at line "
				      "%u) has no \"N lids dumped\" footer: "
				      "truncated file?", sw_desc(p, p->sw),
				      p->hdr_line);
	p->kind = BLK_NONE;
	return IBF_OK;
}

static ibf_status_t open_block(struct lft_parser *p, enum blk_kind kind,
			       uint64_t guid, unsigned top)
{
	ibf_node_id_t n = ibf_fabric_node_by_guid(p->f, guid);
	ibf_status_t st;

	if ((st = close_block(p)) != IBF_OK)
		return st;
	if (n == IBF_NO_ID)
		return ibf_text_error(p->t, p->err, IBF_ERR_NOT_FOUND,
				      "switch GUID 0x%016" PRIx64
				      " is not in the topology", guid);
	if (!ibf_node_is_switch(p->f, n))
		return ibf_text_error(p->t, p->err, IBF_ERR_INVALID,
				      "GUID 0x%016" PRIx64 " is \"%s\", not a "
				      "switch", guid, ibf_node_desc(p->f, n));
	p->kind = kind;
	p->sw = p->f->switch_index[n];
	p->top = top;
	p->hdr_line = p->t->line;
	p->nentries = p->nvalid = 0;
	p->nblocks++;
	p->l->has_table[p->sw] = 1;
	return IBF_OK;
}

/* "Unicast lids [0-11] of switch Lid 4 guid 0x... ('desc'):" (OpenSM) or
 * "Unicast lids [0x0-0xb] of switch Lid 4 guid 0x... (desc):" and
 * "... of switch DR path slid 0; dlid 0; 0,1 guid 0x... (desc):" (ibroute).
 * The description is not checked: the GUID identifies the switch. */
static ibf_status_t parse_unicast_header(struct lft_parser *p, const char *s)
{
	unsigned lo, top;
	uint64_t guid;
	const char *g;

	if (!ibf_scan_lit(&s, "Unicast lids [") ||
	    !scan_num(&s, 0xFFFF, &lo) || !ibf_scan_lit(&s, "-") ||
	    !scan_num(&s, 0xFFFF, &top) || !ibf_scan_lit(&s, "]") ||
	    !ibf_scan_lit(&s, "of switch ") || lo > top)
		return perr(p, IBF_ERR_PARSE, "malformed \"Unicast lids "
			    "[FIRST-LAST] of switch ...\" header");
	g = strstr(s, " guid 0x");
	if (!g)
		return perr(p, IBF_ERR_PARSE, "switch header without "
			    "\"guid 0x...\"");
	s = g + 6;
	if (!ibf_scan_u64(&s, 16, &guid) || (*s != ' ' && *s != ':'))
		return perr(p, IBF_ERR_PARSE, "bad switch GUID in header");
	if (!strchr(s, ':'))
		return perr(p, IBF_ERR_PARSE, "switch header does not end "
			    "with ':'");
	return open_block(p, BLK_UNICAST, guid, top);
}

/* "dump_ucast_routes: Switch 0x0000000000200000" (opensm.fdbs). */
static ibf_status_t parse_fdbs_header(struct lft_parser *p, const char *s)
{
	uint64_t guid;

	if (!ibf_scan_lit(&s, "dump_ucast_routes:") ||
	    !ibf_scan_lit(&s, "Switch") || !ibf_scan_lit(&s, "0x") ||
	    !ibf_scan_u64(&s, 16, &guid) || !ibf_scan_end(&s))
		return perr(p, IBF_ERR_PARSE, "malformed \"dump_ucast_routes: "
			    "Switch 0x...\" header");
	return open_block(p, BLK_FDBS, guid, IBF_LID_UCAST_MAX);
}

/* "0x" and hex digits, as every table entry starts. */
static bool scan_lid(const char **s, unsigned *lid)
{
	uint64_t v;

	if (!ibf_scan_lit(s, "0x") || !ibf_scan_u64(s, 16, &v) || v > 0xFFFF)
		return false;
	*lid = (unsigned)v;
	return true;
}

/* Record one entry; port IBF_LFT_NO_PORT means "no route". */
static ibf_status_t put_entry(struct lft_parser *p, unsigned lid,
			      unsigned port)
{
	const ibf_node_t *node = ibf_node(p->f, p->f->switches[p->sw]);
	size_t bit;

	if (lid > p->top)
		return ibf_text_error(p->t, p->err, IBF_ERR_PARSE,
				      "LID %u is outside the header's range "
				      "0..%u", lid, p->top);
	if (port != IBF_LFT_NO_PORT && port > node->nports)
		return ibf_text_error(p->t, p->err, IBF_ERR_NOT_FOUND,
				      "switch \"%s\" has no port %u (ports "
				      "0..%u)", sw_desc(p, p->sw), port,
				      node->nports);
	p->nentries++;
	p->nvalid += port != IBF_LFT_NO_PORT;
	if (lid <= p->f->lid_top) {
		bit = (size_t)p->sw * p->l->stride + lid;
		if (p->seen[bit / 8] & (1u << (bit % 8)))
			return ibf_text_error(p->t, p->err, IBF_ERR_INVALID,
					      "LID %u of switch \"%s\" is given "
					      "twice", lid, sw_desc(p, p->sw));
		p->seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
	/* No route: nothing to store, even beyond the fabric's LIDs (a
	 * switch's table may be longer than the fabric needs). */
	if (port == IBF_LFT_NO_PORT)
		return IBF_OK;
	if (lid == 0 || lid > p->f->lid_top)
		return ibf_text_error(p->t, p->err, IBF_ERR_NOT_FOUND,
				      "LID %u not in topology (LIDs 1..%u)",
				      lid, p->f->lid_top);
	ibf_lfts_set(p->l, p->sw, lid, (uint8_t)port);
	return IBF_OK;
}

/* "0x0002 001 # comment" (OpenSM), "0x0002 001 : (comment)" (ibroute),
 * "0x0002 001 " (ibroute -n). */
static ibf_status_t parse_unicast_entry(struct lft_parser *p, const char *s)
{
	unsigned lid, port;

	if (!scan_lid(&s, &lid))
		return perr(p, IBF_ERR_PARSE, "bad LID in table entry");
	if (*s != ' ' && *s != '\t')
		return perr(p, IBF_ERR_PARSE, "LID not followed by an out "
			    "port");
	if (!ibf_scan_uint(&s, 255, &port))
		return perr(p, IBF_ERR_PARSE, "table entry without a valid "
			    "out port (0..255)");
	ibf_scan_blanks(&s);
	if (*s != '\0' && *s != '#' && *s != ':')
		return perr(p, IBF_ERR_PARSE, "junk after the out port");
	return put_entry(p, lid, port);
}

/* "0x0002 : 001  : 01   : yes", "0x0001 : UNREACHABLE" (opensm.fdbs). */
static ibf_status_t parse_fdbs_entry(struct lft_parser *p, const char *s)
{
	unsigned lid, port;

	if (!scan_lid(&s, &lid) || !ibf_scan_lit(&s, ":"))
		return perr(p, IBF_ERR_PARSE, "bad \"LID : Port\" entry");
	if (ibf_scan_lit(&s, "UNREACHABLE"))
		port = IBF_LFT_NO_PORT;
	else if (!ibf_scan_uint(&s, 255, &port))
		return perr(p, IBF_ERR_PARSE, "entry without a valid out port "
			    "or UNREACHABLE");
	ibf_scan_blanks(&s);
	if (*s != '\0' && *s != ':')
		return perr(p, IBF_ERR_PARSE, "junk after the out port");
	return put_entry(p, lid, port);
}

/* "11 lids dumped" (OpenSM: the header's last LID; ibroute -a: the number
 * of entries) or "10 valid lids dumped" (ibroute: the routed entries). */
static ibf_status_t parse_footer(struct lft_parser *p, const char *s)
{
	bool valid;
	unsigned n;

	if (!ibf_scan_uint(&s, 0xFFFFF, &n))
		return perr(p, IBF_ERR_PARSE, "unrecognized line");
	valid = ibf_scan_lit(&s, "valid");
	if (!ibf_scan_lit(&s, "lids dumped") || !ibf_scan_end(&s))
		return perr(p, IBF_ERR_PARSE, "unrecognized line");
	if (p->kind != BLK_UNICAST)
		return perr(p, IBF_ERR_PARSE, "\"lids dumped\" footer outside "
			    "a \"Unicast lids\" table");
	if (valid ? n != p->nvalid : n != p->top && n != p->nentries)
		return ibf_text_error(p->t, p->err, IBF_ERR_PARSE,
				      "footer says %u %slids but the table "
				      "from line %u has %u entries (%u "
				      "routed): truncated or edited file?", n,
				      valid ? "valid " : "", p->hdr_line,
				      p->nentries, p->nvalid);
	p->kind = BLK_NONE;
	return IBF_OK;
}

/* Column titles ibroute and opensm.fdbs print under a header. */
static bool is_column_title(const char *s)
{
	return strncmp(s, "Lid ", 4) == 0 || strncmp(s, "Port ", 5) == 0 ||
	       strncmp(s, "LID ", 4) == 0;
}

static ibf_status_t parse_line(struct lft_parser *p, const char *s)
{
	ibf_scan_blanks(&s);
	if (*s == '\0' || *s == '#')
		return IBF_OK;
	if (strncmp(s, "Unicast lids", 12) == 0)
		return parse_unicast_header(p, s);
	if (strncmp(s, "dump_ucast_routes:", 18) == 0)
		return parse_fdbs_header(p, s);
	/* dump_lfts (the old name of dump_fts) appends this to stdout. */
	if (strncmp(s, "*** WARNING ***", 15) == 0)
		return IBF_OK;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (p->kind == BLK_UNICAST)
			return parse_unicast_entry(p, s);
		if (p->kind == BLK_FDBS)
			return parse_fdbs_entry(p, s);
		return perr(p, IBF_ERR_PARSE, "table entry outside any switch "
			    "table (no header before it)");
	}
	if (p->kind != BLK_NONE && p->nentries == 0 && is_column_title(s))
		return IBF_OK;
	return parse_footer(p, s);
}

ibf_status_t ibf_lfts_read_text(const ibf_fabric_t *f, ibf_text_t *t,
				ibf_lfts_t **out, ibf_err_t *err)
{
	struct lft_parser p = { .f = f, .t = t, .err = err };
	ibf_status_t st;
	size_t nbits;
	char *line;

	*out = NULL;
	if (!f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID, "fabric not finalized");
	if ((st = ibf_lfts_create(f, &p.l)) != IBF_OK)
		return ibf_err_set(err, st, "out of memory");
	nbits = (size_t)p.l->nswitches * p.l->stride;
	p.seen = calloc(nbits / 8 + 1, 1);
	if (!p.seen) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto fail;
	}
	ibf_text_rewind(t);
	while ((line = ibf_text_next_line(t)) != NULL)
		if ((st = parse_line(&p, line)) != IBF_OK)
			goto fail;
	if ((st = ibf_text_failed(t, err)) != IBF_OK ||
	    (st = close_block(&p)) != IBF_OK)
		goto fail;
	if (p.nblocks == 0) {
		st = ibf_err_set(err, IBF_ERR_PARSE, "%s: no forwarding table "
				 "found", t->name);
		goto fail;
	}
	free(p.seen);
	*out = p.l;
	return IBF_OK;
fail:
	free(p.seen);
	ibf_lfts_destroy(p.l);
	return st;
}

ibf_status_t ibf_lfts_read(const ibf_fabric_t *f, const char *path,
			   ibf_lfts_t **out, ibf_err_t *err)
{
	ibf_status_t st;
	ibf_text_t t;

	*out = NULL;
	/* Streamed: a dump holds one line per (switch, LID). */
	if ((st = ibf_text_open(&t, path, err)) != IBF_OK)
		return st;
	st = ibf_lfts_read_text(f, &t, out, err);
	ibf_text_free(&t);
	return st;
}

/* ---- writing ------------------------------------------------------------ */

/* OpenSM walks its switch table (a map keyed by the GUID in network byte
 * order) in key order; on little-endian hosts that is the GUID compared
 * byte-reversed.  Writing in that order keeps our dump diffable with
 * OpenSM's on the machines OpenSM runs on. */
static uint64_t osm_order_key(uint64_t guid)
{
	return __builtin_bswap64(guid);
}

struct sw_key {
	uint64_t key;
	uint32_t sw;
};

static int cmp_sw_key(const void *a, const void *b)
{
	const struct sw_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static const char *osm_type_str(const ibf_fabric_t *f, ibf_node_id_t n)
{
	switch (ibf_node(f, n)->type) {
	case IBF_NODE_CA:     return "Channel Adapter";
	case IBF_NODE_SWITCH: return "Switch";
	case IBF_NODE_ROUTER: return "Router";
	}
	return "UNKNOWN";
}

/* The comment of an entry line depends on the LID only: built once per
 * dump, so writing a table is copying bytes (a dump of a 10,000-endpoint
 * fabric has tens of millions of lines). */
struct lid_tails {
	char *text;      /* "# Channel Adapter portguid 0x...: 'desc'\n" ... */
	size_t *off;     /* [lid_top + 2]: tail of LID i = text[off[i]..off[i+1]) */
};

static int build_tails(const ibf_fabric_t *f, struct lid_tails *t)
{
	size_t cap = 4096, len = 0;
	unsigned lid;

	t->text = malloc(cap);
	t->off = malloc(((size_t)f->lid_top + 2) * sizeof(*t->off));
	if (!t->text || !t->off)
		return -1;
	for (lid = 0; lid <= f->lid_top; lid++) {
		ibf_port_id_t owner = ibf_fabric_lid_owner(f, lid);
		char line[IBF_ERR_MSG_MAX + 128];
		int n;

		if (owner != IBF_NO_ID) {
			ibf_node_id_t o = ibf_port(f, owner)->node;

			n = snprintf(line, sizeof(line), "# %s portguid 0x%016"
				     PRIx64 ": '%s'\n", osm_type_str(f, o),
				     ibf_port(f, owner)->guid,
				     ibf_node_desc(f, o));
		} else {
			n = snprintf(line, sizeof(line),
				     "# unknown node and type\n");
		}
		if (n < 0 || (size_t)n >= sizeof(line))
			n = (int)strlen(line);
		if (len + (size_t)n > cap) {
			char *p;

			while (len + (size_t)n > cap)
				cap *= 2;
			p = realloc(t->text, cap);
			if (!p)
				return -1;
			t->text = p;
		}
		t->off[lid] = len;
		memcpy(t->text + len, line, (size_t)n);
		len += (size_t)n;
	}
	t->off[f->lid_top + 1] = len;
	return 0;
}

/* "0xLLLL PPP " as OpenSM prints it ("0x%04x %03u "). */
static size_t format_entry(char *out, unsigned lid, unsigned port)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[8];
	size_t n = 0, k = 0;

	out[n++] = '0';
	out[n++] = 'x';
	do {
		tmp[k++] = hex[lid & 0xf];
		lid >>= 4;
	} while (lid);
	while (k < 4)
		tmp[k++] = '0';
	while (k)
		out[n++] = tmp[--k];
	out[n++] = ' ';
	out[n++] = (char)('0' + port / 100); /* ports are < 256 */
	out[n++] = (char)('0' + port / 10 % 10);
	out[n++] = (char)('0' + port % 10);
	out[n++] = ' ';
	return n;
}

static void write_switch(const ibf_lfts_t *l, const struct lid_tails *t,
			 uint32_t sw, FILE *fp)
{
	const ibf_fabric_t *f = l->fabric;
	ibf_node_id_t n = f->switches[sw];
	unsigned lid, top = f->lid_top, nports = ibf_node(f, n)->nports;
	char buf[1 << 16];
	size_t used = 0;

	fprintf(fp, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64
		" ('%s'):\n", top, ibf_node_port(f, n, 0)->lid,
		ibf_node(f, n)->guid, ibf_node_desc(f, n));
	for (lid = 0; lid <= top; lid++) {
		uint8_t port = ibf_lfts_get(l, sw, lid);
		size_t tail = t->off[lid + 1] - t->off[lid];

		if (port == IBF_LFT_NO_PORT || port > nports)
			continue;
		if (used + 16 + tail > sizeof(buf)) {
			fwrite(buf, 1, used, fp);
			used = 0;
		}
		if (16 + tail > sizeof(buf)) { /* cannot happen: tails are short */
			fprintf(fp, "0x%04x %03u %.*s", lid, port, (int)tail,
				t->text + t->off[lid]);
			continue;
		}
		used += format_entry(buf + used, lid, port);
		memcpy(buf + used, t->text + t->off[lid], tail);
		used += tail;
	}
	fwrite(buf, 1, used, fp);
	fprintf(fp, "%u lids dumped\n", top);
}

ibf_status_t ibf_lfts_write(const ibf_lfts_t *l, FILE *fp, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	struct lid_tails tails = { NULL, NULL };
	struct sw_key *order;
	uint32_t i, n = 0;

	order = malloc((l->nswitches ? l->nswitches : 1) * sizeof(*order));
	if (!order)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < l->nswitches; i++) {
		if (!l->has_table[i])
			continue;
		order[n].key = osm_order_key(ibf_node(f, f->switches[i])->guid);
		order[n++].sw = i;
	}
	qsort(order, n, sizeof(*order), cmp_sw_key);
	if (build_tails(f, &tails) != 0) {
		free(order);
		free(tails.text);
		free(tails.off);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		write_switch(l, &tails, order[i].sw, fp);
	free(order);
	free(tails.text);
	free(tails.off);
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write failed");
	return IBF_OK;
}

ibf_status_t ibf_lfts_write_file(const ibf_lfts_t *l, const char *path,
				 ibf_err_t *err)
{
	ibf_ofile_t o;
	ibf_status_t st;

	if ((st = ibf_ofile_open(&o, path, err)) != IBF_OK)
		return st;
	st = ibf_lfts_write(l, o.fp, err);
	if (st != IBF_OK) {
		ibf_err_prefix(err, "%s: ", path);
		ibf_ofile_abort(&o);
		return st;
	}
	return ibf_ofile_commit(&o, err);
}
