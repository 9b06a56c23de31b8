/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibsim net file writer.  The reader is shared with ibnetdiscover output
 * (topo_ibnetdiscover.c), since ibsim reads that syntax.
 *
 * What ibsim (0.10, the version on Debian 12) does with a file, and so what
 * the writer relies on: a "switchguid=/caguid=/rtguid=" line sets the GUID
 * of the next node of that type; CA port GUIDs are NodeGUID + port; the
 * NodeDescription is the quoted string after '#' on the header; "lid N lmc
 * M" on a switch header or before the first quote of a CA port comment
 * preset LIDs (OpenSM keeps them on its first sweep); the last "lid N 4xQDR"
 * of a port line enables that rate on the port.  The first node's port 1
 * (port 0 of a switch) is the default port of ibsim's clients: OpenSM binds
 * to it, and if that port is not cabled it finds its port down and spins.
 * So the first node written is one whose port 1 is cabled - a CA if there
 * is one, so OpenSM runs from a host - and the header says which.
 */
#include <ibflow/topo_io.h>

#include <inttypes.h>

#include "formats/topo_internal.h"

static void write_node(const ibf_fabric_t *f, ibf_node_id_t n, FILE *fp)
{
	const ibf_node_t *node = ibf_node(f, n);
	const ibf_port_t *p0 = ibf_node_port(f, n, 0);
	bool sw = node->type == IBF_NODE_SWITCH;
	char id[32], rid[32];
	unsigned p;

	ibf_topo_node_id(f, n, id, sizeof(id));
	if (sw) {
		fprintf(fp, "switchguid=0x%" PRIx64 "\n", node->guid);
		fprintf(fp, "Switch\t%u \"%s\"\t# \"%s\" %s port 0 lid %u "
			"lmc %u\n", node->nports, id, ibf_node_desc(f, n),
			node->enhanced_port0 ? "enhanced" : "base", p0->lid,
			p0->lmc);
	} else {
		bool ca = node->type == IBF_NODE_CA;

		fprintf(fp, "%s=0x%" PRIx64 "\n", ca ? "caguid" : "rtguid",
			node->guid);
		fprintf(fp, "%s\t%u \"%s\"\t# \"%s\"\n", ca ? "Hca" : "Rt",
			node->nports, id, ibf_node_desc(f, n));
	}
	for (p = 1; p <= node->nports; p++) {
		const ibf_port_t *pt = ibf_node_port(f, n, p), *peer;

		if (pt->peer == IBF_NO_ID)
			continue;
		peer = ibf_port(f, pt->peer);
		ibf_topo_node_id(f, peer->node, rid, sizeof(rid));
		fprintf(fp, "[%u]\t\"%s\"[%u]\t# ", p, rid, peer->num);
		if (!sw)
			fprintf(fp, "lid %u lmc %u ", pt->lid, pt->lmc);
		/* ibsim scans the whole port line for "w=" style options, so
		 * the peer's description (which may hold '=') is left out;
		 * the empty quotes keep ibsim's "lid N 4xQDR" match after
		 * our own "lid N lmc M". */
		ibf_topo_print_peer(f, pt, "", fp);
	}
	fputc('\n', fp);
}

/* CA ports whose GUID is not the NodeGUID + port that ibsim will give. */
static unsigned lost_port_guids(const ibf_fabric_t *f)
{
	unsigned lost = 0, p;
	ibf_node_id_t n;

	for (n = 0; n < f->nnodes; n++) {
		const ibf_node_t *node = ibf_node(f, n);

		if (node->type == IBF_NODE_SWITCH)
			continue;
		for (p = 1; p <= node->nports; p++)
			lost += ibf_node_port(f, n, p)->guid != node->guid + p;
	}
	return lost;
}

bool ibf_topo_ibsim_can_run_sm(const ibf_fabric_t *f, ibf_node_id_t n)
{
	return ibf_node_is_switch(f, n) ||
	       ibf_node_port(f, n, 1)->peer != IBF_NO_ID;
}

/* The node to write first, where OpenSM will run: the first CA with port 1
 * cabled, else the first switch; IBF_NO_ID if no node can carry the SM. */
static ibf_node_id_t sm_node(const ibf_fabric_t *f)
{
	ibf_node_id_t n;

	for (n = 0; n < f->nnodes; n++)
		if (!ibf_node_is_switch(f, n) &&
		    ibf_node_port(f, n, 1)->peer != IBF_NO_ID)
			return n;
	for (n = 0; n < f->nnodes; n++)
		if (ibf_node_is_switch(f, n))
			return n;
	return IBF_NO_ID;
}

static void write_sm_note(const ibf_fabric_t *f, ibf_node_id_t sm, FILE *fp)
{
	if (sm == IBF_NO_ID) {
		fprintf(fp, "# no node has port 1 cabled and there is no "
			"switch: OpenSM on ibsim finds its port down\n");
		return;
	}
	fprintf(fp, "# OpenSM runs from the first node: \"%s\" (0x%016" PRIx64
		") port %u\n", ibf_node_desc(f, sm), ibf_node(f, sm)->guid,
		ibf_node_is_switch(f, sm) ? 0 : 1);
}

ibf_status_t ibf_topo_write_ibsim(const ibf_fabric_t *f, FILE *fp,
				  ibf_err_t *err)
{
	return ibf_topo_write_ibsim_sm(f, IBF_NO_ID, fp, err);
}

ibf_status_t ibf_topo_write_ibsim_sm(const ibf_fabric_t *f,
				     ibf_node_id_t sm, FILE *fp,
				     ibf_err_t *err)
{
	ibf_node_id_t n;
	ibf_status_t st;
	unsigned lost = lost_port_guids(f);
	int pass;

	if (sm == IBF_NO_ID)
		sm = sm_node(f);
	else if (sm >= f->nnodes || !ibf_topo_ibsim_can_run_sm(f, sm))
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "\"%s\" cannot carry the SM on ibsim: "
				   "OpenSM binds to its port 1, which is not "
				   "cabled", sm < f->nnodes ?
				   ibf_node_desc(f, sm) : "?");

	for (n = 0; n < f->nnodes; n++)
		if ((st = ibf_topo_check_desc(f, n, "ibsim", err)) != IBF_OK)
			return st;
	fprintf(fp, "# ibsim net file written by ibflow (%u nodes, %u "
		"switches, %u endpoints)\n# run: ibsim -s FILE\n", f->nnodes,
		f->nswitches, f->nendpoints);
	write_sm_note(f, sm, fp);
	if (lost)
		fprintf(fp, "# note: %u CA port GUIDs differ from NodeGUID + "
			"port; ibsim cannot carry them\n", lost);
	fputc('\n', fp);
	if (sm != IBF_NO_ID)
		write_node(f, sm, fp);
	for (pass = 0; pass < 2; pass++)
		for (n = 0; n < f->nnodes; n++)
			if (n != sm && ibf_node_is_switch(f, n) == (pass == 1))
				write_node(f, n, fp);
	return IBF_OK;
}
