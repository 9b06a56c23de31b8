/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libFuzzer target: routing files (opensm-lfts.dump, opensm.fdbs, ibroute
 * and dump_lfts output) read against a fixed fabric, the ibsim example
 * net.2sw2path4hca as OpenSM numbers it (see tests/unit/test_lfts_io.c).
 * Whatever parses is written back and must read back to the same tables.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/lfts_io.h>

static void add_ca(ibf_fabric_t *f, const char *desc, uint64_t guid,
		   unsigned lid, ibf_node_id_t sw, unsigned swport)
{
	ibf_node_id_t n;

	if (ibf_fabric_add_node(f, IBF_NODE_CA, guid, desc, 2, &n, NULL) ||
	    ibf_fabric_set_port(f, n, 1, guid + 1, lid, 1, NULL) ||
	    ibf_fabric_link(f, n, 1, sw, swport, 4, IBF_SPEED_SDR, NULL))
		abort();
}

/* Built once and kept: test code, the fuzzer process ends with it. */
static const ibf_fabric_t *fabric(void)
{
	static ibf_fabric_t *f;
	ibf_node_id_t s1, s2;

	if (f)
		return f;
	if (ibf_fabric_create(&f) ||
	    ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0x200000, "Switch1", 8,
				&s1, NULL) ||
	    ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0x200001, "Switch2", 8,
				&s2, NULL) ||
	    ibf_fabric_set_port(f, s1, 0, 0x200000, 4, 0, NULL) ||
	    ibf_fabric_set_port(f, s2, 0, 0x200001, 5, 0, NULL))
		abort();
	add_ca(f, "Hca1", 0x100000, 2, s1, 1);
	add_ca(f, "Hca2", 0x100003, 6, s2, 1);
	add_ca(f, "Hca3", 0x100006, 8, s1, 2);
	add_ca(f, "Hca4 with blanks", 0x100009, 10, s2, 2);
	if (ibf_fabric_link(f, s1, 3, s2, 3, 4, IBF_SPEED_SDR, NULL) ||
	    ibf_fabric_link(f, s1, 5, s2, 5, 4, IBF_SPEED_SDR, NULL) ||
	    ibf_fabric_finalize(f, NULL, NULL))
		abort();
	return f;
}

static void round_trip(const ibf_lfts_t *l)
{
	ibf_lfts_t *back = NULL;
	char *buf = NULL;
	size_t len = 0;
	ibf_text_t t;
	ibf_err_t err;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		abort();
	if (ibf_lfts_write(l, fp, &err) != IBF_OK)
		abort();
	fclose(fp);
	if (ibf_text_from_buf(&t, "back", buf, len, &err) != IBF_OK)
		abort();
	if (ibf_lfts_read_text(l->fabric, &t, &back, &err) != IBF_OK) {
		fprintf(stderr, "written dump does not read back: %s\n",
			err.msg);
		abort();
	}
	if (memcmp(back->port, l->port, (size_t)l->nswitches * l->stride) ||
	    memcmp(back->has_table, l->has_table, l->nswitches))
		abort();
	ibf_lfts_destroy(back);
	ibf_text_free(&t);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const ibf_fabric_t *f = fabric();
	ibf_lfts_t *l = NULL;
	ibf_text_t t;
	ibf_err_t err;

	if (ibf_text_from_buf(&t, "fuzz", (const char *)data, size, &err))
		return 0;
	if (ibf_lfts_read_text(f, &t, &l, &err) == IBF_OK) {
		round_trip(l);
		ibf_lfts_destroy(l);
	} else if (l || strncmp(err.msg, "fuzz", 4) != 0) {
		abort(); /* half-built result, or a message without FILE */
	}
	ibf_text_free(&t);
	return 0;
}
