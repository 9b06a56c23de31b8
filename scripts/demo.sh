#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ibflow in one minute: install what is missing, build, generate a fat tree,
# load it into the ibsim simulator and let real OpenSM route it, first with
# its own engines (ftree, updn, minhop, dfsssp), then with ibflow's engines
# inside OpenSM through the plugin (ibflow-dmodk at the same LMC;
# ibflow-uapr and ibflow-layered on an LMC 2 copy of the fabric).  After
# every sweep the tables are read back from the simulated switches
# (ibnetdiscover + dump_lfts, as on a real fabric) and every route is checked
# (`ibflow check`, and --deadlock with the plugin's SLs for layered).  Then
# all routings are compared by max-min fair throughput and by the worst link
# load of shift permutations (`ibflow eval`), in one table and SVG charts.
# Then the product's other half on the same routed tree
# (scripts/demo-fabric.sh): the fabric emulated by scripts/netns-fabric
# from ibflow-dmodk's tables read back (a namespace per host and switch,
# every link rate-limited), 16 of its hosts (one per leaf) running real
# UCX processes under Open MPI: planned latency probes (ibflow-probe:
# pairs and rounds against all pairs, predicted against measured RTTs) and
# the all-to-all (ibflow-a2a-bench) under libibflow_mpi's default
# configuration (over TCP it leaves the call to the MPI library), liquid
# forced, Open MPI's own and round robin against the liquid bound, in a
# second table read from the tools' JSON files, and beside it the same
# tree and hosts simulated as InfiniBand (`ibflow sim`: liquid, linear,
# pairwise against the bound).  As root only (a "skipped" line
# otherwise); about a minute more.
#
#   scripts/demo.sh [SPEC [LMC]]      default: kary:4,3 (64 hosts, 48
#                                     switches), LMC 0
# Environment: ENGINES (default "ftree updn minhop dfsssp"), DEMO_DIR (where
# the files stay; default $BUILD_DIR/demo), BUILD_DIR (see scripts/build.sh),
# PATTERNS (default "perm:5,shift,bisect:5,randn:4:2,alltoall"; "shift" is
# added when missing: it gives the worst-load column), IBFLOW_OSM_PLUGIN_DIR
# (where libibflow_osm.so is; default $BUILD_DIR/osm_plugin/.libs).
# DEMO_FABRIC=0 leaves the emulated fabric out; DEMO_HOSTS, DEMO_RATE,
# DEMO_BLOCK: see scripts/demo-fabric.sh.
# Without the plugin (configure skipped it: no OpenSM headers) ibflow's
# engines run offline (`ibflow route`) on the fabric read back, with a note.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SPEC=${1:-kary:4,3}
LMC=${2:-0}
ENGINES=${ENGINES:-ftree updn minhop dfsssp}
read -r -a ENG <<<"$ENGINES"
PATTERNS=${PATTERNS:-perm:5,shift,bisect:5,randn:4:2,alltoall}
case ",$PATTERNS," in
*,shift,*) ;;
*) PATTERNS=$PATTERNS,shift ;;
esac

echo "== building (scripts/build.sh)"
IBF=$(bash "$REPO/scripts/build.sh" | tail -1)
BUILD_DIR=$(dirname "$(dirname "$IBF")")
DEMO_DIR=${DEMO_DIR:-$BUILD_DIR/demo}
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$BUILD_DIR/osm_plugin/.libs}
rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"
DEMO_DIR=$(cd "$DEMO_DIR" && pwd)

# shellcheck source=ibsim-session.sh
. "$REPO/scripts/ibsim-session.sh"
trap ibs_stop_all EXIT
trap 'exit 130' INT TERM
if ! why=$(ibs_have_tools); then
	echo "demo: cannot simulate a fabric here: $why" >&2
	exit 1
fi
PLUGIN=yes
[ -f "$PLUGIN_DIR/libibflow_osm.so" ] || PLUGIN=no
status=0
# The plugin's configuration: its own evaluation off (eval no), as all
# routings are judged below by the same `ibflow eval` runs.
echo "eval no" >"$DEMO_DIR/ibflow.conf"

