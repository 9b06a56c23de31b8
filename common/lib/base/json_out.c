/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* JSON documents onto a stream (json_out.h). */
#include "base/json_out.h"

ibf_status_t ibf_json_write(json_object *root, int flags, FILE *fp,
			    ibf_err_t *err)
{
	int rc;

	if (!root)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	rc = fprintf(fp, "%s\n", json_object_to_json_string_ext(root, flags));
	json_object_put(root);
	if (rc < 0 || ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}
