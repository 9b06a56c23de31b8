/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * coll/ibflow: an Open MPI collective component (built out of tree
 * against the installed developer headers) that runs MPI_Alltoall and
 * MPI_Alltoallv through libibflow_ucx (docs/ucx-alltoall.md; datatypes,
 * MPI_IN_PLACE and the communicator's hints in mpi/a2a_mpi.c) and leaves
 * everything else, and what libibflow_ucx declines, to the component
 * selected before it.
 *
 *   OMPI_MCA_mca_base_component_path=DIR:<default> mpirun ...
 *   --mca coll_ibflow_priority N (default 90)
 *
 * A communicator's context is finalized from an attribute's delete
 * callback, which MPI_Comm_free runs while the communicator still works
 * (its modules are released after, when its collectives are gone), and
 * the contexts still live at MPI_Finalize, then the process's control
 * lane, from one on MPI_COMM_SELF, which MPI_Finalize deletes first.
 */
#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/coll/base/base.h"
#include "opal/mca/base/mca_base_var.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/ucx.h>

#include "a2a_mpi.h"

typedef struct ibflow_module {
	mca_coll_base_module_t super;
	mca_coll_base_module_alltoall_fn_t prev_alltoall;
	mca_coll_base_module_t *prev_alltoall_module;
	mca_coll_base_module_alltoallv_fn_t prev_alltoallv;
	mca_coll_base_module_t *prev_alltoallv_module;
	mca_coll_base_module_bcast_fn_t prev_bcast;
	mca_coll_base_module_t *prev_bcast_module;
	ibf_mpi_ctx_t c;          /* c.u NULL until tried, or unusable */
	bool tried;
	bool closing;     /* destructor: the communicator's collectives
			     may be gone */
	ompi_communicator_t *comm;
} ibflow_module_t;

static void module_construct(ibflow_module_t *m)
{
	m->prev_alltoall = NULL;
	m->prev_alltoall_module = NULL;
	m->prev_alltoallv = NULL;
	m->prev_alltoallv_module = NULL;
	m->prev_bcast = NULL;
	m->prev_bcast_module = NULL;
	memset(&m->c, 0, sizeof(m->c));
	m->tried = false;
	m->closing = false;
	m->comm = NULL;
}

static void module_destruct(ibflow_module_t *m)
{
	/* Only a context the attribute did not finalize (see ctx_attach):
	 * the communicator's collectives may be gone, no closing exchange
	 * (see oob_allgather). */
	m->closing = true;
	ibf_mpi_ctx_fini(&m->c);
	if (m->prev_alltoall_module)
		OBJ_RELEASE(m->prev_alltoall_module);
	if (m->prev_alltoallv_module)
		OBJ_RELEASE(m->prev_alltoallv_module);
	if (m->prev_bcast_module)
		OBJ_RELEASE(m->prev_bcast_module);
}

OBJ_CLASS_INSTANCE(ibflow_module_t, mca_coll_base_module_t,
		   module_construct, module_destruct);

static int priority = 90;

/* ---- out-of-band exchange: the communicator's own allgather -------------- */

static ibf_ucx_status_t oob_allgather(void *sbuf, void *rbuf, size_t len,
				      void *coll_info, void **req)
{
	ibflow_module_t *m = coll_info;
	ompi_communicator_t *comm = m->comm;

	*req = NULL;
	if (m->closing)
		return IBF_UCX_ERR_OOB;   /* no exchange without collectives */
	if (len > INT_MAX)
		return IBF_UCX_ERR_OOB;   /* MPI's counts are int */
	return comm->c_coll->coll_allgather(sbuf, (int)len, &ompi_mpi_byte.dt,
					    rbuf, (int)len, &ompi_mpi_byte.dt,
					    comm,
					    comm->c_coll->coll_allgather_module)
		== OMPI_SUCCESS ? IBF_UCX_OK : IBF_UCX_ERR_OOB;
}

static ibf_ucx_status_t oob_done(void *req)
{
	(void)req;
	return IBF_UCX_OK;
}

/* ---- ends: MPI_Comm_free and MPI_Finalize ---------------------------------- */

static int comm_key = MPI_KEYVAL_INVALID, self_key = MPI_KEYVAL_INVALID;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

/* MPI_Comm_free of a communicator with a context (it still works). */
static int comm_attr_delete(MPI_Comm comm, int k, void *val, void *extra)
{
	ibflow_module_t *m = val;

	(void)comm;
	(void)k;
	(void)extra;
	ibf_mpi_ctx_fini(&m->c);
	OBJ_RELEASE(m);
	return MPI_SUCCESS;
}

/* MPI_Finalize, first thing. */
static int self_attr_delete(MPI_Comm comm, int k, void *val, void *extra)
{
	(void)comm;
	(void)k;
	(void)val;
	(void)extra;
	ibf_mpi_fini_all();
	return MPI_SUCCESS;
}

static void keys_make(void)
{
	if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_attr_delete,
				    &comm_key, NULL) != MPI_SUCCESS)
		comm_key = MPI_KEYVAL_INVALID;
	if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_attr_delete,
				    &self_key, NULL) != MPI_SUCCESS ||
	    PMPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL) != MPI_SUCCESS)
		self_key = MPI_KEYVAL_INVALID;
}

