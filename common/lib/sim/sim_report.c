/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The simulator's results: per message and per link figures, the credit
 * loop of a deadlock, the references (liquid bound, MMF rates) and the
 * text and JSON reports.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <ibflow/mmf.h>

#include "base/json_out.h"
#include "sim_internal.h"

double sim_payload_gbps(const ibf_sim_t *s, ibf_port_id_t p)
{
	double gbps = 8000.0 / s->ps_per_byte[p];

	return gbps * s->o.mtu / (s->o.mtu + IBF_SIM_HEADER);
}

static double ps_to_s(sim_ps_t t)
{
	return t < 0 ? -1.0 : (double)t * 1e-12;
}

static void collect_msg(const ibf_sim_t *s, uint32_t i,
			ibf_sim_msg_result_t *r)
{
	const sim_msg_t *m = &s->msg[i];
	double span, first = ps_to_s(s->first_done_ps);

	r->src = m->src;
	r->dst = m->dst;
	r->bytes = m->bytes;
	r->kind = m->kind;
	r->done = m->done;
	r->ready_s = ps_to_s(m->ready_ps);
	r->first_s = ps_to_s(m->first_ps);
	r->end_s = ps_to_s(m->end_ps);
	r->bytes_at_first = m->bytes_at_first;
	span = r->end_s - r->first_s;
	r->gbps = m->done && m->first_ps >= 0 && span > 0 ?
		  m->bytes * 8e-9 / span : 0;
	span = first - r->first_s;
	r->steady_gbps = first > 0 && m->first_ps >= 0 && span > 0 ?
			 m->bytes_at_first * 8e-9 / span : 0;
}

static int cmp_link(const void *a, const void *b)
{
	const ibf_sim_link_result_t *x = a, *y = b;

	if (x->busy_s != y->busy_s)
		return x->busy_s < y->busy_s ? 1 : -1;
	return x->port < y->port ? -1 : x->port > y->port;
}

static ibf_status_t collect_links(const ibf_sim_t *s, ibf_sim_result_t *r,
				  ibf_err_t *err)
{
	uint32_t p, v, n = 0;
	sim_ps_t blocked;

	for (p = 0; p < s->fabric->nports; p++)
		n += s->link_bytes[p] || s->blocked_since[p] >= 0;
	r->link = calloc(n ? n : 1, sizeof(*r->link));
	if (!r->link)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (p = 0; p < s->fabric->nports; p++) {
		if (!s->link_bytes[p] && s->blocked_since[p] < 0)
			continue;
		blocked = s->blocked_ps[p];
		if (s->blocked_since[p] >= 0)
			blocked += s->now - s->blocked_since[p];
		r->link[r->nlinks].port = p;
		r->link[r->nlinks].bytes = s->link_bytes[p];
		r->link[r->nlinks].busy_s = ps_to_s(s->busy_ps[p]);
		r->link[r->nlinks].blocked_s = ps_to_s(blocked);
		for (v = 0; s->vl_bytes && v < s->nvl; v++)
			r->link[r->nlinks].vl_bytes[v] =
				s->vl_bytes[(size_t)p * s->nvl + v];
		r->nlinks++;
	}
	qsort(r->link, r->nlinks, sizeof(*r->link), cmp_link);
	return IBF_OK;
}

/* The buffer a blocked head waits for: the next one on its path. */
static uint32_t waits_for(const ibf_sim_t *s, uint32_t b)
{
	uint32_t k = s->buf_head[b];
	ibf_port_id_t next;

	if (k == SIM_NONE)
		return SIM_NONE;
	next = s->fabric->ports[s->pkt[k].out].peer;
	if (s->fabric->nodes[s->fabric->ports[next].node].type !=
	    IBF_NODE_SWITCH)
		return SIM_NONE;
	return next * s->nvl + s->pkt[k].out_vl;
}

/* Walk the wait-for graph (each full buffer waits for exactly one other)
 * from every non-empty buffer; the first walk that meets itself is the
 * cycle.  Its links are the outputs the heads want. */
