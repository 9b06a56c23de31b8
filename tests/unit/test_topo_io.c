/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Unit tests for the topology readers and writers.  Expected values are
 * written by hand from the sample files below (what the file says), never
 * taken from the code under test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ibflow/topo_io.h>

/* ---- helpers ----------------------------------------------------------- */

static ibf_status_t read_fmt(const char *text, ibf_topo_format_t fmt,
			     unsigned lmc, ibf_fabric_t **f, ibf_err_t *err)
{
	ibf_topo_read_opts_t o = { .format = fmt, .lmc = lmc };
	ibf_text_t t;
	ibf_status_t st;

	ibf_err_clear(err);
	*f = NULL;
	st = ibf_text_from_buf(&t, "t.txt", text, strlen(text), err);
	if (st != IBF_OK)
		return st;
	st = ibf_topo_read_text(&t, &o, f, err);
	ibf_text_free(&t);
	if (st != IBF_OK)
		assert_null(*f);
	return st;
}

static ibf_fabric_t *read_ok(const char *text, unsigned lmc)
{
	ibf_fabric_t *f;
	ibf_err_t err;

	if (read_fmt(text, IBF_TOPO_AUTO, lmc, &f, &err) != IBF_OK)
		fail_msg("unexpected error: %s", err.msg);
	assert_true(f->finalized);
	return f;
}

/* Reading text must fail with status st and "t.txt:LINE:" */
static void expect_error(const char *text, ibf_topo_format_t fmt,
			 ibf_status_t st, unsigned line)
{
	char prefix[32];
	ibf_fabric_t *f;
	ibf_err_t err;

	snprintf(prefix, sizeof(prefix), "t.txt:%u:", line);
	assert_int_equal(read_fmt(text, fmt, 0, &f, &err), st);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
		fail_msg("expected \"%s...\", got \"%s\"", prefix, err.msg);
}

static ibf_node_id_t by_guid(const ibf_fabric_t *f, uint64_t guid)
{
	ibf_node_id_t n = ibf_fabric_node_by_guid(f, guid);

	if (n == IBF_NO_ID)
		fail_msg("no node 0x%llx", (unsigned long long)guid);
	return n;
}

/* Port pn of node guid a is linked to port qn of node guid b at w x s. */
static void assert_link(const ibf_fabric_t *f, uint64_t a, unsigned pn,
			uint64_t b, unsigned qn, unsigned w, ibf_speed_t s)
{
	const ibf_port_t *p = ibf_node_port(f, by_guid(f, a), pn), *q;

	assert_int_not_equal(p->peer, IBF_NO_ID);
	q = ibf_port(f, p->peer);
	assert_int_equal(ibf_node(f, q->node)->guid, b);
	assert_int_equal(q->num, qn);
	assert_int_equal(p->width, w);
	assert_int_equal(p->speed, s);
	assert_int_equal(q->width, w);
	assert_int_equal(q->speed, s);
}

static void assert_port(const ibf_fabric_t *f, uint64_t node, unsigned pn,
			uint64_t guid, unsigned lid, unsigned lmc)
{
	const ibf_port_t *p = ibf_node_port(f, by_guid(f, node), pn);

	assert_int_equal(p->guid, guid);
	assert_int_equal(p->lid, lid);
	assert_int_equal(p->lmc, lmc);
}

static unsigned count_links(const ibf_fabric_t *f)
{
	unsigned n = 0;
	ibf_port_id_t p;

	for (p = 0; p < f->nports; p++)
		n += f->ports[p].peer != IBF_NO_ID;
	return n / 2;
}

/* ---- ibnetdiscover ------------------------------------------------------ */

/* Shaped like real ibnetdiscover output (tabs, comments, "(guid)"s), with a
 * two-port CA, parallel switch links, LMC 1 and an unconnected port. */
static const char ibnd_sample[] =
	"#\n"
	"# Topology file: generated on Sun Nov 22 04:50:28 2026\n"
	"#\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x200001\n"
	"switchguid=0x200001(200001)\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 4 lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 6 4xQDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xEDR\n"
	"[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 1 4xEDR\n"
	"\n"
	"switchguid=0x200000(200000)\n"
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000100000\"[2](100002) \t\t# \"Hca1 mlx5_0\" lid 8 12xHDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 4 4xEDR\n"
	"[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 4 4xEDR\n"
	"\n"
	"vendid=0x0\n"
	"caguid=0x100003\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 6 lmc 1 \"Switch2\" lid 4 4xQDR\n"
	"\n"
	"caguid=0x100000\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1 mlx5_0\"\n"
	"[2](100002) \t\"S-0000000000200000\"[1]\t\t# lid 8 lmc 1 \"Switch1\" lid 1 12xHDR\n";

