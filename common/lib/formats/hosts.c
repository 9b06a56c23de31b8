/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Host lists, one host per line; see hosts.h and docs/formats-routing.md.
 * A line is a name as it is (blanks inside included) or a "quoted name";
 * the syntax of names is formats/names.h's.
 */
#include <ibflow/hosts.h>

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/scan.h"
#include "formats/names.h"

static ibf_status_t resolve(const ibf_fabric_t *f, const ibf_text_t *t,
			    const char *name, ibf_port_id_t *port,
			    ibf_err_t *err)
{
	ibf_status_t st = ibf_fabric_resolve_host(f, name, port, err);

	if (st != IBF_OK)
		ibf_err_prefix(err, "%s:%u: ", t->name, t->line);
	return st;
}

/* ---- host lists --------------------------------------------------------- */

static ibf_status_t host_line(const ibf_fabric_t *f, const ibf_text_t *t,
			      char *line, ibf_port_id_t *port, bool *empty,
			      ibf_err_t *err)
{
	char name[IBF_NAME_MAX];
	const char *s;

	ibf_names_strip_comment(line);
	line = ibf_names_trim(line);
	*empty = !*line;
	if (*empty)
		return IBF_OK;
	if (*line == '"') {
		s = line;
		if (!ibf_names_scan_quoted(&s, name, sizeof(name)))
			return ibf_text_error(t, err, IBF_ERR_PARSE,
					      "unterminated or too long "
					      "quoted name");
		if (!ibf_scan_end(&s))
			return ibf_text_error(t, err, IBF_ERR_PARSE,
					      "junk after the quoted name");
		if (!name[0])
			return ibf_text_error(t, err, IBF_ERR_PARSE,
					      "empty host name");
		line = name;
	}
	return resolve(f, t, line, port, err);
}

/* Hosts of t, each line `copies` times; repeated lines refused unless
 * repeats. */
static ibf_status_t read_list(const ibf_fabric_t *f, ibf_text_t *t,
			      uint32_t copies, bool repeats,
			      ibf_hostlist_t *out, ibf_err_t *err)
{
	ibf_hostlist_t h = { NULL, 0 };
	uint32_t *first_line, cap = 0;
	ibf_status_t st = IBF_OK;
	ibf_port_id_t port;
	char *line;

	memset(out, 0, sizeof(*out));
	if (!f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID, "fabric not finalized");
	first_line = calloc(f->nports ? f->nports : 1, sizeof(*first_line));
	if (!first_line)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	ibf_text_rewind(t);
	while ((line = ibf_text_next_line(t)) != NULL) {
		bool empty;

		st = host_line(f, t, line, &port, &empty, err);
		if (st != IBF_OK)
			break;
		if (empty)
			continue;
		if (first_line[port] && !repeats) {
			char buf[IBF_NAME_MAX];

			st = ibf_text_error(t, err, IBF_ERR_INVALID,
					    "host %s listed twice, first at "
					    "line %u",
					    ibf_port_host_name(f, port, buf,
							       sizeof(buf)),
					    first_line[port]);
			break;
		}
		if (!first_line[port])
			first_line[port] = t->line;
		if ((uint64_t)h.n + copies > UINT32_MAX) {
			st = ibf_text_error(t, err, IBF_ERR_RANGE, "more than "
					    "%u ranks", UINT32_MAX);
			break;
		}
		if (h.n + copies > cap) {
			ibf_port_id_t *np = ibf_array_grow32(h.ports, &cap,
							     (uint64_t)h.n +
							     copies,
							     sizeof(*np));

			if (!np) {
				st = ibf_err_set(err, IBF_ERR_NOMEM,
						 "out of memory");
				break;
			}
			h.ports = np;
		}
		for (uint32_t c = 0; c < copies; c++)
			h.ports[h.n++] = port;
	}
	free(first_line);
	if (st != IBF_OK) {
		ibf_hostlist_free(&h);
		return st;
	}
	*out = h;
	return IBF_OK;
}

ibf_status_t ibf_hosts_read_text(const ibf_fabric_t *f, ibf_text_t *t,
				 ibf_hostlist_t *out, ibf_err_t *err)
{
	return read_list(f, t, 1, false, out, err);
}

static ibf_status_t read_file(const ibf_fabric_t *f, const char *path,
			      uint32_t copies, bool repeats,
			      ibf_hostlist_t *out, ibf_err_t *err)
{
	ibf_status_t st;
	ibf_text_t t;

	memset(out, 0, sizeof(*out));
	if ((st = ibf_text_load(&t, path, err)) != IBF_OK)
		return st;
	st = read_list(f, &t, copies, repeats, out, err);
	ibf_text_free(&t);
	return st;
}

ibf_status_t ibf_hosts_read(const ibf_fabric_t *f, const char *path,
			    ibf_hostlist_t *out, ibf_err_t *err)
{
	return read_file(f, path, 1, false, out, err);
}

ibf_status_t ibf_hosts_read_ranks(const ibf_fabric_t *f, const char *path,
				  uint32_t ppn, ibf_hostlist_t *out,
				  ibf_err_t *err)
{
	if (ppn < 1)
		return ibf_err_set(err, IBF_ERR_INVALID, "%u ranks per host",
				   ppn);
	return read_file(f, path, ppn, true, out, err);
}

ibf_status_t ibf_hosts_write(const ibf_fabric_t *f, const ibf_hostlist_t *h,
			     FILE *fp, ibf_err_t *err)
{
	uint32_t i;

	for (i = 0; i < h->n; i++) {
		ibf_names_write_host(f, h->ports[i], fp, true);
		fputc('\n', fp);
	}
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write failed");
	return IBF_OK;
}

void ibf_hostlist_free(ibf_hostlist_t *h)
{
	free(h->ports);
	h->ports = NULL;
	h->n = 0;
}
