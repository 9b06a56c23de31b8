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
#   engines the routing engines on the 2:1 oversubscribed 3-level fat tree
#           xgft:3:4,4,4:1,2,2 (64 hosts), seed-004 patterns perm, bisect,
#           randn:2, 2dnn, BYTES per flow: ibflow's (`ibflow route`
#           offline: dmodk, uapr, minhop; layered at LMC 2 with its SLs)
#           and OpenSM's (OSM_ENGINES, default "ftree dfsssp minhop
#           updn": real OpenSM on ibsim, one sweep each, the fabric and
#           tables read back with ibnetdiscover and dump_lfts as
#           scripts/demo.sh does; dfsssp's path SLs read back from the
#           SA, one PathRecord per host pair; dfsssp in three rows: its
#           SLs, all on SL 0, its SLs with 4 KiB per VL (the same buffer
#           per port as one VL of 32 KiB)).  Ranks in D-mod-K's host
#           order for every routing.  Three tables: the simulated
#           aggregate rate while every flow still runs against the MMF
#           aggregate of the same routes; the aggregate over the
#           completion time against the liquid bound's; `ibflow eval`'s
#           index.  Needs ibsim, opensm, infiniband-diags (OpenSM rows are
#           left out, with a note, without them).
#
#   tests/bench/bench_sim.sh [speed|a2a|engines|all] [RUNS] [BYTES]
#
# CPU times suffer from other load: on a shared machine run one
# benchmark at a time.
# Environment: BENCH_DIR (work files, default a temporary directory),
# IBFLOW (the CLI, default the build's), OSM_ENGINES (above).
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

# engine_run TOPO LFTS SL BUFFER PATTERN (SL, BUFFER may be empty):
# "steady mmf done bound", aggregates in Gb/s: the simulated rate while
# every flow runs, the MMF rate of the same routes, all bytes over the
# completion time and over the liquid bound; "- - - -" if none completed.
engine_run() {
	"$I" sim --topo "$1" --lfts "$2" ${3:+--sl "$3"} ${4:+--buffer "$4"} \
		--pattern "$5" --map "$W/order" --bytes "$BYTES" --json - \
		--top 0 2>/dev/null |
		python3 -c 'import json, sys
try:
    d = json.load(sys.stdin)
    bits = sum(f["bytes"] for f in d["flows"]) * 8 / 1e9
    print(sum(f["steady_gbps"] for f in d["flows"]),
          sum(f["mmf_gbps"] for f in d["flows"]),
          bits / d["time_s"], bits / d["bound_s"])
except Exception:
    print("- - - -")'
}

# eval_index TOPO LFTS: `ibflow eval`'s index of each of $PATS, in order.
eval_index() {
	"$I" eval --topo "$1" --lfts "$2" --patterns "${PATS// /,}" \
		--map "$W/order" --json - 2>/dev/null |
		python3 -c 'import json, sys
print(" ".join("%.3f" % p["index"] for p in json.load(sys.stdin)["patterns"]))'
}