static void test_ibnd_hand(void **state)
{
	ibf_fabric_t *f = read_ok(ibnd_sample, 0);
	ibf_node_id_t n;

	(void)state;
	assert_int_equal(f->nnodes, 4);
	assert_int_equal(f->nswitches, 2);
	assert_int_equal(f->nendpoints, 2);
	assert_int_equal(f->lmc, 1);
	assert_int_equal(count_links(f), 4);
	n = by_guid(f, 0x200001);
	assert_int_equal(ibf_node(f, n)->type, IBF_NODE_SWITCH);
	assert_int_equal(ibf_node(f, n)->nports, 8);
	assert_string_equal(ibf_node_desc(f, n), "Switch2");
	n = by_guid(f, 0x100000);
	assert_int_equal(ibf_node(f, n)->type, IBF_NODE_CA);
	assert_int_equal(ibf_node(f, n)->nports, 2);
	assert_string_equal(ibf_node_desc(f, n), "Hca1 mlx5_0");
	assert_string_equal(ibf_node_desc(f, by_guid(f, 0x100003)), "Hca2");
	assert_port(f, 0x200001, 0, 0x200001, 4, 0);
	assert_port(f, 0x200000, 0, 0x200000, 1, 0);
	assert_port(f, 0x100003, 1, 0x100004, 6, 1);
	assert_port(f, 0x100000, 2, 0x100002, 8, 1);
	/* unconnected CA port: GUID assigned as NodeGUID + port, no LID */
	assert_port(f, 0x100000, 1, 0x100001, 0, 0);
	assert_int_equal(ibf_node_port(f, by_guid(f, 0x100000), 1)->peer,
			 IBF_NO_ID);
	assert_link(f, 0x200001, 1, 0x100003, 1, 4, IBF_SPEED_QDR);
	assert_link(f, 0x200001, 3, 0x200000, 3, 4, IBF_SPEED_EDR);
	assert_link(f, 0x200001, 5, 0x200000, 5, 4, IBF_SPEED_EDR);
	assert_link(f, 0x200000, 1, 0x100000, 2, 12, IBF_SPEED_HDR);
	/* LIDs 6,7 and 8,9 belong to the CA ports (LMC 1) */
	assert_int_equal(ibf_fabric_lid_owner(f, 7),
			 ibf_node_port_id(f, by_guid(f, 0x100003), 1));
	assert_int_equal(ibf_fabric_lid_owner(f, 9),
			 ibf_node_port_id(f, by_guid(f, 0x100000), 2));
	ibf_fabric_destroy(f);
}

/* No comments at all: no LIDs (assigned with the LMC asked for), no
 * descriptions (the id stands in), no rates. */
static void test_ibnd_bare(void **state)
{
	static const char text[] =
		"Switch 4 \"S-00000000000000a1\"\n"
		"[1] \"H-00000000000000b1\"[1]\n"
		"\n"
		"Ca 1 \"H-00000000000000b1\"\n"
		"[1] \"S-00000000000000a1\"[1]\n";
	ibf_fabric_t *f = read_ok(text, 2);

	(void)state;
	assert_int_equal(f->nnodes, 2);
	assert_string_equal(ibf_node_desc(f, by_guid(f, 0xa1)),
			    "S-00000000000000a1");
	/* OpenSM order: switch LID 1, CA base aligned to 4 */
	assert_port(f, 0xa1, 0, 0xa1, 1, 0);
	assert_port(f, 0xb1, 1, 0xb2, 4, 2);
	assert_link(f, 0xa1, 1, 0xb1, 1, 0, IBF_SPEED_UNKNOWN);
	ibf_fabric_destroy(f);
}

/* ---- ibsim --------------------------------------------------------------- */

