/* PLACEHOLDER: the PGFT recognition API is being written in this session. */
#ifndef IBFLOW_PGFT_H
#define IBFLOW_PGFT_H
#include <ibflow/fabric.h>
#endif
