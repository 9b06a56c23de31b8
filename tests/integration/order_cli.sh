#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `ibflow order` (docs/order.md):
#   - offline: Slurm hostlists and files/stdin of names, the three formats
#     and --slots against hand-written output; errors (unknown node named,
#     bad hostlist with its column, bad file with FILE:LINE:COL, a node
#     twice, bad usage) exit 2 and leave an existing -o file as it was;
#   - real OpenSM on ibsim with the plugin: on a full PGFT
#     (xgft:3:4,4,4:1,4,4, ibflow-dmodk) and a Dragonfly (ibflow-layered,
#     LMC 2) whose host GUIDs were shuffled (so the NodeGUID order the
#     plugin exports for layered interleaves leaves), `--fabric` output
#     equals the order this test computes from the export's topology and
#     order file (tests/order_judge.py: grouped by leaf switch), and
#     `--topo/--lfts` on the exported files gives the same; the tables
#     read back pass `ibflow check`;
#   - on the PGFT, the test's own walk of the LFTs read back from the
#     switches: every shift permutation among the ranks has link load 1 in
#     ibflow order's order, for all hosts and for a job of two whole pods,
#     and more than 1 in a shuffled job order (the check can fail).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
JUDGE="python3 $T_REPO/tests/order_judge.py"
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$T_BUILD_DIR/osm_plugin/.libs}
t_need_ibflow

# ---- offline ----------------------------------------------------------------
d=$T_TMP/offline
mkdir -p "$d"
"$IBF" gen xgft:2:4,4:1,4 -o "$d/x.topo" >/dev/null
"$IBF" route --topo "$d/x.topo" --engine dmodk -o "$d/x.lfts" >/dev/null
SRC=(--topo "$d/x.topo" --lfts "$d/x.lfts")

# Hand-written expectations: gen names hosts h0000.. in label order, so the
# routing's order of any of them is by name.
t_check "hostlist, default hostfile" 0 \
	"$IBF" order "${SRC[@]}" 'h00[11,01],h[0009-0010]'
printf '%s\n' "h0001 slots=1" "h0009 slots=1" "h0010 slots=1" \
	"h0011 slots=1" >"$d/want"
t_same "hostfile in the routing's order" "$d/want" "$T_OUT"

t_check "rankfile, --slots 2" 0 \
	"$IBF" order "${SRC[@]}" --format rankfile --slots 2 'h00[11,01]'
printf '%s\n' "rank 0=h0001 slot=0" "rank 1=h0001 slot=1" \
	"rank 2=h0011 slot=0" "rank 3=h0011 slot=1" >"$d/want"
t_same "rankfile: rank R=NAME slot=S, ranks in blocks" "$d/want" "$T_OUT"

printf 'h0003\n# comment\nh000[1-2] h0000  # more\n' >"$d/job.txt"
t_check "file of names, slurm format, -o" 0 \
	"$IBF" order "${SRC[@]}" --format slurm --slots 2 -o "$d/hosts" \
	"$d/job.txt"
printf '%s\n' h0000 h0000 h0001 h0001 h0002 h0002 h0003 h0003 >"$d/want"
t_same "slurm: one line per rank" "$d/want" "$d/hosts"

if printf 'h0002\nh0000\n' | "$IBF" order "${SRC[@]}" - >"$d/stdin.out" 2>"$d/stdin.err"; then
	printf '%s\n' "h0000 slots=1" "h0002 slots=1" >"$d/want"
	t_same "NODES - reads stdin" "$d/want" "$d/stdin.out"
else
	t_fail "NODES - reads stdin" "$(head -2 "$d/stdin.err")"
fi

# Errors: exit 2, the message says what and where, -o untouched.
echo "previous" >"$d/keep"
err_case() { # NAME WANT_IN_STDERR ARGS...
	local name=$1 want=$2 before

	shift 2
	before=$(ls -A "$d")
	if t_expect_exit 2 "$IBF" order "$@" -o "$d/keep" &&
	   grep -qF -- "$want" "$T_ERR" && [ "$(cat "$d/keep")" = previous ] &&
	   [ "$(ls -A "$d")" = "$before" ]; then
		t_pass "error: $name"
	else
		t_fail "error: $name" "exit $T_RC: $(t_errhead) (wanted '$want')"
	fi
}
err_case "unknown node named" "unknown nodes 'h0099', 'gpu7'" \
	"${SRC[@]}" 'h[0001,0099],gpu7'
