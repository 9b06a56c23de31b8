#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Shapes that real clusters' files have and generated ones do not, each a
# fixture built here:
#   - switches that all report one NodeDescription: liquid, sim (text and
#     JSON) name every switch with its GUID, so no two links read the same;
#     unique descriptions stay plain;
#   - an opensm-subnet.lst of OpenSM before 2007 (no SPD= on its lines) is
#     read, its links at SDR, with a warning naming the first such line;
#   - layered with more layers than a read-back's LMC allows is refused
#     with advice that works: not "--lmc" (refused for a file with LIDs)
#     but --layers 2^LMC (which then routes) or a new sweep at a higher LMC;
#   - a loopback cable (a switch's port 5 cabled to its own port 6) is
#     named as such, not as an extra link between two switches;
#   - "enhanced port 0" survives convert to ibnetdiscover and to ibsim, and
#     (where ibsim is installed) ibsim's own ibnetdiscover read-back of the
#     converted net says enhanced for that switch and base for the others;
#   - eval on a one-host fabric says there is nothing to evaluate (exit 0);
#     paths with SRC = DST is refused (exit 2) instead of tracing a route
#     out and back; a file with several bad lines reports each (up to 5),
#     as a compiler does, and the port lines of a bad node header do not
#     add errors of their own.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
W=$T_TMP
t_need_ibflow

# ---- switches sharing one NodeDescription ---------------------------------
SAME="SwitchIB Mellanox Technologies"
"$IBF" gen kary:2,2 -o "$W/k.ibnd"
sed "s/\"s[0-9]-[0-9]*\"/\"$SAME\"/g" "$W/k.ibnd" >"$W/same.ibnd"
grep -o '# "h[0-9]* HCA-1"' "$W/k.ibnd" | sed 's/# "\(.*\)"/\1/' | sort -u >"$W/k.hosts"
t_check "same-description fabric routes" 0 "$IBF" route --topo "$W/same.ibnd" \
	--engine minhop -o "$W/same.lfts"


if t_expect_exit 0 "$IBF" liquid --topo "$W/same.ibnd" --lfts "$W/same.lfts" \
   --alltoall "$W/k.hosts"; then
	sed -n '/^bottlenecks/,/^liquid throughput/p' "$T_OUT" | grep ' -> ' >"$W/liq.bn"
	if [ -s "$W/liq.bn" ] && ! grep "$SAME" "$W/liq.bn" | grep -vq "$SAME (0x[0-9a-f]\{16\})" &&
	   [ -z "$(sort "$W/liq.bn" | uniq -d)" ]; then
		t_pass "liquid: bottlenecks name shared-description switches by GUID ($(wc -l <"$W/liq.bn") distinct lines)"
	else
		t_fail "liquid: bottlenecks name switches by GUID" "$(head -3 "$W/liq.bn")"
	fi
else
	t_fail "liquid on the same-description fabric" "exit $T_RC: $(t_errhead)"
fi

if t_expect_exit 0 "$IBF" sim --topo "$W/same.ibnd" --lfts "$W/same.lfts" \
   --alltoall "$W/k.hosts" --json "$W/sim.json"; then
	if python3 - "$W/sim.json" "$SAME" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
ends = [(l["from"], l["to"]) for l in d["links"]]
named = re.compile(re.escape(sys.argv[2]) + r" \(0x[0-9a-f]{16}\)/\d+$")
for a, b in ends:
    for e in (a, b):
        assert not e.startswith(sys.argv[2]) or named.match(e), e
assert len(set(ends)) == len(ends), "two links read the same"
assert len(ends) == 16, len(ends)
PY
	then
		t_pass "sim --json: 16 links, all distinct, switches with GUIDs"
	else
		t_fail "sim --json names links apart" "$(head -c 200 "$W/sim.json")"
	fi
	grep ' -> ' "$T_ERR" "$T_OUT" 2>/dev/null | sed 's/busy.*//' >"$W/sim.busy"
	if [ -s "$W/sim.busy" ] && [ -z "$(sort "$W/sim.busy" | uniq -d)" ] &&
	   ! grep "$SAME" "$W/sim.busy" | grep -v "$SAME (0x" | grep -q .; then
		t_pass "sim: busiest links all distinct, switches with GUIDs"
	else
		t_fail "sim: busiest links distinct" "$(sort "$W/sim.busy" | uniq -d | head -2)"
	fi
else
	t_fail "sim on the same-description fabric" "exit $T_RC: $(t_errhead)"
fi

"$IBF" route --topo "$W/k.ibnd" --engine minhop -o "$W/k.lfts" 2>/dev/null
if t_expect_exit 0 "$IBF" liquid --topo "$W/k.ibnd" --lfts "$W/k.lfts" \
   --alltoall "$W/k.hosts" && grep -q '"s1-0" port 1 -> "h0000 HCA-1"' "$T_OUT" &&
   ! grep -q '(0x' "$T_OUT"; then
	t_pass "liquid: unique descriptions stay plain"
else
	t_fail "liquid: unique descriptions stay plain" "$(grep -m2 ' -> ' "$T_OUT")"
