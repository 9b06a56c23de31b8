/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The chart of `ibflow eval --plot`: gnuplot run on a script and a data
 * file in a private temporary directory.  A front-end matter: the library
 * (which OpenSM loads) never starts programs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ibflow/eval.h>
#include <ibflow/io.h>

#include "cli.h"

extern char **environ;

ibf_status_t ibf_cli_plot_check(ibf_err_t *err)
{
#ifdef GNUPLOT_PATH
	if (access(GNUPLOT_PATH, X_OK) == 0)
		return IBF_OK;
	return ibf_err_set(err, IBF_ERR_UNSUPPORTED, "gnuplot not found "
			   "(%s is gone; install gnuplot-nox)", GNUPLOT_PATH);
#else
	return ibf_err_set(err, IBF_ERR_UNSUPPORTED, "gnuplot not found "
			   "(configure found none; install gnuplot-nox and "
			   "re-run configure)");
#endif
}

struct plotdir {
	char dir[256], data[300], script[300], svg[300], log[300];
};

/* Plot labels: no tabs (the data separator), no line breaks. */
static void put_label(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

/* A gnuplot single-quoted string: only ' needs escaping (as ''). */
static void put_squoted(FILE *fp, const char *s)
{
	fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', fp);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
	}
	fputc('\'', fp);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s && s[1] ? s + 1 : p;
}

/* Data: one row per pattern, one column per routing (+ optimum). */
static double write_data(const ibf_eval_t *e, FILE *fp)
{
	double top = 1.0, v;
	uint32_t r, p;

	for (p = 0; p < e->npatterns; p++) {
		put_label(fp, e->pattern_name[p]);
		for (r = 0; r < e->nroutings; r++) {
			v = ibf_eval_result(e, r, p)->index;
			top = v > top ? v : top;
			fprintf(fp, "\t%.9g", v);
		}
		if (e->opt_done) {
			v = ibf_eval_result(e, 0, p)->opt_index;
			top = v > top ? v : top;
			fprintf(fp, "\t%.9g", v);
		}
		fputc('\n', fp);
	}
	return top;
}

static void write_script(const ibf_eval_t *e, const struct plotdir *d,
			 double top, FILE *fp)
{
	unsigned width = 240 + 60 * e->npatterns * (e->nroutings + 1);
	uint32_t r, col = 2;

	fprintf(fp, "set terminal svg size %u,480 dynamic noenhanced "
		"font 'sans,12' background rgb 'white'\n",
		width < 640 ? 640 : width > 4000 ? 4000 : width);
	fprintf(fp, "set output ");
	put_squoted(fp, d->svg);
	fprintf(fp, "\nset datafile separator '\\t'\n"
		"set title 'LFTI throughput index (MMF, %s paths; "
		"1 = crossbar)'\n"
		"set ylabel 'index'\nset yrange [0:%.3f]\n"
		"set grid ytics\nset key below center horizontal\n"
		"set xrange [-0.6:%.1f]\n"
		"set style data histogram\n"
		"set style histogram cluster gap 1\n"
		"set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
		"set xtics nomirror\n", ibf_eval_paths_name(e->paths),
		top * 1.1, e->npatterns - 0.4);
	fprintf(fp, "plot ");
	for (r = 0; r < e->nroutings; r++, col++) {
		fprintf(fp, "%s", r ? ", '' " : "");
		if (!r)
			put_squoted(fp, d->data);
		fprintf(fp, " using %u%s title ", col, r ? "" : ":xtic(1)");
		put_squoted(fp, base_name(e->routing_name[r]));
	}
	if (e->opt_done)
		fprintf(fp, ", '' using %u title 'optimum' "
			"lc rgb '#404040'", col);
	fputc('\n', fp);
}

