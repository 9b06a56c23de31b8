/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Labels file (labels_io.h, docs/formats.md):
 *
 *   labels 1
 *   shape H M1,..,MH W1,..,WH P1,..,PH
 *   ports L D0,D1,D2,D3 U0,U1,U2,U3      (one per level 1..H; hex words)
 *   node 0xGUID LEVEL XH,..,X1
 *   link 0xGUID PORT K                   (a parallel switch link)
 *   ep 0xGUID PORT K PLACE               (a host port)
 *
 * '#' starts a comment line.  Lines are checked as read: a file that does
 * not parse is refused whole, with FILE:LINE.
 */
#include <ibflow/labels_io.h>
#include <ibflow/io.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_list(FILE *fp, const unsigned *v, unsigned h)
{
	unsigned l;

	for (l = 1; l <= h; l++)
		fprintf(fp, "%s%u", l > 1 ? "," : " ", v[l]);
}

static void write_body(FILE *fp, const ibf_pgft_memory_t *m)
{
	const ibf_pgft_shape_t *s = &m->shape;
	uint32_t i;
	unsigned l, j;

	fprintf(fp, "# ibflow labels: a PGFT labeling to keep "
		"(docs/formats.md)\nlabels 1\nshape %u", s->h);
	write_list(fp, s->m, s->h);
	write_list(fp, s->w, s->h);
	write_list(fp, s->p, s->h);
	fputc('\n', fp);
	for (l = 1; l <= s->h; l++) {
		fprintf(fp, "ports %u", l);
		for (j = 0; j < 4; j++)
			fprintf(fp, "%s%" PRIx64, j ? "," : " ",
				s->down_ports[l][j]);
		for (j = 0; j < 4; j++)
			fprintf(fp, "%s%" PRIx64, j ? "," : " ",
				s->up_ports[l][j]);
		fputc('\n', fp);
	}
	for (i = 0; i < m->nnodes; i++) {
		const ibf_pgft_mem_node_t *n = &m->nodes[i];

		fprintf(fp, "node 0x%016" PRIx64 " %u", n->guid, n->level);
		for (l = s->h; l >= 1; l--)
			fprintf(fp, "%s%u", l == s->h ? " " : ",",
				n->digit[l - 1]);
		fputc('\n', fp);
	}
	for (i = 0; i < m->nlinks; i++) {
		const ibf_pgft_mem_link_t *k = &m->links[i];

		if (k->place == IBF_PGFT_NO_PLACE)
			fprintf(fp, "link 0x%016" PRIx64 " %u %u\n", k->guid,
				k->port, k->k);
		else
			fprintf(fp, "ep 0x%016" PRIx64 " %u %u %u\n", k->guid,
				k->port, k->k, k->place);
	}
}

ibf_status_t ibf_labels_write_file(const char *path, const ibf_pgft_memory_t *m,
				   ibf_err_t *err)
{
	ibf_ofile_t o;
	ibf_status_t st = ibf_ofile_open(&o, path, err);

	if (st != IBF_OK)
		return st;
	write_body(o.fp, m);
	return ibf_ofile_commit(&o, err);
}

/* ---- reading ---------------------------------------------------------- */

/* "a,b,c" with exactly n values, each <= max, into v[1..n]. */
static bool read_list(const char *s, unsigned n, unsigned max, unsigned *v)
{
	unsigned l, x;
	int used;

	for (l = 1; l <= n; l++) {
		if (sscanf(s, "%u%n", &x, &used) != 1 || x > max)
			return false;
		v[l] = x;
		s += used;
		if (l < n && *s++ != ',')
			return false;
	}
	return *s == '\0';
}

static bool read_words(const char *s, uint64_t *w)
{
	int used;

	return sscanf(s, "%" SCNx64 ",%" SCNx64 ",%" SCNx64 ",%" SCNx64 "%n",
		      &w[0], &w[1], &w[2], &w[3], &used) == 4 && !s[used];
}

typedef struct lparse {
	ibf_text_t t;
	ibf_pgft_memory_t *m;
	uint32_t cap_n, cap_l;
	bool shape_seen;
} lparse_t;

