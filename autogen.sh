#!/bin/sh
# Regenerate the build system (configure, Makefile.in) from configure.ac.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
