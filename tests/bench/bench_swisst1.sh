#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the Swiss-T1 benchmark (see bench_swisst1.c).
#   tests/bench/bench_swisst1.sh [--runs N] [--limit S] [--class K] [--out FILE.dat]
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_swisst1
exec "$out/bench_swisst1" "$@"
