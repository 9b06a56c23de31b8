/*
 * ibflow.conf: "key value" lines, '#' comments.  A bad line is logged as
 * "FILE:LINE: what is wrong" and skipped, so the defaults (or the earlier
 * good value) stay in force: a typo must never stop the SM from routing.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include <ibflow/io.h>
#include <ibflow/patterns.h>

#include "ibflow_osm.h"

static const char *const default_patterns[] = {
	"perm", "shift", "bisect", "alltoall",
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
	c->eval_budget = 10.0;
	c->eval_max_endpoints = 2048;
	c->eval_opt = true;
	c->eval_foreign = true;
	set_patterns_default(c);
}

void ibf_osm_conf_free(ibf_osm_conf_t *c)
{
	free_patterns(c);
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

static bool parse_uint(const char *v, unsigned max, unsigned *out)
{
	const char *s = v;

	return ibf_scan_uint(&s, max, out) && ibf_scan_end(&s);
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
	char *list[IBF_OSM_MAX_PATTERNS];
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
			snprintf(why, len, "%s", err.msg);
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
		if (!ibf_scan_u64(&s, 0, &u64) || !ibf_scan_end(&s))
			return "seed: an unsigned integer";
		r->seed = u64;
		return NULL;
	}
	if (!strcmp(key, "max_vls"))
		return parse_uint(v, 15, &r->max_vls) ? NULL :
			"max_vls: a number 0..15 (0 = 8)";
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
	if (!strcmp(key, "eval_patterns"))
		return parse_patterns(c, v, why, len);
	snprintf(why, len, "unknown key \"%s\"", key);
	return why;
}

static void parse_line(ibf_osm_t *p, ibf_text_t *t, char *line)
{
	char why[IBF_ERR_MSG_MAX];
	const char *msg;
	char *key, *v, *end;
	ibf_err_t err;

	if ((end = strchr(line, '#')))
		*end = '\0';
	key = line + strspn(line, " \t");
	if (!*key)
		return;
	v = key + strcspn(key, " \t=");
	if (*v)
		*v++ = '\0';
	v += strspn(v, " \t=");
	end = v + strlen(v);
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	if (!*v)
		msg = "missing value";
	else
		msg = apply(&p->conf, key, v, why, sizeof(why));
	if (!msg)
		return;
	ibf_text_error(t, &err, IBF_ERR_PARSE, "%s", msg);
	ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF06: %s (ignored, keeping the "
		     "default)", err.msg);
}

void ibf_osm_conf_load(ibf_osm_t *p, const char *path, bool required)
{
	ibf_text_t t;
	ibf_err_t err;
	char *line;

	snprintf(p->conf_path, sizeof(p->conf_path), "%s", path);
	if (!required && access(path, F_OK) != 0) {
		ibf_osm_logf(p, OSM_LOG_VERBOSE, "no %s: defaults", path);
		p->conf_path[0] = '\0';
		return;
	}
	if (ibf_text_load(&t, path, &err) != IBF_OK) {
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF07: %s (defaults kept)",
			     err.msg);
		return;
	}
	while ((line = ibf_text_next_line(&t)))
		parse_line(p, &t, line);
	ibf_text_free(&t);
	ibf_osm_logf(p, OSM_LOG_INFO, "configuration read from %s", path);
}
