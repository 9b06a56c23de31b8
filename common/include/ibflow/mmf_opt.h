/* PLACEHOLDER: API being written in this session. */
#ifndef IBFLOW_MMF_OPT_H
#define IBFLOW_MMF_OPT_H
#include <ibflow/fabric.h>
#endif
