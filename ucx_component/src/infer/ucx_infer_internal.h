/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * What the live inference (ucx_infer.c) and the bandwidth map (bwmap.c)
 * share: rank 0's command channel to the other ranks.  Rank 0 drives,
 * the others serve commands (tag kind INFER, sequence 0) until DONE;
 * ranks rank 0 has not addressed for a quarter of UCX_IBFLOW_TIMEOUT get
 * a no-op, so that their wait for the next command keeps that bound
 * however long the whole run takes.
 */
#ifndef IBFLOW_UCX_INFER_INTERNAL_H
#define IBFLOW_UCX_INFER_INTERNAL_H

#include "core/ucx_internal.h"

enum {
	IBF_UCXI_CMD_PING = 1,     /* RTT: initiate a ping-pong with peer */
	IBF_UCXI_CMD_PONG = 2,     /* RTT: answer peer's ping-pong */
	IBF_UCXI_CMD_NOP = 3,
	IBF_UCXI_CMD_DONE = 4,
	IBF_UCXI_CMD_BW_PREP = 5,  /* bandwidth: get ready to send to /
				      receive from peer */
	IBF_UCXI_CMD_BW_GO = 6,    /* bandwidth: the sender starts */
};

/* Sequence numbers (24 bits) of the INFER tag kind: commands, replies
 * to rank 0 by kind, and the pair messages of the bandwidth map. */
enum {
	IBF_UCXI_ISEQ_CMD = 0,
	IBF_UCXI_ISEQ_RTT_REPORT = 1,
	IBF_UCXI_ISEQ_BW_READY = 2,
	IBF_UCXI_ISEQ_BW_REPORT = 3,
};

typedef struct ibf_ucxi_cmd {
	uint32_t op, peer, seq, flags;
	uint64_t bytes, chunk;     /* bandwidth measurements */
} ibf_ucxi_cmd_t;

#define IBF_UCXI_CMD_SENDER 1u     /* flags of BW_PREP */

static inline ucp_tag_t ibf_ucxi_itag(uint32_t seq, uint32_t src)
{
	return ibf_ucxi_tag(IBF_UCXI_TAG_INFER, seq, src);
}

/* Rank 0's side. */
typedef struct ibf_ucxi_cmdr {
	ibf_ucx_t *u;
	double *last;              /* [size] when rank 0 last sent to it */
} ibf_ucxi_cmdr_t;

ibf_ucx_status_t ibf_ucxi_cmdr_init(ibf_ucxi_cmdr_t *c, ibf_ucx_t *u,
				    ibf_ucx_err_t *err);
void ibf_ucxi_cmdr_free(ibf_ucxi_cmdr_t *c);
ibf_ucx_status_t ibf_ucxi_cmdr_send(ibf_ucxi_cmdr_t *c, uint32_t to,
				    const ibf_ucxi_cmd_t *cmd,
				    ibf_ucx_err_t *err);
/* No-ops to the ranks idle for a quarter of the timeout. */
ibf_ucx_status_t ibf_ucxi_cmdr_keepalive(ibf_ucxi_cmdr_t *c,
					 ibf_ucx_err_t *err);
/* The end, after a run of status st: DONE to every other rank (all are
 * tried, also after a failure), then free.  Returns st, or when st is OK
 * the first failure to send. */
ibf_ucx_status_t ibf_ucxi_cmdr_finish(ibf_ucxi_cmdr_t *c,
				      ibf_ucx_status_t st, ibf_ucx_err_t *err);
/* Without a driver (rank 0 could not even start): DONE to everyone. */
void ibf_ucxi_cmd_release(ibf_ucx_t *u);

/* The other ranks: the next command other than a no-op, each waited for
 * at most `timeouts` times UCX_IBFLOW_TIMEOUT. */
ibf_ucx_status_t ibf_ucxi_cmd_next(ibf_ucx_t *u, ibf_ucxi_cmd_t *c,
				   unsigned timeouts, ibf_ucx_err_t *err);

/* What rank 0 broadcasts at the end starts with its verdict: the status
 * and message every rank returns. */
typedef struct ibf_ucxi_verdict {
	int32_t status;
	char msg[IBF_UCX_ERR_MSG_MAX];
} ibf_ucxi_verdict_t;

void ibf_ucxi_verdict_put(ibf_ucxi_verdict_t *v, ibf_ucx_status_t st,
			  const char *msg);
/* From a received blob of len bytes that must hold at least head bytes
 * (the verdict first): rank 0's failure as IBF_UCX_ERR_PEER, a short
 * blob as malformed (`what` names it). */
ibf_ucx_status_t ibf_ucxi_verdict_get(const void *b, size_t len, size_t head,
				      const char *what, ibf_ucx_err_t *err);

/* Every rank: the job's host names (ibf_ucx_host_name), malloc'd. */
ibf_ucx_status_t ibf_ucxi_host_names(ibf_ucx_t *u, char ***names,
				     ibf_ucx_err_t *err);
void ibf_ucxi_names_free(char **names, uint32_t n);

/* Keep r (malloc'd) as the context's inference (ibf_ucx_inferred), freed
 * with the context; freed at once on failure. */
ibf_ucx_status_t ibf_ucxi_infer_keep(ibf_ucx_t *u, ibf_ucx_infer_result_t *r,
				     ibf_ucx_err_t *err);

#endif
