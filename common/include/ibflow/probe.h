/* PLACEHOLDER: API being written in this session. */
#ifndef IBFLOW_PROBE_H
#define IBFLOW_PROBE_H
#include <ibflow/fabric.h>
#endif
