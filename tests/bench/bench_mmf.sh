#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the max-min fair rate benchmark (see bench_mmf.c).
#   tests/bench/bench_mmf.sh [bench_mmf options...]
# e.g.  tests/bench/bench_mmf.sh --ref-randn
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_mmf
exec "$out/bench_mmf" "$@"
