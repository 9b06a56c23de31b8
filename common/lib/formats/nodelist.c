/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Slurm hostlist expressions, expanded (nodelist.h; docs/order.md).  An
 * expression is parsed whole into literal parts and bracket groups before
 * a single name is made, so a bad expression adds nothing; the count of
 * names is known (and bounded) before any is allocated.
 */
#include <ibflow/nodelist.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "formats/names.h"

#define MAX_DIGITS 18   /* a number fits uint64_t with room for +1 */
#define MAX_GROUPS 16   /* bracket groups in one expression */

typedef struct range {
	uint64_t lo, hi;
	unsigned width;  /* digits the first number was written with */
} range_t;

/* A part of an expression: literal text, or a bracket group. */
typedef struct part {
	const char *lit;   /* NULL for a group */
	size_t len;        /* literal: bytes; group: first range index */
	uint32_t nranges;  /* group only */
} part_t;

typedef struct expr {
	part_t parts[2 * MAX_GROUPS + 1];
	unsigned nparts, ngroups;
	range_t *ranges;
	size_t nranges, cap;
} expr_t;

/* The text being parsed and where errors are reported: WHERE:LINE:COL. */
typedef struct parser {
	const char *where;
	unsigned line;
	const char *text;  /* columns count from here */
	const char *end;
	const char *p;     /* next character */
	ibf_err_t *err;
} parser_t;

