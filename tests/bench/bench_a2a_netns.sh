#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# All-to-all on an emulated fabric with rate-limited links
# (scripts/netns-fabric, docs/netns-fabric.md): ibflow-a2a-bench under
# mpirun (one process per host, through the fabric's rsh agent), every
# algorithm, RUNS runs each; prints the median table and the liquid bound.
#
#   tests/bench/bench_a2a_netns.sh FABRIC [RATE] [SIZES] [ITERS] [RUNS]
#
# FABRIC: ft   2:1 oversubscribed 2-level fat tree xgft:2:4,4:1,2 (16
#              hosts, 4 leaves of 4 hosts and 2 uplinks), D-mod-K, and a
#              scattered half of its hosts (8)
#         df   Dragonfly dragonfly:2,1,1 (3 groups of 2 routers, 6 hosts),
#              min-hop
#         t1   the Swiss-T1 of the liquid scheduling paper (ibflow gen
#              swisst1: 8 switches in a K-ring, 32 nodes of 2 processors)
#              with its static routes (route --engine swisst1); one
#              process on the first (transmitting) processor of each
#              allocated node: A2A_BENCH_ALLOC nodes per switch t1-sw1 ..
#              t1-sw8 (default "1 1 1 1 2 2 0 0": 8 nodes, liquid bound
#              1.57x round robin's)
# RATE   tc rate of every link (default 20mbit); SIZES block bytes
#        (default "65536 262144"); ITERS timed iterations (default 3, one
#        warm-up); RUNS (default 3).
# Algorithms: liquid, liquidbar (liquid with a barrier per frame,
# UCX_IBFLOW_ALLTOALL_SYNC=barrier) and pairwise (libibflow_mpi preloaded,
# UCX_IBFLOW_ALLTOALL), Open MPI's own (tuned's default decision and each
# forced coll_tuned_alltoall_algorithm 1..4), all over UCX's TCP transport
# on the fabric (pml ucx; UCX_RNDV_THRESH=inf unless set).
# Bound: the liquid throughput of the hosts' routed paths (ibflow liquid):
# N (N - 1) blocks in DURATION link-times of one block at RATE.
# Output: a table on stdout; raw files kept in $A2A_BENCH_OUT (default a
# temporary directory, printed).  Environment: A2A_BENCH_ALGS (a subset),
# A2A_BENCH_HOSTS (other hosts), A2A_BENCH_QUEUE (tbf queue limit, e.g.
# 5ms), A2A_BENCH_IDLE=0 (no TCP slow start after idle on the hosts),
# A2A_BENCH_TABLE=1 (only the table of the runs in A2A_BENCH_OUT),
# A2A_BENCH_X (e.g. UCX_IBFLOW_ALLTOALL_SYNC=barrier for libibflow_mpi),
# A2A_BENCH_PPN (ranks per host, default 1: consecutive ranks on a host;
# the bound is then the host pairs', `ibflow liquid --ppn`: the busiest
# link's blocks, K^2 per host pair, and the aggregate counts the blocks
# between hosts only).
set -uo pipefail

FAB=${1:?usage: $0 ft|df|t1 [RATE] [SIZES] [ITERS] [RUNS]}
RATE=${2:-20mbit}
SIZES=${3:-65536 262144}
ITERS=${4:-3}
RUNS=${5:-3}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=a2a_algs.sh
. "$REPO/tests/bench/a2a_algs.sh"
B=${BUILD_DIR:-$REPO/build}
I=$B/common/ibflow
NF=$REPO/scripts/netns-fabric
NAME=a2ab$FAB                      # namespaces a2abft-* / a2abdf-* / a2abt1-*
STATE=${NETNS_FABRIC_STATE:-/run/ibflow-netns}
OUT=${A2A_BENCH_OUT:-$(mktemp -d /tmp/a2abench.XXXXXX)}
BENCH=$B/tests/ucx/ibflow-a2a-bench
MPILIB=$B/ucx_component/.libs/libibflow_mpi.so
export IBFLOW=$I
export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

