/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The export of a routing and its consumer-side check (export.h); the
 * consumers' reader of either manifest is export_read.c, the retries
 * while a newer export is put in place export_retry.c.
 *
 * A consumer that sees a manifest with "status complete" must find every
 * file it names with that generation in its first line and the size the
 * manifest gives: the files are renamed into place one by one, so the
 * manifest is first set to "writing" (a reader then waits), and only
 * after the last data file to "complete".  A failed export leaves
 * "status failed" and the reason; the older data files it did not replace
 * still carry their own generation, so nothing mixes unnoticed.
 */
#include <ibflow/export.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ibflow/io.h>
#include <ibflow/lfts_io.h>
#include <ibflow/topo_io.h>

#include "base/scan.h"
#include "formats/topo_internal.h"
#include "routing/route_internal.h"

#define HEADER "# ibflow export "
#define PATH_LEN 4096

static const char *const file_names[IBF_EXPORT_NFILES] = {
	"ibflow-topology.ibnd", "ibflow-lfts.dump", "ibflow-order.txt",
	"ibflow-sl.txt",
};
static const char *const file_kinds[IBF_EXPORT_NFILES] = {
	"topology", "lfts", "order", "sl",
};

const char *ibf_export_file_name(unsigned k)
{
	return k < IBF_EXPORT_NFILES ? file_names[k] : NULL;
}

static void join(char *out, const char *dir, const char *name)
{
	snprintf(out, PATH_LEN, "%s/%s", dir, name);
}

/* ---- writing ---------------------------------------------------------- */

static bool gen_ok(const char *g)
{
	size_t n = strlen(g);

	if (!n || n >= IBF_EXPORT_GEN_MAX)
		return false;
	for (; *g; g++)
		if (*g <= ' ' || *g == 0x7f)
			return false;
	return true;
}

/* Reasons go on one line of the manifest. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static ibf_status_t write_manifest(const char *dir,
				   const ibf_export_info_t *in,
				   const char *status, ibf_err_t *err)
{
	char path[PATH_LEN];
	ibf_ofile_t o;
	ibf_status_t st;
	unsigned k;

	join(path, dir, IBF_EXPORT_MANIFEST);
	st = ibf_ofile_open(&o, path, err);
	if (st != IBF_OK)
		return st;
	fprintf(o.fp, "# ibflow export manifest: use the files below only "
		"while status is complete\nformat 1\ngeneration %s\n"
		"status %s\nengine %s\nrouting %" PRIu64 "\nendpoints %u\n"
		"switches %u\nlmc %u\nsls %u\n", in->generation, status,
		in->engine, in->routing, in->endpoints, in->switches, in->lmc,
		in->sls);
	for (k = 0; k < IBF_EXPORT_NFILES; k++)
		fprintf(o.fp, "file %s %s %" PRIu64 "\n", file_kinds[k],
			file_names[k], in->bytes[k]);
	return ibf_ofile_commit(&o, err);
}

static ibf_status_t file_size(const char *path, uint64_t *out,
			      ibf_err_t *err)
{
	struct stat sb;

	if (stat(path, &sb))
		return ibf_err_set(err, IBF_ERR_IO, "%s: %s", path,
				   strerror(errno));
	*out = (uint64_t)sb.st_size;
	return IBF_OK;
}

/* The topology as text, read back and compared with the fabric. */
static ibf_status_t topology_text(const ibf_fabric_t *f, const char *name,
				  char **buf, size_t *len, ibf_err_t *err)
{
	ibf_topo_read_opts_t ro = { IBF_TOPO_IBNETDISCOVER, f->lmc };
	ibf_fabric_t *back = NULL;
	FILE *mem = open_memstream(buf, len);
	ibf_text_t t;
	ibf_status_t st;

	if (!mem)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = ibf_topo_write(f, IBF_TOPO_IBNETDISCOVER, mem, err);
	if (fclose(mem) && st == IBF_OK)
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	if (st == IBF_OK)
		st = ibf_text_from_buf(&t, name, *buf, *len, err);
	if (st == IBF_OK) {
		st = ibf_topo_read_text(&t, &ro, &back, err);
		ibf_text_free(&t);
	}
	if (st == IBF_OK)
		st = ibf_fabric_compare(f, back, err);
	if (st != IBF_OK)
		ibf_err_prefix(err, "topology does not read back: ");
	ibf_fabric_destroy(back);
	return st;
}

