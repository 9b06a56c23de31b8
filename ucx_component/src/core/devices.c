/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Checking UCX_IBFLOW_NET_DEVICES and UCX_IBFLOW_TLS against what UCX
 * itself finds on this machine (UCT's components, memory domains and
 * their transport resources), so that a name that matches nothing fails
 * context creation at once, naming the variable, instead of leaving a
 * context with only the loop-back transport that reaches no peer; and
 * UCP's configuration with them applied.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uct/api/uct.h>

#include "core/ucx_internal.h"

#define LIST_MAX 480   /* room for the "available" names in a message */

/* What is collected: distinct names, comma-separated, sorted as found. */
typedef struct names {
	char buf[LIST_MAX];
	size_t len;
	bool full;
} names_t;

typedef void (*resource_cb_t)(const uct_tl_resource_desc_t *r, void *arg);

/* Is name one of the list's (whole names between ", ")? */
static bool names_has(const names_t *n, const char *name)
{
	const char *p = n->buf;
	size_t l = strlen(name);

	while (l && (p = strstr(p, name)) != NULL) {
		if ((p == n->buf || p[-1] == ' ') && (!p[l] || p[l] == ','))
			return true;
		p += l;
	}
	return false;
}

static void names_add(names_t *n, const char *name)
{
	int w;

	if (n->full || names_has(n, name))
		return;
	w = snprintf(n->buf + n->len, sizeof(n->buf) - n->len, "%s%s",
		     n->len ? ", " : "", name);
	if (w < 0 || (size_t)w >= sizeof(n->buf) - n->len) {
		n->buf[n->len] = '\0';
		n->full = true;
		return;
	}
	n->len += (size_t)w;
}

static void md_resources(uct_component_h comp, const char *md_name,
			 resource_cb_t cb, void *arg)
{
	uct_md_config_t *mc;
	uct_md_h md;
	uct_tl_resource_desc_t *r;
	unsigned i, n;

	if (uct_md_config_read(comp, NULL, NULL, &mc) != UCS_OK)
		return;
	if (uct_md_open(comp, md_name, mc, &md) == UCS_OK) {
		if (uct_md_query_tl_resources(md, &r, &n) == UCS_OK) {
			for (i = 0; i < n; i++)
				cb(&r[i], arg);
			uct_release_tl_resource_list(r);
		}
		uct_md_close(md);
	}
	uct_config_release(mc);
}

static void component_resources(uct_component_h comp, resource_cb_t cb,
				void *arg)
{
	uct_component_attr_t a;
	unsigned i;

	memset(&a, 0, sizeof(a));
	a.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
	if (uct_component_query(comp, &a) != UCS_OK || !a.md_resource_count)
		return;
	a.md_resources = calloc(a.md_resource_count, sizeof(*a.md_resources));
	if (!a.md_resources)
		return;
	a.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
	if (uct_component_query(comp, &a) == UCS_OK)
		for (i = 0; i < a.md_resource_count; i++)
			md_resources(comp, a.md_resources[i].md_name, cb, arg);
	free(a.md_resources);
}

/* Every transport resource of every memory domain UCX can open here. */
static void each_resource(resource_cb_t cb, void *arg)
{
	uct_component_h *comps;
	unsigned i, n;

	if (uct_query_components(&comps, &n) != UCS_OK)
		return;
	for (i = 0; i < n; i++)
		component_resources(comps[i], cb, arg);
	uct_release_component_list(comps);
}

static void net_device(const uct_tl_resource_desc_t *r, void *arg)
{
	/* UCX_NET_DEVICES filters network devices only (shared memory and
	 * loop-back have their own variables) */
	if (r->dev_type == UCT_DEVICE_TYPE_NET)
		names_add(arg, r->dev_name);
}

static void transport(const uct_tl_resource_desc_t *r, void *arg)
{
	names_add(arg, r->tl_name);
}

/* The variable's value as given: its names joined by commas. */
static void value_of(const ucs_config_allow_list_t *l, char *buf, size_t len)
{
	size_t off = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < l->array.count && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? "," : "", l->array.names[i]);
}

ibf_ucx_status_t ibf_ucxi_devices_check(const ibf_ucx_config_t *c,
					ibf_ucx_err_t *err)
{
	const ucs_config_allow_list_t *l = &c->v.net_devices;
	char val[256];
	names_t have;
	unsigned i;

	/* a negated list or "all" can leave nothing unknown to refuse */
	if (l->mode != UCS_CONFIG_ALLOW_LIST_ALLOW || ibf_ucx_cfg_allow_all(l))
		return IBF_UCX_OK;
	memset(&have, 0, sizeof(have));
	each_resource(net_device, &have);
	/* one known name is enough: UCX itself warns about the others
	 * (a list may be written for machines with different devices) */
	for (i = 0; i < l->array.count; i++)
		if (names_has(&have, l->array.names[i]))
			return IBF_UCX_OK;
	value_of(l, val, sizeof(val));
	return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG, "%sNET_DEVICES=%s: no "
			       "such device (available: %s%s)",
			       IBF_UCX_VAR_PREFIX, val,
			       have.len ? have.buf : "none",
			       have.full ? ", ..." : "");
}

