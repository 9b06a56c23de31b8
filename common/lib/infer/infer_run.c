/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibf_infer_run (infer.h): the context, hosts inserted one at a time
 * (infer.c) or several at once (infer_parallel.c), the result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "infer/infer_internal.h"
#include "infer/infer_ctx.h"

ibf_status_t ibf_infer_run(const ibf_infer_oracle_t *o,
			   const ibf_infer_opts_t *opts,
			   ibf_infer_result_t *out, ibf_err_t *err)
{
	static const ibf_infer_opts_t defaults;
	struct ctx c;
	ibf_status_t st;
	double t0 = ibf_infer_now();

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	if (!opts)
		opts = &defaults;
	if (!o || !o->measure || o->nhosts < 2)
		return ibf_err_set(err, IBF_ERR_INVALID, "inference needs an "
				   "oracle and at least 2 hosts");
	if (o->nhosts > UINT32_MAX / 4)
		return ibf_err_set(err, IBF_ERR_RANGE, "too many hosts");
	if (!(opts->tol >= 0) || !isfinite(opts->tol))
		return ibf_err_set(err, IBF_ERR_INVALID, "tolerance %g",
				   opts->tol);
	if (opts->parallel > IBF_INFER_PARALLEL_MAX)
		return ibf_err_set(err, IBF_ERR_RANGE, "parallel %u: at most "
				   "%u hosts at once", opts->parallel,
				   IBF_INFER_PARALLEL_MAX);
	out->stats.parallel = opts->parallel ? opts->parallel :
			      IBF_INFER_PARALLEL_DEFAULT;
	/* one pair at a time: no cap to report (nor to replay with) */
	out->stats.in_flight_cap = out->stats.parallel > 1 ?
				   opts->max_in_flight : 0;
	c.o = o;
	c.opts = opts;
	c.err = err;
	c.tol = opts->tol;
	c.rng.s = opts->seed;
	c.st = &out->stats;
	if (infer_ctx_alloc(&c, o->nhosts) ||
	    (out->stats.parallel > 1 &&
	     infer_par_alloc(&c, out->stats.parallel < o->nhosts - 1 ?
			   out->stats.parallel : o->nhosts - 1))) {
		infer_ctx_free(&c);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	st = opts->order ?
	     infer_check_order(opts->order, o->nhosts, c.cand, err) : IBF_OK;
	if (st == IBF_OK)
		st = c.slots ? infer_run_par(&c, opts->order) :
			       infer_run_all(&c, opts->order);
	if (!c.slots && c.nmeas) {
		out->stats.max_in_flight = 1;
		out->stats.mean_in_flight = 1;
	}
	if (st == IBF_OK)
		st = infer_export_tree(&c.t, &out->tree, err);
	out->meas = c.meas;
	out->nmeas = c.nmeas;
	c.meas = NULL;
	out->stats.pairs = out->nmeas;
	out->stats.cpu_s = ibf_infer_now() - t0 - out->stats.oracle_s;
	infer_ctx_free(&c);
	if (st != IBF_OK)
		ibf_infer_result_free(out);
	return st;
}

void ibf_infer_result_free(ibf_infer_result_t *r)
{
	if (!r)
		return;
	free(r->tree.ea);
	free(r->tree.eb);
	free(r->tree.lat);
	free(r->meas);
	memset(r, 0, sizeof(*r));
}