mkdir -p "$OUT/fab"
F=$OUT/fab
# A2A_BENCH_TABLE=1: only the table of the runs already in $A2A_BENCH_OUT
TABLE_ONLY=${A2A_BENCH_TABLE:-0}
[ "$TABLE_ONLY" = 1 ] && I=true     # the files are there
case $FAB in
ft)
	"$I" gen xgft:2:4,4:1,2 -o "$F/ibflow-topology.ibnd" || exit 1
	"$I" route --topo "$F/ibflow-topology.ibnd" --engine dmodk \
		-o "$F/ibflow-lfts.dump" >/dev/null || exit 1
	# two hosts of each leaf, at different positions (a scattered half)
	HOSTS="h0001 h0002 h0004 h0005 h0009 h0010 h0014 h0015"
	NE=16 NS=6 ;;
df)
	"$I" gen dragonfly:2,1,1 -o "$F/ibflow-topology.ibnd" || exit 1
	"$I" route --topo "$F/ibflow-topology.ibnd" --engine minhop \
		-o "$F/ibflow-lfts.dump" >/dev/null || exit 1
	HOSTS="h0000 h0001 h0002 h0003 h0004 h0005"
	NE=6 NS=6 ;;
t1)
	"$I" gen swisst1 -o "$F/ibflow-topology.ibnd" || exit 1
	"$I" route --topo "$F/ibflow-topology.ibnd" --engine swisst1 \
		-o "$F/ibflow-lfts.dump" >/dev/null || exit 1
	# node q of switch r: processors 8r + 2q (sends, here the rank's
	# host) and 8r + 2q + 1 (receives in the paper, idle here)
	HOSTS=$(echo ${A2A_BENCH_ALLOC:-1 1 1 1 2 2 0 0} | awk '{
		if (NF != 8) exit 1
		for (r = 0; r < 8; r++)
			for (q = 0; q < $(r + 1) && q < 4; q++)
				printf "h%04d ", 8 * r + 2 * q }')
	[ -n "$HOSTS" ] || { echo "$0: A2A_BENCH_ALLOC: 8 counts 0..4" >&2; exit 2; }
	HOSTS=${HOSTS% }
	NE=64 NS=8 ;;
*)
	echo "$0: FABRIC must be ft, df or t1" >&2
	exit 2 ;;
esac
{
	echo "# bench_a2a_netns.sh: topology and LFTs as routed here"
	echo "engine bench"; echo "routing 1"; echo "endpoints $NE"
	echo "switches $NS"; echo "lmc 0"
	echo "topology ibflow-topology.ibnd"; echo "lfts ibflow-lfts.dump"
} >"$F/ibflow-export.txt"
HOSTS=${A2A_BENCH_HOSTS:-$HOSTS}   # a subset, for diagnosis
# the control lane's priority band (UCX_IBFLOW_CTL_TCP_PORTS' default);
# A2A_BENCH_CTL= (empty) for links without it
A2A_BENCH_CTL=${A2A_BENCH_CTL-20480-20607}
N=$(echo "$HOSTS" | wc -w)
PPN=${A2A_BENCH_PPN:-1}
[ "$TABLE_ONLY" = 1 ] || for h in $HOSTS; do echo "\"$h HCA-1\""; done >"$OUT/hosts.txt"
[ "$TABLE_ONLY" = 1 ] || {
"$I" liquid --topo "$F/ibflow-topology.ibnd" --lfts "$F/ibflow-lfts.dump" \
	--alltoall "$OUT/hosts.txt" --time-limit 10 >"$OUT/liquid.txt.new" 2>&1 &&
	mv "$OUT/liquid.txt.new" "$OUT/liquid.txt"; }
[ "$TABLE_ONLY" = 1 ] || [ "$PPN" = 1 ] ||
"$I" liquid --topo "$F/ibflow-topology.ibnd" --lfts "$F/ibflow-lfts.dump" \
	--alltoall "$OUT/hosts.txt" --ppn "$PPN" >"$OUT/liquid-ppn.txt" 2>&1
DUR=$(awk '$1 == "duration" { print $2; exit }' "$OUT/liquid.txt")
RR=$(awk '$1 == "round" && $2 == "robin" && $4 == "frames" { print $3 }' "$OUT/liquid.txt")
# the bound in block-times: the host-level bound's blocks with PPN ranks
BOUND=$DUR
[ "$PPN" = 1 ] || BOUND=$(awk '$1 == "bound" { print $2 }' "$OUT/liquid-ppn.txt")

