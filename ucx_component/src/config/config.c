/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * UCX_IBFLOW_* variables, parsed by UCX's own configuration parser.
 *
 * The table is registered in UCX's global list when the library loads, so
 * `ucx_info -cf` prints it with its documentation (library preloaded).  It
 * is also parsed once at load: UCX's parser marks each variable it reads
 * as used, and UCX warns about UCX_ variables nobody used when the first
 * UCP context is created -- parsing only at ibf_ucx_init(), after the
 * application's own ucp_init(), would draw that warning.
 *
 * UCX's error for a bad value names the field without its prefix, and its
 * unsigned type takes "-1" as 4294967295; so before UCX parses, every
 * variable set in the environment is tried with the field's own reader
 * and refused here with its full name, and the numeric types are bounded.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ucs/config/global_opts.h>
#include <ucs/sys/preprocessor.h>

#include "core/ucx_internal.h"

extern char **environ;

/* ---- bounded types ---------------------------------------------------------- */

typedef struct cfg_range {
	double min, max;
} cfg_range_t;

static int read_uint_range(const char *buf, void *dest, const void *arg)
{
	const cfg_range_t *r = arg;
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)buf[0]))
		return 0;           /* no sign, no blank */
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || *end || (double)v < r->min || (double)v > r->max)
		return 0;
	*(unsigned *)dest = (unsigned)v;
	return 1;
}

static void help_uint_range(char *buf, size_t max, const void *arg)
{
	const cfg_range_t *r = arg;

	snprintf(buf, max, "unsigned integer in [%.0f, %.0f]", r->min,
		 r->max);
}

static int read_time_range(const char *buf, void *dest, const void *arg)
{
	const cfg_range_t *r = arg;
	double v;

	if (!ucs_config_sscanf_time(buf, &v, NULL))
		return 0;
	if (!isfinite(v) || v < r->min || v > r->max)
		return 0;
	*(double *)dest = v;
	return 1;
}

static void help_time_range(char *buf, size_t max, const void *arg)
{
	const cfg_range_t *r = arg;

	snprintf(buf, max, "time value: <number>[s|ms|us|ns], %g s to %g s",
		 r->min, r->max);
}

/* "auto" (stored as UINT_MAX) or a bounded unsigned. */
static int read_uint_auto(const char *buf, void *dest, const void *arg)
{
	if (!strcasecmp(buf, "auto")) {
		*(unsigned *)dest = UINT_MAX;
		return 1;
	}
	return read_uint_range(buf, dest, arg);
}

static int write_uint_auto(char *buf, size_t max, const void *src,
			   const void *arg)
{
	if (*(const unsigned *)src == UINT_MAX)
		return snprintf(buf, max, "auto");
	return ucs_config_sprintf_uint(buf, max, src, arg);
}

static void help_uint_auto(char *buf, size_t max, const void *arg)
{
	const cfg_range_t *r = arg;

	snprintf(buf, max, "\"auto\" or an unsigned integer in [%.0f, %.0f]",
		 r->min, r->max);
}

/* "auto" (stored as -1) or a bounded time. */
static int read_time_auto(const char *buf, void *dest, const void *arg)
{
	if (!strcasecmp(buf, "auto")) {
		*(double *)dest = -1;
		return 1;
	}
	return read_time_range(buf, dest, arg);
}

static int write_time_auto(char *buf, size_t max, const void *src,
			   const void *arg)
{
	if (*(const double *)src < 0)
		return snprintf(buf, max, "auto");
	return ucs_config_sprintf_time(buf, max, src, arg);
}

/* "auto" (stored as -1) or a bounded ratio. */
static int read_ratio_auto(const char *buf, void *dest, const void *arg)
{
	const cfg_range_t *r = arg;
	double v;
	char *end;

	if (!strcasecmp(buf, "auto")) {
		*(double *)dest = -1;
		return 1;
	}
	if (!isdigit((unsigned char)buf[0]))
		return 0;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || !isfinite(v) || v < r->min || v > r->max)
		return 0;
	*(double *)dest = v;
	return 1;
}

static int write_ratio_auto(char *buf, size_t max, const void *src,
			    const void *arg)
{
	(void)arg;
	if (*(const double *)src < 0)
		return snprintf(buf, max, "auto");
	return snprintf(buf, max, "%g", *(const double *)src);
}

