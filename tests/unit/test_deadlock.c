/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Deadlock check and SL files.
 *
 * Hand cases with known answers (a ring with clockwise routes has a cycle;
 * the same routes split at a dateline have none; up*\/down* on a fat tree
 * has none), and a brute-force reference: every route traced hop by hop,
 * its consecutive channels put in a dense matrix per VL, cycles found by
 * repeatedly removing channels without successors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <ibflow/deadlock.h>
#include <ibflow/gen.h>
#include <ibflow/route.h>
#include <ibflow/sl_io.h>
#include <ibflow/trace.h>

/* ---- fabrics by hand ---------------------------------------------------- */

static ibf_node_id_t add(ibf_fabric_t *f, ibf_node_type_t t, const char *d,
			 unsigned nports)
{
	ibf_node_id_t id;
	ibf_err_t err;

	assert_int_equal(ibf_fabric_add_node(f, t, 0, d, nports, &id, &err),
			 IBF_OK);
	return id;
}

static void link2(ibf_fabric_t *f, ibf_node_id_t a, unsigned pa,
		  ibf_node_id_t b, unsigned pb)
{
	ibf_err_t err;

	assert_int_equal(ibf_fabric_link(f, a, pa, b, pb, 0, 0, &err), IBF_OK);
}

static void seal(ibf_fabric_t *f)
{
	ibf_err_t err;

	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
}

/* Ring of 4 switches r0..r3, host hi on port 1 of ri; port 2 of ri goes
 * clockwise to port 3 of r(i+1). */
struct ring {
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	ibf_node_id_t sw[4], h[4];
};

static unsigned cw(unsigned from, unsigned to)
{
	return (to + 4 - from) % 4;
}

static void ring_build(struct ring *r)
{
	char d[16];
	unsigned i, j;

	assert_int_equal(ibf_fabric_create(&r->f), IBF_OK);
	for (i = 0; i < 4; i++) {
		snprintf(d, sizeof(d), "r%u", i);
		r->sw[i] = add(r->f, IBF_NODE_SWITCH, d, 3);
		snprintf(d, sizeof(d), "h%u", i);
		r->h[i] = add(r->f, IBF_NODE_CA, d, 1);
		link2(r->f, r->sw[i], 1, r->h[i], 1);
	}
	for (i = 0; i < 4; i++)
		link2(r->f, r->sw[i], 2, r->sw[(i + 1) % 4], 3);
	seal(r->f);
	assert_int_equal(ibf_lfts_create(r->f, &r->l), IBF_OK);
	/* Shortest paths, clockwise on the distance-2 tie. */
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			unsigned d2 = cw(i, j);
			uint32_t s = r->f->switch_index[r->sw[i]];
			unsigned hl = ibf_node_port(r->f, r->h[j], 1)->lid;
			unsigned sl = ibf_node_port(r->f, r->sw[j], 0)->lid;
			unsigned p = d2 == 0 ? 1 : d2 == 3 ? 3 : 2;

			ibf_lfts_set(r->l, s, hl, (uint8_t)p);
			ibf_lfts_set(r->l, s, sl, (uint8_t)(d2 ? p : 0));
		}
}

static void ring_free(struct ring *r)
{
	ibf_lfts_destroy(r->l);
	ibf_fabric_destroy(r->f);
}

/* ---- the brute-force reference ------------------------------------------ */

struct ref {
	uint64_t routes[IBF_NSLS], deps[IBF_NSLS];
	bool cyclic[IBF_NSLS];
};

static bool ref_cyclic(const uint8_t *m, uint32_t n)
{
	uint8_t *gone = calloc(n, 1);
	bool changed = true, cyc = false;
	uint32_t a, b;

	assert_non_null(gone);
	while (changed) {
		changed = false;
		for (a = 0; a < n; a++) {
			bool succ = false;

			if (gone[a])
				continue;
			for (b = 0; b < n && !succ; b++)
				succ = !gone[b] && m[(size_t)a * n + b];
			if (!succ) {
				gone[a] = 1;
				changed = true;
			}
		}
	}
	for (a = 0; a < n; a++)
		cyc |= !gone[a];
	free(gone);
	return cyc;
}

