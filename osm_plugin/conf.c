/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow.conf: "key value" lines ("key = value" and "key=value" too),
 * '#' comments, an optional UTF-8 BOM.  A bad line is logged as
 * "FILE:LINE: what is wrong" and skipped, so the defaults (or the earlier
 * good value) stay in force: a typo must never stop the SM from routing,
 * and one bad byte never discards the good lines around it.
 *
 * What reaches OpenSM's log is printable ASCII only (anything else is
 * shown as \xNN), each quoted piece of the file is cut short, and a file
 * full of junk gives at most CONF_MAX_ERRORS lines plus one summary.
 *
 * OpenSM re-reads opensm.conf at every heavy sweep (a SIGHUP asks for
 * one); the plugin does the same with ibflow.conf when the file changed
 * (ibf_osm_conf_refresh, called at HEAVY_SWEEP_START).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include <ibflow/io.h>
#include <ibflow/patterns.h>

#include "ibflow_osm.h"

#define CONF_MAX_BYTES (1u << 20)  /* a larger file is not a config */
#define CONF_MAX_ERRORS 8          /* error lines logged per read */
#define SHOW_MAX 48                /* characters of file text per message */

/* Samples, not full patterns: a random permutation is one instance of N
 * flows, a full shift N - 1 instances, an all-to-all N^2 flows.  These
 * cost about 2 s of CPU at 11,664 endpoints (docs/benchmarks.md). */
static const char *const default_patterns[] = {
	"perm:4", "shift:8", "bisect:4",
};

static void set_patterns_default(ibf_osm_conf_t *c)
{
	unsigned i;

	for (i = 0; i < sizeof(default_patterns) / sizeof(*default_patterns);
	     i++)
		c->patterns[i] = strdup(default_patterns[i]);
	c->npatterns = i;
}

static void free_patterns(ibf_osm_conf_t *c)
{
	unsigned i;

	for (i = 0; i < c->npatterns; i++)
		free(c->patterns[i]);
	c->npatterns = 0;
}

void ibf_osm_conf_defaults(ibf_osm_conf_t *c)
{
	memset(c, 0, sizeof(*c));
	c->route.method = IBF_LAYERS_RANDOM;
	c->route.seed = 0; /* as `ibflow route` */
	c->do_export = true;
	c->do_eval = true;
	c->eval_budget = IBF_OSM_EVAL_BUDGET;
	c->eval_max_endpoints = IBF_OSM_EVAL_MAX_ENDPOINTS;
	c->eval_mem_mb = IBF_OSM_EVAL_MEM_MB;
	c->eval_opt = true;
	c->eval_foreign = true;
	set_patterns_default(c);
}

void ibf_osm_conf_free(ibf_osm_conf_t *c)
{
	free_patterns(c);
}

bool ibf_osm_conf_copy(ibf_osm_conf_t *dst, const ibf_osm_conf_t *src)
{
	unsigned i;

	*dst = *src;
	for (i = 0; i < src->npatterns; i++)
		if (!(dst->patterns[i] = strdup(src->patterns[i]))) {
			dst->npatterns = i;
			free_patterns(dst);
			return false;
		}
	return true;
}

/* Text as a log can show it: printable ASCII, the rest as \xNN, cut at
 * max characters ("..." then). */
static const char *show_n(const char *s, char *buf, size_t len, size_t max)
{
	size_t o = 0, n = 0;

	for (; *s && o + 8 < len; s++, n++) {
		unsigned char c = (unsigned char)*s;

		if (n == max) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

/* Text from the file: cut at SHOW_MAX characters. */
const char *ibf_osm_show(const char *s, char *buf, size_t len)
{
	return show_n(s, buf, len, SHOW_MAX);
}

/* A path: whole (it is the administrator's own), still sanitised. */
static const char *show_path(const char *s, char *buf, size_t len)
{
	return show_n(s, buf, len, IBF_OSM_PATH_MAX);
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
	    !strcmp(v, "1") || !strcasecmp(v, "on"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") ||
		 !strcmp(v, "0") || !strcasecmp(v, "off"))
		*out = false;
	else
		return false;
	return true;
}

/* A whole value in C notation (0x... hex, 0... octal, decimal), no sign,
 * nothing after it but blanks. */
static bool parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	while (*v == ' ' || *v == '\t')
		v++;
	if (!isdigit((unsigned char)*v))
		return false;
	errno = 0;
	x = strtoull(v, &end, 0);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || *end || x > max)
		return false;
	*out = x;
	return true;
}

