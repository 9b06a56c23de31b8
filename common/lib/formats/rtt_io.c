/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * RTT files ("A B RTT" / "A B MIN MAX"); see rtt_io.h.
 *
 * A line is cut into words (a word starting with '"' runs to the next
 * '"'), the last one or two words are the values, the words before them
 * name the two hosts.  The two-value form is tried first: with a lookup a
 * line "A B 5 7" could also be read as hosts "A" and "B 5" - that reading
 * is taken only when the first one names no two hosts.
 */
#include <ibflow/rtt_io.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "formats/names.h"

static bool number(const ibf_word_t *w, double *v)
{
	char *e;

	if (w->quoted || !*w->s)
		return false;
	*v = strtod(w->s, &e);
	return !*e;
}

/* ---- names -------------------------------------------------------------- */

struct names {
	ibf_rtt_lookup_fn lookup;
	void *ctx;
	/* Hosts defined by the file. */
	char *pool;
	size_t len, cap;
	uint32_t *off;
	uint32_t n, ncap;
	struct ibf_hash *index;
};

/* A host of the file: its index, new hosts added. */
static ibf_status_t intern(struct names *nm, const char *name, uint32_t *idx)
{
	size_t len = strlen(name) + 1;
	uint32_t v;

	if (!nm->index &&
	    !(nm->index = ibf_hash_create_str((const char *const *)&nm->pool)))
		return IBF_ERR_NOMEM;
	if (nm->pool && (v = ibf_hash_get_str(nm->index, name)) != UINT32_MAX) {
		*idx = v;
		return IBF_OK;
	}
	if (nm->len + len > nm->cap) {
		char *p = ibf_array_grow(nm->pool, &nm->cap, nm->len + len, 1);

		if (!p || nm->len + len > UINT32_MAX)
			return IBF_ERR_NOMEM;
		nm->pool = p;
	}
	if (nm->n == nm->ncap) {
		uint32_t *o = ibf_array_grow32(nm->off, &nm->ncap,
					       (uint64_t)nm->n + 1, sizeof(*o));

		if (!o)
			return IBF_ERR_NOMEM;
		nm->off = o;
	}
	memcpy(nm->pool + nm->len, name, len);
	nm->off[nm->n] = (uint32_t)nm->len;
	if (ibf_hash_put_str(nm->index, (uint32_t)nm->len, nm->n, NULL) !=
	    IBF_OK)
		return IBF_ERR_NOMEM;
	nm->len += len;
	*idx = nm->n++;
	return IBF_OK;
}

static void names_free(struct names *nm)
{
	ibf_hash_destroy(nm->index);
	free(nm->pool);
	free(nm->off);
}

/* The file's lookup for ibf_words_pairs(). */
static ibf_status_t lookup_name(void *ctx, const char *name, uint32_t *id,
				ibf_err_t *err)
{
	const struct names *nm = ctx;
	ibf_status_t st = nm->lookup(nm->ctx, name, id);

	if (st != IBF_OK)
		ibf_err_set(err, st, "host lookup failed");
	return st;
}

/* Words [0, k) as two hosts of the lookup: how many splits name two hosts
 * (at most 2; the first one in *p), -1 if the lookup failed. */
static int lookup_split(const struct names *nm, const ibf_words_t *w,
			unsigned k, ibf_names_pair_t *p, ibf_status_t *st)
{
	ibf_names_pair_t found[2];
	ibf_err_t e;
	int n;

	ibf_err_clear(&e);
	n = ibf_words_pairs(w, k, lookup_name, (void *)nm, found, 2, &e);
	*st = n < 0 ? e.status : IBF_OK;
	if (n > 0)
		*p = found[0];
	return n;
}

/* ---- lines -------------------------------------------------------------- */

static ibf_status_t check_value(const ibf_text_t *t, const ibf_word_t *w,
				double v, ibf_err_t *err)
{
	if (!isfinite(v))
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "'%s' is not a finite number", w->s);
	if (v < 0)
		return ibf_text_error(t, err, IBF_ERR_RANGE, "negative RTT %s",
				      w->s);
	return IBF_OK;
}

