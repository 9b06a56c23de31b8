/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The simulator's event loop: injection, arbitration, forwarding, credits,
 * delivery, message dependencies.
 *
 * A packet hop is three events: its head arriving at the next switch
 * (ARRIVE, one link latency after it started), the end of its
 * transmission (TXDONE: the output and the input it came from are free
 * again) and its credits coming back to the upstream sender (CREDIT, one
 * latency after its tail left the buffer).  Cut-through: a packet may
 * start on the next link as soon as its head is in, but its transmission
 * cannot end before its tail has arrived.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "sim_internal.h"

static void fail_nomem(ibf_sim_t *s)
{
	if (!s->failed)
		ibf_err_set(&s->err, IBF_ERR_NOMEM, "out of memory");
	s->failed = true;
}

/* An event one link latency ahead. */
static void push_lat(ibf_sim_t *s, uint32_t type, uint32_t a, uint32_t b)
{
	if (sim_evq_push(&s->evq, s->now, s->lat_ps, type, a, b))
		fail_nomem(s);
}

static void push_after(ibf_sim_t *s, sim_ps_t delay, uint32_t type,
		       uint32_t a)
{
	if (sim_evq_push(&s->evq, s->now, delay, type, a, 0))
		fail_nomem(s);
}

static void push_at(ibf_sim_t *s, sim_ps_t t, uint32_t type, uint32_t a)
{
	if (sim_evq_push_at(&s->evq, t, type, a))
		fail_nomem(s);
}

/* ---- packets ------------------------------------------------------------- */

static uint32_t pkt_alloc(ibf_sim_t *s)
{
	sim_pkt_t *p;
	uint32_t k;

	if (s->pkt_free != SIM_NONE) {
		k = s->pkt_free;
		s->pkt_free = s->pkt[k].next;
		return k;
	}
	p = ibf_array_grow32(s->pkt, &s->pkt_cap, (uint64_t)s->npkt + 1,
			     sizeof(*p));
	if (!p) {
		fail_nomem(s);
		return SIM_NONE;
	}
	s->pkt = p;
	return s->npkt++;
}

static void pkt_release(ibf_sim_t *s, uint32_t k)
{
	s->pkt[k].next = s->pkt_free;
	s->pkt_free = k;
}

/* Packet i of message m, as the HCA puts it on the wire. */
static void pkt_fill(const ibf_sim_t *s, sim_pkt_t *p, uint32_t mi,
		     uint32_t i)
{
	const sim_msg_t *m = &s->msg[mi];
	uint64_t left = m->bytes - (uint64_t)i * s->o.mtu;

	p->msg = mi;
	p->next = SIM_NONE;
	p->payload = left < s->o.mtu ? (uint32_t)left : s->o.mtu;
	p->wire = (uint16_t)(p->payload + IBF_SIM_HEADER);
	p->blocks = (uint8_t)((p->wire + IBF_SIM_BLOCK - 1) / IBF_SIM_BLOCK);
	p->dlid = (uint16_t)(m->base_lid + (i & m->lid_mask));
	p->vl = m->lid_mask ? (uint8_t)sim_vl(s, m, p->dlid) : m->vl;
	p->out_vl = p->vl;
	p->out = m->src;
	p->at = SIM_NONE;
}

/* ---- transmission ---------------------------------------------------------*/

static void tx_start(ibf_sim_t *s, ibf_port_id_t p, uint32_t k,
		     ibf_port_id_t from)
{
	sim_pkt_t *pk = &s->pkt[k];
	sim_ps_t end = s->now + (sim_ps_t)(pk->wire * s->ps_per_byte[p] + 0.5);
	ibf_port_id_t peer = s->port[p].peer;

	if (from != SIM_NONE && pk->tail_ps > end)
		end = pk->tail_ps;
	s->busy[p] = 1;
	s->cur_pkt[p] = k;
	s->cur_in[p] = from;
	s->cur_in_vl[p] = pk->vl;
	pk->vl = pk->out_vl;
	s->credits[p * s->nvl + pk->vl] -= pk->blocks;
	if (s->vl_bytes)
		s->vl_bytes[p * s->nvl + pk->vl] += pk->wire;
	if (s->blocked_since[p] >= 0) {
		s->blocked_ps[p] += s->now - s->blocked_since[p];
		s->blocked_since[p] = -1;
	}
	s->busy_ps[p] += end - s->now;
	s->link_bytes[p] += pk->wire;
	s->hops++;
	push_after(s, end - s->now, SIM_EV_TXDONE, p);
	pk->at = peer;
	pk->tail_ps = end + s->lat_ps;
	if (s->port[p].peer_switch)
		push_lat(s, SIM_EV_ARRIVE, k, 0);
}

