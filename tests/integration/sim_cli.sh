#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `ibflow sim` end to end: one flow on a generated fat tree against the
# time computed here (packets x packet time + hops x latency), the JSON's
# keys, a ring routed by minhop reported deadlocked (exit 1, the cycle's
# links chained), the same ring routed by layered with its SL file
# completing, every all-to-all algorithm completing, a trace file, per-hop
# VLs (--vl-spread) as computed here, and bad input: FILE:LINE errors,
# exit 2.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
W=$T_TMP
t_need_ibflow

t_check "gen kary:2,2" 0 "$IBF" gen kary:2,2 -o "$W/k.topo"
t_check "route dmodk" 0 "$IBF" route --topo "$W/k.topo" --engine dmodk \
	-o "$W/k.lfts"
printf '"h0000 HCA-1" "h0003 HCA-1"\n' >"$W/one.tr"

# One flow over 4 hops of 4x EDR (100 Gb/s of data): 512 packets of
# 2048 + 26 bytes back to back, plus 4 x 100 ns for the last one's tail.
if t_expect_exit 0 "$IBF" sim --topo "$W/k.topo" --lfts "$W/k.lfts" \
	--pattern "file:$W/one.tr" --bytes 1048576 --json "$W/one.json"; then
	if python3 - "$W/one.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["time_s", "bound_s", "deadlocked", "stalled",
                   "undelivered", "events", "packet_hops", "cpu_s",
                   "cycle", "flows", "links"], list(d)
rate = 4 * 25.78125e9 * 64 / 66
want = 512 * 2074 * 8 / rate + 4 * 100e-9
assert abs(d["time_s"] - want) < 1e-12 * 1e3, (d["time_s"], want)
assert abs(d["bound_s"] - 2**20 * 8 / (rate * 2048 / 2074)) < 1e-12
f = d["flows"][0]
assert (f["src"], f["dst"]) == ("h0000 HCA-1", "h0003 HCA-1"), f
assert d["packet_hops"] == 512 * 4 and not d["deadlocked"]
assert len(d["links"]) == 4
PY
	then t_pass "one flow: time, bound and JSON keys as computed here"
	else t_fail "one flow: time, bound and JSON keys" "python judge"
	fi
else
	t_fail "one flow" "exit $T_RC: $(t_errhead)"
fi

# ---- credit loop -----------------------------------------------------------
t_check "gen ring" 0 "$IBF" gen torus:8,1,1 -o "$W/ring.topo"
t_check "route ring minhop" 0 "$IBF" route --topo "$W/ring.topo" \
	--engine minhop -o "$W/ring.lfts"
if t_expect_exit 1 "$IBF" sim --topo "$W/ring.topo" --lfts "$W/ring.lfts" \
	--pattern alltoall --bytes 262144 --json "$W/ring.json"; then
	if grep -q "^DEADLOCK: credit loop of" "$T_OUT" &&
	   python3 - "$W/ring.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["deadlocked"] and d["undelivered"] > 0
c = d["cycle"]
assert len(c) >= 2
node = lambda end: end.rsplit("/", 1)[0]
for i, l in enumerate(c):
    assert node(l["to"]) == node(c[(i + 1) % len(c)]["from"]), c
PY
	then t_pass "minhop ring: deadlock reported with a chained cycle"
	else t_fail "minhop ring: deadlock report" "$(head -3 "$T_OUT")"
	fi
else
	t_fail "minhop ring: exit 1 for a deadlock" "exit $T_RC: $(t_errhead)"
fi
t_check "gen ring lmc 2" 0 "$IBF" gen torus:8,1,1 --lmc 2 -o "$W/ring2.topo"
t_check "route ring layered" 0 "$IBF" route --topo "$W/ring2.topo" \
	--engine layered --sl-out "$W/ring2.sl" -o "$W/ring2.lfts"
t_check "layered ring with its SLs completes" 0 "$IBF" sim \
	--topo "$W/ring2.topo" --lfts "$W/ring2.lfts" --sl "$W/ring2.sl" \
	--pattern alltoall --bytes 262144

# ---- all-to-all algorithms, trace ----------------------------------------
printf '"h%04d HCA-1"\n' 0 1 2 3 >"$W/k.hosts"
for alg in liquid liquid-barrier pairwise linear linear-sync:2 bruck; do
	t_check "alltoall $alg completes" 0 "$IBF" sim --topo "$W/k.topo" \
		--lfts "$W/k.lfts" --alltoall "$W/k.hosts" --algorithm "$alg" \
		--bytes 65536
done
printf '0 65536 "h0000 HCA-1" "h0001 HCA-1"\n2.5 1000 "h0002 HCA-1" "h0001 HCA-1"\n' \
	>"$W/ok.trace"
t_check "trace file" 0 "$IBF" sim --topo "$W/k.topo" --lfts "$W/k.lfts" \
	--trace "$W/ok.trace"

