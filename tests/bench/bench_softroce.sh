#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Verbs and UCX latency/bandwidth between two rxe devices inside the
# soft-RoCE VM (scripts/softroce-vm), beside UCX's tcp transport over the
# same veth wire; each figure is the median of RUNS runs.
#
#   tests/bench/bench_softroce.sh [--runs N] [--out FILE]
#
# Prints Markdown tables (also written to FILE): between rxe0 and rxe1 on
# softroce's bridged veths, and (when scripts/netns-fabric and the built
# ibflow are there) between two hosts of an emulated XGFT(2;2,2;1,2) three
# switches apart.  Measured:
#   ibv_rc_pingpong  4096 B, 200 iterations, events (-e): usec/iter
#   ib_write_lat     8 B, 500 iterations, GID index 1: typical usec
#   ib_write_bw      64 KiB, 500 iterations, GID index 1: MB/s average
#   ucx_perftest     tag_lat 8 B (1000 iterations, p50 usec) and tag_bw
#                    64 KiB (200 iterations, MB/s), with
#                    UCX_TLS=rc_verbs,ud_verbs and with UCX_TLS=tcp
# Under TCG (no KVM) every figure is dominated by emulation; the table says
# which was used.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T_BUILD_DIR=${T_BUILD_DIR:-${BUILD_DIR:-$REPO/build}}
export T_BUILD_DIR

# ---- inside the VM ---------------------------------------------------------
# serve PORT CMD...: start a server in the background, wait for its port.
serve() {
	local p=$1 hex

	shift
	# A client that fails can leave its server waiting for ever.
	timeout 300 "$@" >/tmp/server.out 2>&1 &
	SPID=$!
	hex=$(printf '%04X' "$p")
	for _ in $(seq 300); do
		grep -q ":$hex [0-9A-F:]* 0A " /proc/net/tcp && return 0
		sleep 0.2
	done
	return 1
}
finish() { wait "$SPID" 2>/dev/null; }

# measure TAG SDEV CDEV SIP SIF CIF: one run of every measurement between a
# server on rxe device SDEV (address SIP, interface SIF) and a client on
# CDEV (CIF); appends "TAG_<key> <value>" lines to $OUT.
measure() {
	local tag=$1 sd=$2 cd=$3 ip=$4 sif=$5 cif=$6 v tl tls d0 d1 pk pk2

	PORT=$((PORT + 10))
	serve $PORT ibv_rc_pingpong -d "$sd" -g 1 -s 4096 -n 200 -e -p $PORT
	v=$(timeout 300 ibv_rc_pingpong -d "$cd" -g 1 -s 4096 -n 200 -e -p $PORT "$ip" |
		sed -n 's/.* = \([0-9.]*\) usec\/iter$/\1/p')
	finish
	echo "${tag}_pingpong_4k_us $v" >>"$OUT"

	serve $((PORT + 1)) ib_write_lat -d "$sd" -x 1 -s 8 -n 500 -p $((PORT + 1))
	v=$(timeout 300 ib_write_lat -d "$cd" -x 1 -s 8 -n 500 -p $((PORT + 1)) "$ip" |
		awk '$1 == 8 && NF >= 5 { print $5 }')
	finish
	echo "${tag}_write_lat_8_us $v" >>"$OUT"

	serve $((PORT + 2)) ib_write_bw -d "$sd" -x 1 -s 65536 -n 500 -p $((PORT + 2))
	v=$(timeout 300 ib_write_bw -d "$cd" -x 1 -s 65536 -n 500 -p $((PORT + 2)) "$ip" |
		awk '$1 == 65536 && NF >= 4 { print $4 }')
	finish
	echo "${tag}_write_bw_64k_MBs $v" >>"$OUT"

	for tl in rc tcp; do
		if [ $tl = rc ]; then
			tls=rc_verbs,ud_verbs d0=$sd:1 d1=$cd:1
		else
			tls=tcp d0=$sif d1=$cif
		fi
		serve $((PORT + 3)) env UCX_TLS=$tls UCX_NET_DEVICES=$d0 \
			ucx_perftest -p $((PORT + 3))
		v=$(UCX_TLS=$tls UCX_NET_DEVICES=$d1 timeout 300 ucx_perftest "$ip" -p $((PORT + 3)) \
			-t tag_lat -s 8 -n 1000 | awk '$1 == "Final:" { print $3 }')
		finish
		echo "${tag}_ucx_${tl}_tag_lat_us $v" >>"$OUT"
		serve $((PORT + 4)) env UCX_TLS=$tls UCX_NET_DEVICES=$d0 \
			ucx_perftest -p $((PORT + 4))
		read -r pk </sys/class/net/$cif/statistics/tx_packets
		v=$(UCX_TLS=$tls UCX_NET_DEVICES=$d1 timeout 300 ucx_perftest "$ip" -p $((PORT + 4)) \
			-t tag_bw -s 65536 -n 200 | awk '$1 == "Final:" { print $6 }')
		finish
		read -r pk2 </sys/class/net/$cif/statistics/tx_packets
		echo "${tag}_ucx_${tl}_tag_bw_MBs $v" >>"$OUT"
		# Packets the client's interface sent: 200 x 64 KiB need >= 3200
		# 4 KiB packets on the wire; far fewer means loopback.
		echo "${tag}_ucx_${tl}_tag_bw_wire_packets $((pk2 - pk))" >>"$OUT"
		PORT=$((PORT + 5))
	done
}

