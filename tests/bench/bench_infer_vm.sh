#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Live topology inference (ibflow-infer over UCX) on emulated tree fabrics
# whose links carry netem delays, inside the soft-RoCE VM (its kernel has
# sch_netem; this machine's has not).  The paper's section 5.1 setting:
# "do A-B and C-D share a link?" answered on the inferred tree and on the
# true one.
#
#   tests/bench/bench_infer_vm.sh [SPEC...]        boots one VM, all cases
#   tests/bench/bench_infer_vm.sh --in-vm OUT SPEC...   (inside the VM)
#
# SPEC: a tree as `ibflow gen` makes it (xgft:H:M1,..:1,..,1, one parent
# per switch); default: 2 and 3 switch levels with 16, 32, 64 hosts.
# Per case: netns-fabric up (each host in its own namespace, --mgmt for
# the bootstrap), a netem delay on every link drawn uniformly from
# DELAY=LO-HI µs (default 300-800; netns-fabric delays both directions)
# with seed SEED, the ranks placed on the hosts in a shuffled order, one
# ibflow-infer process per host over UCX tcp on the fabric device
# (--tol TOL, default LO; --lookahead 8 --seed 1; the repeat rule
# UCX_IBFLOW_PROBE_* from the environment, default the paper's 10/30/3).
# Rank 0's trace (every pair measured, min and max RTT) is then judged by
# the offline evaluator against the true topology: `ibflow infer --rtt
# TRACE --truth TOPO` with the same options replays the run (its tree is
# checked to be the live one, byte for byte) and counts false positives /
# negatives over all pairs of pairs, and predicted/measured RTT ratios over
# the pairs measured.  Also per case: the measured minima fitted as c +
# 2 x (the path's configured delays) + 2 x o x links (c: the hosts' own
# round trip, o: netem's overhead per link and direction) and the
# residuals' 5%-95% range: the noise the inference had to tolerate.
# PARALLEL: hosts inserted at once (--parallel; default 16, 1 = one pair
# at a time); a list ("1 16") runs every case under each, in that order;
# N/C: --parallel N with at most C pairs in flight
# (UCX_IBFLOW_INFER_IN_FLIGHT=C; default auto).
# Environment: BUILD_DIR, DELAY, TOL, SEED (default 1), RUNS (default 1),
# VM_MEM (default 6G), VM_TIMEOUT (seconds, default 3000), VM_CPUS (2),
# TOP=1 (top(1) in the guest every 10 s while the ranks run: top.log);
# SOFTROCE_VM_ACCEL=tcg where /dev/kvm exists but fails (docs/softroce.md).
# Under TCG: about 1 minute of ping-pongs per 16-host case at 300-800 us,
# 5-7 minutes per 64-host case; docs/benchmarks.md has the figures.
# Prints a Markdown table, one row per case and run; files are kept in
# $BUILD_DIR/bench-infer-vm/.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SELF=$REPO/tests/bench/bench_infer_vm.sh
B=${BUILD_DIR:-$REPO/build}
DELAY=${DELAY:-300-800}
LO=${DELAY%-*}
HI=${DELAY#*-}
TOL=${TOL:-$LO}
SEED=${SEED:-1}
RUNS=${RUNS:-1}
PARALLEL=${PARALLEL:-16}
NAME=${BENCH_INFER_NAME:-ibfbi}
NF=$REPO/scripts/netns-fabric
STATE=${NETNS_FABRIC_STATE:-/run/ibflow-netns}
DEFAULT_CASES="xgft:2:4,4:1,1 xgft:3:2,2,4:1,1,1 xgft:2:8,4:1,1 xgft:3:4,2,4:1,1,1 xgft:2:8,8:1,1 xgft:3:4,4,4:1,1,1"

# ---- inside the VM -------------------------------------------------------------

# delays TOPO: "LINK DELAY" for every link of a tree from `ibflow gen`
# (hosts hX, switches sL-I): each host's link, and each switch's port
# towards the level above; uniform in [LO, HI] µs, seeded.
delays() {
	awk -v lo="$LO" -v hi="$HI" -v seed="$SEED" '
	BEGIN { srand(seed) }
	function d() { return int(lo + (hi - lo) * rand() + 0.5) "us" }
	/^Ca/ { match($0, /# "[^ "]+/); host = substr($0, RSTART + 3, RLENGTH - 3); ca = 1; next }
	/^Switch/ { ca = 0; match($0, /# "s[0-9]+-[0-9]+"/)
		sw = substr($0, RSTART + 3, RLENGTH - 4)
		split(sw, l, "-"); lvl = substr(l[1], 2) + 0; next }
	ca && /^\[1\]/ { print host, d(); ca = 0; next }
	!ca && /^\[[0-9]+\]/ && match($0, /# "s[0-9]+-/) {
		p = substr($1, 2, length($1) - 2)
		if (substr($0, RSTART + 4, RLENGTH - 5) + 0 > lvl)
			print sw ":" p, d()
	}' "$1"
}

# one_case SPEC TAG PAR: one inference with --parallel PAR; prints the
# table row, or a failure
one_case() {
	local spec=$1 tag=$2 par=${3%/*} d="$OUT/$2" map n boot r h pids=() rc=0 t0 lv la top_pid=
	local cap=auto
	[ "$3" = "$par" ] || cap=${3#*/}
	mkdir -p "$d"
	if ! "$IBF" gen "$spec" -o "$d/truth.topo" >/dev/null ||
	   ! "$IBF" route --topo "$d/truth.topo" --engine minhop -o "$d/truth.lfts" >/dev/null; then
		echo "| $spec | gen/route failed |"
		return 1
	fi
	delays "$d/truth.topo" >"$d/delays"
	"$NF" --name "$NAME" down >/dev/null 2>&1
	t0=$SECONDS
	if ! "$NF" --name "$NAME" up --topo "$d/truth.topo" --lfts "$d/truth.lfts" \
		--mgmt --delay-file "$d/delays" >"$d/up.log" 2>&1; then
		echo "| $spec | netns-fabric up failed: $(tail -1 "$d/up.log") |"
		return 1
	fi
	echo "netns-fabric up $((SECONDS - t0)) s" >"$d/times"
	map=$STATE/$NAME/hosts
	n=$(grep -vc '^#' "$map")
	# ranks on the hosts in a shuffled order (seeded); rank 0 listens
	# on its host's management address
	awk '!/^#/ { print $1 }' "$map" |
		awk -v seed="$SEED" 'BEGIN { srand(seed) } { print rand(), $1 }' |
		sort -n | awk '{ print $2 }' >"$d/ranks"
	boot=$(awk -v h="$(head -1 "$d/ranks")" '$1 == h { print $9 }' "$map"):$((20000 + RANDOM % 20000))
	t0=$SECONDS
	r=0
	while read -r h; do
		"$NF" --name "$NAME" exec "$h" env LD_LIBRARY_PATH="$LD_LIBRARY_PATH" \
			UCX_IBFLOW_TLS=tcp UCX_IBFLOW_NET_DEVICES=fab1 \
			UCX_IBFLOW_TIMEOUT=300s UCX_IBFLOW_INFER_IN_FLIGHT="$cap" \
			IBFLOW_BOOT_ADDR="$boot" IBFLOW_BOOT_RANK=$r IBFLOW_BOOT_SIZE="$n" \
			timeout 1500 "$INFER" --tol "$TOL" --lookahead 8 --seed 1 \
			--parallel "$par" \
			-o "$d/live.topo" --trace "$d/live.trace" \
			>"$d/out.$r" 2>"$d/err.$r" &
		pids+=($!)
		r=$((r + 1))
	done <"$d/ranks"
	# TOP=1: where the guest's CPUs go while the ranks run
	[ "${TOP:-0}" = 1 ] && { while sleep 10; do date +%T; head -1 /proc/stat
		top -b -n 1 -w 200 | head -22; done >"$d/top.log" 2>&1 & top_pid=$!; }
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	[ -n "${top_pid:-}" ] && kill "$top_pid" 2>/dev/null
	echo "ibflow-infer wall $((SECONDS - t0)) s" >>"$d/times"
	la=$(cut -d' ' -f1-3 /proc/loadavg)
	cp "$map" "$d/hosts"
	"$NF" --name "$NAME" down >/dev/null 2>&1
	if [ $rc -ne 0 ] || [ ! -s "$d/live.trace" ]; then
		echo "| $spec | ibflow-infer failed: $(cat "$d"/err.* | head -c 200 | tr '\n' ' ') |"
		return 1
	fi
	# The evaluator: hosts by their NodeDescriptions in the truth
	# (rankR@HOST -> "HOST HCA-1", from the host map).
	awk 'NR == FNR { if (!/^#/) { h = $1; $1 = $2 = $3 = $4 = $5 = $6 = $7 = $8 = $9 = $10 = $11 = ""
			 sub(/^ +/, ""); desc[h] = $0 }; next }
	     /^# hosts:/ { l = "# hosts:"; for (i = 3; i <= NF; i++) { split($i, a, "@"); l = l " \"" desc[a[2]] "\"" }; print l; next }
	     /^#/ { print; next }
	     { for (i = 1; i <= 2; i++) { split($i, a, "@"); $i = "\"" desc[a[2]] "\"" }; print }' \
		"$d/hosts" "$d/live.trace" >"$d/named.trace"
	# the replay needs the live run's cap (auto resolved, as it reported)
	cap=$(sed -n 's/.*in flight at most \([0-9]*\) by the cap.*/\1/p' "$d/out.0")
	if ! "$IBF" infer --rtt "$d/named.trace" --truth "$d/truth.topo" \
		--tol "$TOL" --lookahead 8 --seed 1 --parallel "$par" \
		--in-flight "${cap:-0}" \
		-o "$d/replay.topo" \
		--json "$d/eval.json" >"$d/eval.txt" 2>&1; then
		echo "| $spec | evaluator failed: $(head -c 200 "$d/eval.txt") |"
		return 1
	fi
	lv=${spec#xgft:}
	lv=${lv%%:*}
	python3 - "$d" "$spec" "$lv" "$DELAY" "$la" "$3" <<'PY'
import json, re, sys
d, spec, lv, delay, la, par = sys.argv[1:7]
out = open(d + "/out.0").read()
ev = json.load(open(d + "/eval.json"))
acc = ev["accuracy"]
desc = {}
for l in open(d + "/hosts"):
    if not l.startswith("#"):
        f = l.split()
        desc[f[0]] = " ".join(f[11:])
live = re.sub(r"\brank[0-9]+@([^ \"]+)", lambda m: desc[m.group(1)],
              open(d + "/live.topo").read())
same = live == open(d + "/replay.topo").read()
m = re.search(r"pairs measured (\d+) of (\d+)", out)
t = re.search(r"time: total ([0-9.]+) s", out)
pp = re.search(r"ping-pongs (\d+)", out)
flights = re.search(r"pairs in flight at most (\d+), ([0-9.]+) on average", out)
n = len(ev["hosts"])
sw_true = sum(1 for l in open(d + "/truth.topo") if l.startswith("Switch"))
# The RTTs against the configured delays: measured minimum = c + 2 x
# (sum of the path's delays) + 2 x o x links, c and o fitted by least
# squares (o: what netem adds per delayed link and direction beyond its
# delay, c: the hosts' own round trip); the residuals are what the
# inference had to tolerate.
dl, up = {}, {}
for l in open(d + "/delays"):
    k, v = l.split()
    dl[k] = float(v[:-2])
node = None
for l in open(d + "/truth.topo"):
    mm = re.search(r'^(Ca|Switch).*# "([^ "]+)', l)
    if mm:
        node = mm.group(2)
        continue
    mm = re.match(r"\[(\d+)\].*# .*?\"(s(\d+)-\d+)\"", l)
    if mm and node and (node[0] == "h" or int(mm.group(3)) > int(node[1:].split("-")[0])):
        up[node] = (mm.group(2), dl[node if node[0] == "h" else node + ":" + mm.group(1)])
def root_path(x):
    out, s = [(x, 0.0)], 0.0
    while x in up:
        x, w = up[x][0], s + up[x][1]
        s = w
        out.append((x, s))
    return out
xs, ys = [], []
for l in open(d + "/named.trace"):
    if l.startswith("#"):
        continue
    f = re.findall(r'"([^ "]+)[^"]*"', l)
    pa, pb = root_path(f[0]), dict(root_path(f[1]))
    for i, (x, s) in enumerate(pa):
        if x in pb:
            links = i + [y for y, _ in root_path(f[1])].index(x)
            xs.append(2.0 * links)
            ys.append(float(l.rsplit('"', 1)[1].split()[0]) - 2 * (s + pb[x]))
            break
k = len(xs)
mx, my = sum(xs) / k, sum(ys) / k
o = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / max(1e-9, sum((x - mx) ** 2 for x in xs))
c = my - o * mx
res = sorted(y - c - o * x for x, y in zip(xs, ys))
print("| %s | %d | %s | %s us | %s / %s | %.4f / %.4f | %.3f-%.3f | %s s | %s | %d / %d | %s | %.0f + %.0f/link | %.0f..%.0f (max %.0f) | %s | %s: at most %s pairs in flight, %s on average |" % (
    spec, n, lv, delay, m.group(1), m.group(2),
    acc["false_positive_rate"], acc["false_negative_rate"],
    acc["ratio_p05"], acc["ratio_p95"], t.group(1), pp.group(1),
    ev["switches"], sw_true, "yes" if same else "NO", c, o,
    res[int(0.05 * k)], res[max(0, int(0.95 * k) - 1)],
    max(-res[0], res[-1]), la, par, flights.group(1), flights.group(2)))
PY
}

in_vm() {
	local spec run tag
	OUT=$1
	shift
	IBF=$B/common/.libs/ibflow
	[ -x "$IBF" ] || IBF=$B/common/ibflow
	INFER=$B/ucx_component/.libs/ibflow-infer
	export IBFLOW=$IBF
	export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	modprobe sch_netem 2>/dev/null || { echo "no sch_netem in $(uname -r)"; return 1; }
	[ -x "$INFER" ] || { echo "$INFER not built"; return 1; }
	trap '"$NF" --name "$NAME" down >/dev/null 2>&1' EXIT
	echo "VM: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r); delays $DELAY us per link (seed $SEED), --tol $TOL, repeat rule ${UCX_IBFLOW_PROBE_STALL:-10}/${UCX_IBFLOW_PROBE_MAX:-30}/${UCX_IBFLOW_PROBE_RUNS:-3}"
	echo
	echo "| fabric | hosts | levels | delays | pairs measured / all | false pos / neg | RTT ratio 5%-95% | time (measuring) | ping-pongs | switches inferred / true | live tree = replay | RTT - configured: c + o/link (us) | residual 5%-95% (us) | VM load avg | parallel: pairs in flight |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for spec in "$@"; do
		for ((run = 1; run <= RUNS; run++)); do
			for par in ${PARALLEL//,/ }; do
				tag=$(echo "$spec" | tr ':,' '__').$run
				# the first setting keeps the old directory name
				[ "$par" = "${PARALLEL%%[ ,]*}" ] || tag=$tag.p${par/\//c}
				one_case "$spec" "$tag" "$par"
			done
		done
	done
}

if [ "${1:-}" = --in-vm ]; then
	shift
	in_vm "$@"
	exit
fi

# ---- on the host ---------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || { echo "bench_infer_vm: needs root" >&2; exit 1; }
OUTDIR=$B/bench-infer-vm
rm -rf "$OUTDIR"
mkdir -p "$OUTDIR"
# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $DEFAULT_CASES
echo "host: $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg); $("$REPO/scripts/softroce-vm" --check)"
t0=$(date +%s)
export BUILD_DIR=$B DELAY TOL SEED RUNS PARALLEL TOP
# The build is kept visible in the guest wherever it lies (-p: a build
# under /tmp, which the guest mounts afresh, included).
"$REPO/scripts/softroce-vm" -n 0 -m "${VM_MEM:-6G}" -c "${VM_CPUS:-2}" \
	-t "${VM_TIMEOUT:-3000}" -p "$B" -r "$OUTDIR" -- \
	bash "$SELF" --in-vm "$OUTDIR" "$@"
rc=$?
echo
echo "VM exit $rc after $(($(date +%s) - t0)) s; host load average after: $(cut -d' ' -f1-3 /proc/loadavg); files in $OUTDIR"
exit $rc
