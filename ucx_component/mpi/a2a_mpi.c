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
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_mpi.h"
#include "a2a_size.h"

#define HINT_PREFIX "ibflow_"

/* ---- the process's contexts and control lane ------------------------------
 *
 * Process-wide as MPI itself is: the control lane all communicators share
 * and the list of live contexts that MPI_Finalize ends, under one lock
 * (never held across a collective call). */
static pthread_mutex_t procs_lock = PTHREAD_MUTEX_INITIALIZER;
static ibf_ucx_lane_t *proc_lane;
static ibf_mpi_ctx_t *oldest, *newest;

/* The lane for a new context (NULL: none could be made, the context
 * opens its own). */
static ibf_ucx_lane_t *lane_of_process(void)
{
	ibf_ucx_lane_t *l;

	pthread_mutex_lock(&procs_lock);
	if (!proc_lane && ibf_ucx_lane_create(&proc_lane, NULL) != IBF_UCX_OK)
		proc_lane = NULL;
	l = proc_lane;
	pthread_mutex_unlock(&procs_lock);
	return l;
}

static void ctx_list(ibf_mpi_ctx_t *c)
{
	pthread_mutex_lock(&procs_lock);
	c->older = newest;
	c->newer = NULL;
	if (newest)
		newest->newer = c;
	else
		oldest = c;
	newest = c;
	pthread_mutex_unlock(&procs_lock);
}

static void ctx_unlist(ibf_mpi_ctx_t *c)
{
	pthread_mutex_lock(&procs_lock);
	if (c->older)
		c->older->newer = c->newer;
	else if (oldest == c)
		oldest = c->newer;
	if (c->newer)
		c->newer->older = c->older;
	else if (newest == c)
		newest = c->older;
	c->older = c->newer = NULL;
	pthread_mutex_unlock(&procs_lock);
}

void ibf_mpi_fini_all(void)
{
	ibf_mpi_ctx_t *c;

	for (;;) {
		pthread_mutex_lock(&procs_lock);
		c = oldest;
		pthread_mutex_unlock(&procs_lock);
		if (!c)
			break;
		ibf_mpi_ctx_fini(c);
	}
	pthread_mutex_lock(&procs_lock);
	ibf_ucx_lane_close(proc_lane);
	proc_lane = NULL;
	pthread_mutex_unlock(&procs_lock);
}

/* ---- context ----------------------------------------------------------- */

/* The hints cannot be read: a configuration error (the context is not
 * made, the MPI library runs the calls). */
static ibf_ucx_status_t info_failed(ibf_ucx_err_t *err)
{
	err->status = IBF_UCX_ERR_CONFIG;
	snprintf(err->msg, sizeof(err->msg), "the communicator's info hints "
		 "cannot be read (MPI_Info_get)");
	return err->status;
}

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
	if (PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
		st = info_failed(err);
	for (i = 0; st == IBF_UCX_OK && i < n; i++) {
		if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS ||
		    (!strncmp(key, HINT_PREFIX, strlen(HINT_PREFIX)) &&
		     PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag) !=
		     MPI_SUCCESS)) {
			st = info_failed(err);
			break;
		}
		if (strncmp(key, HINT_PREFIX, strlen(HINT_PREFIX)) || !flag)
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
	ibf_ucx_params_t p = { .oob = oob, .lane = lane_of_process() };
	ibf_ucx_config_t *cfg = NULL;
	ibf_ucx_err_t err;
	ibf_ucx_status_t st;

	memset(c, 0, sizeof(*c));
	c->comm = comm;
	c->who = who;
	c->rank = (int)oob->rank;
	{
		int len = 0;

		if (PMPI_Comm_get_name(comm, c->name, &len) != MPI_SUCCESS)
			c->name[0] = '\0';
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
		return;
	}
	ctx_list(c);
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
	ctx_unlist(c);
	ibf_ucx_finalize(c->u, NULL);
	c->u = NULL;
}

