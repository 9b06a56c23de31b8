/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Private to the infer module (infer*.c): the shared seeded generator
 * (base/rng.h) and a clock.
 */
#ifndef IBFLOW_INFER_INTERNAL_H
#define IBFLOW_INFER_INTERNAL_H

#include <stdint.h>
#include <time.h>

#include <ibflow/infer.h>

#include "base/rng.h"

#define IBF_INFER_NONE UINT32_MAX

static inline double ibf_infer_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