/* The context's end tied to its communicator's (the module kept alive
 * for it).  Without the attributes the module's release ends it. */
static void ctx_attach(ibflow_module_t *m, ompi_communicator_t *comm)
{
	if (comm_key == MPI_KEYVAL_INVALID)
		return;
	OBJ_RETAIN(m);
	if (PMPI_Comm_set_attr(comm, comm_key, m) != MPI_SUCCESS)
		OBJ_RELEASE(m);
}

/* ---- the context ------------------------------------------------------------ */

/* The context, made at the communicator's first all-to-all (collective:
 * every rank gets here with its first alltoall or alltoallv). */
static ibf_mpi_ctx_t *module_ctx(ibflow_module_t *m,
				 ompi_communicator_t *comm)
{
	if (!m->tried) {
		ibf_ucx_oob_t oob = {
			.allgather = oob_allgather, .req_test = oob_done,
			.req_free = oob_done, .coll_info = m,
			.rank = (uint32_t)ompi_comm_rank(comm),
			.size = (uint32_t)ompi_comm_size(comm) };

		m->tried = true;
		m->comm = comm;
		/* MPI_Finalize's hook before the first attempt, whatever its
		 * outcome: the process's control lane object is made by the
		 * attempt, and a job whose every context failed must close it
		 * too */
		pthread_once(&keys_once, keys_make);
		ibf_mpi_ctx_init(&m->c, comm, "coll/ibflow", &oob);
		if (m->c.u)
			ctx_attach(m, comm);
	}
	return &m->c;
}

/* What an ibflow call came to: true with *rc the MPI result (a failure
 * said on stderr), or false: the previous module's turn. */
static bool handled(ibf_mpi_rc_t r, const ibf_ucx_err_t *err, int *rc)
{
	switch (r) {
	case IBF_MPI_DONE:
		*rc = OMPI_SUCCESS;
		return true;
	case IBF_MPI_FAILED:
		fprintf(stderr, "coll/ibflow: %s\n", err->msg);
		/* MPI_Alltoall hands it to the communicator's error
		 * handler */
		*rc = MPI_ERR_OTHER;
		return true;
	case IBF_MPI_FALLBACK:
		break;
	}
	return false;
}

static int ibflow_alltoall(const void *sbuf, int scount,
			   struct ompi_datatype_t *sdtype, void *rbuf,
			   int rcount, struct ompi_datatype_t *rdtype,
			   struct ompi_communicator_t *comm,
			   mca_coll_base_module_t *module)
{
	ibflow_module_t *m = (ibflow_module_t *)module;
	ibf_ucx_err_t err;
	int rc;

	if (handled(ibf_mpi_alltoall(module_ctx(m, comm), sbuf, scount, sdtype,
				     rbuf, rcount, rdtype, &err), &err, &rc))
		return rc;
	return m->prev_alltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype,
				comm, m->prev_alltoall_module);
}

