/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The SL file (format in sl_io.h): writing an SL table, reading one back.
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/io.h>
#include <ibflow/sl_io.h>

#include "base/scan.h"

#define UNSET 0xFFu

/* DLIDs an SL file speaks of: endpoint and switch LIDs. */
static bool dlid_in_use(const ibf_fabric_t *f, unsigned lid)
{
	ibf_port_id_t p = ibf_fabric_lid_owner(f, lid);

	return lid && p != IBF_NO_ID &&
	       (ibf_node_is_switch(f, f->ports[p].node) ||
		f->endpoint_index[p] < f->nendpoints);
}

/* One DLID of a per-pair table: the most common SL as the "*" line, the
 * sources that differ as exceptions.  A source's route to itself is not a
 * route and is left out. */
static void write_pair_dlid(const ibf_sls_t *s, FILE *fp, unsigned dlid)
{
	const ibf_fabric_t *f = s->fabric;
	ibf_port_id_t owner = ibf_fabric_lid_owner(f, dlid);
	uint32_t count[IBF_NSLS] = { 0 }, e;
	unsigned sl, common = 0;

	for (e = 0; e < f->nendpoints; e++)
		if (f->endpoints[e] != owner)
			count[ibf_sls_get(s, f->endpoints[e], dlid) &
			      IBF_SL_MAX]++;
	for (sl = 1; sl < IBF_NSLS; sl++)
		if (count[sl] > count[common])
			common = sl;
	fprintf(fp, "* %u %u\n", dlid, common);
	for (e = 0; e < f->nendpoints; e++) {
		ibf_port_id_t p = f->endpoints[e];

		sl = ibf_sls_get(s, p, dlid);
		if (p != owner && sl != common)
			fprintf(fp, "%u %u %u\n", ibf_port_base_lid(f, p),
				dlid, sl);
	}
}

void ibf_sls_write(const ibf_sls_t *s, const char *engine, FILE *fp)
{
	const ibf_fabric_t *f = s->fabric;
	unsigned lid;

	fprintf(fp, "# ibflow SL file (engine %s, %u SLs): "
		"\"* DLID SL\" or \"SLID DLID SL\"\n", engine, s->nsls);
	for (lid = 1; lid <= f->lid_top; lid++) {
		if (!dlid_in_use(f, lid))
			continue;
		if (s->by_pair)
			write_pair_dlid(s, fp, lid);
		else
			fprintf(fp, "* %u %u\n", lid,
				s->by_dlid ? s->by_dlid[lid] : 0);
	}
}

ibf_status_t ibf_sls_write_file(const ibf_sls_t *s, const char *engine,
				const char *path, ibf_err_t *err)
{
	ibf_ofile_t o;
	ibf_status_t st;

	st = ibf_ofile_open(&o, path, err);
	if (st != IBF_OK)
		return st;
	ibf_sls_write(s, engine, o.fp);
	return ibf_ofile_commit(&o, err);
}

/* ---- reading -------------------------------------------------------- */

void ibf_sls_free(ibf_sls_t *s)
{
	if (!s)
		return;
	if (s->owned) {
		free(s->by_dlid);
		free(s->by_pair);
	}
	memset(s, 0, sizeof(*s));
}

struct sl_line {
	bool any_src;
	unsigned slid, dlid, sl;
};

static ibf_status_t parse_line(const ibf_fabric_t *f, const ibf_text_t *t,
			       const char *s, struct sl_line *ln,
			       ibf_err_t *err)
{
	const unsigned max = IBF_LID_UCAST_MAX;
	ibf_port_id_t p;

	ln->any_src = ibf_scan_lit(&s, "*");
	if (!ln->any_src && !ibf_scan_uint(&s, max, &ln->slid))
		return ibf_text_error(t, err, IBF_ERR_PARSE, "expected '*' or "
				      "a source LID, then DLID and SL");
	if (!ibf_scan_uint(&s, max, &ln->dlid))
		return ibf_text_error(t, err, IBF_ERR_PARSE, "expected a "
				      "destination LID (1..%u)", max);
	if (!ibf_scan_uint(&s, 255, &ln->sl))
		return ibf_text_error(t, err, IBF_ERR_PARSE, "expected an SL "
				      "(0..%u)", IBF_SL_MAX);
	if (!ibf_scan_end(&s))
		return ibf_text_error(t, err, IBF_ERR_PARSE, "unexpected text "
				      "after the SL: '%.20s'", s);
	if (ln->sl > IBF_SL_MAX)
		return ibf_text_error(t, err, IBF_ERR_RANGE, "SL %u out of "
				      "range 0..%u", ln->sl, IBF_SL_MAX);
	if (!dlid_in_use(f, ln->dlid))
		return ibf_text_error(t, err, IBF_ERR_NOT_FOUND, "DLID %u is "
				      "not a LID of a host or switch of the "
				      "fabric", ln->dlid);
	if (ln->any_src)
		return IBF_OK;
	p = ibf_fabric_lid_owner(f, ln->slid);
	if (!ln->slid || p == IBF_NO_ID ||
	    f->endpoint_index[p] >= f->nendpoints)
		return ibf_text_error(t, err, IBF_ERR_NOT_FOUND, "SLID %u is "
				      "not a LID of a host of the fabric",
				      ln->slid);
	return IBF_OK;
}