static ibf_status_t find_cycle(const ibf_sim_t *s, ibf_sim_result_t *r,
			       ibf_err_t *err)
{
	size_t nb = (size_t)s->fabric->nports * s->nvl, b0;
	uint32_t *mark = calloc(nb, sizeof(uint32_t)), b, start, n;

	if (!mark)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (b0 = 0; b0 < nb; b0++) {
		if (mark[b0] || s->buf_head[b0] == SIM_NONE)
			continue;
		for (b = (uint32_t)b0; b != SIM_NONE && !mark[b];
		     b = waits_for(s, b))
			mark[b] = (uint32_t)b0 + 1;
		if (b == SIM_NONE || mark[b] != b0 + 1)
			continue;
		start = b;
		n = 0;
		do {
			n++;
			b = waits_for(s, b);
		} while (b != start);
		r->cycle = malloc(n * sizeof(*r->cycle));
		if (!r->cycle) {
			free(mark);
			return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		}
		for (r->ncycle = 0; r->ncycle < n; r->ncycle++) {
			r->cycle[r->ncycle] = s->pkt[s->buf_head[b]].out;
			b = waits_for(s, b);
		}
		break;
	}
	free(mark);
	return IBF_OK;
}

static bool packets_waiting(const ibf_sim_t *s)
{
	size_t b, nb = (size_t)s->fabric->nports * s->nvl;

	for (b = 0; b < nb; b++)
		if (s->buf_head[b] != SIM_NONE)
			return true;
	return false;
}

ibf_status_t sim_collect(ibf_sim_t *s, ibf_sim_result_t *r, ibf_err_t *err)
{
	uint32_t i;

	r->events = s->events;
	r->packets = s->packets;
	r->packet_hops = s->hops;
	r->first_done_s = ps_to_s(s->first_done_ps);
	r->nmsgs = s->nmsg;
	r->msg = calloc(s->nmsg ? s->nmsg : 1, sizeof(*r->msg));
	if (!r->msg)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < s->nmsg; i++) {
		collect_msg(s, i, &r->msg[i]);
		if (!s->msg[i].done)
			r->undelivered++;
		else if (r->msg[i].end_s > r->time_s)
			r->time_s = r->msg[i].end_s;
		if (s->msg[i].kind == IBF_SIM_DATA)
			r->data_bytes += s->msg[i].bytes;
	}
	if (r->undelivered && !r->truncated) {
		r->deadlocked = packets_waiting(s);
		r->stalled = !r->deadlocked;
		if (r->deadlocked) {
			ibf_status_t st = find_cycle(s, r, err);

			if (st != IBF_OK)
				return st;
		}
	}
	return collect_links(s, r, err);
}

/* ---- references ---------------------------------------------------------- */

static ibf_status_t data_traffic(const ibf_sim_t *s, ibf_traffic_t *tr,
				 uint32_t **idx, ibf_err_t *err)
{
	uint32_t i;

	tr->n = 0;
	tr->flows = malloc((s->nmsg ? s->nmsg : 1) * sizeof(*tr->flows));
	*idx = malloc((s->nmsg ? s->nmsg : 1) * sizeof(**idx));
	if (!tr->flows || !*idx) {
		free(tr->flows);
		free(*idx);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < s->nmsg; i++) {
		if (s->msg[i].kind != IBF_SIM_DATA)
			continue;
		tr->flows[tr->n].src = s->msg[i].src;
		tr->flows[tr->n].dst = s->msg[i].dst;
		tr->flows[tr->n].count = 1;
		(*idx)[tr->n++] = i;
	}
	return IBF_OK;
}

