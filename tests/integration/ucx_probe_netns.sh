#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ibflow-probe on emulated fabrics (scripts/netns-fabric: one namespace per
# host and switch, forwarding as the LFTs say): a 16-host 2-level fat tree
# (xgft:2:4,4:1,4, dmodk) run under mpirun through the fabric's rsh agent,
# and a 3-switch chain (6 hosts, minhop) started with the own bootstrap via
# `netns-fabric exec`.  UCX (tcp only: shared memory would bypass the
# emulated fabric) runs over the fabric interface, the OOB over the
# management bridge.  Each fabric: a planned run and an all-pairs run.
#
# Checked against things computed here, not by ibflow:
#  - every process found its endpoint through netns-fabric's host map, at
#    its own fabric address (read from the map with awk);
#  - the probes crossed the emulated switches (packet counters);
#  - the prediction of every pair the plan did not measure equals the
#    combination w . m of the measured RTTs, w solved exactly (rationals)
#    from the routes of t_trace_paths (lib.sh's own tracer), so the whole
#    chain measurements -> solver -> matrix is verified;
#  - those predictions agree with the pairs' directly measured RTTs
#    (the smallest of the --all-pairs runs: two, then one a try) within
#    measurement noise:
#    |pred - meas| <= (sum|w| + 1)
#    * e, where e is the largest difference between two measurements of
#    one pair (the planned pairs are measured in both runs).  A prediction
#    adds up the errors of its measurements with weights w, the direct
#    measurement has its own: the bound is their worst case.  One
#    prediction in 20 may exceed it (up to 3 times): a pair measured once
#    can meet a disturbance e did not see (seen on the quiet 2-core
#    machine: 44.4 us measured against 33.5 predicted, bound 5.2).  e
#    itself should stay below half the median RTT, or the check has
#    little power: the planned run is repeated, up to four times, and
#    every all-pairs run joins the floor the predictions are judged
#    against (tcp RTTs of ~34 us scatter by ~10 us here even at a load of
#    2; on the quiet 2-core host some processes of the chain fell into a
#    slow mode for a whole run, every RTT of a pair ~45 us instead of ~20,
#    the planned run's in one try, an all-pairs run's in another).  Load
#    is no skip: with no precise try the verdict is the noise bound's on
#    the best one, its e and the median printed.
#
# Link latencies of the emulation are near zero (veth hops cost well under
# a microsecond next to ~33 us of wake-ups and TCP per exchange); delays
# that differ per link need netem, which this kernel lacks (tests/vm/).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../ucx_lib.sh
. "$T_REPO/tests/ucx_lib.sh"

W=$T_TMP
TREE=ibfut
CHAIN=ibfuc
# The paper's repeat rule (10 / 30 / 3) leaves a few minima of 80-150 us
# among ~33 us ones when 16 processes share 2 loaded cores; 20 / 100 / 5
# brought every pair to its floor in the runs behind docs/ucx.md.
PROBE_ENV="UCX_IBFLOW_PROBE_STALL=20 UCX_IBFLOW_PROBE_MAX=100 UCX_IBFLOW_PROBE_RUNS=5 UCX_IBFLOW_TIMEOUT=60s UCX_IBFLOW_TLS=tcp UCX_IBFLOW_NET_DEVICES=fab1"
ucx_netns_setup ucx_probe_netns python3 mpirun

nf_down() {
	"$NF" --name "$TREE" down >/dev/null 2>&1
	"$NF" --name "$CHAIN" down >/dev/null 2>&1
}
trap 'nf_down; t__cleanup' EXIT
nf_down

# ---- fabrics and their export directories ------------------------------------
mkdir -p "$W/tree" "$W/chain"
"$t_ibflow" gen xgft:2:4,4:1,4 -o "$W/tree/ibflow-topology.ibnd" >/dev/null &&
	"$t_ibflow" route --topo "$W/tree/ibflow-topology.ibnd" --engine dmodk \
		-o "$W/tree/ibflow-lfts.dump" >/dev/null
