/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Topology files: format names, detection and the dispatch to the readers
 * and writers of each format (topo_<format>.c).  What those share is in
 * topo_shared.c, below them, so calls only go down.  See topo_io.h. */
#include <ibflow/topo_io.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/topo_internal.h"
#include "base/scan.h"

static const char *const format_names[] = {
	[IBF_TOPO_AUTO] = "auto",
	[IBF_TOPO_IBNETDISCOVER] = "ibnetdiscover",
	[IBF_TOPO_IBSIM] = "ibsim",
	[IBF_TOPO_SUBNET_LST] = "subnet-lst",
	[IBF_TOPO_DOT] = "dot",
};

const char *ibf_topo_format_name(ibf_topo_format_t fmt)
{
	if ((unsigned)fmt >= sizeof(format_names) / sizeof(format_names[0]))
		return "?";
	return format_names[fmt];
}

ibf_topo_format_t ibf_topo_format_from_name(const char *name)
{
	unsigned i;

	for (i = IBF_TOPO_IBNETDISCOVER; i <= IBF_TOPO_DOT; i++)
		if (strcmp(name, format_names[i]) == 0)
			return (ibf_topo_format_t)i;
	/* The file's own name is what users know it by. */
	if (strcmp(name, "opensm-subnet.lst") == 0 ||
	    strcmp(name, "subnet.lst") == 0)
		return IBF_TOPO_SUBNET_LST;
	return IBF_TOPO_AUTO;
}

/* ---- detection --------------------------------------------------------- */

static bool starts_with(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - s) >= n && memcmp(s, lit, n) == 0;
}

/* True if the quoted id at s..end is ibnetdiscover's "S-<16 hex>". */
static bool is_guid_id(const char *s, const char *end)
{
	const char *q = memchr(s, '"', (size_t)(end - s));
	int i;

	if (!q || end - q < 20 || !strchr("SHR", q[1]) || q[2] != '-')
		return false;
	for (i = 3; i < 19; i++)
		if (!isxdigit((unsigned char)q[i]))
			return false;
	return q[19] == '"';
}

/* What the line at s..end says about the format.  0: nothing. */
enum { HINT_NONE, HINT_HEADER, HINT_IBSIM, HINT_LST };

static int line_hint(const char *s, const char *end)
{
	static const char *const ibsim_kw[] = {
		"Hca", "hcaguids", "width", "speed", "extspeed", "module",
		"include", "do ", "pdebug", "@",
	};
	const char *hash;
	size_t i;

	if (s < end && *s == '{')
		return HINT_LST;
	for (i = 0; i < sizeof(ibsim_kw) / sizeof(ibsim_kw[0]); i++)
		if (starts_with(s, end, ibsim_kw[i]))
			return HINT_IBSIM;
	if (starts_with(s, end, "Switch") || starts_with(s, end, "Ca") ||
	    starts_with(s, end, "Rt"))
		return is_guid_id(s, end) ? HINT_HEADER : HINT_IBSIM;
	if (s < end && *s == '[') {
		/* ibsim's port options: "w=", "s=", "e=" before a comment */
		hash = memchr(s, '#', (size_t)(end - s));
		if (memchr(s, '=', (size_t)((hash ? hash : end) - s)))
			return HINT_IBSIM;
	}
	return HINT_NONE;
}

ibf_topo_format_t ibf_topo_detect(const ibf_text_t *t)
{
	const char *s = t->buf, *stop = t->buf + t->len;
	bool header = false, first = true;

	while (s < stop) {
		const char *end = s, *nl;
		int hint;

		while (end < stop && *end != '\n' && *end != '\0')
			end++;
		nl = end;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s < end && *s != '#' && *s != '\r') {
			hint = line_hint(s, end);
			if (hint == HINT_LST && first)
				return IBF_TOPO_SUBNET_LST;
			if (hint == HINT_IBSIM)
				return IBF_TOPO_IBSIM;
			header |= hint == HINT_HEADER;
			first = false;
		}
		s = nl + 1;
	}
	return header ? IBF_TOPO_IBNETDISCOVER : IBF_TOPO_AUTO;
}

