/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Helpers shared by the subcommands: loading inputs. */
#include <stdio.h>

#include <ibflow/export.h>

#include "cli.h"

#define EXPORT_TRIES 5	 /* a newer export being written: wait and retry */
#define EXPORT_NAP_MS 200

int ibf_cli_load_export(const char *cmd, const char *dir, ibf_export_t **e)
{
	const ibf_export_retry_t rt = { EXPORT_TRIES, EXPORT_NAP_MS };
	ibf_err_t err;

	if (ibf_export_load_retry(dir, &rt, e, &err) == IBF_OK)
		return IBF_EXIT_OK;
	return ibf_cli_fail(cmd, &err);
}

void ibf_cli_note_lids(const char *cmd, const char *path,
		       const ibf_fabric_t *f)
{
	const ibf_port_t *sm;

	if (ibf_fabric_note(f)[0])
		fprintf(stderr, "ibflow %s: warning: %s\n", cmd,
			ibf_fabric_note(f));
	if (!f->lids_assumed || f->sm_port == IBF_NO_ID)
		return;
	sm = ibf_port(f, f->sm_port);
	fprintf(stderr, "ibflow %s: note: %s carries no LIDs: assuming the "
		"ones OpenSM 3.3 gives on a first sweep from \"%s\" port %u "
		"(the first node) with no guid2lid cache; where the SM runs "
		"elsewhere, read the LIDs back (opensm-subnet.lst, "
		"ibnetdiscover)\n", cmd, path, ibf_node_desc(f, sm->node),
		sm->num);
}

ibf_fabric_t *ibf_cli_load_topo(const char *cmd, const char *path,
				unsigned lmc)
{
	ibf_topo_read_opts_t opts = { .format = IBF_TOPO_AUTO, .lmc = lmc };
	ibf_fabric_t *f = NULL;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_topo_read(path, &opts, &f, &err) != IBF_OK) {
		ibf_cli_fail(cmd, &err);
		return NULL;
	}
	ibf_cli_note_lids(cmd, path, f);
	return f;
}

ibf_lfts_t *ibf_cli_load_lfts(const char *cmd, const ibf_fabric_t *f,
			      const char *path)
{
	ibf_lfts_t *l = NULL;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_lfts_read(f, path, &l, &err) != IBF_OK) {
		ibf_cli_fail(cmd, &err);
		return NULL;
	}
	return l;
}

int ibf_cli_load_routed(const char *cmd, const char *topo, const char *lfts,
			unsigned lmc, ibf_fabric_t **f, ibf_lfts_t **l)
{
	*l = NULL;
	*f = ibf_cli_load_topo(cmd, topo, lmc);
	if (!*f)
		return IBF_EXIT_INPUT;
	*l = ibf_cli_load_lfts(cmd, *f, lfts);
	if (!*l) {
		ibf_fabric_destroy(*f);
		*f = NULL;
		return IBF_EXIT_INPUT;
	}
	return IBF_EXIT_OK;
}

int ibf_cli_run_routed(const char *cmd, const char *topo, const char *lfts,
		       unsigned lmc, ibf_cli_routed_fn fn, void *arg)
{
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	int rc = ibf_cli_load_routed(cmd, topo, lfts, lmc, &f, &l);

	if (rc != IBF_EXIT_OK)
		return rc;
	rc = fn(l, arg);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	return rc;
}

const char *ibf_cli_dest_name(const ibf_fabric_t *f, ibf_port_id_t p,
			      char *buf, size_t len)
{
	if (ibf_node_is_switch(f, f->ports[p].node)) {
		char name[128];

		snprintf(buf, len, "switch \"%s\"",
			 ibf_node_name(f, f->ports[p].node, name,
				       sizeof(name)));
		return buf;
	}
	return ibf_port_host_name(f, p, buf, len);
}
