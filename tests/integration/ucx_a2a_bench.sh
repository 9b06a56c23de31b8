#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ibflow-a2a-bench under mpirun on one machine (docs/ucx-alltoall.md):
#   - the parser: every bad value exits 2 with one message (rank 0's)
#     naming the option; the old long options are aliases of OSU's; -fz
#     and -i2 forms; -M caps the largest block as OSU does;
#   - the OSU header and columns, for each option set;
#   - validation (-c): every block checked, of each datatype; a block
#     corrupted on one rank (IBFLOW_A2A_BENCH_CORRUPT=RANK:SRC:BYTES) is
#     reported as Fail with Errors 1 at that size only, also when the
#     all-to-all runs liquid through libibflow_mpi;
#   - --algorithm liquid|pairwise|mpi forces the path: the Algorithm
#     column and line agree with libibflow_mpi's own counters
#     (IBFLOW_MPI_STATS), and without it UCX_IBFLOW_ALLTOALL=auto's
#     threshold shows size by size;
#   - the liquid bound: 4 ranks on two leaves, duration 3 (n - 1 blocks
#     on each host link), so 3 x BYTES x 8 / rate, with --link-rate and
#     with the topology's 4xEDR, computed here.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

W=$T_TMP
BENCH=$T_BUILD_DIR/tests/ucx/ibflow-a2a-bench
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"
ucx_mpi_setup ucx_a2a_bench "$BENCH"
unset IBFLOW_A2A_BENCH_CORRUPT IBFLOW_MPI_STATS
# 8 hosts, 2 leaves, 2 spines; ranks 0..3 on hosts of both leaves
F=$W/fab
ucx_two_leaves "$F" "$W/map" || t_fail "fabric for the tests" "ibflow gen/route failed"

# bench NAME NP [MPIRUN OPTIONS...] -- ARGS: $W/NAME.out, .err; status in $rc
bench() {
	local name=$1 np=$2 ms=()
	shift 2
	until [ "$1" = -- ]; do ms+=("$1"); shift; done
	shift
	ucx_mpirun "$np" "${ms[@]}" "$BENCH" "$@" >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
}
# the data rows (no '#')
rows() { grep -v '^#' "$W/$1.out"; }
# column N of the row of SIZE
col() { rows "$1" | awk -v s="$2" -v c="$3" '$1 == s { print $c }'; }
PRELOAD=(-x LD_PRELOAD="$MPILIB" -x UCX_IBFLOW_FABRIC="$F" -x UCX_IBFLOW_HOSTMAP="$W/map")

# ---- the parser ---------------------------------------------------------------
# bad ARGS... -- WANT: exit 2, one line from rank 0 naming the option
bad() {
	local args=() want
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	want=$2
	bench bad 2 -- "${args[@]}"
	if [ "$rc" -eq 2 ] && [ "$(grep -c '^ibflow-a2a-bench: ' "$W/bad.err")" -eq 1 ] &&
	   grep -qF -- "ibflow-a2a-bench: $want" "$W/bad.err" && [ ! -s "$W/bad.out" ]; then
		t_pass "${args[*]}: exit 2, \"$want\""
	else
		t_fail "${args[*]}" "exit $rc: $(grep '^ibflow' "$W/bad.err" | head -3)"
	fi
}
bad -i 0 -- "--iterations: '0' is not a number in 1..10000000"
bad --iterations abc -- "--iterations: 'abc' is not a number"
bad --iters=-3 -- "--iters: '-3' is not a number"
bad -x -1 -- "--warmup: '-1' is not a number in 0..10000000"
bad -m 8:4 -- "-m: MIN is larger than MAX"
bad -m 4:x -- "--message-size: 'x' is not a number in 1..1073741824"
bad --message-size 0 -- "--message-size: '0' is not a number in 1..1073741824"
bad --max 2147483648 -- "--max: '2147483648' is not a number"
bad -T mpi_long -- "--type: 'mpi_long' is not one of mpi_char"
bad --algorithm fast -- "--algorithm: 'fast' is not one of: env, liquid"
bad -M 12k -- "--mem-limit: '12k' is not a number"
bad --link-rate 0 -- "--link-rate: '0' is not a number in (0,"
bad -fq -- "unknown option '-q'"
bad --bogus -- "unknown option '--bogus'"
bad -i -- "--iterations needs a value"
bad --full=1 -- "--full takes no value"
bad stray -- "unexpected argument 'stray'"
bad -M 1 -m 4:8 -- "-M: the limit: too small for the smallest block"

