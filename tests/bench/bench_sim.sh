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
#           the liquid bound;
#   engines the routing engines of `ibflow eval` (dmodk, uapr, minhop,
#           layered with its SLs) on the 2:1 oversubscribed 3-level fat
#           tree xgft:3:4,4,4:1,2,2 (64 hosts, LMC 2 for layered), seed-004
#           patterns perm, bisect, randn:2, 2dnn: the simulated aggregate
#           rate while every flow still runs against the MMF aggregate.
#
#   tests/bench/bench_sim.sh [speed|a2a|engines|all] [RUNS] [BYTES]
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
	local alg t0 t1 wall cpu hops

	"$I" gen kary:4,3 -o "$W/k43.topo"
	"$I" route --topo "$W/k43.topo" --engine dmodk -o "$W/k43.lfts" \
		>/dev/null
	# shellcheck disable=SC2046
	hosts_file "$W/k43.hosts" $(seq -f 'h%04g' 0 63)
	echo "| algorithm | wall time (median of $RUNS) | simulated time | packet-hops | packet-hops per CPU second |"
	echo "|---|---|---|---|---|"
	for alg in linear pairwise liquid; do
		: >"$W/wall" ; : >"$W/rate"
		for _ in $(seq "$RUNS"); do
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

# engine_run TOPO LFTS PATTERN [SL]: "sim_aggregate mmf_aggregate"
engine_run() {
	"$I" sim --topo "$1" --lfts "$2" --pattern "$3" --bytes "$BYTES" \
		${4:+--sl "$4"} --json - --top 0 2>/dev/null |
		python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sum(f["steady_gbps"] for f in d["flows"]),
      sum(f["mmf_gbps"] for f in d["flows"]))'
}

engines() {
	local e p sim mmf line spec=xgft:3:4,4,4:1,2,2
	local pats="perm bisect randn:2 2dnn"

	"$I" gen "$spec" -o "$W/pg.topo"
	"$I" gen "$spec" --lmc 2 -o "$W/pg2.topo"
	for e in dmodk uapr minhop; do
		"$I" route --topo "$W/pg.topo" --engine "$e" \
			-o "$W/pg.$e.lfts" >/dev/null
	done
	"$I" route --topo "$W/pg2.topo" --engine layered \
		--sl-out "$W/pg2.sl" -o "$W/pg2.layered.lfts" >/dev/null
	printf '| engine |'
	for p in $pats; do printf ' %s |' "$p"; done
	printf '\n|---|'
	for p in $pats; do printf -- '---|'; done
	echo
	for e in dmodk uapr minhop layered; do
		line="| $e |"
		for p in $pats; do
			if [ "$e" = layered ]; then
				read -r sim mmf < <(engine_run "$W/pg2.topo" \
					"$W/pg2.layered.lfts" "$p" "$W/pg2.sl")
			else
				read -r sim mmf < <(engine_run "$W/pg.topo" \
					"$W/pg.$e.lfts" "$p")
			fi
			line="$line $(printf '%.0f / %.0f Gb/s (%.0f %%)' "$sim" \
				"$mmf" "$(echo "100 * $sim / $mmf" | bc -l)") |"
		done
		echo "$line"
	done
}

echo "# bench_sim.sh $WHAT: $(date -u +%F), $(nproc) cores, runs $RUNS, bytes $BYTES"
case $WHAT in
speed) speed ;;
a2a) a2a ;;
engines) engines ;;
all) speed; echo; a2a; echo; engines ;;
*) echo "$0: speed, a2a, engines or all" >&2; exit 2 ;;
esac