static void help_ratio_auto(char *buf, size_t max, const void *arg)
{
	const cfg_range_t *r = arg;

	snprintf(buf, max, "\"auto\" or a number in [%g, %g]", r->min,
		 r->max);
}

static void help_time_auto(char *buf, size_t max, const void *arg)
{
	const cfg_range_t *r = arg;

	snprintf(buf, max, "\"auto\" or a time value: <number>[s|ms|us|ns], "
		 "%g s to %g s", r->min, r->max);
}

#define IBF_UCX_CFG_UINT(_r) \
	{ read_uint_range, ucs_config_sprintf_uint, ucs_config_clone_uint, \
	  ucs_config_release_nop, help_uint_range, &(_r) }
#define IBF_UCX_CFG_UINT_AUTO(_r) \
	{ read_uint_auto, write_uint_auto, ucs_config_clone_uint, \
	  ucs_config_release_nop, help_uint_auto, &(_r) }
#define IBF_UCX_CFG_TIME_AUTO(_r) \
	{ read_time_auto, write_time_auto, ucs_config_clone_double, \
	  ucs_config_release_nop, help_time_auto, &(_r) }
#define IBF_UCX_CFG_RATIO_AUTO(_r) \
	{ read_ratio_auto, write_ratio_auto, ucs_config_clone_double, \
	  ucs_config_release_nop, help_ratio_auto, &(_r) }
#define IBF_UCX_CFG_TIME(_r) \
	{ read_time_range, ucs_config_sprintf_time, \
	  ucs_config_clone_double, ucs_config_release_nop, help_time_range, \
	  &(_r) }

static const cfg_range_t range_lid_offset = { 0, 127 };
static const cfg_range_t range_timeout = { 1e-3, 86400 };
static const cfg_range_t range_stall = { 1, 1000000 };
static const cfg_range_t range_max = { 1, 1000000 };
static const cfg_range_t range_runs = { 1, 1000 };
static const cfg_range_t range_warmup = { 0, 1000000 };
static const cfg_range_t range_size = { 1, 1u << 20 };
static const cfg_range_t range_tries = { 0, 1u << 20 };
static const cfg_range_t range_spin = { 0, 1 };
static const cfg_range_t range_conc = { 0, 1u << 20 };
static const cfg_range_t range_a2a_thresh = { 0, 1u << 30 };
static const cfg_range_t range_sl = { 0, 15 };
static const cfg_range_t range_gain = { 0, 1000 };
static const cfg_range_t range_tclass = { 0, 255 };
static const cfg_range_t range_infer_tol = { 0, 1 };
static const cfg_range_t range_infer_parallel = { 1, IBF_INFER_PARALLEL_MAX };
static const cfg_range_t range_bcast_thresh = { 0, 1u << 30 };
static const cfg_range_t range_bcast_chunk = { 1, 1u << 30 };

static const char *const rounds_names[] = {
	[IBF_UCX_ROUNDS_PARALLEL] = "parallel",
	[IBF_UCX_ROUNDS_SERIAL] = "serial",
	[IBF_UCX_ROUNDS_ALL_PAIRS] = "all-pairs",
	[IBF_UCX_ROUNDS_ALL_PAIRS + 1] = NULL,
};

/* Indexed by ibf_probe_model_t. */
static const char *const model_names[] = {
	[IBF_PROBE_DIRECTED] = "directed",
	[IBF_PROBE_SYMMETRIC] = "symmetric",
	[IBF_PROBE_SYMMETRIC + 1] = NULL,
};

static const char *const a2a_names[] = {
	[IBF_UCX_A2A_MODE_AUTO] = "auto",
	[IBF_UCX_A2A_MODE_LIQUID] = "liquid",
	[IBF_UCX_A2A_MODE_PAIRWISE] = "pairwise",
	[IBF_UCX_A2A_MODE_OFF] = "off",
	[IBF_UCX_A2A_MODE_OFF + 1] = NULL,
};

