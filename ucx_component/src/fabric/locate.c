/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Which fabric endpoint is this process on?  Tried in order, the first
 * that answers wins:
 *   1. UCX_IBFLOW_HOSTMAP: rank:N, then a local address, an interface
 *      name, the hostname (full or short);
 *   2. libibverbs: the active InfiniBand port (GUID, else LID) -- exactly
 *      one, or UCX_IBFLOW_NET_DEVICES must say which;
 *   3. the address map in the fabric directory (ibflow-addrmap.txt, the
 *      testbed's interface addresses -> endpoints), for RoCE and tcp;
 *   4. the hostname against the host part of NodeDescriptions
 *      ("node17 HCA-1" is host node17's), when exactly one CA port has it.
 * What each step saw goes into the failure message, so "process 5 is not
 * mapped" always comes with why.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/map.h"

#define MAX_IB 16

typedef struct locate {
	const ibf_ucx_config_t *cfg;
	const ibf_ucxi_fabric_t *fab;
	uint32_t rank;
	ibf_ucxi_whoami_t *w;
	ibf_ucxi_ifaddr_t *ifs;
	uint32_t nifs;
	char notes[IBF_UCXI_WHY_MAX];
	ibf_port_id_t port;
} locate_t;

static void note(locate_t *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(locate_t *l, const char *fmt, ...)
{
	size_t off = strlen(l->notes);
	va_list ap;

	if (off && off + 2 < sizeof(l->notes)) {
		memcpy(l->notes + off, "; ", 3);
		off += 2;
	}
	va_start(ap, fmt);
	vsnprintf(l->notes + off, sizeof(l->notes) - off, fmt, ap);
	va_end(ap);
}

static void fail(locate_t *l, ibf_ucx_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(locate_t *l, ibf_ucx_status_t st, const char *fmt, ...)
{
	va_list ap;

	l->w->status = st;
	va_start(ap, fmt);
	vsnprintf(l->w->why, sizeof(l->w->why), fmt, ap);
	va_end(ap);
}

static void found(locate_t *l, ibf_port_id_t p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void found(locate_t *l, ibf_port_id_t p, const char *fmt, ...)
{
	va_list ap;

	l->port = p;
	l->w->port_guid = ibf_port(l->fab->fabric, p)->guid;
	va_start(ap, fmt);
	vsnprintf(l->w->source, sizeof(l->w->source), fmt, ap);
	va_end(ap);
}

static const char *short_host(const char *h, char *buf, size_t len)
{
	snprintf(buf, len, "%s", h);
	buf[strcspn(buf, ".")] = '\0';
	return buf;
}

static bool has_addr(const locate_t *l, const char *addr)
{
	uint32_t i;

	for (i = 0; i < l->nifs; i++)
		if (!strcmp(l->ifs[i].addr, addr))
			return true;
	return false;
}

static bool has_ifname(const locate_t *l, const char *name)
{
	uint32_t i;

	for (i = 0; i < l->nifs; i++)
		if (!strcmp(l->ifs[i].ifname, name))
			return true;
	return false;
}

/* Entries of one kind that match; several pointing at different
 * endpoints are ambiguous. */
static int match_kind(locate_t *l, const ibf_ucxi_map_t *m, int pass,
		      const ibf_ucxi_map_entry_t **hit)
{
	char sh[IBF_UCXI_HOST_MAX];
	uint32_t i;
	int n = 0;

	short_host(l->w->host, sh, sizeof(sh));
	for (i = 0; i < m->n; i++) {
		const ibf_ucxi_map_entry_t *e = &m->e[i];
		bool ok = false;

		if (pass == 0)
			ok = e->type == IBF_UCXI_KEY_RANK && e->rank == l->rank;
		else if (pass == 1)
			ok = e->type == IBF_UCXI_KEY_ADDR && has_addr(l, e->key);
		else if (pass == 2)
			ok = e->type == IBF_UCXI_KEY_NAME &&
			     has_ifname(l, e->key);
		else
			ok = e->type == IBF_UCXI_KEY_NAME &&
			     (!strcmp(e->key, l->w->host) ||
			      !strcmp(e->key, sh));
		if (!ok)
			continue;
		if (n && (*hit)->port != e->port) {
			fail(l, IBF_UCX_ERR_MAP, "%s:%u and line %u both "
			     "match (%s, %s) and name different endpoints",
			     m->path, (*hit)->line, e->line, (*hit)->key,
			     e->key);
			return -1;
		}
		if (!n)
			*hit = e;
		n++;
	}
	return n;
}

/* 1 found, 0 not found, -1 failed (recorded). */
static int by_map(locate_t *l, const char *path, const char *what,
		  ibf_ucx_status_t bad_file)
{
	static const char *const kinds[] = { "rank", "address", "interface",
					     "hostname" };
	const ibf_ucxi_map_entry_t *hit = NULL;
	ibf_ucxi_map_t m;
	ibf_ucx_err_t e;
	int pass, r = 0;

	if (ibf_ucxi_map_read(path, l->fab->fabric, &m, &e) != IBF_UCX_OK) {
		fail(l, bad_file, "%s: %s", what, e.msg);
		return -1;
	}
	for (pass = 0; pass < 4 && r == 0; pass++) {
		r = match_kind(l, &m, pass, &hit);
		if (r > 0)
			found(l, hit->port, "%s %s %s (line %u)", what,
			      kinds[pass], hit->key, hit->line);
	}
	if (r == 0)
		note(l, "no line of %s matches rank %u, host %s or %u local "
		     "address(es)", path, l->rank, l->w->host, l->nifs);
	ibf_ucxi_map_free(&m);
	return r > 0 ? 1 : r;
}

static int by_verbs(locate_t *l)
{
	ibf_port_id_t ports[MAX_IB];
	char src[MAX_IB][IBF_UCXI_SRC_MAX];
	char why[256] = "";
	unsigned n = 0;

	ibf_ucxi_ib_ports(l->cfg, l->fab->fabric, ports, src, MAX_IB, &n, why,
			  sizeof(why));
	if (n == 1) {
		found(l, ports[0], "%s", src[0]);
		return 1;
	}
	if (n > 1) {
		fail(l, IBF_UCX_ERR_MAP, "%u active InfiniBand ports of the "
		     "fabric (%s, %s%s): set %sNET_DEVICES to the one UCX "
		     "uses", n, src[0], src[1], n > 2 ? ", ..." : "",
		     IBF_UCX_VAR_PREFIX);
		return -1;
	}
	note(l, "%s", why[0] ? why : "no active InfiniBand port");
	return 0;
}

static int by_addrmap(locate_t *l)
{
	if (l->cfg->v.addrmap[0])
		return by_map(l, l->cfg->v.addrmap, IBF_UCX_VAR_PREFIX
			      "ADDRMAP", IBF_UCX_ERR_CONFIG);
	if (!l->fab->addrmap) {
		note(l, "no address map (%sADDRMAP, or ibflow-addrmap.txt in "
		     "%s)", IBF_UCX_VAR_PREFIX, l->fab->dir);
		return 0;
	}
	return by_map(l, l->fab->addrmap, "address map", IBF_UCX_ERR_FABRIC);
}

static int by_hostname(locate_t *l)
{
	const ibf_fabric_t *f = l->fab->fabric;
	char sh[IBF_UCXI_HOST_MAX];
	ibf_port_id_t hit = IBF_NO_ID;
	uint32_t i, n = 0;

	short_host(l->w->host, sh, sizeof(sh));
	for (i = 0; i < f->nendpoints; i++) {
		const char *d = ibf_node_desc(f, ibf_port(f, f->endpoints[i])
					      ->node);
		size_t wl = strcspn(d, " \t");

		if ((wl == strlen(l->w->host) &&
		     !strncmp(d, l->w->host, wl)) ||
		    (wl == strlen(sh) && !strncmp(d, sh, wl))) {
			if (!n)
				hit = f->endpoints[i];
			n++;
		}
	}
	if (n == 1) {
		found(l, hit, "hostname %s", l->w->host);
		return 1;
	}
	if (n > 1) {
		fail(l, IBF_UCX_ERR_MAP, "hostname %s names %u CA ports of the "
		     "fabric: set %sNET_DEVICES or map the process in %s"
		     "HOSTMAP", l->w->host, n, IBF_UCX_VAR_PREFIX,
		     IBF_UCX_VAR_PREFIX);
		return -1;
	}
	note(l, "hostname %s is the host part of no NodeDescription",
	     l->w->host);
	return 0;
}

void ibf_ucxi_locate(const ibf_ucx_config_t *cfg, const ibf_ucxi_fabric_t *f,
		     uint32_t rank, ibf_ucxi_whoami_t *w)
{
	locate_t l;
	ibf_ucx_err_t e;
	int r = 0;

	memset(&l, 0, sizeof(l));
	l.cfg = cfg;
	l.fab = f;
	l.rank = rank;
	l.w = w;
	l.port = IBF_NO_ID;
	if (ibf_ucxi_ifaddrs(cfg, &l.ifs, &l.nifs, &e) != IBF_UCX_OK) {
		fail(&l, e.status, "%s", e.msg);
		return;
	}
	if (cfg->v.hostmap[0])
		r = by_map(&l, cfg->v.hostmap, IBF_UCX_VAR_PREFIX "HOSTMAP",
			   IBF_UCX_ERR_CONFIG);
	if (r == 0)
		r = by_verbs(&l);
	if (r == 0)
		r = by_addrmap(&l);
	if (r == 0)
		r = by_hostname(&l);
	if (r == 0)
		fail(&l, IBF_UCX_ERR_MAP, "no fabric endpoint: %s", l.notes);
	free(l.ifs);
}