/* ---- reading ----------------------------------------------------------- */

/* First line that is not blank or a comment, for "not a topology" errors. */
static unsigned first_content_line(ibf_text_t *t)
{
	const char *l;
	unsigned line = 0;

	while ((l = ibf_text_next_line(t))) {
		ibf_scan_blanks(&l);
		if (*l && *l != '#') {
			line = t->line;
			break;
		}
	}
	ibf_text_rewind(t);
	return line;
}

ibf_status_t ibf_topo_read_text(ibf_text_t *t,
				const ibf_topo_read_opts_t *opts,
				ibf_fabric_t **out, ibf_err_t *err)
{
	ibf_topo_format_t fmt = opts ? opts->format : IBF_TOPO_AUTO;
	unsigned lmc = opts ? opts->lmc : 0, line;

	*out = NULL;
	if (lmc > IBF_LMC_MAX)
		return ibf_err_set(err, IBF_ERR_RANGE, "LMC %u (must be 0..7)",
				   lmc);
	ibf_text_rewind(t);
	if (fmt == IBF_TOPO_AUTO)
		fmt = ibf_topo_detect(t);
	switch (fmt) {
	case IBF_TOPO_IBNETDISCOVER:
		return ibf_topo_read_ibnd(t, false, lmc, out, err);
	case IBF_TOPO_IBSIM:
		return ibf_topo_read_ibnd(t, true, lmc, out, err);
	case IBF_TOPO_SUBNET_LST:
		return ibf_topo_read_subnet_lst(t, lmc, out, err);
	case IBF_TOPO_DOT:
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
				   "%s: dot files can be written, not read",
				   t->name);
	case IBF_TOPO_AUTO:
		break;
	}
	line = first_content_line(t);
	if (!line)
		return ibf_topo_error_at(t, t->line ? t->line : 1, err,
					 IBF_ERR_PARSE,
					 "empty topology: no nodes");
	return ibf_topo_error_at(t, line, err, IBF_ERR_PARSE,
				 "not a topology file (expected "
				 "ibnetdiscover, ibsim or opensm-subnet.lst "
				 "text)");
}

ibf_status_t ibf_topo_read(const char *path, const ibf_topo_read_opts_t *opts,
			   ibf_fabric_t **out, ibf_err_t *err)
{
	ibf_text_t t;
	ibf_status_t st;

	*out = NULL;
	if ((st = ibf_text_load(&t, path, err)) != IBF_OK)
		return st;
	st = ibf_topo_read_text(&t, opts, out, err);
	ibf_text_free(&t);
	return st;
}

/* ---- writing ----------------------------------------------------------- */

ibf_status_t ibf_topo_write(const ibf_fabric_t *f, ibf_topo_format_t fmt,
			    FILE *fp, ibf_err_t *err)
{
	ibf_status_t st;

	if (!f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "cannot write a fabric that is not "
				   "finalized");
	switch (fmt) {
	case IBF_TOPO_IBNETDISCOVER:
		st = ibf_topo_write_ibnd(f, fp, err);
		break;
	case IBF_TOPO_IBSIM:
		st = ibf_topo_write_ibsim(f, fp, err);
		break;
	case IBF_TOPO_DOT:
		st = ibf_topo_write_dot(f, fp, err);
		break;
	default:
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
				   "cannot write topology format \"%s\"",
				   ibf_topo_format_name(fmt));
	}
	if (st == IBF_OK && ferror(fp))
		st = ibf_err_set(err, IBF_ERR_IO, "write error");
	return st;
}

ibf_status_t ibf_topo_write_file(const ibf_fabric_t *f, ibf_topo_format_t fmt,
				 const char *path, ibf_err_t *err)
{
	ibf_ofile_t o;
	ibf_status_t st;

	if ((st = ibf_ofile_open(&o, path, err)) != IBF_OK)
		return st;
	st = ibf_topo_write(f, fmt, o.fp, err);
	if (st != IBF_OK) {
		ibf_ofile_abort(&o);
		ibf_err_prefix(err, "%s: ", path);
		return st;
	}
	return ibf_ofile_commit(&o, err);
}