static bool parse_uint(const char *v, unsigned max, unsigned *out)
{
	uint64_t x;

	if (!parse_u64(v, max, &x))
		return false;
	*out = (unsigned)x;
	return true;
}

static bool parse_double(const char *v, double lo, double hi, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < lo || d > hi)
		return false;
	*out = d;
	return true;
}

/* "perm,shift:4,..." -> patterns, each checked by the pattern parser. */
static const char *parse_patterns(ibf_osm_conf_t *c, char *v, char *why,
				  size_t len)
{
	char *list[IBF_OSM_MAX_PATTERNS], show[256];
	unsigned n = 0, i;
	char *tok, *save = NULL;
	ibf_pattern_t pat;
	ibf_err_t err;

	for (tok = strtok_r(v, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (n == IBF_OSM_MAX_PATTERNS) {
			snprintf(why, len, "more than %u patterns",
				 IBF_OSM_MAX_PATTERNS);
			goto fail;
		}
		if (ibf_pattern_parse(tok, &pat, &err) != IBF_OK) {
			snprintf(why, len, "eval_patterns: %s",
				 ibf_osm_show(err.msg, show, sizeof(show)));
			goto fail;
		}
		ibf_pattern_free(&pat);
		list[n] = strdup(tok);
		if (!list[n++]) {
			snprintf(why, len, "out of memory");
			goto fail;
		}
	}
	if (!n) {
		snprintf(why, len, "no pattern given");
		return why;
	}
	free_patterns(c);
	memcpy(c->patterns, list, n * sizeof(*list));
	c->npatterns = n;
	return NULL;
fail:
	for (i = 0; i < n; i++)
		free(list[i]);
	return why;
}

static bool parse_path(const char *v, char *out)
{
	if (strlen(v) >= IBF_OSM_PATH_MAX)
		return false;
	strcpy(out, v);
	return true;
}

/* Apply one "key value"; NULL if fine, else why not. */
static const char *apply(ibf_osm_conf_t *c, const char *key, char *v,
			 char *why, size_t len)
{
	ibf_route_opts_t *r = &c->route;
	unsigned u;
	uint64_t u64;
	const char *s = v;
	char show[256];

	if (!strcmp(key, "layers"))
		return parse_uint(v, 128, &r->layers) ? NULL :
			"layers: a number 0..128 (0 = 2^LMC)";
	if (!strcmp(key, "density"))
		return parse_double(v, 0.0, 1.0, &r->density) ? NULL :
			"density: a number in (0, 1] (0 = engine default)";
	if (!strcmp(key, "method")) {
		if (!strcmp(v, "random"))
			r->method = IBF_LAYERS_RANDOM;
		else if (!strcmp(v, "overlap"))
			r->method = IBF_LAYERS_OVERLAP;
		else
			return "method: random or overlap";
		return NULL;
	}
	if (!strcmp(key, "seed")) {
		if (!parse_u64(s, UINT64_MAX, &u64))
			return "seed: an unsigned integer";
		r->seed = u64;
		return NULL;
	}
	/* max_vls: the older name */
	if (!strcmp(key, "vls") || !strcmp(key, "max_vls"))
		return parse_uint(v, 15, &r->vls) ? NULL :
			"vls: a number 0..15 (0 = 1)";
	if (!strcmp(key, "threads"))
		return parse_uint(v, 256, &r->nthreads) ? NULL :
			"threads: a number 0..256";
	if (!strcmp(key, "export"))
		return parse_bool(v, &c->do_export) ? NULL :
			"export: yes or no";
	if (!strcmp(key, "export_dir"))
		return parse_path(v, c->export_dir) ? NULL :
			"export_dir: path too long";
	if (!strcmp(key, "report_file"))
		return parse_path(v, c->report_file) ? NULL :
			"report_file: path too long";
	if (!strcmp(key, "metrics_file"))
		return parse_path(v, c->metrics_file) ? NULL :
			"metrics_file: path too long";
	if (!strcmp(key, "eval"))
		return parse_bool(v, &c->do_eval) ? NULL : "eval: yes or no";
	if (!strcmp(key, "eval_opt"))
		return parse_bool(v, &c->eval_opt) ? NULL :
			"eval_opt: yes or no";
	if (!strcmp(key, "eval_foreign"))
		return parse_bool(v, &c->eval_foreign) ? NULL :
			"eval_foreign: yes or no";
	if (!strcmp(key, "eval_budget"))
		return parse_double(v, 0.0, 86400.0, &c->eval_budget) ? NULL :
			"eval_budget: seconds, 0..86400";
	if (!strcmp(key, "eval_max_endpoints")) {
		if (!parse_uint(v, 1000000, &u))
			return "eval_max_endpoints: a number 0..1000000";
		c->eval_max_endpoints = u;
		return NULL;
	}
	if (!strcmp(key, "eval_memory_mb")) {
		if (!parse_uint(v, 1u << 20, &u) || u < 16)
			return "eval_memory_mb: megabytes, 16..1048576";
		c->eval_mem_mb = u;
		return NULL;
	}
	if (!strcmp(key, "eval_patterns"))
		return parse_patterns(c, v, why, len);
	snprintf(why, len, "unknown key \"%s\"",
		 ibf_osm_show(key, show, sizeof(show)));
	return why;
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* One line (NUL-terminated, no line break): NULL if fine or empty;
 * *keyp is the key of a line that set one (else NULL). */
static const char *parse_line(ibf_osm_conf_t *c, char *line, char *why,
			      size_t len, const char **keyp)
{
	char *key, *v, *end, show[256];
	const char *msg;

	if ((end = strchr(line, '#')))
		*end = '\0';
	key = line + strspn(line, " \t");
	end = key + strlen(key);
	while (end > key && (end[-1] == ' ' || end[-1] == '\t' ||
			     end[-1] == '\r'))
		*--end = '\0';
	if (!*key)
		return NULL;
	for (v = key; is_key_char(*v); v++)
		;
	if (v == key || (*v && *v != ' ' && *v != '\t' && *v != '=')) {
		snprintf(why, len, "expected \"key value\", got \"%s\"",
			 ibf_osm_show(key, show, sizeof(show)));
		return why;
	}
	/* key, blanks, at most one '=', blanks, value */
	if (*v == '=') {
		*v++ = '\0';
	} else if (*v) {
		*v++ = '\0';
		v += strspn(v, " \t");
		if (*v == '=')
			v++;
	}
	v += strspn(v, " \t");
	if (!*v) {
		snprintf(why, len, "%s: missing value",
			 ibf_osm_show(key, show, sizeof(show)));
		return why;
	}
	msg = apply(c, key, v, why, len);
	*keyp = msg ? NULL : key;
	return msg;
}

#define CONF_KEYS_MAX 32   /* more than the keys apply() knows */

typedef struct reader {
	ibf_osm_t *p;
	const char *path;
	unsigned errors, first_hidden;
	struct {
		char key[32];
		unsigned line;
	} seen[CONF_KEYS_MAX];     /* keys set, at their last line */
	unsigned nseen;
} reader_t;

/* A key set twice: an appended line silently overriding an earlier one
 * surprises whoever reads the file top-down; say so, the last wins. */
static void key_set(reader_t *rd, const char *key, unsigned line)
{
	char show[IBF_OSM_PATH_MAX * 4 + 16];
	unsigned i;

	for (i = 0; i < rd->nseen && strcmp(rd->seen[i].key, key); i++)
		;
	if (i == rd->nseen) {
		if (rd->nseen == CONF_KEYS_MAX || strlen(key) >=
		    sizeof(rd->seen[0].key))
			return;
		snprintf(rd->seen[rd->nseen++].key, sizeof(rd->seen[0].key),
			 "%s", key);
	} else {
		show_path(rd->path, show, sizeof(show));
		ibf_osm_logf(rd->p, OSM_LOG_INFO, "warning: %s:%u: %s set "
			     "again (before at %s:%u): the last one wins",
			     show, line, key, show, rd->seen[i].line);
	}
	rd->seen[i].line = line;
}

static void line_error(reader_t *rd, unsigned line, const char *msg)
{
	char show[IBF_OSM_PATH_MAX * 4 + 16];

	if (++rd->errors > CONF_MAX_ERRORS) {
		if (!rd->first_hidden)
			rd->first_hidden = line;
		return;
	}
	ibf_osm_logf(rd->p, OSM_LOG_ERROR, "ERR IBF06: %s:%u: %s (ignored, "
		     "keeping the default)",
		     show_path(rd->path, show, sizeof(show)), line, msg);
}

/* The whole file in memory; NULL and *why on failure. */
static char *slurp(const char *path, size_t *len, char *why, size_t wlen)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!fp) {
		snprintf(why, wlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	buf = malloc(CONF_MAX_BYTES + 1);
	if (!buf) {
		fclose(fp);
		snprintf(why, wlen, "out of memory");
		return NULL;
	}
	n = fread(buf, 1, CONF_MAX_BYTES + 1, fp);
	if (ferror(fp) || n > CONF_MAX_BYTES) {
		snprintf(why, wlen, ferror(fp) ? "read error" :
			 "larger than %u bytes: not a configuration file",
			 CONF_MAX_BYTES);
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Parse path into c (which holds the defaults). */
static void read_into(ibf_osm_t *p, const char *path, ibf_osm_conf_t *c)
{
	reader_t rd = { .p = p, .path = path };
	char why[IBF_ERR_MSG_MAX], show[IBF_OSM_PATH_MAX * 4 + 16];
	size_t len = 0, pos = 0;
	unsigned line = 0;
	char *buf = slurp(path, &len, why, sizeof(why));

	if (!buf) {
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF07: %s: %s (defaults "
			     "kept)", show_path(path, show, sizeof(show)),
			     why);
		return;
	}
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3; /* a UTF-8 byte order mark, as editors write it */
	while (pos < len) {
		char *ln = buf + pos, *nl = memchr(ln, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - ln) : len - pos;
		const char *msg, *key = NULL;

		pos += n + 1;
		line++;
		if (memchr(ln, '\0', n)) {
			line_error(&rd, line, "a NUL byte in the line");
			continue;
		}
		ln[n] = '\0';
		msg = parse_line(c, ln, why, sizeof(why), &key);
		if (msg)
			line_error(&rd, line, msg);
		else if (key)
			key_set(&rd, key, line);
	}
	free(buf);
	if (rd.errors > CONF_MAX_ERRORS)
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF06: %s: %u more bad "
			     "lines ignored, the first at line %u",
			     show_path(path, show, sizeof(show)),
			     rd.errors - CONF_MAX_ERRORS, rd.first_hidden);
	ibf_osm_logf(p, OSM_LOG_INFO, "configuration read from %s%s",
		     show_path(path, show, sizeof(show)),
		     rd.errors ? " (bad lines ignored)" : "");
}

static void file_stamp(const char *path, ibf_osm_stamp_t *st)
{
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb))
		return;
	st->exists = true;
	st->dev = sb.st_dev;
	st->ino = sb.st_ino;
	st->size = sb.st_size;
	st->mtime_s = sb.st_mtim.tv_sec;
	st->mtime_ns = sb.st_mtim.tv_nsec;
	st->ctime_s = sb.st_ctim.tv_sec;
	st->ctime_ns = sb.st_ctim.tv_nsec;
}

/* Read path (defaults first) and install the result under the lock: the
 * worker takes its own copy of the configuration for each job. */
static void load(ibf_osm_t *p, bool verbose_absent)
{
	ibf_osm_conf_t c, old;
	char show[IBF_OSM_PATH_MAX * 4 + 16];

	ibf_osm_conf_defaults(&c);
	file_stamp(p->conf_path, &p->conf_stamp);
	if (!p->conf_stamp.exists && !p->conf_required) {
		if (verbose_absent)
			ibf_osm_logf(p, OSM_LOG_VERBOSE, "no %s: defaults",
				     show_path(p->conf_path, show,
					       sizeof(show)));
	} else {
		read_into(p, p->conf_path, &c);
	}
	pthread_mutex_lock(&p->lock);
	old = p->conf;
	p->conf = c;
	pthread_mutex_unlock(&p->lock);
	ibf_osm_conf_free(&old);
}

void ibf_osm_conf_load(ibf_osm_t *p, const char *path, bool required)
{
	snprintf(p->conf_path, sizeof(p->conf_path), "%s", path);
	p->conf_required = required;
	load(p, true);
}

bool ibf_osm_conf_refresh(ibf_osm_t *p)
{
	ibf_osm_stamp_t now;
	char show[IBF_OSM_PATH_MAX * 4 + 16];

	file_stamp(p->conf_path, &now);
	if (!memcmp(&now, &p->conf_stamp, sizeof(now)))
		return false;
	ibf_osm_logf(p, OSM_LOG_INFO, "%s %s: re-reading it",
		     show_path(p->conf_path, show, sizeof(show)),
		     now.exists ? (p->conf_stamp.exists ? "changed" :
				   "appeared") : "is gone");
	load(p, false);
	return true;
}
