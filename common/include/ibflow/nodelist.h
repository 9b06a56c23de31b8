/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * A job's nodes: Slurm hostlist expressions expanded to node names, and
 * those nodes put into a routing's host order (for `ibflow order`).
 *
 * Hostlist syntax (what SLURM_JOB_NODELIST holds; docs/order.md):
 *   list   := expr { (',' | blanks) expr }
 *   expr   := { text | '[' range { ',' range } ']' }   (at least one char)
 *   range  := NUMBER [ '-' NUMBER ]
 * Each bracket group stands for its numbers in the order written, printed
 * with at least as many digits as the range's first number was written
 * with (zero padding kept: "[08-10]" is 08 09 10).  Several groups in one
 * expr expand to every combination, the leftmost group varying slowest:
 * "r[1-2]n[1-2]" is r1n1 r1n2 r2n1 r2n2.  Outside brackets any character
 * but ',', '[', ']' and blanks is text.
 *
 * A node's name is the first word of its NodeDescription (the usual
 * "host HCA-1" convention); a name covers every connected CA port of every
 * CA whose description begins with that word (several HCAs, several ports).
 */
#ifndef IBFLOW_NODELIST_H
#define IBFLOW_NODELIST_H

#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/io.h>

IBF_BEGIN_DECLS

#define IBF_NODELIST_MAX   (1u << 20) /* names in one list */
#define IBF_NODENAME_MAX   256u       /* longest name, NUL included */

typedef struct ibf_nodelist {
	char **names;   /* in the order given (after ibf_nodelist_order:
			   in the routing's order) */
	uint32_t n;
	uint32_t cap;
} ibf_nodelist_t;

/*
 * Expand the hostlist expression text[0..len) and append its names to nl.
 * where/line name it in errors: IBF_ERR_PARSE "WHERE:LINE:COL: what"
 * (COL 1-based in text).  On error nl is as it was.
 */
ibf_status_t ibf_nodelist_expand(ibf_nodelist_t *nl, const char *text,
				 size_t len, const char *where, unsigned line,
				 ibf_err_t *err);

/* A file of names ("-" = stdin): hostlist expressions separated by blanks
 * and line breaks; '#' at the start of a line or after a blank starts a
 * comment.  Errors say FILE:LINE:COL.  On error nl is as it was. */
ibf_status_t ibf_nodelist_read(ibf_nodelist_t *nl, const char *path,
			       ibf_err_t *err);
ibf_status_t ibf_nodelist_read_text(ibf_nodelist_t *nl, ibf_text_t *t,
				    ibf_err_t *err);

void ibf_nodelist_free(ibf_nodelist_t *nl);

/*
 * names[0..n) as one hostlist expression, compressed ("h0000" .. "h0007",
 * "h0010": "h[0000-0007,0010]"), into *out (malloc'd, the caller frees):
 * expanding it gives every name once (duplicates are written once), in
 * the order prefix, then number.  A name is its prefix and trailing
 * number; names share brackets when their prefixes are equal and their
 * numbers print alike (zero-padded ones at their width).  IBF_ERR_INVALID
 * for an empty name or one holding hostlist syntax (',', '[', ']',
 * blanks, control characters).
 */
ibf_status_t ibf_nodelist_compress(const char *const *names, uint32_t n,
				   char **out, ibf_err_t *err);

/*
 * Put the nodes of nl into the order of order[0..norder) (a routing's
 * host order: endpoints of f), grouped by leaf switch: leaves in the order
 * their first endpoint appears in order[], a leaf's endpoints in order[]'s
 * order; a node takes the place of its first endpoint.  (A PGFT's
 * topological order is already grouped so: it is kept as it is.)
 * IBF_ERR_NOT_FOUND naming the nodes (up to three) that no connected CA
 * has as the first word of its NodeDescription; IBF_ERR_INVALID for a
 * node listed twice.  On error nl is unchanged.
 */
ibf_status_t ibf_nodelist_order(const ibf_fabric_t *f,
				const ibf_port_id_t *order, uint32_t norder,
				ibf_nodelist_t *nl, ibf_err_t *err);

IBF_END_DECLS
#endif
