/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Prometheus' text format and the metrics of a routing; see prom.h. */
#include <ibflow/prom.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include <ibflow/io.h>

/* Length of the valid UTF-8 sequence at s, 0 if it is not one (the
 * text format is UTF-8: a stray byte would make the whole file
 * unreadable to the collector). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, surrogates or code points above U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* s with backslash and line feed escaped, a double quote too when
 * quote; bytes that are not UTF-8 become U+FFFD. */
static void escape(FILE *fp, const char *str, bool quote)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = utf8_len(s);

		if (!n) {
			fputs("\xef\xbf\xbd", fp);
			s++;
			continue;
		}
		if (*s == '\\')
			fputs("\\\\", fp);
		else if (*s == '\n')
			fputs("\\n", fp);
		else if (*s == '"' && quote)
			fputs("\\\"", fp);
		else
			fwrite(s, 1, n, fp);
		s += n;
	}
}

void ibf_prom_escape_value(FILE *fp, const char *s)
{
	escape(fp, s, true);
}

void ibf_prom_family(FILE *fp, const char *name, ibf_prom_type_t type,
		     const char *help)
{
	fprintf(fp, "# HELP %s ", name);
	escape(fp, help, false);
	fprintf(fp, "\n# TYPE %s %s\n", name,
		type == IBF_PROM_COUNTER ? "counter" : "gauge");
}

void ibf_prom_sample(FILE *fp, const char *name,
		     const ibf_prom_label_t *labels, unsigned nlabels,
		     double value)
{
	unsigned i;

	fputs(name, fp);
	for (i = 0; i < nlabels; i++) {
		fprintf(fp, "%s%s=\"", i ? "," : "{", labels[i].name);
		ibf_prom_escape_value(fp, labels[i].value ? labels[i].value :
				      "");
		fputc('"', fp);
	}
	if (nlabels)
		fputc('}', fp);
	if (isnan(value))
		fputs(" NaN\n", fp);
	else if (isinf(value))
		fputs(value > 0 ? " +Inf\n" : " -Inf\n", fp);
	else
		fprintf(fp, " %.10g\n", value);
}

void ibf_prom_metric(FILE *fp, const char *name, ibf_prom_type_t type,
		     const char *help, const ibf_prom_label_t *labels,
		     unsigned nlabels, double value)
{
	ibf_prom_family(fp, name, type, help);
	ibf_prom_sample(fp, name, labels, nlabels, value);
}

ibf_status_t ibf_prom_write_file(const char *path, ibf_prom_fill_fn fill,
				 const void *ctx, ibf_err_t *err)
{
	ibf_ofile_t o;
	ibf_status_t st;

	if ((st = ibf_ofile_open(&o, path, err)) != IBF_OK)
		return st;
	if ((st = fill(ctx, o.fp, err)) != IBF_OK) {
		ibf_ofile_abort(&o);
		return st;
	}
	return ibf_ofile_commit(&o, err);
}

/* ---- the metrics of a routing ------------------------------------------ */

void ibf_prom_routing_init(ibf_prom_routing_t *m)
{
	memset(m, 0, sizeof(*m));
	m->routings_total = m->fallbacks_total = NAN;
	m->export_failures_total = m->sequence = m->timestamp = NAN;
	m->endpoints = m->switches = m->route_seconds = NAN;
	m->eval_seconds = m->lft_changed = m->degraded = NAN;
	m->missing_hosts = m->missing_switches = m->missing_links = NAN;
	m->unrouted_entries = m->export_ok = m->deadlock_free = NAN;
	m->vls = m->patterns_skipped = NAN;
}

