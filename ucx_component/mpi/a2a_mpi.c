/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * MPI_Alltoall(v) on libibflow_ucx for both MPI integrations (a2a_mpi.h).
 *
 * Contiguous datatypes go from and into the user's buffers; anything else
 * (and MPI_IN_PLACE, whose send data is the receive buffer the call
 * overwrites) is packed with PMPI_Pack into a contiguous image first and
 * unpacked after, so that gaps of a datatype keep their bytes exactly as
 * the MPI library's own algorithms leave them.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_mpi.h"

#define HINT_PREFIX "ibflow_"

/* ---- context ----------------------------------------------------------- */

/* Apply the communicator's "ibflow_<var>" info hints to cfg. */
static ibf_ucx_status_t apply_hints(MPI_Comm comm, ibf_ucx_config_t *cfg,
				    ibf_ucx_err_t *err)
{
	char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
	char var[MPI_MAX_INFO_KEY + 1];
	ibf_ucx_status_t st = IBF_UCX_OK;
	MPI_Info info;
	int n, i, flag;
	size_t k;

	if (PMPI_Comm_get_info(comm, &info) != MPI_SUCCESS)
		return IBF_UCX_OK;   /* no hints: the environment's values */
	PMPI_Info_get_nkeys(info, &n);
	for (i = 0; i < n && st == IBF_UCX_OK; i++) {
		PMPI_Info_get_nthkey(info, i, key);
		if (strncmp(key, HINT_PREFIX, strlen(HINT_PREFIX)))
			continue;
		PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
		if (!flag)
			continue;
		for (k = 0; key[strlen(HINT_PREFIX) + k]; k++)
			var[k] = (char)toupper(
				(unsigned char)key[strlen(HINT_PREFIX) + k]);
		var[k] = '\0';
		st = ibf_ucx_config_modify(cfg, var, val, err);
		if (st != IBF_UCX_OK) {
			char m[IBF_UCX_ERR_MSG_MAX];

			/* the message names the variable; say where from */
			memcpy(m, err->msg, sizeof(m));
			snprintf(err->msg, sizeof(err->msg),
				 "communicator info hint %.64s: %.900s", key,
				 m);
		}
	}
	PMPI_Info_free(&info);
	return st;
}

void ibf_mpi_ctx_init(ibf_mpi_ctx_t *c, MPI_Comm comm, const char *who,
		      const ibf_ucx_oob_t *oob)
{
	ibf_ucx_params_t p = { .oob = oob };
	ibf_ucx_config_t *cfg = NULL;
	ibf_ucx_err_t err;
	ibf_ucx_status_t st;

	memset(c, 0, sizeof(*c));
	c->comm = comm;
	c->who = who;
	c->rank = (int)oob->rank;
	{
		int len = 0;

		PMPI_Comm_get_name(comm, c->name, &len);
	}
	/* Every rank sees the same environment and hints, so all of them
	 * fail here alike; ibf_ucx_init itself is collective. */
	st = ibf_ucx_config_read(&cfg, &err);
	if (st == IBF_UCX_OK)
		st = apply_hints(comm, cfg, &err);
	if (st == IBF_UCX_OK) {
		p.config = cfg;
		st = ibf_ucx_init(&p, &c->u, &err);
	}
	if (cfg)
		ibf_ucx_config_release(cfg);
	if (st != IBF_UCX_OK) {
		c->u = NULL;
		if (c->rank == 0)
			fprintf(stderr, "%s: %s; using the MPI library's "
				"all-to-all\n", who, err.msg);
	}
}

