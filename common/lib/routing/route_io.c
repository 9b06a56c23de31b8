/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * A routing's side files: its host order (a host list) and its SLs (the SL
 * file of sl_io.h).
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/hosts.h>
#include <ibflow/io.h>
#include <ibflow/route.h>
#include <ibflow/sl_io.h>

#include "routing/route_internal.h"

/* The order as a host list: names quoted where they need it, port GUIDs
 * where a name does not name one port.  The text is read back against
 * the fabric before anyone sees it: a list that would not give back every
 * host in this order is an error, never a shorter list. */
ibf_status_t ibf_order_text(const ibf_routing_t *r, const char *name,
			    char **buf, size_t *len, ibf_err_t *err)
{
	ibf_hostlist_t h = { r->order, r->norder }, back;
	ibf_text_t t;
	FILE *mem;
	ibf_status_t st;

	*buf = NULL;
	*len = 0;
	mem = open_memstream(buf, len);
	if (!mem)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = ibf_hosts_write(r->fabric, &h, mem, err);
	if (fclose(mem) && st == IBF_OK)
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	if (st == IBF_OK)
		st = ibf_text_from_buf(&t, name, *buf, *len, err);
	if (st == IBF_OK) {
		st = ibf_hosts_read_text(r->fabric, &t, &back, err);
		ibf_text_free(&t);
		if (st != IBF_OK)
			ibf_err_prefix(err, "host order does not read back: ");
		else if (back.n != h.n ||
			 memcmp(back.ports, h.ports, h.n * sizeof(*h.ports)))
			st = ibf_err_set(err, IBF_ERR_INVALID, "host order "
					 "reads back as %u hosts of %u",
					 back.n, h.n);
		ibf_hostlist_free(&back);
	}
	if (st != IBF_OK) {
		free(*buf);
		*buf = NULL;
	}
	return st;
}

ibf_status_t ibf_routing_write_order(const ibf_routing_t *r,
				     const char *path, ibf_err_t *err)
{
	ibf_ofile_t o;
	char *buf;
	size_t len;
	ibf_status_t st;

	st = ibf_order_text(r, path, &buf, &len, err);
	if (st == IBF_OK)
		st = ibf_ofile_open(&o, path, err);
	if (st == IBF_OK) {
		fwrite(buf, 1, len, o.fp);
		st = ibf_ofile_commit(&o, err);
	}
	free(buf);
	return st;
}

void ibf_sls_from_routing(const ibf_routing_t *r, ibf_sls_t *out)
{
	memset(out, 0, sizeof(*out));
	out->fabric = r->fabric;
	out->by_dlid = r->sl_by_dlid;
	out->by_pair = r->sl_by_pair;
	out->nsls = r->nsls ? r->nsls : 1;
}

void ibf_routing_write_sl_fp(const ibf_routing_t *r, FILE *fp)
{
	ibf_sls_t s;

	ibf_sls_from_routing(r, &s);
	ibf_sls_write(&s, r->engine, fp);
}

ibf_status_t ibf_routing_write_sl(const ibf_routing_t *r, const char *path,
				  ibf_err_t *err)
{
	ibf_sls_t s;

	ibf_sls_from_routing(r, &s);
	return ibf_sls_write_file(&s, r->engine, path, err);
}
