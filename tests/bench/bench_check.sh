#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the all-pairs route check benchmark (see bench_check.c).
#   tests/bench/bench_check.sh [bench_check options...]
# e.g.  tests/bench/bench_check.sh --lmc 2 --naive-runs 1
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_check
exec "$out/bench_check" "$@"