/* The routing's numbers, one sample each, labelled engine=... */
static const struct scalar {
	const char *name;
	ibf_prom_type_t type;
	size_t off;                  /* a double of ibf_prom_routing_t */
	const char *help;
} scalars[] = {
#define S(n, t, f, h) { "ibflow_" n, IBF_PROM_##t, \
		       offsetof(ibf_prom_routing_t, f), h }
	S("routings_total", COUNTER, routings_total,
	  "Routings OpenSM completed since the plugin was loaded."),
	S("routing_fallbacks_total", COUNTER, fallbacks_total,
	  "Routings in which the requested ibflow engine refused the fabric "
	  "and OpenSM used its next engine."),
	S("export_failures_total", COUNTER, export_failures_total,
	  "Exports for the UCX side that failed."),
	S("routing_sequence", GAUGE, sequence,
	  "Number of the routing these metrics describe."),
	S("routing_timestamp_seconds", GAUGE, timestamp,
	  "When the routing was done, seconds since the Unix epoch."),
	S("fabric_endpoints", GAUGE, endpoints, "Host ports of the fabric."),
	S("fabric_switches", GAUGE, switches, "Switches of the fabric."),
	S("routing_duration_seconds", GAUGE, route_seconds,
	  "Time the engine took to compute and install the tables."),
	S("evaluation_duration_seconds", GAUGE, eval_seconds,
	  "Time the MMF evaluation of the routing took."),
	S("lft_entries_changed", GAUGE, lft_changed,
	  "Forwarding-table entries that differ from the previous routing's."),
	S("lft_entries_unrouted", GAUGE, unrouted_entries,
	  "Forwarding-table entries the engine left without a port."),
	S("fabric_degraded", GAUGE, degraded,
	  "1 when the fat tree lacks hosts, switches or links of its shape."),
	S("export_ok", GAUGE, export_ok,
	  "1 when the export for the UCX side was written, 0 when it failed."),
	S("deadlock_free", GAUGE, deadlock_free,
	  "1 when the channel dependency graph of every VL is acyclic."),
	S("routing_vls", GAUGE, vls, "Virtual lanes that carry routes."),
	S("evaluation_patterns_skipped", GAUGE, patterns_skipped,
	  "Traffic patterns not evaluated (budget, memory or error)."),
#undef S
};

static double field(const ibf_prom_routing_t *m, size_t off)
{
	return *(const double *)((const char *)m + off);
}

static void write_scalars(const ibf_prom_routing_t *m, unsigned n, FILE *fp)
{
	size_t i;
	unsigned r;

	for (i = 0; i < sizeof(scalars) / sizeof(*scalars); i++) {
		bool any = false;

		for (r = 0; r < n; r++)
			any |= !isnan(field(&m[r], scalars[i].off));
		if (!any)
			continue;
		ibf_prom_family(fp, scalars[i].name, scalars[i].type,
				scalars[i].help);
		for (r = 0; r < n; r++) {
			ibf_prom_label_t l = { "engine", m[r].engine };

			if (!isnan(field(&m[r], scalars[i].off)))
				ibf_prom_sample(fp, scalars[i].name, &l, 1,
						field(&m[r], scalars[i].off));
		}
	}
}

static void write_engine(const ibf_prom_routing_t *m, unsigned n, FILE *fp)
{
	unsigned r;
	bool any = false;

	ibf_prom_family(fp, "ibflow_routing_engine_info", IBF_PROM_GAUGE,
			"The engine whose tables are in use (always 1).");
	for (r = 0; r < n; r++) {
		ibf_prom_label_t l[2] = { { "engine", m[r].engine },
					  { "requested", m[r].requested } };

		ibf_prom_sample(fp, "ibflow_routing_engine_info", l,
				m[r].requested ? 2 : 1, 1);
		any |= m[r].requested != NULL;
	}
	if (!any)
		return;
	ibf_prom_family(fp, "ibflow_routing_fallback", IBF_PROM_GAUGE,
			"1 when the requested engine refused the fabric and "
			"another one routed it; reason says why.");
	for (r = 0; r < n; r++) {
		ibf_prom_label_t l[3] = {
			{ "engine", m[r].engine },
			{ "requested", m[r].requested },
			{ "reason", m[r].fallback_reason ?
				    m[r].fallback_reason : "" } };

		if (m[r].requested)
			ibf_prom_sample(fp, "ibflow_routing_fallback", l, 3,
					m[r].fallback_reason ? 1 : 0);
	}
}

