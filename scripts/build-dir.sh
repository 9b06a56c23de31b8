# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Sourced by scripts/build.sh, tests/run.sh and tests/lib.sh: which build
# tree to use.
#   ibf_build_dir REPO   prints the absolute path of the build tree, made
#                        if missing: $BUILD_DIR when set; REPO itself when
#                        it was configured in place (configure then
#                        refuses out-of-tree builds); else REPO/build.
# shellcheck shell=bash

ibf_build_dir() {
	local repo=$1 dir=${BUILD_DIR:-}

	if [ -z "$dir" ]; then
		if [ -f "$repo/config.status" ]; then
			dir=$repo
		else
			dir=$repo/build
		fi
	fi
	mkdir -p "$dir" && (cd "$dir" && pwd)
}
