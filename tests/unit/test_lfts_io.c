/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Routing files: OpenSM's opensm-lfts.dump and opensm.fdbs, ibroute and
 * dump_lfts output, the writer and the error cases.
 *
 * The texts below were produced by OpenSM 3.3.23 (minhop, LMC 1) and
 * infiniband-diags on ibsim's net.2sw2path4hca (Hca records first); the
 * fabric is rebuilt here by hand with the GUIDs and LIDs ibsim and OpenSM
 * gave it:
 *
 *   Hca1 [1]--[1] Switch1 [3]==[3] Switch2 [1]--[1] Hca2
 *   Hca3 [1]--[2]         [5]==[5]         [2]--[1] Hca4
 *
 *   node      node GUID  port GUID  LID(s)
 *   Hca1      0x100000   0x100001   2,3
 *   Hca2      0x100003   0x100004   6,7
 *   Hca3      0x100006   0x100007   8,9
 *   Hca4      0x100009   0x10000a   10,11
 *   Switch1   0x200000              4     (8 ports)
 *   Switch2   0x200001              5     (8 ports)
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

#include <ibflow/lfts_io.h>

#define NP IBF_LFT_NO_PORT

/* The minhop tables, by hand from the switch wiring: index = LID. */
static const uint8_t want_sw1[12] = {
	NP, NP, 1, 1, 0, 3, 3, 5, 2, 2, 5, 3,
};
static const uint8_t want_sw2[12] = {
	NP, NP, 3, 5, 3, 0, 1, 1, 5, 3, 2, 2,
};

static const char osm_dump[] =
	"Unicast lids [0-11] of switch Lid 4 guid 0x0000000000200000 ('Switch1'):\n"
	"0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n"
	"0x0003 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n"
	"0x0004 000 # Switch portguid 0x0000000000200000: 'Switch1'\n"
	"0x0005 003 # Switch portguid 0x0000000000200001: 'Switch2'\n"
	"0x0006 003 # Channel Adapter portguid 0x0000000000100004: 'Hca2'\n"
	"0x0007 005 # Channel Adapter portguid 0x0000000000100004: 'Hca2'\n"
	"0x0008 002 # Channel Adapter portguid 0x0000000000100007: 'Hca3'\n"
	"0x0009 002 # Channel Adapter portguid 0x0000000000100007: 'Hca3'\n"
	"0x000a 005 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n"
	"0x000b 003 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n"
	"11 lids dumped\n"
	"Unicast lids [0-11] of switch Lid 5 guid 0x0000000000200001 ('Switch2'):\n"
	"0x0002 003 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n"
	"0x0003 005 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n"
	"0x0004 003 # Switch portguid 0x0000000000200000: 'Switch1'\n"
	"0x0005 000 # Switch portguid 0x0000000000200001: 'Switch2'\n"
	"0x0006 001 # Channel Adapter portguid 0x0000000000100004: 'Hca2'\n"
	"0x0007 001 # Channel Adapter portguid 0x0000000000100004: 'Hca2'\n"
	"0x0008 005 # Channel Adapter portguid 0x0000000000100007: 'Hca3'\n"
	"0x0009 003 # Channel Adapter portguid 0x0000000000100007: 'Hca3'\n"
	"0x000a 002 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n"
	"0x000b 002 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n"
	"11 lids dumped\n";

