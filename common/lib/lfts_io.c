/* PLACEHOLDER: being written in this session. */
#include <ibflow/lfts_io.h>

ibf_status_t ibf_lfts_read(const ibf_fabric_t *f, const char *path,
			   ibf_lfts_t **out, ibf_err_t *err)
{
	*out = NULL;
	return ibf_err_set(err, IBF_ERR_UNSUPPORTED, "%s: not implemented", path);
}
