/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The one option parser of the ibflow programs, their help layout, usage
 * errors and output files (cli_opt.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/infer.h>

#include "cli_opt.h"

/* ---- who speaks ------------------------------------------------------------- */

/* "ibflow route" for a subcommand, "ibflow-probe" for a program of its
 * own (cli_opt.h): the one place that tells them apart. */
static const char *cli_who(const char *cmd, char *buf, size_t len)
{
	if (!strncmp(cmd, "ibflow-", 7))
		snprintf(buf, len, "%s", cmd);
	else
		snprintf(buf, len, "ibflow %s", cmd);
	return buf;
}

int ibf_cli_fail(const char *cmd, const ibf_err_t *err)
{
	char who[64];

	fprintf(stderr, "%s: %s\n", cli_who(cmd, who, sizeof(who)),
		err->msg[0] ? err->msg : ibf_status_str(err->status));
	return IBF_EXIT_INPUT;
}

int ibf_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char who[64];
	va_list ap;

	fprintf(stderr, "%s: ", cli_who(cmd, who, sizeof(who)));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see `%s --help`)\n", who);
	return IBF_EXIT_INPUT;
}

/* ---- values ----------------------------------------------------------------- */

int ibf_cli_parse_uint(const char *cmd, const char *opt, const char *arg,
		       unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || *arg == '-' || errno == ERANGE || v < min ||
	    v > max)
		return ibf_cli_usage_error(cmd, "%s: '%s' is not a number in "
					   "%u..%u", opt, arg, min, max);
	*out = (unsigned)v;
	return IBF_EXIT_OK;
}

static int parse_u64(const char *cmd, const char *opt, const char *arg,
		     uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (!*arg || *end || *arg == '-' || errno == ERANGE)
		return ibf_cli_usage_error(cmd, "%s: '%s' is not an unsigned "
					   "64-bit number", opt, arg);
	*out = v;
	return IBF_EXIT_OK;
}

/* A finite real in (lo, hi], or [lo, hi] when incl. */
static int parse_real(const char *cmd, const char *opt, const char *arg,
		      double lo, bool incl, double hi, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (!*arg || *end || !isfinite(v) || !(v > lo || (incl && v == lo)) ||
	    v > hi) {
		if (isinf(hi))
			return ibf_cli_usage_error(cmd, "%s: '%s' is not a "
						   "number %s %g", opt, arg,
						   incl ? "of at least" :
						   "above", lo);
		return ibf_cli_usage_error(cmd, "%s: '%s' is not a number in "
					   "%c%g, %g]", opt, arg,
					   incl ? '[' : '(', lo, hi);
	}
	*out = v;
	return IBF_EXIT_OK;
}

int ibf_cli_parse_real(const char *cmd, const char *opt, const char *arg,
		       double lo, double hi, double *out)
{
	return parse_real(cmd, opt, arg, lo, false, hi, out);
}

int ibf_cli_opt_lookahead(void *target, const char *cmd, const char *v)
{
	unsigned *out = target, n;
	int rc;

	if (!strcmp(v, "all")) {
		*out = IBF_INFER_LOOKAHEAD_ALL;
		return IBF_EXIT_OK;
	}
	rc = ibf_cli_parse_uint(cmd, "--lookahead", v, 0, 1000000, &n);
	if (rc == IBF_EXIT_OK)
		*out = n ? n : IBF_INFER_LOOKAHEAD_OFF;
	return rc;
}

/* "a, b, c" */
static void join(const char *const *names, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; names[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      names[i]);
}

static int parse_choice(const char *cmd, const char *opt, const char *arg,
			const char *const *names, int *out)
{
	char list[256];
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(arg, names[i])) {
			*out = i;
			return IBF_EXIT_OK;
		}
	join(names, list, sizeof(list));
	return ibf_cli_usage_error(cmd, "%s: '%s' is not one of: %s", opt, arg,
				   list);
}

/* In the order of ibf_cli_write_format(). */
const char *const ibf_cli_write_formats[] = {
	"ibnetdiscover", "ibsim", "dot", NULL
};

ibf_topo_format_t ibf_cli_write_format(int choice)
{
	static const ibf_topo_format_t fmt[] = {
		IBF_TOPO_IBNETDISCOVER, IBF_TOPO_IBSIM, IBF_TOPO_DOT
	};

	return fmt[choice];
}

