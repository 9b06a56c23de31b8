#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `ibflow liquid` end to end: a hand-made two-switch fabric (2 hosts per
# switch, one link between them: all-to-all is 12 transfers, 4 each way
# over the inter-switch link, so duration 4), a generated fat tree with a
# traffic file, JSON checked by python3 (keys, partition of the transfers,
# hosts by NodeDescription), the paper's Swiss-T1 with every node allocated
# (frames walked by liquid_trace.py), and bad input: FILE:LINE errors,
# exit 2.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
W=$T_TMP
t_need_ibflow

cat >"$W/two.net" <<'NET'
Hca	1 "a1"
[1]	"swA"[1]
Hca	1 "a2"
[1]	"swA"[2]
Hca	1 "b1"
[1]	"swB"[1]
Hca	1 "b2"
[1]	"swB"[2]
Switch	3 "swA"
[1]	"a1"[1]
[2]	"a2"[1]
[3]	"swB"[3]
Switch	3 "swB"
[1]	"b1"[1]
[2]	"b2"[1]
[3]	"swA"[3]
NET
printf 'a1\na2\nb1\nb2\n' >"$W/two.hosts"
t_check "route two-switch fabric" 0 "$IBF" route --topo "$W/two.net" \
	--engine minhop -o "$W/two.lfts"

# judge JSON TRANSFERS DURATION LIQUID PAIRFILE (lines "SRC<tab>DST"): keys exactly as documented (docs/liquid.md),
# every expected pair exactly once over the frames, no host sending or
# receiving twice in a frame (host links are links too).
judge() {
	python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want = ["transfers", "duration", "liquid_throughput", "liquid",
        "optimal_proven", "frames", "time_s"]
assert list(doc) == want, list(doc)
assert doc["transfers"] == int(sys.argv[2]), doc["transfers"]
assert doc["duration"] == int(sys.argv[3]), doc["duration"]
assert doc["liquid"] == (sys.argv[4] == "true"), doc["liquid"]
pairs = sorted(tuple(l.rstrip("\n").split("\t")) for l in open(sys.argv[5])
               if l.strip())
got = []
for fr in doc["frames"]:
    s = [p[0] for p in fr]; d = [p[1] for p in fr]
    assert len(set(s)) == len(s) and len(set(d)) == len(d), fr
    got += [tuple(p) for p in fr]
assert sorted(got) == pairs, "frames do not partition the transfers"
if doc["liquid"]:
    assert len(doc["frames"]) == doc["duration"]
assert abs(doc["liquid_throughput"] - doc["transfers"] / doc["duration"]) < 1e-6
print("ok")
PY
}

if ! t_need python3; then
	t_skip "liquid JSON checks" "python3 missing"
