#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The Swiss-T1 figure of docs/benchmarks.md: runs bench_swisst1 on the 362
# allocation classes and plots, per class (sorted by nodes, then liquid
# throughput, as the paper's Figures 17-19), the liquid throughput, the
# schedule's and the round-robin schedule's throughput (frames at 86 MB/s
# per link, the Swiss-T1's), and the time to compute the schedule.
#   tests/bench/swisst1_plot.sh [--runs N] [--data FILE.dat]
# --data plots an existing bench_swisst1 --out file instead of running it.
# Writes docs/swisst1.dat and docs/swisst1.png (gnuplot, package
# gnuplot-nox).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=5
data=
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--data) data=$2; shift 2 ;;
	*) echo "usage: swisst1_plot.sh [--runs N] [--data FILE.dat]" >&2
	   exit 2 ;;
	esac
done
command -v gnuplot >/dev/null || {
	echo "swisst1_plot.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2
	exit 2
}
if [ -z "$data" ]; then
	sh "$top/tests/bench/bench_swisst1.sh" --runs "$runs" \
		--out "$top/docs/swisst1.dat.tmp"
	mv "$top/docs/swisst1.dat.tmp" "$top/docs/swisst1.dat"
elif ! [ "$data" -ef "$top/docs/swisst1.dat" ]; then
	cp "$data" "$top/docs/swisst1.dat"
fi
# Columns: 1 class, 2 nodes, 3 duration, 4 transfers/duration, 5 round
# robin frames, 6 frames, 7 liquid, 8 exhausted, 9 s (default call),
# 10 s (search alone), 11-12 the search's verdict.
gnuplot <<EOF
set terminal pngcairo size 1000,1000 font "sans,11"
set output "$top/docs/swisst1.png.tmp"
set multiplot layout 2,1
set title "Swiss-T1: 362 allocation classes (sorted by nodes, then liquid throughput)"
set xlabel "class"
set ylabel "aggregate throughput (MB/s)"
set xrange [-2:363]
set yrange [0:*]
set key top left
mbs = 86.0
plot "$top/docs/swisst1.dat" using 1:(\$2*\$2*mbs/\$3) with lines lw 3 lc rgb "#aaaaaa" title "liquid throughput (bound)", \
     "" using 1:(\$2*\$2*mbs/\$6) with points pt 6 ps 0.6 lc rgb "#1f77b4" title "our schedule", \
     "" using 1:(\$2*\$2*mbs/\$5) with points pt 7 ps 0.4 lc rgb "black" title "round robin (first-fit phases)"
set title "time to compute the schedule (median of runs, one core)"
set ylabel "seconds"
set logscale y
set yrange [1e-6:1]
set format y "10^{%L}"
plot "$top/docs/swisst1.dat" using 1:9 with points pt 7 ps 0.4 lc rgb "#1f77b4" title "default call (cheap schedules, then search)", \
     "" using 1:10 with points pt 6 ps 0.5 lc rgb "#d62728" title "exact search alone", \
     0.1 with lines dt 2 lc rgb "black" title "0.1 s"
unset multiplot
EOF
mv "$top/docs/swisst1.png.tmp" "$top/docs/swisst1.png"
echo "wrote docs/swisst1.dat and docs/swisst1.png"
