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
	unlink(path);
	rmdir(dir);
	/* A directory that does not exist is an I/O error naming the path. */
	assert_int_equal(ibf_ofile_open(&o, "/nonexistent/dir/f", &err),
			 IBF_ERR_IO);
	assert_non_null(strstr(err.msg, "/nonexistent/dir/f"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_binary_refused),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_scanners),
		cmocka_unit_test(test_err_prefix),
		cmocka_unit_test(test_ofile_atomic),
	};

	return cmocka_run_group_tests_name("io", tests, NULL, NULL);
}