static void mark_blocked(ibf_sim_t *s, ibf_port_id_t p)
{
	if (s->blocked_since[p] < 0)
		s->blocked_since[p] = s->now;
}

/* Buffer b's head starts or stops wanting output p (its bit in p's
 * bitmap was clear or set). */
static inline void want_flip(ibf_sim_t *s, ibf_port_id_t p, uint32_t b)
{
	uint32_t c = b - s->cand_base[p];

	s->want_bits[s->want_off[p] + c / 64] ^= UINT64_C(1) << (c % 64);
}

/* The first set bit of w at or after from and before end, else end. */
static inline uint32_t want_next(const uint64_t *w, uint32_t from,
				 uint32_t end)
{
	uint32_t i = from / 64;
	uint64_t x;

	if (from >= end)
		return end;
	x = w[i] & (~UINT64_C(0) << (from % 64));
	while (!x) {
		if (++i * 64 >= end)
			return end;
		x = w[i];
	}
	from = i * 64 + (uint32_t)__builtin_ctzll(x);
	return from < end ? from : end;
}

/* Take the head packet off buffer b (input q); the next one, if any,
 * becomes a request for its output. */
static uint32_t buf_pop(ibf_sim_t *s, uint32_t b)
{
	uint32_t k = s->buf_head[b], n = s->pkt[k].next;

	unsigned high = s->o.vl_high >> (b % s->nvl) & 1;

	s->nwant[s->pkt[k].out]--;
	s->nwant_high[s->pkt[k].out] -= high;
	want_flip(s, s->pkt[k].out, b);
	s->buf_head[b] = n;
	if (n == SIM_NONE) {
		s->buf_tail[b] = SIM_NONE;
		s->nhigh[b / s->nvl] -= high;
		s->held_vls[b / s->nvl] &= ~(UINT32_C(1) << (b % s->nvl));
	} else {
		s->nwant[s->pkt[n].out]++;
		s->nwant_high[s->pkt[n].out] += high;
		want_flip(s, s->pkt[n].out, b);
	}
	return k;
}

/* An input holding a high-priority packet keeps itself for it: it sends
 * nothing of a lower VL meanwhile (else a steady stream of data to one
 * output would keep it busy whenever the high packet's output frees). */
static bool input_reserved(const ibf_sim_t *s, ibf_port_id_t q, uint32_t v)
{
	return s->nhigh[q] && !(s->o.vl_high >> v & 1);
}

/* Does input buffer b hold, at its head, a packet for p that can go? */
static int candidate(ibf_sim_t *s, ibf_port_id_t p, ibf_port_id_t q,
		     uint32_t b)
{
	uint32_t k = s->buf_head[b];

	if (k == SIM_NONE || s->in_busy[q] || s->pkt[k].out != p ||
	    input_reserved(s, q, b % s->nvl))
		return 0;
	if (s->credits[p * s->nvl + s->pkt[k].out_vl] < s->pkt[k].blocks)
		return -1;
	return 1;
}

/* One round-robin pass over the (input, VL) pairs of p's switch,
 * restricted to high-priority VLs or not: the pairs whose head wants p,
 * in the order after the last one served (rr).  True when a packet
 * left. */
