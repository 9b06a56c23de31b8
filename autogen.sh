#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Regenerate the build system (configure, Makefile.in) from configure.ac.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
