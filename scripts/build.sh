#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Build ibflow: install missing Debian packages, generate the build system
# if needed, configure and make.  Idempotent and quick when up to date.
#
#   scripts/build.sh                  # out-of-tree build in <repo>/build
#   BUILD_DIR=/tmp/b scripts/build.sh # elsewhere
#   BUILD_DIR=. scripts/build.sh      # in the source tree
#
# Environment: BUILD_DIR, JOBS (make -j, default 2), CONFIGURE_FLAGS (extra
# configure arguments, used only when the build dir is first configured),
# SKIP_DEPS=1 (do not check packages).
# The last line printed is the path of the built `ibflow` command.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JOBS=${JOBS:-2}

log() { echo "build: $*" >&2; }

if [ "${SKIP_DEPS:-0}" != 1 ]; then
	bash "$REPO/scripts/setup-deps.sh" >&2
fi

# shellcheck source=build-dir.sh
. "$REPO/scripts/build-dir.sh"
BUILD_DIR=$(ibf_build_dir "$REPO")
# Two builds in one tree at once (demo and tests started together) would
# trip over each other's half-written files: take turns.
exec 9>"$BUILD_DIR/.build.lock"
flock 9

if [ ! -x "$REPO/configure" ] || [ ! -f "$REPO/Makefile.in" ]; then
	log "generating the build system (autogen.sh)"
	(cd "$REPO" && ./autogen.sh) >"$BUILD_DIR/autogen.log" 2>&1 || {
		tail -20 "$BUILD_DIR/autogen.log" >&2
		log "autogen.sh failed (log: $BUILD_DIR/autogen.log)"
		exit 1
	}
fi

if [ "$BUILD_DIR" != "$REPO" ] && [ -f "$REPO/config.status" ]; then
	log "$REPO is configured in place; out-of-tree builds are refused."
	log "run 'make distclean' there, or use BUILD_DIR=$REPO"
	exit 1
fi

if [ ! -f "$BUILD_DIR/Makefile" ]; then
	log "configuring in $BUILD_DIR"
	# shellcheck disable=SC2086 # CONFIGURE_FLAGS is a word list
	(cd "$BUILD_DIR" && "$REPO/configure" ${CONFIGURE_FLAGS:-}) \
		>"$BUILD_DIR/configure.out" 2>&1 || {
		tail -30 "$BUILD_DIR/configure.out" >&2
		log "configure failed (log: $BUILD_DIR/config.log)"
		exit 1
	}
	# The summary tells which optional parts are built or skipped.
	grep -E '^  +[^ ].* \.\.+ ' "$BUILD_DIR/configure.out" >&2 || true
fi

log "make -j$JOBS in $BUILD_DIR"
if ! make -C "$BUILD_DIR" -j"$JOBS" >"$BUILD_DIR/make.out" 2>&1; then
	grep -E 'error|Error' "$BUILD_DIR/make.out" | head -30 >&2 || true
	log "make failed (full output: $BUILD_DIR/make.out)"
	exit 1
fi
grep -E 'warning:' "$BUILD_DIR/make.out" >&2 || true
echo "$BUILD_DIR/common/ibflow"