static bool switch_pass(ibf_sim_t *s, ibf_port_id_t p, bool high_only)
{
	const sim_port_t *sp = &s->port[p];
	const uint64_t *w = &s->want_bits[s->want_off[p]];
	uint32_t nvl = s->nvl, ncand = (uint32_t)sp->nports * nvl;
	uint32_t first = s->rr[p] + 1 == ncand ? 0 : s->rr[p] + 1;
	uint32_t lo = first, hi = ncand, c, v, b;
	ibf_port_id_t q;
	int r, round;

	for (round = 0; round < 2; round++) {
		for (c = want_next(w, lo, hi); c < hi;
		     c = want_next(w, c + 1, hi)) {
			v = c % nvl;
			if (high_only && !(s->o.vl_high >> v & 1))
				continue;
			q = sp->first_port + 1 + c / nvl;
			b = q * nvl + v;
			r = candidate(s, p, q, b);
			if (r < 0)
				mark_blocked(s, p);
			if (r <= 0)
				continue;
			s->rr[p] = c;
			s->in_busy[q] = 1;
			tx_start(s, p, buf_pop(s, b), q);
			return true;
		}
		lo = 0;
		hi = first;
	}
	return false;
}

/* Slot i's message has no packets left.  Its slot stays (dead) until
 * dead slots are the majority, so removal keeps the order and costs
 * O(1) amortised (the host may have thousands of messages active). */
static void host_remove_active(sim_host_t *h, uint32_t i)
{
	uint32_t j, n = 0, rr = 0;

	h->active_vl[i] = SIM_AVL_DEAD;
	h->nactive--;
	h->rr = i + 1;
	if (h->nslots < 64 || h->nslots - h->nactive <= h->nactive)
		return;
	for (j = 0; j < h->nslots; j++) {
		if (j == h->rr)
			rr = n;
		if (h->active_vl[j] == SIM_AVL_DEAD)
			continue;
		h->active[n] = h->active[j];
		h->active_vl[n++] = h->active_vl[j];
	}
	h->rr = h->rr >= h->nslots ? n : rr;
	h->nslots = n;
}

/* Is message m's next packet shorter than a full one? */
static inline unsigned next_small(const ibf_sim_t *s, const sim_msg_t *m)
{
	return m->bytes - (uint64_t)m->sent * s->o.mtu < s->o.mtu;
}

/* Has the HCA's link credits for message m's next packet?  Without LID
 * spreading a message keeps one VL, and every packet but the last is a
 * full one: no need to build the packet to know. */
static bool next_fits(const ibf_sim_t *s, ibf_port_id_t p, const sim_msg_t *m)
{
	sim_pkt_t probe;
	uint64_t left;
	unsigned blocks;

	if (m->lid_mask) {
		pkt_fill(s, &probe, (uint32_t)(m - s->msg), m->sent);
		return s->credits[p * s->nvl + probe.vl] >= probe.blocks;
	}
	left = m->bytes - (uint64_t)m->sent * s->o.mtu;
	blocks = left >= s->o.mtu ? s->full_blocks :
		 (unsigned)((left + IBF_SIM_HEADER + IBF_SIM_BLOCK - 1) /
			    IBF_SIM_BLOCK);
	return s->credits[p * s->nvl + m->vl] >= (int32_t)blocks;
}

/* The VLs of egress port p with credits for a full packet (a mask). */
static uint32_t full_vls(const ibf_sim_t *s, ibf_port_id_t p)
{
	const int32_t *c = &s->credits[p * s->nvl];
	uint32_t v, mask = 0;

	for (v = 0; v < s->nvl; v++)
		mask |= (uint32_t)(c[v] >= (int32_t)s->full_blocks) << v;
	return mask;
}

/* The first slot from `from` to `end` whose message's next packet has
 * credits, else SIM_NONE.  A full packet fits where its VL is in full;
 * only a short one (nsmall) or one of varying VL needs its message
 * read. */
static uint32_t fit_in(const ibf_sim_t *s, const sim_host_t *h,
		       ibf_port_id_t p, uint32_t full, uint32_t from,
		       uint32_t end)
{
	uint32_t i;
	unsigned v;

	for (i = from; i < end; i++) {
		v = h->active_vl[i];
		if (v < SIM_AVL_ANY && (full >> v & 1))
			return i;
		if (v == SIM_AVL_DEAD || (v < SIM_AVL_ANY && !h->nsmall))
			continue;
		if (next_fits(s, p, &s->msg[h->active[i]]))
			return i;
	}
	return SIM_NONE;
}