"$IBF" gen "$SPEC" --lmc "$LMC" --format ibsim -o "$DEMO_DIR/net"
"$IBF" gen "$SPEC" --lmc 2 --format ibsim -o "$DEMO_DIR/net-lmc2"
info=$("$IBF" info "$DEMO_DIR/net")
n() { sed -n "s/^$1: *//p" <<<"$info"; }
echo "== fabric $SPEC: $(n endpoints) hosts, $(n switches) switches," \
	"$(n links) links; LMC $LMC (and an LMC 2 copy)"
echo "   OpenSM $(opensm --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)" \
	"on ibsim, infiniband-diags; files in $DEMO_DIR"

# ---- one OpenSM sweep per engine ---------------------------------------
# Per engine (NAME below) the run directory $DEMO_DIR/NAME keeps OpenSM's
# log, the files read back and the check; these arrays collect the rows.
# NOTE holds what went wrong, DLOCK the deadlock check's verdict.
declare -A USED LMCOF DEFECTS PAIRS TOPO LFTS ORDER NOTE DLOCK EVALED
STAR=no

# check_run NAME [CHECK ARGS...]: ibflow check on what NAME's run read
# back; fills DEFECTS and PAIRS from its JSON report, DLOCK from the exit
# status of a --deadlock check (1 with no route defect: a cycle).
check_run() {
	local name=$1 run=$DEMO_DIR/$1 rc=0 figs

	shift
	"$IBF" check --topo "${TOPO[$name]}" --lfts "${LFTS[$name]}" "$@" \
		--json "$run/check.json" >"$run/check.txt" 2>&1 || rc=$?
	if [ "$rc" -eq 2 ] ||
	   ! figs=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["defects"], d["all"]["pairs"])' "$run/check.json"); then
		NOTE[$name]="check failed: $(head -1 "$run/check.txt")"
		DEFECTS[$name]=-
		status=1
		return
	fi
	read -r DEFECTS[$name] PAIRS[$name] <<<"$figs"
	[ "${DEFECTS[$name]}" -eq 0 ] || status=1
	if [ "$#" -gt 0 ]; then
		if [ "$rc" -eq 0 ]; then
			DLOCK[$name]="deadlock-free with its SLs"
		elif [ "${DEFECTS[$name]}" -eq 0 ]; then
			NOTE[$name]="DEADLOCK CHECK FAILED ($run/check.txt)"
			status=1
		fi
	fi
}

# sweep NAME NET LMC [CONF]: a fresh simulator, one OpenSM sweep (with
# opensm.conf CONF, else -R NAME), the fabric and tables read back.
sweep() {
	local name=$1 net=$2 lmc=$3 conf=${4:-} run=$DEMO_DIR/$1 rc=0
	local args=(-R "$name")

	mkdir -p "$run"
	[ -n "$conf" ] && args=(-F "$conf")
	LMCOF[$name]=$lmc
	if ! ibs_start "$net" "$run"; then
		NOTE[$name]="ibsim failed ($run/ibsim.log)"
		status=1
		return 1
	fi
	IBFLOW_OSM_CONF=$DEMO_DIR/ibflow.conf \
		ibs_sweep "$run" "$lmc" "${args[@]}" || rc=$?
	USED[$name]=$IBS_ENGINE_USED
	if [ "$rc" -ne 0 ] || [ -z "${USED[$name]}" ] ||
	   ! ibs_discover "$run/ibnetdiscover.out" ||
	   ! ibs_dump_lfts "$run/dump_lfts.out"; then
		ibs_stop
		NOTE[$name]="OpenSM sweep or read-back FAILED (see $run)"
		status=1
		return 1
	fi
	ibs_stop
	TOPO[$name]=$run/ibnetdiscover.out
	LFTS[$name]=$run/dump_lfts.out
	return 0
}

# report NAME: one progress line.
report() {
	local name=$1 used=${USED[$1]:-}

	if [ -n "$used" ] && [ "$used" != "$name" ] && [ "$used" != offline ]
	then
		used="$used*"
		STAR=yes
	fi
	printf '   %-15s routed by %-15s %6s pairs %2s defects%s\n' "$name" \
		"${used:--}" "${PAIRS[$name]:--}" "${DEFECTS[$name]:--}" \
		"${DLOCK[$name]:+, ${DLOCK[$name]}}${NOTE[$name]:+  ${NOTE[$name]}}"
}

