/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libibflow_mpi: MPI_Alltoall, MPI_Alltoallv and (UCX_IBFLOW_BCAST=
 * pipeline) MPI_Bcast through libibflow_ucx (PMPI interposition:
 * LD_PRELOAD it, or link it before libmpi).
 *
 * Each communicator gets its own ibflow context (own UCP worker, so tags
 * of different communicators never meet), created at its first
 * all-to-all with PMPI_Allgather on that communicator as the out-of-band
 * exchange and cached in an attribute; MPI_Comm_free (and MPI_Finalize
 * for MPI_COMM_WORLD) finalizes it.  When the context cannot be made,
 * UCX_IBFLOW_ALLTOALL=off, or auto finds no fabric or a small block, the
 * call goes to PMPI_ unchanged.  Datatypes, MPI_IN_PLACE and the
 * communicator's ibflow_* info hints: a2a_mpi.c.  See docs/ucx-alltoall.md.
 *
 * Control messages of every communicator share one control lane per
 * process (a2a_mpi.c), closed at MPI_Finalize after the contexts still
 * live.  Under MPI_THREAD_MULTIPLE, threads may make and use contexts of
 * different communicators at once (MPI already forbids concurrent
 * collectives on one).
 *
 * IBFLOW_MPI_STATS=1 prints each process's counters at MPI_Finalize (what
 * the tests assert the path taken with).
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <ibflow/ucx.h>

#include "a2a_mpi.h"

/* Process-wide state of the interposer: the attribute key (made once,
 * whichever thread comes first) and counters (atomic).  (MPI itself is
 * process-global; this is the one place that mirrors it.) */
static int key = MPI_KEYVAL_INVALID;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static unsigned long n_ibflow, n_pmpi;

/* ---- out-of-band exchange over the communicator -------------------------- */

static ibf_ucx_status_t oob_allgather(void *sbuf, void *rbuf, size_t len,
				      void *coll_info, void **req)
{
	MPI_Comm comm = *(MPI_Comm *)coll_info;

	*req = NULL;
	if (len > INT_MAX)
		return IBF_UCX_ERR_OOB;   /* MPI's counts are int */
	return PMPI_Allgather(sbuf, (int)len, MPI_BYTE, rbuf, (int)len,
			      MPI_BYTE, comm) == MPI_SUCCESS ?
		IBF_UCX_OK : IBF_UCX_ERR_OOB;
}

static ibf_ucx_status_t oob_test(void *req)
{
	(void)req;
	return IBF_UCX_OK;
}

static ibf_ucx_status_t oob_free(void *req)
{
	(void)req;
	return IBF_UCX_OK;
}

/* ---- per-communicator context ----------------------------------------------- */

static int ctx_delete(MPI_Comm comm, int k, void *val, void *extra)
{
	ibf_mpi_ctx_t *c = val;

	(void)comm;
	(void)k;
	(void)extra;
	ibf_mpi_ctx_fini(c);
	free(c);
	return MPI_SUCCESS;
}

static void key_make(void)
{
	if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, ctx_delete, &key,
				    NULL) != MPI_SUCCESS)
		key = MPI_KEYVAL_INVALID;
}

static ibf_mpi_ctx_t *ctx_get(MPI_Comm comm)
{
	ibf_ucx_oob_t oob;
	ibf_mpi_ctx_t *c;
	void *val;
	int flag, rank, size, inter;

	if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
		return NULL;
	pthread_once(&key_once, key_make);
	if (key == MPI_KEYVAL_INVALID)
		return NULL;
	if (PMPI_Comm_get_attr(comm, key, &val, &flag) == MPI_SUCCESS && flag)
		return val;
	if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
	    PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;     /* every rank runs out alike or MPI fails */
	/* coll_info points at the context's own copy of the handle */
	c->comm = comm;
	oob = (ibf_ucx_oob_t){ .allgather = oob_allgather, .req_test = oob_test,
			       .req_free = oob_free, .coll_info = &c->comm,
			       .rank = (uint32_t)rank, .size = (uint32_t)size };
	ibf_mpi_ctx_init(c, comm, "ibflow-mpi", &oob);
	if (PMPI_Comm_set_attr(comm, key, c) != MPI_SUCCESS) {
		/* not kept: ended now (collective, as its making was) */
		ibf_mpi_ctx_fini(c);
		free(c);
		return NULL;
	}
	return c;
}

