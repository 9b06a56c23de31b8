/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libFuzzer target for the topology readers: any input must either give a
 * finalized fabric or an error, never a crash, leak or undefined behaviour.
 * Auto-detection picks the reader, so the seeds in corpus/fuzz_topo/ hold
 * one small sample of each format.
 */
#include <stddef.h>
#include <stdint.h>

#include <ibflow/topo_io.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ibf_topo_read_opts_t opts = { .format = IBF_TOPO_AUTO, .lmc = 0 };
	ibf_fabric_t *f = NULL;
	ibf_text_t t;
	ibf_err_t err;

	/* Vary the LMC without spending input bytes on it. */
	opts.lmc = (unsigned)(size % 3);
	if (ibf_text_from_buf(&t, "fuzz", (const char *)data, size, &err) !=
	    IBF_OK)
		return 0;
	if (ibf_topo_read_text(&t, &opts, &f, &err) == IBF_OK) {
		/* Written output must be readable again. */
		if (f->nnodes < 64) {
			FILE *fp = fopen("/dev/null", "w");

			if (fp) {
				ibf_topo_write(f, IBF_TOPO_IBNETDISCOVER, fp,
					       &err);
				ibf_topo_write(f, IBF_TOPO_IBSIM, fp, &err);
				ibf_topo_write(f, IBF_TOPO_DOT, fp, &err);
				fclose(fp);
			}
		}
		ibf_fabric_destroy(f);
	}
	ibf_text_free(&t);
	return 0;
}
