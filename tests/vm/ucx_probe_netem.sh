#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# vm-timeout: 700
# ibflow-probe over soft-RoCE on an emulated fabric with netem delays,
# inside the VM (its kernel has rdma_rxe and sch_netem; the machine's has
# neither): the 3-switch chain of tests/ucx_lib.sh under
# `netns-fabric up --endpoints root --rxe`, one rxe device per host, and
# netem delays on four links (netns-fabric delays a link both ways):
#   A - B  1500 us     B - C  500 us     h1 - A  800 us     h2 - A  200 us
# Six processes in the root namespace (rxe works there only), each given
# its own device by UCX_IBFLOW_NET_DEVICES, UCX over rc_verbs/ud_verbs,
# the own bootstrap on 127.0.0.1.
# Checks, against the configured delays (not against ibflow):
#  - each process found its endpoint through the host map, at the address
#    of the netdev under its rxe device;
#  - the aggregated links chain-A:8 + chain-B:8 (A - B both ways) and
#    chain-B:7 + chain-C:7 differ by 2 x (1500 - 500) = 2000 us, the host
#    aggregates of h1 and h2 (same switch) by 2 x (800 - 200) = 1200 us,
#    and each delayed aggregate is at least its configured sum, all within
#    TOL_US.  Differences, because netem in the emulated VM adds its own
#    ~200 us per delayed hop (timer latency: ping through 2 x 500 us
#    measured 1.78 ms against 0.40 ms undelayed), the same for every netem
#    queue, so it cancels between aggregates with as many delayed hops.
#    Tolerance TOL_US + TOL_PCT % of the configured value: the probes'
#    minima scatter by about 100 us on an idle host, an aggregate combines
#    four of them; under load (CI's 2 cores, qemu without KVM) the guest's
#    timers fire late in proportion to the delay: A - B came out 2542 us
#    against 2000 once.  What the check pins down is that each delay is
#    found on its own link and in proportion, not the emulator's timing.
# Then ibflow-infer on the same processes' devices without an export: the
# tree inferred from RTTs splits the hosts only as the chain does.
. "$T_REPO/tests/lib.sh"
. "$T_REPO/tests/ucx_lib.sh"

N=vm/ucx_probe_netem
NAME=ibfuv
NF=$T_REPO/scripts/netns-fabric
STATE=${NETNS_FABRIC_STATE:-/run/ibflow-netns}
B=$T_BUILD_DIR
PROBE=$B/ucx_component/.libs/ibflow-probe
TOL_US=300
TOL_PCT=30
export LD_LIBRARY_PATH=$B/ucx_component/.libs:$B/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
IBF=$t_ibflow
[ -x "$B/common/.libs/ibflow" ] && IBF=$B/common/.libs/ibflow
export IBFLOW=$IBF

cleanup() {
	[ ! -e "$STATE/$NAME" ] || "$NF" --name "$NAME" down >/dev/null 2>&1
	t__cleanup
}
trap cleanup EXIT

if [ ! -x "$PROBE" ]; then
	t_skip "$N" "the UCX component is not built"
	t_done
fi
if [ "$(id -u)" -ne 0 ] || ! t_need ip tc rdma python3; then
	t_skip "$N" "needs root, ip, tc, rdma and python3"
	t_done
fi
if ! modprobe rdma_rxe 2>/dev/null || ! modprobe sch_netem 2>/dev/null; then
	t_skip "$N" "no rdma_rxe or sch_netem in kernel $(uname -r) (run inside scripts/softroce-vm)"
	t_done
fi

D=$T_TMP
mkdir -p "$D/chain"
ucx_chain_topo "$D/chain/ibflow-topology.ibnd"
"$IBF" route --topo "$D/chain/ibflow-topology.ibnd" --engine minhop \
	-o "$D/chain/ibflow-lfts.dump" >/dev/null
ucx_export_dir "$D/chain" 6 3
cat >"$D/delays" <<'EOF'
chain-A:8 1500us
chain-B:7 500us
h1:1 800us
h2:1 200us
EOF
if t_expect_exit 0 "$NF" --name "$NAME" up --topo "$D/chain/ibflow-topology.ibnd" \
	--lfts "$D/chain/ibflow-lfts.dump" --endpoints root --rxe --mtu 9000 \
	--delay-file "$D/delays"; then
	t_pass "$N: netns-fabric up: chain, rxe endpoints, netem delays"
