#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# All-to-all over soft-RoCE: ibflow-a2a-bench under mpirun over UCX's
# rc_verbs on rdma_rxe devices, inside the qemu VM (scripts/softroce-vm,
# one boot), on an emulated fabric (scripts/netns-fabric --endpoints root
# --rxe: the switches in namespaces, one rxe device per host port in the
# root namespace, routes = the LFTs) with tbf rate-limited links.
#
#   tests/bench/bench_a2a_softroce.sh [--rate RATE] [--sizes "B ..."]
#       [--iters K] [--runs N] [--algs "A ..."] [--queue LAT]
#       [--timeout S] [--out DIR]
#
# Fabric: the Dragonfly dragonfly:2,1,1 of bench_a2a_netns.sh df (3 groups
# of 2 routers, 6 hosts), min-hop; one process per host (rank i on host
# h000i, UCX_NET_DEVICES = that host's rxe device).  Algorithms (default
# "liquid liquidbar pairwise ompi ompi1"): liquid, liquid with a barrier
# per frame and pairwise through libibflow_mpi (its own UCP context on the
# same rxe device, UCX_IBFLOW_TLS=rc_verbs,ud_verbs), Open MPI 4.1's tuned
# default and forced algorithm N (ompiN), all over pml ucx with
# UCX_TLS=self,rc_verbs,ud_verbs.  Defaults: 20mbit links, blocks 32768
# to 131072 bytes (at 256 KiB packets were lost under TCG and every loss
# cost an RC timeout), 3 timed iterations (+1 warm-up), 3 runs, tbf queues of
# 1000 ms (RoCE expects a lossless fabric; netns-fabric's 100 ms queues
# drop bursts and rxe then waits for its retransmission timer; with deep
# queues the RC ACK timeout goes up from UCX's 1 s to 2 s, else Open
# MPI's linear algorithm, all transfers at once, queues packets longer
# than the timeout: retries exhausted, "Work Request Flushed Error",
# abort), VM timeout
# 3000 s.  The table (bench_a2a_netns.sh's: median of the runs, the liquid
# bound of the routed paths) goes to stdout; raw files to DIR (default a
# temporary directory, printed).  Under TCG (no KVM) the emulation's CPU
# cost is part of every figure.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=a2a_algs.sh
. "$REPO/tests/bench/a2a_algs.sh"
B=${BUILD_DIR:-$REPO/build}
NAME=a2abrx
STATE=/run/ibflow-netns

# ---- inside the VM ---------------------------------------------------------
if [ "${1:-}" = --guest ]; then
	OUT=$2 RATE=$3 SIZES=$4 ITERS=$5 RUNS=$6 ALGS=$7 QUEUE=$8
	I=$B/common/ibflow
	NF=$REPO/scripts/netns-fabric
	F=$OUT/fab
	export IBFLOW=$I
	export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	mark() { echo "# $(date +%T) $*" >>"$OUT/guest.log"; }
	mkdir -p "$F"
	mark "guest up, load $(cut -d' ' -f1-3 /proc/loadavg)"
	# bursts overflow veth's backlog under emulation (../shared/NOTES.md)
	sysctl -qw net.core.netdev_max_backlog=100000
	"$I" gen dragonfly:2,1,1 -o "$F/ibflow-topology.ibnd" >/dev/null &&
	"$I" route --topo "$F/ibflow-topology.ibnd" --engine minhop \
		-o "$F/ibflow-lfts.dump" >/dev/null || exit 1
	printf '%s\n' "# bench_a2a_softroce.sh: topology and LFTs as routed here" \
		"engine bench" "routing 1" "endpoints 6" "switches 6" "lmc 0" \
		"topology ibflow-topology.ibnd" "lfts ibflow-lfts.dump" \
		>"$F/ibflow-export.txt"
	HOSTS="h0000 h0001 h0002 h0003 h0004 h0005"
	for h in $HOSTS; do echo "\"$h HCA-1\""; done >"$OUT/hosts.txt"
	"$I" liquid --topo "$F/ibflow-topology.ibnd" --lfts "$F/ibflow-lfts.dump" \
		--alltoall "$OUT/hosts.txt" --time-limit 10 >"$OUT/liquid.txt" 2>&1
	"$NF" --name $NAME up --topo "$F/ibflow-topology.ibnd" \
		--lfts "$F/ibflow-lfts.dump" --endpoints root --rxe --mtu 9000 \
		--rate "$RATE" >"$OUT/up.log" 2>&1 || { mark "up failed"; exit 1; }
	mark "fabric up"
	# deeper tbf queues (see the header)
	for ns in $(ip netns list | awk -v p="$NAME-" 'index($1, p) == 1 { print $1 }'); do
		ip netns exec "$ns" tc qdisc show | awk '$2 == "tbf" { print $5 }' |
		while read -r dev; do
			ip netns exec "$ns" tc qdisc change dev "$dev" root handle 1: \
				tbf rate "$RATE" burst $((4 * 9014)) latency "$QUEUE" || exit 1
		done
	done
	MAP=$STATE/$NAME/hosts
	# the rxe devices, ACTIVE (a few seconds under TCG)
	for _ in $(seq 300); do
		ok=1
		for d in $(awk '!/^#/ { print $10 }' "$MAP"); do
			st=
			read -r st <"/sys/class/infiniband/$d/ports/1/state" 2>/dev/null
			[ "$st" = "4: ACTIVE" ] || ok=0
		done
		[ $ok = 1 ] && break
		sleep 1
	done
	mark "rxe devices: $(awk '!/^#/ { printf "%s=%s ", $1, $10 }' "$MAP") ready=$ok"
	# rank i: host i's rxe device for Open MPI's UCX and ibflow's
	cat >"$OUT/rank.sh" <<EOF
