/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libibflow_ucx inside an MPI program: the OOB allgather is MPI's own
 * (MPI_Iallgather + MPI_Test, as an MPI integration would pass it), the
 * context lives beside Open MPI's pml ucx.  Checks what MPI can verify on
 * its own: rank and size equal MPI's, every process's broadcast buffer
 * equals the root's pattern (compared with MPI_Allreduce), the accessors
 * (configuration, UCP handles, hosts of an unaware context), all pairs are
 * probed (topology-unaware) and the RTT matrix every rank got is the same
 * (MPI_Allreduce of the bytes), finalize is clean.  Prints TAP lines from
 * rank 0; exit status 0 only if all passed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <ibflow/ucx.h>

typedef struct oob_req {
	MPI_Request r;
} oob_req_t;

static ibf_ucx_status_t mpi_allgather(void *sbuf, void *rbuf, size_t len,
				      void *coll_info, void **req)
{
	oob_req_t *q = malloc(sizeof(*q));

	if (!q)
		return IBF_UCX_ERR_NOMEM;
	if (MPI_Iallgather(sbuf, (int)len, MPI_BYTE, rbuf, (int)len, MPI_BYTE,
			   *(MPI_Comm *)coll_info, &q->r) != MPI_SUCCESS) {
		free(q);
		return IBF_UCX_ERR_OOB;
	}
	*req = q;
	return IBF_UCX_OK;
}

static ibf_ucx_status_t mpi_test(void *req)
{
	oob_req_t *q = req;
	int done = 0;

	if (MPI_Test(&q->r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return IBF_UCX_ERR_OOB;
	return done ? IBF_UCX_OK : IBF_UCX_INPROGRESS;
}

static ibf_ucx_status_t mpi_free(void *req)
{
	free(req);
	return IBF_UCX_OK;
}

static int nfail;

static void report(int rank, int ok, const char *what, const char *why)
{
	int all = 0;

	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%s - mpi_oob: %s%s%s\n", all ? "ok" : "not ok", what,
		       all ? "" : " # ", all ? "" : why);
	nfail += !all;
}

int main(int argc, char **argv)
{
	MPI_Comm comm = MPI_COMM_WORLD;
	ibf_ucx_oob_t oob = { mpi_allgather, mpi_test, mpi_free, &comm, 0, 0 };
	ibf_ucx_params_t p = { .oob = &oob };
	ibf_ucx_probe_opts_t po;
	ibf_ucx_probe_result_t res;
	ibf_ucx_t *u = NULL;
	ibf_ucx_err_t e;
	unsigned char buf[4096], *mat, *sum;
	int rank, size, ok, i;
	size_t n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	oob.rank = (uint32_t)rank;
	oob.size = (uint32_t)size;
	ok = ibf_ucx_init(&p, &u, &e) == IBF_UCX_OK;
	report(rank, ok, "ibf_ucx_init over MPI_Iallgather", e.msg);
	if (!ok)
		goto out;
	report(rank, ibf_ucx_rank(u) == (uint32_t)rank &&
	       ibf_ucx_size(u) == (uint32_t)size, "rank and size are MPI's", "");
	report(rank, ibf_ucx_get_config(u) &&
	       ibf_ucx_config_timeout(ibf_ucx_get_config(u)) == 60 &&
	       ibf_ucx_ucp_context(u) && ibf_ucx_ucp_worker(u),
	       "the context's configuration (UCX_IBFLOW_TIMEOUT=60s), UCP "
	       "context and worker", "");
	/* no fabric given: unaware, every process a host of its own, in
	 * rank order, each its own leader */
	ok = !ibf_ucx_topology_aware(u) && !ibf_ucx_lfts(u) &&
	     !ibf_ucx_fabric(u) && ibf_ucx_nhosts(u) == (uint32_t)size &&
	     ibf_ucx_host_leader(u, (uint32_t)size) == UINT32_MAX;
	for (i = 0; ok && i < size; i++)
		ok = ibf_ucx_host_leader(u, (uint32_t)i) == (uint32_t)i &&
		     ibf_ucx_rank_host(u, (uint32_t)i) == (uint32_t)i;
	report(rank, ok, "unaware: hosts, leaders and no tables", "");
	report(rank, !strcmp(ibf_ucx_a2a_alg_str(IBF_UCX_A2A_NONE), "none") &&
	       !strcmp(ibf_ucx_a2a_alg_str(IBF_UCX_A2A_LIQUID), "liquid") &&
	       !strcmp(ibf_ucx_a2a_alg_str(IBF_UCX_A2A_PAIRWISE), "pairwise") &&
	       !strcmp(ibf_ucx_a2a_alg_str((ibf_ucx_a2a_alg_t)7), "?"),
	       "all-to-all algorithm names", "");
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = rank == 1 % size ? (unsigned char)(i * 7 + 3) : 0;
	ok = ibf_ucx_bcast(u, 1 % size, buf, sizeof(buf), &e) == IBF_UCX_OK;
	for (i = 0; ok && i < (int)sizeof(buf); i++)
		ok = buf[i] == (unsigned char)(i * 7 + 3);
	report(rank, ok, "4 KiB broadcast from rank 1 arrives intact", e.msg);
	ok = ibf_ucx_barrier(u, &e) == IBF_UCX_OK;
	report(rank, ok, "barrier", e.msg);
	ibf_ucx_probe_opts_init(u, &po);
	po.all_pairs = true;
	ok = ibf_ucx_probe(u, &po, &res, &e) == IBF_UCX_OK;
	report(rank, ok, "all-pairs probe", e.msg);
	if (ok) {
		n = (size_t)size * size * sizeof(double);
		mat = (unsigned char *)res.rtt;
		sum = malloc(n);
		/* every rank holds rank 0's matrix: bytes equal to the
		 * bitwise AND and OR over ranks */
		MPI_Allreduce(mat, sum, (int)n, MPI_BYTE, MPI_BAND, comm);
		ok = !memcmp(mat, sum, n);
		MPI_Allreduce(mat, sum, (int)n, MPI_BYTE, MPI_BOR, comm);
		ok = ok && !memcmp(mat, sum, n);
		for (i = 0; ok && i < size * size; i++)
			ok = (i % (size + 1) == 0) ? isnan(res.rtt[i]) :
			     res.rtt[i] > 0 && isfinite(res.rtt[i]);
		report(rank, ok, "every rank got the same RTT matrix, all pairs "
		       "positive", "");
		free(sum);
		ibf_ucx_probe_result_free(&res);
	}
	ok = ibf_ucx_finalize(u, &e) == IBF_UCX_OK;
	report(rank, ok, "finalize", e.msg);
out:
	MPI_Finalize();
	return nfail ? 1 : 0;
}
