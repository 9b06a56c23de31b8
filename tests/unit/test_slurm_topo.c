/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Slurm's topology.conf of a fabric (slurm_topo.h) on a hand-made one
 * that is no PGFT, so levels come from hop distance: a host with an HCA
 * on each of two leaves (on both lines, once each), two CAs cabled to
 * each other (on no switch: a comment), a switch without links (no host
 * below it: left out), and the host map's errors with FILE:LINE.  The
 * expected files are written out by hand.  slurmctld reads the PGFT
 * cases in tests/integration/slurm_topology.sh.
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

#include <ibflow/slurm_topo.h>

static ibf_fabric_t *hand_fabric(void)
{
	static const struct { uint64_t guid; const char *desc; } ca[] = {
		{ 0x1000, "a HCA-1" }, { 0x1100, "a HCA-2" },
		{ 0x1200, "b HCA-1" }, { 0x1300, "c HCA-1" },
		{ 0x1400, "d HCA-1" },
	};
	ibf_node_id_t sw[4], n[5];
	ibf_fabric_t *f;
	ibf_err_t err;
	unsigned i;

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (i = 0; i < 4; i++)
		assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH,
				 0x9000 + 0x100 * i, "sw", 8, &sw[i], &err),
				 IBF_OK);
	for (i = 0; i < 5; i++)
		assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA,
				 ca[i].guid, ca[i].desc, 1, &n[i], &err),
				 IBF_OK);
	/* leaves sw0, sw1 under sw2; sw3 alone */
	assert_int_equal(ibf_fabric_link(f, sw[0], 8, sw[2], 1, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, sw[1], 8, sw[2], 2, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, n[0], 1, sw[0], 1, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, n[1], 1, sw[1], 1, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, n[2], 1, sw[0], 2, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, n[3], 1, n[4], 1, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	if (ibf_fabric_finalize(f, NULL, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	return f;
}

/* The file of f under the maps (NULL: none), compared with want. */
static void writes(const ibf_fabric_t *f, const char *host_map,
		   const char *want)
{
	ibf_slurm_names_t names;
	ibf_slurm_topo_t t;
	char *got = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&got, &len);
	ibf_err_t err;

	assert_non_null(fp);
	assert_int_equal(ibf_slurm_names_init(f, &names, &err), IBF_OK);
	if (host_map &&
	    ibf_slurm_read_host_map(f, host_map, &names, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	if (ibf_slurm_topo_build(f, &names, &t, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(ibf_slurm_topo_write(&t, fp, &err), IBF_OK);
	fclose(fp);
	assert_string_equal(got, want);
	free(got);
	ibf_slurm_topo_free(&t);
	ibf_slurm_names_free(&names);
}

#define HEAD "# Slurm topology.conf (TopologyPlugin=topology/tree), " \
	     "written by ibflow slurm-topology:\n"
#define TAIL(off) "# 2 hosts on no switch, left out (every node of the " \
	"tree must be on a switch): " off "\n# 1 switch with no host " \
	"below, left out (Slurm refuses a switch without children)\n"

static void test_hand(void **state)
{
	ibf_fabric_t *f = hand_fabric();

	(void)state;
	writes(f, NULL, HEAD
	       "# 3 switches on 2 levels (hop distance from the hosts), 2 hosts\n"
	       "SwitchName=S-0000000000009000 Nodes=a,b\n"
	       "SwitchName=S-0000000000009100 Nodes=a\n"
	       "SwitchName=S-0000000000009200 Switches=S-0000000000009000,"
	       "S-0000000000009100\n" TAIL("c,d"));
	ibf_fabric_destroy(f);
}

static char *map_file(const char *text)
{
	char *path = strdup("/tmp/ibf-test-map-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_host_map(void **state)
{
	ibf_fabric_t *f = hand_fabric();
	char *ok = map_file("# names\na node-01\n0x0000000000001300 node-03\n");

	(void)state;
	writes(f, ok, HEAD
	       "# 3 switches on 2 levels (hop distance from the hosts), 2 hosts\n"
	       "SwitchName=S-0000000000009000 Nodes=b,node-01\n"
	       "SwitchName=S-0000000000009100 Nodes=node-01\n"
	       "SwitchName=S-0000000000009200 Switches=S-0000000000009000,"
	       "S-0000000000009100\n" TAIL("d,node-03"));
	unlink(ok);
	free(ok);
	ibf_fabric_destroy(f);
}

/* A map's error: its status and the message's text after the path. */
static void map_fails(const char *text, ibf_status_t st, const char *want)
{
	ibf_fabric_t *f = hand_fabric();
	char *path = map_file(text);
	ibf_slurm_names_t names;
	ibf_err_t err;

	assert_int_equal(ibf_slurm_names_init(f, &names, &err), IBF_OK);
	assert_int_equal(ibf_slurm_read_host_map(f, path, &names, &err), st);
	assert_string_equal(err.msg + strlen(path), want);
	ibf_slurm_names_free(&names);
	unlink(path);
	free(path);
	ibf_fabric_destroy(f);
}

static void test_map_errors(void **state)
{
	(void)state;
	map_fails("a x\n\nzz y\n", IBF_ERR_NOT_FOUND, ":3: unknown host 'zz': "
		  "no CA's NodeDescription begins with it, nor is it a CA's "
		  "NodeGUID");
	map_fails("a x\nb x\n", IBF_ERR_INVALID, ":2: Slurm name 'x' of b is "
		  "already a's (line 1)");
	map_fails("a x\na y\n", IBF_ERR_INVALID, ":2: host 'a' is named twice");
	map_fails("a\n", IBF_ERR_PARSE, ":1: expected a host and its Slurm "
		  "name");
	map_fails("a x,y\n", IBF_ERR_INVALID, ":1: a: name 'x,y' is not one "
		  "Slurm reads back as written (only letters, digits, '-', "
		  "'_', '.')");
}

/* Names of two hosts made equal by a map: the clash is named. */
static void test_clash(void **state)
{
	ibf_fabric_t *f = hand_fabric();
	char *path = map_file("c b\n");
	ibf_slurm_names_t names;
	ibf_slurm_topo_t t;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_slurm_names_init(f, &names, &err), IBF_OK);
	assert_int_equal(ibf_slurm_read_host_map(f, path, &names, &err),
			 IBF_OK);
	assert_int_equal(ibf_slurm_topo_build(f, &names, &t, &err),
			 IBF_ERR_INVALID);
	assert_string_equal(err.msg, "b and c are both named 'b'");
	ibf_slurm_names_free(&names);
	unlink(path);
	free(path);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_host_map),
		cmocka_unit_test(test_map_errors),
		cmocka_unit_test(test_clash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
