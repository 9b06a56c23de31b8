/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Host names in line-oriented files: host lists, traffic files ("SRC DST
 * [COUNT]") and RTT files ("A B RTT", "A B MIN MAX").  One syntax for all:
 *
 * - '#' at the start of a line or after a blank, outside quotes, starts a
 *   comment;
 * - a word is a run of non-blanks or a "quoted name" (inside, \" is a
 *   quote and \\ a backslash); a quoted name stands alone, a bare
 *   NodeDescription with blanks spans several words;
 * - when several words name two hosts, every split of them is tried
 *   against the caller's lookup and exactly one must name two hosts.
 *
 * Writers quote what would not read back bare.  Internal to libibflow.
 */
#ifndef IBFLOW_FORMATS_NAMES_H
#define IBFLOW_FORMATS_NAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/fabric.h>
#include <ibflow/io.h>

#define IBF_NAME_MAX  256 /* longest host name, NUL included */
#define IBF_WORDS_MAX 64  /* words per line: bounds the splits tried */

typedef struct ibf_word {
	const char *s; /* NUL-terminated, inside the (modified) line */
	bool quoted;
} ibf_word_t;

typedef struct ibf_words {
	ibf_word_t w[IBF_WORDS_MAX + 1];
	unsigned n;
} ibf_words_t;

/* A host name -> its id: IBF_OK, or IBF_ERR_NOT_FOUND when the name
 * names no host (*err may say why: unknown, ambiguous); any other status
 * aborts the reading. */
typedef ibf_status_t (*ibf_names_lookup_fn)(void *ctx, const char *name,
					    uint32_t *id, ibf_err_t *err);

/* Two names read from words [0, nhost): SRC is words [0, k). */
typedef struct ibf_names_pair {
	unsigned k;
	uint32_t a, b;
} ibf_names_pair_t;

bool ibf_names_blank(char c);
/* The first word of s (a node's name in its NodeDescription, "h0001" of
 * "h0001 HCA-1"): *w points at it, its length is returned (0: none). */
size_t ibf_names_first_word(const char *s, const char **w);
/* Cut the comment off a line, in place. */
void ibf_names_strip_comment(char *line);
/* Blanks off both ends, in place. */
char *ibf_names_trim(char *s);
/* One "quoted name" at *s (escapes resolved) into out; advances past it. */
bool ibf_names_scan_quoted(const char **s, char *out, size_t len);

/* Cut a line into words in place (comment cut first); file:line errors. */
ibf_status_t ibf_words_split(const ibf_text_t *t, char *line,
			     ibf_words_t *w, ibf_err_t *err);
/* Words [a, b) as one name joined by single blanks; false when too long
 * or when a quoted word would be part of a longer name. */
bool ibf_words_join(const ibf_words_t *w, unsigned a, unsigned b,
		    char *name, size_t size);
/* Every split of words [0, nhost) into two names the lookup knows, up to
 * max of them in found[].  Returns how many were found (stops at max),
 * or -1 when the lookup aborted (*plain says why).  Otherwise *plain gets
 * the lookup's error of the plainest reading (one word each), for a
 * message when none is found. */
int ibf_words_pairs(const ibf_words_t *w, unsigned nhost,
		    ibf_names_lookup_fn lookup, void *ctx,
		    ibf_names_pair_t *found, unsigned max, ibf_err_t *plain);

/* Write the host behind port p so that it reads back as this very port:
 * bare, "quoted", or its port GUID when the name cannot name one port.
 * In host lists (inner_blanks_ok) a bare name may hold blanks. */
void ibf_names_write_host(const ibf_fabric_t *f, ibf_port_id_t p, FILE *fp,
			  bool inner_blanks_ok);
/* Control characters (a line break) cannot stand in a line at all. */
bool ibf_names_has_control(const char *s);
/* A name bare if it reads back bare, else quoted with escapes. */
void ibf_names_write(const char *name, FILE *fp, bool inner_blanks_ok);

#endif