void ibf_mpi_ctx_fini(ibf_mpi_ctx_t *c)
{
	ibf_ucx_a2a_stats_t s;

	if (!c->u)
		return;
	if (getenv("IBFLOW_MPI_STATS")) {
		uint32_t r;
		char host[256];

		/* where the ranks are, as the schedule saw them */
		for (r = 0; c->rank == 0 && r < ibf_ucx_size(c->u); r++)
			fprintf(stderr, "%s: map %s rank %u: %s (%s)\n", c->who,
				c->name, r, ibf_ucx_host_name(c->u,
				ibf_ucx_rank_host(c->u, r), host, sizeof(host)),
				ibf_ucx_rank_source(c->u, r));
		ibf_ucx_a2a_stats(c->u, &s);
		fprintf(stderr, "%s: comm %s rank %d: liquid %llu pairwise "
			"%llu frames %u duration %u%s\n", c->who, c->name,
			c->rank,
			(unsigned long long)s.liquid,
			(unsigned long long)s.pairwise, s.nframes,
			s.duration, s.schedule_liquid ? " liquid" : "");
		if (ibf_ucx_bcast_pipeline_calls(c->u))
			fprintf(stderr, "%s: comm %s rank %d: bcast-pipeline "
				"%llu\n", c->who, c->name, c->rank,
				(unsigned long long)
				ibf_ucx_bcast_pipeline_calls(c->u));
	}
	ibf_ucx_finalize(c->u, NULL);
	c->u = NULL;
}

/* ---- datatypes ------------------------------------------------------------ */

/* Contiguous: count elements are size * count bytes starting at buf. */
static bool type_contig(MPI_Datatype t, int *size, MPI_Aint *extent)
{
	MPI_Aint lb, tlb, text;

	PMPI_Type_size(t, size);
	PMPI_Type_get_extent(t, &lb, extent);
	PMPI_Type_get_true_extent(t, &tlb, &text);
	return lb == 0 && tlb == 0 && *extent == *size && text == *size;
}

/* The call's outcome from libibflow_ucx's status: a schedule that cannot
 * be computed sends the call (and, as select() then says none, all later
 * ones) to the MPI library, announced once. */
static ibf_mpi_rc_t outcome(ibf_mpi_ctx_t *c, ibf_ucx_status_t st,
			    const ibf_ucx_err_t *err)
{
	if (st == IBF_UCX_OK)
		return IBF_MPI_DONE;
	if (st == IBF_UCX_ERR_DECLINED) {
		/* auto's choice, no error: said only when asked */
		if (!c->warned && c->rank == 0 && getenv("IBFLOW_MPI_STATS"))
			fprintf(stderr, "%s: %s; the MPI library's all-to-all "
				"on this communicator\n", c->who, err->msg);
		c->warned = true;
		return IBF_MPI_FALLBACK;
	}
	if (st != IBF_UCX_ERR_SCHEDULE)
		return IBF_MPI_FAILED;
	if (!c->warned && c->rank == 0)
		fprintf(stderr, "%s: warning: %s; using the MPI library's "
			"all-to-all on this communicator\n", c->who,
			err->msg);
	c->warned = true;
	return IBF_MPI_FALLBACK;
}

static ibf_mpi_rc_t nomem(ibf_ucx_err_t *err)
{
	err->status = IBF_UCX_ERR_NOMEM;
	snprintf(err->msg, sizeof(err->msg), "all-to-all: out of memory");
	return IBF_MPI_FAILED;
}

/* ---- MPI_Alltoall ------------------------------------------------------------ */