static void test_ibsim_hand(void **state)
{
	/* ibsim's own syntax: GUIDs from its counters (CAs from 0x100000,
	 * stepping by ports + 1; switches from 0x200000, stepping by 1),
	 * "switchguid=" resets the counter, rates default to 4x SDR and a
	 * link runs at what both ends enable. */
	static const char text[] =
		"# net\n"
		"Hca\t2 \"Hca1\"\n"
		"[1]\t\"Switch1\"[1]\n"
		"[2]\t\"Switch1\"[2]\t# lid 0 4xQDR\n"
		"\n"
		"Switch\t8 \"Switch1\"\n"
		"[1]\t\"Hca1\"[1]\n"
		"[2]\t\"Hca1\"[2]\n"
		"[3]\t\"Switch2\"[3]\t# \"x\" lid 9 4xQDR\n"
		"[4]\t\"Hca2\"\t# no remote port: ibsim takes 1\n"
		"\n"
		"switchguid=0x5000\n"
		"Switch\t8 \"Switch2\"\t# \"spine one\"\n"
		"[3]\t\"Switch1\"[3]\t# \"y\" lid 9 12xQDR\n"
		"\n"
		"Ca\t1 \"Hca2\"\n"
		"[1]\t\"Switch1\"[4] w=3\n";
	ibf_fabric_t *f = read_ok(text, 0);

	(void)state;
	assert_int_equal(f->nnodes, 4);
	assert_string_equal(ibf_node_desc(f, by_guid(f, 0x100000)), "Hca1");
	assert_string_equal(ibf_node_desc(f, by_guid(f, 0x200000)),
			    "Switch1");
	assert_string_equal(ibf_node_desc(f, by_guid(f, 0x5000)),
			    "spine one");
	/* Hca1 took 0x100000..0x100002, so Hca2 is 0x100003 */
	assert_string_equal(ibf_node_desc(f, by_guid(f, 0x100003)), "Hca2");
	/* no LIDs in the file: as OpenSM's first sweep from the first
	 * node's port 1 assigns them, LMC 0: the SM's port, then by port
	 * GUID read lowest byte first (0x200000: 00 00 20 < 0x5000: 00 50
	 * < 0x100002: 02 < 0x100004: 04) */
	assert_port(f, 0x100000, 1, 0x100001, 1, 0);
	assert_port(f, 0x200000, 0, 0x200000, 2, 0);
	assert_port(f, 0x5000, 0, 0x5000, 3, 0);
	assert_port(f, 0x100000, 2, 0x100002, 4, 0);
	assert_port(f, 0x100003, 1, 0x100004, 5, 0);
	/* QDR on one end only: SDR|DDR|QDR & SDR = SDR */
	assert_link(f, 0x100000, 1, 0x200000, 1, 4, IBF_SPEED_SDR);
	assert_link(f, 0x100000, 2, 0x200000, 2, 4, IBF_SPEED_SDR);
	/* 4x (1x|4x) & 12x (1x|4x|12x) = 4x; QDR both ends */
	assert_link(f, 0x200000, 3, 0x5000, 3, 4, IBF_SPEED_QDR);
	/* "[4] "Hca2"": remote port 1; w=3 (1x|4x) & default 4x = 4x */
	assert_link(f, 0x200000, 4, 0x100003, 1, 4, IBF_SPEED_SDR);
	ibf_fabric_destroy(f);
}

static void test_ibsim_no_common_rate(void **state)
{
	(void)state;
	expect_error("Hca 1 \"a\"\n[1] \"s\"[1] w=1\n\n"
		     "Switch 2 \"s\"\n[1] \"a\"[1]\n",
		     IBF_TOPO_AUTO, IBF_ERR_INVALID, 2);
}

/* ---- opensm-subnet.lst ------------------------------------------------- */

static const char lst_sample[] =
	"{ CA-SM Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001 VenID:000000 DevID:0000 Rev:000000A1 {Hca1} LID:0002 PN:01 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:01 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:01 } { CA-SM Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001 VenID:00000000 DevID:0000 Rev:000000A1 {Hca1} LID:0002 PN:01 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:07 } { SW Ports:24 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:00000000 DevID:0000 Rev:000000A1 {leaf {7}} LID:0004 PN:21 } PHY=12x LOG=ACT SPD=14\n"
	"{ SW Ports:24 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:000000 DevID:0000 Rev:000000A1 {leaf {7}} LID:0004 PN:21 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:07 } PHY=12x LOG=ACT SPD=14\n"
	"{ CA Ports:01 SystemGUID:0000000000300000 NodeGUID:0000000000300000 PortGUID:0000000000300001 VenID:000000 DevID:0000 Rev:000000A1 {h2} LID:000C PN:01 } { SW Ports:24 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:00000000 DevID:0000 Rev:000000A1 {leaf {7}} LID:0004 PN:01 } PHY=2x LOG=ACT SPD=50\n"
	"{ SW Ports:24 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:000000 DevID:0000 Rev:000000A1 {leaf {7}} LID:0004 PN:01 } { CA Ports:01 SystemGUID:0000000000300000 NodeGUID:0000000000300000 PortGUID:0000000000300001 VenID:00000000 DevID:0000 Rev:000000A1 {h2} LID:000C PN:01 } PHY=2x LOG=ACT SPD=50\n";

