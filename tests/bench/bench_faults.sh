#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The fault campaign (docs/benchmarks.md, "Degraded fat trees"):
#   tests/bench/bench_faults.sh [--spec SPEC] [--scenarios N] [--pcts "1 5 10"]
#       [--kinds "links hosts"] [--patterns LIST] [--no-osm] [--out DIR]
#       [--seed S] [--osm-scenarios M]
# 1. offline: bench_faults campaign (bench_faults.c) routes N degraded
#    copies of SPEC per (kind, percentage) with ibflow's dmodk and minhop
#    and judges them (validity, LFTI index against the optimum, table
#    entries changed per fault);
# 2. OpenSM on ibsim (unless --no-osm, or tools / the plugin missing, or
#    SPEC too large for ibsim): the first M (default N) of the same
#    degraded fabrics swept once each
#    by OpenSM's ftree and minhop and by the plugin's ibflow-dmodk, the
#    tables read back with dump_lfts and judged by `bench_faults files`
#    (same LIDs as the complete fabric's sweep: OpenSM's guid2lid file is
#    carried over).
# Prints one summary line per setting and engine; the raw lines stay in
# DIR (default /tmp/ibfp-faults).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
spec=kary:4,3
nscen=100
pcts="1 5 10"
kinds="links hosts"
patterns=shift:16,perm:8
osm=1
outdir=/tmp/ibfp-faults
seed=1
nosm=
while [ $# -gt 0 ]; do
	case $1 in
	--spec) spec=$2; shift ;;
	--scenarios) nscen=$2; shift ;;
	--pcts) pcts=$2; shift ;;
	--kinds) kinds=$2; shift ;;
	--patterns) patterns=$2; shift ;;
	--no-osm) osm=0 ;;
	--out) outdir=$2; shift ;;
	--seed) seed=$2; shift ;;
	--osm-scenarios) nosm=$2; shift ;;
	*) echo "bench_faults.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

BENCH_DIR=${BENCH_DIR:-/tmp/ibfp-bench}
BENCH_LIBS=-lglpk
export BENCH_DIR BENCH_LIBS
# shellcheck source=build.sh
. "$here/build.sh"
bench_build bench_faults >&2 || exit 1
bf=$BENCH_DIR/bench_faults
mkdir -p "$outdir"

build=${BUILD_DIR:-$repo/build}
IBS_SOCK_PREFIX=ibfp
# shellcheck source=../../scripts/ibsim-session.sh
. "$repo/scripts/ibsim-session.sh"
trap ibs_stop_all EXIT
if [ "$osm" = 1 ]; then
	if ! why=$(ibs_have_tools); then
		echo "# OpenSM part skipped: $why"
		osm=0
	elif [ ! -f "$build/osm_plugin/.libs/libibflow_osm.so" ]; then
		echo "# OpenSM part skipped: $build/osm_plugin/.libs/libibflow_osm.so not built"
		osm=0
	fi
fi
export LD_LIBRARY_PATH=$build/osm_plugin/.libs:$build/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ENGINES="ftree minhop ibflow-dmodk"

# sweep NET-DIR ENGINE G2L: one OpenSM sweep; tables into DIR/ENGINE/dump
sweep() {
	local dir=$1 eng=$2 g2l=$3 run=$1/$2

	mkdir -p "$run"
	[ -n "$g2l" ] && [ -f "$g2l" ] && cp "$g2l" "$run/guid2lid"
	if [ "$eng" = ibflow-dmodk ]; then
		printf 'event_plugin_name ibflow_osm\nrouting_engine ibflow-dmodk,minhop\n' >"$run/osm.conf"
		printf 'eval no\n' >"$run/ibflow.conf"
		IBFLOW_OSM_CONF=$run/ibflow.conf OSM_TMP_DIR=$run OSM_CACHE_DIR=$run \
			ibs_run opensm -F "$run/osm.conf" -f "$run/osm.log" -s 0 -o \
			-D 0x43 >/dev/null 2>&1
	else
		OSM_TMP_DIR=$run OSM_CACHE_DIR=$run ibs_run opensm -f "$run/osm.log" \
			-s 0 -o -D 0x43 -R "$eng" >/dev/null 2>&1
	fi
	sed -n 's/.* \([A-Za-z0-9_-]*\) tables configured on all switches.*/\1/p' \
		"$run/osm.log" | tail -1 >"$run/used"
	ibs_dump_lfts "$run/dump"
}

