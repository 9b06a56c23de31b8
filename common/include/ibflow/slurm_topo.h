/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Slurm's topology.conf (topology/tree plugin) from a fabric: one
 * "SwitchName=NAME Nodes=HOSTLIST" line per leaf switch and one
 * "SwitchName=NAME Switches=A,B,..." line per switch above, so that
 * Slurm places a job under as few switches as the fabric allows
 * (docs/order.md, "Slurm's topology.conf").
 *
 * Levels: those of the PGFT when the fabric is one (also degraded, as
 * ibf_pgft_recognize() sees it), else the hop distance from the hosts
 * (a switch with a host is a leaf; links within a level are left out).
 * A switch's children are its neighbours one level down; a switch may
 * have several parents (Slurm takes that).  A switch with no host below
 * it is left out (Slurm refuses a switch without children), and so are
 * hosts on no switch (listed in a comment).
 *
 * Names: a switch is "S-" and its NodeGUID in 16 hex digits (as
 * ibnetdiscover names it), or its name in an ibnetdiscover
 * --node-name-map file; a host is the first word of its CAs'
 * NodeDescription (as `ibflow order` reads it, nodelist.h), or its name
 * in a host map.  Every name must be one Slurm reads back as given:
 * letters, digits, '-', '_' and '.'.
 */
#ifndef IBFLOW_SLURM_TOPO_H
#define IBFLOW_SLURM_TOPO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>

IBF_BEGIN_DECLS

/* Names given to nodes of a fabric: node[id] or NULL (the default). */
typedef struct ibf_slurm_names {
	char **node;
	uint32_t nnodes;
} ibf_slurm_names_t;

ibf_status_t ibf_slurm_names_init(const ibf_fabric_t *f,
				  ibf_slurm_names_t *names, ibf_err_t *err);
void ibf_slurm_names_free(ibf_slurm_names_t *names);

/* Is s a name Slurm reads back as given (a hostlist of one name, a
 * word of topology.conf): 1..255 of letters, digits, '-', '_', '.'. */
bool ibf_slurm_name_ok(const char *s);

/*
 * ibnetdiscover's node name map (--node-name-map): per line a NodeGUID
 * (0x hex or decimal) and a name, bare or "quoted"; '#' comments.  Names
 * the switches of f; entries of other nodes, or of GUIDs f lacks (a map
 * of the whole machine), are left alone.  Errors FILE:LINE: a line
 * without a GUID, a switch's name Slurm would not read back, two
 * switches of one name.
 */
ibf_status_t ibf_slurm_read_node_name_map(const ibf_fabric_t *f,
					  const char *path,
					  ibf_slurm_names_t *names,
					  ibf_err_t *err);

/*
 * A host map: per line "HOST NAME", HOST a host of f as `ibflow order`
 * names it (first word of a CA's NodeDescription) or a CA's 0x NodeGUID,
 * NAME its Slurm node name; '#' comments.  Errors FILE:LINE: a HOST f
 * does not know, a host given twice, a NAME Slurm would not read back,
 * two hosts of one NAME.
 */
ibf_status_t ibf_slurm_read_host_map(const ibf_fabric_t *f, const char *path,
				     ibf_slurm_names_t *names,
				     ibf_err_t *err);

typedef struct ibf_slurm_switch {
	ibf_node_id_t node;
	char *name;
	unsigned level;   /* 1: a leaf, its hosts in Nodes=; above: Switches= */
	char *children;   /* compressed hostlist (leaves) or "A,B,..." */
} ibf_slurm_switch_t;

typedef struct ibf_slurm_topo {
	ibf_slurm_switch_t *sw;  /* by level, then name */
	uint32_t nsw;
	unsigned levels;         /* highest level written */
	bool pgft;               /* levels of a recognized PGFT */
	uint32_t hosts;          /* hosts on a leaf */
	char *off_switch;        /* hosts on no switch, a hostlist, or NULL */
	uint32_t noff_switch;
	uint32_t hostless;       /* switches left out: no host below them */
	uint32_t level_links;    /* links between switches of one level, left
				    out: Slurm's tree has no place for them
				    (a job spans them only through a switch
				    above both) */
} ibf_slurm_topo_t;

/*
 * The tree of f under the given names (NULL: the defaults).
 * IBF_ERR_INVALID naming the CA or switch whose name Slurm would not
 * read back (a CA without a NodeDescription, a word with other
 * characters: give it a name in a map) or two hosts or switches of one
 * name.  On error *t is empty.
 */
ibf_status_t ibf_slurm_topo_build(const ibf_fabric_t *f,
				  const ibf_slurm_names_t *names,
				  ibf_slurm_topo_t *t, ibf_err_t *err);

/* topology.conf: a comment saying what it is, the lines, and the hosts
 * on no switch and switches left out in comments. */
ibf_status_t ibf_slurm_topo_write(const ibf_slurm_topo_t *t, FILE *fp,
				  ibf_err_t *err);

void ibf_slurm_topo_free(ibf_slurm_topo_t *t);

IBF_END_DECLS
#endif