echo
echo "== OpenSM's engines (opensm -R ENGINE -l $LMC; tables read back, checked)"
for eng in "${ENG[@]}"; do
	sweep "$eng" "$DEMO_DIR/net" "$LMC" && check_run "$eng"
	report "$eng"
done

# ---- ibflow's engines: in OpenSM through the plugin, or offline --------
IBFLOW=(ibflow-dmodk ibflow-uapr ibflow-layered)
echo
if [ "$PLUGIN" = yes ]; then
	echo "== ibflow's engines inside OpenSM (event_plugin_name ibflow_osm," \
		"$PLUGIN_DIR)"
	export LD_LIBRARY_PATH=$PLUGIN_DIR:$BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	for name in "${IBFLOW[@]}"; do
		net=$DEMO_DIR/net-lmc2
		lmc=2
		extra=
		[ "$name" = ibflow-dmodk ] && { net=$DEMO_DIR/net; lmc=$LMC; }
		[ "$name" = ibflow-layered ] && extra="qos TRUE"
		mkdir -p "$DEMO_DIR/$name"
		# The admin's opensm.conf: the plugin, the engine, minhop if it
		# refuses the fabric; layered needs QoS for its SL->VL map.
		printf 'event_plugin_name ibflow_osm\nrouting_engine %s,minhop\n%s\n' \
			"$name" "$extra" >"$DEMO_DIR/$name/opensm.conf"
		if sweep "$name" "$net" "$lmc" "$DEMO_DIR/$name/opensm.conf"; then
			ORDER[$name]=$DEMO_DIR/$name/ibflow-order.txt
			if [ "$name" = ibflow-layered ]; then
				check_run "$name" --sl "$DEMO_DIR/$name/ibflow-sl.txt" \
					--deadlock
			else
				check_run "$name"
			fi
			[ "${USED[$name]}" = "$name" ] || status=1
		fi
		report "$name"
	done
