/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Map files (UCX_IBFLOW_HOSTMAP, the testbed's ibflow-addrmap.txt) and
 * what a process can see of itself: its interfaces and their addresses.
 *
 * Map file: one "KEY ENDPOINT" a line, # comments, blank lines.  KEY is
 * rank:N, an IPv4/IPv6 address, or a name (hostname or interface);
 * ENDPOINT is anything a host list accepts (a NodeDescription, quoted when
 * it has blanks, a 0x port GUID, a LID).
 *
 * netns-fabric's host map (first line "# ibflow netns-fabric hosts 1") is
 * read as well: per host port "host netns iface port lid lmc port_guid
 * node_guid mgmt_ipv4 rdma_dev ipv4_by_lid_offset node_description"; its
 * fabric addresses (one per LID) and its host name become keys of the
 * port GUID.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/io.h>

#include "fabric/map.h"

static bool canon_addr(const char *s, char *out, size_t len)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, s, buf) == 1)
		return inet_ntop(AF_INET, buf, out, (socklen_t)len) != NULL;
	if (inet_pton(AF_INET6, s, buf) == 1)
		return inet_ntop(AF_INET6, buf, out, (socklen_t)len) != NULL;
	return false;
}

/* Cut a # comment that starts a word, outside quotes. */
static void cut_comment(char *s)
{
	bool q = false;
	char *p;

	for (p = s; *p; p++) {
		if (*p == '"')
			q = !q;
		else if (*p == '#' && !q && (p == s || isspace((unsigned char)
							      p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static ibf_ucx_status_t parse_key(const ibf_text_t *t, const char *key,
				  ibf_ucxi_map_entry_t *e,
				  ibf_ucx_err_t *err)
{
	char *end;
	unsigned long r;

	if (!strncmp(key, "rank:", 5)) {
		r = strtoul(key + 5, &end, 10);
		if (!isdigit((unsigned char)key[5]) || *end || r > UINT32_MAX)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
					       "%s:%u: '%s': rank:N expected",
					       t->name, t->line, key);
		e->type = IBF_UCXI_KEY_RANK;
		e->rank = (uint32_t)r;
		snprintf(e->key, sizeof(e->key), "%s", key);
	} else if (canon_addr(key, e->key, sizeof(e->key))) {
		e->type = IBF_UCXI_KEY_ADDR;
	} else {
		if (strlen(key) >= sizeof(e->key))
			return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
					       "%s:%u: key too long", t->name,
					       t->line);
		e->type = IBF_UCXI_KEY_NAME;
		snprintf(e->key, sizeof(e->key), "%s", key);
	}
	return IBF_UCX_OK;
}

static ibf_ucx_status_t parse_line(const ibf_text_t *t, char *line,
				   const ibf_fabric_t *f,
				   ibf_ucxi_map_entry_t *e,
				   ibf_ucx_err_t *err)
{
	char *key = line, *ep;
	size_t n;
	ibf_err_t ie;

	ep = key + strcspn(key, " \t");
	if (!*ep)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG, "%s:%u: '%s' "
				       "has no endpoint (KEY ENDPOINT)",
				       t->name, t->line, key);
	*ep++ = '\0';
	ep = trim(ep);
	n = strlen(ep);
	if (ep[0] == '"') {
		if (n < 2 || ep[n - 1] != '"')
			return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
					       "%s:%u: unterminated quote",
					       t->name, t->line);
		ep[n - 1] = '\0';
		ep++;
	}
	if (parse_key(t, key, e, err) != IBF_UCX_OK)
		return IBF_UCX_ERR_CONFIG;
	ibf_err_clear(&ie);
	if (ibf_fabric_resolve_host(f, ep, &e->port, &ie) != IBF_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG, "%s:%u: %s",
				       t->name, t->line, ie.msg);
	e->line = t->line;
	return IBF_UCX_OK;
}

static ibf_ucx_status_t map_add(ibf_ucxi_map_t *m, uint32_t *cap,
				 ibf_ucxi_map_entry_t **e, ibf_ucx_err_t *err)
{
	if (m->n == *cap) {
		ibf_ucxi_map_entry_t *ne;

		*cap = *cap ? 2 * *cap : 64;
		ne = realloc(m->e, *cap * sizeof(*ne));
		if (!ne)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					       "out of memory");
		m->e = ne;
	}
	*e = &m->e[m->n];
	memset(*e, 0, sizeof(**e));
	return IBF_UCX_OK;
}