static ibf_status_t put_file(const char *dir, unsigned k,
			     const ibf_routing_t *r, ibf_export_info_t *in,
			     ibf_err_t *err)
{
	char path[PATH_LEN], *buf = NULL;
	size_t len = 0;
	ibf_ofile_t o;
	ibf_status_t st = IBF_OK;

	join(path, dir, file_names[k]);
	if (k == IBF_EXPORT_TOPOLOGY)
		st = topology_text(r->fabric, path, &buf, &len, err);
	else if (k == IBF_EXPORT_ORDER)
		st = ibf_order_text(r, path, &buf, &len, err);
	if (st == IBF_OK)
		st = ibf_ofile_open(&o, path, err);
	if (st == IBF_OK) {
		fprintf(o.fp, HEADER "%s\n", in->generation);
		if (buf)
			fwrite(buf, 1, len, o.fp);
		else if (k == IBF_EXPORT_LFTS)
			st = ibf_lfts_write(r->lfts, o.fp, err);
		else
			ibf_routing_write_sl_fp(r, o.fp);
		if (st == IBF_OK)
			st = ibf_ofile_commit(&o, err);
		else
			ibf_ofile_abort(&o);
	}
	free(buf);
	if (st == IBF_OK)
		st = file_size(path, &in->bytes[k], err);
	if (st != IBF_OK)
		ibf_err_prefix(err, "%s: ", file_names[k]);
	return st;
}

ibf_status_t ibf_export_write(const char *dir, const ibf_routing_t *r,
			      ibf_export_info_t *in, ibf_err_t *err)
{
	ibf_status_t st;
	char status[IBF_ERR_MSG_MAX + 16];
	ibf_err_t e2;
	unsigned k;

	if (!gen_ok(in->generation) || !gen_ok(in->engine))
		return ibf_err_set(err, IBF_ERR_INVALID, "export: generation "
				   "and engine must be 1..%u characters "
				   "without blanks", IBF_EXPORT_GEN_MAX - 1);
	in->endpoints = r->fabric->nendpoints;
	in->switches = r->fabric->nswitches;
	in->lmc = r->fabric->lmc;
	in->sls = r->nsls ? r->nsls : 1;
	memset(in->bytes, 0, sizeof(in->bytes));
	in->retry = false;
	st = write_manifest(dir, in, "writing", err);
	for (k = 0; k < IBF_EXPORT_NFILES && st == IBF_OK; k++)
		st = put_file(dir, k, r, in, err);
	if (st == IBF_OK)
		return write_manifest(dir, in, "complete", err);
	snprintf(status, sizeof(status), "failed %s", err->msg);
	one_line(status);
	ibf_err_clear(&e2);
	/* Best effort: if even this fails, the "writing" (or older)
	 * manifest stays, which no consumer takes for complete either. */
	(void)write_manifest(dir, in, status, &e2);
	return st;
}

/* ---- checking ------------------------------------------------------------ */

static ibf_status_t bad(ibf_export_info_t *in, bool retry, ibf_err_t *err,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static ibf_status_t bad(ibf_export_info_t *in, bool retry, ibf_err_t *err,
			const char *fmt, ...)
{
	va_list ap;
	ibf_status_t st;

	va_start(ap, fmt);
	st = ibf_err_vset(err, IBF_ERR_INVALID, fmt, ap);
	va_end(ap);
	in->retry = retry;
	return st;
}

static bool word_is(const char **s, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(*s, w, n) || ((*s)[n] != ' ' && (*s)[n] != '\0'))
		return false;
	*s += n;
	ibf_scan_blanks(s);
	return true;
}

