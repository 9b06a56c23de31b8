/*
 * Host lists and traffic files; see hosts.h and docs/formats-routing.md.
 *
 * NodeDescriptions contain blanks ("h0042 HCA-1"), so a traffic line
 * "SRC DST [COUNT]" cannot simply be split at blanks.  A name may be
 * "quoted"; unquoted, the line's words are tried against the topology in
 * every SRC/DST/COUNT split, and exactly one split must name two hosts.
 */
#include <ibflow/hosts.h>

#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 256   /* longest host name accepted on a line */
#define MAX_WORDS    64    /* words per traffic line: bounds the splits */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Cut a comment: '#' at the start or after a blank, outside quotes. */
static void strip_comment(char *s)
{
	bool quoted = false;
	char *p;

	for (p = s; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '#' && !quoted && (p == s || is_blank(p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

static char *trim(char *s)
{
	char *e;

	while (is_blank(*s))
		s++;
	e = s + strlen(s);
	while (e > s && is_blank(e[-1]))
		*--e = '\0';
	return s;
}

/* Can a name be written bare?  In host lists inner blanks are fine; in
 * traffic files they are not.  A name that cannot be quoted either (it
 * contains '"') is written as its port GUID by the callers. */
static bool needs_quotes(const char *s, bool inner_blanks_ok)
{
	const char *p;

	if (!*s || *s == '"' || is_blank(*s) || is_blank(s[strlen(s) - 1]))
		return true;
	for (p = s; *p; p++)
		if ((is_blank(*p) && !inner_blanks_ok) ||
		    (*p == '#' && is_blank(p[-1])))
			return true;
	return false;
}

static void write_name(const ibf_fabric_t *f, ibf_port_id_t p, FILE *fp,
		       bool inner_blanks_ok)
{
	char buf[NAME_MAX_LEN];
	const char *name = ibf_port_host_name(f, p, buf, sizeof(buf));
	ibf_port_id_t back;

	/* Write only what reads back as this very port (a description
	 * shared by several nodes would not). */
	if (ibf_fabric_resolve_host(f, name, &back, NULL) != IBF_OK ||
	    back != p)
		fprintf(fp, "0x%016llx",
			(unsigned long long)ibf_port(f, p)->guid);
	else if (!needs_quotes(name, inner_blanks_ok))
		fputs(name, fp);
	else if (!strchr(name, '"') && !strchr(name, '\n'))
		fprintf(fp, "\"%s\"", name);
	else
		fprintf(fp, "0x%016llx",
			(unsigned long long)ibf_port(f, p)->guid);
}

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
	char name[NAME_MAX_LEN];
	const char *s;

	strip_comment(line);
	line = trim(line);
	*empty = !*line;
	if (*empty)
		return IBF_OK;
	if (*line == '"') {
		s = line;
		if (!ibf_scan_quoted(&s, name, sizeof(name)))
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

ibf_status_t ibf_hosts_read_text(const ibf_fabric_t *f, ibf_text_t *t,
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
		if (first_line[port]) {
			char buf[NAME_MAX_LEN];

			st = ibf_text_error(t, err, IBF_ERR_INVALID,
					    "host %s listed twice, first at "
					    "line %u",
					    ibf_port_host_name(f, port, buf,
							       sizeof(buf)),
					    first_line[port]);
			break;
		}
		first_line[port] = t->line;
		if (h.n == cap) {
			uint32_t ncap = cap ? cap * 2 : 64;
			ibf_port_id_t *np = realloc(h.ports,
						    ncap * sizeof(*np));

			if (!np) {
				st = ibf_err_set(err, IBF_ERR_NOMEM,
						 "out of memory");
				break;
			}
			h.ports = np;
			cap = ncap;
		}
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

ibf_status_t ibf_hosts_read(const ibf_fabric_t *f, const char *path,
			    ibf_hostlist_t *out, ibf_err_t *err)
{
	ibf_status_t st;
	ibf_text_t t;

	memset(out, 0, sizeof(*out));
	if ((st = ibf_text_load(&t, path, err)) != IBF_OK)
		return st;
	st = ibf_hosts_read_text(f, &t, out, err);
	ibf_text_free(&t);
	return st;
}

ibf_status_t ibf_hosts_write(const ibf_fabric_t *f, const ibf_hostlist_t *h,
			     FILE *fp, ibf_err_t *err)
{
	uint32_t i;

	for (i = 0; i < h->n; i++) {
		write_name(f, h->ports[i], fp, true);
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

/* ---- traffic files ------------------------------------------------------ */

struct word {
	const char *s; /* NUL-terminated, inside the line */
	bool quoted;
};

/* Split a line into words: "quoted strings" and runs of non-blanks. */
static ibf_status_t split_words(const ibf_text_t *t, char *s,
				struct word *w, unsigned *nw, ibf_err_t *err)
{
	unsigned n = 0;

	for (;;) {
		while (is_blank(*s))
			s++;
		if (!*s)
			break;
		if (n == MAX_WORDS)
			return ibf_text_error(t, err, IBF_ERR_PARSE,
					      "more than %u words on a line",
					      MAX_WORDS);
		if (*s == '"') {
			char *end = strchr(s + 1, '"');

			if (!end)
				return ibf_text_error(t, err, IBF_ERR_PARSE,
						      "unterminated quoted name");
			if (end[1] && !is_blank(end[1]))
				return ibf_text_error(t, err, IBF_ERR_PARSE,
						      "no blank after a quoted "
						      "name");
			if (end == s + 1)
				return ibf_text_error(t, err, IBF_ERR_PARSE,
						      "empty host name");
			w[n].s = s + 1;
			w[n++].quoted = true;
			*end = '\0';
			s = end + 1 + (end[1] != '\0');
			continue;
		}
		w[n].s = s;
		w[n++].quoted = false;
		while (*s && !is_blank(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	*nw = n;
	return IBF_OK;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Join words [a, b) with single blanks; false if too long or if a quoted
 * word would be part of a longer name. */
static bool join_words(const struct word *w, unsigned a, unsigned b,
		       char *name, size_t size)
{
	size_t len = 0;
	unsigned i;

	for (i = a; i < b; i++) {
		size_t n = strlen(w[i].s);

		if ((w[i].quoted && b - a > 1) || len + n + 2 > size)
			return false;
		if (i > a)
			name[len++] = ' ';
		memcpy(name + len, w[i].s, n);
		len += n;
	}
	name[len] = '\0';
	return true;
}

/* Resolve words [a, b) as one host: a lone word as it is (GUID, LID or
 * description), several unquoted words as one description. */
static ibf_status_t resolve_words(const ibf_fabric_t *f,
				  const struct word *w, unsigned a,
				  unsigned b, ibf_port_id_t *port,
				  ibf_err_t *err)
{
	char name[NAME_MAX_LEN];

	if (!join_words(w, a, b, name, sizeof(name)))
		return ibf_err_set(err, IBF_ERR_NOT_FOUND, "no such host");
	return ibf_fabric_resolve_host(f, name, port, err);
}

struct split {
	unsigned nhost; /* words naming hosts; a COUNT follows if < nw */
	unsigned k;     /* SRC is words [0, k), DST [k, nhost) */
	ibf_port_id_t src, dst;
};

/* Describe a reading of the line for an ambiguity message. */
static void split_str(const struct word *w, unsigned nw,
		      const struct split *sp, char *buf, size_t len)
{
	char src[NAME_MAX_LEN], dst[NAME_MAX_LEN];

	join_words(w, 0, sp->k, src, sizeof(src));
	join_words(w, sp->k, sp->nhost, dst, sizeof(dst));
	snprintf(buf, len, "\"%.60s\" -> \"%.60s\"%s%s", src, dst,
		 sp->nhost < nw ? " x " : "", sp->nhost < nw ? w[nw - 1].s
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
	struct word w[MAX_WORDS + 1];
	struct split found[2];
	unsigned nw = 0, nfound = 0, nhost, k;
	ibf_status_t st;
	uint32_t count = 1;
	ibf_err_t first;

	strip_comment(line);
	*empty = false;
	if ((st = split_words(t, line, w, &nw, err)) != IBF_OK)
		return st;
	if (nw == 0) {
		*empty = true;
		return IBF_OK;
	}
	if (nw == 1)
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "one name only: expected SRC DST "
				      "[COUNT]");
	w[nw].s = NULL;
	ibf_err_clear(&first);
	/* nhost = nw: no COUNT; nhost = nw - 1: the last word is COUNT. */
	for (nhost = nw; nhost + 1 >= nw && nhost >= 2; nhost--) {
		if (nhost < nw && (w[nhost].quoted || !all_digits(w[nhost].s)))
			continue;
		for (k = 1; k < nhost && nfound < 2; k++) {
			struct split sp = { nhost, k, 0, 0 };
			ibf_err_t e;

			if (resolve_words(f, w, 0, k, &sp.src, &e) != IBF_OK ||
			    resolve_words(f, w, k, nhost, &sp.dst, &e) !=
			    IBF_OK) {
				/* Keep the error of the plain reading. */
				if (!first.status && k == 1 && nhost == 2)
					first = e;
				continue;
			}
			found[nfound++] = sp;
		}
	}
	if (nfound == 0) {
		if (first.status && nw <= 3)
			return ibf_text_error(t, err, first.status, "%s",
					      first.msg);
		return ibf_text_error(t, err, IBF_ERR_NOT_FOUND,
				      "no reading of this line as SRC DST "
				      "[COUNT] names two hosts of the "
				      "topology (quote descriptions that "
				      "contain blanks)");
	}
	if (nfound > 1) {
		char a[200], b[200];

		split_str(w, nw, &found[0], a, sizeof(a));
		split_str(w, nw, &found[1], b, sizeof(b));
		return ibf_text_error(t, err, IBF_ERR_PARSE,
				      "ambiguous line: %s or %s; quote the "
				      "names", a, b);
	}
	if (found[0].nhost < nw) {
		const char *c = w[found[0].nhost].s;

		if (!parse_count(c, &count))
			return ibf_text_error(t, err, IBF_ERR_PARSE,
					      "COUNT %s: must be 1..%u", c,
					      UINT32_MAX);
	}
	if (found[0].src == found[0].dst) {
		char buf[NAME_MAX_LEN];

		return ibf_text_error(t, err, IBF_ERR_INVALID,
				      "SRC and DST are the same host %s: "
				      "traffic to itself does not cross the "
				      "network",
				      ibf_port_host_name(f, found[0].src, buf,
							 sizeof(buf)));
	}
	flow->src = found[0].src;
	flow->dst = found[0].dst;
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
			uint32_t ncap = cap ? cap * 2 : 64;
			ibf_flow_t *nf;

			if (cap >= UINT32_MAX / 2 ||
			    !(nf = realloc(tr.flows, ncap * sizeof(*nf)))) {
				st = ibf_err_set(err, IBF_ERR_NOMEM,
						 "out of memory");
				break;
			}
			tr.flows = nf;
			cap = ncap;
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

		write_name(f, fl->src, fp, false);
		fputc(' ', fp);
		write_name(f, fl->dst, fp, false);
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