/* Word i of a line as a host of the file: its index, a new host added. */
static ibf_status_t intern_word(struct names *nm, const ibf_text_t *t,
				const ibf_words_t *w, unsigned i,
				uint32_t *idx, ibf_err_t *err)
{
	char name[IBF_NAME_MAX];

	if (!ibf_words_join(w, i, i + 1, name, sizeof(name)))
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "host name longer than %d bytes",
				      IBF_NAME_MAX - 2);
	if (intern(nm, name, idx) != IBF_OK)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	return IBF_OK;
}

/* Hosts without a lookup: exactly two names before the values. */
static ibf_status_t open_names(struct names *nm, const ibf_text_t *t,
			       const ibf_words_t *w, unsigned k, uint32_t *a,
			       uint32_t *b, ibf_err_t *err)
{
	ibf_status_t st;

	if (k != 2)
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "expected A B RTT or A B MIN MAX "
				      "(quote names with blanks)");
	if ((st = intern_word(nm, t, w, 0, a, err)) != IBF_OK)
		return st;
	return intern_word(nm, t, w, 1, b, err);
}

/* Hosts of the lookup: the two-number reading first, then one number. */
static ibf_status_t lookup_names(struct names *nm, const ibf_text_t *t,
				 const ibf_words_t *w, bool *two,
				 ibf_rtt_meas_t *m, ibf_err_t *err)
{
	ibf_names_pair_t p = { 0, 0, 0 };
	ibf_status_t st = IBF_OK;
	int found = 0;

	if (*two) {
		found = lookup_split(nm, w, w->n - 2, &p, &st);
		if (found == 0)
			*two = false;
	}
	if (!*two && found >= 0)
		found = lookup_split(nm, w, w->n - 1, &p, &st);
	if (found < 0)
		return ibf_text_error(t, err, st, "host lookup failed");
	if (found > 1)
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "ambiguous host names (quote them)");
	if (!found)
		return ibf_text_error(t, err, IBF_ERR_NOT_FOUND,
				      "no two hosts named here");
	m->a = p.a;
	m->b = p.b;
	return IBF_OK;
}

/* "# hosts: A B ..." in a file that defines its hosts: they are numbered
 * in that order (then any others by first appearance), so that a file
 * whose first lines would number them otherwise keeps its numbering.
 * A comment elsewhere. */
static ibf_status_t hosts_line(struct names *nm, const ibf_text_t *t,
			       char *s, ibf_err_t *err)
{
	ibf_words_t w;
	ibf_status_t st = ibf_words_split(t, s, &w, err);
	uint32_t idx;

	for (unsigned i = 0; st == IBF_OK && i < w.n; i++)
		st = intern_word(nm, t, &w, i, &idx, err);
	return st;
}

static ibf_status_t parse_line(struct names *nm, const ibf_text_t *t,
			       char *s, ibf_rtt_meas_t *m, bool *empty,
			       ibf_err_t *err)
{
	const size_t tag = strlen(IBF_RTT_HOSTS_TAG);
	ibf_words_t w;
	const ibf_word_t *last;
	double v1 = 0, v2;
	bool two;
	unsigned k;
	ibf_status_t st;

	if (!nm->lookup && !strncmp(s, IBF_RTT_HOSTS_TAG, tag)) {
		*empty = true;
		return hosts_line(nm, t, s + tag, err);
	}
	if ((st = ibf_words_split(t, s, &w, err)) != IBF_OK)
		return st;
	*empty = w.n == 0;
	if (*empty)
		return IBF_OK;
	if (w.n < 3)
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "expected A B RTT or A B MIN MAX");
	last = &w.w[w.n - 1];
	if (!number(last, &v2))
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "'%s' is not a number (RTT)", last->s);
	two = w.n >= 4 && number(&w.w[w.n - 2], &v1);
	if (!nm->lookup) {
		if (two && w.n != 4)
			two = false;
		st = open_names(nm, t, &w, w.n - 1 - two, &m->a, &m->b, err);
	} else {
		st = lookup_names(nm, t, &w, &two, m, err);
	}
	if (st != IBF_OK)
		return st;
	k = w.n - 1 - two;
	if ((st = check_value(t, last, v2, err)) != IBF_OK ||
	    (two && (st = check_value(t, &w.w[k], v1, err)) != IBF_OK))
		return st;
	if (m->a == m->b)
		return ibf_text_error(t, err, IBF_ERR_INVALID,
				      "a host with itself");
	if (two && v1 > v2)
		return ibf_text_error(t, err, IBF_ERR_INVALID,
				      "MIN %s is larger than MAX %s",
				      w.w[k].s, last->s);
	m->min = two ? v1 : v2;
	m->max = v2;
	m->line = t->line;
	return IBF_OK;
}