static ibf_status_t set_pair(ibf_sls_t *s, const ibf_text_t *t,
			     const struct sl_line *ln, ibf_err_t *err)
{
	const ibf_fabric_t *f = s->fabric;
	size_t stride = (size_t)f->lid_top + 1, i;
	ibf_port_id_t p = ibf_fabric_lid_owner(f, ln->slid);

	if (!s->by_pair) {
		s->by_pair = malloc(stride * f->nendpoints + 1);
		if (!s->by_pair)
			return ibf_err_set(err, IBF_ERR_NOMEM, "%s: out of "
					   "memory for per-pair SLs", t->name);
		memset(s->by_pair, UNSET, stride * f->nendpoints);
	}
	i = (size_t)f->endpoint_index[p] * stride + ln->dlid;
	if (s->by_pair[i] != UNSET)
		return ibf_text_error(t, err, IBF_ERR_INVALID, "second SL for "
				      "SLID %u (host's base LID %u) to DLID %u",
				      ln->slid, f->ports[p].lid, ln->dlid);
	s->by_pair[i] = (uint8_t)ln->sl;
	return IBF_OK;
}

static ibf_status_t parse_all(const ibf_fabric_t *f, ibf_text_t *t,
			      ibf_sls_t *s, ibf_err_t *err)
{
	struct sl_line ln;
	ibf_status_t st;
	char *line;

	while ((line = ibf_text_next_line(t))) {
		const char *c = line;

		if (ibf_scan_end(&c))
			continue;  /* blank or comment */
		st = parse_line(f, t, line, &ln, err);
		if (st != IBF_OK)
			return st;
		if (ln.sl + 1 > s->nsls)
			s->nsls = ln.sl + 1;
		if (!ln.any_src) {
			st = set_pair(s, t, &ln, err);
			if (st != IBF_OK)
				return st;
		} else if (s->by_dlid[ln.dlid] != UNSET) {
			return ibf_text_error(t, err, IBF_ERR_INVALID, "second "
					      "'*' line for DLID %u", ln.dlid);
		} else {
			s->by_dlid[ln.dlid] = (uint8_t)ln.sl;
		}
	}
	return ibf_text_failed(t, err);
}

/* Unset entries: per-pair ones from the DLID's '*' line, the rest SL 0. */
static void fill_unset(ibf_sls_t *s)
{
	const ibf_fabric_t *f = s->fabric;
	size_t stride = (size_t)f->lid_top + 1, e, lid;

	for (lid = 0; lid < stride; lid++)
		if (s->by_dlid[lid] == UNSET)
			s->by_dlid[lid] = 0;
	if (!s->by_pair)
		return;
	for (e = 0; e < f->nendpoints; e++)
		for (lid = 0; lid < stride; lid++)
			if (s->by_pair[e * stride + lid] == UNSET)
				s->by_pair[e * stride + lid] = s->by_dlid[lid];
}

ibf_status_t ibf_sls_read_text(const ibf_fabric_t *f, ibf_text_t *t,
			       ibf_sls_t *out, ibf_err_t *err)
{
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	out->fabric = f;
	out->owned = true;
	out->nsls = 1;
	out->by_dlid = malloc((size_t)f->lid_top + 1);
	if (!out->by_dlid)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	memset(out->by_dlid, UNSET, (size_t)f->lid_top + 1);
	st = parse_all(f, t, out, err);
	if (st != IBF_OK) {
		ibf_sls_free(out);
		return st;
	}
	fill_unset(out);
	return IBF_OK;
}

ibf_status_t ibf_sls_read(const ibf_fabric_t *f, const char *path,
			  ibf_sls_t *out, ibf_err_t *err)
{
	ibf_text_t t;
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	st = ibf_text_load(&t, path, err);
	if (st != IBF_OK)
		return st;
	st = ibf_sls_read_text(f, &t, out, err);
	ibf_text_free(&t);
	return st;
}