else
	for a in a1 a2 b1 b2; do for b in a1 a2 b1 b2; do
		[ "$a" != "$b" ] && printf '%s\t%s\n' "$a" "$b"
	done; done >"$W/two.pairs"
	if t_expect_exit 0 "$IBF" liquid --topo "$W/two.net" \
		--lfts "$W/two.lfts" --alltoall "$W/two.hosts" \
		--json "$W/two.json" &&
	   grep -q '^duration *4 ' "$T_OUT" &&
	   grep -q '^bottlenecks *2$' "$T_OUT" &&
	   judge "$W/two.json" 12 4 true "$W/two.pairs" >/dev/null 2>"$T_ERR"
	then
		t_pass "two switches all-to-all: 12 transfers, duration 4, liquid"
	else
		t_fail "two switches all-to-all" "exit $T_RC: $(t_errhead)"
	fi
	# Traffic file with COUNT: a1->b1 x3, a2->b2 x2, b1->a1: A->B load 5.
	printf 'a1 b1 3\n# comment\na2 b2 2\nb1 a1\n' >"$W/two.traffic"
	printf 'a1\tb1\na1\tb1\na1\tb1\na2\tb2\na2\tb2\nb1\ta1\n' \
		>"$W/two.tpairs"
	if t_expect_exit 0 "$IBF" liquid --topo "$W/two.net" \
		--lfts "$W/two.lfts" --traffic "$W/two.traffic" --json - &&
	   judge "$T_OUT" 6 5 true "$W/two.tpairs" >/dev/null 2>"$T_ERR"
	then
		t_pass "traffic file with COUNT: duration 5, liquid, JSON on stdout"
	else
		t_fail "traffic file with COUNT" "exit $T_RC: $(t_errhead)"
	fi

	# gen_all SPEC NAME: NAME.topo routed by minhop into NAME.lfts, its
	# hosts in NAME.hosts, every ordered pair of them in NAME.pairs.
	gen_all() {
		t_expect_exit 0 "$IBF" gen "$1" -o "$W/$2.topo" &&
		t_expect_exit 0 "$IBF" route --topo "$W/$2.topo" \
			--engine minhop -o "$W/$2.lfts" || return 1
		grep '^Ca' "$W/$2.topo" | sed 's/.*# "\(.*\)".*/\1/' \
			>"$W/$2.hosts"
		while read -r a; do while read -r b; do
			[ "$a" != "$b" ] && printf '%s\t%s\n' "$a" "$b"
		done <"$W/$2.hosts"; done <"$W/$2.hosts" >"$W/$2.pairs"
		return 0
	}

	# A generated fat tree, all-to-all.
	if gen_all kary:4,2 k; then
		if t_expect_exit 0 "$IBF" liquid --topo "$W/k.topo" \
			--lfts "$W/k.lfts" --alltoall "$W/k.hosts" --exact \
			--json "$W/k.json" &&
		   judge "$W/k.json" 240 15 true "$W/k.pairs" >/dev/null \
			2>"$T_ERR"; then
			t_pass "kary:4,2 all-to-all: 240 transfers in 15 frames"
		else
			t_fail "kary:4,2 all-to-all" "exit $T_RC: $(t_errhead)"
		fi
	else
		t_fail "kary:4,2 gen/route" "$(t_errhead)"
	fi

	# A work budget decides where the search stops: the 64 hosts of a
	# 4 x 4 x 4 torus (4,032 transfers, 66 on the busiest link, no
	# liquid schedule found within the budget), planned with 10 minutes
	# of clock, then with 5 s beside a spinning shell: the same frames.
	if gen_all torus:4,4,4 t; then
		T=("$IBF" liquid --topo "$W/t.topo" --lfts "$W/t.lfts"
		   --alltoall "$W/t.hosts" --search-work 20000000)
		ok=0
		if t_expect_exit 0 "${T[@]}" --time-limit 600 \
			--json "$W/t1.json"; then
			(while :; do :; done) &
			spin=$!
			t_expect_exit 0 "${T[@]}" --time-limit 5 \
				--json "$W/t2.json" && ok=1
			kill "$spin"
			wait "$spin" 2>/dev/null
		fi
		if [ "$ok" = 1 ] &&
		   judge "$W/t1.json" 4032 66 false "$W/t.pairs" >/dev/null \
			2>"$T_ERR" &&
		   python3 -c 'import json, sys
