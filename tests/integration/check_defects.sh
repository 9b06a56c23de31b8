#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `ibflow check` on damaged inputs.
#
# Routing defects (exit 1): starting from tables real OpenSM programmed into
# ibsim, plant a loop (a spine sends a LID back down to the leaf that sent
# it up), a black hole (the spine's entry set to 255, or the entry removed)
# and a dead end (a link of the route removed from the topology); the
# defect counts ibflow reports must equal those of the independent awk
# tracer (tests/lib.sh), and the defect must be named.
#
# Bad input (exit 2, "FILE:LINE: what" on stderr): a truncated line, a
# truncated file, an unknown GUID in the tables and in the topology, binary
# junk, an asymmetric link, a duplicate GUID, overlapping LIDs, a malformed
# table entry, an entry naming a port the switch does not have.  Where the damaged line is known, the message must name it.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
trap 'ibs_stop_all; t__cleanup' EXIT

IBF=$t_ibflow
W=$T_TMP

# ---- a good fabric and routing -----------------------------------------
if ! why=$(ibs_have_tools); then
	t_skip check_defects "$why"
	t_done
fi
if ! t_expect_exit 0 "$IBF" gen xgft:2:4,4:1,4 --format ibsim -o "$W/net"; then
	t_fail "gen xgft:2:4,4:1,4" "exit $T_RC: $(t_errhead)"
	t_done
fi
if ! { ibs_start "$W/net" "$W/osm" && ibs_opensm minhop 0 "$W/osm" &&
       ibs_discover "$W/osm/ibnetdiscover.out"; } 2>"$W/session.err"; then
	t_fail "OpenSM session" "$(head -c 300 "$W/session.err")"
	t_done
fi
ibs_stop
TOPO=$W/osm/ibnetdiscover.out
GOOD=$W/osm/opensm-lfts.dump
t_check "good tables: exit 0" 0 "$IBF" check --topo "$TOPO" --lfts "$GOOD"

# ---- pick the victim: a destination LID D, a leaf A not on D's switch,
# the spine B that A sends D to, and B's port back to A.
t_canon_topo "$TOPO" >"$W/topo.canon"
t_canon_lfts "$GOOD" >"$W/good.lft"
# CA port LIDs "guid:port lid" and switch ids from the ibnetdiscover file.
awk '/^caguid=/ { sub(/^caguid=0x0*/, ""); g = tolower($0) }
     /^Ca[ \t]/ { ca = 1; next } /^(Switch|Rt)[ \t]/ { ca = 0; next }
     ca && /^\[[0-9]+\]/ && match($0, /# *lid [0-9]+/) {
	split(substr($0, RSTART, RLENGTH), v, " ")
	match($0, /^\[[0-9]+\]/)
	print g ":" substr($0, 2, RLENGTH - 2), v[3]
     }' "$TOPO" >"$W/ca.lids"