static int ibflow_alltoallv(const void *sbuf, const int *scounts,
			    const int *sdispls,
			    struct ompi_datatype_t *sdtype, void *rbuf,
			    const int *rcounts, const int *rdispls,
			    struct ompi_datatype_t *rdtype,
			    struct ompi_communicator_t *comm,
			    mca_coll_base_module_t *module)
{
	ibflow_module_t *m = (ibflow_module_t *)module;
	ibf_ucx_err_t err;
	int rc;

	if (handled(ibf_mpi_alltoallv(module_ctx(m, comm), sbuf, scounts,
				      sdispls, sdtype, rbuf, rcounts, rdispls,
				      rdtype, &err), &err, &rc))
		return rc;
	return m->prev_alltoallv(sbuf, scounts, sdispls, sdtype, rbuf,
				 rcounts, rdispls, rdtype, comm,
				 m->prev_alltoallv_module);
}

/* Installed only with UCX_IBFLOW_BCAST=pipeline (comm_query). */
static int ibflow_bcast(void *buf, int count, struct ompi_datatype_t *dtype,
			int root, struct ompi_communicator_t *comm,
			mca_coll_base_module_t *module)
{
	ibflow_module_t *m = (ibflow_module_t *)module;
	ibf_ucx_err_t err;
	int rc;

	if (handled(ibf_mpi_bcast(module_ctx(m, comm), buf, count, dtype, root,
				  &err), &err, &rc))
		return rc;
	return m->prev_bcast(buf, count, dtype, root, comm,
			     m->prev_bcast_module);
}

static int module_enable(mca_coll_base_module_t *module,
			 struct ompi_communicator_t *comm)
{
	ibflow_module_t *m = (ibflow_module_t *)module;

	/* the functions selected before this module: the fallbacks */
	if (!comm->c_coll->coll_alltoall || !comm->c_coll->coll_alltoallv)
		return OMPI_ERROR;
	m->prev_alltoall = comm->c_coll->coll_alltoall;
	m->prev_alltoall_module = comm->c_coll->coll_alltoall_module;
	OBJ_RETAIN(m->prev_alltoall_module);
	m->prev_alltoallv = comm->c_coll->coll_alltoallv;
	m->prev_alltoallv_module = comm->c_coll->coll_alltoallv_module;
	OBJ_RETAIN(m->prev_alltoallv_module);
	if (m->super.coll_bcast) {
		if (!comm->c_coll->coll_bcast)
			return OMPI_ERROR;
		m->prev_bcast = comm->c_coll->coll_bcast;
		m->prev_bcast_module = comm->c_coll->coll_bcast_module;
		OBJ_RETAIN(m->prev_bcast_module);
	}
	return OMPI_SUCCESS;
}

static int init_query(bool enable_progress_threads,
		      bool enable_mpi_threads)
{
	(void)enable_progress_threads;
	(void)enable_mpi_threads;
	return OMPI_SUCCESS;
}

static mca_coll_base_module_t *comm_query(struct ompi_communicator_t *comm,
					  int *prio)
{
	ibflow_module_t *m;

	if (OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 ||
	    priority < 0)
		return NULL;
	m = OBJ_NEW(ibflow_module_t);
	if (!m)
		return NULL;
	*prio = priority;
	m->super.coll_module_enable = module_enable;
	m->super.coll_alltoall = ibflow_alltoall;
	m->super.coll_alltoallv = ibflow_alltoallv;
	if (ibf_mpi_bcast_wanted())
		m->super.coll_bcast = ibflow_bcast;
	return &m->super;
}

static int register_params(void);

mca_coll_base_component_2_0_0_t mca_coll_ibflow_component = {
	.collm_version = {
		MCA_COLL_BASE_VERSION_2_0_0,
		.mca_component_name = "ibflow",
		MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
		.mca_register_component_params = register_params,
	},
	.collm_data = { MCA_BASE_METADATA_PARAM_CHECKPOINT, { 0 } },
	.collm_init_query = init_query,
	.collm_comm_query = comm_query,
};

static int register_params(void)
{
	(void)mca_base_component_var_register(
		&mca_coll_ibflow_component.collm_version, "priority",
		"Priority of coll/ibflow (alltoall(v) through libibflow_ucx)",
		MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6,
		MCA_BASE_VAR_SCOPE_READONLY, &priority);
	return OMPI_SUCCESS;
}