a, b = (json.load(open(f))["frames"] for f in sys.argv[1:])
assert a == b, "the frames differ"' "$W/t1.json" "$W/t2.json" 2>"$T_ERR"
		then
			t_pass "--search-work: the same frames under load"
		else
			t_fail "--search-work" "exit $T_RC: $(t_errhead)"
		fi
	else
		t_fail "torus:4,4,4 gen/route" "$(t_errhead)"
	fi

	# The paper's Swiss-T1, every node allocated: the 32 transmitting
	# processors (even hosts) to the 32 receiving ones (odd hosts), 1,024
	# transfers; the bound is 48 (three switch pairs share the busiest
	# switch link: 3 x 4 x 4), and a liquid schedule exists.  Every frame
	# walked by liquid_trace.py.
	if t_expect_exit 0 "$IBF" gen swisst1 -o "$W/t1.topo" &&
	   t_expect_exit 0 "$IBF" route --topo "$W/t1.topo" --engine swisst1 \
		-o "$W/t1.lfts"; then
		grep '^Ca' "$W/t1.topo" | sed 's/.*# "\(.*\)".*/\1/' |
			awk 'NR % 2 { tx[++n] = $0; next } { rx[++m] = $0 }
			END { for (i = 1; i <= n; i++) for (j = 1; j <= m; j++)
				printf "%s\t%s\n", tx[i], rx[j] }' \
			>"$W/t1.pairs"
		awk -F'\t' '{ printf "\"%s\" \"%s\"\n", $1, $2 }' \
			"$W/t1.pairs" >"$W/t1.traffic"
		if t_expect_exit 0 "$IBF" liquid --topo "$W/t1.topo" \
			--lfts "$W/t1.lfts" --traffic "$W/t1.traffic" \
			--json "$W/t1.json" &&
		   python3 "$(dirname "${BASH_SOURCE[0]}")/liquid_trace.py" \
			"$W/t1.json" "$W/t1.topo" "$W/t1.lfts" - \
			"$W/t1.pairs" >"$W/t1.check" 2>"$T_ERR" &&
		   grep -q '^48 48 True ' "$W/t1.check"; then
			t_pass "Swiss-T1, 32 nodes: 1,024 transfers liquid in 48 frames (traced)"
		else
			t_fail "Swiss-T1, 32 nodes" "exit $T_RC: $(t_errhead) $(cat "$W/t1.check" 2>/dev/null)"
		fi
	else
		t_fail "swisst1 gen/route" "$(t_errhead)"
	fi
fi

# ---- bad usage and bad input -------------------------------------------
L=("$IBF" liquid --topo "$W/two.net" --lfts "$W/two.lfts")
printf 'a1 b1\nb2 nosuchhost\n' >"$W/bad.traffic"
if t_expect_exit 2 "${L[@]}" --traffic "$W/bad.traffic" &&
   grep -q "bad.traffic:2:" "$T_ERR"; then
	t_pass "unknown host in traffic: FILE:LINE, exit 2"
else
	t_fail "unknown host in traffic" "exit $T_RC: $(t_errhead)"
fi
printf 'a1\nzz\n' >"$W/bad.hosts"
if t_expect_exit 2 "${L[@]}" --alltoall "$W/bad.hosts" &&
   grep -q "bad.hosts:2:" "$T_ERR"; then
	t_pass "unknown host in host list: FILE:LINE, exit 2"
else
	t_fail "unknown host in host list" "exit $T_RC: $(t_errhead)"
fi
printf 'a1 b1 0\n' >"$W/zero.traffic"
if t_expect_exit 2 "${L[@]}" --traffic "$W/zero.traffic" &&
   grep -q "zero.traffic:1:" "$T_ERR"; then
	t_pass "COUNT 0: FILE:LINE, exit 2"
else
	t_fail "COUNT 0" "exit $T_RC: $(t_errhead)"
fi
t_check "both --traffic and --alltoall: exit 2" 2 "${L[@]}" \
	--traffic "$W/two.traffic" --alltoall "$W/two.hosts"
t_check "neither --traffic nor --alltoall: exit 2" 2 "${L[@]}"
t_check "--time-limit 0: exit 2" 2 "${L[@]}" --alltoall "$W/two.hosts" \
	--time-limit 0
t_check "--time-limit junk: exit 2" 2 "${L[@]}" --alltoall "$W/two.hosts" \
	--time-limit 1x
t_check "--work-limit junk: exit 2" 2 "${L[@]}" --alltoall "$W/two.hosts" \
	--work-limit 1x