static void reference(const ibf_lfts_t *l, const ibf_sls_t *sls,
		      bool switches, struct ref *out)
{
	const ibf_fabric_t *f = l->fabric;
	uint32_t n = f->nports, e;
	uint8_t *m[IBF_NSLS] = { NULL };
	ibf_port_id_t hops[64];
	unsigned lid, vl, k, nh;

	memset(out, 0, sizeof(*out));
	for (e = 0; e < f->nendpoints; e++)
		for (lid = 1; lid <= f->lid_top; lid++) {
			ibf_port_id_t src = f->endpoints[e];
			ibf_port_id_t o = ibf_fabric_lid_owner(f, lid);

			if (o == IBF_NO_ID || o == src || (!switches &&
			    ibf_node_is_switch(f, f->ports[o].node)))
				continue;
			ibf_trace(l, src, lid, hops, 64, &nh);
			vl = ibf_sls_get(sls, src, lid);
			if (!m[vl])
				m[vl] = calloc((size_t)n * n, 1);
			out->routes[vl]++;
			/* hops[0] is the host's own port: injection. */
			for (k = 2; k < nh && k < 64; k++)
				m[vl][(size_t)hops[k - 1] * n + hops[k]] = 1;
		}
	for (vl = 0; vl < IBF_NSLS; vl++) {
		size_t i;

		if (!m[vl])
			continue;
		for (i = 0; i < (size_t)n * n; i++)
			out->deps[vl] += m[vl][i];
		out->cyclic[vl] = ref_cyclic(m[vl], n);
		free(m[vl]);
	}
}

static void check_vs_reference(const ibf_lfts_t *l, const ibf_sls_t *sls,
			       bool switches, ibf_deadlock_report_t *rep)
{
	ibf_deadlock_opts_t o = { .switches = switches };
	const ibf_fabric_t *f = l->fabric;
	struct ref ref;
	ibf_err_t err;
	unsigned vl, i;

	assert_int_equal(ibf_deadlock_check(l, sls, &o, rep, &err), IBF_OK);
	reference(l, sls, switches, &ref);
	for (vl = 0; vl < IBF_NSLS; vl++) {
		assert_int_equal(rep->routes[vl], ref.routes[vl]);
		assert_int_equal(rep->deps[vl], ref.deps[vl]);
		assert_int_equal(rep->cyclic[vl], ref.cyclic[vl]);
		if (!rep->cyclic[vl])
			continue;
		/* The cycle printed is one: each channel ends at the switch
		 * the next leaves from, the last at the first's. */
		assert_true(rep->cycle_len[vl] >= 2);
		for (i = 0; i < rep->cycle_len[vl]; i++) {
			ibf_port_id_t a = rep->cycle[vl][i];
			ibf_port_id_t b = rep->cycle[vl][(i + 1) %
							 rep->cycle_len[vl]];

			assert_int_equal(f->ports[f->ports[a].peer].node,
					 f->ports[b].node);
		}
	}
}

/* ---- hand cases ------------------------------------------------------- */

static void ring_cycle(void **s)
{
	struct ring r;
	ibf_deadlock_report_t rep;
	unsigned i;

	(void)s;
	ring_build(&r);
	check_vs_reference(r.l, NULL, false, &rep);
	assert_true(ibf_deadlock_found(&rep));
	assert_int_equal(rep.nvls, 1);
	assert_true(rep.cyclic[0]);
	assert_int_equal(rep.routes[0], 12);
	/* The cycle is the 4 clockwise channels. */
	assert_int_equal(rep.cycle_len[0], 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(r.f->ports[rep.cycle[0][i]].num, 2);
	ibf_deadlock_report_free(&rep);
	ring_free(&r);
}

/* Routes that cross the dateline r3 -> r0 clockwise use SL 1. */
static void ring_dateline(void **s)
{
	struct ring r;
	ibf_deadlock_report_t rep;
	ibf_sls_t sls;
	size_t stride;
	unsigned i, j;

	(void)s;
	ring_build(&r);
	stride = r.f->lid_top + 1;
	memset(&sls, 0, sizeof(sls));
	sls.fabric = r.f;
	sls.by_pair = calloc(r.f->nendpoints * stride, 1);
	assert_non_null(sls.by_pair);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			ibf_port_id_t src = ibf_node_port_id(r.f, r.h[i], 1);
			unsigned d = cw(i, j);
			bool crosses = (d == 1 || d == 2) && i + d >= 4;

			sls.by_pair[r.f->endpoint_index[src] * stride +
				    ibf_node_port(r.f, r.h[j], 1)->lid] =
				crosses;
		}
	sls.nsls = 2;
	check_vs_reference(r.l, &sls, false, &rep);
	assert_false(ibf_deadlock_found(&rep));
	assert_int_equal(rep.nvls, 2);
	/* i=3 d=1,2 and i=2 d=2 cross. */
	assert_int_equal(rep.routes[1], 3);
	assert_int_equal(rep.routes[0], 9);
	ibf_deadlock_report_free(&rep);
	/* Routes to the switches too (SL 0 there): as the reference says. */
	check_vs_reference(r.l, &sls, true, &rep);
	ibf_deadlock_report_free(&rep);
	free(sls.by_pair);
	ring_free(&r);
}