ucx_export_dir "$W/tree" 16 8
ucx_chain_topo "$W/chain/ibflow-topology.ibnd"
"$t_ibflow" route --topo "$W/chain/ibflow-topology.ibnd" --engine minhop \
	-o "$W/chain/ibflow-lfts.dump" >/dev/null
ucx_export_dir "$W/chain" 6 3
t_check "chain topology routes every pair" 0 "$t_ibflow" check \
	--topo "$W/chain/ibflow-topology.ibnd" --lfts "$W/chain/ibflow-lfts.dump"

up() { # NAME DIR
	if t_expect_exit 0 "$NF" --name "$1" up --topo "$2/ibflow-topology.ibnd" \
		--lfts "$2/ibflow-lfts.dump" --mgmt; then
		t_pass "netns-fabric up $1 ($(grep -vc '^#' "$STATE/$1/hosts") hosts)"
		return 0
	fi
	t_fail "netns-fabric up $1" "$(t_errhead)"
	return 1
}

# Packets received by every switch port of a fabric (/proc/net/dev in each
# switch namespace: "pN: bytes packets ...").
switch_rx() { # NAME
	local ns
	for ns in $(awk '!/^#/ { print $2 }' "$STATE/$1/switches"); do
		ip netns exec "$ns" cat /proc/net/dev
	done | awk -F'[: ]+' '$2 ~ /^p[0-9]+$/ { s += $4 } END { print s + 0 }'
}

# ---- runs -------------------------------------------------------------------
run_mpi() { # NAME DIR OUT [ARGS]: ibflow-probe on every host under mpirun
	local name=$1 dir=$2 out=$3 hosts mnet boot
	shift 3
	hosts=$(awk '!/^#/ { printf "%s%s", s, $1; s = "," }' "$STATE/$name/hosts")
	mnet=$(sed -n 's/^# name .* mgmt \(10\.[0-9]*\.0\.0\/16\).*/\1/p' "$STATE/$name/hosts")
	boot=$(awk '!/^#/ { print $9; exit }' "$STATE/$name/hosts"):$((20000 + RANDOM % 20000))
	# shellcheck disable=SC2086 # PROBE_ENV is a word list
	env $PROBE_ENV timeout 600 mpirun --allow-run-as-root --oversubscribe \
		-np "$(grep -vc '^#' "$STATE/$name/hosts")" -H "$hosts" \
		--mca plm_rsh_agent "$STATE/$name/rsh" --mca oob_tcp_if_include "$mnet" \
		-x LD_LIBRARY_PATH -x IBFLOW_BOOT_ADDR="$boot" \
		$(for v in $PROBE_ENV; do printf -- '-x %s ' "${v%%=*}"; done) \
		-x UCX_IBFLOW_FABRIC="$dir" -x UCX_IBFLOW_ADDRMAP="$STATE/$name/hosts" \
		"$PROBE" --verbose --json "$out.json" "$@" >"$out.out" 2>"$out.err"
}

run_exec() { # NAME DIR OUT [ARGS]: one process per host via netns-fabric exec
	local name=$1 dir=$2 out=$3
	shift 3
	ucx_spawn "$name" "$dir" "$out" --verbose --json "$out.json" "$@"
}

# Every rank mapped by the host map at its own fabric address.
check_sources() { # NAME OUT
	awk 'FNR == NR { if (!/^#/) { split($11, a, ","); addr[$1] = a[1]; d = $12
			for (i = 13; i <= NF; i++) d = d " " $i; desc[$1] = d }; next }
	     /^rank [0-9]+: host/ { n++
		match($0, /via UCX_IBFLOW_ADDRMAP address [0-9.]+/)
		src = substr($0, RSTART, RLENGTH); sub(/.* /, "", src)
		ok = 0
		for (h in addr) if (addr[h] == src && index($0, desc[h] " via") > 0) ok = 1
		if (!ok) { print "bad: " $0; bad++ } }
	     END { exit (bad || !n) }' "$STATE/$1/hosts" "$2.out"
}

