/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Packet-level simulation of a routed fabric with InfiniBand's credit-based
 * link-level flow control: the model behind `ibflow sim` (docs/sim.md).
 *
 * Messages are split into packets of at most the MTU; every packet carries
 * IB_SIM_HEADER bytes of headers on the wire and needs ceil(size / 64)
 * credit blocks in the receive buffer of the next input port on its VL.
 * Switches forward by their LFTs with virtual cut-through: a packet may
 * leave once its head has arrived and the next buffer has room for all of
 * it.  Each input buffer is a FIFO per VL (only its head may leave: head-of-
 * line blocking); each output port serves the heads that want it round
 * robin, high-priority VLs first.  An HCA injects the packets of its active
 * messages round robin at its link rate.  Credits come back one link
 * latency after a packet's tail has left the buffer.
 *
 * Messages may depend on others (a message starts once all its
 * predecessors have been delivered), which is how collectives are built
 * (ibf_sim_add_*() in sim_traffic.c).  A message from a host to itself, or
 * of 0 bytes between the same host, is a local join point: it completes as
 * soon as it is ready.
 *
 * The run is deterministic: events at the same picosecond are processed in
 * the order they were scheduled.  A routing deadlock (a credit loop: every
 * buffer of a cycle full, waiting for the next) leaves no event to process
 * while packets wait; the run then stops and reports the links of the
 * cycle.
 */
#ifndef IBFLOW_SIM_H
#define IBFLOW_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/lfts.h>
#include <ibflow/sl_io.h>
#include <ibflow/io.h>
#include <ibflow/traffic.h>
#include <ibflow/liquid.h>

IBF_BEGIN_DECLS

/* LRH 8 + BTH 12 + ICRC 4 + VCRC 2 bytes: the headers of a reliable-
 * connected SEND packet without GRH. */
#define IBF_SIM_HEADER 26u
#define IBF_SIM_BLOCK  64u   /* bytes per flow-control credit */
#define IBF_SIM_MAX_VLS 15u

typedef struct ibf_sim_opts {
	unsigned mtu;         /* payload bytes per packet (256..4096) */
	unsigned buffer;      /* receive buffer per input port and VL, bytes */
	double rate_gbps;     /* data rate of every link; 0: each link's own
				 width x speed after line encoding */
	double latency_ns;    /* per hop: wire + switch, also for credits */
	unsigned window;      /* messages in flight per host; 0: no limit */
	const ibf_sls_t *sls; /* SL of each (source, DLID); NULL: SL 0 */
	unsigned max_vls;     /* data VLs: VL = SL mod min(nsls, max_vls),
				 at most 14 with ctrl_lane */
	uint16_t vl_high;     /* bit v: VL v is arbitrated with high priority */
	bool lmc_spread;      /* packet i of a message uses LID offset
				 i mod 2^LMC (else the base LID) */
	unsigned ctrl_bytes;  /* payload of control messages */
	bool ctrl_lane;       /* control messages on a VL of their own (one
				 more than the data VLs), arbitrated first:
				 the UCX runtime's control lane, an SL the
				 subnet manager maps to a high-priority VL */
	uint64_t max_events;  /* stop after this many events; 0: none */
	unsigned vl_spread;   /* 0: VL kept along the path; V (2..max_vls):
				 data go on VL (input port + output port)
				 mod V at every switch, the HCA injects on
				 VL 0 and SLs are ignored for data (a per-hop
				 SL2VL table of one SL) */
} ibf_sim_opts_t;

/* The defaults of ibf_sim_opts_default, plain numbers so that option
 * tables can show them (IBF_OPT_NUM). */
#define IBF_SIM_MTU_DEFAULT 2048
#define IBF_SIM_BUFFER_DEFAULT 32768
#define IBF_SIM_LATENCY_NS_DEFAULT 100
#define IBF_SIM_MAX_VLS_DEFAULT 8
#define IBF_SIM_CTRL_BYTES_DEFAULT 8

/* MTU 2048, 32 KiB buffers, link rates from the fabric, 100 ns per hop,
 * no window, 8 VLs, no high-priority VL, base LIDs, 8-byte control
 * messages on their own high-priority VL (ctrl_lane). */
void ibf_sim_opts_default(ibf_sim_opts_t *o);

/* Data rate of a port's link in Gb/s: width x lane signalling rate x 8/10
 * (SDR, DDR, QDR) or 64/66 (FDR10 and faster); links without attributes
 * count as 4x QDR (32 Gb/s). */
double ibf_sim_link_gbps(const ibf_port_t *p);

typedef struct ibf_sim ibf_sim_t;

