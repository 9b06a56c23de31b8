/* PLACEHOLDER: SL files and deadlock check API being written in this session. */
#ifndef IBFLOW_SL_H
#define IBFLOW_SL_H
#include <ibflow/route.h>
#endif
