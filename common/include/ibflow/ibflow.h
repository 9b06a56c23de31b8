/* libibflow: everything in one include. */
#ifndef IBFLOW_IBFLOW_H
#define IBFLOW_IBFLOW_H

#include <ibflow/status.h>
#include <ibflow/fabric.h>
#include <ibflow/lfts.h>
#include <ibflow/route.h>

#endif