fi

# ---- opensm-subnet.lst without SPD= ---------------------------------------
# Hca1 port 1 - Switch1 port 1 and Hca2 port 1 - Switch1 port 2, both
# directions each, the second link with SPD=5 (DDR).
side() { # TYPE NPORTS GUID PORTGUID DESC LID PN
	printf '{ %s Ports:%02x SystemGUID:%016x NodeGUID:%016x PortGUID:%016x VenID:000002C9 DevID:5A44 Rev:000000A1 {%s} LID:%04x PN:%02x }' "$@"
}
{
	echo "$(side CA 2 $((0x100)) $((0x100)) $((0x101)) Hca1 2 1) $(side SW-SM 8 $((0x200)) $((0x200)) $((0x200)) Switch1 1 1) PHY=4x LOG=ACT"
	echo "$(side SW-SM 8 $((0x200)) $((0x200)) $((0x200)) Switch1 1 1) $(side CA 2 $((0x100)) $((0x100)) $((0x101)) Hca1 2 1) PHY=4x LOG=ACT"
	echo "$(side CA 2 $((0x300)) $((0x300)) $((0x301)) Hca2 3 1) $(side SW-SM 8 $((0x200)) $((0x200)) $((0x200)) Switch1 1 2) PHY=4x LOG=ACT SPD=5"
	echo "$(side SW-SM 8 $((0x200)) $((0x200)) $((0x200)) Switch1 1 2) $(side CA 2 $((0x300)) $((0x300)) $((0x301)) Hca2 3 1) PHY=4x LOG=ACT SPD=5"
} >"$W/old.lst"
if t_expect_exit 0 "$IBF" info "$W/old.lst"; then
	if grep -q '4xSDR *1' "$T_OUT" && grep -q '4xDDR *1' "$T_OUT" &&
	   grep -q 'links: *2' "$T_OUT"; then
		t_pass "old subnet.lst read: 2 links, the one without SPD= at SDR"
	else
		t_fail "old subnet.lst read" "$(tr '\n' ' ' <"$T_OUT")"
	fi
	if grep -q "warning: .*old.lst:1: 2 link lines without SPD=.*SDR" "$T_ERR"; then
		t_pass "old subnet.lst: warning names line 1 and the speed assumed"
	else
		t_fail "old subnet.lst warns" "$(t_errhead)"
	fi
else
	t_fail "old subnet.lst (no SPD=) is read" "exit $T_RC: $(t_errhead)"
fi

# ---- layered on a read-back's LMC ----------------------------------------
"$IBF" gen kary:2,2 --lmc 2 -o "$W/lmc2.ibnd"
if t_expect_exit 2 "$IBF" route --topo "$W/lmc2.ibnd" --engine layered \
   --layers 8 -o "$W/l8.lfts"; then
	if grep -q -- '--layers 4' "$T_ERR" && grep -q 'lmc 3 in opensm.conf' "$T_ERR" &&
	   ! grep -q 'raise --lmc' "$T_ERR"; then
		t_pass "layered --layers 8 on LMC 2 LIDs: advice is --layers 4 or a sweep at LMC 3"
	else
		t_fail "layered advice" "$(t_errhead)"
	fi
	t_check "the advised --layers 4 routes" 0 "$IBF" route --topo "$W/lmc2.ibnd" \
		--engine layered --layers 4 -o "$W/l4.lfts"
	t_check "--lmc 3 on that file stays refused (what the advice no longer says)" 2 \
		"$IBF" route --topo "$W/lmc2.ibnd" --engine layered --layers 8 --lmc 3 -o "$W/l8.lfts"
else
	t_fail "layered --layers 8 on LMC 2 refused" "exit $T_RC: $(t_errhead)"
fi

# ---- loopback cable --------------------------------------------------------
"$IBF" gen kary:2,2 --format ibsim |
	awk '/^Switch/ { sw++; if (sw == 1) sub(/Switch\t4/, "Switch\t6") }
	{ print }
	sw == 1 && /^\[4\]/ {
		print "[5]\t\"S-0002c90200000000\"[6]"
		print "[6]\t\"S-0002c90200000000\"[5]"
	}' >"$W/loop.net"
if t_expect_exit 2 "$IBF" route --topo "$W/loop.net" --engine dmodk -o "$W/loop.lfts"; then
	if grep -q 'port 5 of switch "s1-0" (0x0002c90200000000) is cabled to port 6 of the same switch (a loopback cable)' "$T_ERR" &&
	   ! grep -q 'extra link' "$T_ERR"; then
		t_pass "loopback cable named as such"
	else
		t_fail "loopback cable named as such" "$(t_errhead)"
	fi
else
	t_fail "dmodk refuses the loopback fabric" "exit $T_RC: $(t_errhead)"
fi

