/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Text input, scanners, atomic output, error messages. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <ibflow/io.h>

#include "base/array.h"
#include "base/scan.h"

static void test_lines(void **state)
{
	static const char in[] = "one\r\ntwo\n\nlast";
	ibf_text_t t;
	ibf_err_t err;

	assert_int_equal(ibf_text_from_buf(&t, "mem", in, sizeof(in) - 1, &err),
			 IBF_OK);
	assert_string_equal(ibf_text_next_line(&t), "one");
	assert_string_equal(ibf_text_next_line(&t), "two");
	assert_string_equal(ibf_text_next_line(&t), "");
	assert_string_equal(ibf_text_next_line(&t), "last");
	assert_int_equal(t.line, 4);
	assert_null(ibf_text_next_line(&t));
	ibf_text_rewind(&t);
	assert_string_equal(ibf_text_next_line(&t), "one");
	assert_string_equal(ibf_text_next_line(&t), "two");
	assert_int_equal(ibf_text_error(&t, &err, IBF_ERR_PARSE, "bad %d", 7),
			 IBF_ERR_PARSE);
	assert_string_equal(err.msg, "mem:2: bad 7");
	ibf_text_free(&t);
}

static void test_binary_refused(void **state)
{
	static const char in[] = "ok\nstill ok\nbin\0ary\n";
	ibf_text_t t;
	ibf_err_t err;

	assert_int_equal(ibf_text_from_buf(&t, "junk.txt", in, sizeof(in) - 1,
					   &err), IBF_ERR_PARSE);
	assert_string_equal(err.msg,
			    "junk.txt:3: binary data (NUL byte) in a text file");
}

static void test_load_missing_file(void **state)
{
	ibf_text_t t;
	ibf_err_t err;

	assert_int_equal(ibf_text_load(&t, "/nonexistent/x", &err), IBF_ERR_IO);
	assert_non_null(strstr(err.msg, "/nonexistent/x: "));
}

static void test_scanners(void **state)
{
	const char *s = "  [12]\t\"Hca 1\"[3](0x1f) 99999999999999999999 # c";
	uint64_t v;
	unsigned u;
	char q[8];

	assert_true(ibf_scan_lit(&s, "["));
	assert_true(ibf_scan_uint(&s, 254, &u));
	assert_int_equal(u, 12);
	assert_true(ibf_scan_lit(&s, "]"));
	assert_true(ibf_scan_quoted(&s, q, sizeof(q)));
	assert_string_equal(q, "Hca 1");
	assert_true(ibf_scan_lit(&s, "["));
	assert_false(ibf_scan_uint(&s, 2, &u)); /* 3 > max: not consumed */
	assert_true(ibf_scan_uint(&s, 3, &u));
	assert_true(ibf_scan_lit(&s, "]("));
	assert_true(ibf_scan_u64(&s, 16, &v));
	assert_true(v == 0x1f);
	assert_true(ibf_scan_lit(&s, ")"));
	assert_false(ibf_scan_u64(&s, 10, &v)); /* overflows 64 bits */
	while (*s && *s != '#')
		s++;
	assert_true(ibf_scan_end(&s));
	s = "\"too long for it\"";
	assert_false(ibf_scan_quoted(&s, q, sizeof(q)));
	s = "\"unterminated";
	assert_false(ibf_scan_quoted(&s, q, sizeof(q)));
	s = "0x";
	assert_false(ibf_scan_u64(&s, 16, &v));
}

static void test_err_prefix(void **state)
{
	ibf_err_t err;
	char big[IBF_ERR_MSG_MAX * 2];

	ibf_err_set(&err, IBF_ERR_INVALID, "duplicate GUID");
	ibf_err_prefix(&err, "%s:%u: ", "net", 12u);
	assert_string_equal(err.msg, "net:12: duplicate GUID");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ibf_err_prefix(&err, "%s", big);
	assert_int_equal(strlen(err.msg), IBF_ERR_MSG_MAX - 1);
}

static void msg_prefix(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ibf_msg_vprefix(msg, size, fmt, ap);
	va_end(ap);
}

/* Any buffer (the UCX component's are 1024 bytes): the head whole, the
 * message cut at its end. */