echo "# fault campaign on $spec, $nscen scenarios per setting (OpenSM: ${nosm:-$nscen}), patterns $patterns, seed $seed"
echo "# machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
for kind in $kinds; do
	for pct in $pcts; do
		d=$outdir/$kind-$pct
		rm -rf "$d"
		mkdir -p "$d"
		"$bf" campaign "$spec" "$kind" "$pct" "$nscen" --seed "$seed" \
			--patterns "$patterns" --netdir "$d" --verbose \
			>"$d/offline.txt" || exit 1
		echo "offline $(grep '^summary' "$d/offline.txt")"
		[ "$osm" = 1 ] || continue
		# the complete fabric once per engine: reference tables, LIDs
		ibs_start "$d/healthy.net" "$d/healthy" || exit 1
		for e in $ENGINES; do
			sweep "$d/healthy" "$e" ""
		done
		ibs_discover "$d/healthy/ibnd"
		ibs_stop
		: >"$d/osm.txt"
		for net in "$d"/scen-*.net; do
			s=${net%.net}
			i=$((10#${s##*scen-}))
			[ "$i" -lt "${nosm:-$nscen}" ] || continue
			ibs_start "$net" "$s" || exit 1
			for e in $ENGINES; do
				sweep "$s" "$e" "$d/healthy/$e/guid2lid"
			done
			ibs_discover "$s/ibnd"
			ibs_stop
			args=()
			for e in $ENGINES; do
				args+=("$e=$d/healthy/$e/dump,$s/$e/dump")
			done
			{
				echo "scen $(basename "$s") faults $(cat "$s.nfaults") used $(cat "$s"/ftree/used) $(cat "$s"/minhop/used) $(cat "$s"/ibflow-dmodk/used)"
				# the optimum is the offline one (same fabric,
				# same order, same pattern seed)
				"$bf" files --seed $((seed + i)) --no-opt \
					"$d/healthy/ibnd" "$s/ibnd" \
					"$s/ibflow-dmodk/ibflow-order.txt" "$patterns" "${args[@]}"
			} >>"$d/osm.txt" 2>&1
			rm -rf "$s"
		done
		# one line per engine: means over the scenarios
		awk -v setting="$kind $pct%" -v pats="$patterns" -v nosm="${nosm:-$nscen}" '
		FNR == NR { if ($1 == "scen" && $2 < nosm) { for (i = 1; i < NF; i++) if ($i == "opt") { idx["optimum", $(i + 1)] += $(i + 2); pn[$(i + 1)] = 1 } } next }
		/^scen / { nf = $4; n++; if ($6 != "ftree") fb++; if ($8 != "ibflow-dmodk") dfb++; next }
		/^engine / {
			e = $2
			if (e == "optimum") {
				for (i = 3; i < NF; i += 2) { idx[e, $i] += $(i + 1); pn[$i] = 1 }
				next
			}
			bad[e] += $4; unr[e] += $6; chg[e] += $10 / nf
			for (i = 11; i < NF; i += 2) { idx[e, $i] += $(i + 1); pn[$i] = 1 }
		}
		END {
			printf "osm %s scenarios %d ftree_fell_back %d dmodk_fell_back %d\n", setting, n, fb, dfb
			split("ftree minhop ibflow-dmodk optimum", es, " ")
			for (k = 1; k <= 4; k++) {
				e = es[k]
				line = sprintf("osm %s %-13s", setting, e)
				if (e != "optimum")
					line = line sprintf(" bad %d unrouted %.1f changed/fault %.1f", bad[e], unr[e] / n, chg[e] / n)
				for (p in pn)
					line = line sprintf(" %s %.4f", p, idx[e, p] / n)
				print line
			}
		}' "$d/offline.txt" "$d/osm.txt"
	done
done