#!/bin/bash
h=\$(echo $HOSTS | cut -d' ' -f\$((OMPI_COMM_WORLD_RANK + 1)))
d=\$(awk -v h="\$h" '\$1 == h { print \$10 }' $MAP)
export UCX_NET_DEVICES=\$d:1
# ibflow's own context (UCX warns about an unused variable without it)
case \${LD_PRELOAD:-} in *ibflow*) export UCX_IBFLOW_NET_DEVICES=\$d:1 ;; esac
exec "\$@"
EOF
	chmod +x "$OUT/rank.sh"
	echo "n/a (rxe)" >"$OUT/flow.txt"
	BENCH=$B/tests/ucx/ibflow-a2a-bench
	IBF=(-x LD_PRELOAD="$B/ucx_component/.libs/libibflow_mpi.so"
	     -x UCX_IBFLOW_FABRIC="$F" -x UCX_IBFLOW_ADDRMAP="$MAP"
	     -x UCX_IBFLOW_TLS=self,rc_verbs,ud_verbs -x UCX_IBFLOW_TIMEOUT=30s
	     -x UCX_IBFLOW_ALLTOALL_THRESH=0 -x IBFLOW_MPI_STATS=1)
	bench() {
		local alg=$1 run=$2
		shift 2
		echo "$alg $run $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
		timeout 900 mpirun --allow-run-as-root --oversubscribe -np 6 \
			--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any \
			--mca btl self --mca osc ucx --mca mpi_yield_when_idle 1 \
			-x UCX_TLS=self,rc_verbs,ud_verbs -x UCX_UD_ETH_DGID_CHECK=n \
			-x UCX_RC_VERBS_TIMEOUT=2s \
			-x LD_LIBRARY_PATH "$@" "$OUT/rank.sh" \
			"$BENCH" -f --min "${SIZES%% *}" --max "${SIZES##* }" \
			--iters "$ITERS" --warmup 1 >"$OUT/$alg.$run.out" \
			2>"$OUT/$alg.$run.err"
	}
	for run in $(seq 1 "$RUNS"); do
		for alg in $ALGS; do
			bench_alg "$alg" "$run"
			mark "$alg run $run exit $?"
		done
	done
	# packets the hosts' interfaces sent: the traffic went over the wire
	for d in $(awk '!/^#/ { print $3 }' "$MAP"); do
		echo "$d $(cat /sys/class/net/$d/statistics/tx_packets)"
	done >"$OUT/tx_packets.txt"
	"$NF" --name $NAME down >/dev/null 2>&1
	mark "done"
	exit 0
fi

# ---- on the host -------------------------------------------------------------
RATE=20mbit SIZES="32768 131072" ITERS=3 RUNS=3 QUEUE=1000ms TMO=3000 OUT=
ALGS="liquid liquidbar pairwise ompi ompi1"
while [ $# -gt 0 ]; do
	case $1 in
	--rate) RATE=$2 ;;
	--sizes) SIZES=$2 ;;
	--iters) ITERS=$2 ;;
	--runs) RUNS=$2 ;;
	--algs) ALGS=$2 ;;
	--queue) QUEUE=$2 ;;
	--timeout) TMO=$2 ;;
	--out) OUT=$2 ;;
	*) echo "usage: bench_a2a_softroce.sh [--rate R] [--sizes \"B ...\"] [--iters K] [--runs N] [--algs \"A ...\"] [--queue LAT] [--timeout S] [--out DIR]" >&2
	   exit 2 ;;
	esac
	shift 2 || exit 2
done
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
# KVM here hangs or aborts in the nested guest: skip softroce-vm's probe boot
export SOFTROCE_VM_ACCEL=${SOFTROCE_VM_ACCEL:-tcg}
mode=$("$REPO/scripts/softroce-vm" --check) || { echo "$mode" >&2; exit 1; }
t0=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
BUILD_DIR=$B "$REPO/scripts/softroce-vm" -n 0 -t "$TMO" -r "$OUT" -- \
	bash "$REPO/tests/bench/bench_a2a_softroce.sh" --guest "$OUT" "$RATE" \
	"$SIZES" "$ITERS" "$RUNS" "$ALGS" "$QUEUE"
rc=$?
secs=$(($(date +%s) - t0))
echo "# ${mode#softroce-vm: ready }; $(nproc) host cores; host load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; VM run ${secs}s (exit $rc); tbf queues $QUEUE"
[ -f "$OUT/guest.log" ] && sed 's/^/# guest: /' "$OUT/guest.log"
# The table as bench_a2a_netns.sh prints it (same files, same medians).
A2A_BENCH_TABLE=1 A2A_BENCH_OUT=$OUT A2A_BENCH_ALGS=$ALGS BUILD_DIR=$B \
	bash "$REPO/tests/bench/bench_a2a_netns.sh" df "$RATE" "$SIZES" "$ITERS" "$RUNS"
exit $rc