static void test_lst_hand(void **state)
{
	ibf_fabric_t *f = read_ok(lst_sample, 1);

	(void)state;
	assert_int_equal(f->nnodes, 4);
	assert_int_equal(f->nswitches, 2);
	assert_int_equal(f->lmc, 1);
	/* Ports/PN/LID are hexadecimal: 0x24 = 36 ports, PN 0x21 = 33 */
	assert_int_equal(ibf_node(f, by_guid(f, 0x200001))->nports, 36);
	assert_string_equal(ibf_node_desc(f, by_guid(f, 0x200001)),
			    "leaf {7}");
	assert_string_equal(ibf_node_desc(f, by_guid(f, 0x100000)), "Hca1");
	assert_port(f, 0x100000, 1, 0x100001, 2, 1);
	assert_port(f, 0x300000, 1, 0x300001, 12, 1);
	assert_port(f, 0x200000, 0, 0x200000, 1, 0);
	assert_port(f, 0x200001, 0, 0x200001, 4, 0);
	assert_link(f, 0x100000, 1, 0x200000, 1, 4, IBF_SPEED_SDR);
	assert_link(f, 0x200000, 7, 0x200001, 33, 12, IBF_SPEED_FDR);
	assert_link(f, 0x300000, 1, 0x200001, 1, 2, IBF_SPEED_HDR);
	ibf_fabric_destroy(f);
}

static void test_detect(void **state)
{
	static const struct {
		const char *text;
		ibf_topo_format_t fmt;
	} cases[] = {
		{ ibnd_sample, IBF_TOPO_IBNETDISCOVER },
		{ lst_sample, IBF_TOPO_SUBNET_LST },
		{ "Switch 8 \"Switch1\"\n[1] \"Hca1\"[1]\n", IBF_TOPO_IBSIM },
		{ "# x\nCa 1 \"H-0000000000000001\"\n", IBF_TOPO_IBNETDISCOVER },
		{ "Hca 1 \"H-0000000000000001\"\n", IBF_TOPO_IBSIM },
		{ "hello world\n", IBF_TOPO_AUTO },
		{ "", IBF_TOPO_AUTO },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ibf_text_t t;
		ibf_err_t err;

		assert_int_equal(ibf_text_from_buf(&t, "t", cases[i].text,
						   strlen(cases[i].text),
						   &err), IBF_OK);
		assert_int_equal(ibf_topo_detect(&t), cases[i].fmt);
		ibf_text_free(&t);
	}
	assert_int_equal(ibf_topo_format_from_name("ibsim"), IBF_TOPO_IBSIM);
	assert_int_equal(ibf_topo_format_from_name("subnet-lst"),
			 IBF_TOPO_SUBNET_LST);
	assert_int_equal(ibf_topo_format_from_name("xml"), IBF_TOPO_AUTO);
	assert_string_equal(ibf_topo_format_name(IBF_TOPO_DOT), "dot");
}

/* ---- round trips ------------------------------------------------------- */

/* Two switches with three parallel/mixed links, a 2-port CA on both, a
 * 4-port CA with two ports unconnected, a router.  ibsim_safe: only rates
 * ibsim carries (no NDR, FDR10, unknown) and default CA port GUIDs. */
static ibf_fabric_t *build(bool ibsim_safe, bool set_lids, unsigned lmc)
{
	ibf_fabric_t *f;
	ibf_node_id_t s1, s2, h1, h2, h3, r1;
	ibf_finalize_opts_t o = { .lmc = lmc };
	ibf_err_t err;

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0x1000,
					     "spine 1", 8, &s1, &err), 0);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0x3000,
					     "host one mlx5_0", 2, &h1, &err),
			 0);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0x2000,
					     "leaf#2 {x}", 36, &s2, &err), 0);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0x4000, "h2",
					     1, &h2, &err), 0);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0x5000, "h3",
					     4, &h3, &err), 0);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_ROUTER, 0x6000,
					     "router", 1, &r1, &err), 0);
#define L(a, pa, b, pb, w, s) \
	assert_int_equal(ibf_fabric_link(f, a, pa, b, pb, w, s, &err), 0)
	L(s1, 1, s2, 1, 4, IBF_SPEED_EDR);
	L(s1, 2, s2, 2, 4, IBF_SPEED_EDR);
	L(s1, 3, s2, 35, 12, IBF_SPEED_QDR);
	L(h1, 1, s1, 4, 4, IBF_SPEED_HDR);
	L(h1, 2, s2, 4, 2, IBF_SPEED_DDR);
	L(h2, 1, s1, 5, 1, IBF_SPEED_SDR);
	L(h3, 1, s2, 6, 4, IBF_SPEED_FDR);
	L(h3, 3, s1, 8, 8, IBF_SPEED_EDR);
	if (ibsim_safe) {
		L(r1, 1, s2, 36, 4, IBF_SPEED_QDR);
	} else {
		L(r1, 1, s2, 36, 2, IBF_SPEED_NDR);
		L(s1, 6, s2, 7, 0, IBF_SPEED_UNKNOWN);
		L(s1, 7, s2, 8, 4, IBF_SPEED_UNKNOWN);
		L(s2, 9, s2, 10, 4, IBF_SPEED_FDR10); /* loopback cable */
	}