ibf_mpi_rc_t ibf_mpi_alltoall(ibf_mpi_ctx_t *c, const void *sbuf, int scount,
			      MPI_Datatype stype, void *rbuf, int rcount,
			      MPI_Datatype rtype, ibf_ucx_err_t *err)
{
	int ssize, rsize, size, pos;
	MPI_Aint sext, rext;
	char *spack = NULL, *rpack = NULL;
	const void *s = sbuf;
	void *r = rbuf;
	size_t block, total;
	ibf_ucx_status_t st;
	ibf_mpi_rc_t rc;

	if (!c->u)
		return IBF_MPI_FALLBACK;
	PMPI_Comm_size(c->comm, &size);
	/* type signatures match: the receive side says what travels */
	if (!type_contig(rtype, &rsize, &rext))
		r = NULL;     /* into rpack, unpacked after */
	block = (size_t)rsize * (size_t)rcount;
	total = block * (size_t)size;
	if (ibf_ucx_alltoall_select(c->u, block) == IBF_UCX_A2A_NONE)
		return IBF_MPI_FALLBACK;
	if (sbuf == MPI_IN_PLACE || !type_contig(stype, &ssize, &sext)) {
		spack = malloc(total + 1);
		if (!spack)
			return nomem(err);
		pos = 0;
		if (sbuf == MPI_IN_PLACE)
			PMPI_Pack(rbuf, rcount * size, rtype, spack,
				  (int)total, &pos, c->comm);
		else
			PMPI_Pack(sbuf, scount * size, stype, spack,
				  (int)total, &pos, c->comm);
		s = spack;
	}
	if (!r) {
		rpack = malloc(total + 1);
		if (!rpack) {
			free(spack);
			return nomem(err);
		}
		r = rpack;
	}
	st = ibf_ucx_alltoall(c->u, s, r, block, IBF_UCX_A2A_NONE, err);
	rc = outcome(c, st, err);
	if (rc == IBF_MPI_DONE && rpack) {
		pos = 0;
		PMPI_Unpack(rpack, (int)total, &pos, rbuf, rcount * size,
			    rtype, c->comm);
	}
	free(spack);
	free(rpack);
	return rc;
}

/* ---- MPI_Alltoallv ---------------------------------------------------------- */

/* Lengths and offsets of n blocks of count[p] elements of type t, packed
 * one after the other (packed) or where displ[p] puts them (in place
 * form of a contiguous type); returns the total bytes. */
static size_t layout(const int *count, const int *displ, MPI_Datatype t,
		     int n, bool packed, size_t *len, size_t *off)
{
	MPI_Aint lb, ext;
	size_t total = 0;
	int tsize, p;

	PMPI_Type_size(t, &tsize);
	PMPI_Type_get_extent(t, &lb, &ext);
	for (p = 0; p < n; p++) {
		len[p] = (size_t)count[p] * (size_t)tsize;
		off[p] = packed ? total : (size_t)displ[p] * (size_t)ext;
		total += len[p];
	}
	return total;
}

static char *pack_blocks(const void *buf, const int *count, const int *displ,
			 MPI_Datatype t, int n, const size_t *off,
			 size_t total, MPI_Comm comm)
{
	MPI_Aint lb, ext;
	char *out = malloc(total + 1);
	int p, pos;

	if (!out)
		return NULL;
	PMPI_Type_get_extent(t, &lb, &ext);
	for (p = 0; p < n; p++) {
		pos = (int)off[p];
		PMPI_Pack((const char *)buf + (MPI_Aint)displ[p] * ext,
			  count[p], t, out, (int)total, &pos, comm);
	}
	return out;
}

