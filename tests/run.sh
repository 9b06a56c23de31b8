#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ibflow's whole test suite: installs missing packages and builds as needed
# (scripts/build.sh), then runs
#   1. every cmocka unit test   tests/unit/test_*      (TAP output counted)
#   2. every integration script tests/integration/*.sh (real OpenSM, ibsim,
#                                                       infiniband-diags)
#   3. the fuzz runner          tests/fuzz/run.sh      (libFuzzer, ASan, UBSan)
# and ends with the line "N passed, N failed, N skipped".  Exit status 0 only
# when nothing failed.  The soft-RoCE VM's batch (integration suite
# softroce_vm) runs in the background beside the unit tests and the
# offline integration suites, these at nice 19 (VM_OVERLAP below).
#
#   tests/run.sh [--quick] [--no-build] [PATTERN...]
#     --quick     no fuzzing, short integration runs (T_QUICK=1)
#     --no-build  use the build tree as it is
#     PATTERN     only suites whose name contains one of the patterns
#                 (e.g. `tests/run.sh test_gen check_defects`)
#
# Environment: BUILD_DIR (default <repo>/build), JOBS, FUZZ_SECONDS,
# SUITE_TIMEOUT (seconds per suite, default 900; an integration script may
# raise its own with a line "# suite-timeout: SECONDS"), VM_OVERLAP (1;
# 0: every suite one at a time).
# Full logs go to $BUILD_DIR/test-logs/<suite>.log, wall and CPU seconds
# per suite to $BUILD_DIR/test-logs/times.txt.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 2

QUICK=0
BUILD=1
PATTERNS=()
for a in "$@"; do
	case $a in
	--quick) QUICK=1 ;;
	--no-build) BUILD=0 ;;
	-h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option $a" >&2; exit 2 ;;
	*) PATTERNS+=("$a") ;;
	esac
done

# shellcheck source=../scripts/build-dir.sh
. "$REPO/scripts/build-dir.sh"
BUILD_DIR=$(ibf_build_dir "$REPO")
export BUILD_DIR T_BUILD_DIR=$BUILD_DIR T_REPO=$REPO T_QUICK=$QUICK
export IBFLOW=$BUILD_DIR/common/ibflow
SUITE_TIMEOUT=${SUITE_TIMEOUT:-900}
LOGS=$BUILD_DIR/test-logs
rm -rf "$LOGS"
mkdir -p "$LOGS"

# python3 once: a version manager's shim on PATH (pyenv's) works out the
# interpreter anew at every call, 39 processes each time here (0.13 s;
# seconds in the soft-RoCE VM, where every process start is emulated):
# the suites get the interpreter it resolves to, the same one, directly
# (a link in $LOGS/bin, which the VM sees too).
py_direct() {
	local shim real

	shim=$(command -v python3) || return 0
	real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || return 0
	[ -x "$real" ] && [ "$(readlink -f "$shim")" != "$(readlink -f "$real")" ] ||
		return 0
	mkdir -p "$LOGS/bin" && ln -sf "$real" "$LOGS/bin/python3" &&
		export PATH=$LOGS/bin:$PATH
}
py_direct

NPASS=0
NFAIL=0
NSKIP=0
FAILED_SUITES=()
T0=$(date +%s)

