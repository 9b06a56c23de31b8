/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The packet-level simulator's state (private).  Flat arrays indexed by
 * port id (a directed link is its egress port; a receive buffer is an
 * input port and a VL), packets and messages by integer id.
 */
#ifndef IBFLOW_SIM_INTERNAL_H
#define IBFLOW_SIM_INTERNAL_H

#include <ibflow/sim.h>

#define SIM_NONE UINT32_MAX

typedef int64_t sim_ps_t;   /* simulated time, picoseconds */

/* ---- events (sim_events.c) ------------------------------------------------
 * Most events are a constant delay ahead: arrivals and credits one link
 * latency, ends of transmissions one packet time (a full packet on a link
 * of a given rate).  Events of one delay are scheduled in time order, so
 * each delay gets a FIFO (up to SIM_NFIFO of them); the others go to a
 * binary heap.  The earliest head is next, ties broken by the order of
 * scheduling, exactly as one heap would order them. */
enum sim_ev_type {
	SIM_EV_ARRIVE = 1,   /* a: packet; its head reaches a switch */
	SIM_EV_CREDIT,       /* a: egress port, b: vl << 8 | blocks */
	SIM_EV_DELIVER,      /* a: packet; its tail reached the HCA */
	SIM_EV_TXDONE,       /* a: egress port; its tail left */
	SIM_EV_START,        /* a: message; its start time */
};

typedef struct sim_ev {
	sim_ps_t t;
	uint64_t seq;
	uint32_t type, a, b;
} sim_ev_t;

#define SIM_NFIFO 8

typedef struct sim_ring {
	sim_ps_t delay;      /* -1: unused */
	sim_ev_t *ev;
	size_t head, count, cap;  /* cap: a power of two */
} sim_ring_t;

typedef struct sim_evq {
	sim_ev_t *heap;
	size_t nheap, heap_cap;
	sim_ring_t ring[SIM_NFIFO];
	unsigned nring;
	uint64_t seq;
} sim_evq_t;

int sim_evq_init(sim_evq_t *q);
void sim_evq_free(sim_evq_t *q);
/* Schedule an event at time t (the heap: for one-off delays). */
int sim_evq_push_at(sim_evq_t *q, sim_ps_t t, uint32_t type, uint32_t a);
/* The slow paths of sim_evq_push: a delay without a ring yet (claimed,
 * or the heap when all are taken), or a full ring (grown). */
int sim_evq_push_slow(sim_evq_t *q, sim_ps_t now, sim_ps_t delay,
		      uint32_t type, uint32_t a, uint32_t b);
void sim_evq_heap_pop(sim_evq_t *q, sim_ev_t *out);