static ibf_status_t push(ibf_rtt_set_t *s, uint32_t *cap,
			 const ibf_rtt_meas_t *m, ibf_err_t *err)
{
	if (s->n == *cap) {
		ibf_rtt_meas_t *nm = ibf_array_grow32(s->m, cap,
						      (uint64_t)s->n + 1,
						      sizeof(*nm));

		if (!nm)
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
		s->m = nm;
	}
	s->m[s->n++] = *m;
	return IBF_OK;
}

/* Hand the file's host names over as separate strings. */
static ibf_status_t take_names(struct names *nm, ibf_rtt_set_t *s,
			       ibf_err_t *err)
{
	uint32_t i;

	if (!nm->n)
		return IBF_OK;
	s->names = calloc(nm->n, sizeof(*s->names));
	if (!s->names)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < nm->n; i++)
		if (!(s->names[s->nnames++] = strdup(nm->pool + nm->off[i])))
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
	return IBF_OK;
}

ibf_status_t ibf_rtt_read_text(ibf_text_t *t, ibf_rtt_lookup_fn lookup,
			       void *ctx, ibf_rtt_set_t *out, ibf_err_t *err)
{
	struct names nm = { .lookup = lookup, .ctx = ctx };
	ibf_status_t st = IBF_OK;
	uint32_t cap = 0;
	char *line;

	memset(out, 0, sizeof(*out));
	while ((line = ibf_text_next_line(t)) != NULL) {
		ibf_rtt_meas_t m;
		bool empty;

		st = parse_line(&nm, t, line, &m, &empty, err);
		if (st != IBF_OK)
			break;
		if (!empty && (st = push(out, &cap, &m, err)) != IBF_OK)
			break;
	}
	if (st == IBF_OK && !out->n)
		st = ibf_err_set(err, IBF_ERR_INVALID, "%s: no measurements",
				 t->name);
	if (st == IBF_OK)
		st = take_names(&nm, out, err);
	names_free(&nm);
	if (st != IBF_OK)
		ibf_rtt_set_free(out);
	return st;
}

ibf_status_t ibf_rtt_read(const char *path, ibf_rtt_lookup_fn lookup,
			  void *ctx, ibf_rtt_set_t *out, ibf_err_t *err)
{
	ibf_text_t t;
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	if ((st = ibf_text_load(&t, path, err)) != IBF_OK)
		return st;
	st = ibf_rtt_read_text(&t, lookup, ctx, out, err);
	ibf_text_free(&t);
	return st;
}

void ibf_rtt_set_free(ibf_rtt_set_t *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->m);
	memset(s, 0, sizeof(*s));
}

/* ---- writing ------------------------------------------------------------ */

/* Tabs are blanks (quoted like spaces); other control characters would
 * break the line. */
static bool writable(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return false;
	return true;
}

static ibf_status_t put_name(FILE *fp, const char *s, ibf_err_t *err)
{
	if (!*s || !writable(s))
		return ibf_err_set(err, IBF_ERR_INVALID, "host name '%s' "
				   "cannot be written in an RTT file (empty or "
				   "with a control character)", s);
	ibf_names_write(s, fp, false);
	return IBF_OK;
}

ibf_status_t ibf_rtt_write_hosts(FILE *fp, const char *const *names,
				 uint32_t n, ibf_err_t *err)
{
	ibf_status_t st;
	uint32_t i;

	fputs(IBF_RTT_HOSTS_TAG, fp);
	for (i = 0; i < n; i++) {
		fputc(' ', fp);
		if ((st = put_name(fp, names[i], err)) != IBF_OK)
			return st;
	}
	fputc('\n', fp);
	return IBF_OK;
}

ibf_status_t ibf_rtt_write_line(FILE *fp, const char *a, const char *b,
				double min, double max, ibf_err_t *err)
{
	ibf_status_t st;

	if ((st = put_name(fp, a, err)) != IBF_OK)
		return st;
	fputc(' ', fp);
	if ((st = put_name(fp, b, err)) != IBF_OK)
		return st;
	if (min == max)
		fprintf(fp, " %.17g\n", min);
	else
		fprintf(fp, " %.17g %.17g\n", min, max);
	return IBF_OK;
}
