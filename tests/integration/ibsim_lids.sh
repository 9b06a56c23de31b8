#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Real OpenSM on ibsim is the reference for two things ibflow assumes about
# files that carry no LIDs:
#   - the LIDs: for ibsim's own example nets (Debian's ibsim-utils ships
#     them) and for generated nets stripped of their preset LIDs, at LMC 0
#     and 1, with the SM on a switch and on a host, the LID of every port in
#     OpenSM's opensm-subnet.lst (read with sed, not with ibflow) equals the
#     one ibflow assumes for the same file (`ibflow convert` writes it), and
#     `ibflow check` of the file with OpenSM's own minhop tables finds no
#     defect;
#   - `ibflow convert --to ibsim` writes a net OpenSM starts on: a fabric
#     whose first CA has only its port 2 cabled sweeps and routes; with
#     --sm NODE OpenSM runs from that node (a CA without port 1 cabled is
#     refused).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
EXAMPLES=/usr/share/doc/ibsim-utils/net-examples
# a sweep that cannot start (SM port down) spins: bound it
IBS_TIMEOUT=30

t_need_ibflow
if ! why=$(ibs_have_tools); then
	t_skip ibsim_lids "$why"
	t_done
fi

# "GUID LID" per port of an opensm-subnet.lst, each once.
osm_lids() {
	sed 's/} {/}\n{/g' "$1" |
		sed -n 's/.*PortGUID:\([0-9a-fA-F]*\) .*LID:\([0-9a-fA-F]*\) .*/\1 \2/p' |
		while read -r g l; do echo "$((16#$g)) $((16#$l))"; done | sort -u
}

# "GUID LID" per port of an ibnetdiscover file as ibflow writes it: switch
# headers "switchguid=0xG ... base port 0 lid L", CA ports "[p](G) ... # lid L".
ibf_lids() {
	awk '
	/^switchguid=/ { split($0, a, "[=(]"); g = a[2] }
	/^Switch/ { for (i = 1; i < NF; i++) if ($i == "lid") print g, $(i + 1) }
	/^\[[0-9]+\]\([0-9a-f]+\)/ {
		split($1, a, "[()]")
		for (i = 1; i < NF; i++) if ($i == "lid") { print "0x" a[2], $(i + 1); break }
	}' "$1" | while read -r g l; do echo "$((g)) $l"; done | sort -u
}

# sweep NET LMC RUN: one minhop sweep of NET in a fresh ibsim.
sweep() {
	ibs_start "$1" "$3" 2>"$3.err" || return 1
	ibs_opensm minhop "$2" "$3" 2>>"$3.err"
	local rc=$?
	ibs_stop
	return "$rc"
}

# same_lids NAME NET LMC: OpenSM's LIDs for NET equal ibflow's assumption.
same_lids() {
	local name=$1 net=$2 lmc=$3 run n
	run=$T_TMP/$(echo "$name" | tr -c 'A-Za-z0-9\n' _)
	mkdir -p "$run"
	if ! sweep "$net" "$lmc" "$run"; then
		t_fail "$name: OpenSM sweeps" "$(head -c 300 "$run.err")"
		return
	fi
	osm_lids "$run/opensm-subnet.lst" >"$run/osm.lids"
	if ! t_expect_exit 0 "$IBF" convert --lmc "$lmc" "$net" -o "$run/ibf.ibnd"; then
		t_fail "$name: ibflow convert" "$(t_errhead)"
		return
	fi
	ibf_lids "$run/ibf.ibnd" >"$run/ibf.lids"
	n=$(wc -l <"$run/osm.lids")
	if [ "$n" -gt 0 ] && cmp -s "$run/osm.lids" "$run/ibf.lids"; then
		t_pass "$name: ibflow assumes OpenSM's LIDs ($n ports)"
	else
		t_fail "$name: ibflow assumes OpenSM's LIDs" "$(diff "$run/osm.lids" "$run/ibf.lids" | head -6 | tr '\n' ' ')"
	fi
	if t_expect_exit 0 "$IBF" check --topo "$net" --lmc "$lmc" \
	   --lfts "$run/opensm-lfts.dump"; then
		t_pass "$name: ibflow check of OpenSM's minhop tables: no defect"
	else
		t_fail "$name: ibflow check of OpenSM's tables" "exit $T_RC: $(grep -m3 -i 'misdeliver\|defect' "$T_OUT" | tr '\n' ' ') $(t_errhead)"
	fi
}

# ---- ibsim's example nets -------------------------------------------------
nex=0
for net in net net.1 net.2sw2path net.2sw2path4hca net.2sw2path4hca2port; do
	[ -f "$EXAMPLES/$net" ] || continue
	nex=$((nex + 1))
	same_lids "example $net" "$EXAMPLES/$net" 0
