/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Text input and atomic output shared by every file format of libibflow.
 *
 * Inputs are read whole into memory and parsed from there: parsers (and their
 * fuzz targets) work on a buffer, errors carry FILE:LINE, and nothing is
 * built from a file that turns out to be bad halfway.  Outputs go to a
 * temporary file beside the target and are renamed into place only when
 * complete, so a reader (the UCX side, an admin's script) never sees a
 * half-written topology or table.
 */
#ifndef IBFLOW_IO_H
#define IBFLOW_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/status.h>

IBF_BEGIN_DECLS

typedef struct ibf_text {
	const char *name;  /* for messages: the path, or "<stdin>" */
	char *buf;         /* NUL-terminated copy of the input (streaming:
			      a window of it) */
	size_t len;
	size_t pos;        /* start of the next line */
	unsigned line;     /* number of the line last returned (1-based) */
	char *name_copy;
	/* Streaming mode (ibf_text_open) only. */
	FILE *fp;
	size_t cap;
	bool eof;
	ibf_err_t stream_err;
} ibf_text_t;

/* Read a file ("-" is stdin).  Input with NUL bytes is refused as binary. */
ibf_status_t ibf_text_load(ibf_text_t *t, const char *path, ibf_err_t *err);
/* Stream a file line by line through a bounded window, for inputs too big
 * to hold (an LFT dump of a 50,000-endpoint fabric runs to gigabytes).  A
 * line returned is valid only until the next call; ibf_text_next_line()
 * returns NULL at the end *or on an error*: check ibf_text_failed() after
 * the loop.  Rewinding works on seekable files only. */
ibf_status_t ibf_text_open(ibf_text_t *t, const char *path, ibf_err_t *err);
/* A read error, binary data or an overlong line met while streaming. */
ibf_status_t ibf_text_failed(const ibf_text_t *t, ibf_err_t *err);
/* Same from memory (fuzz targets, tests); the buffer is copied. */
ibf_status_t ibf_text_from_buf(ibf_text_t *t, const char *name,
			       const char *buf, size_t len, ibf_err_t *err);
void ibf_text_free(ibf_text_t *t);

/* Next line, NUL-terminated, without its "\n" or "\r\n"; NULL at the end.
 * The line may be modified in place by the caller. */
char *ibf_text_next_line(ibf_text_t *t);
/* Rewind to the first line (for format detection: only valid if the
 * caller has not modified the lines returned so far). */
void ibf_text_rewind(ibf_text_t *t);

/* Record "NAME:LINE: message" for the line last returned. */
ibf_status_t ibf_text_error(const ibf_text_t *t, ibf_err_t *err,
			    ibf_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Atomic output file: temp + rename.  path "-" writes to stdout. */
typedef struct ibf_ofile {
	FILE *fp;
	char *path;
	char *tmp;
} ibf_ofile_t;

ibf_status_t ibf_ofile_open(ibf_ofile_t *o, const char *path, ibf_err_t *err);
ibf_status_t ibf_ofile_commit(ibf_ofile_t *o, ibf_err_t *err);
void ibf_ofile_abort(ibf_ofile_t *o);

IBF_END_DECLS
#endif
