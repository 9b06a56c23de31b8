/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Small scanners for libibflow's hand-written parsers.  Internal: front
 * ends parse their own options and configuration.
 *
 * Each skips leading blanks, advances *s past what it consumed and returns
 * false (leaving *s alone) on no match.
 */
#ifndef IBFLOW_BASE_SCAN_H
#define IBFLOW_BASE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void ibf_scan_blanks(const char **s);
bool ibf_scan_lit(const char **s, const char *lit);          /* exact text */
bool ibf_scan_u64(const char **s, int base, uint64_t *v);    /* no sign */
bool ibf_scan_uint(const char **s, unsigned max, unsigned *v); /* decimal */
/* A "quoted string" (no escapes: it ends at the next quote), in place:
 * *str points at its first byte, *len bytes long. */
bool ibf_scan_quoted_span(const char **s, const char **str, size_t *len);
/* The same, copied into out (NUL-terminated); false if it does not fit in
 * len - 1 bytes. */
bool ibf_scan_quoted(const char **s, char *out, size_t len);
bool ibf_scan_end(const char **s); /* only blanks (or a # comment) remain */

#endif