# ---- several ranks per host ---------------------------------------------------
# Two hosts on one switch, 3 ranks each (--ppn 3, or each host listed
# three times): 9 blocks each way over each host link and nothing else
# crossing, so liquid ends when the last block has crossed two links:
# the bound plus 2 x 100 ns.
printf '"h0000 HCA-1"\n"h0001 HCA-1"\n' >"$W/pair.hosts"
printf '"h0000 HCA-1"\n"h0001 HCA-1"\n"h0000 HCA-1"\n"h0001 HCA-1"\n"h0000 HCA-1"\n"h0001 HCA-1"\n' \
	>"$W/pair3.hosts"
for how in "pair.hosts --ppn 3" "pair3.hosts"; do
	# shellcheck disable=SC2086
	if t_expect_exit 0 "$IBF" sim --topo "$W/k.topo" --lfts "$W/k.lfts" \
		--alltoall "$W/"$how --bytes 65536 --json "$W/ppn.json" &&
	   python3 - "$W/ppn.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
net = [f for f in d["flows"] if f["src"] != f["dst"]]
assert len(net) == 18, len(net)
assert abs(d["time_s"] - (d["bound_s"] + 2 * 100e-9)) < 1e-12, d
PY
	then t_pass "liquid, 3 ranks per host ($how): bound + 2 latencies"
	else t_fail "liquid, 3 ranks per host ($how)" "exit $T_RC: $(t_errhead)"
	fi
done
for alg in pairwise linear bruck liquid:0; do
	t_check "$alg with --ppn 2 completes" 0 "$IBF" sim --topo "$W/k.topo" \
		--lfts "$W/k.lfts" --alltoall "$W/k.hosts" --ppn 2 \
		--algorithm "$alg" --bytes 8192
done
t_check "liquid-barrier with --ppn 2: exit 2" 2 "$IBF" sim \
	--topo "$W/k.topo" --lfts "$W/k.lfts" --alltoall "$W/k.hosts" \
	--ppn 2 --algorithm liquid-barrier --bytes 8192
t_check "--ppn with --receivers: exit 2" 2 "$IBF" sim --topo "$W/k.topo" \
	--lfts "$W/k.lfts" --alltoall "$W/k.hosts" --receivers "$W/k.hosts" \
	--ppn 2

# ---- bad input -------------------------------------------------------------
bad() {
	local name=$1 want=$2

	shift 2
	if t_expect_exit 2 "$IBF" sim --topo "$W/k.topo" --lfts "$W/k.lfts" \
		"$@" && grep -q -- "$want" "$T_ERR"; then
		t_pass "$name"
	else
		t_fail "$name" "exit $T_RC: $(t_errhead)"
	fi
}
printf '0 100 "h0000 HCA-1" "h0001 HCA-1"\nsoon 1 "h0000 HCA-1" "h0001 HCA-1"\n' \
	>"$W/bad.trace"
bad "trace: FILE:LINE on a bad time" "bad.trace:2: TIME_US" \
	--trace "$W/bad.trace"
printf '"h0000 HCA-1"\nnosuch\n' >"$W/bad.hosts"
bad "hosts: FILE:LINE on an unknown host" "bad.hosts:2:" \
	--alltoall "$W/bad.hosts"
bad "unknown algorithm" "algorithm 'fast'" --alltoall "$W/k.hosts" \
	--algorithm fast
bad "no traffic given" "one of --pattern" --bytes 10
bad "two traffics given" "one of --pattern" --pattern perm \
	--alltoall "$W/k.hosts"
bad "buffer below one packet" "cannot hold one packet" --pattern perm \
	--buffer 1024
bad "VL spread of one VL" "VL spread 1 outside 2..8" --pattern perm \
	--vl-spread 1
bad "VL spread above --max-vls" "VL spread 5 outside 2..4" --pattern perm \
	--vl-spread 5 --max-vls 4

# ---- per-hop VLs -----------------------------------------------------------
# The one flow again with --vl-spread 2: its packets leave the HCA on VL 0
# and each switch puts them on VL (in + out) mod 2 (port numbers read
# from the fabric here), every wire byte of a link on one VL.
if t_expect_exit 0 "$IBF" sim --topo "$W/k.topo" --lfts "$W/k.lfts" \
	--pattern "file:$W/one.tr" --bytes 1048576 --vl-spread 2 \
	--json "$W/spread.json"; then
	if python3 - "$W/spread.json" "$W/k.topo" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# switch ports are "NAME/PORT"; a switch's input port is the "to" end of
# the link before it on the path
links = {l["from"]: l for l in d["links"]}
hop = links.pop("h0000 HCA-1")
assert hop["vl_bytes"] == [512 * 2074, 0], hop
while links:
    node, inp = hop["to"].rsplit("/", 1)
    nxt = [k for k in links if k.rsplit("/", 1)[0] == node]
    assert len(nxt) == 1, (node, nxt)
    hop = links.pop(nxt[0])
    want = [0, 0]
    want[(int(inp) + int(hop["from"].rsplit("/", 1)[1])) % 2] = 512 * 2074
    assert hop["vl_bytes"] == want, (hop, inp)
assert hop["to"] == "h0003 HCA-1", hop
PY
	then t_pass "--vl-spread 2: each hop's VL is (in + out) mod 2"
	else t_fail "--vl-spread 2: each hop's VL" "python judge"
	fi
else
	t_fail "--vl-spread 2" "exit $T_RC: $(t_errhead)"
fi
t_done