# ---- layout: OSU header and columns, aliases -----------------------------------
bench alias 2 -- --min 8 --max 32 --iters 3 --warmup 1 -fz
hdr=$(grep '^# Size' "$W/alias.out")
if [ $rc -eq 0 ] &&
   grep -q '^# OSU MPI All-to-All Personalized Exchange Latency Test (ibflow-a2a-bench, ibflow ' "$W/alias.out" &&
   grep -q '^# Datatype: MPI_CHAR\.$' "$W/alias.out" &&
   [ "$hdr" = "$(printf '%-10s%18s%18s%18s%12s%18s%18s%18s%18s%12s' '# Size' \
	'Avg Latency(us)' 'Min Latency(us)' 'Max Latency(us)' Iterations \
	'P50 Tail Lat(us)' 'P90 Tail Lat(us)' 'P99 Tail Lat(us)' 'Agg BW(MB/s)' Algorithm)" ] &&
   [ "$(rows alias | awk '{ printf "%s/%s/%s ", $1, $5, NF }')" = "8/3/10 16/3/10 32/3/10 " ] &&
   [ "$(rows alias | awk '$3 <= $2 && $2 <= $4 && $6 <= $7 && $7 <= $8 { n++ } END { print n }')" = 3 ]; then
	t_pass "--min --max --iters --warmup -fz: OSU header, sizes 8-32, Iterations 3, min <= avg <= max, P50 <= P90 <= P99"
else
	t_fail "aliases and -fz" "exit $rc: $(head -c 800 "$W/alias.out") $(head -3 "$W/alias.err")"
fi
# --json: the rows of the table, read here from the text, equal the JSON's
bench json 2 -- --min 8 --max 32 --iters 3 --warmup 1 -fz --json "$W/bench.json"
if [ $rc -eq 0 ] && python3 - "$W/json.out" "$W/bench.json" <<'PY'; then
import json, sys
text = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
doc = json.load(open(sys.argv[2]))
rows = doc["rows"]
assert doc["processes"] == 2 and doc["datatype"] == "mpi_char", doc
assert doc["libibflow_mpi"] is False, doc
assert len(rows) == len(text) == 3, (len(rows), len(text))
keys = ("avg_us", "min_us", "max_us")
for t, r in zip(text, rows):
    assert int(t[0]) == r["bytes"] and int(t[4]) == r["iterations"] == 3, (t, r)
    for k, v in zip(keys + ("p50_us", "p90_us", "p99_us", "agg_bw_mbs"),
                    (t[1], t[2], t[3], t[5], t[6], t[7], t[8])):
        assert abs(float(v) - r[k]) <= 0.005 + 1e-9, (k, v, r[k])
    assert t[9] == r["algorithm"] == "unknown", (t, r)
PY
	t_pass "--json: the table's rows (sizes, latencies, percentiles, bandwidth, algorithm) as JSON"
else
	t_fail "--json" "exit $rc: $(head -c 400 "$W/bench.json" 2>&1)"
fi
bench jsonbad 2 -- -m 8 -i 1 -x 0 --json "$W/no/such/dir/x.json"
if [ $rc -ne 0 ] && grep -q '^ibflow-a2a-bench: --json: .*no/such/dir/x.json' "$W/jsonbad.err" &&
   [ ! -e "$W/no/such/dir/x.json" ]; then
	t_pass "--json into a missing folder: non-zero exit, the path named"
else
	t_fail "--json into a missing folder" "exit $rc: $(grep ibflow "$W/jsonbad.err" | head -2)"
fi
# -m MAX, -i2 -x0 (values attached), a type of 8 bytes: sizes from 8
bench double 2 -- -m 32 -i2 -x0 -T MPI_DOUBLE
[ $rc -eq 0 ] && grep -q '^# Datatype: MPI_DOUBLE\.$' "$W/double.out" &&
	[ "$(rows double | awk '{ printf "%s ", $1 }')" = "8 16 32 " ] &&
	t_pass "-m 32 -i2 -x0 -T MPI_DOUBLE: sizes 8 16 32" ||
	t_fail "-m 32 -T MPI_DOUBLE" "exit $rc: $(head -c 600 "$W/double.out")"