static const char dump_lfts_out[] =
	"Unicast lids [0x0-0xb] of switch DR path slid 0; dlid 0; 0,1,3 guid 0x0000000000200001 (Switch2):\n"
	"  Lid  Out   Destination\n"
	"       Port     Info \n"
	"0x0002 003 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n"
	"0x0003 005 : (path #2 out of 2: portguid 0x0000000000100001)\n"
	"0x0004 003 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
	"0x0005 000 : (Switch portguid 0x0000000000200001: 'Switch2')\n"
	"0x0006 001 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')\n"
	"0x0007 001 : (path #2 out of 2: portguid 0x0000000000100004)\n"
	"0x0008 005 : (Channel Adapter portguid 0x0000000000100007: 'Hca3')\n"
	"0x0009 003 : (path #2 out of 2: portguid 0x0000000000100007)\n"
	"0x000a 002 : (Channel Adapter portguid 0x000000000010000a: 'Hca4')\n"
	"0x000b 002 : (path #2 out of 2: portguid 0x000000000010000a)\n"
	"10 valid lids dumped \n"
	"Unicast lids [0x0-0xb] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200000 (Switch1):\n"
	"  Lid  Out   Destination\n"
	"       Port     Info \n"
	"0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n"
	"0x0003 001 : (path #2 out of 2: portguid 0x0000000000100001)\n"
	"0x0004 000 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
	"0x0005 003 : (Switch portguid 0x0000000000200001: 'Switch2')\n"
	"0x0006 003 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')\n"
	"0x0007 005 : (path #2 out of 2: portguid 0x0000000000100004)\n"
	"0x0008 002 : (Channel Adapter portguid 0x0000000000100007: 'Hca3')\n"
	"0x0009 002 : (path #2 out of 2: portguid 0x0000000000100007)\n"
	"0x000a 005 : (Channel Adapter portguid 0x000000000010000a: 'Hca4')\n"
	"0x000b 003 : (path #2 out of 2: portguid 0x000000000010000a)\n"
	"10 valid lids dumped \n"
	"\n"
	"*** WARNING ***: this command has been replaced by dump_fts\n"
	"\n"
	"\n";

static const char ibroute_a_out[] =
	"Unicast lids [0x0-0xb] of switch Lid 4 guid 0x0000000000200000 (Switch1):\n"
	"  Lid  Out   Destination\n"
	"       Port     Info \n"
	"0x0000 255 : (path #0 - illegal port)\n"
	"0x0001 255 : (illegal port)\n"
	"0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n"
	"0x0003 001 : (path #2 out of 2: portguid 0x0000000000100001)\n"
	"0x0004 000 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
	"0x0005 003 : (Switch portguid 0x0000000000200001: 'Switch2')\n"
	"0x0006 003 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')\n"
	"0x0007 005 : (path #2 out of 2: portguid 0x0000000000100004)\n"
	"0x0008 002 : (Channel Adapter portguid 0x0000000000100007: 'Hca3')\n"
	"0x0009 002 : (path #2 out of 2: portguid 0x0000000000100007)\n"
	"0x000a 005 : (Channel Adapter portguid 0x000000000010000a: 'Hca4')\n"
	"0x000b 003 : (path #2 out of 2: portguid 0x000000000010000a)\n"
	"12 lids dumped \n";

static const char ibroute_n_out[] =
	"Unicast lids [0x0-0xb] of switch Lid 5 guid 0x0000000000200001 (Switch2):\n"
	"  Lid  Out   Destination\n"
	"       Port     Info \n"
	"0x0002 003 \n"
	"0x0003 005 \n"
	"0x0004 003 \n"
	"0x0005 000 \n"
	"0x0006 001 \n"
	"0x0007 001 \n"
	"0x0008 005 \n"
	"0x0009 003 \n"
	"0x000a 002 \n"
	"0x000b 002 \n"
	"10 valid lids dumped \n";

static const char fdbs_out[] =
	"dump_ucast_routes: Switch 0x0000000000200000\n"
	"LID    : Port : Hops : Optimal\n"
	"0x0001 : UNREACHABLE\n"
	"0x0002 : 001  : 01   : yes\n"
	"0x0003 : 001  : 01   : yes\n"
	"0x0004 : 000  : 00   : yes\n"
	"0x0005 : 003  : 01   : yes\n"
	"0x0006 : 003  : 02   : yes\n"
	"0x0007 : 005  : 02   : yes\n"
	"0x0008 : 002  : 01   : yes\n"
	"0x0009 : 002  : 01   : yes\n"
	"0x000A : 005  : 02   : yes\n"
	"0x000B : 003  : 02   : yes\n"
	"dump_ucast_routes: Switch 0x0000000000200001\n"
	"LID    : Port : Hops : Optimal\n"
	"0x0001 : UNREACHABLE\n"
	"0x0002 : 003  : 02   : yes\n"
	"0x0003 : 005  : 02   : yes\n"
	"0x0004 : 003  : 01   : yes\n"
	"0x0005 : 000  : 00   : yes\n"
	"0x0006 : 001  : 01   : yes\n"
	"0x0007 : 001  : 01   : yes\n"
	"0x0008 : 005  : 02   : yes\n"
	"0x0009 : 003  : 02   : yes\n"
	"0x000A : 002  : 01   : yes\n"
	"0x000B : 002  : 01   : yes\n";

