#!/usr/bin/env bash
# ibflow in one minute: install what is missing, build, generate a fat tree,
# load it into the ibsim simulator, let real OpenSM route it with each of its
# engines in turn, read back what every engine programmed into the switches
# (ibnetdiscover + dump_lfts, as on a real fabric) and check every route
# with `ibflow check`; then compute ibflow's own routings offline (D-mod-K,
# UAPR over LMC 2, FatPaths layered) for the same fabric and compare all of
# them by max-min fair throughput (`ibflow eval`), with an SVG chart.
#
#   scripts/demo.sh [SPEC [LMC]]      default: kary:4,3 (64 hosts, 48
#                                     switches), LMC 0
# Environment: ENGINES (default "ftree updn minhop dfsssp"), DEMO_DIR (where
# the files stay; default $BUILD_DIR/demo), BUILD_DIR (see scripts/build.sh),
# PATTERNS (default "perm:5,shift,bisect:5,randn:4:2,alltoall").
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SPEC=${1:-kary:4,3}
LMC=${2:-0}
ENGINES=${ENGINES:-ftree updn minhop dfsssp}
PATTERNS=${PATTERNS:-perm:5,shift,bisect:5,randn:4:2,alltoall}

echo "== building (scripts/build.sh)"
IBF=$(bash "$REPO/scripts/build.sh" | tail -1)
BUILD_DIR=$(dirname "$(dirname "$IBF")")
DEMO_DIR=${DEMO_DIR:-$BUILD_DIR/demo}
rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"

# shellcheck source=ibsim-session.sh
. "$REPO/scripts/ibsim-session.sh"
trap ibs_stop_all EXIT
trap 'exit 130' INT TERM
if ! why=$(ibs_have_tools); then
	echo "demo: cannot simulate a fabric here: $why" >&2
	exit 1
fi

echo "== ibflow gen $SPEC --lmc $LMC --format ibsim"
"$IBF" gen "$SPEC" --lmc "$LMC" --format ibsim -o "$DEMO_DIR/net"
"$IBF" info "$DEMO_DIR/net" | sed -n 's/^\(nodes\|switches\|CAs\|links\|LMC\): */  \1: /p' |
	paste -sd' ' | sed 's/^/ /'
echo "   OpenSM $(opensm --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1), ibsim, infiniband-diags; files in $DEMO_DIR"
echo

# One figure from `ibflow check`'s report.
fig() { sed -n "s/^ *$2  *\\([0-9][0-9]*\\).*/\\1/p" "$1" | head -1; }

printf '%-8s %-10s %7s %8s  %-17s %s\n' engine "routed by" pairs defects \
	"hops min/mean/max" "tables read back"
status=0
for eng in $ENGINES; do
	run=$DEMO_DIR/$eng
	# A fresh simulator per engine: no table left over from the last one.
	if ! ibs_start "$DEMO_DIR/net" "$run" ||
	   ! ibs_opensm "$eng" "$LMC" "$run" ||
	   ! ibs_discover "$run/ibnetdiscover.out" ||
	   ! ibs_dump_lfts "$run/dump_lfts.out"; then
		ibs_stop
		printf '%-8s %s\n' "$eng" "FAILED (see $run)"
		status=1
		continue
	fi
	ibs_stop
	used=$IBS_ENGINE_USED
	[ "$used" = "$eng" ] || used="$used*"
	rc=0
	"$IBF" check --topo "$run/ibnetdiscover.out" --lfts "$run/dump_lfts.out" \
		>"$run/check.txt" 2>&1 || rc=$?
	if [ "$rc" -eq 2 ]; then
		printf '%-8s %-10s %s\n' "$eng" "$used" "check failed: $(head -1 "$run/check.txt")"
		status=1
		continue
	fi
	pairs=$(sed -n 's/^pairs traced: *\([0-9]*\).*/\1/p' "$run/check.txt")
	defects=0
	for k in "no route" loops "dead ends" misdelivered "no switch table"; do
		n=$(fig "$run/check.txt" "$k")
		defects=$((defects + ${n:-0}))
	done
	hops=$(sed -n 's/^hops (links): *min \([0-9]*\) *mean \([0-9.]*\) *max \([0-9]*\).*/\1 \/ \2 \/ \3/p' \
		"$run/check.txt")
	printf '%-8s %-10s %7s %8s  %-17s %s\n' "$eng" "$used" "$pairs" \
		"$defects" "$hops" "$(grep -c '^0x' "$run/dump_lfts.out") entries"
	[ "$defects" -eq 0 ] || status=1