else
	t_fail "$N: netns-fabric up" "$(t_errhead)"
	t_done
fi
MAP=$STATE/$NAME/hosts

# One process per host, each on its own rxe device.
port=$((20000 + RANDOM % 20000))
r=0
pids=()
while read -r host _ _ _ _ _ _ _ _ rdma _; do
	env UCX_IBFLOW_NET_DEVICES="$rdma:1" UCX_IBFLOW_TLS=rc_verbs,ud_verbs \
		UCX_UD_ETH_DGID_CHECK=n UCX_IBFLOW_TIMEOUT=120s \
		UCX_IBFLOW_FABRIC="$D/chain" UCX_IBFLOW_ADDRMAP="$MAP" \
		IBFLOW_BOOT_ADDR=127.0.0.1:$port IBFLOW_BOOT_RANK=$r IBFLOW_BOOT_SIZE=6 \
		timeout 400 "$PROBE" --verbose --json "$D/probe.json" \
		>"$D/out.$r" 2>"$D/err.$r" &
	pids+=($!)
	echo "$r $host $rdma" >>"$D/ranks"
	r=$((r + 1))
done < <(grep -v '^#' "$MAP")
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
if [ $rc -eq 0 ] && [ -s "$D/probe.json" ]; then
	t_pass "$N: 6 processes probed over rc_verbs on rxe ($(sed -n 's/^plan: //p' "$D/out.0"))"
else
	t_fail "$N: probe run" "$(cat "$D"/err.* | head -c 400)"
	t_done
fi

# rank r was given host h's device: it must have found h's endpoint at the
# address of that device's netdev.
bad=0
while read -r rk host rdma; do
	nd=$(cat "/sys/class/infiniband/$rdma/ports/1/gid_attrs/ndevs/0" 2>/dev/null)
	addr=$(ip -4 -o addr show dev "$nd" | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
	grep -q "^rank $rk: host [0-9]* $host HCA-1 via UCX_IBFLOW_ADDRMAP address $addr " "$D/out.0" ||
		bad=$((bad + 1))
done <"$D/ranks"
[ $bad -eq 0 ] && t_pass "$N: every rank mapped to its device's host at that netdev's address" ||
	t_fail "$N: mapping" "$bad ranks wrong: $(grep '^rank' "$D/out.0" | tr '\n' ';')"

python3 - "$D/probe.json" "$TOL_US" "$TOL_PCT" >"$D/check" 2>&1 <<'PY'
import json, sys
d, tol, pct = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3])
agg = {frozenset(l["links"]): l["latency"] for l in d["links"]}
def get(*links):
    return agg[frozenset(links)]
ab = get("chain-A:8", "chain-B:8")
bc = get("chain-B:7", "chain-C:7")
h1 = get("h1 HCA-1:1", "chain-A:1")
h2 = get("h2 HCA-1:1", "chain-A:2")
checks = [("A-B - B-C", ab - bc, 2000.0, True),
          ("h1 - h2", h1 - h2, 1200.0, True),
          ("A-B", ab, 3000.0, False), ("B-C", bc, 1000.0, False)]
ok, out = True, []
for name, got, want, two_sided in checks:
    # Late timers only add: the lower bounds keep the plain tolerance.
    good = (abs(got - want) <= tol + pct / 100 * want if two_sided
            else got >= want - tol)
    ok &= good
    out.append("%s %.0f us (%s%.0f)" % (name, got, "" if two_sided else ">= ", want))
print("; ".join(out))
sys.exit(0 if ok else 1)
PY
if [ $? -eq 0 ]; then
	t_pass "$N: recovered link latencies within $TOL_US us + $TOL_PCT % of netem's: $(cat "$D/check")"
else
	t_fail "$N: recovered link latencies" "$(head -c 400 "$D/check")"
fi