#undef L
	if (set_lids) {
		unsigned n = 1u << lmc;

		assert_int_equal(ibf_fabric_set_port(f, s1, 0, 0, 100, 0,
						     &err), 0);
		assert_int_equal(ibf_fabric_set_port(f, s2, 0, 0, 3, 0,
						     &err), 0);
		assert_int_equal(ibf_fabric_set_port(f, h1, 1,
			ibsim_safe ? 0 : 0xabc, 8 * n, lmc, &err), 0);
		assert_int_equal(ibf_fabric_set_port(f, h1, 2, 0, 9 * n, lmc,
						     &err), 0);
		assert_int_equal(ibf_fabric_set_port(f, h2, 1, 0, 20 * n, lmc,
						     &err), 0);
		assert_int_equal(ibf_fabric_set_port(f, h3, 1, 0, 21 * n, lmc,
						     &err), 0);
		assert_int_equal(ibf_fabric_set_port(f, h3, 3, 0, 22 * n, lmc,
						     &err), 0);
		assert_int_equal(ibf_fabric_set_port(f, r1, 1, 0, 23 * n, lmc,
						     &err), 0);
	}
	if (ibf_fabric_finalize(f, &o, &err) != IBF_OK)
		fail_msg("finalize: %s", err.msg);
	return f;
}

static char *write_mem(const ibf_fabric_t *f, ibf_topo_format_t fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	ibf_err_t err;

	assert_non_null(fp);
	if (ibf_topo_write(f, fmt, fp, &err) != IBF_OK)
		fail_msg("write: %s", err.msg);
	fclose(fp);
	return buf;
}

static void round_trip(ibf_fabric_t *f, ibf_topo_format_t fmt,
		       ibf_topo_format_t expect_detected)
{
	char *text = write_mem(f, fmt);
	ibf_fabric_t *g;
	ibf_text_t t;
	ibf_err_t err;

	assert_int_equal(ibf_text_from_buf(&t, "w", text, strlen(text), &err),
			 IBF_OK);
	assert_int_equal(ibf_topo_detect(&t), expect_detected);
	ibf_text_free(&t);
	/* a different --lmc must not matter: the file carries LIDs */
	if (read_fmt(text, IBF_TOPO_AUTO, 7, &g, &err) != IBF_OK)
		fail_msg("read back: %s\n%s", err.msg, text);
	if (ibf_fabric_compare(f, g, &err) != IBF_OK)
		fail_msg("%s\n%s", err.msg, text);
	if (ibf_fabric_compare(g, f, &err) != IBF_OK)
		fail_msg("%s\n%s", err.msg, text);
	ibf_fabric_destroy(g);
	free(text);
}

static void test_round_trip_ibnd(void **state)
{
	unsigned lmc;

	(void)state;
	for (lmc = 0; lmc <= 2; lmc++) {
		ibf_fabric_t *f = build(false, false, lmc);

		round_trip(f, IBF_TOPO_IBNETDISCOVER, IBF_TOPO_IBNETDISCOVER);
		ibf_fabric_destroy(f);
		f = build(false, true, lmc);
		round_trip(f, IBF_TOPO_IBNETDISCOVER, IBF_TOPO_IBNETDISCOVER);
		ibf_fabric_destroy(f);
	}
}

static void test_round_trip_ibsim(void **state)
{
	unsigned lmc;

	(void)state;
	for (lmc = 0; lmc <= 2; lmc++) {
		ibf_fabric_t *f = build(true, false, lmc);

		round_trip(f, IBF_TOPO_IBSIM, IBF_TOPO_IBSIM);
		ibf_fabric_destroy(f);
		f = build(true, true, lmc);
		round_trip(f, IBF_TOPO_IBSIM, IBF_TOPO_IBSIM);
		ibf_fabric_destroy(f);
	}
}

/* What ibsim cannot carry: NDR runs as SDR, FDR10 as QDR, unknown rates as
 * ibsim's default 4x SDR, CA port GUIDs become NodeGUID + port. */
