#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the routing engine benchmark (see bench_route.c).
#   tests/bench/bench_route.sh [bench_route options...]
# e.g.  tests/bench/bench_route.sh --engine uapr --lmc 2 --check
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_route
exec "$out/bench_route" "$@"