struct fx {
	ibf_fabric_t *f;
	uint32_t sw1, sw2; /* switch indices */
};

static void add_ca(ibf_fabric_t *f, const char *desc, uint64_t guid,
		   unsigned lid, ibf_node_id_t sw, unsigned swport)
{
	ibf_node_id_t n;
	ibf_err_t err;

	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, guid, desc, 2,
					     &n, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(f, n, 1, guid + 1, lid, 1, &err),
			 IBF_OK);
	assert_int_equal(ibf_fabric_link(f, n, 1, sw, swport, 4,
					 IBF_SPEED_SDR, &err), IBF_OK);
}

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	ibf_node_id_t s1, s2;
	ibf_err_t err;

	assert_non_null(x);
	assert_int_equal(ibf_fabric_create(&x->f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(x->f, IBF_NODE_SWITCH, 0x200000,
					     "Switch1", 8, &s1, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(x->f, IBF_NODE_SWITCH, 0x200001,
					     "Switch2", 8, &s2, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(x->f, s1, 0, 0x200000, 4, 0,
					     &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(x->f, s2, 0, 0x200001, 5, 0,
					     &err), IBF_OK);
	add_ca(x->f, "Hca1", 0x100000, 2, s1, 1);
	add_ca(x->f, "Hca2", 0x100003, 6, s2, 1);
	add_ca(x->f, "Hca3", 0x100006, 8, s1, 2);
	add_ca(x->f, "Hca4", 0x100009, 10, s2, 2);
	assert_int_equal(ibf_fabric_link(x->f, s1, 3, s2, 3, 4, IBF_SPEED_SDR,
					 &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(x->f, s1, 5, s2, 5, 4, IBF_SPEED_SDR,
					 &err), IBF_OK);
	assert_int_equal(ibf_fabric_finalize(x->f, NULL, &err), IBF_OK);
	assert_int_equal(x->f->lid_top, 11);
	assert_int_equal(x->f->nswitches, 2);
	x->sw1 = x->f->switch_index[s1];
	x->sw2 = x->f->switch_index[s2];
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	ibf_fabric_destroy(x->f);
	free(x);
	return 0;
}

static ibf_status_t parse(const struct fx *x, const char *text,
			  ibf_lfts_t **l, ibf_err_t *err)
{
	ibf_text_t t;
	ibf_status_t st;

	ibf_err_clear(err);
	assert_int_equal(ibf_text_from_buf(&t, "in.dump", text, strlen(text),
					   err), IBF_OK);
	st = ibf_lfts_read_text(x->f, &t, l, err);
	ibf_text_free(&t);
	if (st != IBF_OK)
		assert_null(*l);
	return st;
}

static void assert_row(const ibf_lfts_t *l, uint32_t sw, const uint8_t *want)
{
	unsigned lid;

	assert_true(l->has_table[sw]);
	for (lid = 0; lid < 12; lid++) {
		if (ibf_lfts_get(l, sw, lid) != want[lid])
			fail_msg("switch %u LID %u: port %u, want %u", sw, lid,
				 ibf_lfts_get(l, sw, lid), want[lid]);
	}
}

static void assert_both(const struct fx *x, const char *text)
{
	ibf_lfts_t *l = NULL;
	ibf_err_t err;

	if (parse(x, text, &l, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_row(l, x->sw1, want_sw1);
	assert_row(l, x->sw2, want_sw2);
	ibf_lfts_destroy(l);
}

static void test_opensm_dump(void **state)
{
	assert_both(*state, osm_dump);
}

static void test_dump_lfts(void **state)
{
	assert_both(*state, dump_lfts_out);
}

static void test_opensm_fdbs(void **state)
{
	assert_both(*state, fdbs_out);
}

/* ibroute -a lists unrouted LIDs as port 255; ibroute -n has no comments.
 * Each names one switch: the other keeps has_table 0. */
static void test_ibroute_single_switch(void **state)
{
	struct fx *x = *state;
	ibf_lfts_t *l = NULL;
	ibf_err_t err;

	if (parse(x, ibroute_a_out, &l, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_row(l, x->sw1, want_sw1);
	assert_false(l->has_table[x->sw2]);
	ibf_lfts_destroy(l);
	if (parse(x, ibroute_n_out, &l, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_row(l, x->sw2, want_sw2);
	assert_false(l->has_table[x->sw1]);
	ibf_lfts_destroy(l);
}

/* Two ibroute runs over LID ranges of one switch, concatenated. */
static void test_ibroute_ranges(void **state)
{
	static const char text[] =
		"Unicast lids [0x2-0x5] of switch Lid 4 guid 0x0000000000200000 (Switch1):\n"
		"0x0002 001 : (x)\n"
		"0x0005 003 : (x)\n"
		"2 valid lids dumped \n"
		"Unicast lids [0x6-0xb] of switch Lid 4 guid 0x0000000000200000 (Switch1):\n"
		"0x000b 003\n"
		"1 valid lids dumped\n";
	struct fx *x = *state;
	ibf_lfts_t *l = NULL;
	ibf_err_t err;

	if (parse(x, text, &l, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(ibf_lfts_get(l, x->sw1, 2), 1);
	assert_int_equal(ibf_lfts_get(l, x->sw1, 5), 3);
	assert_int_equal(ibf_lfts_get(l, x->sw1, 11), 3);
	assert_int_equal(ibf_lfts_get(l, x->sw1, 3), NP);
	assert_int_equal(ibf_lfts_get(l, x->sw1, 6), NP);
	ibf_lfts_destroy(l);
}

/* Our writer must reproduce OpenSM's own dump byte for byte. */
static void test_write_matches_opensm(void **state)
{
	struct fx *x = *state;
	ibf_lfts_t *l = NULL;
	ibf_err_t err;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	if (parse(x, osm_dump, &l, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(ibf_lfts_write(l, fp, &err), IBF_OK);
	fclose(fp);
	assert_string_equal(buf, osm_dump);
	free(buf);
	ibf_lfts_destroy(l);
}

/* Tables built by hand (with holes and one switch without a table) are
 * written and read back unchanged, through a real file. */
static void test_round_trip(void **state)
{
	struct fx *x = *state;
	ibf_lfts_t *l, *r = NULL;
	char path[] = "/tmp/test_lfts_io.XXXXXX";
	ibf_err_t err;
	unsigned lid;
	int fd;

	assert_int_equal(ibf_lfts_create(x->f, &l), IBF_OK);
	for (lid = 1; lid <= 11; lid++)
		if (lid != 7)
			ibf_lfts_set(l, x->sw2, lid, (uint8_t)(lid % 9));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ibf_lfts_write_file(l, path, &err), IBF_OK);
	if (ibf_lfts_read(x->f, path, &r, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	unlink(path);
	assert_false(r->has_table[x->sw1]);
	assert_true(r->has_table[x->sw2]);
	assert_int_equal(r->stride, l->stride);
	assert_memory_equal(r->port, l->port, (size_t)l->nswitches * l->stride);
	for (lid = 1; lid <= 11; lid++)
		assert_int_equal(ibf_lfts_get(r, x->sw2, lid),
				 lid == 7 ? NP : lid % 9);
	ibf_lfts_destroy(l);
	ibf_lfts_destroy(r);
}

/* OpenSM 3.3.23 wrote a 4-switch fabric (ibsim switchguid= lines, updn)
 * in this order: leaf2, spine1, spine2, leaf1.  Our writer must agree. */
static void test_write_switch_order(void **state)
{
	static const struct { const char *desc; uint64_t guid; unsigned lid; }
	sw[] = {
		{ "leaf1", 0x2000ff, 10 },
		{ "spine1", 0x200100, 3 },
		{ "leaf2", 0x0100000000200000ull, 2 },
		{ "spine2", 0x200200, 4 },
	};
	static const char *const want[] = {
		"guid 0x0100000000200000 ('leaf2')",
		"guid 0x0000000000200100 ('spine1')",
		"guid 0x0000000000200200 ('spine2')",
		"guid 0x00000000002000ff ('leaf1')",
	};
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	ibf_err_t err;
	char *buf = NULL;
	const char *at;
	size_t len = 0;
	unsigned i;
	FILE *fp;

	(void)state;
	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (i = 0; i < 4; i++) {
		ibf_node_id_t n;

		assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH,
						     sw[i].guid, sw[i].desc, 8,
						     &n, &err), IBF_OK);
		assert_int_equal(ibf_fabric_set_port(f, n, 0, sw[i].guid,
						     sw[i].lid, 0, &err),
				 IBF_OK);
	}
	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
	assert_int_equal(ibf_lfts_create(f, &l), IBF_OK);
	for (i = 0; i < 4; i++)
		ibf_lfts_set(l, i, sw[i].lid, 0);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(ibf_lfts_write(l, fp, &err), IBF_OK);
	fclose(fp);
	for (at = buf, i = 0; i < 4; i++) {
		at = strstr(at, want[i]);
		if (!at)
			fail_msg("\"%s\" missing or out of order in:\n%s",
				 want[i], buf);
	}
	free(buf);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
}

/* ---- errors ------------------------------------------------------------- */

#define HDR1 "Unicast lids [0-11] of switch Lid 4 guid 0x0000000000200000 ('Switch1'):\n"
#define HDR2 "Unicast lids [0-11] of switch Lid 5 guid 0x0000000000200001 ('Switch2'):\n"

static void expect_error(const struct fx *x, const char *text,
			 ibf_status_t want_st, unsigned line,
			 const char *substr)
{
	ibf_lfts_t *l = (ibf_lfts_t *)1;
	char prefix[64];
	ibf_err_t err;
	ibf_status_t st = parse(x, text, &l, &err);

	if (st != want_st)
		fail_msg("status %s, want %s (%s)", ibf_status_str(st),
			 ibf_status_str(want_st), err.msg);
	snprintf(prefix, sizeof(prefix), "in.dump:%u: ", line);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0 ||
	    !strstr(err.msg, substr))
		fail_msg("message \"%s\", want \"%s...%s...\"", err.msg, prefix,
			 substr);
}

static void test_errors(void **state)
{
	struct fx *x = *state;

	expect_error(x, HDR1 "0x0002 001\n11 lids dumped\n"
		     "Unicast lids [0-11] of switch Lid 9 guid 0x0000000000300000 ('X'):\n",
		     IBF_ERR_NOT_FOUND, 4, "0x0000000000300000");
	expect_error(x, "Unicast lids [0-11] of switch Lid 2 guid 0x0000000000100000 ('Hca1'):\n",
		     IBF_ERR_INVALID, 1, "not a switch");
	expect_error(x, HDR1 "0x0002 001\n0x0003 009 # port 9 of 8\n",
		     IBF_ERR_NOT_FOUND, 3, "no port 9");
	expect_error(x, "Unicast lids [0-12] of switch Lid 4 guid 0x0000000000200000 ('Switch1'):\n"
		     "0x000c 001\n",
		     IBF_ERR_NOT_FOUND, 2, "LID 12 not in topology");
	expect_error(x, HDR1 "0x0000 002\n", IBF_ERR_NOT_FOUND, 2,
		     "LID 0 not in topology");
	expect_error(x, HDR1 "0x000c 001\n", IBF_ERR_PARSE, 2,
		     "outside the header's range");
	expect_error(x, HDR1 "0x0002 001\n0x0003\n", IBF_ERR_PARSE, 3,
		     "out port");
	expect_error(x, HDR1 "0x0002 001\n0x00", IBF_ERR_PARSE, 3, "LID");
	expect_error(x, HDR1 "0x0002 0x01\n", IBF_ERR_PARSE, 2, "junk");
	expect_error(x, HDR1 "0x0002 256\n", IBF_ERR_PARSE, 2, "out port");
	expect_error(x, HDR1 "0x0002 001 xyz\n", IBF_ERR_PARSE, 2, "junk");
	expect_error(x, HDR1 "0x0002 001\nhello\n", IBF_ERR_PARSE, 3,
		     "unrecognized");
	expect_error(x, HDR1 "0x0002 001\n0x0004 000\n0x0002 003\n",
		     IBF_ERR_INVALID, 4,
		     "LID 2 of switch \"Switch1\" is given twice");
	expect_error(x, HDR1 "0x0002 001\n1 valid lids dumped\n" HDR1
		     "0x0002 001\n", IBF_ERR_INVALID, 5, "twice");
	expect_error(x, "\n0x0002 001 # before any header\n", IBF_ERR_PARSE, 2,
		     "outside any switch table");
	expect_error(x, HDR1 "0x0002 001\n11 lids dumped\n0x0003 001\n",
		     IBF_ERR_PARSE, 4, "outside any switch table");
	/* Cut short: the footer is missing (reported at the last line). */
	expect_error(x, HDR1 "0x0002 001\n0x0003 001\n", IBF_ERR_PARSE, 3,
		     "no \"N lids dumped\" footer");
	expect_error(x, HDR1 "0x0002 001\n" HDR2, IBF_ERR_PARSE, 3,
		     "header at line 1");
	expect_error(x, HDR1 "0x0002 001\n0x0003 001\n5 lids dumped\n",
		     IBF_ERR_PARSE, 4, "footer says 5");
	expect_error(x, HDR1 "0x0002 001\n0x0003 255\n2 valid lids dumped\n",
		     IBF_ERR_PARSE, 4, "footer says 2 valid");
	expect_error(x, "12 lids dumped\n", IBF_ERR_PARSE, 1, "footer outside");
	expect_error(x, "Unicast lids [0-11] of switch Lid 4 guid 0x00000000002g0000 ('S'):\n",
		     IBF_ERR_PARSE, 1, "GUID");
	expect_error(x, "Unicast lids [0-11] of switch Lid 4 ('S'):\n",
		     IBF_ERR_PARSE, 1, "guid");
	expect_error(x, "Unicast lids 0-11 of switch\n", IBF_ERR_PARSE, 1,
		     "malformed");
	expect_error(x, "dump_ucast_routes: Switch 0x0000000000200000\n"
		     "0x0001 : UNREACHABLE\n0x0002 : 001 : 01 : yes\n"
		     "0x0003 :\n", IBF_ERR_PARSE, 4, "UNREACHABLE");
	expect_error(x, "dump_ucast_routes: Switch 0x0000000000200000\n"
		     "0x0003 : 001\n0x0003 : 002\n", IBF_ERR_INVALID, 3,
		     "twice");
}

static void test_empty_input(void **state)
{
	struct fx *x = *state;
	ibf_lfts_t *l = NULL;
	ibf_err_t err;

	assert_int_equal(parse(x, "", &l, &err), IBF_ERR_PARSE);
	assert_string_equal(err.msg, "in.dump: no forwarding table found");
	assert_int_equal(parse(x, "# nothing\n\n", &l, &err), IBF_ERR_PARSE);
}

/* A port-255 entry beyond the fabric's LIDs is no route, not an error. */
static void test_unrouted_beyond_top(void **state)
{
	static const char text[] =
		"Unicast lids [0x0-0x20] of switch Lid 4 guid 0x0000000000200000 (Switch1):\n"
		"0x0002 001\n0x0020 255\n2 lids dumped\n";
	struct fx *x = *state;
	ibf_lfts_t *l = NULL;
	ibf_err_t err;

	if (parse(x, text, &l, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(ibf_lfts_get(l, x->sw1, 2), 1);
	ibf_lfts_destroy(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opensm_dump),
		cmocka_unit_test(test_dump_lfts),
		cmocka_unit_test(test_opensm_fdbs),
		cmocka_unit_test(test_ibroute_single_switch),
		cmocka_unit_test(test_ibroute_ranges),
		cmocka_unit_test(test_write_matches_opensm),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_write_switch_order),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_unrouted_beyond_top),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
