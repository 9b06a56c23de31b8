/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The consumers' reader of an export directory (export.h,
 * ibf_export_read_set): the manifest ibflow-export.txt names the topology
 * and the LFTs.
 *
 * Two manifests are understood:
 *  - "format 1", the export of a routing with generations and a status
 *    (docs/formats-routing.md, "The export of a routing"): read by
 *    ibf_export_load() (export.c), which uses a set only while it is
 *    complete and every file carries the manifest's generation and size;
 *  - no "format" line (an older plugin's, a testbed's, written by hand):
 *    "topology NAME", "lfts NAME", optionally "routing N" (or "generation
 *    N"), which a data file may repeat among its leading comments
 *    ("# routing N") and must then agree with; the manifest must read the
 *    same before and after the data files and the sizes it states
 *    (endpoints, switches, LMC) must be the topology's.
 * A set being written or a mix of two routings sets *retry (a newer
 * routing is being put in place); anything else is refused, with the
 * file and the reason.
 */
#include <ibflow/export.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/io.h>
#include <ibflow/lfts_io.h>
#include <ibflow/topo_io.h>

#define HEAD_LINES   8           /* leading lines searched (no format) */
#define GEN_MAX      64

typedef struct manifest {
	char topology[256], lfts[256], engine[64];
	char status[160];              /* "" when absent */
	char gen[GEN_MAX];             /* "routing" (or "generation") */
	long endpoints, switches, lmc; /* -1 when absent */
} manifest_t;

static uint64_t fnv1a(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static bool parse_num(const char *v, long *out)
{
	char *end;

	*out = strtol(v, &end, 10);
	return end != v && !*end && *out >= 0;
}

static ibf_status_t bad_line(const char *path, unsigned line,
				 const char *key, const char *val,
				 ibf_err_t *err)
{
	return ibf_err_set(err, IBF_ERR_INVALID, "%s:%u: %s: '%s' is "
			       "malformed", path, line, key, val);
}

static ibf_status_t manifest_line(const char *path, unsigned line,
				      const char *key, char *val,
				      manifest_t *m, ibf_err_t *err)
{
	long n;

	if (!strcmp(key, "topology")) {
		snprintf(m->topology, sizeof(m->topology), "%s", val);
	} else if (!strcmp(key, "lfts")) {
		snprintf(m->lfts, sizeof(m->lfts), "%s", val);
	} else if (!strcmp(key, "engine")) {
		snprintf(m->engine, sizeof(m->engine), "%s", val);
	} else if (!strcmp(key, "status")) {
		snprintf(m->status, sizeof(m->status), "%s", val);
	} else if (!strcmp(key, "generation") ||
		   (!strcmp(key, "routing") && !m->gen[0])) {
		if (strlen(val) >= sizeof(m->gen) || strchr(val, ' '))
			return bad_line(path, line, key, val, err);
		snprintf(m->gen, sizeof(m->gen), "%s", val);
	} else if (!strcmp(key, "endpoints") || !strcmp(key, "switches") ||
		   !strcmp(key, "lmc")) {
		if (!parse_num(val, &n))
			return bad_line(path, line, key, val, err);
		*(key[0] == 'e' ? &m->endpoints : key[0] == 's' ?
		  &m->switches : &m->lmc) = n;
	}
	return IBF_OK;
}

static ibf_status_t parse_manifest(ibf_text_t *t, manifest_t *m,
				       ibf_err_t *err)
{
	char *line, *key, *val, *e;
	ibf_status_t st;

	memset(m, 0, sizeof(*m));
	m->endpoints = m->switches = m->lmc = -1;
	while ((line = ibf_text_next_line(t))) {
		key = line + strspn(line, " \t");
		if (!*key || *key == '#')
			continue;
		val = key + strcspn(key, " \t");
		if (*val)
			*val++ = '\0';
		val += strspn(val, " \t");
		for (e = val + strlen(val); e > val && (e[-1] == ' ' ||
		     e[-1] == '\t' || e[-1] == '\r'); )
			*--e = '\0';
		if (!*val)
			return ibf_err_set(err, IBF_ERR_INVALID,
					       "%s:%u: '%s' has no value",
					       t->name, t->line, key);
		st = manifest_line(t->name, t->line, key, val, m, err);
		if (st != IBF_OK)
			return st;
	}
	if (!m->topology[0] || !m->lfts[0])
		return ibf_err_set(err, IBF_ERR_INVALID,
				       "%s: names no %s", t->name,
				       m->topology[0] ? "lfts" : "topology");
	return IBF_OK;
}

/* Only a complete export is used; one being written may be soon. */
static ibf_status_t check_status(const char *mpath, const manifest_t *m,
				     bool *retry, ibf_err_t *err)
{
	if (!m->status[0] || !strcmp(m->status, "complete"))
		return IBF_OK;
	if (!strcmp(m->status, "writing")) {
		*retry = true;
		return ibf_err_set(err, IBF_ERR_INVALID, "%s: status "
				       "writing (an export is being put in "
				       "place; try again)", mpath);
	}
	return ibf_err_set(err, IBF_ERR_INVALID, "%s: status %s: no "
			       "usable export", mpath, m->status);
}

static void join(char *out, size_t len, const char *dir, const char *name)
{
	if (name[0] == '/')
		snprintf(out, len, "%s", name);
	else
		snprintf(out, len, "%s/%s", dir, name);
}

/* A routing a data file states among its leading comments. */
static bool old_generation(const ibf_text_t *t, char *gen, size_t len)
{
	const char *p = t->buf;
	unsigned line;
	char v[GEN_MAX];

	for (line = 0; line < HEAD_LINES && p && *p; line++) {
		const char *q = p + strspn(p, " \t");

		if (*q == '#') {
			q += 1 + strspn(q + 1, " \t");
			if (sscanf(q, "routing %63s", v) == 1 ||
			    sscanf(q, "generation %63s", v) == 1) {
				snprintf(gen, len, "%s", v);
				return true;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* Does data file t belong to the manifest's set? */
static ibf_status_t check_file(const manifest_t *m, const ibf_text_t *t,
				   bool *retry, ibf_err_t *err)
{
	char gen[GEN_MAX] = "";

	if (!old_generation(t, gen, sizeof(gen)))
		return IBF_OK;
	if (!m->gen[0])
		return ibf_err_set(err, IBF_ERR_INVALID, "%s states "
				       "routing %s but the manifest states "
				       "none", t->name, gen);
	if (strcmp(gen, m->gen)) {
		*retry = true;
		return ibf_err_set(err, IBF_ERR_INVALID, "%s is from "
				       "routing %s, the manifest from routing "
				       "%s: mismatched set", t->name, gen,
				       m->gen);
	}
	return IBF_OK;
}

static ibf_status_t check_sizes(const char *mpath, const manifest_t *m,
				    const ibf_fabric_t *f, ibf_err_t *err)
{
	const char *what = NULL;
	long want = 0, have = 0;

	if (m->endpoints >= 0 && m->endpoints != (long)f->nendpoints) {
		what = "endpoints";
		want = m->endpoints;
		have = f->nendpoints;
	} else if (m->switches >= 0 && m->switches != (long)f->nswitches) {
		what = "switches";
		want = m->switches;
		have = f->nswitches;
	} else if (m->lmc >= 0 && m->lmc != (long)f->lmc) {
		what = "lmc";
		want = m->lmc;
		have = f->lmc;
	}
	if (what)
		return ibf_err_set(err, IBF_ERR_INVALID,
				       "%s states %s %ld, the topology has %ld: "
				       "mismatched set", mpath, what, want,
				       have);
	return IBF_OK;
}

typedef struct texts {
	ibf_text_t m, t, l, m2;
} texts_t;

static void texts_free(texts_t *x)
{
	ibf_text_free(&x->m);
	ibf_text_free(&x->t);
	ibf_text_free(&x->l);
	ibf_text_free(&x->m2);
}

/* The bytes: manifest, data files of its set, manifest again. */
static ibf_status_t read_bytes(const char *dir, texts_t *x,
				   manifest_t *m, uint64_t *h0, bool *retry,
				   ibf_err_t *err)
{
	char mpath[4096], tpath[4096], lpath[4096];
	ibf_status_t st;

	join(mpath, sizeof(mpath), dir, IBF_EXPORT_MANIFEST);
	st = ibf_text_load(&x->m, mpath, err);
	if (st != IBF_OK)
		return st;
	*h0 = fnv1a(0xcbf29ce484222325ull, x->m.buf, x->m.len);
	if ((st = parse_manifest(&x->m, m, err)) != IBF_OK ||
	    (st = check_status(mpath, m, retry, err)) != IBF_OK)
		return st;
	join(tpath, sizeof(tpath), dir, m->topology);
	join(lpath, sizeof(lpath), dir, m->lfts);
	if ((st = ibf_text_load(&x->t, tpath, err)) != IBF_OK ||
	    (st = ibf_text_load(&x->l, lpath, err)) != IBF_OK ||
	    (st = ibf_text_load(&x->m2, mpath, err)) != IBF_OK)
		return st;
	if (x->m2.len != x->m.len ||
	    fnv1a(0xcbf29ce484222325ull, x->m2.buf, x->m2.len) != *h0) {
		*retry = true;
		return ibf_err_set(err, IBF_ERR_INVALID, "%s changed "
				       "while it was read (an export under "
				       "way)", mpath);
	}
	if ((st = check_file(m, &x->t, retry, err)) != IBF_OK)
		return st;
	return check_file(m, &x->l, retry, err);
}

/* A plain manifest's set; *retry when trying again may help. */
static ibf_status_t read_set(const char *dir, ibf_export_set_t *out,
				 bool *retry, ibf_err_t *err)
{
	ibf_topo_read_opts_t ro = { IBF_TOPO_AUTO, 0 };
	char mpath[4096];
	texts_t x;
	manifest_t m;
	uint64_t h0 = 0, digest;
	ibf_status_t st;

	*retry = false;
	memset(&x, 0, sizeof(x));
	st = read_bytes(dir, &x, &m, &h0, retry, err);
	if (st != IBF_OK)
		goto out;
	digest = fnv1a(fnv1a(h0, x.t.buf, x.t.len), x.l.buf, x.l.len);
	out->topo_path = realpath(x.t.name, NULL);
	out->lfts_path = realpath(x.l.name, NULL);
	if (!out->topo_path || !out->lfts_path) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	} else if ((st = ibf_topo_read_text(&x.t, &ro, &out->fabric, err)) !=
		   IBF_OK ||
		   (st = ibf_lfts_read_text(out->fabric, &x.l, &out->lfts,
					    err)) != IBF_OK) {
		/* the reader's status and message */
	} else {
		join(mpath, sizeof(mpath), dir, IBF_EXPORT_MANIFEST);
		st = check_sizes(mpath, &m, out->fabric, err);
	}
	if (st != IBF_OK)
		goto out;
	snprintf(out->engine, sizeof(out->engine), "%s", m.engine);
	out->routing = strtoull(m.gen[0] ? m.gen : "0", NULL, 10);
	out->digest = digest;
out:
	texts_free(&x);
	return st;
}

/* Does the manifest have a "format" line (the plugin's export)? */
static bool has_format(const char *dir)
{
	char path[4096], line[256];
	bool yes = false;
	FILE *fp;

	join(path, sizeof(path), dir, IBF_EXPORT_MANIFEST);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	while (!yes && fgets(line, sizeof(line), fp))
		yes = !strncmp(line + strspn(line, " \t"), "format",
			       strlen("format"));
	fclose(fp);
	return yes;
}

/* The plugin's export, through libibflow's reader. */
static ibf_status_t read_export(const char *dir, ibf_export_set_t *out,
				    bool *retry, ibf_err_t *err)
{
	char path[4096];
	ibf_export_t *x = NULL;
	ibf_status_t st = ibf_export_load(dir, &x, retry, err);

	if (st != IBF_OK)
		return st;
	out->fabric = x->fabric;
	out->lfts = x->lfts;
	x->fabric = NULL;
	x->lfts = NULL;
	snprintf(out->engine, sizeof(out->engine), "%s", x->info.engine);
	out->routing = x->info.routing;
	/* The generation names the set uniquely; the sizes make it bytes. */
	out->digest = fnv1a(0xcbf29ce484222325ull, x->info.generation,
			    strlen(x->info.generation));
	out->digest = fnv1a(out->digest, x->info.bytes, sizeof(x->info.bytes));
	ibf_export_free(x);
	join(path, sizeof(path), dir,
	     ibf_export_file_name(IBF_EXPORT_TOPOLOGY));
	out->topo_path = realpath(path, NULL);
	join(path, sizeof(path), dir, ibf_export_file_name(IBF_EXPORT_LFTS));
	out->lfts_path = realpath(path, NULL);
	if (!out->topo_path || !out->lfts_path)
		return ibf_err_set(err, IBF_ERR_IO, "%s: %m", path);
	return IBF_OK;
}

ibf_status_t ibf_export_read_set(const char *dir, ibf_export_set_t *out,
				 bool *retry, ibf_err_t *err)
{
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	*retry = false;
	st = has_format(dir) ? read_export(dir, out, retry, err) :
	     read_set(dir, out, retry, err);
	if (st != IBF_OK)
		ibf_export_set_free(out);
	return st;
}

void ibf_export_set_free(ibf_export_set_t *s)
{
	ibf_lfts_destroy(s->lfts);
	ibf_fabric_destroy(s->fabric);
	free(s->topo_path);
	free(s->lfts_path);
	memset(s, 0, sizeof(*s));
}
