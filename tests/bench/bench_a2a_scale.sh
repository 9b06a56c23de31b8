#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build and run the all-to-all plan scale benchmark (see bench_a2a_scale.c).
#   tests/bench/bench_a2a_scale.sh [--runs N] [--limit S] [--only SUBSTRING]
#                                  [--hosts]
# Built by tests/bench/build.sh (no configured tree needed).
set -eu
. "$(dirname "$0")/build.sh"
bench_build bench_a2a_scale
exec "$out/bench_a2a_scale" "$@"
