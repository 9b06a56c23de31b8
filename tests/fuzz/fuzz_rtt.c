/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libFuzzer target: RTT files (formats/rtt_io.c) and the inference run on
 * whatever they hold.
 *  - read with the file defining its hosts: whatever parses is written
 *    back with ibf_rtt_write_line and must read back to the same hosts
 *    and values; a refused input leaves nothing behind and says
 *    "fuzz:LINE:" or "fuzz: no measurements";
 *  - read against a lookup of names with blanks, prefixes and numbers;
 *  - up to 40 hosts: the inference runs on the table (pairs missing,
 *    values arbitrary) and must return a tree (every host one edge,
 *    every switch three or more - two between two hosts -, edges =
 *    nodes - 1) or a clean error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/infer.h>
#include <ibflow/rtt_io.h>

static const char *const known[] = { "h0 HCA-1", "h1 HCA-1", "h1", "5",
				      "a b", "#x" };

static ibf_status_t lookup(void *ctx, const char *name, uint32_t *idx)
{
	uint32_t i;

	(void)ctx;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i])) {
			*idx = i;
			return IBF_OK;
		}
	return IBF_ERR_NOT_FOUND;
}

static void round_trip(const ibf_rtt_set_t *s)
{
	ibf_rtt_set_t back;
	ibf_text_t t;
	ibf_err_t err;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	uint32_t i;

	if (!fp)
		abort();
	for (i = 0; i < s->n; i++)
		if (ibf_rtt_write_line(fp, s->names[s->m[i].a],
				       s->names[s->m[i].b], s->m[i].min,
				       s->m[i].max, &err) != IBF_OK)
			break; /* a name the format cannot carry */
	fclose(fp);
	if (i == s->n) {
		if (ibf_text_from_buf(&t, "back", buf, len, &err) ||
		    ibf_rtt_read_text(&t, NULL, NULL, &back, &err)) {
			fprintf(stderr, "written RTTs do not read back: %s\n",
				err.msg);
			abort();
		}
		for (i = 0; i < s->n; i++)
			if (strcmp(back.names[back.m[i].a],
				   s->names[s->m[i].a]) ||
			    strcmp(back.names[back.m[i].b],
				   s->names[s->m[i].b]) ||
			    back.m[i].min != s->m[i].min ||
			    back.m[i].max != s->m[i].max)
				abort();
		ibf_rtt_set_free(&back);
		ibf_text_free(&t);
	}
	free(buf);
}

static void check_tree(const ibf_infer_tree_t *t)
{
	uint32_t *deg = calloc(t->nnodes, sizeof(*deg)), i;

	if (!deg || t->nedges + 1 != t->nnodes)
		abort();
	for (i = 0; i < t->nedges; i++) {
		if (t->ea[i] >= t->nnodes || t->eb[i] >= t->nnodes ||
		    !(t->lat[i] >= 0))
			abort();
		deg[t->ea[i]]++;
		deg[t->eb[i]]++;
	}
	for (i = 0; i < t->nnodes; i++)
		if (i < t->nhosts ? deg[i] != 1 :
		    deg[i] < (t->nhosts == 2 ? 2u : 3u))
			abort();
	free(deg);
}

static void infer(const ibf_rtt_set_t *s)
{
	ibf_infer_opts_t o = { .tol = s->m[0].min / 16 };
	ibf_infer_table_t *t;
	ibf_infer_oracle_t or;
	ibf_infer_result_t r;
	ibf_err_t err;

	if (s->nnames < 2 || s->nnames > 40)
		return;
	if (ibf_infer_table_create(s, s->nnames, &t, &err) != IBF_OK)
		abort();
	or = ibf_infer_table_oracle(t);
	or.start = NULL; /* one pair at a time, in the order asked */
	or.wait = NULL;
	if (ibf_infer_run(&or, &o, &r, &err) == IBF_OK) {
		check_tree(&r.tree);
		ibf_infer_result_free(&r);
	} else if (r.meas || r.tree.ea || !err.msg[0]) {
		abort();
	}
	ibf_infer_table_destroy(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ibf_rtt_set_t s;
	ibf_text_t t;
	ibf_err_t err;

	if (ibf_text_from_buf(&t, "fuzz", (const char *)data, size, &err))
		return 0;
	if (ibf_rtt_read_text(&t, NULL, NULL, &s, &err) == IBF_OK) {
		round_trip(&s);
		infer(&s);
		ibf_rtt_set_free(&s);
	} else if (s.m || s.names || strncmp(err.msg, "fuzz:", 5) != 0) {
		abort();
	}
	ibf_text_rewind(&t);
	if (ibf_rtt_read_text(&t, lookup, NULL, &s, &err) == IBF_OK)
		ibf_rtt_set_free(&s);
	else if (s.m || strncmp(err.msg, "fuzz:", 5) != 0)
		abort();
	ibf_text_free(&t);
	return 0;
}