done
[ "$nex" -gt 0 ] && same_lids "example net.2sw2path4hca lmc 1" \
	"$EXAMPLES/net.2sw2path4hca" 1
[ "$nex" -eq 5 ] || t_skip "ibsim's example nets" "$((5 - nex)) of 5 missing in $EXAMPLES"

# ---- generated nets without their preset LIDs ---------------------------
# ibflow writes CAs first (the SM on a host); the switch-first variant moves
# the first switch's record to the top.  "lid N lmc M" are the presets; the
# port comments go too, since ibsim takes a CA port's LID from the first
# "lid N" of its line, the peer's "lid N 4xEDR" when there is no preset.
strip_lids() { sed -e 's/ *lid [0-9]* lmc [0-9]*//' -e '/^\[/s/[ \t]*#.*//'; }
switch_first() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
	!s && /(^|\n)Switch/ { s = $0; next } { r[++n] = $0 }
	END { print s; for (i = 1; i <= n; i++) print r[i] }'
}
for spec in kary:4,2 "tree:12,40,8:3" "torus:3,3,2"; do
	tag=$(echo "$spec" | tr ':,' '_-')
	if ! "$IBF" gen "$spec" --format ibsim >"$T_TMP/$tag.gen" 2>"$T_TMP/$tag.err"; then
		t_fail "gen $spec" "$(head -c 200 "$T_TMP/$tag.err")"
		continue
	fi
	strip_lids <"$T_TMP/$tag.gen" >"$T_TMP/$tag.host"
	switch_first <"$T_TMP/$tag.host" >"$T_TMP/$tag.switch"
	same_lids "$spec SM on a host" "$T_TMP/$tag.host" 0
	same_lids "$spec SM on a switch" "$T_TMP/$tag.switch" 0
	same_lids "$spec SM on a host lmc 1" "$T_TMP/$tag.host" 1
done

# ---- convert --to ibsim: the first CA has only its port 2 cabled ----------
cat >"$T_TMP/port2.net" <<'NET'
Switch	8 "sw1"
[1]	"hA"[2]
[2]	"hB"[1]
[3]	"hC"[1]

Hca	2 "hA"
[2]	"sw1"[1]

Hca	2 "hB"
[1]	"sw1"[2]

Hca	1 "hC"
[1]	"sw1"[3]
NET
run=$T_TMP/port2
mkdir -p "$run"
if t_expect_exit 0 "$IBF" convert --to ibsim "$T_TMP/port2.net" -o "$run/net"; then
	if grep -q '^# OpenSM runs from the first node: "hB"' "$run/net"; then
		t_pass "convert --to ibsim names the SM's node (hB, port 1 cabled)"
	else
		t_fail "convert --to ibsim names the SM's node" "$(grep -m1 'OpenSM' "$run/net")"
	fi
	if sweep "$run/net" 0 "$run/osm"; then
		t_pass "OpenSM sweeps and routes the converted net (first CA port 2 only)"
	else
		t_fail "OpenSM on the converted net" "$(grep -m2 'SM port is down\|ERR' "$run/osm/osm.log" | tr '\n' ' ') $(head -c 200 "$run/osm.err")"
	fi
	same_lids "converted port-2 net" "$run/net" 0
else
	t_fail "convert --to ibsim" "$(t_errhead)"
fi

# ---- convert --to ibsim --sm NODE ------------------------------------------
if t_expect_exit 0 "$IBF" convert --to ibsim --sm hC "$T_TMP/port2.net" -o "$run/sm.net"; then
	if sweep "$run/sm.net" 0 "$run/osm-sm" &&
	   grep -q '{ CA-SM Ports:01 [^}]*{hC}' "$run/osm-sm/opensm-subnet.lst"; then
		t_pass "convert --sm hC: OpenSM runs from hC"
	else
		t_fail "convert --sm hC: OpenSM runs from hC" "$(grep -o '{ [A-Z]*-SM [^}]*}' "$run/osm-sm/opensm-subnet.lst" 2>/dev/null | head -1)"
	fi
else
	t_fail "convert --sm hC" "exit $T_RC: $(t_errhead)"
fi
if t_expect_exit 2 "$IBF" convert --to ibsim --sm hA "$T_TMP/port2.net" -o "$run/bad.net" &&
   grep -q '"hA" cannot carry the SM on ibsim' "$T_ERR" && [ ! -e "$run/bad.net" ]; then
	t_pass "convert --sm hA (port 1 not cabled) refused, nothing written"
else
	t_fail "convert --sm hA refused" "exit $T_RC: $(t_errhead)"
fi

t_done