err_case "range below its start, with column" "<NODES>:1:3: range 5-2 ends below its start" \
	"${SRC[@]}" 'h[5-2]'
err_case "unclosed bracket" "<NODES>:1:6: '[' without ']'" \
	"${SRC[@]}" 'h0001[1-2'
printf 'h0001\nh0002,,h0003\n' >"$d/bad.txt"
err_case "bad file: FILE:LINE:COL" "bad.txt:2:7: empty name after ','" \
	"${SRC[@]}" "$d/bad.txt"
err_case "node listed twice" "node 'h0002' listed twice" \
	"${SRC[@]}" 'h000[1-2],h0002'
err_case "--fabric with --topo" "--fabric excludes" \
	--fabric "$d" "${SRC[@]}" h0001
err_case "no export" "no export" --fabric "$d" h0001
"$IBF" gen xgft:2:2,2:1,2 -o "$d/y.topo" >/dev/null
err_case "tables of another fabric" "x.lfts" \
	--topo "$d/y.topo" --lfts "$d/x.lfts" h0001

# ---- the files in real Open MPI ----------------------------------------------
# One host of the fabric renamed after this machine: mpirun must place the
# ranks there as the hostfile and the rankfile say.  (Open MPI 4.1.4's
# orted has crashed as short programs end, exit 205: up to three tries.)
mpi_try() { # OUT ARGS...
	local out=$1 i

	shift
	for i in 1 2 3; do
		timeout 120 mpirun --allow-run-as-root "$@" sh -c \
			'echo "$OMPI_COMM_WORLD_RANK $(hostname)"' >"$out" 2>"$out.err" &&
			return 0
	done
	return 1
}
me=$(hostname)
if ! t_need mpirun; then
	t_skip "hostfile and rankfile in mpirun" "mpirun not installed"
elif ! [[ $me =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ ]]; then
	t_skip "hostfile and rankfile in mpirun" "host name '$me' is not a plain name"
else
	sed "s/\"h0005 HCA-1\"/\"$me HCA-1\"/g" "$d/x.topo" >"$d/me.topo"
	printf '%s\n' "0 $me" "1 $me" >"$d/want.mpi"
	if "$IBF" order --topo "$d/me.topo" --lfts "$d/x.lfts" --slots 2 \
	   -o "$d/me.hosts" "$me" 2>"$d/me.err" &&
	   "$IBF" order --topo "$d/me.topo" --lfts "$d/x.lfts" --slots 2 \
	   --format rankfile -o "$d/me.ranks" "$me" 2>>"$d/me.err"; then
		if mpi_try "$d/mpi.out" --hostfile "$d/me.hosts" -np 2; then
			sort -n "$d/mpi.out" >"$d/mpi.sorted"
			t_same "mpirun --hostfile from ibflow order: 2 slots, ranks there" \
				"$d/want.mpi" "$d/mpi.sorted"
		else
			t_fail "mpirun --hostfile from ibflow order" "$(head -3 "$d/mpi.out.err")"
		fi
		if mpi_try "$d/mpi.out" --hostfile "$d/me.hosts" \
		   --rankfile "$d/me.ranks" --report-bindings -np 2; then
			sort -n "$d/mpi.out" >"$d/mpi.sorted"
			if cmp -s "$d/want.mpi" "$d/mpi.sorted" &&
			   [ "$(grep -c 'bound to' "$d/mpi.out.err")" = 2 ]; then
				t_pass "mpirun --rankfile from ibflow order: ranks bound as written"
			else
				t_fail "mpirun --rankfile from ibflow order" "$(head -3 "$d/mpi.out.err")"
			fi
		else
			t_fail "mpirun --rankfile from ibflow order" "$(head -3 "$d/mpi.out.err")"
		fi
	else
		t_fail "ibflow order for this machine" "$(head -2 "$d/me.err")"
	fi
