#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Every generator family, every topology format:
#   - node and link counts equal the closed formulas of each family
#     (computed here, not by ibflow), read with an independent awk reader;
#   - gen -> file -> `ibflow convert` back to the same format -> identical;
#   - ibsim and ibnetdiscover outputs describe the same fabric;
#   - dot output is a plausible graph with one edge per link;
#   - LMC 2: every CA base LID aligned to 4, no two ranges overlap;
#   - the same spec twice gives the same bytes (seeded Jellyfish included).
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow

# ---- expected sizes -----------------------------------------------------
# PGFT(h; m; w; p): level-l nodes = prod(m[l+1..h]) * prod(w[1..l]);
# links between levels l-1 and l = nodes(l-1) * w[l] * p[l].
# Prints "HOSTS SWITCHES SWITCH_LINKS HOST_LINKS".
pgft_sizes() {
	local h=$1 m w p l i n sw=0 swl=0 hl=0 prev=0
	IFS=, read -r -a m <<<"$2"
	IFS=, read -r -a w <<<"$3"
	IFS=, read -r -a p <<<"$4"
	for ((l = 0; l <= h; l++)); do
		n=1
		for ((i = l; i < h; i++)); do n=$((n * m[i])); done
		for ((i = 0; i < l; i++)); do n=$((n * w[i])); done
		if [ "$l" -eq 0 ]; then
			hosts=$n
		else
			sw=$((sw + n))
			if [ "$l" -eq 1 ]; then
				hl=$((prev * w[0] * p[0]))
			else
				swl=$((swl + prev * w[l - 1] * p[l - 1]))
			fi
		fi
		prev=$n
	done
	echo "$hosts $sw $swl $hl"
}

# Family specs with their expected "HOSTS SWITCHES SWITCH_LINKS HOST_LINKS";
# "-" where the family's definition leaves a count to the implementation.
SPECS=(
	"pgft:3:6,6,12:1,6,6:1,1,1|$(pgft_sizes 3 6,6,12 1,6,6 1,1,1)"
	"pgft:2:4,4:1,2:1,2|$(pgft_sizes 2 4,4 1,2 1,2)"
	"xgft:2:4,4:1,4|$(pgft_sizes 2 4,4 1,4 1,1)"
	"xgft:3:2,2,2:1,2,2|$(pgft_sizes 3 2,2,2 1,2,2 1,1,1)"
	# k-ary n-tree = XGFT(n; k..k; 1,k..k): k^n hosts, n k^(n-1) switches
	"kary:4,2|16 8 16 16"
	"kary:4,3|64 48 128 64"
	# MMS Slim Fly q=5 (q = 4*1 + 1): 2q^2 = 50 routers of network
	# degree (3q-1)/2 = 7: 175 links; P=3 hosts each
	"slimfly:5:3|150 50 175 150"
	"slimfly:5|- 50 175 -"
	# Dragonfly a=4, p=2, h=2: g = a*h+1 = 9 groups, 36 routers,
	# 9 * C(4,2) local + C(9,2) global = 54 + 36 links, 72 hosts
	"dragonfly:4,2,2|72 36 90 72"
	# HyperX L=2, S=4, K=1: 16 routers, L*S^(L-1)*C(S,2)*K = 48 links
	"hyperx:2:4:1|- 16 48 -"
	"hyperx:2:4:1:2|32 16 48 32"
	# Jellyfish: 16 routers, 2 hosts each; every one of the 16*4 router
	# ports is used (docs/generators.md), so 32 router links
	"jellyfish:16,4,2:7|32 16 32 32"
	# 3x3x3 torus: 27 routers, rings of 3 in each of 3 dimensions = 81
	"torus:3,3,3|- 27 81 -"
	"torus:3,3,3:2|54 27 81 54"
	# random tree: S switches, S-1 links among them, one link per host
	"tree:12,40,6:1|40 12 11 40"
)
FORMATS=(ibnetdiscover ibsim)

# counts FILE: "HOSTS SWITCHES SWITCH_LINKS HOST_LINKS" via the awk reader
# (works on ibsim files too: same record syntax, "Hca" for CAs).
counts() {
	sed 's/^Hca\([ \t]\)/Ca\1/' "$1" >"$T_TMP/.counts"
	t_canon_topo "$T_TMP/.counts" | awk '
	$1 == "N" { type[$3] = $2; if ($2 == "Switch") s++; else c++ }
	$1 == "L" { split($2, a, ":"); split($3, b, ":")
		    nl++; la[nl] = a[1]; lb[nl] = b[1] }
	END {
		for (i = 1; i <= nl; i++)
			if (type[la[i]] == "Switch" && type[lb[i]] == "Switch")
				sl++
			else
				hl++
		print c + 0, s + 0, sl + 0, hl + 0
	}'
}

# sizes_match WANT GOT (4 fields each; "-" matches anything)
sizes_match() {
	local -a w g
	local i

	read -r -a w <<<"$1"
	read -r -a g <<<"$2"
	for i in 0 1 2 3; do
		[ "${w[i]}" = - ] && continue
		[ "${w[i]}" = "${g[i]}" ] || return 1
	done
}