static const char *const bcast_names[] = {
	[IBF_UCX_BCAST_MODE_OFF] = "off",
	[IBF_UCX_BCAST_MODE_PIPELINE] = "pipeline",
	[IBF_UCX_BCAST_MODE_PIPELINE + 1] = NULL,
};

static const char *const a2a_sync_names[] = {
	[IBF_UCX_A2A_SYNC_LINKS] = "links",
	[IBF_UCX_A2A_SYNC_READY] = "ready",
	[IBF_UCX_A2A_SYNC_BARRIER] = "barrier",
	[IBF_UCX_A2A_SYNC_BARRIER + 1] = NULL,
};

static const char *const route_sl_names[] = {
	[IBF_UCX_ROUTE_SL_AUTO] = "auto",
	[IBF_UCX_ROUTE_SL_ANY] = "any",
	[IBF_UCX_ROUTE_SL_OFF] = "off",
	[IBF_UCX_ROUTE_SL_OFF + 1] = NULL,
};

/* ---- the table ------------------------------------------------------------ */

static ucs_config_field_t ibf_ucx_config_table[] = {
	{ "FABRIC", "",
	  "Directory of the fabric's topology and LFTs, as the ibflow OpenSM\n"
	  "plugin exports them (ibflow-export.txt manifest naming\n"
	  "ibflow-topology.ibnd and ibflow-lfts.dump; an address map\n"
	  "ibflow-addrmap.txt there is used to find endpoints).  Empty:\n"
	  "topology-unaware.  \"infer\": no export (RoCE, Ethernet); the\n"
	  "fabric is the tree inferred from RTTs measured among the processes\n"
	  "when the context is created (each process a host; routes are the\n"
	  "tree's paths).",
	  ucs_offsetof(ibf_ucx_cfg_t, fabric), UCS_CONFIG_TYPE_STRING },

	{ "HOSTMAP", "",
	  "File mapping processes to fabric endpoints, overriding discovery:\n"
	  "lines \"KEY ENDPOINT\", KEY a hostname, an IP address, an interface\n"
	  "name or rank:N; ENDPOINT a NodeDescription (quoted if it has\n"
	  "blanks), a 0x port GUID or a LID.",
	  ucs_offsetof(ibf_ucx_cfg_t, hostmap), UCS_CONFIG_TYPE_STRING },

	{ "ADDRMAP", "",
	  "Address map of a testbed: interface addresses -> fabric endpoints,\n"
	  "for RoCE, soft-RoCE and tcp (no LIDs to ask libibverbs for).  Either\n"
	  "netns-fabric's host map (/run/ibflow-netns/NAME/hosts) or \"KEY\n"
	  "ENDPOINT\" lines as in HOSTMAP.  Empty: ibflow-addrmap.txt in the\n"
	  "FABRIC directory when it exists.",
	  ucs_offsetof(ibf_ucx_cfg_t, addrmap), UCS_CONFIG_TYPE_STRING },

	{ "LID_OFFSET", "0",
	  "LID offset (0 .. 2^LMC-1) of the destination LIDs the processes\n"
	  "address each other by; routes are traced to base LID + offset.",
	  ucs_offsetof(ibf_ucx_cfg_t, lid_offset),
	  IBF_UCX_CFG_UINT(range_lid_offset) },

	{ "FALLBACK", "n",
	  "When a process cannot be mapped to a fabric endpoint, continue\n"
	  "topology-unaware instead of failing.",
	  ucs_offsetof(ibf_ucx_cfg_t, fallback), UCS_CONFIG_TYPE_BOOL },

	{ "NET_DEVICES", "all",
	  "UCX_NET_DEVICES for ibflow's own UCP context only (e.g. the fabric\n"
	  "interface, mlx5_0:1 or rxe0:1).",
	  ucs_offsetof(ibf_ucx_cfg_t, net_devices),
	  UCS_CONFIG_TYPE_ALLOW_LIST },

	{ "TLS", "all",
	  "UCX_TLS for ibflow's own UCP context only.",
	  ucs_offsetof(ibf_ucx_cfg_t, tls), UCS_CONFIG_TYPE_ALLOW_LIST },

	{ "TIMEOUT", "60s",
	  "Longest wait for any peer: out-of-band exchanges, barriers, a\n"
	  "ping-pong reply.  Expiry fails the operation on that process.",
	  ucs_offsetof(ibf_ucx_cfg_t, timeout),
	  IBF_UCX_CFG_TIME(range_timeout) },

	{ "PROBE_STALL", "10",
	  "Probe repeat rule: a run of ping-pongs ends when its best RTT has\n"
	  "not improved for this many exchanges ...",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_stall),
	  IBF_UCX_CFG_UINT(range_stall) },

	{ "PROBE_MAX", "30",
	  "... or after this many exchanges.",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_max),
	  IBF_UCX_CFG_UINT(range_max) },

	{ "PROBE_RUNS", "3",
	  "Runs per pair, each in its own pass over the whole schedule (a\n"
	  "transient disturbance spoils one run, not all); the minimum and\n"
	  "maximum of the runs' best RTTs are kept, the minimum is solved\n"
	  "for link latencies.",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_runs),
	  IBF_UCX_CFG_UINT(range_runs) },

	{ "PROBE_WARMUP", "3",
	  "Untimed exchanges before a pair's first run (endpoint wire-up).",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_warmup),
	  IBF_UCX_CFG_UINT(range_warmup) },

	{ "PROBE_SIZE", "8",
	  "Ping and pong message size in bytes.",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_size),
	  IBF_UCX_CFG_UINT(range_size) },

	{ "PROBE_TRIES", "0",
	  "Planner: partners a host tries per pass (0 = the planner's\n"
	  "default).",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_tries),
	  IBF_UCX_CFG_UINT(range_tries) },

	{ "PROBE_MODEL", "directed",
	  "Planner and solver: directed (one latency per direction of a\n"
	  "link) or symmetric (a link's latency the same both ways, as in\n"
	  "the PMM paper: fewer probes; wrong where the two directions\n"
	  "differ).",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_model),
	  UCS_CONFIG_TYPE_ENUM(model_names) },

	{ "PROBE_ROUNDS", "parallel",
	  "How the probes are run: parallel (each planned round's ping-pongs\n"
	  "at once, a barrier between rounds), serial (the plan's probes one\n"
	  "at a time) or all-pairs (every host pair one at a time, no plan).",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_rounds),
	  UCS_CONFIG_TYPE_ENUM(rounds_names) },

	{ "PROBE_SPIN", "auto",
	  "How long a waiting prober polls UCX before it sleeps on the\n"
	  "worker's event fd.  Polling answers faster; sleeping leaves the\n"
	  "CPU to other processes.  auto: poll (up to 1 s) when no more\n"
	  "processes of the job share this machine than it has CPUs and its\n"
	  "load average is below its CPU count, else sleep at once (0).",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_spin),
	  IBF_UCX_CFG_TIME_AUTO(range_spin) },

	{ "PROBE_CONCURRENCY", "auto",
	  "Probes run at once within a round: 0 = all of the round's; N = at\n"
	  "most N; auto = a machine runs at most as many probing processes\n"
	  "as it has CPUs (processes on one machine compete for CPUs, not for\n"
	  "links: an emulated fabric on a few cores).  A round is then run in\n"
	  "several steps, a barrier after each.",
	  ucs_offsetof(ibf_ucx_cfg_t, probe_concurrency),
	  IBF_UCX_CFG_UINT_AUTO(range_conc) },

	{ "ALLTOALL", "auto",
	  "All-to-all algorithm (ibf_ucx_alltoall, MPI_Alltoall(v) through\n"
	  "libibflow_mpi): liquid (the liquid schedule of the participants'\n"
	  "routed paths, frame by frame; pairwise when no fabric is known),\n"
	  "pairwise (topology-unaware round robin: step k, rank r sends to\n"
	  "r + k), auto (liquid when the fabric is known and a block has at\n"
	  "least ALLTOALL_THRESH bytes, else the caller's own algorithm) or\n"
	  "off (always the caller's own).",
	  ucs_offsetof(ibf_ucx_cfg_t, alltoall),
	  UCS_CONFIG_TYPE_ENUM(a2a_names) },

	{ "ALLTOALL_THRESH", "8192",
	  "auto: smallest block (bytes per pair) scheduled liquid; smaller\n"
	  "all-to-alls are latency-bound and left to the caller.",
	  ucs_offsetof(ibf_ucx_cfg_t, alltoall_thresh),
	  IBF_UCX_CFG_UINT(range_a2a_thresh) },

	{ "ALLTOALL_SYNC", "links",
	  "How liquid frames are kept apart: links (a transfer starts when,\n"
	  "on each link of its path and at both its ends, the transfer that\n"
	  "used it in an earlier frame has arrived: its receiver sends a\n"
	  "release; no barrier, frames that share nothing run ahead), ready\n"
	  "(a process sends its frame f block only after that frame's\n"
	  "receiver is done with frame f - 1: the ends only, not the links) or\n"
	  "barrier (a barrier before every frame).",
	  ucs_offsetof(ibf_ucx_cfg_t, alltoall_sync),
	  UCS_CONFIG_TYPE_ENUM(a2a_sync_names) },

	{ "ALLTOALL_GAIN", "auto",
	  "auto: the least gain the liquid schedule must promise over the\n"
	  "best of linear and pairwise (predicted for the participants'\n"
	  "routed paths: the plan's chain against the bound, and a rule\n"
	  "measured in the simulator) before it replaces the caller's own\n"
	  "algorithm; below it the first call declines and the caller's\n"
	  "algorithm runs from then on.  auto: 1 over RDMA (credit flow\n"
	  "control: all-at-once exchanges lose to head-of-line blocking), and\n"
	  "never over TCP (it shares links fairly, and the MPI library's\n"
	  "all-at-once algorithms were as fast as liquid within a tenth);\n"
	  "docs/ucx-alltoall.md has the measurements.  0: always liquid.",
	  ucs_offsetof(ibf_ucx_cfg_t, alltoall_gain),
	  IBF_UCX_CFG_RATIO_AUTO(range_gain) },

	{ "ALLTOALL_SEGMENT", "0",
	  "ALLTOALL_SYNC=links, alltoall: cut blocks larger than this many\n"
	  "bytes into pieces, each one run of the schedule (a slow transfer\n"
	  "then holds back a piece's worth of its successors, not a block's);\n"
	  "0: whole blocks.",
	  ucs_offsetof(ibf_ucx_cfg_t, alltoall_segment),
	  IBF_UCX_CFG_UINT(range_a2a_thresh) },

	{ "ALLTOALL_TRACE", "",
	  "File prefix: every liquid all-to-all appends, per process to\n"
	  "PREFIX.RANK, a line per transfer it sent or received (call, source,\n"
	  "destination, frame, the CLOCK_MONOTONIC nanoseconds of the send's\n"
	  "start or the block's arrival, and the SL of the context it went\n"
	  "on, - for the data context).  For tests and analysis.",
	  ucs_offsetof(ibf_ucx_cfg_t, alltoall_trace),
	  UCS_CONFIG_TYPE_STRING },

	{ "CTL_LANE", "y",
	  "Send control messages (the all-to-all's releases) on a second UCP\n"
	  "context that the fabric can serve before data: CTL_SL on\n"
	  "InfiniBand, CTL_TCLASS on RoCE, CTL_TCP_PORTS on TCP.  Set up at\n"
	  "the first liquid all-to-all, by every process or none.",
	  ucs_offsetof(ibf_ucx_cfg_t, ctl_lane), UCS_CONFIG_TYPE_BOOL },

	{ "CTL_SL", "auto",
	  "InfiniBand service level of the control lane (UCX_IB_SL of its\n"
	  "context): one the subnet manager maps to a high-priority VL\n"
	  "(docs/ucx-alltoall.md).  auto: UCX's default.",
	  ucs_offsetof(ibf_ucx_cfg_t, ctl_sl),
	  IBF_UCX_CFG_UINT_AUTO(range_sl) },

	{ "CTL_TCLASS", "auto",
	  "RoCE traffic class (DSCP << 2) of the control lane\n"
	  "(UCX_IB_TRAFFIC_CLASS of its context), e.g. 184 for DSCP 46.\n"
	  "auto: UCX's default.",
	  ucs_offsetof(ibf_ucx_cfg_t, ctl_tclass),
	  IBF_UCX_CFG_UINT_AUTO(range_tclass) },

	{ "CTL_TCP_PORTS", "20480-20607",
	  "TCP ports the control lane listens on (UCX_TCP_PORT_RANGE of its\n"
	  "context): each of its connections has one end in this range, for\n"
	  "a classifier to match (netns-fabric --ctl-ports).  Empty: any.",
	  ucs_offsetof(ibf_ucx_cfg_t, ctl_tcp_ports),
	  UCS_CONFIG_TYPE_STRING },

	{ "ROUTE_SL", "auto",
	  "Send the all-to-all's blocks and the probes on the SL of their\n"
	  "route (the export's ibflow-sl.txt), one UCP context per SL with\n"
	  "its own UCX_IB_SL, when the routing uses more than one SL.  auto:\n"
	  "when the transport is InfiniBand; any: whatever the transport (on\n"
	  "TCP or shared memory the SL has no effect, the contexts and the\n"
	  "choice of context per message are the same: for tests); off: on\n"
	  "the data context's UCX_IB_SL, like the rest of the job's traffic.",
	  ucs_offsetof(ibf_ucx_cfg_t, route_sl),
	  UCS_CONFIG_TYPE_ENUM(route_sl_names) },

	{ "INFER_TOL", "0",
	  "Topology inference (FABRIC=infer, ibflow-infer): coincidence radius\n"
	  "of a branching point, on the RTT scale: a new host branches off at\n"
	  "an existing switch when the switch lies within this of the interval\n"
	  "its measured min/max RTTs give.  About half the RTT of one hop; 0:\n"
	  "the measured intervals alone.",
	  ucs_offsetof(ibf_ucx_cfg_t, infer_tol),
	  IBF_UCX_CFG_TIME(range_infer_tol) },

	{ "INFER_PARALLEL", UCS_PP_MAKE_STRING(IBF_INFER_PARALLEL_DEFAULT),
	  "Topology inference: hosts inserted at once.  Their ping-pongs run\n"
	  "concurrently, a pair starting as soon as it shares no host and no\n"
	  "link of the tree inferred so far with the pairs in flight; 1: one\n"
	  "pair at a time (the paper).",
	  ucs_offsetof(ibf_ucx_cfg_t, infer_parallel),
	  IBF_UCX_CFG_UINT(range_infer_parallel) },

	{ "INFER_IN_FLIGHT", "auto",
	  "Topology inference: pairs measured at once at most.  0: as many as\n"
	  "INFER_PARALLEL and the link rule allow; N: at most N; auto: no\n"
	  "limit, unless a machine runs more of the job's processes than it\n"
	  "has CPUs (an emulated fabric on a few cores), then at most its CPU\n"
	  "count: there the ping-pongs in flight compete for CPUs, which\n"
	  "slows and widens every RTT measured.",
	  ucs_offsetof(ibf_ucx_cfg_t, infer_in_flight),
	  IBF_UCX_CFG_UINT_AUTO(range_conc) },

	{ "BCAST", "off",
	  "Broadcast (ibf_ucx_bcast_select, MPI_Bcast through libibflow_mpi):\n"
	  "pipeline (chunks relayed along the hosts in depth-first order of\n"
	  "the fabric, from the root on, for messages of at least\n"
	  "BCAST_THRESH bytes; rank order when no fabric is known) or off\n"
	  "(always the caller's own).",
	  ucs_offsetof(ibf_ucx_cfg_t, bcast),
	  UCS_CONFIG_TYPE_ENUM(bcast_names) },

	{ "BCAST_THRESH", "65536",
	  "pipeline: smallest message (bytes) broadcast along the pipeline.",
	  ucs_offsetof(ibf_ucx_cfg_t, bcast_thresh),
	  IBF_UCX_CFG_UINT(range_bcast_thresh) },

	{ "BCAST_CHUNK", "65536",
	  "pipeline: chunk size in bytes (each process forwards a chunk as\n"
	  "soon as it has it).",
	  ucs_offsetof(ibf_ucx_cfg_t, bcast_chunk),
	  IBF_UCX_CFG_UINT(range_bcast_chunk) },

	{ NULL, NULL, NULL, 0, { NULL, NULL, NULL, NULL, NULL, NULL } }
};