static int fail(MPI_Comm comm, const ibf_ucx_err_t *err)
{
	fprintf(stderr, "ibflow-mpi: %s\n", err->msg);
	/* fatal by default; with MPI_ERRORS_RETURN the caller sees it */
	PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}

/* The outcome of a call libibflow_ucx took: MPI_SUCCESS or the error
 * (both counted as ours), or -1 when the MPI library is to run it. */
static int ours(ibf_mpi_rc_t r, MPI_Comm comm, const ibf_ucx_err_t *err)
{
	switch (r) {
	case IBF_MPI_DONE:
		__atomic_fetch_add(&n_ibflow, 1, __ATOMIC_RELAXED);
		return MPI_SUCCESS;
	case IBF_MPI_FAILED:
		__atomic_fetch_add(&n_ibflow, 1, __ATOMIC_RELAXED);
		return fail(comm, err);
	case IBF_MPI_FALLBACK:
		break;
	}
	__atomic_fetch_add(&n_pmpi, 1, __ATOMIC_RELAXED);
	return -1;
}

/* ---- MPI_Alltoall(v) ------------------------------------------------------- */

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype,
		 void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	ibf_mpi_ctx_t *c = ctx_get(comm);
	ibf_ucx_err_t err;
	int rc;

	rc = ours(c ? ibf_mpi_alltoall(c, sbuf, scount, stype, rbuf, rcount,
				       rtype, &err) : IBF_MPI_FALLBACK,
		  comm, &err);
	if (rc >= 0)
		return rc;
	return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
		  MPI_Datatype stype, void *rbuf, const int *rcounts,
		  const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
	ibf_mpi_ctx_t *c = ctx_get(comm);
	ibf_ucx_err_t err;
	int rc;

	rc = ours(c ? ibf_mpi_alltoallv(c, sbuf, scounts, sdispls, stype,
					rbuf, rcounts, rdispls, rtype, &err) :
		  IBF_MPI_FALLBACK, comm, &err);
	if (rc >= 0)
		return rc;
	return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts,
			      rdispls, rtype, comm);
}

/* ---- MPI_Bcast ----------------------------------------------------------------- */

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
	      MPI_Comm comm)
{
	ibf_mpi_ctx_t *c = ibf_mpi_bcast_wanted() ? ctx_get(comm) : NULL;
	ibf_ucx_err_t err;
	int rc;

	rc = ours(c ? ibf_mpi_bcast(c, buf, count, type, root, &err) :
		  IBF_MPI_FALLBACK, comm, &err);
	if (rc >= 0)
		return rc;
	return PMPI_Bcast(buf, count, type, root, comm);
}

/* ---- the query for tools ---------------------------------------------------- */

/* Exported (include/ibflow/mpi.h): reads the communicator's context, if it
 * has one, without making one. */
int ibflow_mpi_a2a_info(MPI_Comm comm, ibflow_mpi_a2a_info_t *out)
{
	void *val;
	int flag = 0;

	memset(out, 0, sizeof(*out));
	if (key == MPI_KEYVAL_INVALID ||
	    PMPI_Comm_get_attr(comm, key, &val, &flag) != MPI_SUCCESS || !flag)
		return 0;
	ibf_mpi_ctx_info(val, out);
	return 1;
}

/* ---- finalize: the contexts and the lane before MPI goes ------------------ */

int MPI_Finalize(void)
{
	int rank, flag = 0;
	void *val;

	if (key != MPI_KEYVAL_INVALID) {
		/* every live context (communicators not freed, world's),
		 * then the control lane, before MPI goes */
		ibf_mpi_fini_all();
		if (PMPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag) ==
		    MPI_SUCCESS && flag)
			PMPI_Comm_delete_attr(MPI_COMM_WORLD, key);
		if (getenv("IBFLOW_MPI_STATS")) {
			PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
			fprintf(stderr, "ibflow-mpi: rank %d: calls ibflow "
				"%lu pmpi %lu\n", rank, n_ibflow, n_pmpi);
		}
	}
	return PMPI_Finalize();
}
