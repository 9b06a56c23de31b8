#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# vm-timeout: 300
# ibflow-infer (live topology inference over UCX) on an emulated tree with
# netem delays, inside the VM (its kernel has sch_netem): the 16-host
# 2-level tree xgft:2:4,4:1,1 on netns-fabric, each host in its own
# namespace, every link delayed by 300-800 us (random per link, seeded),
# ranks on the hosts in a shuffled order, one process per host over UCX
# tcp, --tol 300.  The case is the first of tests/bench/bench_infer_vm.sh
# (run here through its --in-vm mode; docs/benchmarks.md has its figures).
# Checks, by the offline evaluator reading the true topology (`ibflow
# infer --rtt TRACE --truth TOPO`, not the code that measured):
#  - every host in the tree; fewer pairs measured than all;
#  - the evaluator's replay of the live trace gives the live tree, byte for
#    byte (so the rates below are those of the live tree);
#  - the noise first: the measured RTT minima against the configured
#    delays (the benchmark's fit c + 2 x path delays + 2 x o x links,
#    residuals' 5%-95% range, R = the larger end in size) and the scale
#    the inference is exact within: every RTT within l/2 of the truth,
#    l = the smallest configured link delay + o (docs/infer.md);
#  - false positives and false negatives of "do A-B and C-D share a link?"
#    over all pairs of pairs, and predicted / measured RTT for 90% of the
#    pairs, judged against that noise:
#      R <= l/2 (the guarantee holds for 90% of the pairs): rates at most
#        0.1 (the paper's figure), ratios within [0.75, 1.33];
#      l/2 < R <= 4 l (beyond it: a loaded host's late wake-ups): rates
#        at most 0.25, what the inference gave with noise from l to 4 l
#        (docs/infer.md, docs/benchmarks.md), ratios within [0.75, 1.33]
#        widened to 1 -+ 2R / T (a prediction from measurements off by
#        R against a measurement off by R, T the 5th percentile of the
#        RTTs measured);
#      R > 4 l: the RTTs do not follow the configured delays: a failure.
#    Seen: 0 / 0 on a quiet host; 0.009 / 0 (one switch split) and
#    0.036 / 0.053 with the host's load average at 12-15; 0.125 false
#    positives, ratios 0.82-1.36 on a fresh clone on a busy host (above
#    the old fixed 0.1 and 1.33, the noise not measured then).
# 57 s in the VM under TCG on a quiet host, 102 s at load average 15
# (32-70 s of ping-pongs of ~5 ms RTT); 72 s with python3 started
# without pyenv's shim (netns-fabric up 12 s, the processes 48 s of which
# 24 s ping-pongs).
. "$T_REPO/tests/lib.sh"

N=vm/infer_netem
SPEC=xgft:2:4,4:1,1
MAX_RATE=0.1
D=$T_TMP
B=$T_BUILD_DIR

if [ ! -x "$B/ucx_component/.libs/ibflow-infer" ]; then
	t_skip "$N" "the UCX component is not built"
	t_done
fi
if [ "$(id -u)" -ne 0 ] || ! t_need ip tc python3; then
	t_skip "$N" "needs root, ip, tc and python3"
	t_done
fi
if ! modprobe sch_netem 2>/dev/null; then
	t_skip "$N" "no sch_netem in kernel $(uname -r) (run inside scripts/softroce-vm)"
	t_done
fi

mkdir -p "$D/out"
BUILD_DIR=$B BENCH_INFER_NAME=ibfvi DELAY=300-800 TOL=300 SEED=1 RUNS=1 \
	bash "$T_REPO/tests/bench/bench_infer_vm.sh" --in-vm "$D/out" "$SPEC" \
	>"$D/table" 2>&1
row=$(grep "^| $SPEC " "$D/table")
C=$D/out/$(echo "$SPEC" | tr ':,' '__').1
# where the time went (the fabric's set-up, the processes' run)
[ ! -s "$C/times" ] || echo "# $N: $(tr '\n' ';' <"$C/times")"
if [ ! -s "$C/eval.json" ]; then
	t_fail "$N: inference and evaluation" "$(tail -c 400 "$D/table")"
	t_done
