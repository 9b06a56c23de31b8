#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the liquid scheduling benchmark (see bench_liquid.c).
#   tests/bench/bench_liquid.sh [--runs N] [--subsets N] [--limit S]
#                               [SPEC:ENGINE ...]
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_liquid
exec "$out/bench_liquid" "$@"
