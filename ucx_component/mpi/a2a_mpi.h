/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * MPI_Alltoall(v) semantics on top of libibflow_ucx, shared by the two
 * integrations: libibflow_mpi (PMPI interposition) and coll/ibflow (Open
 * MPI component).  What differs between them (the out-of-band exchange,
 * the fallback algorithm, how an error is raised) stays with the caller;
 * what is MPI (datatypes, MPI_IN_PLACE, communicator hints, the schedule
 * fallback's one warning) is here.  Compiled into both, hidden.
 */
#ifndef IBFLOW_A2A_MPI_H
#define IBFLOW_A2A_MPI_H

#include <stdbool.h>

#include <mpi.h>

#include <ibflow/mpi.h>
#include <ibflow/ucx.h>

#define IBF_MPI_HIDDEN __attribute__((visibility("hidden")))

/* One communicator's context. */
typedef struct ibf_mpi_ctx {
	MPI_Comm comm;
	ibf_ucx_t *u;           /* NULL: not usable, always fall back */
	int rank;
	const char *who;        /* message prefix: "ibflow-mpi", ... */
	char name[MPI_MAX_OBJECT_NAME];   /* the communicator's, at init */
	bool warned;            /* the schedule fallback was announced */
	struct ibf_mpi_ctx *older, *newer;  /* the live contexts, in the
					       order they were made */
} ibf_mpi_ctx_t;

typedef enum ibf_mpi_rc {
	IBF_MPI_DONE = 0,       /* the call ran through libibflow_ucx */
	IBF_MPI_FALLBACK,       /* run the MPI library's algorithm instead
				   (same decision on every rank) */
	IBF_MPI_FAILED,         /* err says why (e.g. a peer timed out) */
} ibf_mpi_rc_t;

/* Collective over comm: UCX_IBFLOW_* from the environment, overridden by
 * the communicator's info hints "ibflow_<var>" (e.g. ibflow_alltoall =
 * pairwise for UCX_IBFLOW_ALLTOALL), then ibf_ucx_init() with oob and the
 * process's control lane (one for all communicators, opened by the first
 * that wants it).  On failure c->u is NULL and rank 0 prints the reason
 * once: every call then falls back.  Thread-safe (contexts of different
 * communicators made at once). */
IBF_MPI_HIDDEN void ibf_mpi_ctx_init(ibf_mpi_ctx_t *c, MPI_Comm comm,
				     const char *who,
				     const ibf_ucx_oob_t *oob);
/* Prints the counters (IBFLOW_MPI_STATS set: "WHO: comm NAME rank R:
 * liquid N pairwise M frames F duration D[ liquid]", and at rank 0 each
 * rank's host "WHO: map NAME rank R: HOST (how it was found)") and
 * finalizes. */
IBF_MPI_HIDDEN void ibf_mpi_ctx_fini(ibf_mpi_ctx_t *c);

/* At MPI_Finalize, while MPI still works (collective over every process):
 * every context still live, in the order they were made (each
 * communicator's members made theirs in the same order), then the
 * process's control lane. */
IBF_MPI_HIDDEN void ibf_mpi_fini_all(void);

/* The context's counters and fabric for ibflow_mpi_a2a_info(). */
IBF_MPI_HIDDEN void ibf_mpi_ctx_info(const ibf_mpi_ctx_t *c,
				     ibflow_mpi_a2a_info_t *out);

/* MPI_Alltoall and MPI_Alltoallv, any datatypes (packed when not
 * contiguous, in pieces that fit PMPI_Pack's int sizes), MPI_IN_PLACE,
 * sizes in 64 bits: FALLBACK for a block size that does not fit (the same
 * on every rank), FAILED with the reason for a local failure, never a
 * wrong answer. */
IBF_MPI_HIDDEN ibf_mpi_rc_t ibf_mpi_alltoall(ibf_mpi_ctx_t *c,
					     const void *sbuf, int scount,
					     MPI_Datatype stype, void *rbuf,
					     int rcount, MPI_Datatype rtype,
					     ibf_ucx_err_t *err);
IBF_MPI_HIDDEN ibf_mpi_rc_t ibf_mpi_alltoallv(ibf_mpi_ctx_t *c,
					      const void *sbuf,
					      const int *scounts,
					      const int *sdispls,
					      MPI_Datatype stype, void *rbuf,
					      const int *rcounts,
					      const int *rdispls,
					      MPI_Datatype rtype,
					      ibf_ucx_err_t *err);

/* UCX_IBFLOW_BCAST=pipeline in the environment (read once): only then do
 * broadcasts create contexts. */
IBF_MPI_HIDDEN bool ibf_mpi_bcast_wanted(void);

/* MPI_Bcast along the pipelined chain (UCX_IBFLOW_BCAST=pipeline, from
 * _THRESH bytes on; else FALLBACK), any datatype (packed when not
 * contiguous). */
IBF_MPI_HIDDEN ibf_mpi_rc_t ibf_mpi_bcast(ibf_mpi_ctx_t *c, void *buf,
					  int count, MPI_Datatype type,
					  int root, ibf_ucx_err_t *err);

#endif
