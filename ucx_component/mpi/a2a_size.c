/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Checked 64-bit size arithmetic of the MPI integrations (a2a_size.h). */
#include "a2a_size.h"

bool ibf_mpi_size_mul(int64_t a, int64_t b, size_t *out)
{
	if (a < 0 || b < 0)
		return false;
	return !__builtin_mul_overflow((uint64_t)a, (uint64_t)b, out);
}

bool ibf_mpi_size_add(size_t a, size_t b, size_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

uint64_t ibf_mpi_piece_elems(uint64_t tsize, uint64_t limit)
{
	return tsize ? limit / tsize : limit;
}

bool ibf_mpi_displ_bytes(int64_t displ, int64_t extent, int64_t *out)
{
	return !__builtin_mul_overflow(displ, extent, out);
}

bool ibf_mpi_layout(const int *count, const int *displ, int n, int64_t tsize,
		    int64_t extent, bool packed, size_t *len, size_t *off,
		    size_t *total)
{
	size_t sum = 0, end;
	int64_t at;
	int p;

	for (p = 0; p < n; p++) {
		if (!ibf_mpi_size_mul(count[p], tsize, &len[p]))
			return false;
		if (packed) {
			off[p] = sum;
		} else {
			if (!ibf_mpi_displ_bytes(displ[p], extent, &at) ||
			    at < 0)
				return false;
			off[p] = (size_t)at;
			/* the block's end must be addressable too */
			if (!ibf_mpi_size_add(off[p], len[p], &end))
				return false;
		}
		if (!ibf_mpi_size_add(sum, len[p], &sum))
			return false;
	}
	*total = sum;
	return true;
}