for entry in "${SPECS[@]}"; do
	spec=${entry%%|*}
	want=${entry#*|}
	tag=$(printf '%s' "$spec" | tr ':,' '_-')
	big=0
	[ "$T_QUICK" = 1 ] && case $spec in pgft:3:6,6,12*) big=1 ;; esac
	if [ "$big" = 1 ]; then
		t_skip "$spec" "--quick"
		continue
	fi
	for fmt in "${FORMATS[@]}"; do
		a=$T_TMP/$tag.$fmt
		b=$T_TMP/$tag.back.$fmt
		if ! t_expect_exit 0 "$IBF" gen "$spec" --format "$fmt" -o "$a"; then
			t_fail "$spec: gen --format $fmt" "exit $T_RC: $(t_errhead)"
			continue
		fi
		got=$(counts "$a")
		if sizes_match "$want" "$got"; then
			t_pass "$spec $fmt: hosts, switches, links = $got"
		else
			t_fail "$spec $fmt: sizes" "want '$want' (hosts switches switch-links host-links), got '$got'"
		fi
		if t_expect_exit 0 "$IBF" convert "$a" --to "$fmt" -o "$b"; then
			t_same "$spec $fmt: convert reproduces the file" "$a" "$b"
		else
			t_fail "$spec $fmt: convert reproduces the file" "exit $T_RC: $(t_errhead)"
		fi
	done

	# ibsim file read back as ibnetdiscover: the same fabric.
	if t_expect_exit 0 "$IBF" convert "$T_TMP/$tag.ibsim" --to ibnetdiscover \
	   -o "$T_TMP/$tag.x.ibnd"; then
		t_canon_topo "$T_TMP/$tag.ibnetdiscover" >"$T_TMP/$tag.c1"
		t_canon_topo "$T_TMP/$tag.x.ibnd" >"$T_TMP/$tag.c2"
		t_same "$spec: ibsim and ibnetdiscover outputs agree" \
			"$T_TMP/$tag.c1" "$T_TMP/$tag.c2"
	else
		t_fail "$spec: ibsim and ibnetdiscover outputs agree" "exit $T_RC: $(t_errhead)"
	fi

	# Deterministic output.
	if "$IBF" gen "$spec" --format ibnetdiscover -o "$T_TMP/$tag.again" \
	   2>/dev/null; then
		t_same "$spec: generated twice, same bytes" \
			"$T_TMP/$tag.ibnetdiscover" "$T_TMP/$tag.again"
	else
		t_fail "$spec: generated twice, same bytes" "second run failed"
	fi

	# dot: a graph block with one undirected edge per link.
	d=$T_TMP/$tag.dot
	if t_expect_exit 0 "$IBF" gen "$spec" --format dot -o "$d"; then
		links=$(counts "$T_TMP/$tag.ibnetdiscover" | awk '{ print $3 + $4 }')
		edges=$(grep -c -- ' -- ' "$d")
		first=$(grep -vE '^[[:space:]]*(//|#|$)' "$d" | head -1)
		last=$(grep -vE '^[[:space:]]*$' "$d" | tail -1)
		opens=$(tr -cd '{' <"$d" | wc -c)
		closes=$(tr -cd '}' <"$d" | wc -c)
		if [[ $first =~ ^(strict[[:space:]]+)?graph[[:space:]].*\{ ]] &&
		   [ "$last" = "}" ] && [ "$opens" -eq "$closes" ] &&
		   [ "$edges" -eq "$links" ]; then
			t_pass "$spec: dot graph with $edges edges"
		else
			t_fail "$spec: dot output" "first '$first', last '$last', braces $opens/$closes, $edges edges for $links links"
		fi
	else
		t_fail "$spec: gen --format dot" "exit $T_RC: $(t_errhead)"
	fi
done

# ---- LMC ------------------------------------------------------------------
# Each CA port's LID range [lid, lid + 2^lmc) must be aligned and disjoint
# from every other LID (switches have one LID each).
for spec in xgft:2:4,4:1,4 dragonfly:4,2,2; do
	f=$T_TMP/lmc2.$spec.ibnd
	if ! t_expect_exit 0 "$IBF" gen "$spec" --lmc 2 --format ibnetdiscover -o "$f"; then
		t_fail "$spec --lmc 2" "exit $T_RC: $(t_errhead)"
		continue
	fi
	bad=$(awk '
	/^Ca[ \t]/ { ca = 1; next }
	/^Switch[ \t]/ {
		ca = 0
		if (match($0, /base port 0 lid [0-9]+ lmc [0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), v, " ")
			use(v[5] + 0, 1, "switch")
		}
		next
	}
	ca && /^\[[0-9]+\]/ && match($0, /# *lid [0-9]+ lmc [0-9]+/) {
		split(substr($0, RSTART, RLENGTH), v, " ")
		n++
		if (v[5] != 2) { print "lmc " v[5] " on " $0; exit }
		if (v[3] % 4) { print "LID " v[3] " not aligned"; exit }
		use(v[3] + 0, 4, "CA")
	}
	function use(l, k, what,    i) {
		for (i = l; i < l + k; i++) {
			if (i in seen) { print "LID " i " used twice"; exit }
			seen[i] = 1
		}
	}
	END { if (n == 0) print "no CA LIDs found" }' "$f")
	if [ -z "$bad" ]; then
		t_pass "$spec --lmc 2: CA LIDs aligned to 4, no overlaps"
	else
		t_fail "$spec --lmc 2: LIDs" "$bad"
	fi
done

t_done
