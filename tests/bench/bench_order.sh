#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# What launching ranks in the routing's order (`ibflow order`,
# docs/order.md) changes, for jobs in the order a scheduler or a user
# gives their nodes.
#
#   tests/bench/bench_order.sh eval [SEEDS]
#       D-mod-K tables of each fabric in ORDER_BENCH_SPECS (default the
#       64-host xgft:3:4,4,4:1,4,4 and the 1,024-host
#       xgft:3:8,8,16:1,8,8), each also "renamed": its NodeDescriptions
#       shuffled among the hosts (seed 1001, apart from the job seeds:
#       Python's generator seeded alike once made a job's random order
#       follow the renamed cabling), so that names no longer follow it.  For each seed (default 1 2 3 4 5) a random third of the
#       hosts is the job, ranked three ways: job (the seeded sample's own
#       random order), name (sorted by name, as Slurm lists nodes) and
#       ibflow (`ibflow order`).  `ibflow eval --patterns shift,alltoall
#       --map` gives each ranking's LFTI index and worst link load; the
#       table has the medians over the seeds.
#   tests/bench/bench_order.sh netns job|ibflow [RUNS]
#       A pairwise all-to-all (libibflow_mpi, UCX_IBFLOW_ALLTOALL=pairwise:
#       step k sends to rank + k, a shift per step) on the emulated fabric
#       of tests/bench/bench_a2a_netns.sh ft (xgft:2:4,4:1,2, D-mod-K,
#       links 20mbit) with all 16 hosts, ranked in a seeded shuffle (job)
#       or in `ibflow order`'s order (ibflow).  Run it on a
#       quiet machine (one benchmark at a time).  Raw files in
#       $ORDER_BENCH_OUT/netns-job, netns-ibflow.
#   tests/bench/bench_order.sh table
#       the netns table from the raw files (median of the runs).
# ORDER_BENCH_OUT: work directory (default /tmp/ibflow-bench-order).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD_DIR:-$REPO/build}
I=$B/common/ibflow
OUT=${ORDER_BENCH_OUT:-/tmp/ibflow-bench-order}
SPECS=${ORDER_BENCH_SPECS:-xgft:3:4,4,4:1,4,4 xgft:3:8,8,16:1,8,8}
mkdir -p "$OUT"

# rename IN SEED: NodeDescriptions of the CAs shuffled among them.
rename() {
	python3 - "$1" "$2" <<'EOF'
import random, re, sys
lines = open(sys.argv[1]).read().split('\n')
idx = [i for i, l in enumerate(lines) if re.match(r'^Ca\s', l)]
descs = [re.search(r'# "([^"]*)"', lines[i]).group(1) for i in idx]
random.Random(int(sys.argv[2])).shuffle(descs)
for i, d in zip(idx, descs):
    lines[i] = re.sub(r'# "[^"]*"', '# "%s"' % d, lines[i])
sys.stdout.write('\n'.join(lines))
EOF
}

