#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the layered engine benchmark (see bench_layered.c).
#   tests/bench/bench_layered.sh [bench_layered options...]
# e.g.  tests/bench/bench_layered.sh --runs 3 --check
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_layered
exec "$out/bench_layered" "$@"