# -M: OSU's rule, the largest block x processes within the limit
bench mem 2 -- -M 100 -m 1:1024 -i 1 -x 0
[ $rc -eq 0 ] && grep -q '^# -M 100: largest block 50 bytes' "$W/mem.out" &&
	[ "$(rows mem | awk '{ printf "%s ", $1 }')" = "1 2 4 8 16 32 " ] &&
	t_pass "-M 100 at 2 processes: blocks up to 50 bytes (1..32)" ||
	t_fail "-M 100" "exit $rc: $(head -c 600 "$W/mem.out")"
grep -q '^# Algorithm: unknown (libibflow_mpi not loaded' "$W/mem.out" &&
	[ "$(rows mem | awk '{ print $NF }' | sort -u)" = unknown ] &&
	t_pass "without libibflow_mpi: the algorithm is unknown, said so" ||
	t_fail "algorithm without libibflow_mpi" "$(tail -2 "$W/mem.out")"

# ---- validation ------------------------------------------------------------------
# no preload, 3 processes: rank 1's block from rank 2 damaged at 16 bytes
bench val 3 -x IBFLOW_A2A_BENCH_CORRUPT=1:2:16 -- -c -m 4:64 -T mpi_int -i 3 -x 1
# columns: Size Avg Validation AggBW Errors Algorithm
got=$(rows val | awk '{ printf "%s:%s:%s ", $1, $3, $5 }')
[ $rc -eq 0 ] && [ "$got" = "4:Pass:0 8:Pass:0 16:Fail:1 32:Pass:0 64:Pass:0 " ] &&
	t_pass "-c, MPI_INT, one block corrupted at 16 bytes on rank 1: Fail, Errors 1 there only" ||
	t_fail "-c with a corrupted block" "exit $rc: $got $(head -3 "$W/val.err")"
for t in mpi_char mpi_float mpi_double; do
	bench "val-$t" 3 -- -c -m 1:256 -T $t -i 2 -x 1
	got=$(rows "val-$t" | awk '$3 != "Pass" || $5 != 0 { n++ } END { print NR ":" n + 0 }')
	[ $rc -eq 0 ] && [ "${got#*:}" = 0 ] && [ "${got%:*}" -gt 0 ] &&
		t_pass "-c -T $t: every block of ${got%:*} sizes valid" ||
		t_fail "-c -T $t" "exit $rc: $got $(head -c 400 "$W/val-$t.out")"
done

# ---- algorithms through libibflow_mpi, 4 ranks on the fabric ----------------------
# liquid, a block corrupted, the bound at 8 Gbit/s: 3 x BYTES x 8 / 8000 us
bench liquid 4 "${PRELOAD[@]}" -x IBFLOW_MPI_STATS=1 -x IBFLOW_A2A_BENCH_CORRUPT=2:0:2048 -- \
	--algorithm liquid -c -m 1024:4096 -i 3 -x 1 --link-rate 8
# columns: Size Avg Validation AggBW Bound OfBound Errors Algorithm
got=$(rows liquid | awk '{ printf "%s:%s:%s:%s ", $1, $3, $7, $8 }')
want="1024:Pass:0:liquid 2048:Fail:1:liquid 4096:Pass:0:liquid "
[ $rc -eq 0 ] && [ "$got" = "$want" ] &&
	grep -q '^# Algorithm: liquid at every size (libibflow_mpi counters)' "$W/liquid.out" &&
	grep -q '^# Processes: 4; algorithm requested: liquid' "$W/liquid.out" &&
	t_pass "--algorithm liquid -c: every size liquid, the corrupted block at 2048 found" ||
	t_fail "--algorithm liquid" "exit $rc: $got $(tail -c 600 "$W/liquid.out") $(head -3 "$W/liquid.err")"
# libibflow_mpi's own counters: 1 first call + 3 sizes x 4 calls, liquid
n=$(awk '$1 == "ibflow-mpi:" && $3 == "ibflow-a2a-bench" && $7 == 13 && $9 == 0 && $13 == 3 { n++ } END { print n + 0 }' "$W/liquid.err")
[ "$n" = 4 ] &&
	t_pass "IBFLOW_MPI_STATS agrees: 13 liquid calls at each of 4 ranks, duration 3" ||
	t_fail "liquid counters" "$(grep 'comm ibflow-a2a-bench' "$W/liquid.err")"
