/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibf_mcjoin [MGID]: join a multicast group as a full member, from the
 * port libibumad opens (under ibsim's libumad2sim: the node SIM_HOST
 * names), by an SA MCMemberRecord Set to the SM - what IPoIB does when an
 * interface comes up.  The default MGID is IPoIB's broadcast group of the
 * default partition, which OpenSM creates at start.  Prints the group's
 * MLID ("mlid 0xc000"); exit 0 on success, 1 when the SA refused or did
 * not answer, 2 on a usage error.  A test tool: OpenSM's multicast
 * routing is judged from the tables it programs after such joins.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/umad_types.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>

#define MAD_LEN 256
#define DEFAULT_MGID "ff12:401b:ffff::ffff:ffff"

/* The join: MGID, PortGID and JoinState are all OpenSM needs for an
 * existing group. */
static void build_join(struct umad_sa_packet *sa, const uint8_t mgid[16],
		       const umad_port_t *port)
{
	struct umad_sa_mcmember_record *mc = (void *)sa->data;

	memset(sa, 0, sizeof(*sa));
	sa->mad_hdr.base_version = UMAD_BASE_VERSION;
	sa->mad_hdr.mgmt_class = UMAD_CLASS_SUBN_ADM;
	sa->mad_hdr.class_version = UMAD_SA_CLASS_VERSION;
	sa->mad_hdr.method = UMAD_METHOD_SET;
	sa->mad_hdr.tid = htobe64(0x1bf0000000000000ULL | (uint64_t)getpid());
	sa->mad_hdr.attr_id = htons(UMAD_SA_ATTR_MCMEMBER_REC);
	sa->comp_mask = htobe64(UMAD_SA_MCM_COMP_MASK_MGID |
				UMAD_SA_MCM_COMP_MASK_PORT_GID |
				UMAD_SA_MCM_COMP_MASK_JOIN_STATE);
	memcpy(mc->mgid, mgid, 16);
	memcpy(mc->portgid, &port->gid_prefix, 8);
	memcpy(mc->portgid + 8, &port->port_guid, 8);
	mc->scope_state = UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER;
}

static int join(const uint8_t mgid[16])
{
	umad_port_t port;
	void *umad;
	struct umad_sa_packet *sa;
	int fd, agent, len = MAD_LEN;

	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "ibf_mcjoin: no umad port\n");
		return 1;
	}
	fd = umad_open_port(NULL, 0);
	agent = fd < 0 ? -1 : umad_register(fd, UMAD_CLASS_SUBN_ADM,
					    UMAD_SA_CLASS_VERSION, 0, NULL);
	umad = umad_alloc(1, umad_size() + MAD_LEN);
	if (agent < 0 || !umad) {
		fprintf(stderr, "ibf_mcjoin: cannot register an SA agent\n");
		return 1;
	}
	sa = umad_get_mad(umad);
	build_join(sa, mgid, &port);
	umad_set_addr(umad, port.sm_lid, 1, port.sm_sl, UMAD_QKEY);
	if (umad_send(fd, agent, umad, MAD_LEN, 1000, 3) < 0 ||
	    umad_recv(fd, umad, &len, 5000) < 0 || umad_status(umad)) {
		fprintf(stderr, "ibf_mcjoin: no answer from the SA\n");
		return 1;
	}
	sa = umad_get_mad(umad);
	if (sa->mad_hdr.status) {
		fprintf(stderr, "ibf_mcjoin: SA status 0x%04x\n",
			ntohs(sa->mad_hdr.status));
		return 1;
	}
	printf("mlid 0x%04x\n",
	       ntohs(((struct umad_sa_mcmember_record *)sa->data)->mlid));
	umad_free(umad);
	umad_close_port(fd);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t mgid[16];
	const char *s = argc > 1 ? argv[1] : DEFAULT_MGID;

	if (argc > 2 || inet_pton(AF_INET6, s, mgid) != 1) {
		fprintf(stderr, "usage: ibf_mcjoin [MGID]\n");
		return 2;
	}
	return join(mgid);
}
