/* Helpers shared by the subcommands: loading inputs, reporting errors. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int ibf_cli_fail(const char *cmd, const ibf_err_t *err)
{
	fprintf(stderr, "ibflow %s: %s\n", cmd,
		err->msg[0] ? err->msg : ibf_status_str(err->status));
	return IBF_EXIT_INPUT;
}

int ibf_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ibflow %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see `ibflow %s --help`)\n", cmd);
	return IBF_EXIT_INPUT;
}

ibf_fabric_t *ibf_cli_load_topo(const char *cmd, const char *path,
				unsigned lmc)
{
	ibf_topo_read_opts_t opts = { .format = IBF_TOPO_AUTO, .lmc = lmc };
	ibf_fabric_t *f = NULL;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_topo_read(path, &opts, &f, &err) != IBF_OK) {
		ibf_cli_fail(cmd, &err);
		return NULL;
	}
	return f;
}

ibf_lfts_t *ibf_cli_load_lfts(const char *cmd, const ibf_fabric_t *f,
			      const char *path)
{
	ibf_lfts_t *l = NULL;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_lfts_read(f, path, &l, &err) != IBF_OK) {
		ibf_cli_fail(cmd, &err);
		return NULL;
	}
	return l;
}

int ibf_cli_load_routed(const char *cmd, const char *topo, const char *lfts,
			unsigned lmc, ibf_fabric_t **f, ibf_lfts_t **l)
{
	*l = NULL;
	*f = ibf_cli_load_topo(cmd, topo, lmc);
	if (!*f)
		return IBF_EXIT_INPUT;
	*l = ibf_cli_load_lfts(cmd, *f, lfts);
	if (!*l) {
		ibf_fabric_destroy(*f);
		*f = NULL;
		return IBF_EXIT_INPUT;
	}
	return IBF_EXIT_OK;
}

int ibf_cli_parse_uint(const char *cmd, const char *opt, const char *arg,
		       unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	v = strtoul(arg, &end, 10);
	if (!*arg || *end || *arg == '-' || v < min || v > max)
		return ibf_cli_usage_error(cmd, "%s: '%s' is not a number in "
					   "%u..%u", opt, arg, min, max);
	*out = (unsigned)v;
	return IBF_EXIT_OK;
}

int ibf_cli_parse_write_format(const char *cmd, const char *opt,
			       const char *arg, ibf_topo_format_t *out)
{
	ibf_topo_format_t fmt = ibf_topo_format_from_name(arg);

	if (fmt != IBF_TOPO_IBNETDISCOVER && fmt != IBF_TOPO_IBSIM &&
	    fmt != IBF_TOPO_DOT)
		return ibf_cli_usage_error(cmd, "%s: cannot write format '%s' "
					   "(ibnetdiscover, ibsim, dot)", opt,
					   arg);
	*out = fmt;
	return IBF_EXIT_OK;
}

int ibf_cli_parse_u64(const char *cmd, const char *opt, const char *arg,
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

int ibf_cli_parse_real(const char *cmd, const char *opt, const char *arg,
		       double lo, double hi, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (!*arg || *end || !isfinite(v) || !(v > lo && v <= hi)) {
		if (isinf(hi))
			return ibf_cli_usage_error(cmd, "%s: '%s' is not a "
						   "number above %g", opt, arg,
						   lo);
		return ibf_cli_usage_error(cmd, "%s: '%s' is not a number in "
					   "(%g, %g]", opt, arg, lo, hi);
	}
	*out = v;
	return IBF_EXIT_OK;
}

int ibf_cli_parse_choice(const char *cmd, const char *opt, const char *arg,
			 const char *const *names, int *out)
{
	char list[256] = "";
	size_t len = 0;
	int i;

	for (i = 0; names[i]; i++) {
		if (!strcmp(arg, names[i])) {
			*out = i;
			return IBF_EXIT_OK;
		}
		len += (size_t)snprintf(list + len, len < sizeof(list) ?
					sizeof(list) - len : 0, "%s%s",
					i ? ", " : "", names[i]);
	}
	return ibf_cli_usage_error(cmd, "%s: '%s' is not one of: %s", opt, arg,
				   list);
}
