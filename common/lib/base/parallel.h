/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Fork-join fan-out over a few threads.  Internal to libibflow.
 *
 * The library runs inside OpenSM and MPI ranks, so it keeps no thread pool
 * and no global state: each call starts its threads and joins them.
 */
#ifndef IBFLOW_BASE_PARALLEL_H
#define IBFLOW_BASE_PARALLEL_H

/* Runs task(arg, 0) .. task(arg, n - 1) concurrently and returns when all
 * have finished.  Task 0 runs on the calling thread (a caller that reports
 * progress does so from task 0); a task whose thread cannot be started
 * runs on the calling thread too, so the call never fails.  Tasks report
 * their own results through arg. */
void ibf_parallel_run(unsigned n, void (*task)(void *arg, unsigned index),
		      void *arg);

#endif
