#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# All-to-all with several ranks per host under credit flow control
# (`ibflow sim --alltoall HOSTS --ppn K`): node-aware liquid against
# linear, pairwise and Bruck, as multiples of the liquid bound, on
# 64 hosts of the fabrics of the plan-scale table (docs/benchmarks.md):
#
#   k43   kary:4,3 under dmodk, all 64 hosts in routing order
#   pgft  pgft:3:16,8,8:1,8,8:1,1,1 under dmodk, a random 64 of 1,024
#   df    dragonfly:8,4,4 under layered (LMC 2, its SLs), a random 64
#   sf    slimfly:7:11 under layered (LMC 2, its SLs), a random 64
#
#   tests/bench/bench_sim_ppn.sh [CASES]
#
# CASES: words FABRIC:BYTES:PPN[:MTU] (default: every fabric at 65536
# with ppn 1, 4, 16 and 1048576 with ppn 1, 4; PPN "mixed": 1-8 ranks on
# the hosts in turn; MTU: payload per packet, default 2048, the fabric
# then named FABRIC-mtuMTU in the table and the chart), or "plot" for
# the chart alone.
# Prints a markdown table row per case; with PLOT=FILE.png also a gnuplot
# chart of every case run in BENCH_DIR (raw.txt there; cpu.txt: the
# simulator's CPU seconds, events and packet hops of every run).
# Simulated times are deterministic; run it under the heavy-jobs lock:
#   flock /tmp/ibflow-heavy.lock tests/bench/bench_sim_ppn.sh
# Environment: BENCH_DIR (work files, default a temporary directory),
# IBFLOW (the CLI, default the build's), ALGS (default "liquid linear
# pairwise bruck").
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/build-dir.sh
. "$REPO/scripts/build-dir.sh"
I=${IBFLOW:-$(ibf_build_dir "$REPO")/common/ibflow}
W=${BENCH_DIR:-$(mktemp -d /tmp/bench_sim_ppn.XXXXXX)}
ALGS=${ALGS:-liquid linear pairwise bruck}
mkdir -p "$W"

# pick N SEED: N of the topology's hosts (stdin: the topology), seeded.
pick() {
	python3 -c '
import random, re, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
hosts = [m.group(1) for m in re.finditer(r"^Ca\s.*#\s*\"([^\"]+)\"", sys.stdin.read(), re.M)]
if n < len(hosts):
    hosts = random.Random(seed).sample(hosts, n)
for h in hosts:
    print("\"%s\"" % h)' "$@"
}

fabric() {   # fabric NAME: topology, LFTs, SLs, hosts in $W/NAME.*
	local name=$1 spec engine lmc=0

	[ -f "$W/$name.hosts" ] && return 0
	case $name in
	k43) spec=kary:4,3 engine=dmodk ;;
	pgft) spec=pgft:3:16,8,8:1,8,8:1,1,1 engine=dmodk ;;
	df) spec=dragonfly:8,4,4 engine=layered lmc=2 ;;
	sf) spec=slimfly:7:11 engine=layered lmc=2 ;;
	*) echo "unknown fabric $name" >&2; return 2 ;;
	esac
	"$I" gen "$spec" --lmc "$lmc" -o "$W/$name.topo"
	if [ "$engine" = layered ]; then
		"$I" route --topo "$W/$name.topo" --engine layered \
			--max-vls 15 --sl-out "$W/$name.sl" \
			-o "$W/$name.lfts" >/dev/null
	else
		"$I" route --topo "$W/$name.topo" --engine "$engine" \
			-o "$W/$name.lfts" >/dev/null
	fi
	if [ "$name" = k43 ]; then
		pick 64 0 <"$W/$name.topo" >"$W/$name.hosts"
	else
		pick 64 1 <"$W/$name.topo" >"$W/$name.hosts"
	fi
}