done
echo
echo "* = OpenSM refused the requested engine (e.g. ftree with LMC > 0) and"
echo "    routed with the engine shown; its log says why (<engine>/osm.log)."
echo "Hops are links (host-switch-host = 2)."
set -- $ENGINES
first=$DEMO_DIR/$1/
if [ -n "$first" ] && [ -s "${first}ibnetdiscover.out" ]; then
	# The first and the last host, as named in the fabric read back.
	hosts=$(grep -o '"h[0-9]* HCA-1"' "${first}ibnetdiscover.out" |
		tr -d '"' | sort -u | sed -n '1p;$p')
	src=$(head -1 <<<"$hosts")
	dst=$(tail -1 <<<"$hosts")
	echo
	echo "== ibflow paths (what $(basename "$first") programmed):"
	"$IBF" paths --topo "${first}ibnetdiscover.out" \
		--lfts "${first}dump_lfts.out" "$src" "$dst" || status=1
fi

# ---- max-min fair comparison ------------------------------------------
# Every routing is judged on the same traffic with ranks placed in the
# topological host order (D-mod-K's --order-out).  OpenSM's tables are the
# ones read back from the simulated switches, on the topology read back.
eval_dir=$DEMO_DIR/eval
mkdir -p "$eval_dir"
topo=${first}ibnetdiscover.out
echo
echo "== max-min fair throughput (ibflow eval; index 1 = a crossbar)"
if [ -s "$topo" ] &&
   "$IBF" route --topo "$topo" --engine dmodk -o "$eval_dir/dmodk.lfts" \
	--order-out "$eval_dir/order" >/dev/null; then
	set --
	for eng in $ENGINES; do
		[ -s "$DEMO_DIR/$eng/dump_lfts.out" ] || continue
		cp "$DEMO_DIR/$eng/dump_lfts.out" "$eval_dir/opensm-$eng.lfts"
		set -- "$@" --lfts "opensm-$eng.lfts"
	done
	(cd "$eval_dir" && "$IBF" eval --topo "$topo" "$@" \
		--lfts dmodk.lfts --patterns "$PATTERNS" --map order --opt \
		--json lmc0.json --plot lmc0.svg) || status=1
	echo "   (LMC $LMC: OpenSM's engines as programmed, ibflow's dmodk;"
	echo "    chart $eval_dir/lmc0.svg)"
else
	echo "   skipped: no topology read back, or dmodk refused it"
	status=1
fi
# Multipath engines need LIDs to spread over: the same fabric with LMC 2.
if "$IBF" gen "$SPEC" --lmc 2 -o "$eval_dir/lmc2.topo" &&
   "$IBF" route --topo "$eval_dir/lmc2.topo" --engine uapr \
	-o "$eval_dir/uapr.lfts" >/dev/null &&
   "$IBF" route --topo "$eval_dir/lmc2.topo" --engine layered --layers 4 \
	-o "$eval_dir/layered.lfts" --sl-out "$eval_dir/layered.sl" >/dev/null
then
	echo
	(cd "$eval_dir" && "$IBF" eval --topo lmc2.topo --lfts uapr.lfts \
		--lfts layered.lfts --paths lmc --patterns "$PATTERNS" \
		--map order --opt --json lmc2.json --plot lmc2.svg) || status=1
	echo "   (LMC 2, each flow split evenly over its 4 LIDs: UAPR and"
	echo "    FatPaths layered, 4 layers; chart $eval_dir/lmc2.svg)"
	"$IBF" check --topo "$eval_dir/lmc2.topo" --lfts "$eval_dir/layered.lfts" \
		--sl "$eval_dir/layered.sl" --deadlock >"$eval_dir/deadlock.txt" 2>&1 &&
		echo "   layered SLs: deadlock-free (ibflow check --deadlock)" ||
		{ echo "   layered SLs: DEADLOCK CHECK FAILED ($eval_dir/deadlock.txt)"; status=1; }
else
	echo "   skipped: UAPR or layered routing of $SPEC with LMC 2 failed"
	status=1
fi
exit $status