/* The HCA's output: the next active message (round robin) whose next
 * packet has credits. */
static void inject(ibf_sim_t *s, ibf_port_id_t p)
{
	sim_host_t *h = &s->host[s->fabric->endpoint_index[p]];
	uint32_t full = full_vls(s, p), start, j, mi, k;
	sim_pkt_t probe;

	/* no VL has room for a full packet: only a message whose next
	 * packet is a short one could go */
	if (!h->nsmall && !full) {
		if (h->nactive)
			mark_blocked(s, p);
		return;
	}
	start = h->rr < h->nslots ? h->rr : 0;
	j = fit_in(s, h, p, full, start, h->nslots);
	if (j == SIM_NONE)
		j = fit_in(s, h, p, full, 0, start);
	if (j == SIM_NONE) {
		if (h->nactive)
			mark_blocked(s, p);
		return;
	}
	mi = h->active[j];
	pkt_fill(s, &probe, mi, s->msg[mi].sent);
	k = pkt_alloc(s);
	if (k == SIM_NONE)
		return;
	s->pkt[k] = probe;
	h->nsmall -= next_small(s, &s->msg[mi]);
	if (!s->msg[mi].sent++)
		s->msg[mi].first_ps = s->now;
	if (s->msg[mi].sent < s->msg[mi].npkts)
		h->nsmall += next_small(s, &s->msg[mi]);
	s->packets++;
	h->rr = j + 1;
	if (s->msg[mi].sent == s->msg[mi].npkts)
		host_remove_active(h, j);
	tx_start(s, p, k, SIM_NONE);
}

static void arbitrate(ibf_sim_t *s, ibf_port_id_t p)
{
	if (s->busy[p])
		return;
	if (s->port[p].sw == SIM_NONE) {
		inject(s, p);
		return;
	}
	if (!s->nwant[p])
		return;
	if (s->nwant_high[p] && switch_pass(s, p, true))
		return;
	switch_pass(s, p, false);
}

/* Outputs are arbitrated once every event of the current time has been
 * applied, so that requests made at the same picosecond compete (an
 * input freed at the very time an output frees is a candidate for it). */
static void want_arbitration(ibf_sim_t *s, ibf_port_id_t p)
{
	if (s->arb_mark[p])
		return;
	s->arb_mark[p] = 1;
	s->arb_list[s->narb++] = p;
}

static void flush_arbitration(ibf_sim_t *s)
{
	uint32_t i;

	for (i = 0; i < s->narb; i++) {
		s->arb_mark[s->arb_list[i]] = 0;
		arbitrate(s, s->arb_list[i]);
	}
	s->narb = 0;
}

/* ---- messages ------------------------------------------------------------ */

/* Append v to a growable array; false (the run failing) when memory
 * runs out. */
static bool append(ibf_sim_t *s, uint32_t **arr, uint32_t *n, uint32_t *cap,
		   uint32_t v)
{
	uint32_t *a = ibf_array_grow32(*arr, cap, (uint64_t)*n + 1,
				       sizeof(*a));

	if (!a) {
		fail_nomem(s);
		return false;
	}
	*arr = a;
	a[(*n)++] = v;
	return true;
}

/* A message becomes active: the last slot of its host's round robin. */
static bool host_append(ibf_sim_t *s, sim_host_t *h, uint32_t mi)
{
	void *const arr[] = { &h->active, &h->active_vl };
	const size_t elem[] = { sizeof(*h->active), sizeof(*h->active_vl) };
	const sim_msg_t *m = &s->msg[mi];

	if (ibf_array_grow_par(&h->active_cap, (size_t)h->nslots + 1, 2, arr,
			       elem)) {
		fail_nomem(s);
		return false;
	}
	h->active[h->nslots] = mi;
	h->active_vl[h->nslots++] = m->lid_mask ? SIM_AVL_ANY : m->vl;
	h->nactive++;
	return true;
}