/* 2 leaves (hosts on ports 1, 2; up ports 3, 4), 2 spines (port 1 + leaf).
 * Up*\/down*: up by port 3 + host % 2, down to the leaf. */
static void fat_tree_updown(void **s)
{
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	ibf_node_id_t leaf[2], spine[2], h[4];
	ibf_deadlock_report_t rep;
	char d[16];
	unsigned i, j, k;

	(void)s;
	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (i = 0; i < 2; i++) {
		snprintf(d, sizeof(d), "leaf%u", i);
		leaf[i] = add(f, IBF_NODE_SWITCH, d, 4);
		snprintf(d, sizeof(d), "spine%u", i);
		spine[i] = add(f, IBF_NODE_SWITCH, d, 2);
	}
	for (i = 0; i < 4; i++) {
		snprintf(d, sizeof(d), "h%u", i);
		h[i] = add(f, IBF_NODE_CA, d, 1);
		link2(f, leaf[i / 2], 1 + i % 2, h[i], 1);
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			link2(f, leaf[i], 3 + j, spine[j], 1 + i);
	seal(f);
	assert_int_equal(ibf_lfts_create(f, &l), IBF_OK);
	for (k = 0; k < 4; k++) {
		unsigned lid = ibf_node_port(f, h[k], 1)->lid;

		for (i = 0; i < 2; i++) {
			ibf_lfts_set(l, f->switch_index[leaf[i]], lid,
				     (uint8_t)(k / 2 == i ? 1 + k % 2 :
					       3 + k % 2));
			ibf_lfts_set(l, f->switch_index[spine[i]], lid,
				     (uint8_t)(1 + k / 2));
		}
	}
	check_vs_reference(l, NULL, false, &rep);
	assert_false(ibf_deadlock_found(&rep));
	assert_int_equal(rep.routes[0], 12);
	/* 8 remote pairs leaf -> spine -> leaf -> host, 2 dependencies each:
	 * (leaf i up to spine j) -> (spine j down to leaf 1-i): 4 distinct;
	 * (spine k%2 down to leaf k/2) -> (leaf to host k): 4 distinct. */
	assert_int_equal(rep.deps[0], 8);
	ibf_deadlock_report_free(&rep);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
}

/* minhop on generated fabrics, random per-pair SLs: same as brute force. */
static void generated_vs_reference(void **s)
{
	const char *specs[] = { "torus:3,3,3", "kary:2,3", "slimfly:5",
				"dragonfly:4,2,2" };
	unsigned i;

	(void)s;
	srand(7);
	for (i = 0; i < 4; i++) {
		ibf_gen_opts_t go = { .lmc = i % 2 };
		ibf_fabric_t *f;
		ibf_routing_t *r;
		ibf_deadlock_report_t rep;
		ibf_sls_t sls;
		size_t n, k;
		ibf_err_t err;

		assert_int_equal(ibf_gen(specs[i], &go, &f, &err), IBF_OK);
		assert_int_equal(ibf_route(f, "minhop", NULL, &r, &err),
				 IBF_OK);
		check_vs_reference(r->lfts, NULL, true, &rep);
		ibf_deadlock_report_free(&rep);
		memset(&sls, 0, sizeof(sls));
		sls.fabric = f;
		n = (size_t)f->nendpoints * (f->lid_top + 1);
		sls.by_pair = malloc(n);
		for (k = 0; k < n; k++)
			sls.by_pair[k] = (uint8_t)(rand() % 3);
		check_vs_reference(r->lfts, &sls, false, &rep);
		ibf_deadlock_report_free(&rep);
		free(sls.by_pair);
		ibf_routing_destroy(r);
		ibf_fabric_destroy(f);
	}
}

/* ---- SL files ---------------------------------------------------------- */

static void sl_round_trip(void **s)
{
	struct ring rg;
	ibf_routing_t r;
	ibf_sls_t back;
	char path[] = "/tmp/test_deadlock_sl.XXXXXX";
	size_t stride, k;
	unsigned lid, pass;
	uint32_t e;
	ibf_err_t err;
	int fd;

	(void)s;
	ring_build(&rg);
	stride = rg.f->lid_top + 1;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	srand(3);
	for (pass = 0; pass < 2; pass++) {
		memset(&r, 0, sizeof(r));
		r.fabric = rg.f;
		r.nsls = 16;
		if (pass == 0) {
			r.sl_by_pair = malloc(rg.f->nendpoints * stride);
			for (k = 0; k < rg.f->nendpoints * stride; k++)
				r.sl_by_pair[k] = (uint8_t)(rand() % 16);
		} else {
			r.sl_by_dlid = malloc(stride);
			for (k = 0; k < stride; k++)
				r.sl_by_dlid[k] = (uint8_t)(rand() % 16);
		}
		assert_int_equal(ibf_routing_write_sl(&r, path, &err), IBF_OK);
		if (ibf_sls_read(rg.f, path, &back, &err) != IBF_OK)
			fail_msg("%s", err.msg);
		for (e = 0; e < rg.f->nendpoints; e++)
			for (lid = 1; lid < stride; lid++) {
				ibf_port_id_t src = rg.f->endpoints[e];

				if (ibf_fabric_lid_owner(rg.f, lid) == src)
					continue;
				assert_int_equal(ibf_sls_get(&back, src, lid),
						 ibf_routing_sl(&r, src, lid));
			}
		ibf_sls_free(&back);
		free(r.sl_by_pair);
		free(r.sl_by_dlid);
	}
	unlink(path);
	ring_free(&rg);
}

/* Replace A, B, S in text by the LIDs given. */
static void expand(char *buf, size_t len, const char *text, unsigned a,
		   unsigned b, unsigned sw)
{
	size_t n = 0;

	for (; *text && n + 8 < len; text++) {
		if (*text == 'A' || *text == 'B' || *text == 'S')
			n += (size_t)snprintf(buf + n, len - n, "%u",
					      *text == 'A' ? a :
					      *text == 'B' ? b : sw);
		else
			buf[n++] = *text;
	}
	buf[n] = '\0';
}

static void sl_bad(void **s)
{
	struct ring rg;
	char buf[256], want[64];
	unsigned h0, h1, sw0, i;
	struct {
		const char *text;  /* A = h0's LID, B = h1's, S = r0's */
		unsigned line;
		const char *msg;
	} cases[] = {
		{ "* A 0\nfoo\n", 2, "expected '*' or a source LID" },
		{ "* 999 0\n", 1, "DLID 999 is not a LID" },
		{ "* A 16\n", 1, "SL 16 out of range" },
		{ "S A 1\n", 1, "is not a LID of a host" },
		{ "* A 1 extra\n", 1, "unexpected text" },
		{ "* A 1\n* A 2\n", 2, "second '*' line" },
		{ "# c\n\nA B 3\nA B 4\n", 4, "second SL" },
		{ "* A\n", 1, "expected an SL" },
		{ "*\n", 1, "expected a destination LID" },
	};

	(void)s;
	ring_build(&rg);
	h0 = ibf_node_port(rg.f, rg.h[0], 1)->lid;
	h1 = ibf_node_port(rg.f, rg.h[1], 1)->lid;
	sw0 = ibf_node_port(rg.f, rg.sw[0], 0)->lid;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ibf_text_t t;
		ibf_sls_t sls;
		ibf_err_t err;

		expand(buf, sizeof(buf), cases[i].text, h0, h1, sw0);
		assert_int_equal(ibf_text_from_buf(&t, "t.sl", buf,
						   strlen(buf), &err), IBF_OK);
		assert_int_not_equal(ibf_sls_read_text(rg.f, &t, &sls, &err),
				     IBF_OK);
		assert_null(sls.by_dlid);
		assert_null(sls.by_pair);
		snprintf(want, sizeof(want), "t.sl:%u: ", cases[i].line);
		if (strncmp(err.msg, want, strlen(want)) ||
		    !strstr(err.msg, cases[i].msg))
			fail_msg("case %u: '%s' (want '%s' ... '%s')", i,
				 err.msg, want, cases[i].msg);
		ibf_text_free(&t);
	}
	{
		ibf_sls_t sls;
		ibf_err_t err;

		assert_int_equal(ibf_sls_read(rg.f, "/nonexistent/x.sl", &sls,
					      &err), IBF_ERR_IO);
	}
	ring_free(&rg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ring_cycle),
		cmocka_unit_test(ring_dateline),
		cmocka_unit_test(fat_tree_updown),
		cmocka_unit_test(generated_vs_reference),
		cmocka_unit_test(sl_round_trip),
		cmocka_unit_test(sl_bad),
	};
	return cmocka_run_group_tests_name("deadlock", tests, NULL, NULL);
}