ALGS=${A2A_BENCH_ALGS:-liquid liquidbar pairwise ompi ompi1 ompi2 ompi3 ompi4}
if [ "$TABLE_ONLY" != 1 ]; then
down() { "$NF" --name "$NAME" down >/dev/null 2>&1; }
trap down EXIT
down
"$NF" --name "$NAME" up --topo "$F/ibflow-topology.ibnd" \
	--lfts "$F/ibflow-lfts.dump" --mgmt --rate "$RATE" \
	${A2A_BENCH_CTL:+--ctl-ports "$A2A_BENCH_CTL"} \
	$([ "${A2A_BENCH_SMALL:-0}" = 1 ] && echo --prio-small) >"$OUT/up.log" 2>&1 ||
	{ echo "netns-fabric up failed: $(tail -3 "$OUT/up.log")" >&2; exit 1; }
# QUEUE: the tbf queues' limit in time (netns-fabric: 100 ms).  Real IB
# links have credit-based flow control and buffers of a few KB, no long
# queues: small messages (the ready tokens) do not wait behind 100 ms of
# bulk data there.
if [ -n "${A2A_BENCH_QUEUE:-}" ]; then
	for ns in $(ip netns list | awk -v p="$NAME-" 'index($1, p) == 1 { print $1 }'); do
		ip netns exec "$ns" tc qdisc show | awk '$2 == "tbf" { print $5, $0 }' |
		while read -r dev line; do
			q=$(echo "$line" | sed -n 's/.* rate \([^ ]*\) burst \([^ ]*\).*/rate \1 burst \2/p')
			ip netns exec "$ns" tc qdisc change dev "$dev" root handle 1: \
				tbf $q latency "$A2A_BENCH_QUEUE" || exit 1
		done
	done
fi
# What one TCP flow gets along a path (first host to the last one; 4 MB,
# python sockets): the emulated fabric's own ceiling on a loaded machine.
tcp_flow() {
	local src=${HOSTS%% *} dst=${HOSTS##* } addr
	addr=$("$NF" --name "$NAME" addr "$dst")
	"$NF" --name "$NAME" exec "$dst" timeout 120 python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 23456)); s.listen(1); c, _ = s.accept(); n = 0
while True:
    b = c.recv(1 << 16)
    if not b: break
    n += len(b)
c.sendall(b"k"); c.close()' "$addr" &
	sleep 1
	"$NF" --name "$NAME" exec "$src" timeout 120 python3 -c '
import socket, sys, time
for i in range(100):   # the server may not listen yet on a loaded machine
    try:
        s = socket.create_connection((sys.argv[1], 23456)); break
    except ConnectionRefusedError:
        time.sleep(0.1)
b = bytes(1 << 16)
t = time.time()
for i in range(64): s.sendall(b)
s.shutdown(socket.SHUT_WR); s.recv(1); t = time.time() - t
print("%.3f" % ((64 << 16) / t / 1e6))' "$addr"
	wait
}
# A2A_BENCH_IDLE=0: no slow start after idle on the hosts (Linux restarts
# a connection idle for an RTO from the initial window; each pair's
# connection carries one block per all-to-all and idles in between).
if [ -n "${A2A_BENCH_IDLE:-}" ]; then
	for h in $HOSTS; do
		"$NF" --name "$NAME" exec "$h" sysctl -qw \
			net.ipv4.tcp_slow_start_after_idle="$A2A_BENCH_IDLE" || exit 1
	done
fi
FLOW=$(tcp_flow)
echo "$FLOW" >"$OUT/flow.txt"
MNET=$(sed -n 's/^# name .* mgmt \(10\.[0-9]*\.0\.0\/16\).*/\1/p' "$STATE/$NAME/hosts")
HL=$(for h in $HOSTS; do printf '%s:%s,' "$h" "$PPN"; done)
HL=${HL%,}

# bench ALG RUN [mpirun args]: one ibflow-a2a-bench run into ALG.RUN.out
bench() {
	local alg=$1 run=$2
	shift 2
	echo "$alg $run $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
	timeout 900 mpirun --allow-run-as-root --oversubscribe \
		-np $((N * PPN)) -H "$HL" --mca plm_rsh_agent "$STATE/$NAME/rsh" \
		--mca oob_tcp_if_include "$MNET" --mca pml ucx \
		--mca pml_ucx_tls any --mca pml_ucx_devices any \
		-x UCX_TLS=tcp,self -x UCX_NET_DEVICES=fab1 -x UCX_RNDV_THRESH \
		--mca mpi_yield_when_idle 1 -x LD_LIBRARY_PATH "$@" \
		"$BENCH" -f --min "${SIZES%% *}" --max "${SIZES##* }" \
		--iters "$ITERS" --warmup 1 >"$OUT/$alg.$run.out" \
		2>"$OUT/$alg.$run.err"
}
IBF=(-x LD_PRELOAD="$MPILIB" -x UCX_IBFLOW_FABRIC="$F"
     -x UCX_IBFLOW_ADDRMAP="$STATE/$NAME/hosts" -x UCX_IBFLOW_TLS=tcp
     -x UCX_IBFLOW_NET_DEVICES=fab1 -x UCX_IBFLOW_TIMEOUT=120s
     -x UCX_IBFLOW_ALLTOALL_THRESH=0 -x IBFLOW_MPI_STATS=1)
