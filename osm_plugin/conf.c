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
#include <stddef.h>
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
#include <ibflow/limits.h>
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

/* How a key's value is read (one parser each). */
typedef enum conf_type {
	CONF_BOOL,      /* yes/no, true/false, on/off, 1/0 */
	CONF_UINT,      /* unsigned, min..max */
	CONF_U64,       /* uint64_t, the whole range */
	CONF_DOUBLE,    /* a finite number, min..max */
	CONF_PATH,      /* a path shorter than IBF_OSM_PATH_MAX */
	CONF_ENUM,      /* one of names[] */
	CONF_PATTERNS,  /* a comma-separated list of pattern specs */
} conf_type_t;

typedef struct conf_name {
	const char *name;
	int value;
} conf_name_t;

/* One key of ibflow.conf.  A refused value is logged as
 * "KEY: WHAT MIN..MAX NOTE" (numbers), "KEY: yes or no", "KEY: NAME or
 * NAME" (names), "KEY: path too long". */
typedef struct conf_key {
	const char *key;
	conf_type_t type;
	size_t field;                /* offsetof(ibf_osm_conf_t, ...) */
	double min, max;             /* CONF_UINT, CONF_DOUBLE */
	const char *what;            /* the value in words, before the range */
	const char *note;            /* after the range */
	const conf_name_t *names;    /* CONF_ENUM, ended by a NULL name */
} conf_key_t;

/* The offset of field f of ibf_osm_conf_t, which must be of type t: a
 * field of another type makes the compiler warn of distinct pointer
 * types (the parsers write through the offset). */
#define CONF_FIELD(f, t) \
	(offsetof(ibf_osm_conf_t, f) + \
	 0 * sizeof((t *)0 == &((ibf_osm_conf_t *)0)->f))

/* One row per key, by type. */
#define KEY_BOOL(k, f) \
	{ k, CONF_BOOL, CONF_FIELD(f, bool), 0, 0, NULL, NULL, NULL }
#define KEY_UINT(k, f, lo, hi, what, note) \
	{ k, CONF_UINT, CONF_FIELD(f, unsigned), lo, hi, what, note, NULL }
#define KEY_U64(k, f, what) \
	{ k, CONF_U64, CONF_FIELD(f, uint64_t), 0, 0, what, NULL, NULL }
#define KEY_DOUBLE(k, f, lo, hi, what, note) \
	{ k, CONF_DOUBLE, CONF_FIELD(f, double), lo, hi, what, note, NULL }
#define KEY_PATH(k, f) \
	{ k, CONF_PATH, CONF_FIELD(f[0], char), 0, 0, NULL, NULL, NULL }
/* An enum field of type t, written as an int (t must be one's size). */
#define KEY_ENUM(k, f, t, names) \
	{ k, CONF_ENUM, CONF_FIELD(f, t) + \
	  0 * sizeof(char[sizeof(t) == sizeof(int) ? 1 : -1]), 0, 0, NULL, \
	  NULL, names }
#define KEY_PATTERNS(k) { k, CONF_PATTERNS, 0, 0, 0, NULL, NULL, NULL }

static const conf_name_t layer_methods[] = {
	{ "random", IBF_LAYERS_RANDOM },
	{ "overlap", IBF_LAYERS_OVERLAP },
	{ NULL, 0 },
};

/* The keys, in the order of docs/osm-plugin.md (a unit test compares
 * them with it and with ibflow.conf.example).  Ranges the command line
 * shares come from ibflow/limits.h. */
static const conf_key_t conf_keys[] = {
	KEY_UINT("layers", route.layers, 0, IBF_LAYERS_MAX, "a number",
		 " (0 = 2^LMC)"),
	KEY_DOUBLE("density", route.density, 0, 1, "a number",
		   " (0 = engine default)"),
	KEY_ENUM("method", route.method, ibf_layer_method_t, layer_methods),
	KEY_U64("seed", route.seed, "an unsigned integer"),
	KEY_UINT("vls", route.vls, 0, IBF_VLS_MAX, "a number", " (0 = 1)"),
	KEY_UINT("threads", route.nthreads, 0, IBF_THREADS_MAX, "a number",
		 NULL),
	KEY_BOOL("export", do_export),
	KEY_PATH("export_dir", export_dir),
	KEY_BOOL("eval", do_eval),
	KEY_PATTERNS("eval_patterns"),
	KEY_DOUBLE("eval_budget", eval_budget, 0, IBF_TIME_LIMIT_MAX,
		   "seconds,", NULL),
	KEY_UINT("eval_memory_mb", eval_mem_mb, 16, 1u << 20, "megabytes,",
		 NULL),
	KEY_UINT("eval_max_endpoints", eval_max_endpoints, 0, 1000000,
		 "a number", NULL),
	KEY_BOOL("eval_opt", eval_opt),
	KEY_BOOL("eval_foreign", eval_foreign),
	KEY_PATH("report_file", report_file),
	KEY_PATH("metrics_file", metrics_file),
};

#define CONF_NKEYS (sizeof(conf_keys) / sizeof(*conf_keys))

