/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libibflow: the whole public API in one include.
 *
 * Layers, bottom up (a header includes only headers of its layer or below):
 *   base     decls.h status.h limits.h io.h
 *   model    fabric.h lfts.h pgft_memory.h pgft.h
 *   formats  topo_io.h lfts_io.h hosts.h nodelist.h traffic.h sl_io.h
 *            rtt_io.h labels_io.h slurm_topo.h
 *   gen      gen.h
 *   routing  route.h diversity.h
 *   export   export.h (a routing's files for its consumers)
 *   verify   trace.h check.h deadlock.h
 *   eval     mmf.h mmf_opt.h patterns.h eval.h
 *   sched    liquid.h liquid_hosts.h probe.h
 *   sim      sim.h
 *   infer    infer.h
 * Only what these headers declare is exported from libibflow.so: each
 * stands between IBF_BEGIN_DECLS and IBF_END_DECLS (decls.h: default
 * visibility, C linkage) while the library is built with
 * -fvisibility=hidden, and a version script keeps the rest local.
 */
#ifndef IBFLOW_IBFLOW_H
#define IBFLOW_IBFLOW_H

#include <ibflow/status.h>
#include <ibflow/limits.h>
#include <ibflow/io.h>
#include <ibflow/fabric.h>
#include <ibflow/lfts.h>
#include <ibflow/pgft_memory.h>
#include <ibflow/pgft.h>
#include <ibflow/topo_io.h>
#include <ibflow/lfts_io.h>
#include <ibflow/rtt_io.h>
#include <ibflow/hosts.h>
#include <ibflow/nodelist.h>
#include <ibflow/traffic.h>
#include <ibflow/sl_io.h>
#include <ibflow/labels_io.h>
#include <ibflow/slurm_topo.h>
#include <ibflow/gen.h>
#include <ibflow/route.h>
#include <ibflow/diversity.h>
#include <ibflow/export.h>
#include <ibflow/trace.h>
#include <ibflow/check.h>
#include <ibflow/deadlock.h>
#include <ibflow/mmf.h>
#include <ibflow/mmf_opt.h>
#include <ibflow/patterns.h>
#include <ibflow/eval.h>
#include <ibflow/liquid.h>
#include <ibflow/liquid_hosts.h>
#include <ibflow/sim.h>
#include <ibflow/probe.h>
#include <ibflow/infer.h>
#include <ibflow/prom.h>

#endif
