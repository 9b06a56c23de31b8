#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Make the seed corpus of fuzz_export (tests/fuzz/corpus/export/): real
# export directories, each packed into one file as fuzz_export.c reads it
# ("%%% NAME" starts file NAME).  Topologies and tables come from `ibflow
# gen` and `ibflow route`; manifests as ucx_local.sh writes them (no
# format line) and as the OpenSM plugin writes them (format 1, every
# file headed by its generation, sizes in the manifest); host and address
# maps as docs/ucx.md describes them.  Small fabrics: the files stay a few
# KB so the fuzzer runs fast.
#
#   tests/fuzz/export_corpus.sh [IBFLOW]   (default: build/common/ibflow)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IBF=${1:-$REPO/build/common/ibflow}
OUT=$REPO/tests/fuzz/corpus/export
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$OUT"
rm -f "$OUT"/*.dir

# pack NAME FILE...: the directory's files into $OUT/NAME.dir
pack() {
	local name=$1 f

	shift
	for f in "$@"; do
		printf '%%%%%% %s\n' "$(basename "$f" | sed 's/^hostmap.*/hostmap/')"
		cat "$f"
	done >"$OUT/$name.dir"
}

# fabric DIR SPEC LMC ENGINE: topology and tables
fabric() {
	mkdir -p "$1"
	"$IBF" gen "$2" --lmc "$3" -o "$1/ibflow-topology.ibnd"
	"$IBF" route --topo "$1/ibflow-topology.ibnd" --engine "$4" \
		-o "$1/ibflow-lfts.dump" --order-out "$1/order" \
		--sl-out "$1/sl" >/dev/null
}

# plain DIR N S LMC: the manifest without a format line
plain() {
	printf '# written by export_corpus.sh\nengine ibflow-dmodk\nrouting 7\nendpoints %s\nswitches %s\nlmc %s\ntopology ibflow-topology.ibnd\nlfts ibflow-lfts.dump\n' \
		"$2" "$3" "$4" >"$1/ibflow-export.txt"
}

# format1 DIR N S LMC: the plugin's manifest and headed files
format1() {
	local d=$1 g=5e1f00d2a3b4c596-3 k f
	local src=("$d/ibflow-topology.ibnd" "$d/ibflow-lfts.dump" "$d/order" "$d/sl")
	local dst=(ibflow-topology.ibnd ibflow-lfts.dump ibflow-order.txt ibflow-sl.txt)

	mkdir -p "$d/f1"
	for k in 0 1 2 3; do
		{ echo "# ibflow export $g"; cat "${src[$k]}"; } >"$d/f1/${dst[$k]}"
	done
	{
		printf '# ibflow export manifest: use the files below only while status is complete\nformat 1\ngeneration %s\nstatus complete\n' "$g"
		printf 'engine ibflow-dmodk\nrouting 3\nendpoints %s\nswitches %s\nlmc %s\nsls 1\n' "$2" "$3" "$4"
		for k in topology:ibflow-topology.ibnd lfts:ibflow-lfts.dump \
			 order:ibflow-order.txt sl:ibflow-sl.txt; do
			f=${k#*:}
			echo "file ${k%%:*} $f $(stat -c %s "$d/f1/$f")"
		done
	} >"$d/f1/ibflow-export.txt"
}

# maps DIR N: a host map by rank, an address map by address and name
maps() {
	local i

	for ((i = 0; i < $2; i++)); do
		printf 'rank:%d "h%04d HCA-1"\n' "$i" "$i"
	done >"$1/hostmap"
	{
		echo "# address map: KEY ENDPOINT"
		for ((i = 0; i < $2; i++)); do
			printf '10.208.0.%d h%04d HCA-1\n' $((i + 1)) "$i"
		done
		printf 'fe80::1 "h0000 HCA-1"\nnode-1 h0001 HCA-1\n'
	} >"$1/ibflow-addrmap.txt"
}

d=$TMP/a
fabric "$d" xgft:2:4,2:1,2 0 dmodk
plain "$d" 8 4 0
maps "$d" 8
pack plain-8h-4s "$d/ibflow-export.txt" "$d/ibflow-topology.ibnd" \
	"$d/ibflow-lfts.dump" "$d/hostmap" "$d/ibflow-addrmap.txt"
format1 "$d" 8 4 0
pack format1-8h-4s "$d/f1/ibflow-export.txt" "$d/f1/ibflow-topology.ibnd" \
	"$d/f1/ibflow-lfts.dump" "$d/f1/ibflow-order.txt" "$d/f1/ibflow-sl.txt" \
	"$d/hostmap" "$d/ibflow-addrmap.txt"
# the LFT dump cut after the first table: refused
awk '/^Unicast lids/ { n++ } n <= 1' "$d/ibflow-lfts.dump" >"$TMP/cut.dump"
cp "$TMP/cut.dump" "$TMP/ibflow-lfts.dump"
pack plain-cut "$d/ibflow-export.txt" "$d/ibflow-topology.ibnd" \
	"$TMP/ibflow-lfts.dump"

d=$TMP/b
fabric "$d" xgft:2:2,2:1,2 1 dmodk
plain "$d" 4 4 1
maps "$d" 4
pack plain-lmc1 "$d/ibflow-export.txt" "$d/ibflow-topology.ibnd" \
	"$d/ibflow-lfts.dump" "$d/hostmap"
format1 "$d" 4 4 1
pack format1-lmc1 "$d/f1/ibflow-export.txt" "$d/f1/ibflow-topology.ibnd" \
	"$d/f1/ibflow-lfts.dump" "$d/f1/ibflow-order.txt" "$d/f1/ibflow-sl.txt" \
	"$d/ibflow-addrmap.txt"
ls -l "$OUT"