fi

# ---- real OpenSM on ibsim ---------------------------------------------------
if ! why=$(ibs_have_tools); then
	t_skip "order on OpenSM" "$why"
	t_done
fi
if [ ! -f "$PLUGIN_DIR/libibflow_osm.so" ]; then
	t_skip "order on OpenSM" "$PLUGIN_DIR/libibflow_osm.so not built"
	t_done
fi
export LD_LIBRARY_PATH=$PLUGIN_DIR:$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Host GUIDs shuffled among the hosts (seeded), wiring unchanged.
shuffle_host_guids() { # NET SEED
	python3 - "$1" "$2" <<'EOF'
import random, re, sys
lines = open(sys.argv[1]).read().split('\n')
idx = [i for i, l in enumerate(lines)
       if l.startswith('caguid=') and i + 1 < len(lines)
       and re.match(r'^(Hca|Ca)\s', lines[i + 1])]
vals = [lines[i] for i in idx]
random.Random(int(sys.argv[2])).shuffle(vals)
for i, v in zip(idx, vals):
    lines[i] = v
sys.stdout.write('\n'.join(lines))
EOF
}

# sweep NAME SPEC LMC ENGINE: one OpenSM sweep with the plugin; sets RUN.
sweep() {
	local name=$1 spec=$2 lmc=$3 eng=$4 dir=$T_TMP/$1

	RUN=$dir/run
	mkdir -p "$RUN"
	"$IBF" gen "$spec" --lmc "$lmc" --format ibsim -o "$dir/net0" >/dev/null &&
		shuffle_host_guids "$dir/net0" 11 >"$dir/net" || return 1
	{
		echo "event_plugin_name ibflow_osm"
		echo "routing_engine ibflow-$eng"
		[ "$eng" = layered ] && echo "qos TRUE"
	} >"$dir/osm.conf"
	ibs_start "$dir/net" "$RUN" 2>"$dir/ibsim.err" || return 1
	ibs_sweep "$RUN" "$lmc" -F "$dir/osm.conf" &&
		ibs_discover "$RUN/ibnetdiscover.out" &&
		ibs_dump_lfts "$RUN/dump_lfts.out"
	local rc=$?
	ibs_stop
	[ "$rc" -eq 0 ] && [ "$IBS_ENGINE_USED" = "ibflow-$eng" ]
}

# check_order NAME JOBFILE [NAMES]: --fabric against the test's own order
# of NAMES (a name a line; default JOBFILE itself), and --topo/--lfts on
# the exported files the same.
check_order() {
	local name=$1 job=$2 names=${3:-$2}

	$JUDGE expect "$RUN/ibflow-topology.ibnd" "$RUN/ibflow-order.txt" \
		"$names" >"$job.want"
	if t_expect_exit 0 "$IBF" order --fabric "$RUN" --format slurm "$job"; then
		cp "$T_OUT" "$job.got"
		t_same "$name: --fabric gives the export's order grouped by leaf ($(wc -l <"$job.want") nodes)" \
			"$job.want" "$job.got"
	else
		t_fail "$name: ibflow order --fabric" "exit $T_RC: $(t_errhead)"
		return
	fi
	if t_expect_exit 0 "$IBF" order --topo "$RUN/ibflow-topology.ibnd" \
	   --lfts "$RUN/ibflow-lfts.dump" --format slurm "$job"; then
		t_same "$name: --topo/--lfts on the exported files gives the same" \
			"$job.got" "$T_OUT"
	else
		t_fail "$name: ibflow order --topo" "exit $T_RC: $(t_errhead)"
	fi
}

