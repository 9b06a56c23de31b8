#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the MMF-MCF optimum benchmark (see bench_opt.c).
#   tests/bench/bench_opt.sh [bench_opt options...]
# e.g.  tests/bench/bench_opt.sh --threads 2 --check
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_opt
exec "$out/bench_opt" "$@"
