#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the all-to-all schedule cost benchmark (bench_a2a_sched.c):
# what libibflow_ucx's schedule costs every rank to compute, beside the
# bytes rank 0 broadcasts today.
#   tests/bench/bench_a2a_sched.sh [--runs N] [--limit S] [--work W]
#                                  [--ns 8,16,...] [--only SUBSTRING]
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_a2a_sched
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$out/bench_a2a_sched" "$@"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
