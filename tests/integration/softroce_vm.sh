#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Soft-RoCE tests in one VM: boots ONE qemu VM (scripts/softroce-vm) with
# rxe devices up and runs every executable tests/vm/*.sh inside it, in name
# order, each under its own timeout; their TAP lines reach tests/run.sh as
# they are.  The contract for tests/vm/ scripts is in docs/testing.md.
#
# On the host, before the boot, each tests/vm/NAME.prepare that is
# executable runs (compile test programs into $T_BUILD_DIR/tests/vm/ there:
# nothing is built inside the VM).
#
# Without qemu, a kernel with rdma_rxe or busybox-static, every VM test is
# counted as skipped with the reason.  A VM that dies or times out fails the
# tests it did not finish.
#
# Environment: SOFTROCE_VM_NDEV (rxe devices, default 4),
# SOFTROCE_VM_TIMEOUT (seconds for the whole VM, default 1680),
# T_VM_TEST_TIMEOUT (default per-test timeout, 150 s; a script overrides it
# with a line "# vm-timeout: SECONDS"), T_VM_ONLY (run only tests/vm
# scripts whose name contains it).
# suite-timeout: 1800 (tests/run.sh: the tests' own timeouts add up past 900)
# shellcheck shell=bash

# ---- inside the VM ---------------------------------------------------------
# softroce_vm.sh --guest SHARED TEST...: run the tests, report each.

guest_test_timeout() {
	local t

	t=$(sed -n '1,30s/^# *vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -1)
	echo "${t:-${T_VM_TEST_TIMEOUT:-150}}"
}

guest_main() {
	local shared=$1 t name to rc nbad line dev st ndev=${SOFTROCE_NDEV:-0} ok=0 t0

	shift
	mkdir -p "$shared/kept" "$shared/out"
	# softroce-vm brought the devices up; check them before anything
	# relies on them.
	for ((dev = 0; dev < ndev; dev++)); do
		st=
		read -r _ st 2>/dev/null <"/sys/class/infiniband/rxe$dev/ports/1/state"
		[ "$st" = ACTIVE ] && ok=$((ok + 1))
	done
	if [ "$ok" -eq "$ndev" ] && [ "$ndev" -gt 0 ]; then
		echo "ok - softroce_vm: $ndev rxe devices ACTIVE in the VM ($(uname -r))"
	else
		echo "not ok - softroce_vm: $ok of $ndev rxe devices ACTIVE in the VM"
	fi
	for t in "$@"; do
		name=$(basename "$t" .sh)
		to=$(guest_test_timeout "$t")
		echo "# vm-begin $name (timeout ${to}s)"
		mkdir -p "$shared/out/$name"
		t0=$SECONDS
		nbad=0
		rc=
		# Scratch space is the guest's tmpfs (Open MPI and UCX put FIFOs
		# and sockets there, which 9p refuses); a failed test's scratch
		# is copied to the shared directory.
		rm -rf "/tmp/vm-$name"
		mkdir -p "/tmp/vm-$name"
		while IFS= read -r line; do
			case $line in
			"not ok"*) nbad=$((nbad + 1)) ;;
			"# vm-rc "*) rc=${line#\# vm-rc }; continue ;;
			esac
			printf '%s\n' "$line"
		done < <(cd "$T_REPO" && T_NAME="vm-$name" T_VM_OUT="$shared/out/$name" \
			TMPDIR="/tmp/vm-$name" timeout -k 5 "$to" bash "$t" </dev/null 2>&1
			echo "# vm-rc $?")
		if [ "${rc:-1}" -ne 0 ] || [ "$nbad" -gt 0 ]; then
			cp -a "/tmp/vm-$name" "$shared/kept/" 2>/dev/null &&
				echo "# vm/$name: scratch files copied to $shared/kept/vm-$name"
		fi
		rm -rf "/tmp/vm-$name"
		if [ "${rc:-1}" -ne 0 ] && [ "$nbad" -eq 0 ]; then
			if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
				echo "not ok - vm/$name # timed out after ${to}s"
			else
				echo "not ok - vm/$name # exited with status $rc"
			fi
		fi
		echo "# vm-end $name $((SECONDS - t0))s"
	done
}

