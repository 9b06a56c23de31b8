/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Limits shared by every front end of libibflow: the `ibflow` command line
 * and the OpenSM plugin's ibflow.conf accept the same ranges, so a value
 * that works in one works in the other.
 */
#ifndef IBFLOW_LIMITS_H
#define IBFLOW_LIMITS_H

/* LMC of a CA port: InfiniBand allows 0..7 (2^LMC LIDs per port). */
#define IBF_LMC_MAX 7u

/* Worker threads of one computation (routing, check, evaluation). */
#define IBF_THREADS_MAX 256u

/* Layers of layered routing (each needs a LID offset: 2^LMC >= layers). */
#define IBF_LAYERS_MAX 128u

/* Data VLs a routing may use: VL0..VL14 (VL15 is for management). */
#define IBF_VLS_MAX 15u

/* Seconds a time-limited search or evaluation may be given: one day. */
#define IBF_TIME_LIMIT_MAX 86400.0

#endif