const char *ibf_osm_conf_key_name(unsigned i)
{
	return i < CONF_NKEYS ? conf_keys[i].key : NULL;
}

/* Older names of keys, still read. */
static const struct {
	const char *old, *key;
} conf_aliases[] = {
	{ "max_vls", "vls" },
};

static const conf_key_t *find_key(const char *key)
{
	unsigned i;

	for (i = 0; i < sizeof(conf_aliases) / sizeof(*conf_aliases); i++)
		if (!strcmp(conf_aliases[i].old, key))
			key = conf_aliases[i].key;
	for (i = 0; i < CONF_NKEYS; i++)
		if (!strcmp(conf_keys[i].key, key))
			return &conf_keys[i];
	return NULL;
}

/* What a refused value of k should have been. */
static const char *refused(const conf_key_t *k, char *why, size_t len)
{
	const conf_name_t *n;
	size_t o;

	o = (size_t)snprintf(why, len, "%s: ", k->key);
	switch (k->type) {
	case CONF_BOOL:
		snprintf(why + o, len - o, "yes or no");
		break;
	case CONF_UINT:
		snprintf(why + o, len - o, "%s %u..%u%s", k->what,
			 (unsigned)k->min, (unsigned)k->max,
			 k->note ? k->note : "");
		break;
	case CONF_DOUBLE:
		snprintf(why + o, len - o, "%s %g..%g%s", k->what, k->min,
			 k->max, k->note ? k->note : "");
		break;
	case CONF_U64:
		snprintf(why + o, len - o, "%s", k->what);
		break;
	case CONF_PATH:
		snprintf(why + o, len - o, "path too long");
		break;
	case CONF_ENUM:
		for (n = k->names; n->name && o < len; n++)
			o += (size_t)snprintf(why + o, len - o, "%s%s",
					      n == k->names ? "" : " or ",
					      n->name);
		break;
	case CONF_PATTERNS:
		break; /* parse_patterns says why */
	}
	return why;
}

static bool parse_enum(const conf_name_t *names, const char *v, int *out)
{
	for (; names->name; names++)
		if (!strcmp(v, names->name)) {
			*out = names->value;
			return true;
		}
	return false;
}

/* Store v into k's field of c; false if v is not a value of k. */
static bool parse_value(ibf_osm_conf_t *c, const conf_key_t *k, char *v)
{
	void *f = (char *)c + k->field;
	uint64_t u64;
	double d;

	switch (k->type) {
	case CONF_BOOL:
		return parse_bool(v, f);
	case CONF_UINT:
		if (!parse_u64(v, (uint64_t)k->max, &u64) ||
		    u64 < (uint64_t)k->min)
			return false;
		*(unsigned *)f = (unsigned)u64;
		return true;
	case CONF_U64:
		return parse_u64(v, UINT64_MAX, f);
	case CONF_DOUBLE:
		if (!parse_double(v, k->min, k->max, &d))
			return false;
		*(double *)f = d;
		return true;
	case CONF_PATH:
		return parse_path(v, f);
	case CONF_ENUM:
		return parse_enum(k->names, v, f);
	case CONF_PATTERNS:
		break;
	}
	return false;
}

/* Apply one "key value"; NULL if fine, else why not.  *kp: the key. */
static const char *apply(ibf_osm_conf_t *c, const char *key, char *v,
			 char *why, size_t len, const conf_key_t **kp)
{
	const conf_key_t *k = find_key(key);
	char show[256];

	*kp = k;
	if (!k) {
		snprintf(why, len, "unknown key \"%s\"",
			 ibf_osm_show(key, show, sizeof(show)));
		return why;
	}
	if (k->type == CONF_PATTERNS)
		return parse_patterns(c, v, why, len);
	return parse_value(c, k, v) ? NULL : refused(k, why, len);
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* One line (NUL-terminated, no line break): NULL if fine or empty;
 * *kp is the key of a line that set one (else NULL). */
static const char *parse_line(ibf_osm_conf_t *c, char *line, char *why,
			      size_t len, const conf_key_t **kp)
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
	msg = apply(c, key, v, why, len, kp);
	if (msg)
		*kp = NULL;
	return msg;
}

typedef struct reader {
	ibf_osm_t *p;
	const char *path;
	unsigned errors, first_hidden;
	unsigned seen[CONF_NKEYS];       /* last line setting each key, 0 */
} reader_t;

/* A key set twice: an appended line silently overriding an earlier one
 * surprises whoever reads the file top-down; say so, the last wins. */
static void key_set(reader_t *rd, const conf_key_t *k, unsigned line)
{
	char show[IBF_OSM_PATH_MAX * 4 + 16];
	unsigned i = (unsigned)(k - conf_keys);

	if (rd->seen[i]) {
		show_path(rd->path, show, sizeof(show));
		ibf_osm_logf(rd->p, OSM_LOG_INFO, "warning: %s:%u: %s set "
			     "again (before at %s:%u): the last one wins",
			     show, line, k->key, show, rd->seen[i]);
	}
	rd->seen[i] = line;
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
		const conf_key_t *key = NULL;
		const char *msg;

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