static ibf_status_t bad(lparse_t *p, ibf_err_t *err, const char *what)
{
	return ibf_text_error(&p->t, err, IBF_ERR_PARSE, "%s", what);
}

static ibf_status_t parse_shape(lparse_t *p, const char *rest, ibf_err_t *err)
{
	ibf_pgft_shape_t *s = &p->m->shape;
	char a[256], b[256], c[256];
	unsigned h;
	int used;

	if (sscanf(rest, "%u %255s %255s %255s%n", &h, a, b, c, &used) != 4 ||
	    rest[used] || !h || h > IBF_PGFT_MAX_H ||
	    !read_list(a, h, 255, s->m) || !read_list(b, h, 255, s->w) ||
	    !read_list(c, h, 255, s->p))
		return bad(p, err, "expected 'shape H M1,.. W1,.. P1,..' "
			   "(H 1..16, values 0..255)");
	s->h = h;
	p->shape_seen = true;
	return IBF_OK;
}

static ibf_status_t parse_ports(lparse_t *p, const char *rest, ibf_err_t *err)
{
	ibf_pgft_shape_t *s = &p->m->shape;
	char d[128], u[128];
	unsigned l;
	int used;

	if (sscanf(rest, "%u %127s %127s%n", &l, d, u, &used) != 3 ||
	    rest[used] || !l || l > s->h || !read_words(d, s->down_ports[l]) ||
	    !read_words(u, s->up_ports[l]))
		return bad(p, err, "expected 'ports LEVEL D0,D1,D2,D3 "
			   "U0,U1,U2,U3' (hex words, LEVEL 1..H)");
	return IBF_OK;
}

static ibf_status_t grow(lparse_t *p, bool node, ibf_err_t *err)
{
	uint32_t *cap = node ? &p->cap_n : &p->cap_l;
	uint32_t have = node ? p->m->nnodes : p->m->nlinks;
	void **v = node ? (void **)&p->m->nodes : (void **)&p->m->links;
	size_t sz = node ? sizeof(*p->m->nodes) : sizeof(*p->m->links);
	void *nv;

	if (have < *cap)
		return IBF_OK;
	nv = realloc(*v, ((size_t)*cap * 2 + 64) * sz);
	if (!nv)
		return ibf_err_set(err, IBF_ERR_NOMEM, "labels: out of memory");
	*v = nv;
	*cap = *cap * 2 + 64;
	return IBF_OK;
}

static ibf_status_t parse_node(lparse_t *p, const char *rest, ibf_err_t *err)
{
	ibf_pgft_mem_node_t *n;
	unsigned lv, x[IBF_PGFT_MAX_H + 1], h = p->m->shape.h, i;
	char d[256];
	uint64_t g;
	int used;

	if (grow(p, true, err) != IBF_OK)
		return IBF_ERR_NOMEM;
	if (sscanf(rest, "%" SCNx64 " %u %255s%n", &g, &lv, d, &used) != 3 ||
	    rest[used] || lv > h || !read_list(d, h, 255, x))
		return bad(p, err, "expected 'node 0xGUID LEVEL XH,..,X1' "
			   "(after the shape line)");
	n = &p->m->nodes[p->m->nnodes++];
	memset(n, 0, sizeof(*n));
	n->guid = g;
	n->level = (uint8_t)lv;
	for (i = 1; i <= h; i++)
		n->digit[i - 1] = (uint8_t)x[h + 1 - i];
	return IBF_OK;
}