static void host_activate(ibf_sim_t *s, ibf_port_id_t port)
{
	sim_host_t *h = &s->host[s->fabric->endpoint_index[port]];
	uint32_t mi;

	while (h->pend_head != SIM_NONE &&
	       (!s->o.window || h->in_flight < s->o.window)) {
		mi = h->pend_head;
		h->pend_head = s->msg[mi].next_pending;
		if (h->pend_head == SIM_NONE)
			h->pend_tail = SIM_NONE;
		if (!host_append(s, h, mi))
			return;
		h->nsmall += next_small(s, &s->msg[mi]);
		h->in_flight++;
	}
	want_arbitration(s, port);
}

static void push_stack(ibf_sim_t *s, uint32_t mi)
{
	append(s, &s->stack, &s->nstack, &s->stack_cap, mi);
}

/* Dependencies met: queue the message at its host (a local join point
 * completes at once). */
static void msg_ready(ibf_sim_t *s, uint32_t mi)
{
	sim_msg_t *m = &s->msg[mi];
	sim_host_t *h;

	m->ready_ps = s->now;
	if (sim_is_local(m)) {
		push_stack(s, mi);
		return;
	}
	h = &s->host[s->fabric->endpoint_index[m->src]];
	if (h->pend_tail == SIM_NONE)
		h->pend_head = mi;
	else
		s->msg[h->pend_tail].next_pending = mi;
	h->pend_tail = mi;
	host_activate(s, m->src);
}

static void snapshot_first(ibf_sim_t *s)
{
	uint32_t i;

	s->first_done_ps = s->now;
	for (i = 0; i < s->nmsg; i++)
		s->msg[i].bytes_at_first = s->msg[i].bytes_done;
}

/* The early successors of mi: all but its last packets are in. */
static void fire_early(ibf_sim_t *s, uint32_t mi)
{
	s->msg[mi].early_fired = true;
	for (uint32_t j = s->esucc_off[mi]; j < s->esucc_off[mi + 1]; j++) {
		uint32_t t = s->esucc[j];

		if (!--s->msg[t].npred_left)
			msg_ready(s, t);
	}
}

static void msg_finish(ibf_sim_t *s, uint32_t mi)
{
	sim_msg_t *m = &s->msg[mi];
	uint32_t j, t;

	if (!m->early_fired)
		fire_early(s, mi);
	m->done = true;
	m->end_ps = s->now;
	if (m->kind == IBF_SIM_DATA && s->first_done_ps < 0)
		snapshot_first(s);
	for (j = s->succ_off[mi]; j < s->succ_off[mi + 1]; j++) {
		t = s->succ[j];
		if (!--s->msg[t].npred_left)
			msg_ready(s, t);
	}
	if (!sim_is_local(m)) {
		s->host[s->fabric->endpoint_index[m->src]].in_flight--;
		host_activate(s, m->src);
	}
}

/* Finish the messages on the stack and the local joins they complete. */
static void drain_completions(ibf_sim_t *s)
{
	while (s->nstack && !s->failed)
		msg_finish(s, s->stack[--s->nstack]);
}

/* Complete a message and everything that completes with it. */
static void msg_complete(ibf_sim_t *s, uint32_t mi)
{
	push_stack(s, mi);
	drain_completions(s);
}

/* ---- events ---------------------------------------------------------------*/

/* The VL of the packet's next hop from input port number i to output
 * port number o of a switch: its own, or with vl_spread (data VLs only,
 * not the control lane) the switch's stateless SL2VL choice, so that
 * flows that entered by different ports queue in different FIFOs
 * downstream. */
static inline uint8_t hop_vl(const ibf_sim_t *s, const sim_pkt_t *pk,
			     unsigned i, unsigned o)
{
	if (!s->o.vl_spread || pk->vl >= s->data_vls)
		return pk->vl;
	return (uint8_t)((i + o) % s->o.vl_spread);
}