#define NETNS_HEADER "# ibflow netns-fabric hosts "
#define NETNS_FIELDS 12

/* One line of netns-fabric's host map: its addresses and host name. */
static ibf_ucx_status_t netns_line(const ibf_text_t *t, char *line,
				   const ibf_fabric_t *f, ibf_ucxi_map_t *m,
				   uint32_t *cap, ibf_ucx_err_t *err)
{
	char *fld[NETNS_FIELDS], *save = NULL, *a;
	ibf_ucxi_map_entry_t *e, key;
	ibf_port_id_t port;
	ibf_err_t ie;
	unsigned i;

	for (i = 0; i < NETNS_FIELDS; i++) {
		fld[i] = strtok_r(i ? NULL : line, " \t", &save);
		if (!fld[i])
			return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC,
					       "%s:%u: %u fields, netns-fabric's "
					       "host map has %u", t->name,
					       t->line, i, NETNS_FIELDS);
	}
	ibf_err_clear(&ie);
	if (ibf_fabric_resolve_host(f, fld[6], &port, &ie) != IBF_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC, "%s:%u: port "
				       "GUID %s: %s", t->name, t->line, fld[6],
				       ie.msg);
	for (a = strtok_r(fld[10], ",", &save); a;
	     a = strtok_r(NULL, ",", &save)) {
		memset(&key, 0, sizeof(key));
		if (!canon_addr(a, key.key, sizeof(key.key)))
			return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC,
					       "%s:%u: '%s' is not an address",
					       t->name, t->line, a);
		if (map_add(m, cap, &e, err) != IBF_UCX_OK)
			return IBF_UCX_ERR_NOMEM;
		*e = key;
		e->type = IBF_UCXI_KEY_ADDR;
		e->port = port;
		e->line = t->line;
		m->n++;
	}
	if (map_add(m, cap, &e, err) != IBF_UCX_OK)
		return IBF_UCX_ERR_NOMEM;
	e->type = IBF_UCXI_KEY_NAME;
	snprintf(e->key, sizeof(e->key), "%.127s", fld[0]);
	e->port = port;
	e->line = t->line;
	m->n++;
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_map_read(const char *path, const ibf_fabric_t *f,
				   ibf_ucxi_map_t *m, ibf_ucx_err_t *err)
{
	bool netns = false, first = true;
	ibf_text_t t;
	ibf_err_t ie;
	uint32_t cap = 0;
	char *line;
	ibf_ucx_status_t st = IBF_UCX_OK;

	memset(m, 0, sizeof(*m));
	ibf_err_clear(&ie);
	if (ibf_text_load(&t, path, &ie) != IBF_OK)
		return ibf_ucxi_err_lib(err, IBF_UCX_ERR_CONFIG, &ie, NULL);
	m->path = strdup(path);
	while (st == IBF_UCX_OK && (line = ibf_text_next_line(&t))) {
		ibf_ucxi_map_entry_t *e;

		if (first)
			netns = !strncmp(line, NETNS_HEADER,
					 strlen(NETNS_HEADER));
		first = false;
		if (netns && line[0] == '#')
			continue;
		if (!netns)
			cut_comment(line);
		line = trim(line);
		if (!*line)
			continue;
		if (netns) {
			st = netns_line(&t, line, f, m, &cap, err);
			continue;
		}
		st = map_add(m, &cap, &e, err);
		if (st == IBF_UCX_OK)
			st = parse_line(&t, line, f, e, err);
		if (st == IBF_UCX_OK)
			m->n++;
	}
	ibf_text_free(&t);
	if (st == IBF_UCX_OK && !m->path)
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	if (st != IBF_UCX_OK)
		ibf_ucxi_map_free(m);
	return st;
}