typedef enum ibf_sim_kind {
	IBF_SIM_DATA = 0,     /* a flow of the traffic: reported */
	IBF_SIM_CONTROL,      /* release tokens, barrier messages */
	IBF_SIM_LOCAL,        /* a join point on one host (no packets) */
} ibf_sim_kind_t;

ibf_status_t ibf_sim_create(const ibf_lfts_t *l, const ibf_sim_opts_t *o,
			    ibf_sim_t **out, ibf_err_t *err);
void ibf_sim_destroy(ibf_sim_t *s);

/* Add a message of `bytes` from host port src to host port dst, ready at
 * start_s (seconds) once its predecessors are delivered.  src == dst makes
 * a local join point whatever the kind.  The route (every LID offset
 * used) is traced now: a broken one is an error naming the pair.  *id
 * (may be NULL) receives the message id (0, 1, ... in order). */
ibf_status_t ibf_sim_add_msg(ibf_sim_t *s, ibf_port_id_t src,
			     ibf_port_id_t dst, uint64_t bytes,
			     ibf_sim_kind_t kind, double start_s,
			     uint32_t *id, ibf_err_t *err);
/* Message `after` starts only once message `before` has been delivered. */
ibf_status_t ibf_sim_add_dep(ibf_sim_t *s, uint32_t before, uint32_t after,
			     ibf_err_t *err);
/* Message `after` starts only once all but the last `left` bytes of
 * message `before` have been delivered (at least its first packet; at
 * its end for a local join): a receiver acting on a block before its last
 * piece is in.  All early successors of `before` share the last `left`
 * given. */
ibf_status_t ibf_sim_add_dep_early(ibf_sim_t *s, uint32_t before,
				   uint32_t after, uint64_t left,
				   ibf_err_t *err);
uint32_t ibf_sim_nmsgs(const ibf_sim_t *s);

/* ---- traffic builders (sim_traffic.c) ----------------------------------- */

/* Every flow of tr (COUNT copies) as a data message of `bytes`, all
 * ready at time 0. */
ibf_status_t ibf_sim_add_traffic(ibf_sim_t *s, const ibf_traffic_t *tr,
				 uint64_t bytes, ibf_err_t *err);

typedef enum ibf_sim_a2a {
	IBF_SIM_A2A_LIQUID = 0,   /* frames of the liquid plan, each transfer
				     released by its predecessors' receivers */
	IBF_SIM_A2A_LIQUID_BARRIER, /* frames separated by a barrier */
	IBF_SIM_A2A_PAIRWISE,     /* step s: i -> i+s, after step s-1 */
	IBF_SIM_A2A_LINEAR,       /* every send at once */
	IBF_SIM_A2A_LINEAR_SYNC,  /* at most K sends outstanding per rank */
	IBF_SIM_A2A_BRUCK,        /* log2 n steps of n/2 blocks */
} ibf_sim_a2a_t;

/* liquid's k: the release window (bytes of a unit pair still to come
 * when its receiver releases the successors; 0: once it is all in), or
 * this for two hops' latency per link of the longest path at the link
 * rate. */
#define IBF_SIM_LIQUID_AUTO 0x7fffffffu

/* Parse "liquid" (k = IBF_SIM_LIQUID_AUTO), "liquid:BYTES" (k = BYTES),
 * "liquid-barrier", "pairwise", "linear", "linear-sync:K", "bruck". */
ibf_status_t ibf_sim_a2a_parse(const char *spec, ibf_sim_a2a_t *alg,
			       unsigned *k, ibf_err_t *err);
const char *ibf_sim_a2a_name(ibf_sim_a2a_t alg);

/* The all-to-all of ranks[0..n-1] (distinct host ports), `bytes` per
 * block, as messages with dependencies.  recv NULL: blocks between
 * distinct ranks.  recv[0..n-1] (hosts distinct from ranks): rank i sends
 * from ranks[i] and receives at recv[i], and every pair (i, j) exchanges a
 * block, i to itself included (the Swiss-T1's transmitting and receiving
 * processors of the liquid scheduling paper; not for bruck).
 * Ranks may share a host (ranks[i] == ranks[j]) when recv is NULL: their
 * blocks are shared memory, not simulated.  liquid runs the node-aware
 * plan (ibf_liquid_hplan_create: frames of host pairs, releases per host
 * pair, k its release window, above); with two lists it runs
 * ibf_liquid_schedule's frames with ibf_liquid_deps_build's releases.
 * liquid-barrier takes its frames from ibf_liquid_plan_alltoall (one rank
 * per host).  Limits in lopts (may be NULL); *frames (may be NULL)
 * receives the frame count. */
