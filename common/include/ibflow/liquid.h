/* PLACEHOLDER: API being written in this session. */
#ifndef IBFLOW_LIQUID_H
#define IBFLOW_LIQUID_H
#include <ibflow/fabric.h>
#endif
