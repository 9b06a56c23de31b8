# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# All-to-all on the emulated fabric (docs/benchmarks.md): aggregate
# bandwidth of 1 MB blocks by algorithm, fat tree and Dragonfly, beside
# the liquid bound.  gnuplot docs/figures/a2a-netns.gp (from the top of
# the repository) writes docs/figures/a2a-netns.svg from a2a-netns.dat.
set terminal svg size 760,400 font "sans,11"
set output "docs/figures/a2a-netns.svg"
set title "All-to-all, 1 MB blocks, 20 Mbit/s links (netns-fabric), median"
set ylabel "aggregate MB/s"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top right horizontal
set grid ytics
set yrange [0:25]
set xtics nomirror rotate by -30
plot "docs/figures/a2a-netns.dat" using 2:xtic(1) title "fat tree, 8 of 16 hosts", \
     "" using 3 title "Dragonfly, 6 hosts"