static void test_ibsim_losses(void **state)
{
	ibf_fabric_t *f = build(false, true, 1), *g;
	char *text = write_mem(f, IBF_TOPO_IBSIM);
	ibf_err_t err;

	(void)state;
	assert_non_null(strstr(text, "# note: 1 CA port GUIDs differ"));
	assert_int_equal(read_fmt(text, IBF_TOPO_AUTO, 0, &g, &err), IBF_OK);
	assert_link(g, 0x6000, 1, 0x2000, 36, 2, IBF_SPEED_SDR);
	assert_link(g, 0x1000, 6, 0x2000, 7, 4, IBF_SPEED_SDR);
	assert_link(g, 0x1000, 7, 0x2000, 8, 4, IBF_SPEED_SDR);
	assert_link(g, 0x2000, 9, 0x2000, 10, 4, IBF_SPEED_QDR);
	assert_port(g, 0x3000, 1, 0x3001, 8 * 2, 1);
	assert_link(g, 0x3000, 1, 0x1000, 4, 4, IBF_SPEED_HDR);
	ibf_fabric_destroy(g);
	ibf_fabric_destroy(f);
	free(text);
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

static void test_dot(void **state)
{
	ibf_fabric_t *f = build(false, false, 0);
	char *text = write_mem(f, IBF_TOPO_DOT);

	(void)state;
	assert_true(strncmp(text, "// ", 3) == 0);
	assert_non_null(strstr(text, "graph ibfabric {"));
	/* 12 links (one a loopback), 6 nodes, 2 switches */
	assert_int_equal(count(text, " -- "), 12);
	assert_int_equal(count(text, "[label="), 6);
	assert_int_equal(count(text, "shape=box"), 2);
	assert_non_null(strstr(text, "[label=\"leaf#2 {x}\""));
	assert_non_null(strstr(text, "taillabel=\"3\", headlabel=\"35\", "
				     "label=\"12xQDR\""));
	assert_int_equal(text[strlen(text) - 2], '}');
	free(text);
	ibf_fabric_destroy(f);
}

static void test_dot_escapes(void **state)
{
	ibf_fabric_t *f;
	ibf_node_id_t a;
	ibf_err_t err;
	char *text;

	(void)state;
	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 1,
					     "a \"q\" \\b", 1, &a, &err), 0);
	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
	text = write_mem(f, IBF_TOPO_DOT);
	assert_non_null(strstr(text, "[label=\"a \\\"q\\\" \\\\b\""));
	free(text);
	/* ibnetdiscover prints the quotes as they are (so does ibflow);
	 * ibsim's parser would cut the name at the second quote: refused,
	 * not mangled */
	text = write_mem(f, IBF_TOPO_IBNETDISCOVER);
	assert_non_null(strstr(text, "# \"a \"q\" \\b\"\n"));
	free(text);
	{
		FILE *fp = fopen("/dev/null", "w");

		assert_int_equal(ibf_topo_write(f, IBF_TOPO_IBSIM, fp, &err),
				 IBF_ERR_UNSUPPORTED);
		fclose(fp);
	}
	ibf_fabric_destroy(f);
}

static void test_write_file(void **state)
{
	char path[] = "/tmp/test_topo_io.XXXXXX";
	ibf_fabric_t *f = build(true, true, 1), *g;
	ibf_topo_read_opts_t o = { .format = IBF_TOPO_AUTO };
	ibf_err_t err;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ibf_topo_write_file(f, IBF_TOPO_IBNETDISCOVER, path,
					     &err), IBF_OK);
	assert_int_equal(ibf_topo_read(path, &o, &g, &err), IBF_OK);
	assert_int_equal(ibf_fabric_compare(f, g, &err), IBF_OK);
	ibf_fabric_destroy(g);
	unlink(path);
	ibf_fabric_destroy(f);
	assert_int_equal(ibf_topo_read("/nonexistent/x", &o, &g, &err),
			 IBF_ERR_IO);
}

/* ---- malformed input ----------------------------------------------------- */

#define SW(id) "Switch 4 \"S-000000000000000" id "\"\n"
#define CA(id) "Ca 2 \"H-000000000000000" id "\"\n"