/* The problem of the data messages, each link at its payload rate. */
static ibf_status_t data_problem(const ibf_sim_t *s, ibf_mmf_problem_t *p,
				 uint32_t **idx, ibf_err_t *err)
{
	ibf_traffic_t tr;
	ibf_status_t st;
	uint32_t l;

	st = data_traffic(s, &tr, idx, err);
	if (st != IBF_OK)
		return st;
	st = ibf_flowpaths_build(s->lfts, &tr, s->o.lmc_spread ?
				 IBF_FLOWPATHS_LMC : IBF_FLOWPATHS_SINGLE,
				 p, err);
	free(tr.flows);
	if (st != IBF_OK) {
		free(*idx);
		return st;
	}
	for (l = 0; l < p->nlinks; l++)
		p->capacity[l] = sim_payload_gbps(s, l);
	return IBF_OK;
}

ibf_status_t ibf_sim_bound(const ibf_sim_t *s, double *bound_s,
			   ibf_err_t *err)
{
	ibf_mmf_problem_t p;
	uint32_t *idx, k;
	double *load, worst = 0;
	size_t e;
	ibf_status_t st;

	*bound_s = 0;
	st = data_problem(s, &p, &idx, err);
	if (st != IBF_OK)
		return st;
	load = calloc(p.nlinks ? p.nlinks : 1, sizeof(double));
	if (!load) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < p.nflows; k++)
		for (e = p.first[k]; e < p.first[k + 1]; e++)
			load[p.link[e]] += p.frac[e] * s->msg[idx[k]].bytes;
	for (k = 0; k < p.nlinks; k++)
		if (load[k] * 8e-9 / p.capacity[k] > worst)
			worst = load[k] * 8e-9 / p.capacity[k];
	*bound_s = worst;
out:
	free(load);
	free(idx);
	ibf_mmf_problem_free(&p);
	return st;
}

ibf_status_t ibf_sim_mmf(const ibf_sim_t *s, double *rate, ibf_err_t *err)
{
	ibf_mmf_problem_t p;
	uint32_t *idx, k;
	double *r;
	ibf_status_t st;

	memset(rate, 0, s->nmsg * sizeof(*rate));
	st = data_problem(s, &p, &idx, err);
	if (st != IBF_OK)
		return st;
	r = malloc((p.nflows ? p.nflows : 1) * sizeof(double));
	if (!r)
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	else if (p.nflows)
		st = ibf_mmf_solve(&p, r, NULL, err);
	for (k = 0; st == IBF_OK && k < p.nflows; k++)
		rate[idx[k]] = r[k];
	free(r);
	free(idx);
	ibf_mmf_problem_free(&p);
	return st;
}

/* ---- reports ------------------------------------------------------------- */

/* "NODE/PORT" of an egress port (a host by its name). */
static const char *port_name(const ibf_fabric_t *f, ibf_port_id_t p,
			     char *buf, size_t len)
{
	const ibf_port_t *pt = &f->ports[p];
	char h[128];

	if (f->nodes[pt->node].type != IBF_NODE_SWITCH)
		return ibf_port_host_name(f, p, buf, len);
	ibf_node_name(f, pt->node, h, sizeof(h));
	snprintf(buf, len, "%s/%u", h, pt->num);
	return buf;
}

static void write_cycle(const ibf_sim_t *s, const ibf_sim_result_t *r,
			FILE *fp)
{
	char a[192], b[192];
	uint32_t i;

	fprintf(fp, "DEADLOCK: credit loop of %u links, %u messages "
		"undelivered:\n", r->ncycle, r->undelivered);
	for (i = 0; i < r->ncycle; i++)
		fprintf(fp, "  %s -> %s\n",
			port_name(s->fabric, r->cycle[i], a, sizeof(a)),
			port_name(s->fabric, s->fabric->ports[r->cycle[i]].peer,
				  b, sizeof(b)));
}