static ibf_status_t parse_link(lparse_t *p, const char *rest, bool ep,
			       ibf_err_t *err)
{
	ibf_pgft_mem_link_t *k;
	unsigned q, kk, place = IBF_PGFT_NO_PLACE;
	uint64_t g;
	int used, want = ep ? 4 : 3;

	if (grow(p, false, err) != IBF_OK)
		return IBF_ERR_NOMEM;
	if ((ep ? sscanf(rest, "%" SCNx64 " %u %u %u%n", &g, &q, &kk, &place,
			 &used) :
	     sscanf(rest, "%" SCNx64 " %u %u%n", &g, &q, &kk, &used)) != want ||
	    rest[used] || !q || q > 255 || kk > 255 ||
	    (ep && place == IBF_PGFT_NO_PLACE))
		return bad(p, err, ep ? "expected 'ep 0xGUID PORT K PLACE'" :
			   "expected 'link 0xGUID PORT K'");
	k = &p->m->links[p->m->nlinks++];
	k->guid = g;
	k->port = (uint8_t)q;
	k->k = (uint8_t)kk;
	k->place = place;
	return IBF_OK;
}

static ibf_status_t parse_line(lparse_t *p, char *line, bool *header,
			       ibf_err_t *err)
{
	char kw[16];
	int used;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#')
		return IBF_OK;
	if (sscanf(line, "%15s%n", kw, &used) != 1)
		return bad(p, err, "expected a keyword");
	line += used;
	while (*line == ' ' || *line == '\t')
		line++;
	if (!*header) {
		if (strcmp(kw, "labels") || strcmp(line, "1"))
			return bad(p, err, "not a labels file (expected "
				   "'labels 1' first)");
		*header = true;
		return IBF_OK;
	}
	if (!strcmp(kw, "shape") && !p->shape_seen)
		return parse_shape(p, line, err);
	if (!p->shape_seen)
		return bad(p, err, "expected the 'shape' line");
	if (!strcmp(kw, "ports"))
		return parse_ports(p, line, err);
	if (!strcmp(kw, "node"))
		return parse_node(p, line, err);
	if (!strcmp(kw, "link") || !strcmp(kw, "ep"))
		return parse_link(p, line, kw[0] == 'e', err);
	return bad(p, err, "unknown line (expected shape, ports, node, link "
		   "or ep)");
}

/* Sorted for lookups; a GUID (or GUID and port) twice is refused. */
static ibf_status_t finish(lparse_t *p, ibf_err_t *err)
{
	if (!p->shape_seen)
		return ibf_err_set(err, IBF_ERR_PARSE, "%s: no shape line",
				   p->t.name);
	if (!ibf_pgft_memory_sort(p->m))
		return ibf_err_set(err, IBF_ERR_INVALID, "%s: a node (or a "
				   "node's port) is listed twice", p->t.name);
	return IBF_OK;
}

static ibf_status_t parse_text(lparse_t *p, ibf_pgft_memory_t **out,
			       ibf_err_t *err)
{
	ibf_status_t st = IBF_OK;
	bool header = false;
	char *line;

	p->m = calloc(1, sizeof(*p->m));
	if (!p->m)
		return ibf_err_set(err, IBF_ERR_NOMEM, "labels: out of memory");
	while (st == IBF_OK && (line = ibf_text_next_line(&p->t)))
		st = parse_line(p, line, &header, err);
	if (st == IBF_OK && !header)
		st = ibf_err_set(err, IBF_ERR_PARSE, "%s: empty labels file",
				 p->t.name);
	if (st == IBF_OK)
		st = finish(p, err);
	if (st != IBF_OK) {
		ibf_pgft_memory_destroy(p->m);
		return st;
	}
	*out = p->m;
	return IBF_OK;
}

ibf_status_t ibf_labels_parse(const char *name, const char *buf, size_t len,
			      ibf_pgft_memory_t **out, ibf_err_t *err)
{
	lparse_t p;
	ibf_status_t st;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	if ((st = ibf_text_from_buf(&p.t, name, buf, len, err)) != IBF_OK)
		return st;
	st = parse_text(&p, out, err);
	ibf_text_free(&p.t);
	return st;
}

ibf_status_t ibf_labels_read(const char *path, ibf_pgft_memory_t **out,
			     ibf_err_t *err)
{
	lparse_t p;
	ibf_status_t st;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	if ((st = ibf_text_load(&p.t, path, err)) != IBF_OK)
		return st;
	st = parse_text(&p, out, err);
	ibf_text_free(&p.t);
	return st;
}
