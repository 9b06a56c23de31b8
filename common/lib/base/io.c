/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Whole-file text input and atomic output; see io.h. */
#include <ibflow/io.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/scan.h"

/* DOS line ends become "\n" once, so lines can be cut with a single NUL
 * and restored by ibf_text_rewind(). */
static void strip_crlf(ibf_text_t *t)
{
	size_t r, w;

	if (!memchr(t->buf, '\r', t->len))
		return;
	for (r = w = 0; r < t->len; r++)
		if (!(t->buf[r] == '\r' && r + 1 < t->len &&
		      t->buf[r + 1] == '\n'))
			t->buf[w++] = t->buf[r];
	t->len = w;
	t->buf[w] = '\0';
}

static ibf_status_t text_adopt(ibf_text_t *t, const char *name, char *buf,
			       size_t len, ibf_err_t *err)
{
	memset(t, 0, sizeof(*t));
	t->name_copy = strdup(name);
	if (!t->name_copy) {
		free(buf);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	t->name = t->name_copy;
	t->buf = buf;
	t->len = len;
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		size_t at = (size_t)((char *)memchr(buf, '\0', len) - buf);
		unsigned line = 1;
		size_t i;

		for (i = 0; i < at; i++)
			line += buf[i] == '\n';
		t->line = line;
		ibf_text_error(t, err, IBF_ERR_PARSE,
			       "binary data (NUL byte) in a text file");
		ibf_text_free(t);
		return IBF_ERR_PARSE;
	}
	strip_crlf(t);
	return IBF_OK;
}

ibf_status_t ibf_text_from_buf(ibf_text_t *t, const char *name,
			       const char *buf, size_t len, ibf_err_t *err)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	memcpy(copy, buf, len);
	return text_adopt(t, name, copy, len, err);
}

ibf_status_t ibf_text_load(ibf_text_t *t, const char *path, ibf_err_t *err)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *fp = is_stdin ? stdin : fopen(path, "rb");
	size_t len = 0, cap = 1 << 16, n;
	char *buf;

	memset(t, 0, sizeof(*t));
	if (!fp)
		return ibf_err_set(err, IBF_ERR_IO, "%s: %s", path,
				   strerror(errno));
	buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (!buf || ferror(fp)) {
		int e = errno;

		free(buf);
		if (!is_stdin)
			fclose(fp);
		return buf ? ibf_err_set(err, IBF_ERR_IO, "%s: %s", path,
					 strerror(e))
			   : ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	if (!is_stdin)
		fclose(fp);
	return text_adopt(t, is_stdin ? "<stdin>" : path, buf, len, err);
}

/* Streaming: a line may not exceed this (an LFT line is ~80 bytes). */
#define IBF_TEXT_STREAM_WINDOW (1u << 20)

ibf_status_t ibf_text_open(ibf_text_t *t, const char *path, ibf_err_t *err)
{
	memset(t, 0, sizeof(*t));
	t->fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!t->fp)
		return ibf_err_set(err, IBF_ERR_IO, "%s: %s", path,
				   strerror(errno));
	t->name_copy = strdup(t->fp == stdin ? "<stdin>" : path);
	t->cap = IBF_TEXT_STREAM_WINDOW;
	t->buf = malloc(t->cap + 1);
	if (!t->name_copy || !t->buf) {
		ibf_text_free(t);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	t->name = t->name_copy;
	t->buf[0] = '\0';
	return IBF_OK;
}

ibf_status_t ibf_text_failed(const ibf_text_t *t, ibf_err_t *err)
{
	if (t->stream_err.status == IBF_OK)
		return IBF_OK;
	if (err)
		*err = t->stream_err;
	return t->stream_err.status;
}

static char *stream_fail(ibf_text_t *t, ibf_status_t st, const char *what)
{
	t->line++; /* the line being read when it failed */
	ibf_text_error(t, &t->stream_err, st, "%s", what);
	t->eof = true;
	t->pos = t->len = 0;
	return NULL;
}

/* Slide the unread rest to the front of the window and read more. */
static bool stream_fill(ibf_text_t *t)
{
	size_t rest = t->len - t->pos, n;

	memmove(t->buf, t->buf + t->pos, rest);
	t->len = rest;
	t->pos = 0;
	n = fread(t->buf + t->len, 1, t->cap - t->len, t->fp);
	if (n == 0)
		t->eof = true;
	t->len += n;
	t->buf[t->len] = '\0';
	if (memchr(t->buf + t->len - n, '\0', n)) {
		/* Count the complete lines before the NUL, for the message. */
		const char *nul = memchr(t->buf, '\0', t->len), *c;

		for (c = t->buf; c < nul; c++)
			t->line += *c == '\n';
		return false;
	}
	t->buf[t->len] = '\0';
	return true;
}

static char *stream_next_line(ibf_text_t *t)
{
	char *start, *nl;
	size_t n;

	if (t->stream_err.status != IBF_OK)
		return NULL;
	while (!(nl = memchr(t->buf + t->pos, '\n', t->len - t->pos)) &&
	       !t->eof) {
		if (t->pos == 0 && t->len == t->cap)
			return stream_fail(t, IBF_ERR_PARSE, "line too long");
		if (!stream_fill(t))
			return stream_fail(t, IBF_ERR_PARSE, "binary data (NUL "
					   "byte) in a text file");
		if (ferror(t->fp))
			return stream_fail(t, IBF_ERR_IO, strerror(errno));
	}
	if (t->pos >= t->len)
		return NULL;
	start = t->buf + t->pos;
	n = nl ? (size_t)(nl - start) : t->len - t->pos;
	t->pos += n + (nl ? 1 : 0);
	start[n] = '\0';
	if (n && start[n - 1] == '\r')
		start[n - 1] = '\0';
	t->line++;
	return start;
}

