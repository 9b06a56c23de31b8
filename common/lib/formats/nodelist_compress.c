/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Names compressed into one Slurm hostlist expression (nodelist.h), the
 * inverse of ibf_nodelist_expand() up to order: "h0000 .. h0007 h0010"
 * becomes "h[0000-0007,0010]".
 *
 * A name is a prefix and its trailing number.  Names share a bracket
 * group when their prefixes are equal and their numbers print alike: a
 * zero-padded number ("0010") only with numbers of its width, since
 * expansion pads every number to the width its range's first number was
 * written with; numbers without leading zeros of that same width join
 * the padded group ("0999", "1000" are "[0999-1000]"), the others form
 * one unpadded group ("8", "9", "10" are "[8-10]").
 */
#include <ibflow/nodelist.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIGITS 18   /* as the expander reads them */

typedef struct entry {
	const char *name;
	size_t plen;       /* prefix length; the whole name when numberless */
	uint64_t value;
	unsigned width;    /* digits written; 0: no number */
	unsigned group;    /* printed width of its group; 0: unpadded */
} entry_t;

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Characters a hostlist treats as syntax, or that end a name. */
static bool hostlist_syntax(char c)
{
	return c == ',' || c == '[' || c == ']' || c == ' ' || c == '\t' ||
	       (unsigned char)c < 0x20 || c == 0x7f;
}

static void split(const char *name, entry_t *e)
{
	size_t len = strlen(name), i = len;

	while (i > 0 && digit(name[i - 1]))
		i--;
	e->name = name;
	e->plen = i;
	e->width = (unsigned)(len - i);
	e->value = 0;
	e->group = 0;
	if (!e->width || e->width > MAX_DIGITS) {
		e->plen = len;
		e->width = 0;
		return;
	}
	for (; i < len; i++)
		e->value = e->value * 10 + (uint64_t)(name[i] - '0');
}

static bool padded(const entry_t *e)
{
	return e->width > 1 && e->name[e->plen] == '0';
}

static int cmp_prefix(const entry_t *a, const entry_t *b)
{
	int c = memcmp(a->name, b->name, a->plen < b->plen ? a->plen : b->plen);

	if (c)
		return c;
	return (a->plen > b->plen) - (a->plen < b->plen);
}

/* Prefix, numberless first, then width: the runs that decide groups. */
static int cmp_width(const void *x, const void *y)
{
	const entry_t *a = x, *b = y;
	int c = cmp_prefix(a, b);

	return c ? c : (a->width > b->width) - (a->width < b->width);
}

/* Prefix, numberless first, then group, then value: the output order. */
static int cmp_group(const void *x, const void *y)
{
	const entry_t *a = x, *b = y;
	int c = cmp_prefix(a, b);

	if (c)
		return c;
	if (!a->width || !b->width)
		return (a->width > 0) - (b->width > 0);
	if (a->group != b->group)
		return (a->group > b->group) - (a->group < b->group);
	return (a->value > b->value) - (a->value < b->value);
}

/* A run of equal prefix and width is padded to that width when one of
 * its numbers has a leading zero. */
static void assign_groups(entry_t *v, uint32_t n)
{
	uint32_t i, j, k;

	qsort(v, n, sizeof(*v), cmp_width);
	for (i = 0; i < n; i = j) {
		bool pad = false;

		for (j = i; j < n && !cmp_width(&v[i], &v[j]); j++)
			pad = pad || padded(&v[j]);
		for (k = i; pad && k < j; k++)
			v[k].group = v[k].width;
	}
	qsort(v, n, sizeof(*v), cmp_group);
}

static bool same_group(const entry_t *a, const entry_t *b)
{
	return a->width && b->width && !cmp_prefix(a, b) &&
	       a->group == b->group;
}

static void put_number(FILE *fp, const entry_t *e, uint64_t v)
{
	fprintf(fp, "%0*" PRIu64, (int)e->group, v);
}

/* v[0..n): one group; ranges of consecutive numbers, equal ones once. */
static void put_group(FILE *fp, const entry_t *v, uint32_t n)
{
	uint32_t i = 0, j;
	bool first = true;

	fwrite(v[0].name, 1, v[0].plen, fp);
	if (n == 1 || v[n - 1].value == v[0].value) {
		fputs(v[0].name + v[0].plen, fp);
		return;
	}
	fputc('[', fp);
	while (i < n) {
		for (j = i + 1; j < n && v[j].value <= v[j - 1].value + 1; j++)
			;
		fputs(first ? "" : ",", fp);
		first = false;
		put_number(fp, &v[i], v[i].value);
		if (v[j - 1].value != v[i].value) {
			fputc('-', fp);
			put_number(fp, &v[i], v[j - 1].value);
		}
		i = j;
	}
	fputc(']', fp);
}

static ibf_status_t check_names(const char *const *names, uint32_t n,
				ibf_err_t *err)
{
	uint32_t i;
	const char *s;

	for (i = 0; i < n; i++) {
		if (!names[i][0])
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "an empty name has no hostlist form");
		for (s = names[i]; *s; s++)
			if (hostlist_syntax(*s))
				return ibf_err_set(err, IBF_ERR_INVALID,
						   "name '%s': '%c' cannot "
						   "stand in a hostlist",
						   names[i], *s);
	}
	return IBF_OK;
}

static void put_all(FILE *fp, const entry_t *v, uint32_t n)
{
	uint32_t i, j;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && same_group(&v[i], &v[j]); j++)
			;
		if (!v[i].width)   /* numberless: equal names once */
			for (j = i + 1; j < n && !cmp_group(&v[i], &v[j]); j++)
				;
		if (i)
			fputc(',', fp);
		put_group(fp, v + i, j - i);
	}
}

ibf_status_t ibf_nodelist_compress(const char *const *names, uint32_t n,
				   char **out, ibf_err_t *err)
{
	entry_t *v;
	size_t len = 0;
	FILE *fp;
	uint32_t i;
	ibf_status_t st;

	*out = NULL;
	st = check_names(names, n, err);
	if (st != IBF_OK)
		return st;
	v = malloc(sizeof(*v) * ((size_t)n + 1));
	fp = open_memstream(out, &len);
	if (!v || !fp) {
		free(v);
		if (fp)
			fclose(fp);
		free(*out);
		*out = NULL;
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		split(names[i], &v[i]);
	assign_groups(v, n);
	put_all(fp, v, n);
	free(v);
	if (fclose(fp) != 0 || !*out) {
		free(*out);
		*out = NULL;
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	return IBF_OK;
}
