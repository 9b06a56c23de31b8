/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Size arithmetic of the MPI integrations (a2a_mpi.c), in 64 bits and
 * checked: MPI's int counts and displacements times a datatype's
 * MPI_Count size and extent, and how PMPI_Pack / PMPI_Unpack, whose sizes
 * and positions are int, are fed in pieces.  No MPI here, so that the
 * arithmetic is unit-tested at the 2^31 and 2^32 boundaries on its own
 * (tests/unit/test_mpi_size.c).
 */
#ifndef IBFLOW_A2A_SIZE_H
#define IBFLOW_A2A_SIZE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IBF_MPI_SIZE_HIDDEN __attribute__((visibility("hidden")))

/* The most bytes one PMPI_Pack / PMPI_Unpack call is given. */
#define IBF_MPI_PIECE_MAX ((uint64_t)INT_MAX)

/* a * b in *out; false when a factor is negative or the product does not
 * fit size_t. */
IBF_MPI_SIZE_HIDDEN bool ibf_mpi_size_mul(int64_t a, int64_t b,
					  size_t *out);

/* a + b in *out; false on overflow. */
IBF_MPI_SIZE_HIDDEN bool ibf_mpi_size_add(size_t a, size_t b,
					  size_t *out);

/* Elements of tsize bytes per pack call: the most whose bytes fit limit
 * (limit itself for a zero-size type); 0 when not even one does. */
IBF_MPI_SIZE_HIDDEN uint64_t ibf_mpi_piece_elems(uint64_t tsize,
						 uint64_t limit);

/* The byte offset of element displ of a type of extent bytes (either may
 * be negative, as MPI allows); false when it does not fit 64 bits. */
IBF_MPI_SIZE_HIDDEN bool ibf_mpi_displ_bytes(int64_t displ, int64_t extent,
					     int64_t *out);

/* n blocks of count[p] elements of tsize bytes: len[p] their bytes,
 * off[p] where they start, *total the bytes of all.  packed: one after
 * the other; else where displ[p] elements of extent bytes put them (a
 * contiguous type used in place).  False when a count is negative, a
 * size or the total does not fit size_t, or (not packed) an offset is
 * negative: then the blocks are to be packed instead. */
IBF_MPI_SIZE_HIDDEN bool ibf_mpi_layout(const int *count, const int *displ,
					int n, int64_t tsize, int64_t extent,
					bool packed, size_t *len, size_t *off,
					size_t *total);

#endif
