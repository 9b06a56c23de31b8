/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libFuzzer target: the labels file (labels_io.h).  Whatever parses is
 * written back and must read back to the same labeling.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ibflow/labels_io.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ibf_pgft_memory_t *m = NULL, *back = NULL;
	char path[] = "/tmp/fuzz_labels.XXXXXX";
	ibf_err_t err;
	int fd;

	if (ibf_labels_parse("fuzz", (const char *)data, size, &m, &err) !=
	    IBF_OK)
		return 0;
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	close(fd);
	if (ibf_labels_write_file(path, m, &err) != IBF_OK ||
	    ibf_labels_read(path, &back, &err) != IBF_OK)
		abort();
	if (!ibf_pgft_memory_equal(m, back))
		abort();
	unlink(path);
	ibf_pgft_memory_destroy(m);
	ibf_pgft_memory_destroy(back);
	return 0;
}