# Every process's UCX (Open MPI's pml ucx and libibflow_ucx alike) over
# the fabric's TCP.  Rendezvous over TCP costs round trips per fragment
# that halved a single exchange's throughput here (1 MB blocks between
# two hosts: 41 % of the link rate, 94 % with eager only).
export UCX_RNDV_THRESH=${UCX_RNDV_THRESH:-inf}
# A2A_BENCH_X="VAR=VALUE ...": more settings for the liquid/pairwise runs
for v in ${A2A_BENCH_X:-}; do IBF+=(-x "$v"); done
for run in $(seq 1 "$RUNS"); do
	for alg in $ALGS; do
		bench_alg "$alg" "$run" || echo "# $alg run $run failed: $(tail -2 "$OUT/$alg.$run.err" | tr '\n' ' ')" >&2
	done
done
fi
FLOW=$(cat "$OUT/flow.txt" 2>/dev/null)

# the table: median over runs of each size's max-over-ranks time
echo "# fabric $FAB ($N hosts: $HOSTS; $PPN ranks each), links $RATE, UCX_RNDV_THRESH=${UCX_RNDV_THRESH:-inf}, slow start after idle ${A2A_BENCH_IDLE:-1}, $ITERS iterations (+1 warm-up), median of the runs present (of $RUNS)"
echo "# one TCP flow along a path: $FLOW MB/s (link rate $RATE)"
[ -s "$OUT/load.txt" ] && awk '{ if (!n++ || $3 < lo) lo = $3; if ($3 > hi) hi = $3 }
	END { printf "# load average (1 min) at the start of the runs: %.2f .. %.2f\n", lo, hi }' "$OUT/load.txt"
echo "# liquid duration $DUR block-times, round robin $RR frames (ibflow liquid); bound = N(N-1) PPN^2 blocks in $BOUND block-times"
echo "# block_bytes algorithm median_max_us aggregate_MB_s percent_of_bound"
for b in $SIZES; do
	for alg in $ALGS; do
		awk -v b="$b" -v alg="$alg" -v n="$N" -v dur="$BOUND" -v ppn="$PPN" -v rate="$RATE" '
		function bps(r) { v = r + 0; u = tolower(r); sub(/^[0-9.]+/, "", u)
			m = u == "kbit" ? 1e3 : u == "mbit" ? 1e6 : u == "gbit" ? 1e9 : 1
			return v * m / 8 }
		$1 == b { t[++k] = $4 }
		END { if (!k) { print b, alg, "-", "-", "-"; exit }
			for (i = 2; i <= k; i++)   # insertion sort (mawk)
				for (j = i; j > 1 && t[j - 1] > t[j]; j--) {
					x = t[j]; t[j] = t[j - 1]; t[j - 1] = x }
			med = k % 2 ? t[(k + 1) / 2] : (t[k / 2] + t[k / 2 + 1]) / 2
			bound_us = dur * b / bps(rate) * 1e6
			printf "%d %s %.0f %.3f %.1f\n", b, alg, med,
				n * (n - 1) * ppn * ppn * b / med, 100 * bound_us / med }' \
			"$OUT"/$alg.*.out
	done
	awk -v b="$b" -v n="$N" -v dur="$BOUND" -v ppn="$PPN" -v rate="$RATE" '
	function bps(r) { v = r + 0; u = tolower(r); sub(/^[0-9.]+/, "", u)
		m = u == "kbit" ? 1e3 : u == "mbit" ? 1e6 : u == "gbit" ? 1e9 : 1
		return v * m / 8 }
	BEGIN { us = dur * b / bps(rate) * 1e6
		printf "%d bound %.0f %.3f 100.0\n", b, us, n * (n - 1) * ppn * ppn * b / us }'
done
echo "# raw files: $OUT"
