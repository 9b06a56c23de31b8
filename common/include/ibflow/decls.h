/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * What every public header of libibflow stands between: IBF_BEGIN_DECLS
 * after its includes, IBF_END_DECLS before its last #endif.  C linkage
 * for C++ callers, and default visibility: the library is built with
 * -fvisibility=hidden, so what these headers declare is what it exports
 * (libibflow.map then keeps the rest local).
 */
#ifndef IBFLOW_DECLS_H
#define IBFLOW_DECLS_H

#ifdef __cplusplus
#define IBF_BEGIN_DECLS extern "C" { _Pragma("GCC visibility push(default)")
#define IBF_END_DECLS   _Pragma("GCC visibility pop") }
#else
#define IBF_BEGIN_DECLS _Pragma("GCC visibility push(default)")
#define IBF_END_DECLS   _Pragma("GCC visibility pop")
#endif

#endif
