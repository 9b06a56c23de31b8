/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libibflow_mpi's one query, for tools such as ibflow-a2a-bench: what the
 * all-to-alls of a communicator ran as, and what the fabric bounds them
 * by.  A tool that only finds libibflow_mpi when it is preloaded looks it
 * up at run time: dlsym(RTLD_DEFAULT, IBFLOW_MPI_A2A_INFO_SYM).
 */
#ifndef IBFLOW_MPI_H
#define IBFLOW_MPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ibflow_mpi_a2a_info {
	int usable;                /* the communicator has a working ibflow
				      context (else every call went to the
				      MPI library) */
	int aware;                 /* its fabric is known (routes traced) */
	unsigned long long liquid; /* all-to-alls run along the liquid
				      schedule, this communicator, this rank */
	unsigned long long pairwise; /* ... run pairwise */
	unsigned nframes;          /* frames of the cached schedule (0: none
				      computed yet) */
	unsigned duration;         /* its bottleneck load: no schedule has
				      fewer frames (the liquid bound is
				      duration block times) */
	double link_gbps;          /* slowest link of the hosts to the fabric,
				      Gb/s, from the topology (0: unknown) */
} ibflow_mpi_a2a_info_t;

#define IBFLOW_MPI_A2A_INFO_SYM "ibflow_mpi_a2a_info"

/* 1 and *out filled when comm has had an all-to-all through
 * libibflow_mpi (its context exists), else 0 and *out zeroed.  Local,
 * not collective. */
int ibflow_mpi_a2a_info(MPI_Comm comm, ibflow_mpi_a2a_info_t *out);

typedef int (*ibflow_mpi_a2a_info_fn)(MPI_Comm comm,
				      ibflow_mpi_a2a_info_t *out);

#ifdef __cplusplus
}
#endif
#endif