static void on_arrive(ibf_sim_t *s, uint32_t k)
{
	sim_pkt_t *pk = &s->pkt[k];
	const sim_port_t *in = &s->port[pk->at];
	unsigned out = ibf_lfts_get(s->lfts, in->sw, pk->dlid);
	uint32_t b = pk->at * s->nvl + pk->vl;

	/* routes were traced when the messages were added */
	pk->out = in->first_port + out;
	pk->out_vl = hop_vl(s, pk, pk->at - in->first_port, out);
	pk->next = SIM_NONE;
	if (s->buf_tail[b] == SIM_NONE) {
		s->buf_head[b] = k;
		want_flip(s, pk->out, b);
		s->nwant[pk->out]++;
		s->nwant_high[pk->out] += s->o.vl_high >> pk->vl & 1;
		s->nhigh[pk->at] += s->o.vl_high >> pk->vl & 1;
		s->held_vls[pk->at] |= UINT32_C(1) << pk->vl;
	} else {
		s->pkt[s->buf_tail[b]].next = k;
	}
	s->buf_tail[b] = k;
	if (s->buf_head[b] == k && !s->in_busy[pk->at])
		want_arbitration(s, pk->out);
}

/* An input that finished a packet may send again: its heads ask their
 * outputs before the freed output re-arbitrates, high-priority VLs
 * first, so that the output it just served cannot keep the input busy
 * while a head of another VL waits for an idle output. */
static void input_freed(ibf_sim_t *s, ibf_port_id_t q)
{
	uint32_t held = s->held_vls[q], vls, v;
	int pass;

	s->in_busy[q] = 0;
	for (pass = s->o.vl_high ? 0 : 1; pass < 2; pass++)
		for (vls = pass ? held : held & s->o.vl_high; vls;
		     vls &= vls - 1) {
			v = (uint32_t)__builtin_ctz(vls);
			want_arbitration(s,
				s->pkt[s->buf_head[q * s->nvl + v]].out);
		}
}

static void on_txdone(ibf_sim_t *s, ibf_port_id_t p)
{
	uint32_t k = s->cur_pkt[p];
	ibf_port_id_t q = s->cur_in[p];
	const sim_pkt_t *pk = &s->pkt[k];

	s->busy[p] = 0;
	if (q != SIM_NONE) {
		push_lat(s, SIM_EV_CREDIT, s->port[q].peer,
			 (uint32_t)s->cur_in_vl[p] << 8 | pk->blocks);
		input_freed(s, q);
	}
	/* (the packet may already be leaving the next switch: ask the link,
	 * not the packet, where it ends) */
	if (!s->port[p].peer_switch)
		push_lat(s, SIM_EV_DELIVER, k, 0);
	want_arbitration(s, p);
}

static void on_credit(ibf_sim_t *s, ibf_port_id_t p, uint32_t b)
{
	s->credits[p * s->nvl + (b >> 8)] += (int32_t)(b & 0xff);
	want_arbitration(s, p);
}

static void on_deliver(ibf_sim_t *s, uint32_t k)
{
	sim_pkt_t *pk = &s->pkt[k];
	uint32_t mi = pk->msg;
	sim_msg_t *m = &s->msg[mi];

	/* the HCA takes the packet at line rate: its buffer frees at once */
	push_lat(s, SIM_EV_CREDIT, s->port[pk->at].peer,
		  (uint32_t)pk->vl << 8 | pk->blocks);
	m->bytes_done += pk->payload;
	pkt_release(s, k);
	if (++m->delivered == m->early_at && m->delivered < m->npkts) {
		fire_early(s, mi);
		drain_completions(s);
	}
	if (m->delivered == m->npkts)
		msg_complete(s, mi);
}

static void on_start(ibf_sim_t *s, uint32_t mi)
{
	if (!--s->msg[mi].npred_left) {
		msg_ready(s, mi);
		drain_completions(s);
	}
}

static void dispatch(ibf_sim_t *s, const sim_ev_t *ev)
{
	switch (ev->type) {
	case SIM_EV_ARRIVE:
		on_arrive(s, ev->a);
		break;
	case SIM_EV_TXDONE:
		on_txdone(s, ev->a);
		break;
	case SIM_EV_CREDIT:
		on_credit(s, ev->a, ev->b);
		break;
	case SIM_EV_DELIVER:
		on_deliver(s, ev->a);
		break;
	case SIM_EV_START:
		on_start(s, ev->a);
		break;
	}
}

