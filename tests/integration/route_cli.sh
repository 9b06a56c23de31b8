#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `ibflow route` end to end: generate a fabric, route it with minhop, and
# judge the tables with `ibflow check` and with the independent awk tracer
# of tests/lib.sh; the deadlock check finds the cycle minhop makes on a
# torus and none on fat trees; bad usage and bad input exit 2.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
W=$T_TMP
t_need_ibflow

# ---- minhop on several topologies ----------------------------------------
for case in "kary:4,3 0" "xgft:2:4,4:1,4 2" "torus:3,3,3 0" "slimfly:5 1"; do
	read -r spec lmc <<<"$case"
	name=${spec//[:,]/_}
	topo=$W/$name.topo
	if ! t_expect_exit 0 "$IBF" gen "$spec" --lmc "$lmc" -o "$topo"; then
		t_fail "gen $spec" "exit $T_RC: $(t_errhead)"
		continue
	fi
	t_check "route $spec --engine minhop" 0 "$IBF" route --topo "$topo" \
		--engine minhop -o "$W/$name.lfts" --order-out "$W/$name.order" \
		--sl-out "$W/$name.sl" --report "$W/$name.json"
	t_check "check $spec (hosts and switches)" 0 "$IBF" check \
		--topo "$topo" --lfts "$W/$name.lfts" --switches
	# Independent tracer: every pair delivered.
	res=$(t_trace "$topo" "$W/$name.lfts")
	if printf '%s\n' "$res" | grep -Eq 'ok [1-9][0-9]* no_route 0 dead_end 0 loop 0 misdelivered 0'; then
		t_pass "$spec: awk tracer delivers every pair"
	else
		t_fail "$spec: awk tracer" "$res"
	fi
	# One order line per host, each host once.
	nhosts=$(grep -c '^Ca' "$topo")
	if [ "$(sort -u "$W/$name.order" | wc -l)" -eq "$nhosts" ] &&
	   [ "$(wc -l <"$W/$name.order")" -eq "$nhosts" ]; then
		t_pass "$spec: order lists each of $nhosts hosts once"
	else
		t_fail "$spec: order" "$(wc -l <"$W/$name.order") lines, $nhosts hosts"
	fi
	if grep -q '"engine":"minhop"' "$W/$name.json" &&
	   grep -q '"switch_diameter"' "$W/$name.json"; then
		t_pass "$spec: --report names the engine and its findings"
	else
		t_fail "$spec: --report" "$(head -c 200 "$W/$name.json")"
	fi
done

# ---- deadlock check ---------------------------------------------------------
T=$W/torus_3_3_3
if t_expect_exit 1 "$IBF" check --topo "$T.topo" --lfts "$T.lfts" --deadlock &&
   grep -q 'CYCLE' "$T_OUT" && grep -q '^  "t-' "$T_OUT"; then
	t_pass "torus minhop: --deadlock finds a cycle (exit 1) and prints it"
else
	t_fail "torus minhop: --deadlock" "exit $T_RC: $(head -c 300 "$T_OUT")"
fi
for name in kary_4_3 xgft_2_4_4_1_4; do
	t_check "$name minhop: --sl --deadlock acyclic (exit 0)" 0 "$IBF" check \
		--topo "$W/$name.topo" --lfts "$W/$name.lfts" \
		--sl "$W/$name.sl" --deadlock
done
# SL 0 everywhere: every written line is "* DLID 0".
if awk '!/^#/ && !($1 == "*" && $3 == 0) { bad = 1 } END { exit bad }' \
	"$W/kary_4_3.sl"; then
	t_pass "minhop SL file: \"* DLID 0\" lines only"
else
	t_fail "minhop SL file" "$(head -3 "$W/kary_4_3.sl")"
fi

# ---- bad input and usage -------------------------------------------------
K=$W/kary_4_3
printf '* 1 0\n* 1 99\n' >"$W/bad.sl"
if t_expect_exit 2 "$IBF" check --topo "$K.topo" --lfts "$K.lfts" \
	--sl "$W/bad.sl" --deadlock && grep -q 'bad.sl:2:' "$T_ERR"; then
	t_pass "malformed SL file: exit 2, FILE:LINE"
else
	t_fail "malformed SL file" "exit $T_RC: $(t_errhead)"
fi
X=$W/xgft_2_4_4_1_4
if t_expect_exit 2 "$IBF" route --topo "$X.topo" --engine minhop --lmc 1 \
	-o "$W/x.lfts" && grep -q 'LMC 2' "$T_ERR"; then
	t_pass "--lmc against a topology with other LIDs: exit 2, says why"
else
	t_fail "--lmc conflict" "exit $T_RC: $(t_errhead)"
fi
t_check "--lmc equal to the topology's: exit 0" 0 "$IBF" route \
	--topo "$X.topo" --engine minhop --lmc 2 -o "$W/x.lfts"
if t_expect_exit 2 "$IBF" route --topo "$T.topo" --engine dmodk \
	-o "$W/d.lfts" && grep -q 'dmodk: ' "$T_ERR" && [ ! -e "$W/d.lfts" ]; then
	t_pass "engine refusal (dmodk on a torus): exit 2, named, no output"
else
	t_fail "dmodk on a torus" "exit $T_RC: $(t_errhead)"
fi
t_check "unknown engine: exit 2" 2 "$IBF" route --topo "$K.topo" \
	--engine ftree -o "$W/y.lfts"
t_check "missing -o: exit 2" 2 "$IBF" route --topo "$K.topo" --engine minhop
t_check "missing --engine: exit 2" 2 "$IBF" route --topo "$K.topo" -o "$W/y"
t_check "--density 0: exit 2" 2 "$IBF" route --topo "$K.topo" \
	--engine layered --density 0 -o "$W/y"
t_check "--method foo: exit 2" 2 "$IBF" route --topo "$K.topo" \
	--engine layered --method foo -o "$W/y"
t_check "--lmc 8: exit 2" 2 "$IBF" route --topo "$K.topo" --engine minhop \
	--lmc 8 -o "$W/y"
t_check "unknown option: exit 2" 2 "$IBF" route --topo "$K.topo" \
	--engine minhop -o "$W/y" --frob
t_check "stray argument: exit 2" 2 "$IBF" route --topo "$K.topo" \
	--engine minhop -o "$W/y" extra
t_check "missing topology file: exit 2" 2 "$IBF" route --topo "$W/nope" \
	--engine minhop -o "$W/y"
t_check "route --help: exit 0" 0 "$IBF" route --help

t_done
