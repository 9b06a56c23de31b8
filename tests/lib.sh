# Helpers for ibflow's shell test suites; source it, do not run it.
#
# Results are printed TAP-like, one line each, which tests/run.sh counts:
#   ok - NAME
#   not ok - NAME # reason
#   ok - NAME # SKIP reason
# End a suite with `t_done`: it prints a summary comment and exits non-zero
# when anything failed.
#
# Provides:
#   T_REPO, T_BUILD_DIR    source tree and build tree
#   t_ibflow               path of the built CLI (also $IBFLOW)
#   T_TMP                  private scratch dir, removed at exit unless
#                          something failed or T_KEEP=1
#   T_QUICK                1 when tests/run.sh --quick asked for short runs
#   t_pass NAME / t_fail NAME REASON / t_skip NAME REASON
#   t_expect_exit CODE CMD...   run CMD (stdout -> $T_OUT, stderr -> $T_ERR,
#                               status -> $T_RC); true if status == CODE
#   t_check NAME CODE CMD...    t_expect_exit + t_pass/t_fail NAME
#   t_same NAME FILE_A FILE_B   t_pass if the files are identical, else
#                               t_fail with the head of the diff
#   t_need CMD...               true if all commands exist
# shellcheck shell=bash

T_REPO=${T_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
if [ -z "${T_BUILD_DIR:-}" ]; then
	if [ -n "${BUILD_DIR:-}" ]; then
		T_BUILD_DIR=$BUILD_DIR
	elif [ -f "$T_REPO/config.status" ]; then
		T_BUILD_DIR=$T_REPO
	else
		T_BUILD_DIR=$T_REPO/build
	fi
fi
T_BUILD_DIR=$(cd "$T_BUILD_DIR" 2>/dev/null && pwd || echo "$T_BUILD_DIR")
t_ibflow=${IBFLOW:-$T_BUILD_DIR/common/ibflow}
IBFLOW=$t_ibflow
T_QUICK=${T_QUICK:-0}
T_NAME=${T_NAME:-$(basename "$0" .sh)}

T_NPASS=0
T_NFAIL=0
T_NSKIP=0

T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ibflow-$T_NAME.XXXXXX")
T_OUT=$T_TMP/.out
T_ERR=$T_TMP/.err
T_RC=0

t__cleanup() {
	if [ "$T_NFAIL" -gt 0 ] || [ "${T_KEEP:-0}" = 1 ]; then
		echo "# $T_NAME: scratch files kept in $T_TMP"
	else
		rm -rf "$T_TMP"
	fi
}
trap t__cleanup EXIT
trap 'exit 130' INT TERM

t_pass() {
	T_NPASS=$((T_NPASS + 1))
	echo "ok - $1"
}

# t_fail NAME REASON: the reason is flattened to one line.
t_fail() {
	local why=${2:-failed}

	T_NFAIL=$((T_NFAIL + 1))
	why=$(printf '%s' "$why" | tr '\n' ' ' | cut -c1-300)
	echo "not ok - $1 # $why"
}

t_skip() {
	T_NSKIP=$((T_NSKIP + 1))
	echo "ok - $1 # SKIP ${2:-}"
}

t_expect_exit() {
	local want=$1

	shift
	T_RC=0
	"$@" >"$T_OUT" 2>"$T_ERR" || T_RC=$?
	[ "$T_RC" -eq "$want" ]
}

# First lines of the last command's stderr, on one line, for a reason.
t_errhead() {
	head -c 400 "$T_ERR" | head -3 | tr '\n' ' '
}

t_check() {
	local name=$1 want=$2

	shift 2
	if t_expect_exit "$want" "$@"; then
		t_pass "$name"
	else
		t_fail "$name" "exit $T_RC, wanted $want: $(t_errhead)"
	fi
}

t_same() {
	local d

	if d=$(diff "$2" "$3" 2>&1); then
		t_pass "$1"
	else
		t_fail "$1" "$(basename "$2") and $(basename "$3") differ: $(printf '%s\n' "$d" | head -6)"
	fi
}

t_need() {
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || return 1
	done
}

# t_done: summary line; exit status 1 if anything failed.
t_done() {
	echo "# $T_NAME: $T_NPASS passed, $T_NFAIL failed, $T_NSKIP skipped"
	[ "$T_NFAIL" -eq 0 ]
	exit $?
}
