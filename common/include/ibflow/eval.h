/* PLACEHOLDER: API being written in this session. */
#ifndef IBFLOW_EVAL_H
#define IBFLOW_EVAL_H
#include <ibflow/fabric.h>
#endif
