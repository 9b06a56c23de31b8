/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Round-trip-time files: one measurement per line,
 *
 *     A B RTT          a single value
 *     A B MIN MAX      an interval (e.g. the best and worst of several
 *                      rounds of ping-pongs, HPDC'07 Figure 6)
 *
 * with # comments and blank lines.  The values are non-negative, finite
 * and in any unit (all lines of a file in the same one).  Used by
 * `ibflow probe-solve` (hosts of a topology) and `ibflow infer` (hosts
 * defined by the file itself).  See docs/formats-routing.md.
 *
 * Names: a name containing blanks may be "quoted".  How unquoted words are
 * split into two names depends on where the names come from:
 *  - with a lookup (names of a topology's hosts): every split of the words
 *    is tried, with the two-number form first; exactly one split must name
 *    two hosts;
 *  - without one (the file defines its hosts): a name is one word or one
 *    quoted string, so a line has 3 or 4 fields; hosts are numbered in the
 *    order of their first appearance, after those of a "# hosts: A B ..."
 *    line (a comment to readers with a lookup and to older readers),
 *    which numbers its hosts in its own order.
 */
#ifndef IBFLOW_RTT_IO_H
#define IBFLOW_RTT_IO_H

#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/io.h>

IBF_BEGIN_DECLS

typedef struct ibf_rtt_meas {
	uint32_t a, b;    /* host indices, a != b */
	double min, max;  /* "A B RTT": min == max == RTT */
	unsigned line;    /* input line (0 = none) */
} ibf_rtt_meas_t;

/* Name -> host index: IBF_OK, or IBF_ERR_NOT_FOUND if the name is no
 * host (other statuses abort the read). */
typedef ibf_status_t (*ibf_rtt_lookup_fn)(void *ctx, const char *name,
					  uint32_t *idx);

typedef struct ibf_rtt_set {
	ibf_rtt_meas_t *m;
	uint32_t n;
	/* Hosts defined by the file (lookup == NULL): names by index. */
	char **names;
	uint32_t nnames;
} ibf_rtt_set_t;

/* Read a whole file ("-" = stdin).  lookup may be NULL (the file defines
 * its hosts).  On any bad line: FILE:LINE: what, and nothing returned.  A
 * file without measurements is refused. */
ibf_status_t ibf_rtt_read(const char *path, ibf_rtt_lookup_fn lookup,
			  void *ctx, ibf_rtt_set_t *out, ibf_err_t *err);
ibf_status_t ibf_rtt_read_text(ibf_text_t *t, ibf_rtt_lookup_fn lookup,
			       void *ctx, ibf_rtt_set_t *out, ibf_err_t *err);
void ibf_rtt_set_free(ibf_rtt_set_t *s);

/* Write one measurement line that reads back the same way in a file
 * without lookup: names quoted when they contain blanks, "A B RTT" when
 * min == max.  Values are printed exactly (%.17g).  IBF_ERR_INVALID for a
 * name that cannot be written (empty, or both blanks and '"'). */
ibf_status_t ibf_rtt_write_line(FILE *fp, const char *a, const char *b,
				double min, double max, ibf_err_t *err);

#define IBF_RTT_HOSTS_TAG "# hosts:"

/* Write the "# hosts:" line of names[0..n-1] (quoted as by write_line). */
ibf_status_t ibf_rtt_write_hosts(FILE *fp, const char *const *names,
				 uint32_t n, ibf_err_t *err);

IBF_END_DECLS
#endif
