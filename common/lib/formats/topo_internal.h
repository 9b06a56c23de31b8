/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Internal to libibflow: what the topology readers and writers share.
 *
 * Every reader gathers links as "half links": what each port says it is
 * connected to, with the input line that said it.  Links are made only at
 * the end, once every node is known, so a reference to a node defined later
 * in the file works, and a link listed from one end only, or two ends that
 * disagree, is reported at the line that caused it.
 */
#ifndef IBFLOW_TOPO_INTERNAL_H
#define IBFLOW_TOPO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/topo_io.h>

typedef struct ibf_topo_half {
	uint32_t line;   /* input line; 0 = this port lists no link */
	uint32_t rnode;  /* remote node id, IBF_NO_ID until resolved */
	uint32_t rref;   /* reader-private reference to the remote node */
	uint8_t rport;
	uint8_t width;   /* 0 = not given */
	uint8_t speed;   /* ibf_speed_t */
} ibf_topo_half_t;

typedef struct ibf_topo_links {
	ibf_topo_half_t *h; /* indexed by port id */
	uint32_t cap;
} ibf_topo_links_t;

/* Make room for halves of ports 0..nports-1 (call after each new node). */
ibf_status_t ibf_topo_links_reserve(ibf_topo_links_t *l, uint32_t nports,
				    ibf_err_t *err);
void ibf_topo_links_free(ibf_topo_links_t *l);

/* Record that (node, port) says it is linked to the remote in h.  A port
 * listed twice is refused. */
ibf_status_t ibf_topo_links_add(const ibf_text_t *t, ibf_fabric_t *f,
				ibf_topo_links_t *l, ibf_node_id_t node,
				unsigned port, const ibf_topo_half_t *h,
				ibf_err_t *err);

/* Link every pair of halves that name each other.  Every half must have
 * been resolved (rnode set); a half whose remote port does not name it back
 * is an error at the half's line. */
ibf_status_t ibf_topo_links_connect(const ibf_text_t *t, ibf_fabric_t *f,
				    ibf_topo_links_t *l, ibf_err_t *err);

/* Error at an explicit line of t (for problems found after reading). */
ibf_status_t ibf_topo_error_at(const ibf_text_t *t, unsigned line,
			       ibf_err_t *err, ibf_status_t st,
			       const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Prefix the message a fabric call left in err with "NAME:LINE: ". */
ibf_status_t ibf_topo_locate(const ibf_text_t *t, unsigned line,
			     ibf_err_t *err, ibf_status_t st);

/* Finalize with lmc; an empty fabric is "no nodes" at the last line. */
/* Readers go on after a bad line, as a compiler does, to report the first
 * few at once: the first error goes into err, each later one is appended
 * to its message on a line of its own.  Returns false when the reader
 * should stop: IBF_TOPO_MAX_ERRORS reached, the message is full, or e is
 * out of memory. */
#define IBF_TOPO_MAX_ERRORS 5
bool ibf_topo_err_add(ibf_err_t *err, unsigned *nerr, const ibf_err_t *e);

ibf_status_t ibf_topo_finalize(const ibf_text_t *t, ibf_fabric_t *f,
			       unsigned lmc, ibf_err_t *err);

/* "4xQDR": width and speed; false if s does not start with one. */
bool ibf_topo_parse_rate(const char **s, unsigned *width, ibf_speed_t *speed);

/* Descriptions longer than this are refused by the readers. */
#define IBF_TOPO_DESC_MAX 255

/* Readers: t is positioned at its first line. */
ibf_status_t ibf_topo_read_ibnd(ibf_text_t *t, bool ibsim, unsigned lmc,
				ibf_fabric_t **out, ibf_err_t *err);
ibf_status_t ibf_topo_read_subnet_lst(ibf_text_t *t, unsigned lmc,
				      ibf_fabric_t **out, ibf_err_t *err);

/* Writers. */
ibf_status_t ibf_topo_write_ibnd(const ibf_fabric_t *f, FILE *fp,
				 ibf_err_t *err);
ibf_status_t ibf_topo_write_ibsim(const ibf_fabric_t *f, FILE *fp,
				  ibf_err_t *err);
ibf_status_t ibf_topo_write_dot(const ibf_fabric_t *f, FILE *fp,
				ibf_err_t *err);

/* A Graphviz "quoted string" (quotes and backslashes escaped, control
 * characters as blanks so that one node stays on one line); also used by
 * the inferred tree's dot writer. */
void ibf_topo_dot_quoted(FILE *fp, const char *s);

/* Shared by the ibnetdiscover and ibsim writers: the node id "S-<guid>". */
const char *ibf_topo_node_id(const ibf_fabric_t *f, ibf_node_id_t n,
			     char *buf, size_t len);
/* The end of a port line shared by both writers: "\"rdesc\" lid 4 4xQDR"
 * with the peer's LID and the link rate ("4x?" / "0xQDR" when half known,
 * nothing when unknown), then a newline. */
void ibf_topo_print_peer(const ibf_fabric_t *f, const ibf_port_t *pt,
			 const char *rdesc, FILE *fp);

/* A description the ibnetdiscover/ibsim syntax can carry (no '"', no
 * line breaks), else an error naming the node. */
ibf_status_t ibf_topo_check_desc(const ibf_fabric_t *f, ibf_node_id_t n,
				 const char *fmt_name, ibf_err_t *err);

#endif