UCS_CONFIG_REGISTER_TABLE(ibf_ucx_config_table, "IBFLOW",
			  IBF_UCX_TABLE_PREFIX, ibf_ucx_cfg_t,
			  &ucs_config_global_list)

/* ---- validation with the variable's name ---------------------------------- */

static const ucs_config_field_t *find_field(const char *name)
{
	const ucs_config_field_t *f;
	size_t pl = strlen(IBF_UCX_VAR_PREFIX);

	if (!strncmp(name, IBF_UCX_VAR_PREFIX, pl))
		name += pl;
	for (f = ibf_ucx_config_table; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static ibf_ucx_status_t bad_value(const ucs_config_field_t *f,
				  const char *value, ibf_ucx_err_t *err)
{
	char help[192];

	f->parser.help(help, sizeof(help), f->parser.arg);
	return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
			       "%s%s: invalid value '%s' (expected %s)",
			       IBF_UCX_VAR_PREFIX, f->name, value, help);
}

/* Try a value with the field's reader, into scratch space. */
static ibf_ucx_status_t try_value(const ucs_config_field_t *f,
				  const char *value, ibf_ucx_err_t *err)
{
	union {
		char bytes[128];
		double d;
		void *p;
	} scratch;

	memset(&scratch, 0, sizeof(scratch));
	if (f->parser.read(value, &scratch, f->parser.arg) != 1)
		return bad_value(f, value, err);
	f->parser.release(&scratch, f->parser.arg);
	return IBF_UCX_OK;
}

/* Every UCX_IBFLOW_ variable in the environment must be known and
 * well-formed. */
static ibf_ucx_status_t check_environment(ibf_ucx_err_t *err)
{
	size_t pl = strlen(IBF_UCX_VAR_PREFIX);
	const ucs_config_field_t *f;
	char name[128];
	char **e;

	for (e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t nl;

		if (!eq || strncmp(*e, IBF_UCX_VAR_PREFIX, pl))
			continue;
		nl = (size_t)(eq - *e);
		if (nl >= sizeof(name))
			nl = sizeof(name) - 1;
		memcpy(name, *e, nl);
		name[nl] = '\0';
		f = find_field(name);
		if (!f)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
					       "%s: unknown variable (`ucx_info "
					       "-cf` with libibflow_ucx.so "
					       "preloaded lists them)", name);
		if (try_value(f, eq + 1, err) != IBF_UCX_OK)
			return IBF_UCX_ERR_CONFIG;
	}
	return IBF_UCX_OK;
}

