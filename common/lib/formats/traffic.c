/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Traffic files, lines "SRC DST [COUNT]"; see traffic.h and
 * docs/formats-routing.md.
 *
 * NodeDescriptions contain blanks ("h0042 HCA-1"), so a line cannot simply
 * be split at blanks: names may be quoted, and unquoted words are tried
 * against the topology in every SRC/DST/COUNT split, exactly one of which
 * must name two hosts (formats/names.h).  The writer quotes every name
 * that would not read back bare and falls back to the port GUID for names
 * that cannot name one port.
 */
#include <ibflow/traffic.h>

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "formats/names.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Any name that names no single host is just not this split's reading
 * (ambiguous descriptions included: *err keeps why). */
static ibf_status_t lookup_host(void *ctx, const char *name, uint32_t *id,
				ibf_err_t *err)
{
	ibf_status_t st = ibf_fabric_resolve_host(ctx, name, id, err);

	return st == IBF_OK || st == IBF_ERR_NOMEM ? st : IBF_ERR_NOT_FOUND;
}

/* Describe a reading of the line for an ambiguity message. */
static void pair_str(const ibf_words_t *w, unsigned nhost,
		     const ibf_names_pair_t *p, char *buf, size_t len)
{
	char src[IBF_NAME_MAX], dst[IBF_NAME_MAX];

	ibf_words_join(w, 0, p->k, src, sizeof(src));
	ibf_words_join(w, p->k, nhost, dst, sizeof(dst));
	snprintf(buf, len, "\"%.60s\" -> \"%.60s\"%s%s", src, dst,
		 nhost < w->n ? " x " : "", nhost < w->n ? w->w[w->n - 1].s
							 : "");
}

/* COUNT: decimal, 1..UINT32_MAX. */
static bool parse_count(const char *s, uint32_t *count)
{
	uint64_t v = 0;

	for (; *s; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*count = (uint32_t)v;
	return v >= 1;
}

static ibf_status_t traffic_line(const ibf_fabric_t *f, const ibf_text_t *t,
				 char *line, ibf_flow_t *flow, bool *empty,
				 ibf_err_t *err)
{
	ibf_words_t w;
	ibf_names_pair_t found[2];
	unsigned nfound = 0, nhosts[2] = { 0, 0 }, nhost;
	ibf_status_t st;
	uint32_t count = 1;
	ibf_err_t plain;
	int n;

	*empty = false;
	if ((st = ibf_words_split(t, line, &w, err)) != IBF_OK)
		return st;
	if (w.n == 0) {
		*empty = true;
		return IBF_OK;
	}
	if (w.n == 1)
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "one name only: expected SRC DST "
				      "[COUNT]");
	ibf_err_clear(&plain);
	/* nhost = n: no COUNT; nhost = n - 1: the last word is COUNT. */
	for (nhost = w.n; nhost + 1 >= w.n && nhost >= 2 && nfound < 2;
	     nhost--) {
		if (nhost < w.n && (w.w[nhost].quoted ||
				    !all_digits(w.w[nhost].s)))
			continue;
		n = ibf_words_pairs(&w, nhost, lookup_host, (void *)f,
				    found + nfound, 2 - nfound, &plain);
		if (n < 0)
			return ibf_err_set(err, plain.status, "%s", plain.msg);
		for (int i = 0; i < n; i++)
			nhosts[nfound++] = nhost;
	}
	if (nfound == 0) {
		if (plain.status && w.n <= 3)
			return ibf_text_error(t, err, plain.status, "%s",
					      plain.msg);
		return ibf_text_error(t, err, IBF_ERR_NOT_FOUND,
				      "no reading of this line as SRC DST "
				      "[COUNT] names two hosts of the "
				      "topology (quote descriptions that "
				      "contain blanks)");
	}
	if (nfound > 1) {
		char a[200], b[200];

		pair_str(&w, nhosts[0], &found[0], a, sizeof(a));
		pair_str(&w, nhosts[1], &found[1], b, sizeof(b));
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "ambiguous line: %s or %s; quote the "
				      "names", a, b);
	}
	if (nhosts[0] < w.n) {
		const char *c = w.w[nhosts[0]].s;

		if (!parse_count(c, &count))
			return ibf_text_error(t, err, IBF_ERR_PARSE,
					      "COUNT %s: must be 1..%u", c,
					      UINT32_MAX);
	}
	if (found[0].a == found[0].b) {
		char buf[IBF_NAME_MAX];

		return ibf_text_error(t, err, IBF_ERR_INVALID,
				      "SRC and DST are the same host %s: "
				      "traffic to itself does not cross the "
				      "network",
				      ibf_port_host_name(f, found[0].a, buf,
							 sizeof(buf)));
	}
	flow->src = found[0].a;
	flow->dst = found[0].b;
	flow->count = count;
	return IBF_OK;
}

ibf_status_t ibf_traffic_read_text(const ibf_fabric_t *f, ibf_text_t *t,
				   ibf_traffic_t *out, ibf_err_t *err)
{
	ibf_traffic_t tr = { NULL, 0 };
	ibf_status_t st = IBF_OK;
	uint32_t cap = 0;
	char *line;

	memset(out, 0, sizeof(*out));
	if (!f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID, "fabric not finalized");
	ibf_text_rewind(t);
	while ((line = ibf_text_next_line(t)) != NULL) {
		ibf_flow_t flow;
		bool empty;

		st = traffic_line(f, t, line, &flow, &empty, err);
		if (st != IBF_OK)
			break;
		if (empty)
			continue;
		if (tr.n == cap) {
			ibf_flow_t *nf = ibf_array_grow32(tr.flows, &cap,
							  (uint64_t)tr.n + 1,
							  sizeof(*nf));

			if (!nf) {
				st = ibf_err_set(err, IBF_ERR_NOMEM,
						 "out of memory");
				break;
			}
			tr.flows = nf;
		}
		tr.flows[tr.n++] = flow;
	}
	if (st != IBF_OK) {
		ibf_traffic_free(&tr);
		return st;
	}
	*out = tr;
	return IBF_OK;
}

ibf_status_t ibf_traffic_read(const ibf_fabric_t *f, const char *path,
			      ibf_traffic_t *out, ibf_err_t *err)
{
	ibf_status_t st;
	ibf_text_t t;

	memset(out, 0, sizeof(*out));
	if ((st = ibf_text_load(&t, path, err)) != IBF_OK)
		return st;
	st = ibf_traffic_read_text(f, &t, out, err);
	ibf_text_free(&t);
	return st;
}

ibf_status_t ibf_traffic_write(const ibf_fabric_t *f, const ibf_traffic_t *tr,
			       FILE *fp, ibf_err_t *err)
{
	uint32_t i;

	for (i = 0; i < tr->n; i++) {
		const ibf_flow_t *fl = &tr->flows[i];

		ibf_names_write_host(f, fl->src, fp, false);
		fputc(' ', fp);
		ibf_names_write_host(f, fl->dst, fp, false);
		if (fl->count != 1)
			fprintf(fp, " %u", fl->count);
		fputc('\n', fp);
	}
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write failed");
	return IBF_OK;
}

void ibf_traffic_free(ibf_traffic_t *tr)
{
	free(tr->flows);
	tr->flows = NULL;
	tr->n = 0;
}