static void test_errors(void **state)
{
	static const struct {
		const char *text;
		ibf_status_t st;
		unsigned line;
	} cases[] = {
		/* 1: link to a node never defined: the referencing line */
		{ SW("1") "[1] \"S-0000000000000001\"[2]\n"
		  "[2] \"S-0000000000000001\"[1]\n"
		  "[3] \"H-0000000000000009\"[1]\n",
		  IBF_ERR_INVALID, 4 },
		/* 2: local port out of range */
		{ SW("1") "[5] \"S-0000000000000002\"[1]\n",
		  IBF_ERR_PARSE, 2 },
		/* 3: remote port out of range */
		{ SW("1") "[1] \"H-0000000000000002\"[3]\n\n"
		  CA("2") "[1] \"S-0000000000000001\"[1]\n",
		  IBF_ERR_PARSE, 2 },
		/* 4: listed from one end only */
		{ SW("1") "[1] \"H-0000000000000002\"[1]\n\n" CA("2"),
		  IBF_ERR_INVALID, 2 },
		/* 5: A[1] says B[1], B[1] says A[2] */
		{ SW("1") "[1] \"H-0000000000000002\"[1]\n"
		  "[2] \"H-0000000000000002\"[2]\n\n"
		  CA("2") "[1] \"S-0000000000000001\"[2]\n"
		  "[2] \"S-0000000000000001\"[1]\n",
		  IBF_ERR_INVALID, 2 },
		/* 6: duplicate GUID (line of the second header) */
		{ "caguid=0x10\n" CA("1") "\ncaguid=0x10\n" CA("2"),
		  IBF_ERR_INVALID, 5 },
		/* 7: duplicate node id */
		{ SW("1") "\ncaguid=0x7\n" CA("2") "\n" CA("2"),
		  IBF_ERR_INVALID, 6 },
		/* 8: overlapping LIDs (CA LMC 1 covers 4,5; switch 5) */
		{ "Ca 1 \"H-0000000000000002\"\n"
		  "[1](3) \"S-0000000000000001\"[1] # lid 4 lmc 1 \"s\" lid 5 4xQDR\n"
		  "\n"
		  "Switch 4 \"S-0000000000000001\" # \"s\" base port 0 lid 5 lmc 0\n"
		  "[1] \"H-0000000000000002\"[1](3) # \"h\" lid 4 4xQDR\n",
		  IBF_ERR_INVALID, 4 },
		/* 9: truncated port line */
		{ SW("1") "[1] \"S-00000000", IBF_ERR_PARSE, 2 },
		/* 10: truncated header */
		{ "Switch 4\n", IBF_ERR_PARSE, 1 },
		/* 11: port line without a node */
		{ "# x\n[1] \"S-0000000000000001\"[1]\n" SW("1"),
		  IBF_ERR_PARSE, 2 },
		/* 12: unknown speed */
		{ SW("1") "[1] \"S-0000000000000001\"[2] # \"x\" lid 1 4xZDR\n",
		  IBF_ERR_PARSE, 2 },
		/* 13: the two ends disagree on the rate (later line) */
		{ SW("1") "[1] \"H-0000000000000002\"[1] # \"h\" lid 1 4xQDR\n\n"
		  CA("2") "[1] \"S-0000000000000001\"[1] # lid 2 lmc 0 \"s\" lid 1 4xEDR\n",
		  IBF_ERR_INVALID, 5 },
		/* 14: junk line in the middle */
		{ SW("1") "\nfoo bar\n", IBF_ERR_PARSE, 3 },
		/* 15: junk, not a topology at all */
		{ "\x01\x02 garbage\n", IBF_ERR_PARSE, 1 },
		/* 16: empty */
		{ "", IBF_ERR_PARSE, 1 },
		/* 17: only comments */
		{ "#\n# nothing\n", IBF_ERR_PARSE, 1 },
		/* 18: some LIDs given, some not */
		{ "Switch 4 \"S-0000000000000001\" # \"s\" base port 0 lid 1 lmc 0\n"
		  "[1] \"H-0000000000000002\"[1]\n\n"
		  CA("2") "[1] \"S-0000000000000001\"[1]\n",
		  IBF_ERR_INVALID, 0 },
		/* 19: port listed twice */
		{ SW("1") "[1] \"S-0000000000000001\"[2]\n"
		  "[1] \"S-0000000000000001\"[3]\n",
		  IBF_ERR_INVALID, 3 },
		/* 20: 300 ports */
		{ "Switch 300 \"S-0000000000000001\"\n", IBF_ERR_PARSE, 1 },
		/* 21: LID beyond unicast */
		{ "Switch 4 \"S-0000000000000001\" # \"s\" base port 0 lid 49152 lmc 0\n",
		  IBF_ERR_RANGE, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ibf_fabric_t *f;
		ibf_err_t err;

		if (cases[i].line == 0) {
			/* a whole-fabric problem: "t.txt: ..." */
			assert_int_equal(read_fmt(cases[i].text, IBF_TOPO_AUTO,
						  0, &f, &err), cases[i].st);
			assert_true(strncmp(err.msg, "t.txt: ", 7) == 0);
			continue;
		}
		print_message("case %zu\n", i + 1);
		expect_error(cases[i].text, IBF_TOPO_AUTO, cases[i].st,
			     cases[i].line);
	}
}

/* The brackets and parentheses of a port line: each refused with what
 * was expected, the whole message after "t.txt:2: " checked. */
static void test_port_line_syntax(void **state)
{
	static const struct {
		const char *port_line, *msg;
	} cases[] = {
		{ "[x] \"S-0000000000000001\"[2]", "expected \"[port]\"" },
		{ "[256] \"S-0000000000000001\"[2]", "expected \"[port]\"" },
		{ "[1 \"S-0000000000000001\"[2]", "expected \"[port]\"" },
		{ "[1](zz) \"S-0000000000000001\"[2]",
		  "bad port GUID in parentheses" },
		{ "[1](10 \"S-0000000000000001\"[2]",
		  "bad port GUID in parentheses" },
		{ "[1] \"S-0000000000000001\"[x]",
		  "expected \"[remote port]\"" },
		{ "[1] \"S-0000000000000001\"[2",
		  "expected \"[remote port]\"" },
		{ "[1] \"S-0000000000000001\"",
		  "expected \"[remote port]\" after the remote node id" },
		{ "[1] \"S-0000000000000001\"[2](q)", "bad remote port GUID" },
		{ "[1] \"S-0000000000000001\"[2](1", "bad remote port GUID" },
	};
	char text[256], want[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ibf_fabric_t *f;
		ibf_err_t err;

		snprintf(text, sizeof(text), SW("1") "%s\n",
			 cases[i].port_line);
		snprintf(want, sizeof(want), "t.txt:2: %s", cases[i].msg);
		assert_int_equal(read_fmt(text, IBF_TOPO_IBNETDISCOVER, 0, &f,
					  &err), IBF_ERR_PARSE);
		if (strcmp(err.msg, want))
			fail_msg("'%s': got '%s', want '%s'",
				 cases[i].port_line, err.msg, want);
	}
}

static void test_binary(void **state)
{
	static const char bin[] = "Switch 4 \"S-0000000000000001\"\n\0junk";
	ibf_text_t t;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_text_from_buf(&t, "t.txt", bin, sizeof(bin),
					   &err), IBF_ERR_PARSE);
	assert_true(strncmp(err.msg, "t.txt:2:", 8) == 0);
}