# The emulated fabric: XGFT(2;2,2;1,2) routed by D-mod-K, endpoints in the
# root namespace with rxe devices; h0000 and h0003 hang off different leaf
# switches, so their path is leaf - spine - leaf.
fabric_up() {
	local ibf=$T_BUILD_DIR/common/ibflow d=/tmp/bench-fabric

	mkdir -p $d
	"$ibf" gen xgft:2:2,2:1,2 -o $d/f.topo >/dev/null &&
	"$ibf" route --topo $d/f.topo --engine dmodk -o $d/f.lfts >/dev/null &&
	IBFLOW=$ibf "$REPO/scripts/netns-fabric" --name ibfsb up \
		--topo $d/f.topo --lfts $d/f.lfts --endpoints root --rxe \
		--mtu 9000 >/dev/null
}

# host_field HOST N: field N of HOST's line in the fabric's host map.
host_field() {
	awk -v h="$1" -v n="$2" '$1 == h { print $n; exit }' /run/ibflow-netns/ibfsb/hosts
}

if [ "${1:-}" = --guest ]; then
	RUNS=$2
	OUT=$3
	PORT=19000
	# The default wire: rxe0 and rxe1 on veths bridged together.
	for ((r = 1; r <= RUNS; r++)); do
		measure veth rxe0 rxe1 10.214.0.1 ibfs0v ibfs1v
	done
	if [ -x "$REPO/scripts/netns-fabric" ] && [ -x "$T_BUILD_DIR/common/ibflow" ]; then
		if fabric_up; then
			sd=$(host_field h0000 10) cd=$(host_field h0003 10)
			sif=$(host_field h0000 3) cif=$(host_field h0003 3)
			sip=$(host_field h0000 11)
			for ((r = 1; r <= RUNS; r++)); do
				measure fabric "$sd" "$cd" "${sip%%,*}" "$sif" "$cif"
			done
			"$REPO/scripts/netns-fabric" --name ibfsb down >/dev/null
		else
			echo "bench_softroce: netns-fabric up failed" >&2
		fi
	fi
	exit 0
fi

# ---- on the host -------------------------------------------------------------
RUNS=3
OUT=
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift ;;
	--out) OUT=$2; shift ;;
	*) echo "usage: bench_softroce.sh [--runs N] [--out FILE]" >&2; exit 2 ;;
	esac
	shift
done
case $RUNS in ''|*[!0-9]*|0) echo "bench_softroce: --runs: '$RUNS' is not a positive number" >&2; exit 2 ;; esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/ibfs-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mode=$("$REPO/scripts/softroce-vm" --check) || { echo "$mode" >&2; exit 1; }
t0=$(date +%s)
"$REPO/scripts/softroce-vm" -n 2 -t 3000 -r "$dir" -- \
	bash "$REPO/tests/bench/bench_softroce.sh" --guest "$RUNS" "$dir/raw" || {
	echo "bench_softroce: the VM run failed" >&2
	exit 1
}
secs=$(($(date +%s) - t0))

median() {
	awk -v k="$1" '$1 == k && $2 != "" { print $2 }' "$dir/raw" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "-"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.4g (of %d)\n", m, NR }'
}

table() { # table TAG TITLE
	echo
	echo "$2"
	echo
	echo "| measurement | rxe (verbs / UCX rc_verbs) | UCX tcp |"
	echo "|---|---|---|"
	echo "| ibv_rc_pingpong 4 KiB, usec/iter | $(median "$1"_pingpong_4k_us) | |"
	echo "| ib_write_lat 8 B, typical usec | $(median "$1"_write_lat_8_us) | |"
	echo "| ib_write_bw 64 KiB, MB/s | $(median "$1"_write_bw_64k_MBs) | |"
	echo "| ucx_perftest tag_lat 8 B, p50 usec | $(median "$1"_ucx_rc_tag_lat_us) | $(median "$1"_ucx_tcp_tag_lat_us) |"
	echo "| ucx_perftest tag_bw 64 KiB, MB/s | $(median "$1"_ucx_rc_tag_bw_MBs) | $(median "$1"_ucx_tcp_tag_bw_MBs) |"
	echo "| packets the client's interface sent during tag_bw | $(median "$1"_ucx_rc_tag_bw_wire_packets) | $(median "$1"_ucx_tcp_tag_bw_wire_packets) |"
}

{
	echo "${mode#softroce-vm: ready }; $(nproc) host cores; load average $(cut -d' ' -f1-3 /proc/loadavg); VM run ${secs}s"
	table veth "rxe0 -> rxe1 over veths on one bridge:"
	if grep -q '^fabric_' "$dir/raw"; then
		table fabric "h0000 -> h0003 through the emulated XGFT(2;2,2;1,2) (leaf, spine, leaf):"
	fi
} | tee "${OUT:-/dev/null}"