/* ---- help ---------------------------------------------------------------------- */

/* "-o, --output FILE" or "--topo FILE" */
static int opt_label(const ibf_opt_t *o, char *buf, size_t len)
{
	int n = 0;

	if (o->letter)
		n = snprintf(buf, len, "-%c, ", o->letter);
	n += snprintf(buf + n, len - (size_t)n, "--%s%s%s", o->name,
		      o->meta ? " " : "", o->meta ? o->meta : "");
	return n;
}

/* What help adds to an option's text: its range and default. */
static void opt_extra(const ibf_opt_t *o, char *buf, size_t len)
{
	char range[64] = "";
	const char *def = o->def ? o->def : o->def_text;

	if (o->kind == IBF_ARG_UINT)
		snprintf(range, sizeof(range), "%u..%u", o->min, o->max);
	else if (o->kind == IBF_ARG_REAL && isinf(o->hi))
		snprintf(range, sizeof(range), "%s %s %g", o->meta,
			 o->lo_incl ? ">=" : ">", o->lo);
	else if (o->kind == IBF_ARG_REAL)
		snprintf(range, sizeof(range), "%g %s %s <= %g", o->lo,
			 o->lo_incl ? "<=" : "<", o->meta, o->hi);
	if (range[0] && def)
		snprintf(buf, len, " (%s, default %s)", range, def);
	else if (range[0] || def)
		snprintf(buf, len, " (%s%s)", def ? "default " : "",
			 range[0] ? range : def);
	else
		buf[0] = '\0';
}

/* Every command's help in the same columns: labels from column 2, their
 * text from HELP_COL, lines up to HELP_WIDTH characters. */
#define HELP_COL 21
#define HELP_WIDTH 79

/* The option's text beside its label, continuation lines aligned; the
 * range and default end the last line, or a line of their own. */
static void print_opt(FILE *fp, const ibf_opt_t *o)
{
	const int col = HELP_COL;
	const char *h = o->help, *nl;
	char label[96], extra[128];
	int n;

	opt_label(o, label, sizeof(label));
	opt_extra(o, extra, sizeof(extra));
	n = fprintf(fp, "  %-*s", col - 2, label);
	if (n > col) {
		fprintf(fp, "\n%*s", col, "");
		n = col;
	}
	for (;;) {
		nl = strchr(h, '\n');
		if (!nl)
			break;
		fprintf(fp, "%.*s\n%*s", (int)(nl - h), h, col, "");
		h = nl + 1;
	}
	if (n + (int)strlen(h) + (int)strlen(extra) > HELP_WIDTH && extra[0])
		fprintf(fp, "%s\n%*s%s\n", h, col, "", extra + 1);
	else
		fprintf(fp, "%s%s\n", h, extra);
}

/* The usage line made from the table: required options, [options], the
 * operands. */
static void print_usage(FILE *fp, const ibf_cli_spec_t *s)
{
	const ibf_opt_t *o;
	bool optional = false;
	char who[64];

	fprintf(fp, "usage: %s", cli_who(s->name, who, sizeof(who)));
	if (s->usage) {
		fprintf(fp, " %s\n", s->usage);
		return;
	}
	for (o = s->opts; o->name; o++) {
		if (!o->required) {
			optional = true;
			continue;
		}
		if (o->letter)
			fprintf(fp, " -%c", o->letter);
		else
			fprintf(fp, " --%s", o->name);
		if (o->meta)
			fprintf(fp, " %s", o->meta);
	}
	if (optional)
		fprintf(fp, " [options]");
	if (s->operands)
		fprintf(fp, " %s", s->operands);
	fputc('\n', fp);
}

void ibf_cli_help(const ibf_cli_spec_t *s, FILE *fp)
{
	static const ibf_opt_t help = {
		.name = "help", .letter = 'h', .help = "this text"
	};
	const ibf_opt_t *o;

	print_usage(fp, s);
	fprintf(fp, "\n%s\n", s->about);
	for (o = s->opts; o->name; o++) {
		if (o->section)
			fprintf(fp, "%s\n", o->section);
		print_opt(fp, o);
	}
	print_opt(fp, &help);
	fprintf(fp, "\n%sExit status: %s\n", s->notes ? s->notes : "",
		s->exit);
}