# sim NAME BYTES PPN ALG [MTU]: prints "time_s bound_s cpu_s events
# packet_hops".  PPN "mixed": host i of the list gets 1 + (i mod 8)
# ranks (a line per rank).
sim() {
	local sl=() hosts=$W/$1.hosts ppn=$3 mtu=${5:-2048}

	[ -f "$W/$1.sl" ] && sl=(--sl "$W/$1.sl" --max-vls 15)
	if [ "$ppn" = mixed ]; then
		hosts=$W/$1.mixed.hosts
		awk '{ for (r = 0; r <= (NR - 1) % 8; r++) print }' \
			"$W/$1.hosts" >"$hosts"
		ppn=1
	fi
	"$I" sim --topo "$W/$1.topo" --lfts "$W/$1.lfts" "${sl[@]}" \
		--alltoall "$hosts" --ppn "$ppn" --algorithm "$4" \
		--bytes "$2" --mtu "$mtu" --json - --top 0 2>/dev/null |
		python3 -c '
import json, re, sys
# the summary is the first lines; a million flows follow: skip them
# unparsed (json.load of them takes gigabytes)
d = {}
for line in sys.stdin:
    m = re.match(r"^  \"(\w+)\": (.*?),?$", line)
    if m and m.group(1) in ("cycle", "flows"):
        break
    if m:
        d[m.group(1)] = json.loads(m.group(2))
while sys.stdin.read(1 << 20):
    pass
if d.get("deadlocked") or d.get("stalled"):
    sys.exit("deadlocked or stalled")
print(d["time_s"], d["bound_s"], d["cpu_s"], d["events"],
      d["packet_hops"])'
}

CASES=${1:-}
[ "$CASES" = plot ] && CASES=" "
if [ -z "$CASES" ]; then
	for f in k43 pgft df sf; do
		for p in 1 4 16; do CASES+=" $f:65536:$p"; done
		for p in 1 4; do CASES+=" $f:1048576:$p"; done
	done
fi

echo "| fabric | block | ranks per host | bound | ${ALGS// / | } | liquid vs best other |"
echo "|---|---|---|---|$(for _ in $ALGS; do printf -- '---|'; done)---|"
cells=""
for c in $CASES; do
	IFS=: read -r name bytes ppn mtu <<<"$c"
	fabric "$name"
	label=$name
	[ -n "$mtu" ] && [ "$mtu" != 2048 ] && label=$name-mtu$mtu
	row="| $label | $bytes | $ppn |"
	best=""
	liq=""
	bound=""
	for alg in $ALGS; do
		read -r t b cpu ev hops < <(sim "$name" "$bytes" "$ppn" "$alg" \
			"${mtu:-2048}")
		bound=$b
		x=$(python3 -c "print('%.3f' % ($t / $b))")
		cells+=" ${x}x |"
		if [ "$alg" = liquid ]; then
			liq=$t
		elif [ -z "$best" ] || python3 -c "import sys; sys.exit(not $t < $best)"; then
			best=$t
		fi
		echo "$label $bytes $ppn $alg $t $b" >>"$W/raw.txt"
		echo "$label $bytes $ppn $alg $cpu $ev $hops" >>"$W/cpu.txt"
	done
	vs=$( [ -n "$liq" ] && [ -n "$best" ] &&
		python3 -c "print('%.3f' % ($liq / $best))" || echo "-")
	printf '%s %.3f ms |%s %s |\n' "$row" \
		"$(python3 -c "print($bound * 1e3)")" "$cells" "$vs"
	cells=""
done

if [ -n "${PLOT:-}" ]; then
	python3 - "$W/raw.txt" "$W/plot.dat" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    name, b, p, alg, t, bound = line.split()
    rows.setdefault((name, b, p), {})[alg] = float(t) / float(bound)
with open(sys.argv[2], "w") as out:
    for (name, b, p), r in rows.items():
        kib = int(b) // 1024
        size = "%dM" % (kib // 1024) if kib % 1024 == 0 else "%dK" % kib
        ppn = "1-8" if p == "mixed" else p
        out.write('"%s %s ppn%s" %s\n' % (name, size, ppn, " ".join(
            "%.4f" % r.get(a, float("nan"))
            for a in ("liquid", "linear", "pairwise", "bruck"))))
PY
	gnuplot <<GP
set terminal pngcairo size 1600,560
set output "$PLOT"
set style data histogram
set style histogram cluster gap 1
set style fill solid border -1
set ylabel "completion time / liquid bound"
set logscale y 2
set yrange [0.9:*]
set xtics rotate by -45
set bmargin 7
set rmargin 6
set key top left
plot "$W/plot.dat" using 2:xtic(1) title "liquid (node-aware)", \
     "" using 3 title "linear", "" using 4 title "pairwise", \
     "" using 5 title "bruck"
GP
fi