read -r D A PA B PB < <(awk '
	FILENAME ~ /topo.canon$/ && $1 == "N" { type[$3] = $2; next }
	FILENAME ~ /topo.canon$/ && $1 == "L" { peer[$2] = $3; peer[$3] = $2; next }
	FILENAME ~ /ca.lids$/ { lidof[$1] = $2; calist[++nca] = $1; next }
	{ lft[$1 ":" $2] = $3 }
	END {
		dport = calist[1]; d = lidof[dport]; split(peer[dport], q, ":")
		dleaf = q[1]
		for (i = 2; i <= nca; i++) {
			split(peer[calist[i]], q, ":")
			a = q[1]
			if (a == dleaf || !((a ":" d) in lft))
				continue
			pa = lft[a ":" d]
			split(peer[a ":" pa], r, ":")
			if (type[r[1]] != "Switch")
				continue
			print d, a, pa, r[1], r[2]
			exit
		}
	}' "$W/topo.canon" "$W/ca.lids" "$W/good.lft")
if [ -z "${PB:-}" ]; then
	t_fail "find a leaf-spine route to plant defects in" "no candidate in $GOOD"
	t_done
fi
echo "# victim: LID $D; leaf $A port $PA -> spine $B port $PB"

# set_entry IN OUT SWITCH LID PORT|del: rewrite one entry of a dump.
set_entry() {
	awk -v sw="$3" -v lid="$4" -v port="$5" '
	function hex(s,    i, n) {
		s = tolower(s); sub(/^0x/, "", s); n = 0
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	/^Unicast lids/ {
		here = 0
		if (match($0, /guid 0x[0-9a-fA-F]+/)) {
			g = tolower(substr($0, RSTART + 7, RLENGTH - 7))
			sub(/^0+/, "", g)
			here = (g == sw)
		}
	}
	here && /^0x[0-9a-fA-F]+[ \t]/ && hex($1) == lid {
		done = NR
		if (port == "del")
			next
		sub(/^0x[0-9a-fA-F]+[ \t]+[0-9]+/, sprintf("%s %03d", $1, port))
	}
	{ print }
	END { if (!done) exit 1; print done >(out ".line") }' out="$2" "$1" >"$2"
}

# A figure from ibflow check's summary ("  loops   3").
figure() {
	sed -n "s/^ *$2  *\\([0-9][0-9]*\\).*/\\1/p" "$1" | head -1
}

# defect NAME FILE TRACER_FIELD CHECK_LABEL WORD_RE
defect() {
	local name=$1 f=$2 field=$3 label=$4 re=$5 tr want got

	tr=$(t_trace "$TOPO" "$f")
	want=$(awk -v k="$field" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$tr")
	if [ "${want:-0}" -eq 0 ]; then
		t_fail "$name: planted" "the awk tracer sees no $field: $tr"
		return
	fi
	if ! t_expect_exit 1 "$IBF" check --topo "$TOPO" --lfts "$f"; then
		t_fail "$name: exit 1" "exit $T_RC: $(t_errhead)"
		return
	fi
	t_pass "$name: exit 1"
	got=$(figure "$T_OUT" "$label")
	if [ "$got" = "$want" ]; then
		t_pass "$name: $label $got, as the awk tracer counts"
	else
		t_fail "$name: $label count" "ibflow check '$got', awk tracer $want"
	fi
	if grep -qiE "$re" "$T_OUT" "$T_ERR"; then
		t_pass "$name: defect named"
	else
		t_fail "$name: defect named" "no /$re/ in the report"
	fi
}

set_entry "$GOOD" "$W/loop.dump" "$B" "$D" "$PB" &&
	defect "loop" "$W/loop.dump" loop loops 'loop'
set_entry "$GOOD" "$W/hole.dump" "$B" "$D" 255 &&
	defect "black hole (255)" "$W/hole.dump" no_route "no route" 'no route|black hole|unrouted'
set_entry "$GOOD" "$W/gone.dump" "$B" "$D" del &&
	defect "black hole (entry removed)" "$W/gone.dump" no_route "no route" 'no route|black hole|unrouted'
# Dead end: the link A-B goes down after routing (removed from the
# topology at both ends); the tables still send D from A to port PA.
awk -v a="$A" -v pa="$PA" -v b="$B" -v pb="$PB" '
	/^switchguid=/ { g = tolower($0); sub(/^switchguid=0x0*/, "", g); sub(/\(.*/, "", g) }
	/^(Ca|Rt)[ \t]/ { g = "" }
	/^\[[0-9]+\]/ && g != "" {
		match($0, /^\[[0-9]+\]/); p = substr($0, 2, RLENGTH - 2)
		if ((g == a && p == pa) || (g == b && p == pb))
			next
	}
	{ print }' "$TOPO" >"$W/linkdown.topo"
if [ "$(wc -l <"$W/linkdown.topo")" -eq $(($(wc -l <"$TOPO") - 2)) ]; then
	TOPO_SAVE=$TOPO
	TOPO=$W/linkdown.topo
	defect "dead end (link down)" "$GOOD" dead_end "dead ends" 'dead end'
	TOPO=$TOPO_SAVE
else
	t_fail "dead end (link down)" "could not remove the link from $TOPO"
fi

# ---- bad input ------------------------------------------------------------
# bad NAME LINE|- ARGS...: exit 2, "FILE:N: " on stderr naming the damaged
# file (its basename, the first file of ARGS that ends in .bad), and line
# LINE when given.
bad() {
	local name=$1 line=$2 f

	shift 2
	for f in "$@"; do
		case $f in *.bad) break ;; esac
	done
	f=$(basename "$f")
	if ! t_expect_exit 2 "$IBF" check "$@"; then
		t_fail "$name: exit 2" "exit $T_RC: $(t_errhead)"
		return
	fi
	if [ "$line" = - ]; then
		if grep -qE "^.*$f:[0-9]+: " "$T_ERR"; then
			t_pass "$name: exit 2, $(grep -oE "$f:[0-9]+:" "$T_ERR" | head -1)"
		else
			t_fail "$name: FILE:LINE on stderr" "$(t_errhead)"
		fi
	elif grep -qE "^.*$f:$line: " "$T_ERR"; then
		t_pass "$name: exit 2, $f:$line named"
	else
		t_fail "$name: $f:$line on stderr" "$(t_errhead)"
	fi
}

# Line numbers and lines of the good topology we damage.
sw_port_line=$(awk '/^Switch[ \t]/ { s = 1; next } s && /^\[[0-9]+\]/ { print NR; exit }' "$TOPO")
ca_hdr_line=$(awk '/^Ca[ \t]/ { print NR; exit }' "$TOPO")
ca_port_line=$((ca_hdr_line + 1))

awk -v k="$sw_port_line" 'NR == k { $0 = substr($0, 1, 8) } { print }' \
	"$TOPO" >"$W/trunc-line.bad"
bad "topology: truncated line" "$sw_port_line" --topo "$W/trunc-line.bad" --lfts "$GOOD"

off=$(head -n "$sw_port_line" "$TOPO" | wc -c)
head -c $((off - 20)) "$TOPO" >"$W/trunc-file.bad"
bad "topology: truncated file" - --topo "$W/trunc-file.bad" --lfts "$GOOD"

awk -v k="$sw_port_line" 'NR == k { sub(/"[SH]-[0-9a-fA-F]+"/, "\"S-00000000deadbeef\"") } { print }' \
	"$TOPO" >"$W/unknown-guid.topo.bad"
bad "topology: link to an unknown GUID" - --topo "$W/unknown-guid.topo.bad" --lfts "$GOOD"

hdr=$(grep -n -m1 '^Unicast lids' "$GOOD" | cut -d: -f1)
awk -v k="$hdr" 'NR == k { sub(/guid 0x[0-9a-fA-F]+/, "guid 0x00000000deadbeef") } { print }' \
	"$GOOD" >"$W/unknown-guid.lfts.bad"
bad "tables: unknown switch GUID" "$hdr" --topo "$TOPO" --lfts "$W/unknown-guid.lfts.bad"

# An entry naming port 200, which no switch of this fabric has.
if set_entry "$GOOD" "$W/port200.lfts.bad" "$B" "$D" 200; then
	bad "tables: port beyond the switch's ports" "$(cat "$W/port200.lfts.bad.line")" \
		--topo "$TOPO" --lfts "$W/port200.lfts.bad"
fi

ent=$(grep -n -m1 '^0x[0-9a-fA-F]* ' "$GOOD" | cut -d: -f1)
awk -v k="$ent" 'NR == k { sub(/^0x[0-9a-fA-F]+/, "0x00zz") } { print }' \
	"$GOOD" >"$W/entry.lfts.bad"
bad "tables: malformed entry" "$ent" --topo "$TOPO" --lfts "$W/entry.lfts.bad"

head -c 200 /dev/urandom >"$W/junk.topo.bad"
bad "topology: binary junk" - --topo "$W/junk.topo.bad" --lfts "$GOOD"
head -c 200 /dev/urandom >"$W/junk.lfts.bad"
bad "tables: binary junk" - --topo "$TOPO" --lfts "$W/junk.lfts.bad"

# Asymmetric: the first CA claims the switch port of another CA.
other=$(awk -v k="$ca_port_line" '
	NR == k { match($0, /"[SH]-[0-9a-fA-F]+"\[[0-9]+\]/); me = substr($0, RSTART, RLENGTH)
		  sw = me; sub(/\[.*/, "", sw) }
	/^Ca[ \t]/ && NR > k { c = 1; next }
	c && /^\[[0-9]+\]/ && NR > k && index($0, sw "[") {
		match($0, /"[SH]-[0-9a-fA-F]+"\[[0-9]+\]/); print substr($0, RSTART, RLENGTH); exit }
	' "$TOPO")
if [ -n "$other" ]; then
	awk -v k="$ca_port_line" -v o="$other" 'NR == k { sub(/"[SH]-[0-9a-fA-F]+"\[[0-9]+\]/, o) } { print }' \
		"$TOPO" >"$W/asym.bad"
	bad "topology: asymmetric link" - --topo "$W/asym.bad" --lfts "$GOOD"
else
	t_fail "topology: asymmetric link" "no second CA on the first CA's switch"
fi

# Duplicate GUID: the first CA's record again, under another name.
{
	cat "$TOPO"
	echo
	awk -v k="$ca_hdr_line" 'NR == k - 1 && /^caguid=/ { print }
		NR >= k { if (NR > k && !/^\[/) exit; print }' "$TOPO" |
		sed 's/# "[^"]*"/# "duplicate"/'
} >"$W/dup.bad"
bad "topology: duplicate GUID" - --topo "$W/dup.bad" --lfts "$GOOD"

# Overlapping LIDs: the second CA port takes the first one's LID.
read -r l1 l2 < <(awk '/^Ca[ \t]/ { c = 1; next } /^(Switch|Rt)[ \t]/ { c = 0 }
	c && /^\[[0-9]+\]/ && match($0, /# *lid [0-9]+/) {
		n++; split(substr($0, RSTART, RLENGTH), v, " ")
		if (n == 1) lid = v[3]
		else { print lid, NR; exit } }' "$TOPO")
awk -v k="$l2" -v lid="$l1" 'NR == k { sub(/# *lid [0-9]+/, "# lid " lid) } { print }' \
	"$TOPO" >"$W/overlap.bad"
bad "topology: overlapping LIDs" - --topo "$W/overlap.bad" --lfts "$GOOD"

t_done