void ibf_text_free(ibf_text_t *t)
{
	if (t->fp && t->fp != stdin)
		fclose(t->fp);
	free(t->buf);
	free(t->name_copy);
	memset(t, 0, sizeof(*t));
}

void ibf_text_rewind(ibf_text_t *t)
{
	size_t i;

	if (t->fp) {
		if (t->line == 0 && t->pos == 0)
			return; /* nothing read yet */
		if (fseek(t->fp, 0, SEEK_SET) != 0) {
			stream_fail(t, IBF_ERR_IO, "cannot rewind a stream");
			return;
		}
		t->pos = t->len = 0;
		t->line = 0;
		t->eof = false;
		return;
	}

	/* Lines returned earlier had their "\n" replaced by NUL: restore.
	 * (Valid only if the caller did not cut lines itself.) */
	for (i = 0; i < t->pos && i < t->len; i++)
		if (t->buf[i] == '\0')
			t->buf[i] = '\n';
	t->pos = 0;
	t->line = 0;
}

char *ibf_text_next_line(ibf_text_t *t)
{
	char *start, *nl;
	size_t n;

	if (t->fp)
		return stream_next_line(t);
	if (t->pos >= t->len)
		return NULL;
	start = t->buf + t->pos;
	nl = memchr(start, '\n', t->len - t->pos);
	n = nl ? (size_t)(nl - start) : t->len - t->pos;
	t->pos += n + (nl ? 1 : 0);
	start[n] = '\0';
	t->line++;
	return start;
}

ibf_status_t ibf_text_error(const ibf_text_t *t, ibf_err_t *err,
			    ibf_status_t st, const char *fmt, ...)
{
	char msg[IBF_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ibf_err_set(err, st, "%s:%u: %s", t->name, t->line, msg);
}

/* ---- scanners ------------------------------------------------------------ */

void ibf_scan_blanks(const char **s)
{
	while (**s == ' ' || **s == '\t')
		(*s)++;
}

bool ibf_scan_lit(const char **s, const char *lit)
{
	size_t n = strlen(lit);

	ibf_scan_blanks(s);
	if (strncmp(*s, lit, n) != 0)
		return false;
	*s += n;
	return true;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

bool ibf_scan_u64(const char **s, int base, uint64_t *v)
{
	const char *p;
	uint64_t x = 0;
	int d;

	ibf_scan_blanks(s);
	p = *s;
	if (base == 16 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (digit_value(*p) >= base)
		return false;
	while ((d = digit_value(*p)) < base) {
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false; /* overflow */
		x = x * (uint64_t)base + (uint64_t)d;
		p++;
	}
	*v = x;
	*s = p;
	return true;
}

bool ibf_scan_uint(const char **s, unsigned max, unsigned *v)
{
	const char *save = *s;
	uint64_t x;

	if (!ibf_scan_u64(s, 10, &x) || x > max) {
		*s = save;
		return false;
	}
	*v = (unsigned)x;
	return true;
}

bool ibf_scan_quoted_span(const char **s, const char **str, size_t *len)
{
	const char *p = *s, *end;

	ibf_scan_blanks(&p);
	if (*p != '"' || !(end = strchr(p + 1, '"')))
		return false;
	*str = p + 1;
	*len = (size_t)(end - p - 1);
	*s = end + 1;
	return true;
}

bool ibf_scan_quoted(const char **s, char *out, size_t len)
{
	const char *p = *s, *str;
	size_t n;

	if (!ibf_scan_quoted_span(&p, &str, &n) || n >= len)
		return false;
	memcpy(out, str, n);
	out[n] = '\0';
	*s = p;
	return true;
}

bool ibf_scan_end(const char **s)
{
	ibf_scan_blanks(s);
	return **s == '\0' || **s == '#';
}

/* ---- atomic output ------------------------------------------------------- */

/* mkstemp() creates 0600; the file replaced keeps its mode, a new one is
 * world-readable like any file an admin's tool writes (the UCX side may run
 * as another user).  umask() is not consulted: it is process-wide state and
 * racy to read from OpenSM's threads. */
static mode_t output_mode(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	return 0644;
}

ibf_status_t ibf_ofile_open(ibf_ofile_t *o, const char *path, ibf_err_t *err)
{
	size_t n = strlen(path);
	int fd;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return IBF_OK;
	}
	o->path = strdup(path);
	o->tmp = malloc(n + sizeof(".tmp.XXXXXX"));
	if (!o->path || !o->tmp) {
		ibf_ofile_abort(o);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	memcpy(o->tmp, path, n);
	memcpy(o->tmp + n, ".tmp.XXXXXX", sizeof(".tmp.XXXXXX"));
	fd = mkstemp(o->tmp);
	if (fd >= 0)
		fchmod(fd, output_mode(path));
	if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		ibf_ofile_abort(o);
		return ibf_err_set(err, IBF_ERR_IO, "%s: %s", path,
				   strerror(e));
	}
	return IBF_OK;
}

ibf_status_t ibf_ofile_commit(ibf_ofile_t *o, ibf_err_t *err)
{
	ibf_status_t st = IBF_OK;
	int e = 0;

	if (o->fp == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			st = ibf_err_set(err, IBF_ERR_IO,
					 "<stdout>: write failed");
		o->fp = NULL;
		return st;
	}
	if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0)
		e = errno ? errno : EIO;
	if (fclose(o->fp) != 0 && !e)
		e = errno;
	o->fp = NULL;
	if (!e && rename(o->tmp, o->path) != 0)
		e = errno;
	if (e) {
		st = ibf_err_set(err, IBF_ERR_IO, "%s: %s", o->path,
				 strerror(e));
		unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return st;
}

void ibf_ofile_abort(ibf_ofile_t *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}