# job DIR SEED: DIR/job (a random third in the sample's order), DIR/name
# (the same sorted), DIR/ibflow (ibflow order), as host lists.
job() {
	local d=$1 seed=$2

	grep -o '^Ca.*# "[^"]*"' "$d/topo" | sed 's/.*# "\([^ "]*\).*/\1/' |
		sort >"$d/all"
	python3 -c '
import random, sys
names = [l.strip() for l in open(sys.argv[1])]
print("\n".join(random.Random(int(sys.argv[2])).sample(names, len(names) // 3)))' \
		"$d/all" "$seed" >"$d/job.names"
	sort "$d/job.names" >"$d/name.names"
	"$I" order --topo "$d/topo" --lfts "$d/lfts" --format slurm \
		"$d/job.names" >"$d/ibflow.names" || exit 1
	for o in job name ibflow; do
		sed 's/$/ HCA-1/' "$d/$o.names" >"$d/$o"
	done
}

run_eval() {
	local seeds=${1:-1 2 3 4 5} spec variant seed o d

	for spec in $SPECS; do
		for variant in as-generated renamed; do
			d=$OUT/$(echo "$spec-$variant" | tr ':,' '_-')
			mkdir -p "$d"
			"$I" gen "$spec" -o "$d/topo0" || exit 1
			if [ $variant = renamed ]; then
				rename "$d/topo0" 1001 >"$d/topo"
			else
				cp "$d/topo0" "$d/topo"
			fi
			"$I" route --topo "$d/topo" --engine dmodk -o "$d/lfts" \
				>/dev/null || exit 1
			for seed in $seeds; do
				job "$d" "$seed"
				for o in job name ibflow; do
					"$I" eval --topo "$d/topo" --lfts "$d/lfts" \
						--patterns shift,alltoall --map "$d/$o" |
					awk -v p="$spec $variant $seed $o" \
						'NR > 1 { print p, $2, $4, $7 }'
				done
			done
		done
	done >"$OUT/eval.raw"
	eval_table
}

# Medians over seeds of index and worst load per fabric/variant/order/pattern.
eval_table() {
	echo "# ibflow eval, D-mod-K, a random third of the hosts; median over seeds ($(awk '{ print $3 }' "$OUT/eval.raw" | sort -u | tr '\n' ' '))"
	echo "# fabric names pattern | index: job name ibflow | max_load: job name ibflow"
	python3 - "$OUT/eval.raw" <<'EOF'
import statistics, sys
rows = {}
for ln in open(sys.argv[1]):
    spec, var, seed, order, pat, idx, load = ln.split()
    rows.setdefault((spec, var, pat), {}).setdefault(order, []).append(
        (float(idx), float(load)))
for (spec, var, pat), by in rows.items():
    med = lambda o, k: statistics.median(v[k] for v in by[o])
    print('%s %s %s | %s | %s' % (
        spec, var, pat,
        ' '.join('%.4f' % med(o, 0) for o in ('job', 'name', 'ibflow')),
        ' '.join('%g' % med(o, 1) for o in ('job', 'name', 'ibflow'))))
EOF
}

# netns ORDER RUNS: bench_a2a_netns.sh ft, pairwise only, all 16 hosts.
run_netns() {
	local order=$1 runs=${2:-3} d=$OUT/netns hosts

	mkdir -p "$d"
	"$I" gen xgft:2:4,4:1,2 -o "$d/topo" || exit 1
	"$I" route --topo "$d/topo" --engine dmodk -o "$d/lfts" >/dev/null ||
		exit 1
	printf 'h%04d\n' $(seq 0 15) | python3 -c '
import random, sys
names = [l.strip() for l in sys.stdin]
random.Random(1).shuffle(names)
print("\n".join(names))' >"$d/job.names"
	"$I" order --topo "$d/topo" --lfts "$d/lfts" --format slurm \
		"$d/job.names" >"$d/ibflow.names" || exit 1
	hosts=$(tr '\n' ' ' <"$d/$order.names")
	A2A_BENCH_OUT=$OUT/netns-$order A2A_BENCH_ALGS=pairwise \
	A2A_BENCH_HOSTS="${hosts% }" \
		bash "$REPO/tests/bench/bench_a2a_netns.sh" ft 20mbit \
		"65536 262144" 3 "$runs"
}

netns_table() {
	local o

	for o in job ibflow; do
		[ -d "$OUT/netns-$o" ] || continue
		echo "# order $o: $(tr '\n' ' ' <"$OUT/netns/$o.names")"
		A2A_BENCH_OUT=$OUT/netns-$o A2A_BENCH_ALGS=pairwise \
		A2A_BENCH_TABLE=1 \
		A2A_BENCH_HOSTS="$(tr '\n' ' ' <"$OUT/netns/$o.names")" \
			bash "$REPO/tests/bench/bench_a2a_netns.sh" ft 20mbit \
			"65536 262144" 3 "${1:-3}" | grep -v '^# raw files'
	done
}

case ${1:-} in
eval) run_eval "${2:-1 2 3 4 5}" ;;
netns) run_netns "${2:?job or ibflow}" "${3:-3}" ;;
table) netns_table "${2:-3}" ;;
*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