/* The slowest link from a host of the job into the fabric, Gb/s; 0 when
 * the topology does not say (a link without width or speed). */
static double host_link_gbps(const ibf_ucx_t *u)
{
	const ibf_hostlist_t *h = ibf_ucx_hosts(u);
	const ibf_fabric_t *f = ibf_ucx_fabric(u);
	double gbps = 0;
	uint32_t i;

	for (i = 0; h && f && i < h->n; i++) {
		const ibf_port_t *p = ibf_port(f, h->ports[i]);

		if (!p->width || !p->speed)
			return 0;
		if (!gbps || ibf_port_capacity(p) < gbps)
			gbps = ibf_port_capacity(p);
	}
	return gbps;
}

void ibf_mpi_ctx_info(const ibf_mpi_ctx_t *c, ibflow_mpi_a2a_info_t *out)
{
	ibf_ucx_a2a_stats_t s;

	memset(out, 0, sizeof(*out));
	if (!c->u)
		return;
	ibf_ucx_a2a_stats(c->u, &s);
	out->usable = 1;
	out->aware = ibf_ucx_topology_aware(c->u);
	out->liquid = s.liquid;
	out->pairwise = s.pairwise;
	out->nframes = s.nframes;
	out->duration = s.duration;
	out->link_gbps = out->aware ? host_link_gbps(c->u) : 0;
}

/* ---- datatypes ------------------------------------------------------------ */

/* What the integrations need of a datatype, in MPI_Count (64 bits): a
 * type of more than 2 GiB an element is no error. */
typedef struct type_info {
	MPI_Count size, lb, extent;
	bool contig;   /* count elements are size * count bytes at buf */
} type_info_t;

/* False when MPI cannot say (an MPI error or an undefined size). */
static bool type_info(MPI_Datatype t, type_info_t *ti)
{
	MPI_Count tlb, text;

	if (PMPI_Type_size_x(t, &ti->size) != MPI_SUCCESS ||
	    ti->size == MPI_UNDEFINED || ti->size < 0 ||
	    PMPI_Type_get_extent_x(t, &ti->lb, &ti->extent) != MPI_SUCCESS ||
	    ti->lb == MPI_UNDEFINED || ti->extent == MPI_UNDEFINED ||
	    PMPI_Type_get_true_extent_x(t, &tlb, &text) != MPI_SUCCESS ||
	    tlb == MPI_UNDEFINED || text == MPI_UNDEFINED)
		return false;
	ti->contig = ti->lb == 0 && tlb == 0 && ti->extent == ti->size &&
		     text == ti->size;
	return true;
}

/* One piece of k elements between buf (at its extent) and packed (size
 * bytes an element), in the direction asked; false when MPI fails or
 * moves other than bytes. */
static bool move_piece(bool pack, char *buf, char *packed, int k, int bytes,
		       MPI_Datatype t, MPI_Comm comm)
{
	int pos = 0, rc;

	rc = pack ? PMPI_Pack(buf, k, t, packed, bytes, &pos, comm) :
	     PMPI_Unpack(packed, bytes, &pos, buf, k, t, comm);
	return rc == MPI_SUCCESS && pos == bytes;
}

/* n elements of t at buf packed into packed (n * size bytes), or the
 * reverse, in as few PMPI_Pack / PMPI_Unpack calls as their int sizes
 * allow; false when a call fails or moves other than size bytes an
 * element. */
static bool move_elems(bool pack, char *buf, size_t n, MPI_Datatype t,
		       const type_info_t *ti, char *packed, MPI_Comm comm)
{
	uint64_t per = ibf_mpi_piece_elems((uint64_t)ti->size,
					   IBF_MPI_PIECE_MAX);
	size_t i, k;

	if (!ti->size || !n)
		return true;
	if (!per)
		return false;     /* one element is more than PMPI_Pack takes */
	for (i = 0; i < n; i += k) {
		k = n - i < per ? n - i : (size_t)per;
		if (!move_piece(pack, buf + (MPI_Aint)i * ti->extent,
				packed + i * (size_t)ti->size, (int)k,
				(int)(k * (size_t)ti->size), t, comm))
			return false;
	}
	return true;
}