static void test_lst_errors(void **state)
{
	static const char a[] = "{ CA Ports:01 SystemGUID:1 NodeGUID:1 PortGUID:2 VenID:0 DevID:0 Rev:0 {h} LID:0003 PN:01 } ";
	static const char s[] = "{ SW Ports:04 SystemGUID:9 NodeGUID:9 PortGUID:9 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:01 } ";
	static const char s2[] = "{ SW Ports:04 SystemGUID:9 NodeGUID:9 PortGUID:9 VenID:0 DevID:0 Rev:0 {other} LID:0001 PN:02 } ";
	char text[2048];
	ibf_fabric_t *f;
	ibf_err_t err;

	(void)state;
	/* truncated second record */
	snprintf(text, sizeof(text), "%s{ SW Ports:04 SystemGUID:9\n", a);
	expect_error(text, IBF_TOPO_AUTO, IBF_ERR_PARSE, 1);
	/* missing trailer */
	snprintf(text, sizeof(text), "%s%s\n", a, s);
	expect_error(text, IBF_TOPO_AUTO, IBF_ERR_PARSE, 1);
	/* one direction only */
	snprintf(text, sizeof(text), "%s%sPHY=4x LOG=ACT SPD=10\n", a, s);
	expect_error(text, IBF_TOPO_AUTO, IBF_ERR_INVALID, 1);
	/* the same switch described twice differently */
	snprintf(text, sizeof(text),
		 "%s%sPHY=4x LOG=ACT SPD=10\n%s%sPHY=4x LOG=ACT SPD=10\n",
		 a, s, s2, a);
	expect_error(text, IBF_TOPO_AUTO, IBF_ERR_INVALID, 2);
	/* LID 3 with --lmc 1 is not aligned */
	snprintf(text, sizeof(text),
		 "%s%sPHY=4x LOG=ACT SPD=10\n%s%sPHY=4x LOG=ACT SPD=10\n",
		 a, s, s, a);
	assert_int_equal(read_fmt(text, IBF_TOPO_AUTO, 0, &f, &err), IBF_OK);
	assert_link(f, 1, 1, 9, 1, 4, IBF_SPEED_QDR);
	ibf_fabric_destroy(f);
	assert_int_equal(read_fmt(text, IBF_TOPO_AUTO, 1, &f, &err),
			 IBF_ERR_INVALID);
	assert_true(strncmp(err.msg, "t.txt:1: (LMC 1 assumed", 23) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibnd_hand),
		cmocka_unit_test(test_ibnd_bare),
		cmocka_unit_test(test_ibsim_hand),
		cmocka_unit_test(test_ibsim_no_common_rate),
		cmocka_unit_test(test_lst_hand),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_round_trip_ibnd),
		cmocka_unit_test(test_round_trip_ibsim),
		cmocka_unit_test(test_ibsim_losses),
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_dot_escapes),
		cmocka_unit_test(test_write_file),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_port_line_syntax),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_lst_errors),
	};

	return cmocka_run_group_tests_name("topo_io", tests, NULL, NULL);
}