/* Options in one table at the most (with the end marker). */
#define IBF_CLI_MAX_OPTS 64u

/* ---- parsing --------------------------------------------------------------------- */

/* The long option NAME (len characters): exact, else the one option it
 * is a prefix of.  NULL after reporting. */
static const ibf_opt_t *find_long(const ibf_cli_spec_t *s, const char *name,
				  size_t len, bool *help, int *rc)
{
	const ibf_opt_t *o, *hit = NULL;
	unsigned nhits = 0;

	*help = false;
	for (o = s->opts; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len)
			return o;
		hit = o;
		nhits++;
	}
	if (!strncmp("help", name, len)) {
		if (len == 4 || !nhits) {
			*help = true;
			return NULL;
		}
		nhits++;
	}
	if (nhits == 1)
		return hit;
	*rc = ibf_cli_usage_error(s->name, "%s option '--%.*s'",
				  nhits ? "ambiguous" : "unknown", (int)len,
				  name);
	return NULL;
}

static const ibf_opt_t *find_short(const ibf_cli_spec_t *s, char c)
{
	const ibf_opt_t *o;

	for (o = s->opts; o->name; o++)
		if (o->letter && o->letter == c)
			return o;
	return NULL;
}

static int set_value(const ibf_cli_spec_t *s, const ibf_opt_t *o,
		     const char *v)
{
	char opt[64];

	snprintf(opt, sizeof(opt), "--%s", o->name);
	switch (o->kind) {
	case IBF_ARG_NONE:
		*(bool *)o->target = true;
		return IBF_EXIT_OK;
	case IBF_ARG_STR:
		*(const char **)o->target = v;
		return IBF_EXIT_OK;
	case IBF_ARG_UINT:
		return ibf_cli_parse_uint(s->name, opt, v, o->min, o->max,
					  o->target);
	case IBF_ARG_U64:
		return parse_u64(s->name, opt, v, o->target);
	case IBF_ARG_REAL:
		return parse_real(s->name, opt, v, o->lo, o->lo_incl, o->hi,
				  o->target);
	case IBF_ARG_CHOICE:
		return parse_choice(s->name, opt, v, o->choices,
					    o->target);
	case IBF_ARG_CALL:
		return o->call(o->target, s->name, v);
	}
	return IBF_EXIT_INPUT;
}

/* Every option's .def, parsed as its value would be: a default that is
 * no value of its option is the table's error, reported as a usage
 * error. */
static int set_defaults(const ibf_cli_spec_t *s)
{
	const ibf_opt_t *o;
	int rc;

	for (o = s->opts; o->name; o++) {
		if (!o->def || o->kind == IBF_ARG_NONE)
			continue;
		rc = set_value(s, o, o->def);
		if (rc != IBF_EXIT_OK)
			return rc;
	}
	return IBF_EXIT_OK;
}

/* One option at argv[*i] (already known to start with '-'); *i moves past
 * what it used, *used is the option (NULL for --help). */
static int parse_one(const ibf_cli_spec_t *s, int argc, char **argv, int *i,
		     bool *help, const ibf_opt_t **used)
{
	const char *a = argv[*i], *v = NULL;
	const ibf_opt_t *o;
	int rc = IBF_EXIT_INPUT;

	*used = NULL;

	if (a[1] == '-') {
		size_t len = strcspn(a + 2, "=");

		o = find_long(s, a + 2, len, help, &rc);
		if (!o)
			return *help ? IBF_EXIT_OK : rc;
		if (a[2 + len] == '=') {
			if (o->kind == IBF_ARG_NONE)
				return ibf_cli_usage_error(s->name, "--%s takes "
							   "no value", o->name);
			v = a + 3 + len;
		}
	} else {
		const char *c = a + 1;

		*help = a[1] == 'h' && !a[2];
		if (*help)
			return IBF_EXIT_OK;
		/* -fz: flags together, as getopt takes them; a letter that
		 * takes a value ends the cluster (-fi20) */
		for (;; c++) {
			o = find_short(s, *c);
			/* the letter alone, as getopt names it (-xq: '-x') */
			if (!o)
				return ibf_cli_usage_error(s->name, "unknown "
							   "option '-%c'", *c);
			if (o->kind != IBF_ARG_NONE || !c[1])
				break;
			if (o->seen)
				*o->seen = true;
			*(bool *)o->target = true;
		}
		v = c[1] ? c + 1 : NULL;
	}
	if (o->kind != IBF_ARG_NONE && !v) {
		if (*i + 1 >= argc)
			return ibf_cli_usage_error(s->name, "--%s needs a value "
						   "(%s)", o->name, o->meta);
		v = argv[++*i];
	}
	if (o->seen)
		*o->seen = true;
	*used = o;
	return set_value(s, o, v);
}

