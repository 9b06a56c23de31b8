#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Long-message broadcast on an emulated tree with rate-limited links
# (scripts/netns-fabric): ibflow-bcast-check --time under mpirun, one
# process per host through the fabric's rsh agent, ranks placed on the
# hosts in a shuffled order.  Three ways:
#   dfs     UCX_IBFLOW_BCAST=pipeline with the fabric known: the chain is
#           the hosts in depth-first order (every link at most once each
#           way)
#   random  UCX_IBFLOW_BCAST=pipeline without a fabric: the chain is the
#           rank order, i.e. the shuffled host order
#   ompi    Open MPI's own MPI_Bcast (ob1/tcp over the fabric)
#
#   tests/bench/bench_bcast_netns.sh [RATE] [BYTES] [REPS] [RUNS] [SEED]
#
# Fabric: xgft:2:4,4:1,1 (a tree: 4 leaves of 4 hosts under one top
# switch), min-hop, 8 hosts (two per leaf).  RATE tc rate of every link
# (default 20mbit), BYTES (default 1048576), REPS timed broadcasts per run
# (median taken; default 3), RUNS (default 3), SEED of the shuffle.
# Output: the median over runs of each run's median broadcast time, and
# the time of one message over one link at RATE.
set -uo pipefail

RATE=${1:-20mbit}
BYTES=${2:-1048576}
REPS=${3:-3}
RUNS=${4:-3}
SEED=${5:-1}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD_DIR:-$REPO/build}
I=$B/common/ibflow
NF=$REPO/scripts/netns-fabric
NAME=bcb
STATE=${NETNS_FABRIC_STATE:-/run/ibflow-netns}
OUT=${BCAST_BENCH_OUT:-$(mktemp -d /tmp/bcastbench.XXXXXX)}
CHECK=$B/tests/ucx/ibflow-bcast-check
MPILIB=$B/ucx_component/.libs/libibflow_mpi.so
export IBFLOW=$I
export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

F=$OUT/fab
mkdir -p "$F"
"$I" gen xgft:2:4,4:1,1 -o "$F/ibflow-topology.ibnd" || exit 1
"$I" route --topo "$F/ibflow-topology.ibnd" --engine minhop \
	-o "$F/ibflow-lfts.dump" >/dev/null || exit 1
{
	echo "# bench_bcast_netns.sh: topology and LFTs as routed here"
	echo "topology ibflow-topology.ibnd"; echo "lfts ibflow-lfts.dump"
} >"$F/ibflow-export.txt"
# two hosts per leaf, placed in a shuffled order
HOSTS=$(awk -F'"' '/^Ca/ { split($4, w, " "); print w[1] }' "$F/ibflow-topology.ibnd" |
	sort -u | awk 'NR % 4 == 1 || NR % 4 == 2' |
	python3 -c 'import random, sys; h = sys.stdin.read().split(); random.seed(int(sys.argv[1])); random.shuffle(h); print(",".join(h))' "$SEED")
N=$(echo "$HOSTS" | tr ',' '\n' | wc -l)

down() { "$NF" --name "$NAME" down >/dev/null 2>&1; }
trap down EXIT
down
"$NF" --name "$NAME" up --topo "$F/ibflow-topology.ibnd" \
	--lfts "$F/ibflow-lfts.dump" --mgmt --rate "$RATE" >"$OUT/up.log" 2>&1 ||
	{ echo "netns-fabric up failed: $(tail -3 "$OUT/up.log")" >&2; exit 1; }
MNET=$(sed -n 's/^# name .* mgmt \(10\.[0-9]*\.0\.0\/16\).*/\1/p' "$STATE/$NAME/hosts")

bench() { # WAY RUN [mpirun args]
	local way=$1 run=$2
	shift 2
	timeout 900 mpirun --allow-run-as-root --oversubscribe -np "$N" \
		-H "$HOSTS" --mca plm_rsh_agent "$STATE/$NAME/rsh" \
		--mca oob_tcp_if_include "$MNET" --mca pml ob1 \
		--mca btl self,tcp --mca btl_tcp_if_include fab1 \
		--mca mpi_yield_when_idle 1 -x LD_LIBRARY_PATH "$@" \
		"$CHECK" --max-bytes 0 --time "$BYTES" --reps "$REPS" \
		>"$OUT/$way.$run.out" 2>"$OUT/$way.$run.err"
}
IBF=(-x LD_PRELOAD="$MPILIB" -x UCX_IBFLOW_TLS=tcp -x UCX_IBFLOW_NET_DEVICES=fab1
     -x UCX_IBFLOW_TIMEOUT=120s -x UCX_IBFLOW_BCAST=pipeline -x IBFLOW_MPI_STATS=1)
for run in $(seq 1 "$RUNS"); do
	bench dfs "$run" "${IBF[@]}" -x UCX_IBFLOW_FABRIC="$F" \
		-x UCX_IBFLOW_ADDRMAP="$STATE/$NAME/hosts" ||
		echo "# dfs run $run failed: $(tail -2 "$OUT/dfs.$run.err" | tr '\n' ' ')" >&2
	bench random "$run" "${IBF[@]}" ||
		echo "# random run $run failed: $(tail -2 "$OUT/random.$run.err" | tr '\n' ' ')" >&2
	bench ompi "$run" ||
		echo "# ompi run $run failed: $(tail -2 "$OUT/ompi.$run.err" | tr '\n' ' ')" >&2
done

echo "# tree xgft:2:4,4:1,1, $N hosts placed in the order $HOSTS; links $RATE"
echo "# $BYTES bytes, median of $REPS broadcasts per run, median of $RUNS runs"
awk -v b="$BYTES" -v rate="$RATE" 'BEGIN { v = rate + 0; u = tolower(rate)
	sub(/^[0-9.]+/, "", u)
	m = u == "kbit" ? 1e3 : (u == "mbit" ? 1e6 : (u == "gbit" ? 1e9 : 1))
	printf "# one message over one link: %.3f s\n", b * 8 / (v * m) }'
for way in dfs random ompi; do
	cat "$OUT"/$way.*.out 2>/dev/null | awk -v way="$way" '
	/^bcast-time:/ { t[++k] = $5 }
	END { if (!k) { print way, "-"; exit }
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && t[j - 1] > t[j]; j--) {
				x = t[j]; t[j] = t[j - 1]; t[j - 1] = x }
		printf "%s %.3f s (runs:", way, k % 2 ? t[(k + 1) / 2] : (t[k / 2] + t[k / 2 + 1]) / 2
		for (i = 1; i <= k; i++) printf " %.3f", t[i]
		print ")" }'
done
grep -h "bcast-pipeline" "$OUT"/dfs.1.err 2>/dev/null | head -1 | sed 's/^/# /'
echo "# raw files: $OUT"