ibf_ucx_status_t ibf_ucxi_devices_blame(const ibf_ucx_config_t *c,
					ucs_status_t us, ibf_ucx_err_t *err)
{
	const ucs_config_allow_list_t *l = &c->v.tls;
	char val[256];
	names_t have;

	/* ucp_init finds no device when the transports named match none */
	if (us != UCS_ERR_NO_DEVICE || l->mode != UCS_CONFIG_ALLOW_LIST_ALLOW ||
	    ibf_ucx_cfg_allow_all(l))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "ucp_init: %s",
				       ucs_status_string(us));
	memset(&have, 0, sizeof(have));
	each_resource(transport, &have);
	value_of(l, val, sizeof(val));
	return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG, "%sTLS=%s: no such "
			       "transport, UCX finds no device for it (ucp_init:"
			       " %s; transports here: %s%s)",
			       IBF_UCX_VAR_PREFIX, val, ucs_status_string(us),
			       have.len ? have.buf : "none",
			       have.full ? ", ..." : "");
}

/* ---- UCP's configuration ---------------------------------------------------- */

ibf_ucx_status_t ibf_ucxi_ucp_config(const ibf_ucx_config_t *c,
				     ucp_config_t **out, ibf_ucx_err_t *err)
{
	static const char *const vars[] = { "NET_DEVICES", "TLS" };
	const ucs_config_allow_list_t *lists[] = { &c->v.net_devices,
						   &c->v.tls };
	char val[512] = "";
	ucs_status_t us;
	ibf_ucx_status_t st;
	unsigned i;

	st = ibf_ucxi_devices_check(c, err);
	if (st != IBF_UCX_OK)
		return st;
	us = ucp_config_read(NULL, NULL, out);
	if (us != UCS_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UCX, "ucp_config_read: "
				       "%s", ucs_status_string(us));
	for (i = 0; i < 2; i++) {
		if (ibf_ucx_cfg_allow_all(lists[i]))
			continue;
		if (ibf_ucx_cfg_string(c, vars[i], val, sizeof(val), err) !=
		    IBF_UCX_OK)
			goto fail;
		us = ucp_config_modify(*out, vars[i], val);
		if (us != UCS_OK) {
			ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG, "%s%s=%s: UCX "
					"refuses it: %s", IBF_UCX_VAR_PREFIX,
					vars[i], val, ucs_status_string(us));
			goto fail;
		}
	}
	return IBF_UCX_OK;
fail:
	ucp_config_release(*out);
	*out = NULL;
	return err ? err->status : IBF_UCX_ERR_CONFIG;
}

/* ---- what a context's data goes over ------------------------------------- */

/* The InfiniBand port "dev:port" (up to a blank) has link layer
 * InfiniBand (sysfs; RoCE ports say Ethernet). */
static bool ib_link_layer(const char *devport)
{
	char dev[64], path[192], ll[32] = "";
	unsigned port;
	FILE *fp;

	if (sscanf(devport, "%63[^:]:%u", dev, &port) != 2)
		return false;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/"
		 "link_layer", dev, port);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	if (!fgets(ll, sizeof(ll), fp))
		ll[0] = '\0';
	fclose(fp);
	return !strncmp(ll, "InfiniBand", 10);
}

/* UCX names the transports a context uses in its resource list
 * ("resource N : md M dev D flags -- tl/dev:port"). */
ibf_ucxi_transport_t ibf_ucxi_transport(ucp_context_h ctx)
{
	static const char *const rdma[] = { " -- rc_", " -- ud_", " -- dc_" };
	ibf_ucxi_transport_t t = IBF_UCXI_TL_OTHER;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (!fp)
		return t;
	ucp_context_print_info(ctx, fp);
	fclose(fp);
	for (unsigned i = 0; text && i < 3 && t != IBF_UCXI_TL_IB; i++) {
		for (const char *p = text; (p = strstr(p, rdma[i])); p++) {
			const char *slash = strchr(p + 4, '/');

			t = IBF_UCXI_TL_RDMA;
			if (slash && ib_link_layer(slash + 1)) {
				t = IBF_UCXI_TL_IB;
				break;
			}
		}
	}
	free(text);
	return t;
}
