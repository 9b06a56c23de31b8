/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libFuzzer target: host lists and traffic files read against a fixed
 * fabric whose NodeDescriptions make splitting hard (blanks, a '#', names
 * that are prefixes of others, a shared one; see tests/unit/test_hosts.c).
 * The input is read both ways; whatever parses is written back and must
 * read back to the same hosts / flows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/hosts.h>
#include <ibflow/traffic.h>

static const char *const descs[] = {
	"h0042 HCA-1", "h0043 HCA-1", "a", "b c", "a b", "c", "dup", "dup",
	"two-port", "rack #3", "7up", "q\"uote d",
};
#define NCA (sizeof(descs) / sizeof(descs[0]))

/* Built once and kept: test code, the fuzzer process ends with it. */
static const ibf_fabric_t *fabric(void)
{
	static ibf_fabric_t *f;
	unsigned n, swport = 1, lid = 2;
	ibf_node_id_t sw, ca;

	if (f)
		return f;
	if (ibf_fabric_create(&f) ||
	    ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0x9000, "sw", 16, &sw,
				NULL) ||
	    ibf_fabric_set_port(f, sw, 0, 0x9000, 1, 0, NULL))
		abort();
	for (n = 0; n < NCA; n++) {
		uint64_t g = 0x1000 + 0x100 * n;
		unsigned np = n == 8 ? 2 : 1, p;

		if (ibf_fabric_add_node(f, IBF_NODE_CA, g, descs[n], np, &ca,
					NULL))
			abort();
		for (p = 1; p <= np; p++)
			if (ibf_fabric_set_port(f, ca, p, g + p, lid++, 0,
						NULL) ||
			    ibf_fabric_link(f, ca, p, sw, swport++, 4,
					    IBF_SPEED_EDR, NULL))
				abort();
	}
	if (ibf_fabric_finalize(f, NULL, NULL))
		abort();
	return f;
}

static char *written(const ibf_fabric_t *f, const ibf_hostlist_t *h,
		     const ibf_traffic_t *tr, size_t *len)
{
	char *buf = NULL;
	ibf_err_t err;
	FILE *fp = open_memstream(&buf, len);

	if (!fp)
		abort();
	if ((h ? ibf_hosts_write(f, h, fp, &err)
	       : ibf_traffic_write(f, tr, fp, &err)) != IBF_OK)
		abort();
	fclose(fp);
	return buf;
}

static void hosts_round_trip(const ibf_fabric_t *f, const ibf_hostlist_t *h)
{
	ibf_hostlist_t back;
	ibf_text_t t;
	ibf_err_t err;
	size_t len;
	char *buf = written(f, h, NULL, &len);

	if (ibf_text_from_buf(&t, "back", buf, len, &err) ||
	    ibf_hosts_read_text(f, &t, &back, &err)) {
		fprintf(stderr, "written host list does not read back: %s\n",
			err.msg);
		abort();
	}
	if (back.n != h->n ||
	    (h->n && memcmp(back.ports, h->ports, h->n * sizeof(*h->ports))))
		abort();
	ibf_hostlist_free(&back);
	ibf_text_free(&t);
	free(buf);
}

static void traffic_round_trip(const ibf_fabric_t *f, const ibf_traffic_t *tr)
{
	ibf_traffic_t back;
	ibf_text_t t;
	ibf_err_t err;
	size_t len;
	char *buf = written(f, NULL, tr, &len);

	if (ibf_text_from_buf(&t, "back", buf, len, &err) ||
	    ibf_traffic_read_text(f, &t, &back, &err)) {
		fprintf(stderr, "written traffic does not read back: %s\n",
			err.msg);
		abort();
	}
	if (back.n != tr->n ||
	    (tr->n && memcmp(back.flows, tr->flows,
			     tr->n * sizeof(*tr->flows))))
		abort();
	ibf_traffic_free(&back);
	ibf_text_free(&t);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const ibf_fabric_t *f = fabric();
	ibf_hostlist_t h;
	ibf_traffic_t tr;
	ibf_text_t t;
	ibf_err_t err;

	if (ibf_text_from_buf(&t, "fuzz", (const char *)data, size, &err))
		return 0;
	if (ibf_hosts_read_text(f, &t, &h, &err) == IBF_OK) {
		hosts_round_trip(f, &h);
		ibf_hostlist_free(&h);
	} else if (h.ports || strncmp(err.msg, "fuzz:", 5) != 0) {
		abort();
	}
	if (ibf_traffic_read_text(f, &t, &tr, &err) == IBF_OK) {
		traffic_round_trip(f, &tr);
		ibf_traffic_free(&tr);
	} else if (tr.flows || strncmp(err.msg, "fuzz:", 5) != 0) {
		abort();
	}
	ibf_text_free(&t);
	return 0;
}
