#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The liquid scheduling paper's Swiss-T1 experiment (002_cf0bd9686aaade6b,
# section 8.2, Figures 18-19) under `ibflow sim`: `ibflow gen swisst1`
# routed by `swisst1`, links at the paper's 86 MB/s (--rate 0.688), every
# allocated node's transmitting processor (h 8r+2q) sending BYTES to the
# receiving processor (h 8r+2q+1) of every allocated node, itself
# included (n² transfers).  Round robin (phase k: node i to node i + k)
# run two ways: in synchronous steps (pairwise) and each sender on its
# own (linear-sync:1: its next message when the previous has arrived);
# against liquid (releases) and liquid with a barrier per frame.
#
# Allocations (counts of nodes on switches t1-sw1 .. t1-sw8): for
# n = 8, 12, .., 32 nodes, "packed" (switches filled in turn), "spread"
# (one node per switch in turn) and two seeded random ones.
#
#   tests/bench/bench_sim_swisst1.sh [BYTES]       (default 2 MiB)
#   CLASSES=1 [NODES=LO-HI] tests/bench/bench_sim_swisst1.sh [BYTES]
#
# CLASSES=1: instead of the sampled allocations, the paper's 362 classes
# (the first allocation of each, from tests/bench/bench_swisst1.sh) at
# the paper's message sizes: round robin (pairwise and linear-sync:1) at
# BYTES, default 2 MiB (its Figure 18: "2MB"), liquid at LIQ_BYTES,
# default 5 MiB (Figure 19: "5MB"); lines "class n bound_rr_s
# t_pairwise t_linear-sync:1 bound_liquid_s t_liquid" in
# $BENCH_DIR/classes.dat, then a summary by node count; with PLOT=FILE.png
# the chart of all classes.  NODES=LO-HI simulates only the classes of
# LO..HI nodes and appends them to classes.dat (so that a run can be cut
# into several short holds of the lock, with one BENCH_DIR, which also
# keeps the class list); the summary and chart cover all of classes.dat
# (NODES=0-0: only they, nothing simulated).
#
# With PLOT=FILE.png (gnuplot) also a chart: per allocation (sorted by
# nodes, then liquid bound, as the paper's Figures 17-19) the bound and
# each algorithm's throughput in MB/s; the data beside it in FILE.dat.
#
# Output: a markdown table, throughput as % of the liquid bound.  CPU
# times suffer from other load: on a shared machine run one benchmark
# at a time.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/build-dir.sh
. "$REPO/scripts/build-dir.sh"
I=${IBFLOW:-$(ibf_build_dir "$REPO")/common/ibflow}
BYTES=${1:-2097152}
W=${BENCH_DIR:-$(mktemp -d /tmp/bench_sim_t1.XXXXXX)}
mkdir -p "$W"
ALGS="liquid liquid-barrier pairwise linear-sync:1"
: >"$W/t1.dat"

"$I" gen swisst1 -o "$W/t1.topo"
"$I" route --topo "$W/t1.topo" --engine swisst1 -o "$W/t1.lfts" >/dev/null

# allocations N: lines "KIND c1 .. c8"
allocations() {
	awk -v n="$1" 'BEGIN {
		srand(n)
		for (r = 0; r < 8; r++) c[r] = 0
		for (k = 0; k < n; k++) c[int(k / 4)]++
		printf "packed"; for (r = 0; r < 8; r++) printf " %d", c[r]; print ""
		for (r = 0; r < 8; r++) c[r] = 0
		for (k = 0; k < n; k++) c[k % 8]++
		printf "spread"; for (r = 0; r < 8; r++) printf " %d", c[r]; print ""
		for (t = 1; t <= 2; t++) {
			for (r = 0; r < 8; r++) c[r] = 0
			for (k = 0; k < n; k++) {
				do r = int(rand() * 8); while (c[r] == 4)
				c[r]++
			}
			printf "random%d", t
			for (r = 0; r < 8; r++) printf " %d", c[r]; print ""
		}
	}'
}