void ibf_ucxi_map_free(ibf_ucxi_map_t *m)
{
	free(m->path);
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* ---- NET_DEVICES ------------------------------------------------------------ */

static bool listed(const ucs_config_allow_list_t *l, const char *name)
{
	unsigned i;

	for (i = 0; i < l->array.count; i++)
		if (!strcmp(l->array.names[i], name))
			return true;
	return false;
}

/* The network device under RDMA device port "dev:port" (RoCE, soft-RoCE),
 * from sysfs. */
static bool rdma_netdev(const char *spec, char *out, size_t len)
{
	char dev[64], path[256];
	unsigned port = 1;
	const char *colon = strchr(spec, ':');
	FILE *fp;
	bool ok = false;

	if (!colon || (size_t)(colon - spec) >= sizeof(dev))
		return false;
	memcpy(dev, spec, (size_t)(colon - spec));
	dev[colon - spec] = '\0';
	port = (unsigned)atoi(colon + 1);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/"
		 "gid_attrs/ndevs/0", dev, port);
	fp = fopen(path, "r");
	if (!fp) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/parent",
			 dev);
		fp = fopen(path, "r");
	}
	if (fp) {
		ok = fgets(out, (int)len, fp) != NULL;
		fclose(fp);
		out[strcspn(out, "\n")] = '\0';
		ok = ok && out[0];
	}
	return ok;
}

bool ibf_ucxi_netdev_allowed(const ibf_ucx_config_t *cfg, const char *name)
{
	const ucs_config_allow_list_t *l = &cfg->v.net_devices;

	if (ibf_ucx_cfg_allow_all(l))
		return true;
	switch (l->mode) {
	case UCS_CONFIG_ALLOW_LIST_ALLOW_ALL:
		return true;
	case UCS_CONFIG_ALLOW_LIST_ALLOW:
		return listed(l, name);
	case UCS_CONFIG_ALLOW_LIST_NEGATE:
		return !listed(l, name);
	}
	return false;
}

/* An interface is allowed by name, or through an RDMA device on it. */
static bool iface_allowed(const ibf_ucx_config_t *cfg, const char *ifname)
{
	const ucs_config_allow_list_t *l = &cfg->v.net_devices;
	char nd[64];
	unsigned i;
	bool via_rdma = false;

	for (i = 0; i < l->array.count && !via_rdma; i++)
		via_rdma = rdma_netdev(l->array.names[i], nd, sizeof(nd)) &&
			   !strcmp(nd, ifname);
	if (l->mode == UCS_CONFIG_ALLOW_LIST_NEGATE)
		return !via_rdma && ibf_ucxi_netdev_allowed(cfg, ifname);
	return via_rdma || ibf_ucxi_netdev_allowed(cfg, ifname);
}

ibf_ucx_status_t ibf_ucxi_ifaddrs(const ibf_ucx_config_t *cfg,
				  ibf_ucxi_ifaddr_t **out, uint32_t *n,
				  ibf_ucx_err_t *err)
{
	struct ifaddrs *ifa, *i;
	ibf_ucxi_ifaddr_t *v = NULL;
	uint32_t cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (getifaddrs(&ifa) != 0)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_IO, "getifaddrs: %m");
	for (i = ifa; i; i = i->ifa_next) {
		const void *a;
		int fam;

		if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) ||
		    (i->ifa_flags & IFF_LOOPBACK))
			continue;
		fam = i->ifa_addr->sa_family;
		if (fam == AF_INET)
			a = &((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		else if (fam == AF_INET6)
			a = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
		else
			continue;
		if (!iface_allowed(cfg, i->ifa_name))
			continue;
		if (cnt == cap) {
			ibf_ucxi_ifaddr_t *nv;

			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				freeifaddrs(ifa);
				return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
						       "out of memory");
			}
			v = nv;
		}
		snprintf(v[cnt].ifname, sizeof(v[cnt].ifname), "%s",
			 i->ifa_name);
		if (!inet_ntop(fam, a, v[cnt].addr, sizeof(v[cnt].addr)))
			continue;
		cnt++;
	}
	freeifaddrs(ifa);
	*out = v;
	*n = cnt;
	return IBF_UCX_OK;
}
