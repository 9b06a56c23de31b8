#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Compare two builds of the `ibflow` CLI by instructions executed
# (valgrind --tool=callgrind, total Ir): unlike wall time, the count does
# not depend on what else the machine is doing, so a refactoring can be
# checked for "no slower" on a shared, loaded machine.
#
#   tests/bench/compare_ir.sh OLD_BUILD_DIR NEW_BUILD_DIR [WORKDIR]
#
# (configured build trees; their real binaries are run, not libtool's
# wrapper scripts, so the shell is not counted)
#
# Runs the same commands with both (route, check, eval, liquid,
# probe-plan on generated fat trees) and prints one table row per case:
# Ir old, Ir new, new/old.  Outputs of the two builds are compared too
# (they must be byte-identical but for timings).
set -euo pipefail

oldb=$(cd "$1" && pwd) newb=$(cd "$2" && pwd)
work=${3:-$(mktemp -d /tmp/ibflow-ir.XXXXXX)}
old=$work/ibflow-old new=$work/ibflow-new
mkdir -p "$work"
cd "$work"
for v in old new; do
	b=${v}b
	printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/common/.libs exec %s/common/.libs/ibflow "$@"\n' \
		"${!b}" "${!b}" >"$work/ibflow-$v"
	chmod +x "$work/ibflow-$v"
done

ir() { # ir LABEL IBFLOW ARGS... : total instructions of one run
	local label=$1 bin=$2
	shift 2
	local dir
	dir=$(sed -n 's/^LD_LIBRARY_PATH=\([^ ]*\) .*/\1/p' "$bin")
	LD_LIBRARY_PATH=$dir valgrind --tool=callgrind \
		--callgrind-out-file="$work/cg.$label" "$dir/ibflow" "$@" \
		>"$work/out.$label" 2>&1 || true
	sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/out.$label"
}

"$new" gen xgft:3:12,12,24:1,12,12 -o big.topo
"$new" gen kary:4,3 -o k43.topo
"$new" route --topo k43.topo --engine dmodk -o k43.lfts
grep '^Ca' k43.topo | sed 's/.*# "\(.*\)".*/\1/' >k43.hosts
head -48 k43.hosts >k43.half

cases=(
	"route-dmodk-3456|route --topo big.topo --engine dmodk -o OUT.lfts"
	"route-uapr-3456|route --topo big.topo --engine uapr -o OUT.lfts"
	"check-3456|check --topo big.topo --lfts BIG.lfts"
	"eval-perm-opt|eval --topo k43.topo --lfts k43.lfts --patterns perm:20,randn:4:5 --opt --json OUT.json"
	"liquid-a2a-48|liquid --topo k43.topo --lfts k43.lfts --alltoall k43.half --json OUT.json"
	"probe-plan-64|probe-plan --topo k43.topo --lfts k43.lfts --hosts k43.hosts --json OUT.json"
)
"$new" route --topo big.topo --engine dmodk -o BIG.lfts
printf '| case | Ir old | Ir new | new/old |\n|---|---|---|---|\n'
for c in "${cases[@]}"; do
	name=${c%%|*}
	args=${c#*|}
	# shellcheck disable=SC2086
	a=$(ir "$name.old" "$old" ${args//OUT/$name.old})
	# shellcheck disable=SC2086
	b=$(ir "$name.new" "$new" ${args//OUT/$name.new})
	printf '| %s | %s | %s | %s |\n' "$name" "$a" "$b" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')"
done