/* ---- set-up and the loop --------------------------------------------------*/

/* CSR of the successors of each message from (before, after) pairs;
 * every after gets one more predecessor to wait for. */
static ibf_status_t csr(ibf_sim_t *s, const uint32_t (*dep)[2], size_t ndep,
			uint32_t **off_out, uint32_t **succ_out,
			ibf_err_t *err)
{
	uint32_t *off = calloc((size_t)s->nmsg + 1, sizeof(uint32_t));
	uint32_t *succ = malloc((ndep ? ndep : 1) * sizeof(uint32_t));
	size_t i;
	uint32_t m;

	*off_out = off;
	*succ_out = succ;
	if (!off || !succ)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	if (ndep > UINT32_MAX - 1)
		return ibf_err_set(err, IBF_ERR_RANGE, "too many dependencies");
	for (i = 0; i < ndep; i++) {
		off[dep[i][0] + 1]++;
		s->msg[dep[i][1]].npred_left++;
	}
	for (m = 0; m < s->nmsg; m++)
		off[m + 1] += off[m];
	for (i = 0; i < ndep; i++)
		succ[off[dep[i][0]]++] = dep[i][1];
	for (m = s->nmsg; m > 0; m--)
		off[m] = off[m - 1];
	off[0] = 0;
	return IBF_OK;
}

static ibf_status_t build_succ(ibf_sim_t *s, ibf_err_t *err)
{
	ibf_status_t st = csr(s, (const uint32_t (*)[2])s->dep, s->ndep,
			      &s->succ_off, &s->succ, err);

	if (st == IBF_OK)
		st = csr(s, (const uint32_t (*)[2])s->edep, s->nedep,
			 &s->esucc_off, &s->esucc, err);
	return st;
}

/* Timed messages wait for a START event as for one more predecessor. */
static void seed_events(ibf_sim_t *s)
{
	uint32_t m;

	for (m = 0; m < s->nmsg; m++)
		if (s->msg[m].start_ps > 0) {
			s->msg[m].npred_left++;
			push_at(s, s->msg[m].start_ps, SIM_EV_START, m);
		}
	/* (a cascade of local joins may have readied later ones already) */
	for (m = 0; m < s->nmsg && !s->failed; m++)
		if (!s->msg[m].npred_left && s->msg[m].ready_ps < 0) {
			msg_ready(s, m);
			drain_completions(s);
		}
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

ibf_status_t ibf_sim_run(ibf_sim_t *s, ibf_sim_result_t *res,
			 ibf_err_t *err)
{
	double t0 = cpu_now();
	const sim_ev_t *next;
	sim_ev_t ev;
	int from;
	ibf_status_t st;

	memset(res, 0, sizeof(*res));
	if (s->ran)
		return ibf_err_set(err, IBF_ERR_INVALID, "simulation already "
				   "run");
	s->ran = true;
	st = build_succ(s, err);
	if (st == IBF_OK)
		st = sim_alloc_buffers(s, err);
	if (st != IBF_OK)
		return st;
	seed_events(s);
	while (!s->failed) {
		next = sim_evq_peek(&s->evq, &from);
		if (s->narb && (!next || next->t > s->now)) {
			/* nothing more due now: arbitrate, then look again
			 * (the winners' events are in the queue) */
			flush_arbitration(s);
			continue;
		}
		if (!next)
			break;
		sim_evq_take(&s->evq, from, &ev);
		s->now = ev.t;
		s->events++;
		dispatch(s, &ev);
		if (s->o.max_events && s->events >= s->o.max_events) {
			res->truncated = true;
			break;
		}
	}
	if (s->failed) {
		if (err)
			*err = s->err;
		return s->err.status;
	}
	st = sim_collect(s, res, err);
	res->cpu_s = cpu_now() - t0;
	return st;
}
