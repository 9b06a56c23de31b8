/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibflow_ucx's own all-to-all setup code, compiled into the programs
 * that run it on simulated ranks (a2a_sim.c): the library exports only
 * ibf_ucx_*, so its internal planner is built here from its sources,
 * not re-implemented. */
#include "../../ucx_component/src/core/ucx_status.c"
#include "../../ucx_component/src/fabric/ucx_route.c"
#include "../../ucx_component/src/coll/a2a_plan.c"
#include "../../ucx_component/src/coll/a2a_gain.c"