static void flow_stats(const ibf_sim_result_t *r, double *min, double *avg,
		       uint32_t *n)
{
	uint32_t i;
	double sum = 0;

	*min = INFINITY;
	*n = 0;
	for (i = 0; i < r->nmsgs; i++) {
		if (r->msg[i].kind != IBF_SIM_DATA || !r->msg[i].done)
			continue;
		sum += r->msg[i].gbps;
		if (r->msg[i].gbps < *min)
			*min = r->msg[i].gbps;
		(*n)++;
	}
	*avg = *n ? sum / *n : 0;
	if (!*n)
		*min = 0;
}

void ibf_sim_write_text(const ibf_sim_t *s, const ibf_sim_result_t *r,
			double bound_s, const double *mmf, unsigned top,
			FILE *fp)
{
	double min, avg, agg = r->time_s > 0 ? r->data_bytes * 8e-9 /
			       r->time_s : 0;
	char a[192], b[192];
	uint32_t i, n;

	if (r->deadlocked)
		write_cycle(s, r, fp);
	if (r->stalled)
		fprintf(fp, "STALLED: %u messages never became ready (their "
			"dependencies never completed)\n", r->undelivered);
	if (r->truncated)
		fprintf(fp, "TRUNCATED after %llu events\n",
			(unsigned long long)r->events);
	flow_stats(r, &min, &avg, &n);
	fprintf(fp, "time_s %.9g  bound_s %.9g  time/bound %.4f\n", r->time_s,
		bound_s, bound_s > 0 ? r->time_s / bound_s : 0);
	fprintf(fp, "flows %u  aggregate %.4g Gb/s  flow rate min %.4g "
		"mean %.4g Gb/s\n", n, agg, min, avg);
	if (mmf) {
		double sum = 0, steady = 0;

		for (i = 0; i < r->nmsgs; i++) {
			sum += mmf[i];
			if (r->msg[i].kind == IBF_SIM_DATA)
				steady += r->msg[i].steady_gbps;
		}
		fprintf(fp, "while every flow runs: aggregate %.4g Gb/s, MMF "
			"%.4g Gb/s (%.1f%%)\n", steady, sum,
			sum > 0 ? 100 * steady / sum : 0);
	}
	fprintf(fp, "packets %llu  packet-hops %llu  events %llu  cpu %.3f s "
		"(%.3g hops/s)\n", (unsigned long long)r->packets,
		(unsigned long long)r->packet_hops,
		(unsigned long long)r->events, r->cpu_s,
		r->cpu_s > 0 ? r->packet_hops / r->cpu_s : 0);
	fprintf(fp, "busiest links (utilisation, blocked = idle waiting for "
		"credits):\n");
	for (i = 0; i < r->nlinks && i < top; i++)
		fprintf(fp, "  %-24s -> %-24s busy %.4g s (%.1f%%) blocked %.4g "
			"s\n", port_name(s->fabric, r->link[i].port, a,
					 sizeof(a)),
			port_name(s->fabric, s->fabric->ports[r->link[i].port].peer,
				  b, sizeof(b)),
			r->link[i].busy_s, r->time_s > 0 ?
			100.0 * r->link[i].busy_s / r->time_s : 0,
			r->link[i].blocked_s);
}

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *json_flow(const ibf_sim_t *s, const ibf_sim_result_t *r,
			      uint32_t i, const double *mmf)
{
	const ibf_sim_msg_result_t *m = &r->msg[i];
	json_object *o = json_object_new_object();
	char a[192];

	if (!o)
		return NULL;
	json_object_object_add(o, "src", json_object_new_string(
		ibf_port_host_name(s->fabric, m->src, a, sizeof(a))));
	json_object_object_add(o, "dst", json_object_new_string(
		ibf_port_host_name(s->fabric, m->dst, a, sizeof(a))));
	json_object_object_add(o, "bytes", json_object_new_int64(
		(int64_t)m->bytes));
	json_object_object_add(o, "start_s", num(m->first_s));
	json_object_object_add(o, "end_s", m->done ? num(m->end_s) : NULL);
	json_object_object_add(o, "gbps", num(m->gbps));
	json_object_object_add(o, "steady_gbps", num(m->steady_gbps));
	json_object_object_add(o, "mmf_gbps", mmf ? num(mmf[i]) : NULL);
	return o;
}