t_check "--search-work 1000: exit 0" 0 "${L[@]}" --alltoall "$W/two.hosts" \
	--search-work 1000
t_check "missing --lfts: exit 2" 2 "$IBF" liquid --topo "$W/two.net" \
	--alltoall "$W/two.hosts"
t_check "--help: exit 0" 0 "$IBF" liquid --help
# ---- several ranks per host ---------------------------------------------------
# judge_units JSON BOUND NET LOCAL: the node-aware plan's keys, the blocks
# computed here, the 12 host pairs of a1 a2 b1 b2 exactly once, no host
# sending or receiving twice in a frame, at most one pair per frame over
# the swA -> swB link and one over swB -> swA.
judge_units() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = ["ranks", "units", "frames", "duration", "bound_blocks",
        "plan_blocks", "liquid", "local_blocks", "net_blocks",
        "unit_frames", "time_s"]
assert list(d) == want, list(d)
assert d["bound_blocks"] == int(sys.argv[2]), d["bound_blocks"]
assert d["net_blocks"] == int(sys.argv[3]), d["net_blocks"]
assert d["local_blocks"] == int(sys.argv[4]), d["local_blocks"]
assert d["plan_blocks"] >= d["bound_blocks"]
hosts = ["a1", "a2", "b1", "b2"]
got = []
for fr in d["unit_frames"]:
    s = [p[0] for p in fr]; r = [p[1] for p in fr]
    assert len(set(s)) == len(s) and len(set(r)) == len(r), fr
    for way in ("ab", "ba"):
        assert sum(1 for p in fr if p[0][0] == way[0] and
                   p[1][0] == way[1]) <= 1, fr
    got += [tuple(p) for p in fr]
assert sorted(got) == sorted((a, b) for a in hosts for b in hosts
                             if a != b), got
assert len(d["unit_frames"]) == d["frames"]
PY
}
if ! t_need python3; then
	t_skip "node-aware JSON checks" "python3 missing"
else
	# 2 ranks on each host: 4 host pairs of 4 blocks over swA -> swB.
	if t_expect_exit 0 "$IBF" liquid --topo "$W/two.net" \
		--lfts "$W/two.lfts" --alltoall "$W/two.hosts" --ppn 2 \
		--json "$W/ppn2.json" &&
	   grep -q '^ranks *8 on 4 hosts' "$T_OUT" &&
	   grep -q '^bound *16 blocks' "$T_OUT" &&
	   judge_units "$W/ppn2.json" 16 48 8 2>"$T_ERR"; then
		t_pass "--ppn 2: bound 16 blocks, host pairs once, links once per frame"
	else
		t_fail "--ppn 2" "exit $T_RC: $(t_errhead)"
	fi
	# a1 listed three times: its link carries 9 blocks each way, the
	# busiest (swA -> swB: 3 x 2 + 2 = 8).
	printf 'a1\na1\na2\nb1\na1\nb2\n' >"$W/rep.hosts"
	if t_expect_exit 0 "$IBF" liquid --topo "$W/two.net" \
		--lfts "$W/two.lfts" --alltoall "$W/rep.hosts" \
		--json "$W/rep.json" &&
	   grep -q '^ranks *6 on 4 hosts (ports), at most 3' "$T_OUT" &&
	   judge_units "$W/rep.json" 9 24 6 2>"$T_ERR"; then
		t_pass "a host listed three times: bound 9 blocks, 6 in shared memory"
	else
		t_fail "repeated hosts" "exit $T_RC: $(t_errhead)"
	fi
fi
t_check "--ppn without --alltoall: exit 2" 2 "$IBF" liquid \
	--topo "$W/two.net" --lfts "$W/two.lfts" --traffic "$W/two.traffic" \
	--ppn 2
t_check "--ppn 0: exit 2" 2 "$IBF" liquid --topo "$W/two.net" \
	--lfts "$W/two.lfts" --alltoall "$W/two.hosts" --ppn 0
t_done