# The independent prediction and the noise bound (see the head comment).
judge() { # PLAN_JSON ALLPAIRS_JSON PATHS HOSTMAP
	python3 - "$@" <<'PY'
import json, sys
from fractions import Fraction
plan, ap = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
# host name -> "nodeguid:port" (hex, no 0x) from netns's map, as the
# tracer names ports
guid = {}
for line in open(sys.argv[4]):
    if line.startswith("#"):
        continue
    f = line.split()
    guid[" ".join(f[11:])] = "%x:%d" % (int(f[7], 16), int(f[3]))
# routes: (src guid, dst guid) -> directed links as (from, to) node keys
lidguid = {}
paths = {}
for line in open(sys.argv[3]):
    src, dlid, dst, res, lids = line.split()
    assert res == "ok", line
    s, d = ["%x:%d" % (int(x.split(":")[0], 16), int(x.split(":")[1]))
            for x in (src, dst)]
    hops = [s] + (lids.split(",") if lids != "-" else []) + [d]
    paths[(s, d)] = list(zip(hops, hops[1:]))
def vec(a, b):
    v = {}
    for l in paths[(guid[a], guid[b])] + paths[(guid[b], guid[a])]:
        v[l] = v.get(l, 0) + 1
    return v
meas = [(m["a"], m["b"], m["rtt_min"]) for m in plan["measurements"]]
cols = sorted({l for a, b, _ in meas for l in vec(a, b)} |
              {l for p in paths.values() for l in p})
ci = {l: i for i, l in enumerate(cols)}
R, L = len(meas), len(cols)
measured = {frozenset((a, b)) for a, b, _ in meas}
hosts = plan["hosts"]
targets = [(a, b) for i, a in enumerate(hosts) for b in hosts[i + 1:]
           if frozenset((a, b)) not in measured]
# Solve C^T w = v_q exactly for every unmeasured pair q at once.
M = [[Fraction(0)] * (R + len(targets)) for _ in range(L)]
for r, (a, b, _) in enumerate(meas):
    for l, c in vec(a, b).items():
        M[ci[l]][r] = Fraction(c)
for q, (a, b) in enumerate(targets):
    for l, c in vec(a, b).items():
        M[ci[l]][R + q] = Fraction(c)
row = 0
piv = []
for c in range(R):
    p = next((i for i in range(row, L) if M[i][c] != 0), None)
    assert p is not None, "measured pairs are not independent"
    M[row], M[p] = M[p], M[row]
    inv = 1 / M[row][c]
    M[row] = [x * inv for x in M[row]]
    for i in range(L):
        if i != row and M[i][c] != 0:
            f = M[i][c]
            M[i] = [x - f * y for x, y in zip(M[i], M[row])]
    piv.append(c)
    row += 1
for i in range(row, L):
    assert all(x == 0 for x in M[i][R:]), "a prediction outside the span"
idx = {h: i for i, h in enumerate(hosts)}
apm = {frozenset((m["a"], m["b"])): m["rtt_min"] for m in ap["measurements"]}
e = max(abs(m - apm[frozenset((a, b))]) for a, b, m in meas)
rtts = sorted(apm.values())
median = rtts[len(rtts) // 2]
worst = 0.0
beyond = []
for q, (a, b) in enumerate(targets):
    w = [M[r][R + q] for r in range(R)]
    pred = sum(float(w[r]) * meas[r][2] for r in range(R))
    got = plan["matrix"][idx[a]][idx[b]]
    assert abs(got - pred) <= 1e-6 * abs(pred) + 1e-6, (a, b, got, pred)
    bound = (sum(abs(float(x)) for x in w) + 1) * e
    err = abs(got - apm[frozenset((a, b))])
    worst = max(worst, err / bound if bound else float("inf"))
    if err > bound:
        beyond.append("%s - %s predicted %.2f measured %.2f bound %.2f" %
                      (a, b, got, apm[frozenset((a, b))], bound))
# A pair measured once in the all-pairs run can meet a disturbance that
# e (pairs measured in both runs) did not see: one in 20 may exceed its
# bound, up to 3 times it; more, or farther, is a wrong prediction.
if len(beyond) > max(1, len(targets) // 20) or worst > 3:
    print("FAIL " + "; ".join(beyond[:3]))
    sys.exit(1)
print("%d predictions = w.m exactly; noise e %.2f us (median RTT %.2f); "
      "worst |pred - meas| / bound %.2f; beyond the bound: %d%s" %
      (len(targets), e, median, worst, len(beyond),
       (" (" + beyond[0] + ")") if beyond else ""))
if e > median / 2:
    print("NOISY")
    sys.exit(2)
PY
}

# min_of_runs ALL ALL2: ALL's rtt_min per pair becomes the smaller of the
# two runs' (noise only adds to an RTT, so the smaller is the better
# direct measurement; one pair whose every exchange of a run was slow -
# seen on the quiet machine: h4 - h5 at 44.3 us in one run, 21.1 us in the
# other - no longer makes e, and with it the verdict, meaningless).
min_of_runs() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
other = {frozenset((m["a"], m["b"])): m["rtt_min"] for m in b["measurements"]}
for m in a["measurements"]:
    m["rtt_min"] = min(m["rtt_min"], other[frozenset((m["a"], m["b"]))])
json.dump(a, open(sys.argv[1], "w"))
PY
}

# Every planned run kept (NAME.plan.T.json) judged again on the final
# floor: the first right and precise one wins, else the right one with
# the least noise, else the last (a prediction beyond its bound in every
# planned run).  Sets verdict and rc.
rejudge() { # NAME TRIES
	local t v r best_e= e
	for t in $(seq "$2"); do
		v=$(judge "$W/$1.plan.$t.json" "$W/$1.all.json" "$W/$1.paths" \
			"$STATE/$1/hosts" 2>&1)
		r=$?
		if [ $r -eq 0 ]; then
			verdict=$v rc=0
			return
		fi
		[ $r -eq 2 ] || continue
		e=$(printf '%s\n' "$v" | sed -n 's/.*noise e \([0-9.]*\) us.*/\1/p')
		if [ -z "$best_e" ] || awk -v a="$e" -v b="$best_e" 'BEGIN { exit !(a < b) }'; then
			best_e=$e verdict=$v rc=2
		fi
	done
}

# The planned run and the all-pairs floor are measured again while the
# noise e is above half the median RTT (a busy host: the check would have
# little power) or a prediction is beyond its bound (a disturbance of
# one run), up to TRIES times.  Every all-pairs run joins the floor
# (noise only adds to an RTT, so more runs can only bring it nearer the
# truth and a disturbed run stops counting), so a wrong prediction stays
# wrong in every try while load fades out of the verdict.  Without a
# precise try, every planned run is judged again on the final floor
# (rejudge): beyond the bound in all of them is a failure; within it a
# pass, with e and the median printed beside it (so a weak check on a
# busy host says so).
TRIES=4
probe_fabric() { # NAME DIR LAUNCHER LABEL
	local name=$1 dir=$2 launch=$3 label=$4 try rx0 rx1 out verdict rc
	t_trace_paths "$dir/ibflow-topology.ibnd" "$dir/ibflow-lfts.dump" >"$W/$name.paths"
	for try in $(seq "$TRIES"); do
		rx0=$(switch_rx "$name")
		if ! $launch "$name" "$dir" "$W/$name.plan" --rtt-out "$W/$name.rtt" \
			--plan-out "$W/$name.planfile"; then
			t_fail "$label: planned run" "$(head -c 400 "$W/$name.plan.err")"
			return
		fi
		rx1=$(switch_rx "$name")
		cp "$W/$name.plan.json" "$W/$name.plan.$try.json"
		if ! $launch "$name" "$dir" "$W/$name.all2" --all-pairs; then
			t_fail "$label: --all-pairs run" "$(head -c 400 "$W/$name.all2.err")"
			return
		fi
		if [ "$try" = 1 ]; then
			cp "$W/$name.all2.json" "$W/$name.all.json"
			if ! $launch "$name" "$dir" "$W/$name.all2" --all-pairs; then
				t_fail "$label: --all-pairs run" "$(head -c 400 "$W/$name.all2.err")"
				return
			fi
		fi
		min_of_runs "$W/$name.all.json" "$W/$name.all2.json"
		verdict=$(judge "$W/$name.plan.json" "$W/$name.all.json" \
			"$W/$name.paths" "$STATE/$name/hosts" 2>&1)
		rc=$?
		[ $rc -eq 0 ] && break
		echo "# $label: try $try of $TRIES not judged precise and right, once more: $verdict"
	done
	[ $rc -ne 0 ] && rejudge "$name" "$try"
	if check_sources "$name" "$W/$name.plan"; then
		t_pass "$label: every rank found its endpoint through the host map, at its fabric address"
	else
		t_fail "$label: endpoint discovery" "$(head -c 300 "$W/$name.plan.out")"
	fi
	python3 - "$W/$name.plan.json" "$W/$name.all.json" "$((rx1 - rx0))" >"$W/$name.shape" 2>&1 <<'PY'
import json, sys
p, a, rx = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
n = len(p["hosts"])
assert a["rounds"] == len(a["measurements"]) == n * (n - 1) // 2
assert len(p["measurements"]) == p["plan_rank"] and p["rounds"] < a["rounds"]
ex = sum(m["exchanges"] for m in p["measurements"])
assert rx >= 2 * ex, (rx, ex)
print("plan %d pairs in %d rounds (%d steps) vs %d; %d switch packets for %d exchanges; measuring %.2f s vs %.2f s"
      % (p["plan_rank"], p["rounds"], p["steps"], a["rounds"], rx, ex, p["measure_s"], a["measure_s"]))
PY
	if [ $? -eq 0 ]; then
		t_pass "$label: $(cat "$W/$name.shape")"
	else
		t_fail "$label: plan and traffic" "$(tail -c 300 "$W/$name.shape")"
	fi
	out=$(echo "$verdict" | tail -1)
	case $rc in
	0) t_pass "$label: predicted RTTs of unmeasured pairs agree with --all-pairs: $verdict" ;;
	2) t_pass "$label: predicted RTTs of unmeasured pairs agree with --all-pairs within the noise bound, the noise above half the median RTT after $TRIES tries (a busy host): ${verdict%$'\n'NOISY}" ;;
	*) t_fail "$label: prediction vs measurement" "$verdict" ;;
	esac
	# exit 1 is a verdict (a link suspect on this busy host), not a
	# failure to read: ucx_probe_health.sh judges the verdict itself
	"$t_ibflow" probe-solve --plan "$W/$name.planfile" --rtt "$W/$name.rtt" \
		>/dev/null 2>"$W/$name.solve.err"
	rc=$?
	if [ "$rc" -le 1 ]; then
		t_pass "$label: ibflow probe-solve reads the plan and RTT files written (exit $rc)"
	else
		t_fail "$label: probe-solve on written files" "$(head -c 200 "$W/$name.solve.err")"
	fi
}

if up "$TREE" "$W/tree"; then
	probe_fabric "$TREE" "$W/tree" run_mpi "fat tree, 16 hosts, mpirun via rsh agent"
fi
"$NF" --name "$TREE" down >/dev/null 2>&1
if [ "$T_QUICK" = 1 ]; then
	t_skip "chain, own bootstrap" "--quick"
elif up "$CHAIN" "$W/chain"; then
	probe_fabric "$CHAIN" "$W/chain" run_exec "3-switch chain, 6 hosts, own bootstrap via exec"
fi
t_done