ibf_mpi_rc_t ibf_mpi_alltoallv(ibf_mpi_ctx_t *c, const void *sbuf,
			       const int *scounts, const int *sdispls,
			       MPI_Datatype stype, void *rbuf,
			       const int *rcounts, const int *rdispls,
			       MPI_Datatype rtype, ibf_ucx_err_t *err)
{
	int size, p, tsize;
	size_t *sl, *so, *rl, *ro, stot, rtot;
	char *spack = NULL, *rpack = NULL;
	bool in_place = sbuf == MPI_IN_PLACE, rdirect, sdirect;
	MPI_Aint ext;
	ibf_ucx_status_t st;
	ibf_mpi_rc_t rc;

	/* block sizes differ between ranks and the choice must not: only
	 * the mode and the fabric decide (the threshold does not apply) */
	if (!c->u || ibf_ucx_alltoall_select(c->u, SIZE_MAX) ==
	    IBF_UCX_A2A_NONE)
		return IBF_MPI_FALLBACK;
	PMPI_Comm_size(c->comm, &size);
	sl = malloc(4 * sizeof(size_t) * (size_t)size);
	if (!sl)
		return nomem(err);
	so = sl + size;
	rl = so + size;
	ro = rl + size;
	rdirect = type_contig(rtype, &tsize, &ext);
	sdirect = !in_place && type_contig(stype, &tsize, &ext);
	if (in_place) {
		stot = layout(rcounts, rdispls, rtype, size, true, sl, so);
		spack = pack_blocks(rbuf, rcounts, rdispls, rtype, size, so,
				    stot, c->comm);
	} else {
		stot = layout(scounts, sdispls, stype, size, !sdirect, sl, so);
		if (!sdirect)
			spack = pack_blocks(sbuf, scounts, sdispls, stype,
					    size, so, stot, c->comm);
	}
	rtot = layout(rcounts, rdispls, rtype, size, !rdirect, rl, ro);
	if (!rdirect)
		rpack = malloc(rtot + 1);
	if ((!sdirect && !spack) || (!rdirect && !rpack)) {
		rc = nomem(err);
		goto out;
	}
	st = ibf_ucx_alltoallv(c->u, sdirect ? sbuf : spack, sl, so,
			       rdirect ? rbuf : rpack, rl, ro,
			       IBF_UCX_A2A_NONE, err);
	rc = outcome(c, st, err);
	if (rc == IBF_MPI_DONE && rpack) {
		MPI_Aint lb;

		PMPI_Type_get_extent(rtype, &lb, &ext);
		for (p = 0; p < size; p++) {
			int pos = (int)ro[p];

			PMPI_Unpack(rpack, (int)(ro[p] + rl[p]), &pos,
				    (char *)rbuf + (MPI_Aint)rdispls[p] * ext,
				    rcounts[p], rtype, c->comm);
		}
	}
out:
	free(spack);
	free(rpack);
	free(sl);
	return rc;
}

/* ---- MPI_Bcast ------------------------------------------------------------------ */

bool ibf_mpi_bcast_wanted(void)
{
	/* the environment, read once per process as MPI reads its own */
	static int mode = -1;
	ibf_ucx_config_t *cfg;
	char val[32] = "";

	if (mode >= 0)
		return mode;
	mode = 0;
	if (ibf_ucx_config_read(&cfg, NULL) == IBF_UCX_OK) {
		if (ibf_ucx_config_get(cfg, "BCAST", val, sizeof(val), NULL) ==
		    IBF_UCX_OK)
			mode = !strcmp(val, "pipeline");
		ibf_ucx_config_release(cfg);
	}
	return mode;
}

ibf_mpi_rc_t ibf_mpi_bcast(ibf_mpi_ctx_t *c, void *buf, int count,
			   MPI_Datatype type, int root, ibf_ucx_err_t *err)
{
	int tsize, pos = 0;
	MPI_Aint ext;
	char *pack = NULL;
	void *data = buf;
	size_t len;
	ibf_ucx_status_t st;

	if (!c->u || count <= 0)
		return IBF_MPI_FALLBACK;
	PMPI_Type_size(type, &tsize);
	len = (size_t)tsize * (size_t)count;
	if (ibf_ucx_bcast_select(c->u, len) == IBF_UCX_BCAST_NONE)
		return IBF_MPI_FALLBACK;
	if (!type_contig(type, &tsize, &ext)) {
		pack = malloc(len + 1);
		if (!pack)
			return nomem(err);
		if (c->rank == root)
			PMPI_Pack(buf, count, type, pack, (int)len, &pos,
				  c->comm);
		data = pack;
	}
	st = ibf_ucx_bcast_pipeline(c->u, (uint32_t)root, data, len, 0, err);
	if (st == IBF_UCX_OK && pack && c->rank != root) {
		pos = 0;
		PMPI_Unpack(pack, (int)len, &pos, buf, count, type, c->comm);
	}
	free(pack);
	return st == IBF_UCX_OK ? IBF_MPI_DONE : IBF_MPI_FAILED;
}
