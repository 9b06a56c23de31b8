/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * What the plugin takes from the OpenSM it runs in, apart from the subnet:
 * its log and its cache directory.  Kept apart from plugin.c (the entry
 * points) so that the configuration reader, the labels keeper and the
 * worker depend on this small base, not on the entry points.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include "ibflow_osm.h"

#ifndef OSM_CACHE_DIR_DEFAULT
#define OSM_CACHE_DIR_DEFAULT "/var/cache/opensm"
#endif

void ibf_osm_logf(ibf_osm_t *p, int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	osm_log(&p->osm->log, (osm_log_level_t)level, "ibflow: %s\n", buf);
}

/* OpenSM's own rule for its cache dir: $OSM_CACHE_DIR, else the default. */
const char *ibf_osm_cache_dir(void)
{
	const char *d = getenv("OSM_CACHE_DIR");

	return d && *d ? d : OSM_CACHE_DIR_DEFAULT;
}