else
	echo "== ibflow's engines OFFLINE: the OpenSM plugin is not built"
	echo "   (configure skipped it: install libopensm-dev libibumad-dev and"
	echo "   rebuild); 'ibflow route' on the fabric read back instead"
	for name in "${IBFLOW[@]}"; do
		eng=${name#ibflow-}
		run=$DEMO_DIR/$name
		mkdir -p "$run"
		USED[$name]=offline
		args=()
		if [ "$name" = ibflow-dmodk ]; then
			LMCOF[$name]=$LMC
			TOPO[$name]=${TOPO[${ENG[0]}]:-}
		else
			LMCOF[$name]=2
			TOPO[$name]=$run/topo
			"$IBF" gen "$SPEC" --lmc 2 -o "$run/topo"
		fi
		[ "$name" = ibflow-layered ] && args=(--sl-out "$run/sl.txt")
		if [ -n "${TOPO[$name]}" ] &&
		   "$IBF" route --topo "${TOPO[$name]}" --engine "$eng" \
			-o "$run/lfts" --order-out "$run/order" "${args[@]}" \
			>"$run/route.out" 2>&1; then
			LFTS[$name]=$run/lfts
			ORDER[$name]=$run/order
			if [ "$name" = ibflow-layered ]; then
				check_run "$name" --sl "$run/sl.txt" --deadlock
			else
				check_run "$name"
			fi
		else
			NOTE[$name]="ibflow route FAILED ($run/route.out)"
			status=1
		fi
		report "$name"
	done
fi
if [ "$STAR" = yes ]; then
	echo "   * = OpenSM refused the requested engine and routed with the one"
	echo "       shown (e.g. ftree with LMC > 0); its log says why:"
	echo "       $DEMO_DIR/<engine>/osm.log"
fi

# ---- max-min fair comparison ------------------------------------------
# Two `ibflow eval` runs, one per LMC: every routing of a run on the same
# topology (read back by the first sweep of that LMC) and the same rank
# order.  The order is the engine's host order: the plugin's export (all
# three engines export the same topological order), which for OpenSM's
# engines is the topological order D-mod-K uses; without the plugin,
# D-mod-K's --order-out.  LIDs must agree between the sweeps (OpenSM
# assigns them the same way on the same fabric); checked, not assumed.
eval_dir=$DEMO_DIR/eval
mkdir -p "$eval_dir"

# LID signature of a fabric read back: the sorted link lines with LIDs.
lid_sig() { grep 'lid [0-9]' "$1" | sed 's/[[:space:]]\+/ /g' | sort; }

# evaluate TAG PATHS NAME...: one eval run over the NAMEs that routed.
evaluate() {
	local tag=$1 paths=$2 name topo='' order='' ord
	local args=()

	shift 2
	for name in "$@"; do
		[ -n "${LFTS[$name]:-}" ] || continue
		if [ -z "$topo" ]; then
			topo=${TOPO[$name]}
		elif ! cmp -s <(lid_sig "$topo") <(lid_sig "${TOPO[$name]}"); then
			NOTE[$name]="not compared: other LIDs than $topo"
			status=1
			continue
		fi
		cp "${LFTS[$name]}" "$eval_dir/$name"
		args+=(--lfts "$name")
		EVALED[$name]=$eval_dir/$tag.json
		ord=${ORDER[$name]:-}
		[ -n "$ord" ] && [ -z "$order" ] && order=$ord
		if [ -n "$ord" ] && ! cmp -s "$ord" "$order"; then
			echo "   note: $name's host order differs from $order;" \
				"compared in the latter"
		fi
	done
	[ -n "$topo" ] || return 1
	if [ -z "$order" ]; then
		order=$eval_dir/$tag.order
		"$IBF" route --topo "$topo" --engine dmodk -o "$eval_dir/$tag.dmodk" \
			--order-out "$order" >/dev/null 2>"$eval_dir/$tag.order.err" || {
			echo "   $tag: no D-mod-K order ($(head -1 "$eval_dir/$tag.order.err"));" \
				"ranks in the topology's node order"
			order=direct
		}
	fi
	cp "$topo" "$eval_dir/$tag.topo"
	[ "$order" = direct ] || cp "$order" "$eval_dir/$tag.order"
	[ "$order" = direct ] || order=$tag.order
	(cd "$eval_dir" && "$IBF" eval --topo "$tag.topo" "${args[@]}" \
		--paths "$paths" --patterns "$PATTERNS" --map "$order" --opt \
		--json "$tag.json" --plot "$tag.svg") >"$eval_dir/$tag.txt" \
		2>"$eval_dir/$tag.err"
}

paths=single
[ "$LMC" -gt 0 ] && paths=lmc
ok_a=yes ok_b=yes
TAG_A=lmc$LMC TAG_B=lmc2-multipath
evaluate "$TAG_A" "$paths" "${ENG[@]}" ibflow-dmodk || ok_a=no
evaluate "$TAG_B" lmc ibflow-uapr ibflow-layered || ok_b=no

# figures JSON ROUTING KEY PATTERN...: KEY (index, opt_index,
# max_link_load) of ROUTING on each PATTERN in an `ibflow eval --json`
# document, "-" where there is none; ROUTING "*" = any (the optimum is the
# same for every routing).  A document of one routing names none.
figures() {
	python3 - "$@" <<'PY' 2>/dev/null || echo "-"
import json, sys
path, routing, key = sys.argv[1:4]
ents = json.load(open(path))["patterns"]
out = []
for p in sys.argv[4:]:
    v = [e[key] for e in ents if e["name"] == p and
         routing in ("*", e.get("routing", routing))]
    if not v or v[0] is None:
        out.append("-")
    elif key == "max_link_load":
        out.append("%.4g" % v[0])
    else:
        out.append("%.4f" % v[0])
print(" ".join(out))
PY
}

IFS=, read -r -a PATS <<<"$PATTERNS"
echo
echo "== max-min fair throughput index per pattern (ibflow eval; 1 = a crossbar)"
echo "   and the worst link load over all shift permutations"
echo
printf '%-15s %3s %-15s %7s' engine LMC "routed by" defects
for p in "${PATS[@]}"; do printf ' %9s' "$p"; done
printf ' %11s\n' "shift load"
best=
for name in "${ENG[@]}" "${IBFLOW[@]}"; do
	json=${EVALED[$name]:-}
	used=${USED[$name]:-}
	[ -n "$used" ] && [ "$used" != "$name" ] && [ "$used" != offline ] &&
		used="$used*"
	printf '%-15s %3s %-15s %7s' "$name" "${LMCOF[$name]:-}" "${used:--}" \
		"${DEFECTS[$name]:--}"
	idx=() v=
	if [ -n "$json" ]; then
		read -r -a idx <<<"$(figures "$json" "$name" index "${PATS[@]}")"
		v=$(figures "$json" "$name" max_link_load shift)
	fi
	for i in "${!PATS[@]}"; do printf ' %9s' "${idx[$i]:--}"; done
	[ "$v" = - ] && v=
	printf ' %11s\n' "${v:--}"
	if [ -n "$v" ] && { [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then
		best=$v
	fi
done
printf '%-15s %3s %-15s %7s' optimum "" "" ""
opt=()
for tag in "$TAG_A" "$TAG_B"; do
	[ -s "$eval_dir/$tag.json" ] || continue
	read -r -a got <<<"$(figures "$eval_dir/$tag.json" "*" opt_index "${PATS[@]}")"
	for i in "${!PATS[@]}"; do
		[ "${opt[$i]:--}" = - ] && opt[$i]=${got[$i]:--}
	done
done
for i in "${!PATS[@]}"; do printf ' %9s' "${opt[$i]:--}"; done
# Each host sends one flow and receives one in a shift: no routing does
# better than 1 on its host links; the optimum is known when one attains it.
if [ "$best" = 1 ]; then
	printf ' %11s\n' 1
else
	printf ' %11s\n' ">= 1"
fi

echo
echo "Index: aggregate max-min fair rate / the same flows on a crossbar, summed"
echo "over each pattern's instances; optimum: the MMF multi-commodity-flow"
echo "optimum (any routing, PGFTs only).  Shift load: most flows crossing one"
echo "directed link in any of the N-1 shift permutations; 1 = contention free"
echo "(the optimum: every flow is alone on its host links).  Ranks in the"
if [ "$PLUGIN" = yes ]; then
	echo "engines' host order (the plugin's ibflow-order.txt: topological, as"
	echo "D-mod-K's)."
else
	echo "topological order (D-mod-K's --order-out).  offline = computed by"
	echo "\`ibflow route\` on the fabric read back (the plugin is not built)."
fi
if [ "$LMC" -gt 0 ]; then
	echo "Each flow is split evenly over its destination's 2^LMC LIDs (layered:"
	echo "its layers)."
else
	echo "LMC 0 rows: each flow on its destination's base LID; LMC 2 rows:"
	echo "split evenly over its 4 LIDs (layered: over its 4 layers)."
fi
for name in "${ENG[@]}" "${IBFLOW[@]}"; do
	[ -z "${NOTE[$name]:-}" ] || echo "$name: ${NOTE[$name]}"
done
[ "$ok_a" = yes ] || { echo "LMC $LMC comparison FAILED ($eval_dir/$TAG_A.err)"; status=1; }
[ "$ok_b" = yes ] || { echo "LMC 2 comparison FAILED ($eval_dir/$TAG_B.err)"; status=1; }
for tag in "$TAG_A" "$TAG_B"; do
	[ -s "$eval_dir/$tag.svg" ] && echo "chart: $eval_dir/$tag.svg"
done
echo "full tables: $eval_dir/$TAG_A.txt $eval_dir/$TAG_B.txt (JSON beside them)"

# ---- the same routed tree emulated: UCX probes and the all-to-all ------
# On ibflow-dmodk's fabric and tables as read back (through the plugin:
# its export for UCX and its host order; offline: `ibflow route`'s).
if [ "${DEMO_FABRIC:-1}" != 0 ]; then
	if [ -n "${LFTS[ibflow-dmodk]:-}" ]; then
		exp=
		[ "$PLUGIN" = yes ] && exp=$DEMO_DIR/ibflow-dmodk
		BUILD_DIR=$BUILD_DIR bash "$REPO/scripts/demo-fabric.sh" \
			"${TOPO[ibflow-dmodk]}" "${LFTS[ibflow-dmodk]}" \
			"$DEMO_DIR/fabric" "$exp" "${ORDER[ibflow-dmodk]:-}" || status=1
	else
		echo
		echo "== the same routed tree emulated: skipped (ibflow-dmodk did not route)"
		status=1
	fi
fi
exit $status