/* "--topo", or "-o" for an option with a short form */
static const char *opt_name(const ibf_opt_t *o, char *buf, size_t len)
{
	if (o->letter)
		snprintf(buf, len, "-%c", o->letter);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

/* Every required option given?  Else all required options are named. */
static int check_required(const ibf_cli_spec_t *s, const bool *given)
{
	char list[256] = "", name[64];
	unsigned n = 0, k = 0, i, missing = 0;
	const ibf_opt_t *o;
	size_t len;

	for (o = s->opts, i = 0; o->name; o++, i++) {
		n += o->required;
		missing += o->required && !given[i];
	}
	if (!missing)
		return IBF_EXIT_OK;
	for (o = s->opts; o->name; o++) {
		if (!o->required)
			continue;
		len = strlen(list);
		k++;
		snprintf(list + len, sizeof(list) - len, "%s%s",
			 k == 1 ? "" : k == n ? " and " : ", ",
			 opt_name(o, name, sizeof(name)));
	}
	return ibf_cli_usage_error(s->name, "%s %s required", list,
				   n == 1 ? "is" : "are");
}

bool ibf_cli_parse(const ibf_cli_spec_t *s, int argc, char **argv,
		   const char **operand, int *rc)
{
	bool given[IBF_CLI_MAX_OPTS] = { false }, help = false;
	bool dashdash = false;
	const ibf_opt_t *used;
	unsigned nops = 0, k;
	int i;

	for (k = 0; s->opts[k].name; k++)
		if (k + 1 == IBF_CLI_MAX_OPTS) {
			*rc = ibf_cli_usage_error(s->name, "more than %u "
						  "options in the table",
						  IBF_CLI_MAX_OPTS - 1);
			return false;
		}
	for (k = 0; k < s->max_operands; k++)
		operand[k] = NULL;
	*rc = set_defaults(s);
	if (*rc != IBF_EXIT_OK)
		return false;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (dashdash || a[0] != '-' || !a[1]) {
			if (nops == s->max_operands) {
				*rc = ibf_cli_usage_error(s->name, "unexpected "
							  "argument '%s'", a);
				return false;
			}
			operand[nops++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
			continue;
		}
		*rc = parse_one(s, argc, argv, &i, &help, &used);
		if (*rc != IBF_EXIT_OK)
			return false;
		if (help) {
			ibf_cli_help(s, stdout);
			return false;
		}
		given[used - s->opts] = true;
	}
	if (nops < s->min_operands) {
		*rc = ibf_cli_usage_error(s->name, "expected %s, got %u "
					  "argument%s", s->operands, nops,
					  nops == 1 ? "" : "s");
		return false;
	}
	*rc = check_required(s, given);
	return *rc == IBF_EXIT_OK;
}

/* ---- outputs --------------------------------------------------------------------- */

int ibf_cli_write_file(const char *cmd, const char *path, ibf_cli_writer_t fn,
		       const void *ctx)
{
	ibf_ofile_t o;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_ofile_open(&o, path, &err) != IBF_OK)
		return ibf_cli_fail(cmd, &err);
	if (fn(ctx, o.fp, &err) != IBF_OK) {
		ibf_ofile_abort(&o);
		return ibf_cli_fail(cmd, &err);
	}
	if (ibf_ofile_commit(&o, &err) != IBF_OK)
		return ibf_cli_fail(cmd, &err);
	return IBF_EXIT_OK;
}

FILE *ibf_cli_text_out(const char *json_path)
{
	return json_path && !strcmp(json_path, "-") ? stderr : stdout;
}