finish() {
	local t=$(($(date +%s) - T0))

	echo
	if [ ${#FAILED_SUITES[@]} -gt 0 ]; then
		echo "failed suites: ${FAILED_SUITES[*]}"
		echo "logs: $LOGS"
	fi
	echo "total time ${t}s"
	echo "$NPASS passed, $NFAIL failed, $NSKIP skipped"
	[ "$NFAIL" -eq 0 ]
	exit $?
}

selected() {
	local p

	[ ${#PATTERNS[@]} -eq 0 ] && return 0
	for p in "${PATTERNS[@]}"; do
		case $1 in *"$p"*) return 0 ;; esac
	done
	return 1
}

# A suite that could not even start (build error, missing binary).
suite_broken() {
	local name=$1 why=$2

	NFAIL=$((NFAIL + 1))
	FAILED_SUITES+=("$name")
	printf '  %-32s BROKEN: %s\n' "$name" "$why"
}

# count_suite NAME RC LOG SECONDS: count TAP lines of one suite's log.
count_suite() {
	local name=$1 rc=$2 log=$3 secs=$4 p f s status=ok crashed=0

	if [ ! -f "$log" ]; then
		# Another run in the same build tree removed the logs.
		mkdir -p "$(dirname "$log")"
		echo "not ok - $name # its log vanished (another tests/run.sh on $BUILD_DIR?)" >"$log"
	fi
	p=$(grep -E '^ok( |$)' "$log" | grep -vcE '# *SKIP' || true)
	s=$(grep -E '^ok( |$)' "$log" | grep -cE '# *SKIP' || true)
	f=$(grep -cE '^not ok( |$)' "$log" || true)
	# A suite that reports nothing has not shown anything to work.
	if [ "$rc" -eq 0 ] && [ $((p + s + f)) -eq 0 ]; then
		echo "not ok - $name # no test result in its output" >>"$log"
		f=1
	fi
	# A crash or a non-zero exit that no "not ok" explains is a failure.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		crashed=1
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			echo "not ok - $name # timed out after ${SUITE_TIMEOUT}s" >>"$log"
		else
			echo "not ok - $name # exited with status $rc" >>"$log"
		fi
	fi
	NPASS=$((NPASS + p))
	NFAIL=$((NFAIL + f))
	NSKIP=$((NSKIP + s))
	[ "$f" -gt 0 ] && status=FAIL && FAILED_SUITES+=("$name")
	printf '  %-32s %4s  %3d passed, %d failed, %d skipped (%ss)\n' \
		"$name" "$status" "$p" "$f" "$s" "$secs"
	if [ "$f" -gt 0 ]; then
		grep -E '^not ok( |$)' "$log" | sed 's/^/      /'
		# Without a "not ok" line the end of the log tells what happened.
		if [ "$crashed" = 1 ]; then
			grep -vE '^(ok|not ok)( |$)' "$log" | tail -15 |
				sed 's/^/      | /'
		fi
		echo "      log: $log"
	fi
}

# children_cpu [PID]: CPU seconds (user + system) of the finished
# children so far of this shell, or of the subshell PID (cutime + cstime
# of /proc/PID/stat, after the command name).
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)
children_cpu() {
	sed 's/.*) //' "/proc/${1:-$$}/stat" 2>/dev/null |
		awk -v hz="$CLK_TCK" '{ printf "%.1f", ($14 + $15) / hz }'
}

# run_suite NAME CMD...: run with a timeout, log everything, count; the
# suite's wall and CPU seconds go to $LOGS/times.txt (what may overlap
# what: docs/testing.md).
run_suite() {
	local name=$1 log=$LOGS/$1.log t rc=0 c bg=0 vc

	shift
	low_while_vm
	[ -z "$BG_PID" ] || ! kill -0 "$BG_PID" 2>/dev/null || bg=1
	t=$(date +%s)
	c=$(children_cpu)
	if [ ${#LOW[@]} -eq 0 ]; then
		timeout -k 10 "$SUITE_TIMEOUT" "$@" </dev/null >"$log" 2>&1 || rc=$?
	else
		# timeout leads its own process group: the VM's end raises it
		timeout -k 10 "$SUITE_TIMEOUT" "${LOW[@]}" "$@" </dev/null \
			>"$log" 2>&1 &
		echo $! >"$LOGS/.low"
		kill -0 "$BG_PID" 2>/dev/null || raise_low
		wait $! || rc=$?
		rm -f "$LOGS/.low"
	fi
	t=$(($(date +%s) - t))
	# The VM's subshell reaped meanwhile brought its CPU time along.
	vc=0
	if [ "$bg" = 1 ] && ! kill -0 "$BG_PID" 2>/dev/null; then
		read -r _ vc <"$LOGS/softroce_vm.bg" || vc=0
	fi
	echo "$name ${t}s wall $(awk -v a="$(children_cpu)" -v b="$c" -v v="$vc" \
		'BEGIN { printf "%.1f", a - b - v }')s cpu" >>"$LOGS/times.txt"
	count_suite "$name" "$rc" "$log" "$t"
}

# ---- build ------------------------------------------------------------
if [ "$BUILD" = 1 ]; then
	echo "== build ($BUILD_DIR)"
	if ! BUILD_DIR=$BUILD_DIR bash "$REPO/scripts/build.sh" \
	     >"$LOGS/build.log" 2>&1; then
		tail -25 "$LOGS/build.log"
		suite_broken build "scripts/build.sh failed (log: $LOGS/build.log)"
		finish
	fi
	grep -E '^  +[^ ].* \.\.+ ' "$LOGS/build.log" || true
fi
if [ ! -x "$IBFLOW" ]; then
	suite_broken build "no $IBFLOW (build first, or drop --no-build)"
	finish
fi

# ---- the soft-RoCE VM beside the unit tests and the offline suites ----------
# The VM's batch is one qemu process whose guest waits much of the time
# (netem delays, process starts): it leaves CPU idle for minutes.  With
# VM_OVERLAP=1 (the default) it runs in the background from here on, and
# the unit tests and the integration suites of OVERLAP_SUITES run
# meanwhile at nice 19: they get little more than the CPU time the VM
# leaves (a nice 19 task weighs 15 against a nice 0 task's 1024 and
# yields to it at once on wake-up), so the VM's tests, which judge RTTs
# against their own noise, are not slowed by them; and when the VM ends
# the one running is raised to the run's own niceness.  (SCHED_IDLE
# would let any other load of the machine starve them past their
# timeout.)  Those suites judge no time, start no
# daemon and wait on no timeout of their own (a suite's SUITE_TIMEOUT
# still holds); every other suite (ucx_probe_netns and ucx_infer judge
# latencies, the fuzzers' power is their time) runs after the VM's, one
# at a time as before.  VM_OVERLAP=0: every suite one at a time.
OVERLAP_SUITES=(cli_basics engines_all eval_cli gen_roundtrip headers
	infer_cli layered_one_sl liquid_cli probe_cli route_cli sim_cli symbols
	warnings)
LOW=()
BG_PID=
BASE_NICE=$(nice)
VM_SCRIPT=$REPO/tests/integration/softroce_vm.sh

in_overlap() {
	local n

	for n in "${OVERLAP_SUITES[@]}"; do
		[ "$n" = "$1" ] && return 0
	done
	return 1
}

# low_while_vm: what starts from now on runs at nice 19 only while the
# VM still runs.
low_while_vm() {
	[ ${#LOW[@]} -eq 0 ] || kill -0 "$BG_PID" 2>/dev/null || LOW=()
}

# raise_low: the suite running at nice 19 (the process group of its
# timeout, in $LOGS/.low) back to the run's own niceness.
raise_low() {
	local g

	if read -r g 2>/dev/null <"$LOGS/.low"; then
		renice -n "$BASE_NICE" -g "$g" >/dev/null 2>&1
	fi
	return 0
}

# suite_timeout SCRIPT: SUITE_TIMEOUT, or the script's own
# "# suite-timeout: SECONDS" line when larger (the soft-RoCE VM).
suite_timeout() {
	local st

	st=$(sed -n '1,30s/^# *suite-timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -1)
	if [ -n "$st" ] && [ "$st" -gt "$SUITE_TIMEOUT" ]; then
		echo "$st"
	else
		echo "$SUITE_TIMEOUT"
	fi
}

# vm_join: wait for the background VM suite and count it.
vm_join() {
	local rc t c

	[ -n "$BG_PID" ] || return 0
	wait "$BG_PID"
	BG_PID=
	LOW=()
	read -r rc <"$LOGS/softroce_vm.rc" || rc=1
	read -r t c <"$LOGS/softroce_vm.bg" || t=0 c=0
	echo "== the soft-RoCE VM (in the background since the unit tests)"
	echo "softroce_vm ${t}s wall ${c}s cpu" >>"$LOGS/times.txt"
	count_suite softroce_vm "$rc" "$LOGS/softroce_vm.log" "$t"
}

if [ "${VM_OVERLAP:-1}" = 1 ] && [ -f "$VM_SCRIPT" ] && selected softroce_vm &&
   [ "$BASE_NICE" -lt 19 ]; then
	st=$(suite_timeout "$VM_SCRIPT")
	(
		me=$BASHPID
		t=$(date +%s)
		rc=0
		timeout -k 10 "$st" bash "$VM_SCRIPT" </dev/null \
			>"$LOGS/softroce_vm.log" 2>&1 || rc=$?
		echo "$rc" >"$LOGS/softroce_vm.rc"
		echo "$(($(date +%s) - t)) $(children_cpu "$me")" >"$LOGS/softroce_vm.bg"
		raise_low
	) &
	BG_PID=$!
	LOW=(nice -n $((19 - BASE_NICE)))
	echo "== the soft-RoCE VM's batch started in the background"
fi

# ---- unit tests ----------------------------------------------------------
echo "== unit tests (cmocka)"
# Every selected program in one make first, JOBS at a time (one program
# has one or two sources, so making them one by one leaves a core idle);
# -k goes on past a unit that does not compile, which the make of its
# own below then reports alone.
units=()
for src in "$REPO"/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	[ "$name" = test_util ] || ! selected "$name" || units+=("unit/$name")
done
low_while_vm
[ ${#units[@]} -eq 0 ] || flock "$BUILD_DIR/.build.lock" "${LOW[@]}" \
	make -C "$BUILD_DIR/tests" -k -j"${JOBS:-2}" "${units[@]}" \
	>"$LOGS/unit.build.log" 2>&1 || true
for src in "$REPO"/tests/unit/test_*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	# test_util.c holds helpers the unit tests link, it is no test.
	[ "$name" = test_util ] && continue
	selected "$name" || continue
	# One program at a time, so one unit that does not compile fails
	# alone instead of hiding every other result.
	low_while_vm
	if ! flock "$BUILD_DIR/.build.lock" "${LOW[@]}" \
	     make -C "$BUILD_DIR/tests" -j"${JOBS:-2}" "unit/$name" \
	     >"$LOGS/$name.build.log" 2>&1; then
		grep -E 'error' "$LOGS/$name.build.log" | head -5 | sed 's/^/      /'
		suite_broken "$name" "does not compile (log: $LOGS/$name.build.log)"
		continue
	fi
	CMOCKA_MESSAGE_OUTPUT=TAP run_suite "$name" \
		"$BUILD_DIR/tests/unit/$name"
done

# ---- integration tests ------------------------------------------------
# integration during|after|all: the selected scripts in name order;
# during the VM's batch those of OVERLAP_SUITES, after it the others.
integration() {
	local script name

	for script in "$REPO"/tests/integration/*.sh; do
		[ -e "$script" ] || continue
		name=$(basename "$script" .sh)
		selected "$name" || continue
		case $1 in
		during) in_overlap "$name" || continue ;;
		after) if in_overlap "$name" || [ "$name" = softroce_vm ]; then
			continue
		fi ;;
		esac
		SUITE_TIMEOUT=$(suite_timeout "$script") run_suite "$name" bash "$script"
	done
}

echo "== integration tests"
if [ -n "$BG_PID" ]; then
	integration during
	# The fuzz targets' build too (compiling: no time of its own); the
	# fuzzing after the VM relinks nothing up to date.
	if [ "$QUICK" = 0 ] && selected fuzz; then
		low_while_vm
		"${LOW[@]}" bash "$REPO/tests/fuzz/run.sh" --build </dev/null \
			>"$LOGS/fuzz.build.log" 2>&1 || true
	fi
	vm_join
	integration after
else
	integration all
fi

# ---- fuzzing -------------------------------------------------------------
if [ "$QUICK" = 1 ]; then
	echo "== fuzzing: skipped (--quick)"
elif selected fuzz; then
	echo "== fuzzing (${FUZZ_SECONDS:-15}s per target)"
	run_suite fuzz bash "$REPO/tests/fuzz/run.sh"
fi

finish