static void copy_word(char *out, size_t len, const char *s)
{
	size_t n = strcspn(s, " \t");

	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

static ibf_status_t read_manifest(const char *dir, ibf_export_info_t *in,
				  char *status, size_t slen, ibf_err_t *err)
{
	char path[PATH_LEN];
	ibf_text_t t;
	ibf_status_t st;
	char *line;
	unsigned seen = 0, k, v;
	uint64_t u;

	memset(in, 0, sizeof(*in));
	status[0] = '\0';
	join(path, dir, IBF_EXPORT_MANIFEST);
	if (access(path, F_OK))
		return ibf_err_set(err, IBF_ERR_NOT_FOUND, "%s: no export "
				   "(%s)", path, strerror(errno));
	if ((st = ibf_text_load(&t, path, err)) != IBF_OK)
		return st;
	while ((line = ibf_text_next_line(&t))) {
		const char *s = line;

		ibf_scan_blanks(&s);
		if (!*s || *s == '#')
			continue;
		if (word_is(&s, "format")) {
			if (!ibf_scan_uint(&s, 1000, &v) || v != 1)
				st = ibf_text_error(&t, err, IBF_ERR_PARSE,
						    "unknown format");
		} else if (word_is(&s, "generation")) {
			copy_word(in->generation, sizeof(in->generation), s);
			seen |= 1;
		} else if (word_is(&s, "status")) {
			snprintf(status, slen, "%s", s);
			seen |= 2;
		} else if (word_is(&s, "engine")) {
			copy_word(in->engine, sizeof(in->engine), s);
		} else if (word_is(&s, "routing")) {
			if (!ibf_scan_u64(&s, 10, &in->routing))
				st = ibf_text_error(&t, err, IBF_ERR_PARSE,
						    "bad routing number");
		} else if (word_is(&s, "endpoints")) {
			if (!ibf_scan_u64(&s, 10, &u) || u > UINT32_MAX)
				st = ibf_text_error(&t, err, IBF_ERR_PARSE,
						    "bad endpoint count");
			in->endpoints = (uint32_t)u;
		} else if (word_is(&s, "switches")) {
			if (!ibf_scan_u64(&s, 10, &u) || u > UINT32_MAX)
				st = ibf_text_error(&t, err, IBF_ERR_PARSE,
						    "bad switch count");
			in->switches = (uint32_t)u;
		} else if (word_is(&s, "lmc")) {
			if (!ibf_scan_uint(&s, IBF_LMC_MAX, &in->lmc))
				st = ibf_text_error(&t, err, IBF_ERR_PARSE,
						    "bad LMC");
		} else if (word_is(&s, "sls")) {
			if (!ibf_scan_uint(&s, 16, &in->sls))
				st = ibf_text_error(&t, err, IBF_ERR_PARSE,
						    "bad SL count");
		} else if (word_is(&s, "file")) {
			for (k = 0; k < IBF_EXPORT_NFILES; k++)
				if (word_is(&s, file_kinds[k]))
					break;
			if (k == IBF_EXPORT_NFILES ||
			    !word_is(&s, file_names[k]) ||
			    !ibf_scan_u64(&s, 10, &in->bytes[k]))
				st = ibf_text_error(&t, err, IBF_ERR_PARSE,
						    "bad file line");
			else
				seen |= 4u << k;
		}
		if (st != IBF_OK)
			break;
	}
	ibf_text_free(&t);
	if (st != IBF_OK) {
		in->retry = false;
		return st;
	}
	if ((seen & 3) != 3)
		return bad(in, false, err, "%s: no generation or status line",
			   path);
	if (strcmp(status, "complete"))
		return IBF_OK; /* judged by the caller */
	if (seen != (1u << (IBF_EXPORT_NFILES + 2)) - 1)
		return bad(in, false, err, "%s: a file line is missing", path);
	return IBF_OK;
}

ibf_status_t ibf_export_check(const char *dir, ibf_export_info_t *in,
			      ibf_err_t *err)
{
	char status[IBF_ERR_MSG_MAX + 16], path[PATH_LEN];
	char line[IBF_EXPORT_GEN_MAX + 32], want[IBF_EXPORT_GEN_MAX + 32];
	ibf_status_t st;
	uint64_t size;
	unsigned k;

	st = read_manifest(dir, in, status, sizeof(status), err);
	if (st != IBF_OK)
		return st;
	if (!strcmp(status, "writing"))
		return bad(in, true, err, "%s: generation %s is being written",
			   dir, in->generation);
	if (!strncmp(status, "failed", 6))
		return bad(in, false, err, "%s: the export of generation %s "
			   "failed:%s", dir, in->generation, status + 6);
	if (strcmp(status, "complete"))
		return bad(in, false, err, "%s: unknown status \"%s\"", dir,
			   status);
	snprintf(want, sizeof(want), HEADER "%s\n", in->generation);
	for (k = 0; k < IBF_EXPORT_NFILES; k++) {
		FILE *fp;

		join(path, dir, file_names[k]);
		fp = fopen(path, "r");
		if (!fp)
			return bad(in, true, err, "%s: %s", path,
				   strerror(errno));
		if (!fgets(line, sizeof(line), fp))
			line[0] = '\0';
		fclose(fp);
		if (strcmp(line, want))
			return bad(in, true, err, "%s: not generation %s of "
				   "the manifest", path, in->generation);
		if ((st = file_size(path, &size, err)) != IBF_OK)
			return bad(in, true, err, "%s", err->msg);
		if (size != in->bytes[k])
			return bad(in, true, err, "%s: %" PRIu64 " bytes, the "
				   "manifest says %" PRIu64, path, size,
				   in->bytes[k]);
	}
	return IBF_OK;
}

void ibf_export_free(ibf_export_t *e)
{
	if (!e)
		return;
	ibf_lfts_destroy(e->lfts);
	ibf_hostlist_free(&e->order);
	ibf_sls_free(&e->sls);
	ibf_fabric_destroy(e->fabric);
	free(e);
}

static ibf_status_t load_files(const char *dir, ibf_export_t *e,
			       ibf_err_t *err)
{
	ibf_topo_read_opts_t ro = { IBF_TOPO_IBNETDISCOVER, 0 };
	char path[PATH_LEN];
	ibf_status_t st;

	join(path, dir, file_names[IBF_EXPORT_TOPOLOGY]);
	if ((st = ibf_topo_read(path, &ro, &e->fabric, err)) != IBF_OK)
		return st;
	join(path, dir, file_names[IBF_EXPORT_LFTS]);
	if ((st = ibf_lfts_read(e->fabric, path, &e->lfts, err)) != IBF_OK)
		return st;
	join(path, dir, file_names[IBF_EXPORT_ORDER]);
	if ((st = ibf_hosts_read(e->fabric, path, &e->order, err)) != IBF_OK)
		return st;
	join(path, dir, file_names[IBF_EXPORT_SL]);
	return ibf_sls_read(e->fabric, path, &e->sls, err);
}

ibf_status_t ibf_export_load(const char *dir, ibf_export_t **out,
			     bool *retry, ibf_err_t *err)
{
	ibf_export_t *e = calloc(1, sizeof(*e));
	ibf_export_info_t again = { 0 };
	const ibf_fabric_t *f;
	ibf_status_t st;

	*out = NULL;
	if (!e)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = ibf_export_check(dir, &e->info, err);
	if (st == IBF_OK)
		st = load_files(dir, e, err);
	/* the set must not have changed while it was read */
	if (st == IBF_OK && (st = ibf_export_check(dir, &again, err)) ==
	    IBF_OK && strcmp(again.generation, e->info.generation))
		st = bad(&e->info, true, err, "%s: generation %s replaced by "
			 "%s while it was read", dir, e->info.generation,
			 again.generation);
	else if (st != IBF_OK && !e->info.retry)
		e->info.retry = again.retry;
	f = e->fabric;
	if (st == IBF_OK && (f->nendpoints != e->info.endpoints ||
			     f->nswitches != e->info.switches ||
			     f->lmc != e->info.lmc))
		st = bad(&e->info, false, err, "%s: the topology has %u "
			 "endpoints, %u switches, LMC %u; the manifest says "
			 "%u, %u, %u", dir, f->nendpoints, f->nswitches,
			 f->lmc, e->info.endpoints, e->info.switches,
			 e->info.lmc);
	if (st == IBF_OK && e->order.n != f->nendpoints)
		st = bad(&e->info, false, err, "%s: the host order lists %u "
			 "of %u endpoints", dir, e->order.n, f->nendpoints);
	if (retry)
		*retry = st != IBF_OK && e->info.retry;
	if (st != IBF_OK) {
		ibf_export_free(e);
		return st;
	}
	*out = e;
	return IBF_OK;
}