ibf_status_t ibf_sim_add_alltoall(ibf_sim_t *s, const ibf_port_id_t *ranks,
				  const ibf_port_id_t *recv, uint32_t n,
				  uint64_t bytes, ibf_sim_a2a_t alg,
				  unsigned k, const ibf_liquid_opts_t *lopts,
				  uint32_t *frames, ibf_err_t *err);

/* Timed sends: lines "TIME_US SRC DST BYTES" (hosts as in traffic files,
 * '#' comments); errors "FILE:LINE: what". */
ibf_status_t ibf_sim_add_trace(ibf_sim_t *s, const char *path,
			       ibf_err_t *err);
ibf_status_t ibf_sim_add_trace_text(ibf_sim_t *s, ibf_text_t *t,
				    ibf_err_t *err);

/* ---- running and results ------------------------------------------------ */

typedef struct ibf_sim_msg_result {
	ibf_port_id_t src, dst;
	uint64_t bytes;
	uint8_t kind;         /* ibf_sim_kind_t */
	bool done;
	double ready_s;       /* dependencies met (or start time) */
	double first_s;       /* first packet on the wire */
	double end_s;         /* last packet delivered */
	/* Bytes delivered when the first data message completed, for rates
	 * while every flow still runs (steady_gbps). */
	uint64_t bytes_at_first;
	double steady_gbps;   /* bytes_at_first / (t_first - first_s) */
	double gbps;          /* bytes / (end_s - first_s) */
} ibf_sim_msg_result_t;

typedef struct ibf_sim_link_result {
	ibf_port_id_t port;   /* egress port of the directed link */
	uint64_t bytes;       /* wire bytes sent */
	double busy_s;        /* transmitting */
	double blocked_s;     /* idle while a packet waited for credits */
	uint64_t vl_bytes[IBF_SIM_MAX_VLS]; /* wire bytes per VL (counted
					       with vl_spread only) */
} ibf_sim_link_result_t;

typedef struct ibf_sim_result {
	double time_s;        /* last delivery */
	double first_done_s;  /* first data message delivered */
	uint64_t events, packets, packet_hops;
	uint64_t data_bytes;  /* payload of data messages */
	double cpu_s;         /* CPU time of ibf_sim_run */
	bool deadlocked;      /* credit loop: cycle[] below */
	bool stalled;         /* messages whose dependencies never completed */
	bool truncated;       /* max_events reached */
	uint32_t undelivered; /* messages not delivered */
	uint32_t ncycle;
	ibf_port_id_t *cycle; /* egress ports of the links of the credit loop */
	uint32_t nmsgs;
	ibf_sim_msg_result_t *msg;  /* [nmsgs] */
	uint32_t nlinks;
	ibf_sim_link_result_t *link; /* links that carried traffic, busiest
					first */
} ibf_sim_result_t;

/* Run to completion (or deadlock).  Once per ibf_sim_t. */
ibf_status_t ibf_sim_run(ibf_sim_t *s, ibf_sim_result_t *res,
			 ibf_err_t *err);
void ibf_sim_result_free(ibf_sim_result_t *r);

/* ---- references (sim_report.c) ------------------------------------------ */

/* Liquid bound of the data messages: the busiest directed link's payload
 * bytes over its payload rate (link rate x MTU / (MTU + headers)); for
 * equal messages it is the duration of ibf_liquid_schedule() times one
 * transfer's time. */
ibf_status_t ibf_sim_bound(const ibf_sim_t *s, double *bound_s,
			   ibf_err_t *err);
/* Max-min fair payload rates (Gb/s) of the data messages over their base-
 * LID routes (or spread over the LMC LIDs), each link at its payload rate:
 * rate[nmsgs], 0 for other kinds. */
ibf_status_t ibf_sim_mmf(const ibf_sim_t *s, double *rate, ibf_err_t *err);

/* The text report: a credit loop's links, completion time against the
 * bound, aggregate and per-flow rates (and the MMF aggregate when mmf is
 * given), simulator statistics, the `top` busiest links. */
void ibf_sim_write_text(const ibf_sim_t *s, const ibf_sim_result_t *r,
			double bound_s, const double *mmf, unsigned top,
			FILE *fp);
/* {"time_s", "bound_s", "deadlocked", "cycle":[...], "events",
 * "packet_hops", "cpu_s", "flows":[{"src","dst","bytes","start_s",
 * "end_s","gbps","steady_gbps","mmf_gbps"}], "links":[{"from","to",
 * "bytes","busy_s","blocked_s"}]}; with vl_spread each link also has
 * "vl_bytes":[per VL]. */
ibf_status_t ibf_sim_write_json(const ibf_sim_t *s, const ibf_sim_result_t *r,
				double bound_s, const double *mmf, FILE *fp,
				ibf_err_t *err);

IBF_END_DECLS
#endif