static inline bool sim_ev_before(const sim_ev_t *a, const sim_ev_t *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Schedule an event `delay` after now.  Inline: two or three pushes per
 * packet hop. */
static inline int sim_evq_push(sim_evq_t *q, sim_ps_t now, sim_ps_t delay,
			       uint32_t type, uint32_t a, uint32_t b)
{
	sim_ring_t *r = NULL;
	sim_ev_t *e;
	unsigned i;

	for (i = 0; i < q->nring; i++)
		if (q->ring[i].delay == delay) {
			r = &q->ring[i];
			break;
		}
	if (!r || r->count == r->cap)
		return sim_evq_push_slow(q, now, delay, type, a, b);
	/* fields written in place: a struct built aside and copied stalls
	 * on store forwarding (a third of the run's time) */
	e = &r->ev[(r->head + r->count) & (r->cap - 1)];
	e->t = now + delay;
	e->seq = q->seq++;
	e->type = type;
	e->a = a;
	e->b = b;
	r->count++;
	return 0;
}

/* The next event, or NULL when none is left; *from: its ring, or -1 for
 * the heap (for sim_evq_take). */
static inline const sim_ev_t *sim_evq_peek(const sim_evq_t *q, int *from)
{
	const sim_ev_t *best = q->nheap ? &q->heap[0] : NULL;
	const sim_ring_t *r;
	unsigned i;

	*from = -1;
	for (i = 0; i < q->nring; i++) {
		r = &q->ring[i];
		if (r->count && (!best || sim_ev_before(&r->ev[r->head], best))) {
			best = &r->ev[r->head];
			*from = (int)i;
		}
	}
	return best;
}

/* Remove the event sim_evq_peek gave (from: its answer), into *ev. */
static inline void sim_evq_take(sim_evq_t *q, int from, sim_ev_t *ev)
{
	sim_ring_t *r;

	if (from < 0) {
		sim_evq_heap_pop(q, ev);
		return;
	}
	r = &q->ring[from];
	*ev = r->ev[r->head];
	r->head = (r->head + 1) & (r->cap - 1);
	r->count--;
}

/* ---- messages and packets -------------------------------------------------*/

typedef struct sim_msg {
	ibf_port_id_t src, dst;
	uint64_t bytes, bytes_done, bytes_at_first;
	uint32_t npkts, sent, delivered;
	uint32_t npred_left;
	uint32_t early_at;       /* packets delivered that fire the early
				    successors (0: at the end) */
	bool early_fired;
	uint32_t next_pending;   /* FIFO of ready messages of a host */
	uint16_t base_lid;
	uint8_t lid_mask;        /* LID offsets used: packet i & mask */
	uint8_t kind;            /* ibf_sim_kind_t (LOCAL when src == dst) */
	uint8_t vl;              /* of the base LID's route */
	bool done;
	sim_ps_t start_ps, ready_ps, first_ps, end_ps;
} sim_msg_t;

typedef struct sim_pkt {
	uint32_t msg;
	uint32_t next;       /* next in its buffer's FIFO, or the free list */
	ibf_port_id_t at;    /* input port whose buffer holds it */
	ibf_port_id_t out;   /* egress port the LFT gives at that switch */
	uint32_t payload;
	uint16_t wire;       /* bytes on the wire: payload + headers */
	uint16_t dlid;
	uint8_t vl, blocks;  /* vl: of the link it is on or came by */
	uint8_t out_vl;      /* VL it takes on `out` (vl_spread: per hop) */
	sim_ps_t tail_ps;    /* its tail arrives at `at` */
} sim_pkt_t;

/* What the hot path needs of a port, in one flat record (the fabric's
 * records are reached through the port's node). */
typedef struct sim_port {
	ibf_port_id_t peer;       /* IBF_NO_ID when unlinked */
	ibf_port_id_t first_port; /* its node's port 0 */
	uint32_t sw;              /* its switch's index (LFT row), or
				     SIM_NONE on a CA */
	uint8_t nports;           /* its node's ports */
	uint8_t peer_switch;      /* the peer is a switch port */
	uint16_t pad;
} sim_port_t;

#define SIM_AVL_ANY 0xfe
#define SIM_AVL_DEAD 0xff

/* One host: its messages being injected and those waiting for the
 * window. */
typedef struct sim_host {
	/* messages with packets left, in round-robin order: slots, of which
	 * removed ones are kept (SIM_AVL_DEAD) until more than half are */
	uint32_t *active;
	uint8_t *active_vl;  /* per slot: its message's VL, SIM_AVL_ANY when
				its packets' VLs vary (LID spreading) */
	size_t active_cap;
	uint32_t nslots, nactive;
	uint32_t rr;         /* slot to try first */
	uint32_t pend_head, pend_tail;
	uint32_t in_flight;
	uint32_t nsmall;     /* active messages whose next packet is short */
} sim_host_t;

struct ibf_sim {
	const ibf_fabric_t *fabric;
	const ibf_lfts_t *lfts;
	ibf_sim_opts_t o;
	unsigned nvl;            /* VLs simulated (set by sim_alloc_buffers) */
	unsigned data_vls;       /* VL = SL mod data_vls for data */
	unsigned ctrl_vl;        /* VL of control messages (ctrl_lane) */
	unsigned max_blocks;     /* credits of one buffer */
	unsigned full_blocks;    /* credits of a packet of MTU payload */
	sim_ps_t lat_ps;

	sim_msg_t *msg;
	uint32_t nmsg, msg_cap;
	uint32_t (*dep)[2];      /* (before, after) as added */
	size_t ndep, dep_cap;
	uint32_t *succ_off, *succ;   /* CSR built by run */
	uint32_t (*edep)[2];     /* early dependencies (before, after) */
	size_t nedep, edep_cap;
	uint32_t *esucc_off, *esucc; /* their CSR */
	bool ran;

	/* per port */
	sim_port_t *port;
	double *ps_per_byte;
	uint8_t *busy, *in_busy;
	uint32_t *cur_pkt, *cur_in, *rr;
	uint8_t *cur_in_vl;      /* output: VL of the input buffer its packet
				    left (the credit to return upstream) */
	uint32_t *nwant;         /* output: FIFO heads that want it */
	uint32_t *nwant_high;    /* the same on high-priority VLs */
	/* output p: a bit per (input, VL) of its switch, in its round-robin
	 * order, set while that buffer's head packet wants p; arbitration
	 * visits the set bits instead of every buffer of the switch */
	uint64_t *want_bits;     /* [want_off[p] ..] */
	uint32_t *want_off;      /* per port (switch ports only) */
	uint32_t *cand_base;     /* per port: buffer index of its switch's
				    port 1, VL 0 (bit = buffer - base) */
	uint8_t *arb_mark;       /* port waits in arb_list */
	uint8_t *nhigh;          /* input: high-priority VLs holding packets */
	uint32_t *held_vls;      /* input: bit v set while VL v's buffer
				    holds packets */
	uint32_t *arb_list, narb;
	int32_t *credits;        /* [port * nvl + vl] */
	uint32_t *buf_head, *buf_tail;  /* [port * nvl + vl] */
	uint64_t *link_bytes;
	uint64_t *vl_bytes;      /* [port * nvl + vl], vl_spread only */
	sim_ps_t *busy_ps, *blocked_ps, *blocked_since;

	sim_host_t *host;        /* [nendpoints] */

	sim_pkt_t *pkt;
	uint32_t npkt, pkt_cap, pkt_free;

	sim_evq_t evq;
	sim_ps_t now;
	uint32_t *stack;         /* completions to propagate */
	uint32_t nstack, stack_cap;
	sim_ps_t first_done_ps;  /* -1 until a data message completes */
	uint64_t events, packets, hops;
	bool failed;             /* out of memory or a broken route */
	ibf_err_t err;
};

static inline bool sim_is_local(const sim_msg_t *m)
{
	return m->kind == IBF_SIM_LOCAL;
}

/* Credits and FIFOs of every (port, VL), the control lane's VL included
 * when some control message needs it: at the start of the run. */
ibf_status_t sim_alloc_buffers(ibf_sim_t *s, ibf_err_t *err);

/* The VL of message m's packets to dlid (sim.c). */
unsigned sim_vl(const ibf_sim_t *s, const sim_msg_t *m, unsigned dlid);

/* ---- report helpers (sim_report.c) --------------------------------------- */

/* Fill res after the loop: messages, links, the credit loop if any. */
ibf_status_t sim_collect(ibf_sim_t *s, ibf_sim_result_t *res,
			 ibf_err_t *err);

/* Payload rate of egress port p in Gb/s (link rate x MTU share). */
double sim_payload_gbps(const ibf_sim_t *s, ibf_port_id_t p);

#endif