/* PMPI_Pack only reads buf: the cast keeps move_elems one function. */
static bool pack_elems(const void *buf, size_t n, MPI_Datatype t,
		       const type_info_t *ti, char *out, MPI_Comm comm)
{
	return move_elems(true, (char *)buf, n, t, ti, out, comm);
}

static bool unpack_elems(const char *in, size_t n, MPI_Datatype t,
			 const type_info_t *ti, void *buf, MPI_Comm comm)
{
	return move_elems(false, buf, n, t, ti, (char *)in, comm);
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

/* A local failure of the MPI library's datatype calls, or sizes beyond
 * the address space (what says which): an error, never a wrong answer. */
static ibf_mpi_rc_t refused(ibf_ucx_err_t *err, const char *what)
{
	err->status = IBF_UCX_ERR_INVALID;
	snprintf(err->msg, sizeof(err->msg), "%s", what);
	return IBF_MPI_FAILED;
}

/* ---- MPI_Alltoall ------------------------------------------------------------ */

ibf_mpi_rc_t ibf_mpi_alltoall(ibf_mpi_ctx_t *c, const void *sbuf, int scount,
			      MPI_Datatype stype, void *rbuf, int rcount,
			      MPI_Datatype rtype, ibf_ucx_err_t *err)
{
	bool in_place = sbuf == MPI_IN_PLACE;
	type_info_t rt, st;
	char *spack = NULL, *rpack = NULL;
	const void *s = sbuf;
	void *r = rbuf;
	size_t block, total, sblock, n;
	ibf_ucx_status_t ust;
	ibf_mpi_rc_t rc;
	int size;

	if (!c->u)
		return IBF_MPI_FALLBACK;
	if (PMPI_Comm_size(c->comm, &size) != MPI_SUCCESS ||
	    !type_info(rtype, &rt) || (!in_place && !type_info(stype, &st)))
		return refused(err, "all-to-all: the MPI library cannot size "
			       "the datatypes");
	/* Type signatures match, so the receive side's block is every
	 * rank's: a size that does not fit goes to the MPI library on
	 * every rank alike. */
	if (!ibf_mpi_size_mul(rcount, rt.size, &block) ||
	    !ibf_mpi_size_mul((int64_t)block, size, &total) ||
	    !ibf_mpi_size_mul(rcount, size, &n) || total > SIZE_MAX - 1)
		return IBF_MPI_FALLBACK;
	if (ibf_ucx_alltoall_select(c->u, block) == IBF_UCX_A2A_NONE)
		return IBF_MPI_FALLBACK;
	if (!in_place && (!ibf_mpi_size_mul(scount, st.size, &sblock) ||
			  sblock != block))
		return refused(err, "all-to-all: send and receive blocks "
			       "differ in size (type signatures do not "
			       "match)");
	if (in_place || !st.contig) {
		spack = malloc(total + 1);
		if (!spack)
			return nomem(err);
		/* MPI_IN_PLACE: the data to send is the receive buffer the
		 * call overwrites; a copy first */
		if (in_place && rt.contig)
			memcpy(spack, rbuf, total);
		else if (!(in_place ?
			   pack_elems(rbuf, n, rtype, &rt, spack, c->comm) :
			   pack_elems(sbuf, (size_t)scount * (size_t)size,
				      stype, &st, spack, c->comm))) {
			free(spack);
			return refused(err, "all-to-all: MPI_Pack of the send "
				       "data failed");
		}
		s = spack;
	}
	if (!rt.contig) {
		rpack = malloc(total + 1);
		if (!rpack) {
			free(spack);
			return nomem(err);
		}
		r = rpack;
	}
	ust = ibf_ucx_alltoall(c->u, s, r, block, IBF_UCX_A2A_NONE, err);
	rc = outcome(c, ust, err);
	if (rc == IBF_MPI_DONE && rpack &&
	    !unpack_elems(rpack, n, rtype, &rt, rbuf, c->comm))
		rc = refused(err, "all-to-all: MPI_Unpack of the received "
			     "data failed");
	free(spack);
	free(rpack);
	return rc;
}

/* ---- MPI_Alltoallv ---------------------------------------------------------- */

/* The n blocks of buf that displ and count say, packed into a new buffer
 * at off[p] (total bytes); NULL with err set on failure. */
static char *pack_blocks(const void *buf, const int *count, const int *displ,
			 MPI_Datatype t, const type_info_t *ti, int n,
			 const size_t *off, size_t total, MPI_Comm comm,
			 ibf_ucx_err_t *err)
{
	char *out = malloc(total + 1);
	int64_t at;
	int p;

	if (!out) {
		nomem(err);
		return NULL;
	}
	for (p = 0; p < n; p++)
		if (count[p] && (!ibf_mpi_displ_bytes(displ[p], ti->extent,
						       &at) ||
				 !pack_elems((const char *)buf + at,
					     (size_t)count[p], t, ti,
					     out + off[p], comm))) {
			free(out);
			refused(err, "all-to-all: MPI_Pack of the send data "
				"failed");
			return NULL;
		}
	return out;
}

/* Lengths and offsets of the n blocks: in the user's buffer (*direct,
 * a contiguous type with offsets that are bytes of it) or packed. */
static bool blocks(const int *count, const int *displ, const type_info_t *ti,
		   int n, bool may_direct, size_t *len, size_t *off,
		   size_t *total, bool *direct)
{
	*direct = may_direct && ti->contig &&
		  ibf_mpi_layout(count, displ, n, ti->size, ti->extent, false,
				 len, off, total);
	return *direct || ibf_mpi_layout(count, displ, n, ti->size,
					 ti->extent, true, len, off, total);
}

ibf_mpi_rc_t ibf_mpi_alltoallv(ibf_mpi_ctx_t *c, const void *sbuf,
			       const int *scounts, const int *sdispls,
			       MPI_Datatype stype, void *rbuf,
			       const int *rcounts, const int *rdispls,
			       MPI_Datatype rtype, ibf_ucx_err_t *err)
{
	int size, p;
	size_t *sl, *so, *rl, *ro, stot, rtot;
	char *spack = NULL, *rpack = NULL;
	bool in_place = sbuf == MPI_IN_PLACE, rdirect, sdirect;
	type_info_t rt, st;
	ibf_ucx_status_t ust;
	ibf_mpi_rc_t rc;

	/* block sizes differ between ranks and the choice must not: only
	 * the mode and the fabric decide (the threshold does not apply) */
	if (!c->u || ibf_ucx_alltoall_select(c->u, SIZE_MAX) ==
	    IBF_UCX_A2A_NONE)
		return IBF_MPI_FALLBACK;
	if (PMPI_Comm_size(c->comm, &size) != MPI_SUCCESS ||
	    !type_info(rtype, &rt) || (!in_place && !type_info(stype, &st)))
		return refused(err, "all-to-all: the MPI library cannot size "
			       "the datatypes");
	sl = malloc(4 * sizeof(size_t) * (size_t)size);
	if (!sl)
		return nomem(err);
	so = sl + size;
	rl = so + size;
	ro = rl + size;
	/* the in-place send data: the receive buffer's blocks, packed */
	if (!blocks(rcounts, rdispls, &rt, size, true, rl, ro, &rtot,
		    &rdirect) ||
	    !(in_place ? blocks(rcounts, rdispls, &rt, size, false, sl, so,
				&stot, &sdirect) :
	      blocks(scounts, sdispls, &st, size, true, sl, so, &stot,
		     &sdirect)) ||
	    stot > SIZE_MAX - 1 || rtot > SIZE_MAX - 1) {
		rc = refused(err, "all-to-all: block sizes or offsets beyond "
			     "the address space");
		goto out;
	}
	if (!sdirect) {
		spack = in_place ?
			pack_blocks(rbuf, rcounts, rdispls, rtype, &rt, size,
				    so, stot, c->comm, err) :
			pack_blocks(sbuf, scounts, sdispls, stype, &st, size,
				    so, stot, c->comm, err);
		if (!spack) {
			rc = IBF_MPI_FAILED;
			goto out;
		}
	}
	if (!rdirect && !(rpack = malloc(rtot + 1))) {
		rc = nomem(err);
		goto out;
	}
	ust = ibf_ucx_alltoallv(c->u, sdirect ? sbuf : spack, sl, so,
				rdirect ? rbuf : rpack, rl, ro,
				IBF_UCX_A2A_NONE, err);
	rc = outcome(c, ust, err);
	for (p = 0; rc == IBF_MPI_DONE && rpack && p < size; p++) {
		int64_t at;

		if (rcounts[p] &&
		    (!ibf_mpi_displ_bytes(rdispls[p], rt.extent, &at) ||
		     !unpack_elems(rpack + ro[p], (size_t)rcounts[p], rtype,
				   &rt, (char *)rbuf + at, c->comm)))
			rc = refused(err, "all-to-all: MPI_Unpack of the "
				     "received data failed");
	}
out:
	free(spack);
	free(rpack);
	free(sl);
	return rc;
}

/* ---- MPI_Bcast ------------------------------------------------------------------ */

/* the environment, read once per process as MPI reads its own
 * (whichever thread asks first) */
static pthread_once_t bcast_once = PTHREAD_ONCE_INIT;
static bool bcast_pipeline;

static void bcast_read(void)
{
	ibf_ucx_config_t *cfg;
	char val[32] = "";

	if (ibf_ucx_config_read(&cfg, NULL) == IBF_UCX_OK) {
		if (ibf_ucx_config_get(cfg, "BCAST", val, sizeof(val), NULL) ==
		    IBF_UCX_OK)
			bcast_pipeline = !strcmp(val, "pipeline");
		ibf_ucx_config_release(cfg);
	}
}

bool ibf_mpi_bcast_wanted(void)
{
	pthread_once(&bcast_once, bcast_read);
	return bcast_pipeline;
}

ibf_mpi_rc_t ibf_mpi_bcast(ibf_mpi_ctx_t *c, void *buf, int count,
			   MPI_Datatype type, int root, ibf_ucx_err_t *err)
{
	type_info_t ti;
	char *pack = NULL;
	void *data = buf;
	size_t len;
	ibf_ucx_status_t st;

	if (!c->u || count <= 0)
		return IBF_MPI_FALLBACK;
	if (!type_info(type, &ti))
		return refused(err, "broadcast: the MPI library cannot size "
			       "the datatype");
	/* the same on every rank (type signatures match) */
	if (!ibf_mpi_size_mul(count, ti.size, &len) || len > SIZE_MAX - 1)
		return IBF_MPI_FALLBACK;
	if (ibf_ucx_bcast_select(c->u, len) == IBF_UCX_BCAST_NONE)
		return IBF_MPI_FALLBACK;
	if (!ti.contig) {
		pack = malloc(len + 1);
		if (!pack)
			return nomem(err);
		if (c->rank == root &&
		    !pack_elems(buf, (size_t)count, type, &ti, pack,
				c->comm)) {
			free(pack);
			return refused(err, "broadcast: MPI_Pack failed");
		}
		data = pack;
	}
	st = ibf_ucx_bcast_pipeline(c->u, (uint32_t)root, data, len, 0, err);
	if (st == IBF_UCX_OK && pack && c->rank != root &&
	    !unpack_elems(pack, (size_t)count, type, &ti, buf, c->comm)) {
		free(pack);
		return refused(err, "broadcast: MPI_Unpack failed");
	}
	free(pack);
	return st == IBF_UCX_OK ? IBF_MPI_DONE : IBF_MPI_FAILED;
}
