/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The MPI integrations' size arithmetic (ucx_component/mpi/a2a_size.c)
 * at the 2^31 and 2^32 boundaries, where int counts times datatype sizes
 * stop fitting an int (what PMPI_Pack takes) or 32 bits: products, sums,
 * the elements per PMPI_Pack call, displacements, and the block layouts
 * of MPI_Alltoallv.  Expected values are written out by hand.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../ucx_component/mpi/a2a_size.h"

#define P31 ((uint64_t)1 << 31)
#define P32 ((uint64_t)1 << 32)

static void test_mul(void **state)
{
	size_t out;

	(void)state;
	assert_true(ibf_mpi_size_mul(INT_MAX, 1, &out));
	assert_int_equal(out, P31 - 1);
	assert_true(ibf_mpi_size_mul(1 << 30, 2, &out));
	assert_int_equal(out, P31);
	assert_true(ibf_mpi_size_mul(INT_MAX, 2, &out));
	assert_int_equal(out, P32 - 2);
	assert_true(ibf_mpi_size_mul(1 << 30, 4, &out));
	assert_int_equal(out, P32);
	/* 275,000,000 ints to each of 2 ranks: 2.2 GB, past an int */
	assert_true(ibf_mpi_size_mul(275000000, 4, &out));
	assert_true(ibf_mpi_size_mul((int64_t)out, 2, &out));
	assert_int_equal(out, 2200000000u);
	assert_true(out > (size_t)INT_MAX);
	assert_true(ibf_mpi_size_mul(INT_MAX, (int64_t)P32, &out));
	assert_int_equal(out, (P31 - 1) * P32);
	assert_true(ibf_mpi_size_mul(0, INT64_MAX, &out));
	assert_int_equal(out, 0);
	/* past 64 bits, and negative factors */
	assert_false(ibf_mpi_size_mul(INT64_MAX, 3, &out));
	assert_false(ibf_mpi_size_mul((int64_t)P32, (int64_t)P32, &out));
	assert_false(ibf_mpi_size_mul(-1, 4, &out));
	assert_false(ibf_mpi_size_mul(4, -1, &out));
}

static void test_add(void **state)
{
	size_t out;

	(void)state;
	assert_true(ibf_mpi_size_add(P31 - 1, 1, &out));
	assert_int_equal(out, P31);
	assert_true(ibf_mpi_size_add(P32 - 1, 1, &out));
	assert_int_equal(out, P32);
	assert_false(ibf_mpi_size_add(SIZE_MAX, 1, &out));
}

static void test_pieces(void **state)
{
	(void)state;
	/* INT_MAX = 2^31 - 1 bytes a call */
	assert_int_equal(ibf_mpi_piece_elems(1, IBF_MPI_PIECE_MAX), P31 - 1);
	assert_int_equal(ibf_mpi_piece_elems(4, IBF_MPI_PIECE_MAX),
			 536870911);
	assert_int_equal(ibf_mpi_piece_elems(8, IBF_MPI_PIECE_MAX),
			 268435455);
	assert_int_equal(ibf_mpi_piece_elems(P31 - 1, IBF_MPI_PIECE_MAX), 1);
	/* one element of 2 GiB or more does not fit one call */
	assert_int_equal(ibf_mpi_piece_elems(P31, IBF_MPI_PIECE_MAX), 0);
	assert_int_equal(ibf_mpi_piece_elems(P32, IBF_MPI_PIECE_MAX), 0);
	/* a zero-size type: any number of elements (no bytes) */
	assert_int_equal(ibf_mpi_piece_elems(0, IBF_MPI_PIECE_MAX),
			 IBF_MPI_PIECE_MAX);
	/* 550,000,000 ints (2.2 GB) take 2 calls: 536870911 + 13129089 */
	assert_int_equal(550000000 / ibf_mpi_piece_elems(4, IBF_MPI_PIECE_MAX),
			 1);
	assert_int_equal(550000000 % ibf_mpi_piece_elems(4, IBF_MPI_PIECE_MAX),
			 13129089);
}

static void test_displ(void **state)
{
	int64_t out;

	(void)state;
	assert_true(ibf_mpi_displ_bytes(INT_MAX, 8, &out));
	assert_int_equal(out, (int64_t)(P31 - 1) * 8);
	assert_true(ibf_mpi_displ_bytes(1 << 30, 4, &out));
	assert_int_equal(out, (int64_t)P32);
	assert_true(ibf_mpi_displ_bytes(-3, 16, &out));
	assert_int_equal(out, -48);
	assert_false(ibf_mpi_displ_bytes(INT64_MAX / 2, 3, &out));
}

static void test_layout(void **state)
{
	/* 3 blocks of INT_MAX, 1 and 2^30 elements */
	const int count[3] = { INT_MAX, 1, 1 << 30 };
	const int displ[3] = { 0, INT_MAX, INT_MAX - 10 };
	const int neg[3] = { 0, -1, 5 };
	const int bad[3] = { 1, -1, 1 };
	size_t len[3], off[3], total;

	(void)state;
	/* packed, 4-byte elements: 2^33 - 4, 4, 2^32 bytes */
	assert_true(ibf_mpi_layout(count, displ, 3, 4, 4, true, len, off,
				   &total));
	assert_int_equal(len[0], 4 * (P31 - 1));
	assert_int_equal(len[1], 4);
	assert_int_equal(len[2], P32);
	assert_int_equal(off[0], 0);
	assert_int_equal(off[1], 4 * (P31 - 1));
	assert_int_equal(off[2], 4 * P31);
	assert_int_equal(total, 4 * P31 + P32);
	/* in place: displ * extent, here 8 (a gap after each element) */
	assert_true(ibf_mpi_layout(count, displ, 3, 4, 8, false, len, off,
				   &total));
	assert_int_equal(off[1], 8 * (P31 - 1));
	assert_int_equal(off[2], 8 * (P31 - 11));
	assert_int_equal(total, 4 * P31 + P32);
	/* a negative displacement: fine packed, not in place */
	assert_true(ibf_mpi_layout(count, neg, 3, 4, 4, true, len, off,
				   &total));
	assert_false(ibf_mpi_layout(count, neg, 3, 4, 4, false, len, off,
				    &total));
	/* a negative count never */
	assert_false(ibf_mpi_layout(bad, displ, 3, 4, 4, true, len, off,
				    &total));
	/* zero-size type and zero counts: nothing anywhere */
	assert_true(ibf_mpi_layout(count, displ, 3, 0, 0, false, len, off,
				   &total));
	assert_int_equal(total, 0);
	assert_int_equal(len[0], 0);
	/* elements of 2^32 bytes: 2^63 - 2^32 bytes, still 64 bits; the sum
	 * with the next block is not */
	assert_true(ibf_mpi_layout(count, displ, 1, (int64_t)P32, 0, true,
				   len, off, &total));
	assert_int_equal(total, (P31 - 1) * P32);
	assert_false(ibf_mpi_layout(count, displ, 3, (int64_t)P32 * 2, 0,
				    true, len, off, &total));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mul),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_displ),
		cmocka_unit_test(test_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
