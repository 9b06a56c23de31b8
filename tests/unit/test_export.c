/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Exports (export.h) and hostile NodeDescriptions.
 *  - descriptions with quotes, a leading '#', outer blanks, backslashes,
 *    a look-alike of a LID or GUID, shared by two hosts: the ibnetdiscover
 *    text carries them the way ibnetdiscover prints them (checked on the
 *    raw lines here), reads back to the same fabric, and the host order
 *    reads back whole, in order (names quoted or replaced by port GUIDs);
 *  - an export loads back as written (fabric compared, every table entry,
 *    the order by port GUID, every SL);
 *  - what a consumer must refuse: an export being written, a failed one
 *    (a description with a line break cannot be written), a mix of two
 *    generations, a file of another size; the previous generation's files
 *    left behind are never taken as current;
 *  - the retried readers (export_retry.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <ibflow/export.h>
#include <ibflow/gen.h>
#include <ibflow/hosts.h>
#include <ibflow/io.h>
#include <ibflow/topo_io.h>

static const char *const hostile[] = {
	"h0 \"quoted\" HCA-1",   /* quotes inside */
	"#h1",                   /* reads as a comment if bare */
	"  padded  ",            /* outer blanks */
	"back\\slash\"",         /* backslash, trailing quote */
	"17",                    /* a LID look-alike */
	"dup",                   /* shared by two hosts */
	"dup",
	"s\" base port 0 lid 9", /* the ibnetdiscover header's suffix */
	"x # y",                 /* a comment look-alike inside */
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* xgft:2:4,4:1,4 with the first hosts renamed; desc_extra (or NULL)
 * names host 15. */
static ibf_fabric_t *hostile_fabric(const char *desc_extra)
{
	ibf_gen_opts_t go = { 0 };
	ibf_finalize_opts_t fo = { 0 };
	ibf_fabric_t *g, *f;
	ibf_err_t err;
	ibf_node_id_t n, id;
	unsigned p, h = 0;

	assert_int_equal(ibf_gen("xgft:2:4,4:1,4", &go, &g, &err), IBF_OK);
	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (n = 0; n < g->nnodes; n++) {
		const ibf_node_t *nd = &g->nodes[n];
		const char *d = ibf_node_desc(g, n);

		if (nd->type == IBF_NODE_CA) {
			if (h < NHOSTILE)
				d = hostile[h];
			else if (h == 15 && desc_extra)
				d = desc_extra;
			h++;
		}
		assert_int_equal(ibf_fabric_add_node(f, nd->type, nd->guid, d,
				 nd->nports, &id, &err), IBF_OK);
		assert_int_equal(id, n);
	}
	for (n = 0; n < g->nnodes; n++)
		for (p = 1; p <= g->nodes[n].nports; p++) {
			const ibf_port_t *a = ibf_node_port(g, n, p), *b;

			if (a->peer == IBF_NO_ID ||
			    a->peer < ibf_node_port_id(g, n, p))
				continue;
			b = &g->ports[a->peer];
			if (ibf_fabric_link(f, n, p, b->node, b->num, a->width,
					    a->speed, &err) != IBF_OK)
				fail_msg("link: %s", err.msg);
		}
	if (ibf_fabric_finalize(f, &fo, &err) != IBF_OK)
		fail_msg("finalize: %s", err.msg);
	ibf_fabric_destroy(g);
	return f;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	long n;
	char *b;

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	assert_int_equal(fread(b, 1, (size_t)n, fp), (size_t)n);
	b[n] = '\0';
	fclose(fp);
	return b;
}

static void test_ibnetdiscover_names(void **state)
{
	ibf_fabric_t *f = hostile_fabric(NULL), *back;
	ibf_topo_read_opts_t ro = { 0 };
	char path[] = "/tmp/ibfp-test-XXXXXX", file[256], *text;
	ibf_err_t err;

	(void)state;
	assert_non_null(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/t.ibnd", path);
	assert_int_equal(ibf_topo_write_file(f, IBF_TOPO_IBNETDISCOVER, file,
					     &err), IBF_OK);
	text = slurp(file);
	/* as ibnetdiscover prints them: between quotes, nothing escaped */
	assert_non_null(strstr(text, "# \"h0 \"quoted\" HCA-1\"\n"));
	assert_non_null(strstr(text, "# \"back\\slash\"\"\n"));
	assert_non_null(strstr(text, "# \"s\" base port 0 lid 9\"\n"));
	assert_non_null(strstr(text, "# \"  padded  \"\n"));
	if (ibf_topo_read(file, &ro, &back, &err) != IBF_OK)
		fail_msg("read back: %s", err.msg);
	if (ibf_fabric_compare(f, back, &err) != IBF_OK)
		fail_msg("differs after the round trip: %s", err.msg);
	ibf_fabric_destroy(back);
	free(text);
	unlink(file);
	rmdir(path);
	ibf_fabric_destroy(f);
}

/* Host lists: every host of the hostile fabric, in a shuffled order,
 * written and read back whole; a name is bare only when it reads back
 * bare. */
static void test_host_list_names(void **state)
{
	ibf_fabric_t *f = hostile_fabric(NULL);
	ibf_hostlist_t h, back;
	ibf_text_t t;
	ibf_err_t err;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	uint32_t i;

	(void)state;
	h.n = f->nendpoints;
	h.ports = malloc(sizeof(*h.ports) * h.n);
	for (i = 0; i < h.n; i++)
		h.ports[i] = f->endpoints[(i * 7 + 3) % h.n];
	mem = open_memstream(&buf, &len);
	assert_int_equal(ibf_hosts_write(f, &h, mem, &err), IBF_OK);
	fclose(mem);
	/* quoted and escaped where needed, GUIDs for what names no one
	 * port (shared, a LID look-alike) */
	assert_non_null(strstr(buf, "\n\"#h1\"\n"));
	assert_non_null(strstr(buf, "\"h0 \\\"quoted\\\" HCA-1\""));
	assert_non_null(strstr(buf, "\"back\\\\slash\\\"\""));
	assert_non_null(strstr(buf, "\"  padded  \""));
	assert_null(strstr(buf, "dup"));
	assert_null(strstr(buf, "\n17\n"));
	assert_int_equal(ibf_text_from_buf(&t, "mem", buf, len, &err), IBF_OK);
	if (ibf_hosts_read_text(f, &t, &back, &err) != IBF_OK)
		fail_msg("read back: %s", err.msg);
	assert_int_equal(back.n, h.n);
	assert_memory_equal(back.ports, h.ports, h.n * sizeof(*h.ports));
	ibf_hostlist_free(&back);
	ibf_text_free(&t);
	free(buf);
	free(h.ports);
	ibf_fabric_destroy(f);
}

/* ---- exports -------------------------------------------------------------- */

static void export_gen(const ibf_routing_t *r, const char *dir,
		       const char *gen, ibf_status_t want)
{
	ibf_export_info_t in;
	ibf_err_t err;
	ibf_status_t st;

	memset(&in, 0, sizeof(in));
	snprintf(in.generation, sizeof(in.generation), "%s", gen);
	snprintf(in.engine, sizeof(in.engine), "ibflow-dmodk");
	in.routing = 7;
	st = ibf_export_write(dir, r, &in, &err);
	if (st != want)
		fail_msg("export %s: status %d, wanted %d: %s", gen, st, want,
			 err.msg);
}

static void same_export(const ibf_routing_t *r, const ibf_export_t *e)
{
	const ibf_fabric_t *f = r->fabric, *g = e->fabric;
	ibf_err_t err;
	uint32_t s, lid, i;

	if (ibf_fabric_compare(f, g, &err) != IBF_OK)
		fail_msg("exported fabric differs: %s", err.msg);
	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t m = ibf_fabric_node_by_guid(g,
					f->nodes[f->switches[s]].guid);

		for (lid = 1; lid <= f->lid_top; lid++)
			assert_int_equal(ibf_lfts_get(r->lfts, s, lid),
				ibf_lfts_get(e->lfts, g->switch_index[m], lid));
	}
	assert_int_equal(e->order.n, r->norder);
	for (i = 0; i < r->norder; i++)
		assert_true(f->ports[r->order[i]].guid ==
			    g->ports[e->order.ports[i]].guid);
	assert_int_equal(e->sls.nsls, r->nsls);
}

static void check_refused(const char *dir, bool want_retry,
			  const char *needle)
{
	ibf_export_info_t in;
	ibf_export_t *e = (ibf_export_t *)1;
	ibf_err_t err;
	bool retry = !want_retry;

	assert_int_not_equal(ibf_export_check(dir, &in, &err), IBF_OK);
	assert_int_equal(in.retry, want_retry);
	if (!strstr(err.msg, needle))
		fail_msg("\"%s\" lacks \"%s\"", err.msg, needle);
	assert_int_not_equal(ibf_export_load(dir, &e, &retry, &err), IBF_OK);
	assert_null(e);
	assert_int_equal(retry, want_retry);
}

static void set_status(const char *dir, const char *status)
{
	char path[256], tmp[272], *m, *p, *q;
	FILE *fp;

	/* Renamed into place as the plugin does, so that a reader racing
	 * with a child process that calls this never sees a cut manifest. */
	snprintf(path, sizeof(path), "%s/%s", dir, IBF_EXPORT_MANIFEST);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	m = slurp(path);
	p = strstr(m, "\nstatus ");
	assert_non_null(p);
	q = strchr(p + 1, '\n');
	fp = fopen(tmp, "w");
	assert_non_null(fp);
	fprintf(fp, "%.*s\nstatus %s%s", (int)(p - m), m, status, q);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(rename(tmp, path), 0);
	free(m);
}

static void test_export_cycle(void **state)
{
	ibf_fabric_t *f = hostile_fabric(NULL);
	ibf_fabric_t *bad = hostile_fabric("line\nbreak");
	ibf_routing_t *r, *rb;
	ibf_export_t *e = NULL;
	ibf_export_info_t in;
	ibf_err_t err;
	char dir[] = "/tmp/ibfp-export-XXXXXX", path[256], keep[256];
	unsigned k;
	bool retry;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ibf_route(f, "dmodk", NULL, &r, &err), IBF_OK);
	assert_int_equal(ibf_route(bad, "dmodk", NULL, &rb, &err), IBF_OK);
	check_refused(dir, false, "no export");

	export_gen(r, dir, "run1-1", IBF_OK);
	assert_int_equal(ibf_export_check(dir, &in, &err), IBF_OK);
	assert_string_equal(in.generation, "run1-1");
	assert_string_equal(in.engine, "ibflow-dmodk");
	assert_int_equal(in.routing, 7);
	assert_int_equal(in.endpoints, 16);
	if (ibf_export_load(dir, &e, &retry, &err) != IBF_OK)
		fail_msg("load: %s", err.msg);
	same_export(r, e);
	ibf_export_free(e);

	/* a description with a line break cannot be written as
	 * ibnetdiscover: the export fails and says so */
	export_gen(rb, dir, "run1-2", IBF_ERR_INVALID);
	check_refused(dir, false, "failed");
	/* the first generation's files left behind do not pass for it */
	snprintf(path, sizeof(path), "%s/%s", dir,
		 ibf_export_file_name(IBF_EXPORT_TOPOLOGY));
	assert_int_equal(access(path, F_OK), 0);

	/* a complete export again, then a mix of generations */
	export_gen(r, dir, "run1-3", IBF_OK);
	assert_int_equal(ibf_export_check(dir, &in, &err), IBF_OK);
	snprintf(keep, sizeof(keep), "%s/order.keep", dir);
	snprintf(path, sizeof(path), "%s/%s", dir,
		 ibf_export_file_name(IBF_EXPORT_ORDER));
	assert_int_equal(rename(path, keep), 0);
	export_gen(r, dir, "run2-1", IBF_OK);
	assert_int_equal(rename(keep, path), 0);
	check_refused(dir, true, "not generation run2-1");

	/* being written: try again */
	export_gen(r, dir, "run2-2", IBF_OK);
	set_status(dir, "writing");
	check_refused(dir, true, "being written");
	set_status(dir, "complete");
	assert_int_equal(ibf_export_check(dir, &in, &err), IBF_OK);

	/* a file grown behind the manifest's back */
	{
		FILE *fp;

		snprintf(path, sizeof(path), "%s/%s", dir,
			 ibf_export_file_name(IBF_EXPORT_SL));
		fp = fopen(path, "a");
		fputs("# more\n", fp);
		fclose(fp);
		check_refused(dir, true, "bytes");
	}
	for (k = 0; k < IBF_EXPORT_NFILES; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir,
			 ibf_export_file_name(k));
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, IBF_EXPORT_MANIFEST);
	unlink(path);
	rmdir(dir);
	ibf_routing_destroy(r);
	ibf_routing_destroy(rb);
	ibf_fabric_destroy(f);
	ibf_fabric_destroy(bad);
}