/* {"from", "to"} of the link leaving egress port p. */
static json_object *json_ends(const ibf_sim_t *s, ibf_port_id_t p)
{
	json_object *o = json_object_new_object();
	char a[192];

	if (!o)
		return NULL;
	json_object_object_add(o, "from", json_object_new_string(
		port_name(s->fabric, p, a, sizeof(a))));
	json_object_object_add(o, "to", json_object_new_string(
		port_name(s->fabric, s->fabric->ports[p].peer, a,
			  sizeof(a))));
	return o;
}

/* Wire bytes per VL of a link (vl_spread runs). */
static json_object *json_vl_bytes(const ibf_sim_t *s,
				  const ibf_sim_link_result_t *l)
{
	json_object *a = json_object_new_array();
	unsigned v;

	for (v = 0; a && v < s->nvl; v++)
		json_object_array_add(a, json_object_new_int64(
			(int64_t)l->vl_bytes[v]));
	return a;
}

static json_object *json_link(const ibf_sim_t *s,
			      const ibf_sim_link_result_t *l)
{
	json_object *o = json_ends(s, l->port);

	if (!o)
		return NULL;
	json_object_object_add(o, "bytes", json_object_new_int64(
		(int64_t)l->bytes));
	json_object_object_add(o, "busy_s", num(l->busy_s));
	json_object_object_add(o, "blocked_s", num(l->blocked_s));
	if (s->vl_bytes)
		json_object_object_add(o, "vl_bytes", json_vl_bytes(s, l));
	return o;
}

static bool json_arrays(const ibf_sim_t *s, const ibf_sim_result_t *r,
			const double *mmf, json_object *root)
{
	json_object *flows = json_object_new_array();
	json_object *links = json_object_new_array();
	json_object *cyc = json_object_new_array();
	json_object *o;
	uint32_t i;
	bool ok = flows && links && cyc;

	json_object_object_add(root, "cycle", cyc);
	json_object_object_add(root, "flows", flows);
	json_object_object_add(root, "links", links);
	for (i = 0; ok && i < r->ncycle; i++) {
		o = json_ends(s, r->cycle[i]);
		ok = o && !json_object_array_add(cyc, o);
	}
	for (i = 0; ok && i < r->nmsgs; i++) {
		if (r->msg[i].kind != IBF_SIM_DATA)
			continue;
		o = json_flow(s, r, i, mmf);
		ok = o && !json_object_array_add(flows, o);
	}
	for (i = 0; ok && i < r->nlinks; i++) {
		o = json_link(s, &r->link[i]);
		ok = o && !json_object_array_add(links, o);
	}
	return ok;
}

ibf_status_t ibf_sim_write_json(const ibf_sim_t *s, const ibf_sim_result_t *r,
				double bound_s, const double *mmf, FILE *fp,
				ibf_err_t *err)
{
	json_object *root = json_object_new_object();

	if (!root)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	json_object_object_add(root, "time_s", num(r->time_s));
	json_object_object_add(root, "bound_s", num(bound_s));
	json_object_object_add(root, "deadlocked",
			       json_object_new_boolean(r->deadlocked));
	json_object_object_add(root, "stalled",
			       json_object_new_boolean(r->stalled));
	json_object_object_add(root, "undelivered",
			       json_object_new_int64(r->undelivered));
	json_object_object_add(root, "events",
			       json_object_new_int64((int64_t)r->events));
	json_object_object_add(root, "packet_hops",
			       json_object_new_int64((int64_t)r->packet_hops));
	json_object_object_add(root, "cpu_s", num(r->cpu_s));
	if (!json_arrays(s, r, mmf, root)) {
		json_object_put(root);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	return ibf_json_write(root, JSON_C_TO_STRING_PRETTY |
			      JSON_C_TO_STRING_SPACED, fp, err);
}