bad_bound=$(rows liquid | awk '{ b = 3 * $1 * 8 / 8000; p = 100 * $5 / $2
	if ($5 - b > 0.006 || b - $5 > 0.006 || $6 - p > 0.06 + p / 1000 || p - $6 > 0.06 + p / 1000) print $1 ": " $5 " " $6 " want " b " " p }')
[ -z "$bad_bound" ] && [ "$(rows liquid | wc -l)" = 3 ] &&
	t_pass "liquid bound at --link-rate 8: 3 x BYTES x 8 / 8000 us, and its share of the average" ||
	t_fail "liquid bound" "$bad_bound"
# pairwise, then the MPI library's: the columns say so, the counters too
bench pairwise 4 "${PRELOAD[@]}" -x IBFLOW_MPI_STATS=1 -- --algorithm pairwise -m 1024:2048 -i 2 -x 1
[ $rc -eq 0 ] && [ "$(rows pairwise | awk '{ printf "%s:%s:%s ", $1, $4, $NF }')" = "1024:-:pairwise 2048:-:pairwise " ] &&
	grep -q '^# Algorithm: pairwise at every size' "$W/pairwise.out" &&
	[ "$(awk '$3 == "ibflow-a2a-bench" && $7 == 0 && $9 == 7 { n++ } END { print n + 0 }' "$W/pairwise.err")" = 4 ] &&
	t_pass "--algorithm pairwise: pairwise (7 calls per rank), no schedule, no bound" ||
	t_fail "--algorithm pairwise" "exit $rc: $(tail -c 500 "$W/pairwise.out") $(grep 'comm ibflow' "$W/pairwise.err")"
bench mpi 4 "${PRELOAD[@]}" -- --algorithm mpi -m 1024:2048 -i 2 -x 1
[ $rc -eq 0 ] && [ "$(rows mpi | awk '{ printf "%s ", $NF }')" = "mpi mpi " ] &&
	grep -q '^# Algorithm: mpi at every size' "$W/mpi.out" &&
	t_pass "--algorithm mpi: the MPI library's at every size" ||
	t_fail "--algorithm mpi" "exit $rc: $(tail -c 500 "$W/mpi.out")"
# no --algorithm: UCX_IBFLOW_ALLTOALL=auto, liquid from 8192 bytes on
# where the schedule is wanted whatever its gain (ALLTOALL_GAIN=0); the
# bound from the topology's 4xEDR links (4 x 25.78125 Gbit/s)
bench auto 4 "${PRELOAD[@]}" -x UCX_IBFLOW_ALLTOALL_GAIN=0 -- -m 2048:16384 -i 2 -x 1
got=$(rows auto | awk '{ printf "%s:%s ", $1, $NF }')
bad_bound=$(rows auto | awk '$NF == "liquid" { b = 3 * $1 * 8 / (4 * 25.78125 * 1000)
	if ($4 - b > 0.006 || b - $4 > 0.006) print $1 ": " $4 " want " b }')
[ $rc -eq 0 ] && [ "$got" = "2048:mpi 4096:mpi 8192:liquid 16384:liquid " ] &&
	grep -q '^# Algorithm: by size' "$W/auto.out" && [ -z "$bad_bound" ] &&
	t_pass "auto: the MPI library's below 8192 bytes, liquid from it, bound at 4xEDR" ||
	t_fail "auto" "exit $rc: $got $bad_bound $(tail -c 500 "$W/auto.out")"
# auto's own gain over TCP: these 4 ranks on two leaves gain too little
# over round robin, so the first eligible call declines and the MPI
# library's algorithm runs at every size
bench autogain 4 "${PRELOAD[@]}" -- -m 2048:16384 -i 2 -x 1
got=$(rows autogain | awk '{ printf "%s:%s ", $1, $NF }')
[ $rc -eq 0 ] && [ "$got" = "2048:mpi 4096:mpi 8192:mpi 16384:mpi " ] &&
	t_pass "auto, default gain over TCP: declined, the MPI library's at every size" ||
	t_fail "auto, default gain" "exit $rc: $got $(tail -c 500 "$W/autogain.out")"
t_done
