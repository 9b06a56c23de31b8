/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Reading an export while the subnet manager may be rewriting it
 * (export.h): attempts a pause apart, as long as the reader says that
 * trying again may help.  The one loop behind `ibflow order --fabric` and
 * libibflow_ucx's UCX_IBFLOW_FABRIC.
 */
#include <ibflow/export.h>

#include <inttypes.h>
#include <string.h>
#include <time.h>

typedef ibf_status_t (*attempt_fn)(const char *dir, void *out, bool *retry,
				   ibf_err_t *err);

static ibf_status_t retry_loop(const char *dir, const ibf_export_retry_t *rt,
			       attempt_fn attempt, void *out, ibf_err_t *err)
{
	struct timespec nap = { (time_t)(rt->interval_ms / 1000),
				(long)(rt->interval_ms % 1000) * 1000000L };
	unsigned tries = rt->tries ? rt->tries : 1, i;
	ibf_status_t st = IBF_OK;
	bool retry = true;

	for (i = 0; i < tries && retry; i++) {
		if (i)
			nanosleep(&nap, NULL);
		retry = false;
		ibf_err_clear(err);
		st = attempt(dir, out, &retry, err);
		if (st == IBF_OK)
			break;
	}
	return st;
}

static ibf_status_t load_once(const char *dir, void *out, bool *retry,
			      ibf_err_t *err)
{
	return ibf_export_load(dir, (ibf_export_t **)out, retry, err);
}

ibf_status_t ibf_export_load_retry(const char *dir,
				   const ibf_export_retry_t *rt,
				   ibf_export_t **out, ibf_err_t *err)
{
	return retry_loop(dir, rt, load_once, out, err);
}

/* Every switch of the topology has its table; retried, as a dump still
 * being written. */
static ibf_status_t check_tables(const ibf_export_set_t *s, bool *retry,
				 ibf_err_t *err)
{
	const ibf_fabric_t *fab = s->fabric;
	uint32_t i, missing = 0, first = 0;

	for (i = 0; i < fab->nswitches; i++)
		if (!s->lfts->has_table[i] && !missing++)
			first = i;
	if (!missing)
		return IBF_OK;
	*retry = true;
	return ibf_err_set(err, IBF_ERR_INVALID, "%s: tables for %u of "
			   "the topology's %u switches (none for '%s' "
			   "GUID 0x%016" PRIx64 "%s): cut short or of "
			   "another fabric", s->lfts_path,
			   fab->nswitches - missing, fab->nswitches,
			   ibf_node_desc(fab, fab->switches[first]),
			   ibf_node(fab, fab->switches[first])->guid,
			   missing > 1 ? " and others" : "");
}

static ibf_status_t read_set_once(const char *dir, void *out, bool *retry,
				  ibf_err_t *err)
{
	ibf_export_set_t *s = out;
	ibf_status_t st;

	st = ibf_export_read_set(dir, s, retry, err);
	if (st == IBF_OK && (st = check_tables(s, retry, err)) != IBF_OK)
		ibf_export_set_free(s);
	return st;
}

ibf_status_t ibf_export_read_set_retry(const char *dir,
				       const ibf_export_retry_t *rt,
				       ibf_export_set_t *out, ibf_err_t *err)
{
	return retry_loop(dir, rt, read_set_once, out, err);
}