static void test_msg_prefix(void **state)
{
	char msg[8] = "abcdef", big[1024];

	msg_prefix(msg, sizeof(msg), "%u:", 123u);
	assert_string_equal(msg, "123:abc");
	msg_prefix(msg, sizeof(msg), "%s", "0123456789");
	assert_string_equal(msg, "0123456");
	memset(big, 'm', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	msg_prefix(big, sizeof(big), "%s: ", "rank 3");
	assert_int_equal(strlen(big), sizeof(big) - 1);
	assert_memory_equal(big, "rank 3: mmm", 11);
}

static void test_ofile_atomic(void **state)
{
	char dir[] = "/tmp/ibf-io-XXXXXX", path[64], buf[32];
	ibf_ofile_t o;
	ibf_err_t err;
	struct stat st;
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	/* Abort leaves nothing behind. */
	assert_int_equal(ibf_ofile_open(&o, path, &err), IBF_OK);
	fputs("partial", o.fp);
	ibf_ofile_abort(&o);
	assert_int_equal(stat(path, &st), -1);
	/* Nothing visible at the path before commit; all of it after. */
	assert_int_equal(ibf_ofile_open(&o, path, &err), IBF_OK);
	fputs("complete\n", o.fp);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(ibf_ofile_commit(&o, &err), IBF_OK);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "complete\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* Replacing a file keeps its mode. */
	chmod(path, 0640);
	assert_int_equal(ibf_ofile_open(&o, path, &err), IBF_OK);
	fputs("again\n", o.fp);
	assert_int_equal(ibf_ofile_commit(&o, &err), IBF_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	unlink(path);
	rmdir(dir);
	/* A directory that does not exist is an I/O error naming the path. */
	assert_int_equal(ibf_ofile_open(&o, "/nonexistent/dir/f", &err),
			 IBF_ERR_IO);
	assert_non_null(strstr(err.msg, "/nonexistent/dir/f"));
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	fclose(fp);
}

/* Streaming through a 1 MiB window: every line of a 6 MB file comes back
 * in order, lines straddling window edges included, CRLF stripped. */
static void test_stream_lines(void **state)
{
	enum { NLINES = 300000 };
	char path[] = "/tmp/ibf-stream-XXXXXX", want[32];
	size_t cap = (size_t)NLINES * 24, len = 0;
	char *data = malloc(cap), *line;
	ibf_text_t t;
	ibf_err_t err;
	unsigned i;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	for (i = 0; i < NLINES; i++)
		len += (size_t)sprintf(data + len, "0x%04x %03u%s\n", i & 0xffff,
				       i % 37, i % 3 ? "" : "\r");
	write_file(path, data, len - 1); /* last line without "\n" */
	assert_int_equal(ibf_text_open(&t, path, &err), IBF_OK);
	for (i = 0; (line = ibf_text_next_line(&t)) != NULL; i++) {
		snprintf(want, sizeof(want), "0x%04x %03u", i & 0xffff, i % 37);
		if (strcmp(line, want) != 0)
			fail_msg("line %u: \"%s\" != \"%s\"", i + 1, line, want);
	}
	assert_int_equal(i, NLINES);
	assert_int_equal(t.line, NLINES);
	assert_int_equal(ibf_text_failed(&t, &err), IBF_OK);
	/* Rewind of a seekable file starts over. */
	ibf_text_rewind(&t);
	assert_string_equal(ibf_text_next_line(&t), "0x0000 000");
	ibf_text_free(&t);
	unlink(path);
	free(data);
}

static void test_stream_errors(void **state)
{
	char path[] = "/tmp/ibf-stream-XXXXXX";
	size_t big = (1u << 20) + 10;
	char *data = malloc(big);
	ibf_text_t t;
	ibf_err_t err;
	int fd = mkstemp(path), n = 0;

	assert_true(fd >= 0);
	close(fd);
	write_file(path, "a\nb\nc\0d\ne\n", 10);
	assert_int_equal(ibf_text_open(&t, path, &err), IBF_OK);
	while (ibf_text_next_line(&t))
		n++;
	assert_int_equal(n, 0); /* the first window already holds the NUL */
	assert_int_equal(ibf_text_failed(&t, &err), IBF_ERR_PARSE);
	assert_non_null(strstr(err.msg, ":3: binary data"));
	ibf_text_free(&t);

	memset(data, 'x', big);
	write_file(path, data, big);
	assert_int_equal(ibf_text_open(&t, path, &err), IBF_OK);
	assert_null(ibf_text_next_line(&t));
	assert_int_equal(ibf_text_failed(&t, &err), IBF_ERR_PARSE);
	assert_non_null(strstr(err.msg, ":1: line too long"));
	ibf_text_free(&t);
	unlink(path);
	free(data);
	assert_int_equal(ibf_text_open(&t, "/nonexistent/x", &err), IBF_ERR_IO);
}

/* IBF_CALLOC_ALL: every array gets its own count of zeroed elements of
 * its own type; an impossible size fails, the arrays before it allocated
 * (for the caller's free), the ones after it untouched. */
static void test_calloc_all(void **state)
{
	struct { uint64_t *wide; uint8_t *narrow; uint32_t *none; } c = { 0 };
	uint32_t *huge = NULL, *after = NULL;
	size_t i;

	(void)state;
	assert_int_equal(IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(c.wide, 1000),
					IBF_CALLOC_ARRAY(c.narrow, 3),
					IBF_CALLOC_ARRAY(c.none, 1)), 0);
	assert_non_null(c.wide);
	assert_non_null(c.narrow);
	assert_non_null(c.none);
	for (i = 0; i < 1000; i++)
		assert_true(c.wide[i] == 0);
	c.wide[999] = UINT64_MAX;   /* all 1000 elements are 8 bytes */
	assert_int_equal(c.narrow[0] | c.narrow[1] | c.narrow[2], 0);
	IBF_FREE_ALL(c.wide, c.narrow, c.none);

	memset(&c, 0, sizeof(c));
	assert_int_equal(IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(c.narrow, 8),
					IBF_CALLOC_ARRAY(huge, SIZE_MAX / 2),
					IBF_CALLOC_ARRAY(after, 8)), -1);
	assert_non_null(c.narrow);
	assert_null(huge);
	assert_null(after);
	free(c.narrow);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calloc_all),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_binary_refused),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_scanners),
		cmocka_unit_test(test_err_prefix),
		cmocka_unit_test(test_msg_prefix),
		cmocka_unit_test(test_ofile_atomic),
		cmocka_unit_test(test_stream_lines),
		cmocka_unit_test(test_stream_errors),
	};

	return cmocka_run_group_tests_name("io", tests, NULL, NULL);
}
