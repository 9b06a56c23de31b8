/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libFuzzer target: Slurm hostlists, read as a file of names (lines,
 * comments) and as one expression.  Whatever parses must be plain names
 * (non-empty, shorter than IBF_NODENAME_MAX, no separator or bracket)
 * that read back as themselves when listed with commas; a failure must
 * say "fuzz:LINE:COL: " and leave the list as it was.  Compressed into
 * one hostlist (ibf_nodelist_compress) they expand to the same set, each
 * once.  The names are then put in order on a small fabric whose hosts
 * are named a, b, c, d.  A 20-byte expression can stand for a million
 * names; the checks over the whole list (a few sorts of it under the
 * sanitizers) run up to FULL_CHECK_NAMES of them, so that one input stays
 * well inside libFuzzer's time per input on a busy machine.  Longer lists
 * are still parsed here, and compressed in test_nodelist_compress.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/nodelist.h>

static const char *const descs[] = { "a HCA-1", "b HCA-1", "c", "d x" };
#define NCA (sizeof(descs) / sizeof(descs[0]))
#define FULL_CHECK_NAMES (1u << 16)

/* Built once and kept: test code, the fuzzer process ends with it. */
static const ibf_fabric_t *fabric(void)
{
	static ibf_fabric_t *f;
	ibf_node_id_t sw, ca;
	unsigned n;

	if (f)
		return f;
	if (ibf_fabric_create(&f) ||
	    ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0x9000, "sw", 8, &sw,
				NULL) ||
	    ibf_fabric_set_port(f, sw, 0, 0x9000, 1, 0, NULL))
		abort();
	for (n = 0; n < NCA; n++) {
		uint64_t g = 0x1000 + 0x100 * n;

		if (ibf_fabric_add_node(f, IBF_NODE_CA, g, descs[n], 1, &ca,
					NULL) ||
		    ibf_fabric_set_port(f, ca, 1, g + 1, 2 + n, 0, NULL) ||
		    ibf_fabric_link(f, ca, 1, sw, 1 + n, 4, IBF_SPEED_EDR,
				    NULL))
			abort();
	}
	if (ibf_fabric_finalize(f, NULL, NULL))
		abort();
	return f;
}

static void check_names(const ibf_nodelist_t *nl)
{
	uint32_t i;

	for (i = 0; i < nl->n; i++) {
		size_t len = strlen(nl->names[i]);

		if (!len || len >= IBF_NODENAME_MAX ||
		    strpbrk(nl->names[i], ",[] \t"))
			abort();
	}
}

/* Listed with commas, the names read back as themselves. */
static void round_trip(const ibf_nodelist_t *nl)
{
	ibf_nodelist_t back = { NULL, 0, 0 };
	size_t len = 0, at = 0;
	ibf_err_t err;
	uint32_t i;
	char *s;

	for (i = 0; i < nl->n; i++)
		len += strlen(nl->names[i]) + 1;
	s = malloc(len + 1);
	if (!s)
		abort();
	for (i = 0; i < nl->n; i++)
		at += (size_t)sprintf(s + at, "%s%s", i ? "," : "",
				      nl->names[i]);
	if (ibf_nodelist_expand(&back, s, at, "back", 1, &err) != IBF_OK) {
		fprintf(stderr, "names do not read back: %s\n", err.msg);
		abort();
	}
	if (back.n != nl->n)
		abort();
	for (i = 0; i < nl->n; i++)
		if (strcmp(back.names[i], nl->names[i]))
			abort();
	ibf_nodelist_free(&back);
	free(s);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each once; returns how many. */
static uint32_t distinct(char **v, uint32_t n)
{
	uint32_t i, k = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_name);
	for (i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	return k;
}

/* Compressed, the names expand to the same set. */
static void compressed(const ibf_nodelist_t *nl)
{
	ibf_nodelist_t back = { NULL, 0, 0 };
	char **mine = malloc(sizeof(*mine) * ((size_t)nl->n + 1));
	char *s = NULL;
	ibf_err_t err;
	uint32_t i, k;

	if (!mine)
		abort();
	if (nl->n)
		memcpy(mine, nl->names, sizeof(*mine) * nl->n);
	if (ibf_nodelist_compress((const char *const *)mine, nl->n, &s,
				  &err) != IBF_OK ||
	    (nl->n && ibf_nodelist_expand(&back, s, strlen(s), "back", 1,
					  &err) != IBF_OK)) {
		fprintf(stderr, "compressed names do not read back: %s\n",
			err.msg);
		abort();
	}
	k = distinct(mine, nl->n);
	if (distinct(back.names, back.n) != back.n || back.n != k)
		abort();
	for (i = 0; i < k; i++)
		if (strcmp(back.names[i], mine[i]))
			abort();
	ibf_nodelist_free(&back);
	free(mine);
	free(s);
}

static void order(ibf_nodelist_t *nl)
{
	const ibf_fabric_t *f = fabric();
	ibf_err_t err;
	uint32_t n = nl->n;

	if (ibf_nodelist_order(f, f->endpoints, f->nendpoints, nl, &err) ==
	    IBF_OK)
		return;
	if (nl->n != n || (err.status != IBF_ERR_NOT_FOUND &&
			   err.status != IBF_ERR_INVALID))
		abort();
}

static void parsed(ibf_nodelist_t *nl, ibf_status_t st, const ibf_err_t *e)
{
	if (st != IBF_OK) {
		if (nl->n || strncmp(e->msg, "fuzz:", 5))
			abort();
		return;
	}
	if (nl->n > FULL_CHECK_NAMES)
		return;
	check_names(nl);
	round_trip(nl);
	compressed(nl);
	order(nl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ibf_nodelist_t nl = { NULL, 0, 0 };
	ibf_text_t t;
	ibf_err_t err;

	if (ibf_text_from_buf(&t, "fuzz", (const char *)data, size, &err) ==
	    IBF_OK) {
		parsed(&nl, ibf_nodelist_read_text(&nl, &t, &err), &err);
		ibf_nodelist_free(&nl);
		ibf_text_free(&t);
	}
	parsed(&nl, ibf_nodelist_expand(&nl, (const char *)data, size, "fuzz",
					1, &err), &err);
	ibf_nodelist_free(&nl);
	return 0;
}