# ibflow-infer on the same fabric and devices, no export: the tree from
# RTTs alone.  Its inner edges are A - B (1500 us) and B - C (500 us);
# h3, h4 and h5, h6 hang from undelayed links.  The tree is exact when
# every RTT is within l/2 of the truth (l = 500 us here, --tol 500), but
# netem's late timers in the emulated VM scatter RTTs by ~300 us (h3-h4
# 696 us against h5-h6 1009 us in one run), so the 500 us link may be
# lost.  Checked: every split of the inferred tree is one of the chain's
# (no false structure), and {h1,h2} | {h3..h6} across the 1500 us link is
# found; whether {h5,h6} was resolved is printed.  A longer repeat rule
# (20 / 100 / 5, as ucx_probe_netns.sh) brings minima nearer the floor.
# Hosts are the ranks; rank r ran on the device of host r of the map.
INFER=$B/ucx_component/.libs/ibflow-infer
port=$((20000 + RANDOM % 20000))
r=0
pids=()
while read -r rk host rdma; do
	env UCX_IBFLOW_NET_DEVICES="$rdma:1" UCX_IBFLOW_TLS=rc_verbs,ud_verbs \
		UCX_UD_ETH_DGID_CHECK=n UCX_IBFLOW_TIMEOUT=120s \
		UCX_IBFLOW_PROBE_STALL=20 UCX_IBFLOW_PROBE_MAX=100 UCX_IBFLOW_PROBE_RUNS=5 \
		IBFLOW_BOOT_ADDR=127.0.0.1:$port IBFLOW_BOOT_RANK="$rk" IBFLOW_BOOT_SIZE=6 \
		timeout 300 "$INFER" --tol 500 -o "$D/infer.topo" --trace "$D/infer.trace" \
		>"$D/iout.$rk" 2>"$D/ierr.$rk" &
	pids+=($!)
done <"$D/ranks"
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
if [ $rc -ne 0 ] || [ ! -s "$D/infer.topo" ]; then
	t_fail "$N: ibflow-infer run" "$(cat "$D"/ierr.* | head -c 400)"
	t_done
fi
t_canon_topo "$D/infer.topo" >"$D/infer.canon"
python3 - "$D/infer.canon" "$D/ranks" >"$D/icheck" 2>&1 <<'PY'
import sys
host = {}
for line in open(sys.argv[2]):
    rk, h, _ = line.split()
    host["rank" + rk] = h.split()[0]
typ, desc, adj = {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "N":
        typ[f[2]] = f[1]; desc[f[2]] = " ".join(f[4:]).strip('"').split("@")[0]
        adj.setdefault(f[2], [])
    elif f[0] == "L":
        a, b = f[1].split(":")[0], f[2].split(":")[0]
        adj.setdefault(a, []).append(b); adj.setdefault(b, []).append(a)
hosts = {g for g in typ if typ[g] != "Switch"}
allh = {host[desc[g]] for g in hosts}
splits = set()
for a in adj:
    for b in adj[a]:
        seen, st, side = {a, b}, [a], set()
        while st:
            v = st.pop()
            if v in hosts:
                side.add(host[desc[v]])
            for u in adj[v]:
                if u not in seen:
                    seen.add(u); st.append(u)
        if 1 < len(side) < len(hosts) - 1:
            splits.add(frozenset(side if "h1" not in side else allh - side))
want = {frozenset({"h3", "h4", "h5", "h6"}), frozenset({"h5", "h6"})}
ab = frozenset({"h3", "h4", "h5", "h6"})
print("%d hosts, %d switches, splits %s (the chain's %s)%s" % (
      len(hosts), len(typ) - len(hosts), sorted(sorted(x) for x in splits),
      sorted(sorted(x) for x in want),
      "" if splits == want else "; B - C (500 us) not resolved"))
sys.exit(0 if allh == {"h1", "h2", "h3", "h4", "h5", "h6"} and ab in splits
         and splits <= want else 1)
PY
if [ $? -eq 0 ]; then
	t_pass "$N: ibflow-infer (no export): no false split, A - B found: $(cat "$D/icheck"); $(sed -n 's/^\(pairs measured [0-9]* of [0-9]*\).*/\1/p' "$D/iout.0"), $(sed -n 's/^time: total \([0-9.]*\) s.*/\1 s/p' "$D/iout.0")"
else
	t_fail "$N: inferred tree vs the chain" "$(head -c 300 "$D/icheck"); $(grep '^infer-s' "$D/iout.0" | tr '\n' ';' | head -c 400)"
fi
t_done