# osm_serve_sls ENGINE RUN: OpenSM routes and stays master (no -o) so
# that its SA answers; the fabric and tables are read back, then the SL
# of every host pair, one PathRecord query each (ibsim's SA transport
# carries a single MAD, no RMPP: a query for all paths returns the first
# three records only), into RUN/sl.txt as "SLID DLID SL" lines.
osm_serve_sls() {
	local e=$1 run=$2 pid s d sl rc=1

	IBSIM_SOCKNAME=$IBS_SOCK LD_PRELOAD=$IBS_UMAD2SIM OSM_TMP_DIR=$run \
		OSM_CACHE_DIR=$run timeout -k 5 900 opensm -R "$e" \
		-f "$run/osm.log" -s 0 -D 0x43 -d2 -l 0 >"$run/opensm.out" 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		grep -q 'SUBNET UP' "$run/osm.log" 2>/dev/null && break
		sleep 0.1
	done
	if grep -q 'SUBNET UP' "$run/osm.log" &&
	   ibs_discover "$run/ibnetdiscover.out" &&
	   ibs_dump_lfts "$run/dump_lfts.out"; then
		awk '/^Ca/ { ca = 1; next } /^(Switch|Rt)/ { ca = 0 }
		ca && /^\[/ && match($0, /# lid [0-9]+/) {
			print substr($0, RSTART + 6, RLENGTH - 6) }' \
			"$run/ibnetdiscover.out" >"$run/lids"
		echo "# $e's path SLs (saquery PathRecord per host pair)" \
			>"$run/sl.txt"
		rc=0
		while read -r s; do
			while read -r d; do
				[ "$s" = "$d" ] && continue
				sl=$(ibs_run saquery -p --src-to-dst "$s:$d" \
					2>/dev/null | sed -n 's/^[[:space:]]*sl\.*0x//p')
				[ -n "$sl" ] || { rc=1; break 2; }
				echo "$s $d $((16#$sl))" >>"$run/sl.txt"
			done <"$run/lids"
		done <"$run/lids"
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	IBS_ENGINE_USED=$(ibs_engine_used "$run/osm.log")
	return "$rc"
}

# osm_tables ENGINE: real OpenSM routes $W/pg.net on ibsim; prints
# "TOPO LFTS SL ENGINE_USED" (SL "" but for dfsssp) or nothing.
osm_tables() {
	local e=$1 run=$W/osm-$1 ok=yes sl=

	trap ibs_stop_all EXIT    # this runs in a subshell of its own
	mkdir -p "$run"
	ibs_start "$W/pg.net" "$run" >&2 || return 0
	if [ "$e" = dfsssp ]; then
		osm_serve_sls "$e" "$run" || ok=no
		sl=$run/sl.txt
	elif ! ibs_sweep "$run" 0 -R "$e" ||
	     ! ibs_discover "$run/ibnetdiscover.out" ||
	     ! ibs_dump_lfts "$run/dump_lfts.out"; then
		ok=no
	fi
	ibs_stop
	if [ "$ok" = no ] || [ -z "$IBS_ENGINE_USED" ] ||
	   ! "$I" check --topo "$run/ibnetdiscover.out" \
		--lfts "$run/dump_lfts.out" >"$run/check.txt" 2>&1; then
		echo "osm $e: FAILED, see $run" >&2
		return 0
	fi
	echo "$run/ibnetdiscover.out $run/dump_lfts.out ${sl:--} $IBS_ENGINE_USED"
}

# engine_rows: lines "NAME TOPO LFTS SL BUFFER" ("-" for none) in $W/rows
engine_rows() {
	local e spec=xgft:3:4,4,4:1,2,2 topo lfts sl used why

	"$I" gen "$spec" -o "$W/pg.topo"
	"$I" gen "$spec" --lmc 2 -o "$W/pg2.topo"
	"$I" route --topo "$W/pg.topo" --engine dmodk -o "$W/pg.dmodk.lfts" \
		--order-out "$W/order" >/dev/null
	for e in uapr minhop; do
		"$I" route --topo "$W/pg.topo" --engine "$e" \
			-o "$W/pg.$e.lfts" >/dev/null
	done
	"$I" route --topo "$W/pg2.topo" --engine layered \
		--sl-out "$W/pg2.sl" -o "$W/pg2.layered.lfts" >/dev/null
	{
		for e in dmodk uapr minhop; do
			echo "$e $W/pg.topo $W/pg.$e.lfts - -"
		done
		echo "layered $W/pg2.topo $W/pg2.layered.lfts $W/pg2.sl -"
	} >"$W/rows"
	# shellcheck source=../../scripts/ibsim-session.sh
	. "$REPO/scripts/ibsim-session.sh"
	trap ibs_stop_all EXIT
	if ! why=$(ibs_have_tools); then
		echo "OpenSM's engines left out: $why" >&2
		return 0
	fi
	"$I" gen "$spec" --format ibsim -o "$W/pg.net"
	for e in ${OSM_ENGINES:-ftree dfsssp minhop updn}; do
		read -r topo lfts sl used < <(osm_tables "$e"; echo)
		[ -n "${topo:-}" ] || continue
		[ "$used" = "$e" ] || e="$e($used)"
		if [ "$sl" != - ]; then
			echo "osm-$e $topo $lfts $sl -"
			echo "osm-$e-noSL $topo $lfts - -"
			echo "osm-$e-4KiB $topo $lfts $sl 4096"
		else
			echo "osm-$e $topo $lfts - -"
		fi >>"$W/rows"
	done
}

engines() {
	local name topo lfts sl buf p sim mmf fin bound idx a b sep

	PATS="perm bisect randn:2 2dnn"
	engine_rows
	a="| engine |"
	for p in $PATS; do a="$a $p |"; done
	sep="|---|$(for p in $PATS; do printf -- '---|'; done)"
	{ echo "$a"; echo "$sep"; } >"$W/t.steady"
	{ echo "$a"; echo "$sep"; } >"$W/t.done"
	{ echo "$a"; echo "$sep"; } >"$W/t.eval"
	while read -r name topo lfts sl buf; do
		[ "$sl" = - ] && sl=
		[ "$buf" = - ] && buf=
		a="| $name |" b="| $name |"
		for p in $PATS; do
			read -r sim mmf fin bound < <(engine_run "$topo" \
				"$lfts" "$sl" "$buf" "$p")
			if [ "$sim" = - ]; then
				a="$a no completion |" b="$b no completion |"
				continue
			fi
			a="$a $(printf '%.0f / %.0f Gb/s (%.0f %%)' "$sim" \
				"$mmf" "$(echo "100 * $sim / $mmf" | bc -l)") |"
			b="$b $(printf '%.0f / %.0f Gb/s (%.0f %%)' "$fin" \
				"$bound" "$(echo "100 * $fin / $bound" | bc -l)") |"
		done
		echo "$a" >>"$W/t.steady"
		echo "$b" >>"$W/t.done"
		if [ -z "$buf" ] && [[ $name != *-noSL ]]; then
			read -r -a idx < <(eval_index "$topo" "$lfts")
			echo "| $name | $(printf '%s | ' "${idx[@]}")" |
				sed 's/ $//' >>"$W/t.eval"
		fi
	done <"$W/rows"
	echo "Simulated aggregate while every flow runs / MMF aggregate:"
	cat "$W/t.steady"
	echo
	echo "Aggregate over the completion time / over the liquid bound:"
	cat "$W/t.done"
	echo
	echo "ibflow eval index (MMF aggregate / crossbar aggregate):"
	cat "$W/t.eval"
}

echo "# bench_sim.sh $WHAT: $(date -u +%F), $(nproc) cores, runs $RUNS, bytes $BYTES"
case $WHAT in
speed) speed ;;
a2a) a2a ;;
engines) engines ;;
all) speed; echo; a2a; echo; engines ;;
*) echo "$0: speed, a2a, engines or all" >&2; exit 2 ;;
esac