fi
python3 - "$C" "$MAX_RATE" "$row" >"$D/check" 2>&1 <<'PY'
import json, re, sys
c, max_rate, row = sys.argv[1], float(sys.argv[2]), sys.argv[3]
ev = json.load(open(c + "/eval.json"))
a = ev["accuracy"]
n = len(ev["hosts"])
cols = [x.strip() for x in row.strip("|").split("|")]
same = cols[10] == "yes"
fails = []
# The noise, from the benchmark's fit of the measured minima to the
# configured delays (columns "c + o/link" and "residual 5%-95%").
o = float(re.match(r"\s*-?[0-9.]+ \+ (-?[0-9.]+)", cols[11]).group(1))
r05, r95 = (float(x) for x in
            re.match(r"\s*(-?[0-9.]+)\.\.(-?[0-9.]+)", cols[12]).groups())
noise = max(abs(r05), abs(r95))
ell = min(float(l.split()[1][:-2]) for l in open(c + "/delays")) + o
rtts = sorted(float(l.rsplit('"', 1)[1].split()[0])
              for l in open(c + "/named.trace") if not l.startswith("#"))
t5 = rtts[int(0.05 * len(rtts))]
lo, hi = 0.75, 1.33
if noise <= ell / 2:
    regime = "within the guarantee"
elif noise <= 4 * ell:
    regime = "beyond the guarantee"
    max_rate = 0.25
    lo, hi = min(lo, 1 - 2 * noise / t5), max(hi, 1 + 2 * noise / t5)
else:
    regime = "beyond 4 l"
    fails.append("RTT noise %.0f us beyond 4 l (%.0f us): the RTTs do not "
                 "follow the configured delays" % (noise, 4 * ell))
if n != 16:
    fails.append("%d hosts" % n)
if not ev["pairs"] < n * (n - 1) // 2:
    fails.append("all pairs measured")
if not same:
    fails.append("the replay's tree is not the live one")
if not a["exhaustive"] or a["queries"] == 0:
    fails.append("queries not exhaustive")
if a["false_positive_rate"] > max_rate or a["false_negative_rate"] > max_rate:
    fails.append("false rates above %g" % max_rate)
if not (lo <= a["ratio_p05"] and a["ratio_p95"] <= hi):
    fails.append("RTT ratios out of [%.2f, %.2f]" % (lo, hi))
print("%d hosts, %d of %d pairs, %d queries: false pos %.4f neg %.4f "
      "(limit %g), RTT ratio 5%%-95%% %.3f-%.3f (limits %.2f-%.2f), "
      "switches %d, measuring %s; noise %.0f us against l/2 = %.0f us "
      "(residuals %.0f..%.0f): %s" % (
      n, ev["pairs"], n * (n - 1) // 2, a["queries"],
      a["false_positive_rate"], a["false_negative_rate"], max_rate,
      a["ratio_p05"], a["ratio_p95"], lo, hi, ev["switches"], cols[7],
      noise, ell / 2, r05, r95, regime))
if fails:
    print("; ".join(fails))
sys.exit(1 if fails else 0)
PY
if [ $? -eq 0 ]; then
	t_pass "$N: $SPEC, netem 300-800 us per link: $(head -1 "$D/check")"
else
	t_fail "$N: $SPEC against the true tree" "$(tr '\n' ';' <"$D/check" | head -c 400)"
fi

# The run above is in parallel mode (the default, 16 hosts at once):
# its trace's flights, read here, must never have a host in
# two pairs in flight, and the ping-pongs must have run concurrently (at
# times several pairs in flight): tests/trace_flights.py.
python3 "$T_REPO/tests/trace_flights.py" "$C/live.trace" >"$D/flights" 2>&1
if [ $? -eq 0 ]; then
	t_pass "$N: pairs in flight together, no host twice in flight: $(cat "$D/flights")"
else
	t_fail "$N: pairs in flight" "$(tail -c 300 "$D/flights")"
fi
t_done