static ibf_ucx_status_t check_semantics(const ibf_ucx_cfg_t *v,
					ibf_ucx_err_t *err)
{
	if (!strcmp(v->fabric, "infer") && v->lid_offset)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "%sLID_OFFSET=%u: %sFABRIC=infer routes "
				       "at LMC 0 (offset 0 only)",
				       IBF_UCX_VAR_PREFIX, v->lid_offset,
				       IBF_UCX_VAR_PREFIX);
	if (v->probe_stall > v->probe_max)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "%sPROBE_STALL=%u exceeds %sPROBE_MAX=%u",
				       IBF_UCX_VAR_PREFIX, v->probe_stall,
				       IBF_UCX_VAR_PREFIX, v->probe_max);
	return IBF_UCX_OK;
}

/* ---- public API ------------------------------------------------------------- */

ibf_ucx_status_t ibf_ucx_config_read(ibf_ucx_config_t **out,
				     ibf_ucx_err_t *err)
{
	ibf_ucx_config_t *c;
	ibf_ucx_status_t st;

	*out = NULL;
	st = check_environment(err);
	if (st != IBF_UCX_OK)
		return st;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	/* What is left to fail here comes from UCX's configuration files,
	 * whose error UCX has printed. */
	if (ucs_config_parser_fill_opts(&c->v, ibf_ucx_config_table,
					IBF_UCX_ENV_PREFIX,
					IBF_UCX_TABLE_PREFIX, 0) != UCS_OK) {
		free(c);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "a %s* setting in a UCX configuration "
				       "file (ucx.conf) is invalid",
				       IBF_UCX_VAR_PREFIX);
	}
	st = check_semantics(&c->v, err);
	if (st != IBF_UCX_OK) {
		ibf_ucx_config_release(c);
		return st;
	}
	*out = c;
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucx_config_modify(ibf_ucx_config_t *c, const char *name,
				       const char *value, ibf_ucx_err_t *err)
{
	const ucs_config_field_t *f = find_field(name);
	ibf_ucx_cfg_t old;
	ibf_ucx_status_t st;

	if (!f)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "%s: unknown variable", name);
	st = try_value(f, value, err);
	if (st != IBF_UCX_OK)
		return st;
	/* Semantic checks span fields: keep the old value to put back. */
	if (ucs_config_parser_clone_opts(&c->v, &old, ibf_ucx_config_table) !=
	    UCS_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	if (ucs_config_parser_set_value(&c->v, ibf_ucx_config_table, f->name,
					value) != UCS_OK) {
		ucs_config_parser_release_opts(&old, ibf_ucx_config_table);
		return bad_value(f, value, err);
	}
	st = check_semantics(&c->v, err);
	if (st != IBF_UCX_OK) {
		ucs_config_parser_release_opts(&c->v, ibf_ucx_config_table);
		c->v = old;
		return st;
	}
	ucs_config_parser_release_opts(&old, ibf_ucx_config_table);
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucx_config_get(const ibf_ucx_config_t *c,
				    const char *name, char *buf, size_t len,
				    ibf_ucx_err_t *err)
{
	const ucs_config_field_t *f = find_field(name);

	if (!f)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "%s: unknown variable", name);
	return ibf_ucx_cfg_string(c, f->name, buf, len, err);
}