static ibf_status_t write_text(const char *path, const ibf_eval_t *e,
			       const struct plotdir *d, bool script,
			       double *top, ibf_err_t *err)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		return ibf_err_set(err, IBF_ERR_IO, "%s: %s", path,
				   strerror(errno));
	if (script)
		write_script(e, d, *top, fp);
	else
		*top = write_data(e, fp);
	if (fclose(fp))
		return ibf_err_set(err, IBF_ERR_IO, "%s: %s", path,
				   strerror(errno));
	return IBF_OK;
}

/* gnuplot's own words when it fails: the first line of its stderr. */
static void read_log(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!fp)
		return;
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
}

static ibf_status_t spawn_gnuplot(const char *exe, const struct plotdir *d,
				  ibf_err_t *err)
{
	char *argv[] = { "gnuplot", (char *)d->script, NULL };
	posix_spawn_file_actions_t fa;
	char msg[200];
	pid_t pid;
	int rc, status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, d->log,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return ibf_err_set(err, IBF_ERR_IO, "cannot run %s: %s", exe,
				   strerror(rc));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return ibf_err_set(err, IBF_ERR_IO, "waitpid: %s",
					   strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return IBF_OK;
	read_log(d->log, msg, sizeof(msg));
	return ibf_err_set(err, IBF_ERR_IO, "gnuplot failed (%s): %s",
			   WIFEXITED(status) ? "exit status" : "killed",
			   msg[0] ? msg : "no message");
}

/* Copy the SVG gnuplot made to its destination, atomically. */
static ibf_status_t copy_out(const char *from, const char *to,
			     ibf_err_t *err)
{
	FILE *in = fopen(from, "rb");
	char buf[8192];
	ibf_ofile_t of;
	ibf_status_t st;
	size_t n;

	if (!in)
		return ibf_err_set(err, IBF_ERR_IO, "gnuplot wrote no SVG");
	st = ibf_ofile_open(&of, to, err);
	if (st != IBF_OK) {
		fclose(in);
		return st;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, of.fp);
	fclose(in);
	return ibf_ofile_commit(&of, err);
}

static ibf_status_t plot_in(const ibf_eval_t *e, const char *exe,
			    struct plotdir *d, const char *path,
			    ibf_err_t *err)
{
	ibf_status_t st;
	double top = 1.0;

	snprintf(d->data, sizeof(d->data), "%s/index.tsv", d->dir);
	snprintf(d->script, sizeof(d->script), "%s/plot.gp", d->dir);
	snprintf(d->svg, sizeof(d->svg), "%s/plot.svg", d->dir);
	snprintf(d->log, sizeof(d->log), "%s/gnuplot.log", d->dir);
	st = write_text(d->data, e, d, false, &top, err);
	if (st == IBF_OK)
		st = write_text(d->script, e, d, true, &top, err);
	if (st == IBF_OK)
		st = spawn_gnuplot(exe, d, err);
	if (st == IBF_OK)
		st = copy_out(d->svg, path, err);
	unlink(d->data);
	unlink(d->script);
	unlink(d->svg);
	unlink(d->log);
	return st;
}

/* The gnuplot configure found, or NULL: the plotting code is compiled
 * either way so a build without gnuplot checks it too. */
static const char *gnuplot_exe(void)
{
#ifdef GNUPLOT_PATH
	return GNUPLOT_PATH;
#else
	return NULL;
#endif
}

ibf_status_t ibf_cli_eval_plot(const ibf_eval_t *e, const char *path,
			       ibf_err_t *err)
{
	const char *tmp = getenv("TMPDIR");
	struct plotdir d;
	ibf_status_t st;

	/* Fails unless configure found gnuplot, so gnuplot_exe() is set. */
	if ((st = ibf_cli_plot_check(err)) != IBF_OK)
		return st;
	snprintf(d.dir, sizeof(d.dir), "%s/ibflow-plot.XXXXXX",
		 tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
	if (!mkdtemp(d.dir))
		return ibf_err_set(err, IBF_ERR_IO, "%s: %s", d.dir,
				   strerror(errno));
	st = plot_in(e, gnuplot_exe(), &d, path, err);
	rmdir(d.dir);
	return st;
}