/* Write text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text,
		     size_t len)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	fclose(fp);
}

/* The retried readers: a complete export at once, one being written
 * refused after the tries (and read once its writer is done, a child
 * process finishing the manifest while the parent waits), a failed one
 * refused; a plain manifest whose dump lacks a switch's table (cut at a
 * table boundary, which reads without error) refused with the count. */
static void test_export_retry(void **state)
{
	const ibf_export_retry_t three = { 3, 1 }, once = { 0, 0 };
	const ibf_export_retry_t patient = { 1000, 5 };
	ibf_fabric_t *f = hostile_fabric(NULL);
	ibf_routing_t *r;
	ibf_export_t *e = NULL;
	ibf_export_set_t set;
	ibf_err_t err;
	char dir[] = "/tmp/ibfp-retry-XXXXXX", path[256], *dump, *cut;
	pid_t pid;
	int ws;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ibf_route(f, "dmodk", NULL, &r, &err), IBF_OK);
	export_gen(r, dir, "run1-1", IBF_OK);
	if (ibf_export_load_retry(dir, &three, &e, &err) != IBF_OK)
		fail_msg("load: %s", err.msg);
	same_export(r, e);
	ibf_export_free(e);
	assert_int_equal(ibf_export_read_set_retry(dir, &once, &set, &err),
			 IBF_OK);
	assert_int_equal(set.fabric->nswitches, r->fabric->nswitches);
	ibf_export_set_free(&set);

	set_status(dir, "writing");
	assert_int_not_equal(ibf_export_load_retry(dir, &three, &e, &err),
			     IBF_OK);
	assert_null(e);
	assert_non_null(strstr(err.msg, "being written"));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		usleep(20000);
		set_status(dir, "complete");
		_exit(0);
	}
	if (ibf_export_load_retry(dir, &patient, &e, &err) != IBF_OK)
		fail_msg("load while the writer finishes: %s", err.msg);
	ibf_export_free(e);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	set_status(dir, "failed");
	assert_int_not_equal(ibf_export_load_retry(dir, &patient, &e, &err),
			     IBF_OK);
	assert_non_null(strstr(err.msg, "failed"));

	/* a plain manifest over a dump without its last switch's table */
	snprintf(path, sizeof(path), "%s/%s", dir,
		 ibf_export_file_name(IBF_EXPORT_LFTS));
	dump = slurp(path);
	cut = strstr(dump, "Unicast lids");
	while (cut && strstr(cut + 1, "Unicast lids"))
		cut = strstr(cut + 1, "Unicast lids");
	assert_non_null(cut);
	put_file(dir, "cut.dump", dump, (size_t)(cut - dump));
	snprintf(path, sizeof(path), "%s/%s", dir,
		 ibf_export_file_name(IBF_EXPORT_TOPOLOGY));
	free(dump);
	dump = slurp(path);
	put_file(dir, "plain.ibnd", dump, strlen(dump));
	free(dump);
	put_file(dir, IBF_EXPORT_MANIFEST,
		 "topology plain.ibnd\nlfts cut.dump\n", 34);
	assert_int_equal(ibf_export_read_set_retry(dir, &three, &set, &err),
			 IBF_ERR_INVALID);
	assert_null(set.fabric);
	if (!strstr(err.msg, "tables for 7 of the topology's 8 switches"))
		fail_msg("\"%s\"", err.msg);

	for (unsigned k = 0; k < IBF_EXPORT_NFILES; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir,
			 ibf_export_file_name(k));
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, IBF_EXPORT_MANIFEST);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cut.dump", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/plain.ibnd", dir);
	unlink(path);
	rmdir(dir);
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibnetdiscover_names),
		cmocka_unit_test(test_host_list_names),
		cmocka_unit_test(test_export_cycle),
		cmocka_unit_test(test_export_retry),
	};
	return cmocka_run_group_tests_name("export", tests, NULL, NULL);
}