static void write_missing(const ibf_prom_routing_t *m, unsigned n, FILE *fp)
{
	static const struct {
		const char *kind;
		size_t off;
	} kinds[] = {
		{ "hosts", offsetof(ibf_prom_routing_t, missing_hosts) },
		{ "switches", offsetof(ibf_prom_routing_t, missing_switches) },
		{ "links", offsetof(ibf_prom_routing_t, missing_links) },
	};
	unsigned r, k;
	bool any = false;

	for (r = 0; r < n; r++)
		for (k = 0; k < 3; k++)
			any |= !isnan(field(&m[r], kinds[k].off));
	if (!any)
		return;
	ibf_prom_family(fp, "ibflow_fabric_missing", IBF_PROM_GAUGE,
			"Hosts, switches or links the fat tree's shape has "
			"and the fabric lacks.");
	for (r = 0; r < n; r++)
		for (k = 0; k < 3; k++) {
			ibf_prom_label_t l[2] = { { "engine", m[r].engine },
						  { "kind", kinds[k].kind } };

			if (!isnan(field(&m[r], kinds[k].off)))
				ibf_prom_sample(fp, "ibflow_fabric_missing", l,
						2, field(&m[r], kinds[k].off));
		}
}

/* Per pattern: the index, its ratio to the optimum, the worst link. */
static const struct pattern_family {
	const char *name, *help;
	size_t off;                  /* a double of ibf_prom_pattern_t */
} pattern_families[] = {
	{ "ibflow_mmf_index", "LFTI throughput index of the pattern under "
	  "max-min fair rates (1 = as good as a crossbar).",
	  offsetof(ibf_prom_pattern_t, index) },
	{ "ibflow_mmf_optimum_ratio", "The pattern's MMF index over the "
	  "optimum's (1 = optimal).", offsetof(ibf_prom_pattern_t, ratio) },
	{ "ibflow_link_flows_max", "Most flows of the pattern on one directed "
	  "link (worst link load).",
	  offsetof(ibf_prom_pattern_t, max_link_load) },
};

static double pfield(const ibf_prom_pattern_t *p, size_t off)
{
	return *(const double *)((const char *)p + off);
}

static void write_patterns(const ibf_prom_routing_t *m, unsigned n, FILE *fp)
{
	size_t f;
	unsigned r, i;

	for (f = 0; f < sizeof(pattern_families) / sizeof(*pattern_families);
	     f++) {
		bool any = false;

		for (r = 0; r < n; r++)
			for (i = 0; i < m[r].npatterns; i++)
				any |= !isnan(pfield(&m[r].patterns[i],
						     pattern_families[f].off));
		if (!any)
			continue;
		ibf_prom_family(fp, pattern_families[f].name, IBF_PROM_GAUGE,
				pattern_families[f].help);
		for (r = 0; r < n; r++)
			for (i = 0; i < m[r].npatterns; i++) {
				const ibf_prom_pattern_t *p =
					&m[r].patterns[i];
				ibf_prom_label_t l[2] = {
					{ "engine", m[r].engine },
					{ "pattern", p->name } };

				if (!isnan(pfield(p, pattern_families[f].off)))
					ibf_prom_sample(fp,
						pattern_families[f].name, l, 2,
						pfield(p,
						pattern_families[f].off));
			}
	}
}

ibf_status_t ibf_prom_routing_write(const ibf_prom_routing_t *m, unsigned n,
				    FILE *fp, ibf_err_t *err)
{
	if (!n)
		return IBF_OK;
	write_engine(m, n, fp);
	write_scalars(m, n, fp);
	write_missing(m, n, fp);
	write_patterns(m, n, fp);
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write failed");
	return IBF_OK;
}
