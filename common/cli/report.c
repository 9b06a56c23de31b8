/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Text reports of library results: the table of `ibflow eval`. */
#include <string.h>

#include <ibflow/eval.h>

#include "cli.h"

static int name_width(char **names, uint32_t n, int min)
{
	int w = min, l;
	uint32_t i;

	for (i = 0; i < n; i++) {
		l = (int)strlen(names[i]);
		if (l > w)
			w = l;
	}
	return w > 40 ? 40 : w;
}

void ibf_cli_eval_table(const ibf_eval_t *e, FILE *fp)
{
	int rw = name_width(e->routing_name, e->nroutings, 7);
	int pw = name_width(e->pattern_name, e->npatterns, 7);
	uint32_t r, p;

	fprintf(fp, "%-*s  %-*s %10s %8s", rw, "routing", pw, "pattern",
		"flows", "index");
	if (e->opt_asked)
		fprintf(fp, " %9s %7s", "opt_index", "ratio");
	fprintf(fp, " %10s %11s %8s %9s", "min_rate", "median_rate",
		"max_load", "seconds");
	if (e->opt_asked)
		fprintf(fp, " %11s", "opt_seconds");
	fputc('\n', fp);
	for (r = 0; r < e->nroutings; r++)
		for (p = 0; p < e->npatterns; p++) {
			const ibf_eval_result_t *x = ibf_eval_result(e, r, p);

			fprintf(fp, "%-*s  %-*s %10llu %8.4f", rw,
				e->routing_name[r], pw, e->pattern_name[p],
				(unsigned long long)x->flows, x->index);
			if (e->opt_asked && x->has_opt)
				fprintf(fp, " %9.4f %7.4f", x->opt_index,
					x->ratio);
			else if (e->opt_asked)
				fprintf(fp, " %9s %7s", "-", "-");
			fprintf(fp, " %10.4g %11.4g %8.4g %9.3f",
				x->min_rate, x->median_rate, x->max_link_load,
				x->seconds);
			if (e->opt_asked && x->has_opt)
				fprintf(fp, " %11.3f", x->opt_seconds);
			else if (e->opt_asked)
				fprintf(fp, " %11s", "-");
			fputc('\n', fp);
		}
}