static ibf_status_t perr(const parser_t *ps, const char *at,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static ibf_status_t perr(const parser_t *ps, const char *at,
			 const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ibf_err_set(ps->err, IBF_ERR_PARSE, "%s:%u:%zu: %s", ps->where,
			   ps->line, (size_t)(at - ps->text) + 1, what);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Ends a name outside brackets. */
static bool is_sep(char c)
{
	return c == ',' || ibf_names_blank(c);
}

/* A NUMBER at ps->p: its value and how many digits it was written with. */
static ibf_status_t number(parser_t *ps, uint64_t *v, unsigned *digits)
{
	const char *s = ps->p;

	*v = 0;
	while (ps->p < ps->end && is_digit(*ps->p)) {
		if (ps->p - s == MAX_DIGITS)
			return perr(ps, s, "number longer than %u digits",
				    MAX_DIGITS);
		*v = *v * 10 + (uint64_t)(*ps->p - '0');
		ps->p++;
	}
	if (ps->p == s)
		return perr(ps, s, "%s", ps->p < ps->end &&
			    (*ps->p == ']' || *ps->p == ',') ?
			    "empty range in brackets" :
			    "expected a number in brackets");
	*digits = (unsigned)(ps->p - s);
	return IBF_OK;
}

/* Every range names at least one host: more ranges than names allowed
 * is refused before they take memory. */
static ibf_status_t add_range(parser_t *ps, expr_t *e, const range_t *r,
			      const char *at)
{
	range_t *n;

	if (e->nranges == IBF_NODELIST_MAX)
		return perr(ps, at, "more than %u names", IBF_NODELIST_MAX);
	n = ibf_array_grow(e->ranges, &e->cap, e->nranges + 1,
			   sizeof(*e->ranges));
	if (!n)
		return ibf_err_set(ps->err, IBF_ERR_NOMEM, "out of memory");
	e->ranges = n;
	e->ranges[e->nranges++] = *r;
	return IBF_OK;
}

/* RANGE: NUMBER [ '-' NUMBER ] */
static ibf_status_t one_range(parser_t *ps, expr_t *e)
{
	const char *s = ps->p;
	unsigned d;
	range_t r;
	ibf_status_t st;

	if ((st = number(ps, &r.lo, &r.width)) != IBF_OK)
		return st;
	r.hi = r.lo;
	if (ps->p < ps->end && *ps->p == '-') {
		ps->p++;
		if ((st = number(ps, &r.hi, &d)) != IBF_OK)
			return st;
		if (r.hi < r.lo)
			return perr(ps, s, "range %.*s ends below its start",
				    (int)(ps->p - s), s);
	}
	return add_range(ps, e, &r, s);
}

/* A bracket group; ps->p is just past its '['. */
static ibf_status_t group(parser_t *ps, expr_t *e)
{
	const char *open = ps->p - 1;
	part_t *g;
	ibf_status_t st;

	if (e->ngroups == MAX_GROUPS)
		return perr(ps, open, "more than %u bracket groups in one "
			    "name", MAX_GROUPS);
	/* Unclosed is said at the '[', not at whatever ends the text. */
	if (!memchr(ps->p, ']', (size_t)(ps->end - ps->p)))
		return perr(ps, open, "'[' without ']'");
	g = &e->parts[e->nparts++];
	g->lit = NULL;
	g->len = e->nranges;
	e->ngroups++;
	for (;;) {
		if ((st = one_range(ps, e)) != IBF_OK)
			return st;
		if (*ps->p == ']')
			break;
		if (*ps->p != ',')
			return perr(ps, ps->p, "'%c' in brackets (expected "
				    "',' or ']')", *ps->p);
		ps->p++;
	}
	ps->p++;
	g->nranges = (uint32_t)(e->nranges - g->len);
	return IBF_OK;
}

/* One name pattern at ps->p, up to a separator or the end. */
static ibf_status_t parse_expr(parser_t *ps, expr_t *e)
{
	ibf_status_t st;

	e->nparts = e->ngroups = 0;
	e->nranges = 0;
	while (ps->p < ps->end && !is_sep(*ps->p)) {
		const char *s = ps->p;

		if (*s == '[') {
			ps->p++;
			if ((st = group(ps, e)) != IBF_OK)
				return st;
			continue;
		}
		if (*s == ']')
			return perr(ps, s, "']' without '['");
		while (ps->p < ps->end && !is_sep(*ps->p) && *ps->p != '[' &&
		       *ps->p != ']')
			ps->p++;
		e->parts[e->nparts].lit = s;
		e->parts[e->nparts++].len = (size_t)(ps->p - s);
	}
	return IBF_OK;
}

/* How many names e stands for, at most limit (else false). */
static bool count_names(const expr_t *e, uint64_t limit, uint64_t *n)
{
	unsigned i;
	uint32_t k;

	*n = 1;
	for (i = 0; i < e->nparts; i++) {
		const part_t *g = &e->parts[i];
		uint64_t sum = 0;

		if (g->lit)
			continue;
		for (k = 0; k < g->nranges; k++) {
			const range_t *r = &e->ranges[g->len + k];

			if (r->hi - r->lo >= limit)
				return false;
			sum += r->hi - r->lo + 1;
			if (sum > limit)
				return false;
		}
		if (*n > limit / sum)
			return false;
		*n *= sum;
	}
	return true;
}

/* Odometer over the groups: range index and value of each. */
typedef struct cursor {
	uint32_t r[MAX_GROUPS];
	uint64_t v[MAX_GROUPS];
} cursor_t;

static void cursor_start(const expr_t *e, cursor_t *c)
{
	unsigned i, g = 0;

	for (i = 0; i < e->nparts; i++)
		if (!e->parts[i].lit) {
			c->r[g] = 0;
			c->v[g++] = e->ranges[e->parts[i].len].lo;
		}
}

/* Next combination, the rightmost group fastest. */
static void cursor_next(const expr_t *e, cursor_t *c)
{
	unsigned i = e->nparts, g = e->ngroups;

	while (i-- > 0) {
		const part_t *p = &e->parts[i];

		if (p->lit)
			continue;
		g--;
		if (c->v[g] < e->ranges[p->len + c->r[g]].hi) {
			c->v[g]++;
			return;
		}
		if (c->r[g] + 1 < p->nranges) {
			c->r[g]++;
			c->v[g] = e->ranges[p->len + c->r[g]].lo;
			return;
		}
		c->r[g] = 0;
		c->v[g] = e->ranges[p->len].lo;
	}
}

/* The name at the cursor, or NULL when longer than IBF_NODENAME_MAX - 1
 * (*toolong) or out of memory. */
static char *make_name(const expr_t *e, const cursor_t *c, bool *toolong)
{
	char buf[IBF_NODENAME_MAX + 24];
	size_t n = 0;
	unsigned i, g = 0;

	*toolong = false;
	for (i = 0; i < e->nparts && n < IBF_NODENAME_MAX; i++) {
		const part_t *p = &e->parts[i];
		int w;

		if (p->lit && p->len >= IBF_NODENAME_MAX - n) {
			n = IBF_NODENAME_MAX;
			break;
		}
		if (p->lit) {
			memcpy(buf + n, p->lit, p->len);
			n += p->len;
			continue;
		}
		w = snprintf(buf + n, sizeof(buf) - n, "%0*" PRIu64,
			     (int)e->ranges[p->len + c->r[g]].width, c->v[g]);
		g++;
		n += (size_t)w;
	}
	if (n >= IBF_NODENAME_MAX) {
		*toolong = true;
		return NULL;
	}
	return strndup(buf, n);
}

static ibf_status_t grow(ibf_nodelist_t *nl, uint64_t more, ibf_err_t *err)
{
	char **n = ibf_array_grow32(nl->names, &nl->cap, nl->n + more,
				    sizeof(*nl->names));

	if (!n)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	nl->names = n;
	return IBF_OK;
}

/* Append the names of e (parsed from [s, ps->p)). */
static ibf_status_t emit(parser_t *ps, const expr_t *e, const char *s,
			 ibf_nodelist_t *nl)
{
	uint64_t n, i;
	cursor_t c;
	bool toolong;
	ibf_status_t st;

	if (!count_names(e, IBF_NODELIST_MAX - nl->n, &n))
		return perr(ps, s, "more than %u names", IBF_NODELIST_MAX);
	if ((st = grow(nl, n, ps->err)) != IBF_OK)
		return st;
	cursor_start(e, &c);
	for (i = 0; i < n; i++) {
		char *name = make_name(e, &c, &toolong);

		if (!name)
			return toolong ?
			       perr(ps, s, "name longer than %u characters",
				    IBF_NODENAME_MAX - 1) :
			       ibf_err_set(ps->err, IBF_ERR_NOMEM,
					   "out of memory");
		nl->names[nl->n++] = name;
		cursor_next(e, &c);
	}
	return IBF_OK;
}

static void skip_blanks(parser_t *ps)
{
	while (ps->p < ps->end && ibf_names_blank(*ps->p))
		ps->p++;
}

/* LIST: expressions separated by one ',' or by blanks. */
static ibf_status_t parse_list(parser_t *ps, ibf_nodelist_t *nl)
{
	expr_t e = { .ranges = NULL };
	ibf_status_t st = IBF_OK;
	bool need = false;   /* a ',' was read: a name must follow */

	skip_blanks(ps);
	while (st == IBF_OK && (ps->p < ps->end || need)) {
		const char *s = ps->p;

		if ((st = parse_expr(ps, &e)) != IBF_OK)
			break;
		if (ps->p == s) {
			st = perr(ps, s, "empty name%s", need ?
				  " after ','" : " before ','");
			break;
		}
		if ((st = emit(ps, &e, s, nl)) != IBF_OK)
			break;
		skip_blanks(ps);
		need = ps->p < ps->end && *ps->p == ',';
		if (need) {
			ps->p++;
			skip_blanks(ps);
		}
	}
	free(e.ranges);
	return st;
}

/* Drop the names appended since n0. */
static void truncate_to(ibf_nodelist_t *nl, uint32_t n0)
{
	while (nl->n > n0)
		free(nl->names[--nl->n]);
}

/* A NUL, a line break or another control character (a tab is a blank)
 * has no place in a host name. */
static const char *first_control(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') ||
		    s[i] == 0x7f)
			return s + i;
	return NULL;
}

ibf_status_t ibf_nodelist_expand(ibf_nodelist_t *nl, const char *text,
				 size_t len, const char *where, unsigned line,
				 ibf_err_t *err)
{
	parser_t ps = { where, line, text, text + len, text, err };
	const char *c = first_control(text, len);
	uint32_t n0 = nl->n;
	ibf_status_t st;

	if (c)
		return perr(&ps, c, "control character 0x%02x",
			    (unsigned)(unsigned char)*c);
	st = parse_list(&ps, nl);
	if (st != IBF_OK)
		truncate_to(nl, n0);
	return st;
}

ibf_status_t ibf_nodelist_read_text(ibf_nodelist_t *nl, ibf_text_t *t,
				    ibf_err_t *err)
{
	uint32_t n0 = nl->n;
	ibf_status_t st = IBF_OK;
	char *line;

	ibf_text_rewind(t);
	while (st == IBF_OK && (line = ibf_text_next_line(t)) != NULL) {
		ibf_names_strip_comment(line);
		st = ibf_nodelist_expand(nl, line, strlen(line), t->name,
					 t->line, err);
	}
	if (st != IBF_OK)
		truncate_to(nl, n0);
	return st;
}

ibf_status_t ibf_nodelist_read(ibf_nodelist_t *nl, const char *path,
			       ibf_err_t *err)
{
	ibf_text_t t;
	ibf_status_t st = ibf_text_load(&t, path, err);

	if (st != IBF_OK)
		return st;
	st = ibf_nodelist_read_text(nl, &t, err);
	ibf_text_free(&t);
	return st;
}

void ibf_nodelist_free(ibf_nodelist_t *nl)
{
	truncate_to(nl, 0);
	free(nl->names);
	memset(nl, 0, sizeof(*nl));
}