# ---- enhanced port 0 -------------------------------------------------------
"$IBF" gen kary:2,2 | sed '0,/base port 0/s//enhanced port 0/' >"$W/esp.ibnd"
if "$IBF" convert "$W/esp.ibnd" -o "$W/esp2.ibnd" &&
   "$IBF" convert --to ibsim "$W/esp.ibnd" -o "$W/esp.net" &&
   [ "$(grep -c 'enhanced port 0' "$W/esp2.ibnd")" = 1 ] &&
   grep -q '"s1-0" enhanced port 0' "$W/esp2.ibnd" &&
   [ "$(grep -c 'enhanced port 0' "$W/esp.net")" = 1 ] &&
   grep -q '"s1-0" enhanced port 0' "$W/esp.net"; then
	t_pass "convert keeps enhanced port 0 (ibnetdiscover and ibsim)"
else
	t_fail "convert keeps enhanced port 0" "$(grep -h '^Switch' "$W/esp2.ibnd" "$W/esp.net" 2>/dev/null | head -2)"
fi
if why=$(ibs_have_tools); then
	if ibs_start "$W/esp.net" "$W/espsim" 2>"$W/espsim.err" &&
	   ibs_discover "$W/espsim/disc.out"; then
		if [ "$(grep -c '^Switch.*enhanced port 0' "$W/espsim/disc.out")" = 1 ] &&
		   grep -q '"s1-0" enhanced port 0' "$W/espsim/disc.out" &&
		   [ "$(grep -c '^Switch.*base port 0' "$W/espsim/disc.out")" = 3 ]; then
			t_pass "ibsim's read-back: s1-0 enhanced, 3 switches base"
		else
			t_fail "ibsim's read-back of enhanced port 0" "$(grep '^Switch' "$W/espsim/disc.out" | head -4)"
		fi
	else
		t_fail "ibsim on the converted net" "$(head -c 300 "$W/espsim.err")"
	fi
	ibs_stop_all
else
	t_skip "ibsim's read-back of enhanced port 0" "$why"
fi

# ---- small ones -------------------------------------------------------------
printf 'Switch\t4 "sw"\n[1]\t"h1"[1]\n\nHca\t1 "h1"\n[1]\t"sw"[1]\n' >"$W/one.net"
"$IBF" route --topo "$W/one.net" --engine minhop -o "$W/one.lfts" 2>/dev/null
if t_expect_exit 0 "$IBF" eval --topo "$W/one.net" --lfts "$W/one.lfts" \
   --patterns shift,perm && grep -q 'nothing to evaluate: .*one.net has 1 host port, traffic needs two' "$T_ERR"; then
	t_pass "eval on a one-host fabric: nothing to evaluate, exit 0"
else
	t_fail "eval on a one-host fabric" "exit $T_RC: $(t_errhead)"
fi

if t_expect_exit 2 "$IBF" paths --topo "$W/k.ibnd" --lfts "$W/k.lfts" \
   "h0000 HCA-1" "h0000 HCA-1" && grep -q 'SRC and DST are the same port (LID 1)' "$T_ERR" &&
   [ ! -s "$T_OUT" ]; then
	t_pass "paths A A refused, nothing traced"
else
	t_fail "paths A A refused" "exit $T_RC: $(head -2 "$T_OUT") $(t_errhead)"
fi
t_check "paths A B still traces" 0 "$IBF" paths --topo "$W/k.ibnd" --lfts "$W/k.lfts" \
	"h0000 HCA-1" "h0001 HCA-1"

# bad lines 3, 4 (unknown), 7 (bad port count; its port lines 8-9 are not
# reported), 10 (unknown)
printf 'Switch\t4 "sw"\n[1]\t"h1"[1]\n[x] foo\nbogus line\n\nHca\t1 "h1"\nHca zz "h2"\n[1] "sw"[2]\n[2] "sw"[3]\nmore junk\n' >"$W/bad.net"
if t_expect_exit 2 "$IBF" info "$W/bad.net"; then
	lines=$(grep -o 'bad.net:[0-9]*:' "$T_ERR" | tr -d 'a-z.:' | tr '\n' ' ')
	if [ "$lines" = "3 4 7 10 " ]; then
		t_pass "four bad lines reported in one run: $lines"
	else
		t_fail "several bad lines reported" "lines '$lines': $(t_errhead)"
	fi
else
	t_fail "bad net refused" "exit $T_RC"
fi
{ printf 'Switch\t4 "sw"\n\n'; for i in $(seq 8); do echo "junk $i"; done; } >"$W/junk.net"
if t_expect_exit 2 "$IBF" info "$W/junk.net"; then
	# as many as the message holds, at most 5, in order from line 3
	lines=$(grep -o 'junk.net:[0-9]*:' "$T_ERR" | tr -d 'a-z.:' | tr '\n' ' ')
	n=$(echo $lines | wc -w)
	if [ "$n" -ge 3 ] && [ "$n" -le 5 ] && [ "$lines" = "$(seq -s ' ' 3 $((n + 2))) " ] &&
	   { [ "$n" = 5 ] || grep -q '(further errors not shown)' "$T_ERR"; }; then
		t_pass "eight bad lines: the first $n reported ($lines)"
	else
		t_fail "the first bad lines of 8" "lines '$lines': $(t_errhead)"
	fi
else
	t_fail "junk refused" "exit $T_RC"
fi

t_done
