#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ibflow-layered with its default budget of one VL is deadlock-free for
# traffic on one SL, as MPI over UCX sends (UCX_IB_SL): on a fabric of
# every family `ibflow gen` makes that layered routes (LMC 2, 4 layers),
# and on dragonfly:4,2,3, whose whole layers would need more than 8 VLs,
#   - the route reports 1 SL;
#   - `ibflow sim` completes linear and pairwise all-to-alls among every
#     host with every packet on SL 0;
#   - the test's own walk of the tables (tests/cdg_walk.py) finds the
#     channel dependency graph of the one VL acyclic, and so does
#     `ibflow check --deadlock`.
# A routing with a credit loop on one VL (layered with --vls 8, whole
# layers on their SLs, all its traffic put on SL 0) is found by both the
# walk and check, and deadlocks the simulator; with its SLs both find
# every VL acyclic and check gives both verdicts.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
W=$T_TMP
WALK=$T_REPO/tests/cdg_walk.py
t_need_ibflow

# one fabric per family (pgft, xgft and kary are one family)
FABRICS="pgft:2:4,4:1,2:1,2 slimfly:5 dragonfly:4,2,2 dragonfly:4,2,3
hyperx:2:4:1 jellyfish:16,4,2:7 torus:3,3,2 tree:6,16,8:3 swisst1"

for spec in $FABRICS; do
	n=$(echo "$spec" | tr ':,' '__')
	if ! t_expect_exit 0 "$IBF" gen "$spec" --lmc 2 -o "$W/$n.topo" ||
	   ! t_expect_exit 0 "$IBF" route --topo "$W/$n.topo" \
		--engine layered --layers 4 -o "$W/$n.lfts" \
		--sl-out "$W/$n.sl" --order-out "$W/$n.hosts"; then
		t_fail "$spec: gen and route layered" "exit $T_RC: $(t_errhead)"
		continue
	fi
	if grep -q ', 1 SL,' "$T_OUT"; then
		t_pass "$spec: layered's default budget routes on 1 SL"
	else
		t_fail "$spec: layered's default budget routes on 1 SL" \
			"$(head -c 200 "$T_OUT")"
	fi
	for alg in linear pairwise; do
		t_check "$spec: $alg all-to-all of every host on SL 0 completes" 0 \
			"$IBF" sim --topo "$W/$n.topo" --lfts "$W/$n.lfts" \
			--alltoall "$W/$n.hosts" --algorithm "$alg" \
			--bytes 8192
	done
	t_check "$spec: own walk of the tables, SL 0: acyclic" 0 \
		python3 "$WALK" "$W/$n.topo" "$W/$n.lfts"
	t_check "$spec: check --deadlock, SL 0: deadlock-free" 0 \
		"$IBF" check --topo "$W/$n.topo" --lfts "$W/$n.lfts" --deadlock
done

# ---- a credit loop on one VL: whole layers on SLs, traffic on SL 0 ------
n=df8
"$IBF" gen dragonfly:4,2,2 --lmc 2 -o "$W/$n.topo"
t_check "dragonfly:4,2,2 --vls 8: whole layers on their SLs" 0 \
	"$IBF" route --topo "$W/$n.topo" --engine layered --layers 4 \
	--vls 8 -o "$W/$n.lfts" --sl-out "$W/$n.sl" --order-out "$W/$n.hosts"
if t_expect_exit 1 python3 "$WALK" "$W/$n.topo" "$W/$n.lfts" &&
   grep -q '^VL 0: cycle of' "$T_OUT"; then
	t_pass "--vls 8 on SL 0: own walk finds the cycle"
else
	t_fail "--vls 8 on SL 0: own walk finds the cycle" "exit $T_RC: $(head -c 200 "$T_OUT")"
fi
if t_expect_exit 1 "$IBF" check --topo "$W/$n.topo" --lfts "$W/$n.lfts" \
	--deadlock && grep -q '^DEADLOCK POSSIBLE on one SL' "$T_OUT"; then
	t_pass "--vls 8 on SL 0: check --deadlock finds the cycle"
else
	t_fail "--vls 8 on SL 0: check --deadlock finds the cycle" "exit $T_RC: $(tail -c 200 "$T_OUT")"
fi
if t_expect_exit 1 "$IBF" sim --topo "$W/$n.topo" --lfts "$W/$n.lfts" \
	--alltoall "$W/$n.hosts" --algorithm linear --bytes 65536 &&
   grep -q 'DEADLOCK' "$T_OUT" "$T_ERR"; then
	t_pass "--vls 8 on SL 0: the simulator deadlocks a linear all-to-all"
else
	t_fail "--vls 8 on SL 0: the simulator deadlocks" "exit $T_RC: $(t_errhead)"
fi
t_check "--vls 8 with its SLs: own walk, every VL acyclic" 0 \
	python3 "$WALK" "$W/$n.topo" "$W/$n.lfts" "$W/$n.sl"
# with --sl, two verdicts; the exit status is the SLs' one
if t_expect_exit 0 "$IBF" check --topo "$W/$n.topo" --lfts "$W/$n.lfts" \
	--sl "$W/$n.sl" --deadlock &&
   grep -q "^deadlock-free with the routing's SLs" "$T_OUT" &&
   grep -q '^DEADLOCK POSSIBLE on one SL' "$T_OUT"; then
	t_pass "--vls 8: check --sl --deadlock: free with its SLs, not on one SL"
else
	t_fail "--vls 8: check --sl --deadlock gives both verdicts" "exit $T_RC: $(grep -i dead "$T_OUT" | head -c 300)"
fi
t_done