if [ "${1:-}" = --guest ]; then
	shift
	guest_main "$@"
	exit 0
fi

# ---- on the host -------------------------------------------------------------

. "$(dirname "$0")/../lib.sh"

VM=$T_REPO/scripts/softroce-vm
NDEV=${SOFTROCE_VM_NDEV:-4}
# Below this suite's timeout (1800 s, see the top), so that a slow VM is
# reported test by test rather than killed with the suite.
VM_TIMEOUT=${SOFTROCE_VM_TIMEOUT:-1680}

tests=()
for t in "$T_REPO"/tests/vm/*.sh; do
	[ -x "$t" ] || continue
	case $(basename "$t") in *"${T_VM_ONLY:-}"*) ;; *) continue ;; esac
	tests+=("$t")
done
if [ ${#tests[@]} -eq 0 ]; then
	t_skip "softroce_vm" "no executable tests/vm/*.sh"
	t_done
fi

skip_all() {
	local t

	t_skip "softroce_vm: boot" "$1"
	for t in "${tests[@]}"; do
		t_skip "vm/$(basename "$t" .sh)" "$1"
	done
	t_done
}

if ! why=$("$VM" --check); then
	skip_all "${why#softroce-vm: cannot run: }"
fi
echo "# $why"
if [ "$(id -u)" -ne 0 ]; then
	skip_all "not root (the VM reads the whole root file system)"
fi
# The guest sees the host's root file system with fresh /tmp, /run and
# /dev/shm of its own: the checkout and the build directory are kept
# there as they are here wherever they lie (a first clone under /tmp).
KEEP=(-p "$T_REPO" -p "$T_BUILD_DIR")

# Host-side preparation: programs are built here, not in the VM.
run=()
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	prep=${t%.sh}.prepare
	if [ -x "$prep" ]; then
		if ! (cd "$T_REPO" && T_NAME="vm-$name" "$prep") \
		     >"$T_TMP/$name.prepare.log" 2>&1; then
			t_fail "vm/$name: prepare" "$(basename "$prep") failed: $(tail -3 "$T_TMP/$name.prepare.log")"
			continue
		fi
	fi
	run+=("$t")
done
[ ${#run[@]} -gt 0 ] || t_done

SHARED=$T_TMP/vm
mkdir -p "$SHARED"
export T_REPO T_BUILD_DIR IBFLOW T_QUICK
t0=$(date +%s)
vmrc=0
"$VM" -n "$NDEV" -t "$VM_TIMEOUT" "${KEEP[@]}" -r "$SHARED" -- \
	bash "$T_REPO/tests/integration/softroce_vm.sh" --guest "$SHARED" "${run[@]}" |
	tee "$T_TMP/vm.out"
vmrc=${PIPESTATUS[0]}
echo "# VM ran $(($(date +%s) - t0))s, exit $vmrc"

# The guest's results count for this suite too (exit status, kept files).
T_NPASS=$((T_NPASS + $(grep -E '^ok( |$)' "$T_TMP/vm.out" | grep -vcE '# *SKIP')))
T_NSKIP=$((T_NSKIP + $(grep -E '^ok( |$)' "$T_TMP/vm.out" | grep -cE '# *SKIP')))
T_NFAIL=$((T_NFAIL + $(grep -cE '^not ok( |$)' "$T_TMP/vm.out")))

if [ "$vmrc" -ne 0 ]; then
	case $vmrc in
	124) why="VM timed out after ${VM_TIMEOUT}s" ;;
	125) why="VM ended without reporting a status" ;;
	*) why="VM exited with status $vmrc" ;;
	esac
	t_fail "softroce_vm: VM run" "$why"
	# Tests the VM did not finish fail here.
	for t in "${run[@]}"; do
		name=$(basename "$t" .sh)
		grep -q "^# vm-end $name " "$T_TMP/vm.out" && continue
		if grep -q "^# vm-begin $name " "$T_TMP/vm.out"; then
			t_fail "vm/$name" "the VM ended during this test ($why)"
		else
			t_fail "vm/$name" "not run ($why)"
		fi
	done
fi
t_done
