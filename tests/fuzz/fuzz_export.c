/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libFuzzer target: an export directory as UCX_IBFLOW_FABRIC reads it
 * (ucx_component/src/fabric/ucx_export.c over libibflow's reader of either
 * manifest, ibf_export_read_set: the topology and the LFT dump it names),
 * then the host map and the address map against the fabric read
 * (src/fabric/map.c).
 *
 * An input is a directory in one text: lines "%%% NAME" start the file
 * NAME, one of the names below (others are ignored, so no input writes
 * outside the scratch directory).  tests/fuzz/corpus/export/ holds real
 * exports in this form (tests/fuzz/export_corpus.sh makes them).
 *
 * Beyond the sanitizers: a load that fails leaves nothing behind and its
 * message names the variable; one that succeeds has a table for every
 * switch; a map that fails names its file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ucx_internal.h"
#include "fabric/map.h"

static const char *const names[] = {
	"ibflow-export.txt", "ibflow-topology.ibnd", "ibflow-lfts.dump",
	"ibflow-order.txt", "ibflow-sl.txt", "ibflow-addrmap.txt", "hostmap",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))
#define MARK "%%% "

static char dir[64];

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* The scratch directory, made once: the process ends with it. */
static void scratch(void)
{
	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "/tmp/fuzz-export-XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

static int known(const char *name, size_t len)
{
	unsigned i;

	for (i = 0; i < NNAMES; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return (int)i;
	return -1;
}

static void put(int k, const uint8_t *d, size_t n)
{
	char path[128];
	FILE *fp;

	path_of(path, sizeof(path), names[k]);
	fp = fopen(path, "wb");
	if (!fp || (n && fwrite(d, 1, n, fp) != n) || fclose(fp))
		abort();
}

/* Split the input into the files it names; the rest are removed. */
static void unpack(const uint8_t *d, size_t n)
{
	char path[128];
	size_t i = 0, start = 0, len;
	const uint8_t *nl;
	int k = -1;
	unsigned j;

	for (j = 0; j < NNAMES; j++) {
		path_of(path, sizeof(path), names[j]);
		unlink(path);
	}
	while (i <= n) {
		bool mark = i + 4 <= n && !memcmp(d + i, MARK, 4) &&
			    (i == 0 || d[i - 1] == '\n');

		if (!mark && i < n) {
			i++;
			continue;
		}
		if (k >= 0)
			put(k, d + start, i - start);
		if (i == n)
			break;
		nl = memchr(d + i + 4, '\n', n - i - 4);
		len = nl ? (size_t)(nl - (d + i + 4)) : n - i - 4;
		k = known((const char *)d + i + 4, len);
		i += 4 + len + (i + 4 + len < n);
		start = i;
	}
}

static void check_map(const char *path, const ibf_fabric_t *f)
{
	ibf_ucxi_map_t m;
	ibf_ucx_err_t err;
	uint32_t i;

	if (access(path, F_OK))
		return;
	memset(&m, 0, sizeof(m));
	ibf_ucx_err_clear(&err);
	if (ibf_ucxi_map_read(path, f, &m, &err) == IBF_UCX_OK) {
		for (i = 0; i < m.n; i++)
			if (m.e[i].port >= f->nports)
				abort();
	} else if (!strstr(err.msg, path)) {
		fprintf(stderr, "map error without its file: %s\n", err.msg);
		abort();
	}
	ibf_ucxi_map_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ibf_ucxi_fabric_t f;
	ibf_ucx_err_t err;
	char path[128];
	uint32_t s;

	scratch();
	unpack(data, size);
	ibf_ucx_err_clear(&err);
	if (ibf_ucxi_fabric_load(dir, &f, &err) != IBF_UCX_OK) {
		if (f.fabric || f.lfts || f.dir ||
		    strncmp(err.msg, "UCX_IBFLOW_FABRIC=", 18)) {
			fprintf(stderr, "failed load: %s\n", err.msg);
			abort();
		}
		return 0;
	}
	for (s = 0; s < f.fabric->nswitches; s++)
		if (!f.lfts->has_table[s])
			abort();
	path_of(path, sizeof(path), "hostmap");
	check_map(path, f.fabric);
	if (f.addrmap)
		check_map(f.addrmap, f.fabric);
	ibf_ucxi_fabric_free(&f);
	return 0;
}
