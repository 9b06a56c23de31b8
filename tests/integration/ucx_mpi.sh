#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# libibflow_ucx inside MPI programs (tests/ucx/mpi_oob.c, built here with
# mpicc against the build tree): MPI's own allgather as the OOB, the
# library's UCP context beside Open MPI's pml ucx, 4 ranks on one machine.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

B=$T_BUILD_DIR
LIB=$B/ucx_component/.libs/libibflow_ucx.so
if [ ! -f "$LIB" ]; then
	t_skip ucx_mpi "the UCX component is not built"
	t_done
fi
if ! t_need mpicc mpirun; then
	t_skip ucx_mpi "mpicc/mpirun not installed (libopenmpi-dev, openmpi-bin)"
	t_done
fi
export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! mpicc -O2 -Wall -Wextra -Werror -o "$T_TMP/mpi_oob" "$T_REPO/tests/ucx/mpi_oob.c" \
	-I"$T_REPO/ucx_component/include" -I"$T_REPO/common/include" \
	-L"$B/ucx_component/.libs" -libflow_ucx -lm >"$T_TMP/cc.log" 2>&1; then
	t_fail "ucx_mpi: mpi_oob.c builds" "$(head -3 "$T_TMP/cc.log")"
	t_done
fi
t_pass "ucx_mpi: mpi_oob.c builds with mpicc -Wall -Wextra -Werror"
# pml ucx on a machine without InfiniBand needs to be told (NOTES).
timeout 180 mpirun --allow-run-as-root --oversubscribe -np 4 \
	--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any \
	-x UCX_TLS=tcp,self -x LD_LIBRARY_PATH -x UCX_IBFLOW_TIMEOUT=60s \
	"$T_TMP/mpi_oob" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
cat "$T_TMP/out"
grep -q "^not ok" "$T_TMP/out" && T_NFAIL=$((T_NFAIL + $(grep -c "^not ok" "$T_TMP/out")))
T_NPASS=$((T_NPASS + $(grep -c "^ok" "$T_TMP/out")))
if [ $rc -ne 0 ] && ! grep -q "^not ok" "$T_TMP/out"; then
	t_fail "ucx_mpi: mpirun -np 4 with pml ucx" "exit $rc: $(head -c 300 "$T_TMP/err")"
fi
[ "$(grep -c '^ok' "$T_TMP/out")" -eq 10 ] ||
	t_fail "ucx_mpi: all 10 checks reported" "$(grep -c '^ok' "$T_TMP/out") ok lines"
t_done
