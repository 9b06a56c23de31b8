#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Benchmark of `ibflow sim` (docs/benchmarks.md, "Packet-level simulation"):
#
#   speed   all-to-all of the 64 hosts of kary:4,3 (dmodk), 1 MiB blocks,
#           algorithms linear, pairwise and liquid: wall time of the
#           command (median of RUNS) and the simulator's packet-hops per
#           CPU second;
#   a2a     the all-to-all algorithms at BYTES per block on the fabrics of
#           tests/bench/bench_a2a_netns.sh: ft (xgft:2:4,4:1,2, dmodk, the
#           scattered 8 hosts), df (dragonfly:2,1,1, minhop, 6 hosts) and
#           the Swiss-T1 (swisst1 routes) with allocations A (1 1 1 1 2 2
#           0 0) and B (1 1 2 2 1 1 2 2); simulated time and its share of
#           the liquid bound.
#
#   tests/bench/bench_sim.sh [speed|a2a|all] [RUNS] [BYTES]
#
# The machine is shared: run it as a whole under the heavy-jobs lock,
#   flock /tmp/ibflow-heavy.lock tests/bench/bench_sim.sh ...
# Environment: BENCH_DIR (work files, default a temporary directory),
# IBFLOW (the CLI, default the build's).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/build-dir.sh
. "$REPO/scripts/build-dir.sh"
I=${IBFLOW:-$(ibf_build_dir "$REPO")/common/ibflow}
WHAT=${1:-all}
RUNS=${2:-3}
BYTES=${3:-1048576}
W=${BENCH_DIR:-$(mktemp -d /tmp/bench_sim.XXXXXX)}
mkdir -p "$W"
ALGS="liquid liquid-barrier pairwise linear linear-sync:2 bruck"

hosts_file() {   # hosts_file OUT NAME...
	local out=$1 h

	shift
	for h in "$@"; do echo "\"$h HCA-1\""; done >"$out"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# sim FABRIC ALG: prints "time_s bound_s cpu_s hops"
sim() {
	"$I" sim --topo "$W/$1.topo" --lfts "$W/$1.lfts" \
		--alltoall "$W/$1.hosts" --algorithm "$2" --bytes "$BYTES" \
		--json - --top 0 2>/dev/null |
		python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["time_s"], d["bound_s"], d["cpu_s"], d["packet_hops"])'
}

speed() {
	local alg r t0 t1 wall cpu hops

	"$I" gen kary:4,3 -o "$W/k43.topo"
	"$I" route --topo "$W/k43.topo" --engine dmodk -o "$W/k43.lfts" \
		>/dev/null
	# shellcheck disable=SC2046
	hosts_file "$W/k43.hosts" $(seq -f 'h%04g' 0 63)
	echo "| algorithm | wall time (median of $RUNS) | simulated time | packet-hops | packet-hops per CPU second |"
	echo "|---|---|---|---|---|"
	for alg in linear pairwise liquid; do
		: >"$W/wall" ; : >"$W/rate"
		for r in $(seq "$RUNS"); do
			t0=$(date +%s.%N)
			read -r t _ cpu hops < <(sim k43 "$alg")
			t1=$(date +%s.%N)
			echo "$t1 - $t0" | bc -l >>"$W/wall"
			echo "$hops / $cpu" | bc -l >>"$W/rate"
		done
		wall=$(median <"$W/wall")
		printf '| %s | %.2f s | %.3f ms | %d | %.3g |\n' "$alg" "$wall" \
			"$(echo "$t * 1000" | bc -l)" "$hops" "$(median <"$W/rate")"
	done
}

# t1_hosts ALLOC: the transmitting processor of each allocated node, as
# bench_a2a_netns.sh places them.
t1_hosts() {
	echo "$1" | awk '{ for (r = 0; r < 8; r++)
		for (q = 0; q < $(r + 1) && q < 4; q++)
			printf "h%04d ", 8 * r + 2 * q }'
}

a2a_fabrics() {
	"$I" gen xgft:2:4,4:1,2 -o "$W/ft.topo"
	"$I" route --topo "$W/ft.topo" --engine dmodk -o "$W/ft.lfts" >/dev/null
	hosts_file "$W/ft.hosts" h0001 h0002 h0004 h0005 h0009 h0010 h0014 h0015
	"$I" gen dragonfly:2,1,1 -o "$W/df.topo"
	"$I" route --topo "$W/df.topo" --engine minhop -o "$W/df.lfts" >/dev/null
	hosts_file "$W/df.hosts" h0000 h0001 h0002 h0003 h0004 h0005
	"$I" gen swisst1 -o "$W/t1A.topo"
	"$I" route --topo "$W/t1A.topo" --engine swisst1 -o "$W/t1A.lfts" \
		>/dev/null
	cp "$W/t1A.topo" "$W/t1B.topo"
	cp "$W/t1A.lfts" "$W/t1B.lfts"
	# shellcheck disable=SC2046
	hosts_file "$W/t1A.hosts" $(t1_hosts "1 1 1 1 2 2 0 0")
	# shellcheck disable=SC2046
	hosts_file "$W/t1B.hosts" $(t1_hosts "1 1 2 2 1 1 2 2")
}

a2a() {
	local fab alg line t b

	a2a_fabrics
	printf '| fabric |'
	for alg in $ALGS; do printf ' %s |' "$alg"; done
	printf ' bound |\n|---|'
	for alg in $ALGS; do printf -- '---|'; done
	printf -- '---|\n'
	for fab in ft df t1A t1B; do
		line="| $fab |"
		for alg in $ALGS; do
			read -r t b _ _ < <(sim "$fab" "$alg")
			line="$line $(printf '%.3f ms (%.0f %%)' \
				"$(echo "$t * 1000" | bc -l)" \
				"$(echo "100 * $b / $t" | bc -l)") |"
		done
		echo "$line $(printf '%.3f ms' "$(echo "$b * 1000" | bc -l)") |"
	done
}

echo "# bench_sim.sh $WHAT: $(date -u +%F), $(nproc) cores, runs $RUNS, bytes $BYTES"
case $WHAT in
speed) speed ;;
a2a) a2a ;;
all) speed; echo; a2a ;;
*) echo "$0: speed, a2a or all" >&2; exit 2 ;;
esac