hosts() {   # hosts OFFSET c1..c8: processor 8r + 2q + OFFSET
	local off=$1

	shift
	echo "$@" | awk -v off="$off" '{ for (r = 0; r < 8; r++)
		for (q = 0; q < $(r + 1); q++)
			printf "\"h%04d HCA-1\"\n", 8 * r + 2 * q + off }'
}

# run ALG [BYTES]: "time_s bound_s"
run() {
	"$I" sim --topo "$W/t1.topo" \
		--lfts "$W/t1.lfts" --alltoall "$W/snd" --receivers "$W/rcv" \
		--algorithm "$1" --rate 0.688 --bytes "${2:-$BYTES}" --json - \
		--top 0 2>/dev/null |
		python3 -c 'import json, sys
d = json.load(sys.stdin); print(d["time_s"], d["bound_s"])'
}

# classes: the classes of bench_swisst1 (of NODES), simulated
classes() {
	local cls n alloc c t b line lo=2 hi=32 lb=${LIQ_BYTES:-5242880}

	if [ -n "${NODES:-}" ]; then
		lo=${NODES%-*} hi=${NODES#*-}
	else
		: >"$W/classes.dat"
	fi
	# the class list once per BENCH_DIR (the chunks of a run share it)
	[ -s "$W/classes.txt" ] ||
		sh "$REPO/tests/bench/bench_swisst1.sh" --runs 1 --limit 0.2 |
		sed -n 's/^ *\([0-9]*\)  n *\([0-9]*\)  alloc \([0-9]*\) .*/\1 \2 \3/p' \
		>"$W/classes.txt"
	while read -r cls n alloc; do
		if [ "$n" -lt 2 ] || [ "$n" -lt "$lo" ] || [ "$n" -gt "$hi" ]
		then
			continue
		fi
		c=$(echo "$alloc" | fold -w1 | tr '\n' ' ')
		# shellcheck disable=SC2086
		hosts 0 $c >"$W/snd"
		# shellcheck disable=SC2086
		hosts 1 $c >"$W/rcv"
		line="$cls $n"
		for a in pairwise linear-sync:1; do
			read -r t b < <(run "$a")
			[ "$a" = pairwise ] && line="$line $b"
			line="$line $t"
		done
		read -r t b < <(run liquid "$lb")
		echo "$line $b $t" >>"$W/classes.dat"
	done <"$W/classes.txt"
	echo "round robin at $BYTES bytes per pair, liquid at $lb"
	echo "| nodes | classes | liquid % of bound (min) | pairwise % (median) | linear-sync:1 % (median) | liquid / pairwise (median, max) |"
	echo "|---|---|---|---|---|---|"
	sort -n -k1,1 "$W/classes.dat" |
	awk -v rb="$BYTES" -v lb="$lb" '{ k = $2; n[k]++
		l = $6 / $7; p = $3 / $4; q = $3 / $5
		g = (lb / $7) / (rb / $4)
		if (!(k in lmin) || l < lmin[k]) lmin[k] = l
		P[k, n[k]] = p; Q[k, n[k]] = q; G[k, n[k]] = g }
	function med(A, k, m,   i, j, v, t) {
		for (i = 1; i <= m; i++) v[i] = A[k, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
	function mx(A, k, m,   i, v) {
		v = A[k, 1]; for (i = 2; i <= m; i++) if (A[k, i] > v) v = A[k, i]
		return v }
	END { for (k = 2; k <= 32; k++) if (k in n)
		printf "| %d | %d | %.0f %% | %.0f %% | %.0f %% | %.2f, %.2f |\n", k,
			n[k], 100 * lmin[k], 100 * med(P, k, n[k]),
			100 * med(Q, k, n[k]), med(G, k, n[k]), mx(G, k, n[k]) }'
	[ -z "${PLOT:-}" ] && exit 0
	# columns: class, nodes, MB/s of the liquid bound (at liquid's
	# size), liquid, pairwise, linear-sync:1
	sort -n -k1,1 "$W/classes.dat" |
	awk -v rb="$BYTES" -v lb="$lb" '{ r = $2 * $2 * rb / 1e6
		l = $2 * $2 * lb / 1e6
		printf "%d %d %g %g %g %g\n", $1, $2, l / $6, l / $7, r / $4,
			r / $5 }' >"${PLOT%.png}.dat"
	gnuplot <<GP
set terminal pngcairo size 1000,520 font "sans,11"
set output "$PLOT"
set title "Swiss-T1 under ibflow sim: the paper's 362 classes, 86 MB/s links\\nround robin at $BYTES bytes per pair (Figure 18), liquid at $lb (Figure 19)"
set xlabel "class (sorted by nodes, then liquid throughput: the paper's Figures 17-19)"
set ylabel "aggregate throughput (MB/s)"
set key top left
set grid ytics
plot "${PLOT%.png}.dat" using 1:3 with lines lc rgb "gray" lw 2 title "liquid bound", \\
     "" using 1:4 with points pt 6 ps 0.6 lc rgb "blue" title "liquid (releases)", \\
     "" using 1:5 with points pt 7 ps 0.5 lc rgb "black" title "round robin (pairwise steps)", \\
     "" using 1:6 with points pt 2 ps 0.5 lc rgb "red" title "round robin (each sender on its own)"
GP
	exit 0
}

echo "# bench_sim_swisst1.sh: $(date -u +%F), bytes $BYTES, 86 MB/s links"
[ -n "${CLASSES:-}" ] && classes
printf '| nodes | allocation | liquid bound |'
for a in $ALGS; do printf ' %s |' "$a"; done
echo ' liquid / pairwise |'
printf '|---|---|---|'
for a in $ALGS; do printf -- '---|'; done
echo '---|'
for n in 8 12 16 20 24 28 32; do
	allocations "$n" | sort -u -k2 | while read -r kind c; do
		# shellcheck disable=SC2086
		hosts 0 $c >"$W/snd"
		# shellcheck disable=SC2086
		hosts 1 $c >"$W/rcv"
		line="| $n | $kind ($c) |"
		tp=()
		first=
		for a in $ALGS; do
			read -r t b < <(run "$a")
			[ -n "$first" ] || {
				line="$line $(printf '%.0f MB/s' \
					"$(echo "$n * $n * $BYTES / $b / 1000000" | bc -l)") |"
				first=$t
			}
			[ "$a" = pairwise ] && rr=$t
			tp+=("$t")
			line="$line $(printf '%.0f %%' "$(echo "100 * $b / $t" | bc -l)") |"
		done
		echo "$line $(printf '%.2f' "$(echo "$rr / $first" | bc -l)") |"
		echo "$n $b ${tp[*]}" >>"$W/t1.dat"
	done
done
[ -z "${PLOT:-}" ] && exit 0
# columns: index, nodes, then bound and each algorithm in MB/s
sort -k1,1n -k2,2gr "$W/t1.dat" |
	awk -v by="$BYTES" '{ v = $1 * $1 * by / 1e6; printf "%d %d %g", NR,
		$1, v / $2; for (i = 3; i <= NF; i++) printf " %g", v / $i
		print "" }' >"${PLOT%.png}.dat"
gnuplot <<GP
set terminal pngcairo size 1000,520 font "sans,11"
set output "$PLOT"
set title "Swiss-T1 under ibflow sim: all-to-all of n nodes, $BYTES bytes per pair, 86 MB/s links"
set xlabel "allocation (sorted by nodes, then liquid bound)"
set ylabel "aggregate throughput (MB/s)"
set key top left
set grid ytics
plot "${PLOT%.png}.dat" using 1:3 with lines lc rgb "gray" lw 2 title "liquid bound", \\
     "" using 1:4 with points pt 6 lc rgb "blue" title "liquid (releases)", \\
     "" using 1:5 with points pt 4 lc rgb "dark-green" title "liquid + barrier", \\
     "" using 1:6 with points pt 7 lc rgb "black" title "round robin (pairwise steps)", \\
     "" using 1:7 with points pt 2 lc rgb "red" title "round robin (each sender on its own)"
GP