ibf_ucx_status_t ibf_ucx_cfg_string(const ibf_ucx_config_t *c,
				    const char *field, char *buf, size_t len,
				    ibf_ucx_err_t *err)
{
	/* UCX prints an empty list by writing nothing at all */
	if (len)
		buf[0] = '\0';
	if (ucs_config_parser_get_value((void *)&c->v, ibf_ucx_config_table,
					field, buf, len) != UCS_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "%s%s: cannot print the value",
				       IBF_UCX_VAR_PREFIX, field);
	return IBF_UCX_OK;
}

double ibf_ucx_config_timeout(const ibf_ucx_config_t *c)
{
	return c->v.timeout;
}

ibf_ucx_status_t ibf_ucx_config_clone(const ibf_ucx_config_t *src,
				      ibf_ucx_config_t **out,
				      ibf_ucx_err_t *err)
{
	ibf_ucx_config_t *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c || ucs_config_parser_clone_opts(&src->v, &c->v,
					       ibf_ucx_config_table) != UCS_OK) {
		free(c);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	*out = c;
	return IBF_UCX_OK;
}

void ibf_ucx_config_print(const ibf_ucx_config_t *c, FILE *fp, bool doc)
{
	ucs_config_parser_print_opts(fp, "IBFLOW configuration", &c->v,
				     ibf_ucx_config_table,
				     IBF_UCX_TABLE_PREFIX, IBF_UCX_ENV_PREFIX,
				     UCS_CONFIG_PRINT_CONFIG |
				     (doc ? UCS_CONFIG_PRINT_DOC |
				      UCS_CONFIG_PRINT_HEADER : 0));
}

void ibf_ucx_config_release(ibf_ucx_config_t *c)
{
	if (!c)
		return;
	ucs_config_parser_release_opts(&c->v, ibf_ucx_config_table);
	free(c);
}

/* ---- at load -------------------------------------------------------------- */

/* Parse once so UCX counts the variables as used.  Errors are reported
 * by ibf_ucx_config_read() with the variable's name; UCX's own message
 * (the field name without prefix) is held back meanwhile. */
UCS_STATIC_INIT
{
	ucs_log_level_t level = ucs_global_opts.log_component.log_level;
	ibf_ucx_cfg_t v;

	ucs_global_opts.log_component.log_level = UCS_LOG_LEVEL_FATAL;
	if (ucs_config_parser_fill_opts(&v, ibf_ucx_config_table,
					IBF_UCX_ENV_PREFIX,
					IBF_UCX_TABLE_PREFIX, 1) == UCS_OK)
		ucs_config_parser_release_opts(&v, ibf_ucx_config_table);
	ucs_global_opts.log_component.log_level = level;
}
