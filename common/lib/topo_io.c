/* PLACEHOLDER: being written in this session. */
#include <ibflow/topo_io.h>

ibf_status_t ibf_topo_read(const char *path, const ibf_topo_read_opts_t *opts,
			   ibf_fabric_t **out, ibf_err_t *err)
{
	*out = NULL;
	return ibf_err_set(err, IBF_ERR_UNSUPPORTED, "%s: not implemented", path);
}