# all hosts, and a random third, as a Slurm hostlist in a file
job_files() { # DIR SEED
	grep -o '# "h[0-9]*' "$RUN/ibnetdiscover.out" | sed 's/.*"//' |
		sort -u >"$1/all.txt"
	python3 -c '
import random, sys
names = [l.strip() for l in open(sys.argv[1])]
rng = random.Random(int(sys.argv[2]))
print("\n".join(sorted(rng.sample(names, len(names) // 3))))' \
		"$1/all.txt" "$2" >"$1/third.names"
	$JUDGE hostlist $(cat "$1/third.names") >"$1/third.txt"
	python3 -c '
import random, sys
names = [l.strip() for l in open(sys.argv[1])]
random.Random(5).shuffle(names)
print("\n".join(names))' "$1/all.txt" >"$1/shuffled.txt"
}

# ---- full PGFT, ibflow-dmodk
name="xgft:3:4,4,4:1,4,4 ibflow-dmodk"
if sweep pgft xgft:3:4,4,4:1,4,4 0 dmodk; then
	t_pass "$name: OpenSM says ibflow-dmodk tables configured on all switches"
	d=$T_TMP/pgft
	job_files "$d" 3
	t_check "$name: tables read back pass ibflow check" 0 \
		"$IBF" check --topo "$RUN/ibnetdiscover.out" --lfts "$RUN/dump_lfts.out"
	check_order "$name all hosts" "$d/shuffled.txt"
	check_order "$name a random third" "$d/third.txt" "$d/third.names"
	# Two whole pods (level-2 subtrees): the ranks' D-mod-K indices are
	# whole residue systems at every level, so shifts stay at load 1.
	awk '{ print $1 }' "$RUN/ibflow-order.txt" | grep -v '^#' |
		sed -n '1,16p;33,48p' >"$d/pods.txt"
	check_order "$name two whole pods" "$d/pods.txt"
	for j in shuffled pods; do
		load=$($JUDGE load "$RUN/ibnetdiscover.out" "$RUN/dump_lfts.out" \
			"$d/$j.txt.got")
		case $load in
		"worst 1 "*) t_pass "$name $j: every shift has link load 1 in ibflow order's order (own LFT walk)" ;;
		*) t_fail "$name $j: shift load in ibflow order's order" "$load" ;;
		esac
	done
	load=$($JUDGE load "$RUN/ibnetdiscover.out" "$RUN/dump_lfts.out" \
		"$d/shuffled.txt")
	case $load in
	"worst 1 "*) t_fail "$name: a shuffled job order has contention" "$load" ;;
	*) t_pass "$name: a shuffled job order has contention ($load)" ;;
	esac
	third=$($JUDGE load "$RUN/ibnetdiscover.out" "$RUN/dump_lfts.out" \
		"$d/third.txt.got")
	echo "# $name: random third ($(wc -l <"$d/third.txt.got") nodes): $third in ibflow order's order"
else
	t_fail "$name: OpenSM sweep with the plugin" "engine '${IBS_ENGINE_USED:-none}' (logs: $T_TMP/pgft/run)"
fi

# ---- not a PGFT: Dragonfly, ibflow-layered (order: node order by leaf)
name="dragonfly:4,2,2 lmc 2 ibflow-layered"
if sweep df dragonfly:4,2,2 2 layered; then
	t_pass "$name: OpenSM says ibflow-layered tables configured on all switches"
	d=$T_TMP/df
	job_files "$d" 4
	t_check "$name: tables read back pass ibflow check" 0 \
		"$IBF" check --topo "$RUN/ibnetdiscover.out" --lfts "$RUN/dump_lfts.out"
	if grep -v '^#' "$RUN/ibflow-order.txt" | awk '{ print $1 }' |
	   cmp -s - <(grep -v '^#' "$d/all.txt" | sort); then
		t_fail "$name: shuffled GUIDs interleave the export's order" "export order is sorted by name: nothing to group"
	else
		t_pass "$name: shuffled GUIDs interleave the export's order"
	fi
	check_order "$name all hosts" "$d/shuffled.txt"
	check_order "$name a random third" "$d/third.txt" "$d/third.names"
else
	t_fail "$name: OpenSM sweep with the plugin" "engine '${IBS_ENGINE_USED:-none}' (logs: $T_TMP/df/run)"
fi
t_done
