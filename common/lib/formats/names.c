/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Host names in line-oriented files; see names.h. */
#include "formats/names.h"

#include <string.h>

bool ibf_names_blank(char c)
{
	return c == ' ' || c == '\t';
}

size_t ibf_names_first_word(const char *s, const char **w)
{
	size_t n = 0;

	while (ibf_names_blank(*s))
		s++;
	*w = s;
	while (s[n] && !ibf_names_blank(s[n]))
		n++;
	return n;
}

void ibf_names_strip_comment(char *s)
{
	bool quoted = false;
	char *p;

	for (p = s; *p; p++) {
		if (quoted && *p == '\\' && p[1])
			p++; /* an escaped character */
		else if (*p == '"')
			quoted = !quoted;
		else if (*p == '#' && !quoted &&
			 (p == s || ibf_names_blank(p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

char *ibf_names_trim(char *s)
{
	char *e;

	while (ibf_names_blank(*s))
		s++;
	e = s + strlen(s);
	while (e > s && ibf_names_blank(e[-1]))
		*--e = '\0';
	return s;
}

bool ibf_names_scan_quoted(const char **s, char *out, size_t len)
{
	const char *p = *s;
	size_t n = 0;

	if (*p++ != '"')
		return false;
	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
			p++;
		if (n + 1 >= len)
			return false;
		out[n++] = *p;
	}
	if (*p != '"')
		return false;
	out[n] = '\0';
	*s = p + 1;
	return true;
}

/* A quoted word at *s, unescaped in place (the name shrinks, never
 * grows); *s moves past it and its blank. */
static ibf_status_t quoted_word(const ibf_text_t *t, char **s, ibf_word_t *w,
				ibf_err_t *err)
{
	char *r = *s + 1, *o = *s + 1;

	while (*r && *r != '"') {
		if (*r == '\\' && (r[1] == '"' || r[1] == '\\'))
			r++;
		*o++ = *r++;
	}
	if (!*r)
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "unterminated quoted name");
	if (r[1] && !ibf_names_blank(r[1]))
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "no blank after a quoted name");
	if (o == *s + 1)
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "empty host name");
	w->s = *s + 1;
	w->quoted = true;
	*o = '\0';
	*s = r + 1 + (r[1] != '\0');
	return IBF_OK;
}

ibf_status_t ibf_words_split(const ibf_text_t *t, char *s, ibf_words_t *w,
			     ibf_err_t *err)
{
	ibf_status_t st;

	ibf_names_strip_comment(s);
	w->n = 0;
	for (;;) {
		while (ibf_names_blank(*s))
			s++;
		if (!*s)
			break;
		if (w->n == IBF_WORDS_MAX)
			return ibf_text_error(t, err, IBF_ERR_PARSE,
					      "more than %u words on a line",
					      IBF_WORDS_MAX);
		if (*s == '"') {
			if ((st = quoted_word(t, &s, &w->w[w->n], err)) !=
			    IBF_OK)
				return st;
			w->n++;
			continue;
		}
		w->w[w->n].s = s;
		w->w[w->n++].quoted = false;
		while (*s && !ibf_names_blank(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	w->w[w->n].s = NULL;
	return IBF_OK;
}

bool ibf_words_join(const ibf_words_t *w, unsigned a, unsigned b,
		    char *name, size_t size)
{
	size_t len = 0;
	unsigned i;

	for (i = a; i < b; i++) {
		size_t n = strlen(w->w[i].s);

		if ((w->w[i].quoted && b - a > 1) || len + n + 2 > size)
			return false;
		if (i > a)
			name[len++] = ' ';
		memcpy(name + len, w->w[i].s, n);
		len += n;
	}
	name[len] = '\0';
	return true;
}

/* Words [a, b) as one host of the lookup. */
static ibf_status_t lookup_words(const ibf_words_t *w, unsigned a,
				 unsigned b, ibf_names_lookup_fn lookup,
				 void *ctx, uint32_t *id, ibf_err_t *err)
{
	char name[IBF_NAME_MAX];

	if (!ibf_words_join(w, a, b, name, sizeof(name)))
		return ibf_err_set(err, IBF_ERR_NOT_FOUND, "no such host");
	return lookup(ctx, name, id, err);
}

int ibf_words_pairs(const ibf_words_t *w, unsigned nhost,
		    ibf_names_lookup_fn lookup, void *ctx,
		    ibf_names_pair_t *found, unsigned max, ibf_err_t *plain)
{
	unsigned k, nfound = 0;

	for (k = 1; k < nhost && nfound < max; k++) {
		ibf_names_pair_t p = { k, 0, 0 };
		ibf_status_t st;
		ibf_err_t e;

		ibf_err_clear(&e);
		st = lookup_words(w, 0, k, lookup, ctx, &p.a, &e);
		if (st == IBF_OK)
			st = lookup_words(w, k, nhost, lookup, ctx, &p.b, &e);
		if (st != IBF_OK && st != IBF_ERR_NOT_FOUND) {
			*plain = e;
			return -1;
		}
		if (st != IBF_OK) {
			if (k == 1 && nhost == 2 && !plain->status)
				*plain = e;
			continue;
		}
		found[nfound++] = p;
	}
	return (int)nfound;
}

/* Can a name be written bare?  In host lists inner blanks are fine; in
 * traffic and RTT files they are not.  A leading '#' or '"', outer blanks
 * and a " #" inside would read differently. */
static bool needs_quotes(const char *s, bool inner_blanks_ok)
{
	const char *p;

	if (!*s || *s == '"' || *s == '#' || ibf_names_blank(*s) ||
	    ibf_names_blank(s[strlen(s) - 1]))
		return true;
	for (p = s; *p; p++)
		if ((ibf_names_blank(*p) && !inner_blanks_ok) || *p == '"' ||
		    (*p == '#' && p > s && ibf_names_blank(p[-1])))
			return true;
	return false;
}

void ibf_names_write(const char *name, FILE *fp, bool inner_blanks_ok)
{
	if (!needs_quotes(name, inner_blanks_ok)) {
		fputs(name, fp);
		return;
	}
	fputc('"', fp);
	for (; *name; name++) {
		if (*name == '"' || *name == '\\')
			fputc('\\', fp);
		fputc(*name, fp);
	}
	fputc('"', fp);
}

bool ibf_names_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

void ibf_names_write_host(const ibf_fabric_t *f, ibf_port_id_t p, FILE *fp,
			  bool inner_blanks_ok)
{
	char buf[IBF_NAME_MAX];
	const char *name = ibf_port_host_name(f, p, buf, sizeof(buf));
	ibf_port_id_t back;

	/* Write only what reads back as this very port (a description
	 * shared by several nodes would not). */
	if (ibf_names_has_control(name) ||
	    ibf_fabric_resolve_host(f, name, &back, NULL) != IBF_OK ||
	    back != p)
		fprintf(fp, "0x%016llx",
			(unsigned long long)ibf_port(f, p)->guid);
	else
		ibf_names_write(name, fp, inner_blanks_ok);
}
