# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Helpers for ibflow's shell test suites; source it, do not run it.
#
# Results are printed TAP-like, one line each, which tests/run.sh counts:
#   ok - NAME
#   not ok - NAME # reason
#   ok - NAME # SKIP reason
# End a suite with `t_done`: it prints a summary comment and exits non-zero
# when anything failed.
#
# Provides:
#   T_REPO, T_BUILD_DIR    source tree and build tree
#   t_ibflow               path of the built CLI (also $IBFLOW)
#   T_TMP                  private scratch dir, removed at exit unless
#                          something failed or T_KEEP=1
#   T_QUICK                1 when tests/run.sh --quick asked for short runs
#   t_pass NAME / t_fail NAME REASON / t_skip NAME REASON
#   t_expect_exit CODE CMD...   run CMD (stdout -> $T_OUT, stderr -> $T_ERR,
#                               status -> $T_RC); true if status == CODE
#   t_check NAME CODE CMD...    t_expect_exit + t_pass/t_fail NAME
#   t_same NAME FILE_A FILE_B   t_pass if the files are identical, else
#                               t_fail with the head of the diff
#   t_need CMD...               true if all commands exist
#   t_need_ibflow               end the suite with a failure when the CLI
#                               is not built
# Independent readers (awk, no ibflow code) used to judge ibflow's results:
#   t_canon_topo FILE     ibnetdiscover-format file -> sorted lines
#                         "N <type> <guid> <nports> <desc>" and
#                         "L <guid>:<port> <guid>:<port>" (each link once)
#   t_canon_lfts FILE     opensm-lfts.dump or dump_lfts/ibroute output ->
#                         sorted "<switch guid> <lid> <port>" lines
#   t_trace TOPO LFTS     trace every (source port, destination LID) pair of
#                         an ibnetdiscover file through t_canon_lfts output;
#                         prints "pairs N ok N no_route N dead_end N loop N
#                         misdelivered N min_hops N max_hops N mean_hops X"
#                         (hops = switches on the path)
#   t_trace_paths TOPO LFTS [outs]   the same walk, one line per (source
#                         CA port, destination CA LID): "SRC DLID DST
#                         RESULT LIDS" with SRC/DST as guid:port, RESULT
#                         ok/no_route/dead_end/loop/misdelivered, LIDS the
#                         switches' LIDs on the path, comma-separated ("-"
#                         if none); with "outs" a sixth field OUTS: the
#                         ports they send it out of (guid:port, ...)
# shellcheck shell=bash

T_REPO=${T_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# shellcheck source=../scripts/build-dir.sh
. "$T_REPO/scripts/build-dir.sh"
T_BUILD_DIR=$(BUILD_DIR=${T_BUILD_DIR:-${BUILD_DIR:-}} ibf_build_dir "$T_REPO")
t_ibflow=${IBFLOW:-$T_BUILD_DIR/common/ibflow}
IBFLOW=$t_ibflow
T_QUICK=${T_QUICK:-0}
T_NAME=${T_NAME:-$(basename "$0" .sh)}

T_NPASS=0
T_NFAIL=0
T_NSKIP=0

T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ibflow-$T_NAME.XXXXXX")
T_OUT=$T_TMP/.out
T_ERR=$T_TMP/.err
T_RC=0

t__cleanup() {
	if [ "$T_NFAIL" -gt 0 ] || [ "${T_KEEP:-0}" = 1 ]; then
		echo "# $T_NAME: scratch files kept in $T_TMP"
	else
		rm -rf "$T_TMP"
	fi
}
trap t__cleanup EXIT
trap 'exit 130' INT TERM

t_pass() {
	T_NPASS=$((T_NPASS + 1))
	echo "ok - $1"
}

# t_fail NAME REASON: the reason is flattened to one line.
t_fail() {
	local why=${2:-failed}

	T_NFAIL=$((T_NFAIL + 1))
	why=$(printf '%s' "$why" | tr '\n' ' ' | cut -c1-300)
	echo "not ok - $1 # $why"
}

t_skip() {
	T_NSKIP=$((T_NSKIP + 1))
	echo "ok - $1 # SKIP ${2:-}"
}

t_expect_exit() {
	local want=$1

	shift
	T_RC=0
	"$@" >"$T_OUT" 2>"$T_ERR" || T_RC=$?
	[ "$T_RC" -eq "$want" ]
}

# First lines of the last command's stderr, on one line, for a reason.
t_errhead() {
	head -c 400 "$T_ERR" | head -3 | tr '\n' ' '
}

t_check() {
	local name=$1 want=$2

	shift 2
	if t_expect_exit "$want" "$@"; then
		t_pass "$name"
	else
		t_fail "$name" "exit $T_RC, wanted $want: $(t_errhead)"
	fi
}

t_same() {
	local d

	if d=$(diff "$2" "$3" 2>&1); then
		t_pass "$1"
	else
		t_fail "$1" "$(basename "$2") and $(basename "$3") differ: $(printf '%s\n' "$d" | head -6)"
	fi
}

t_need() {
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || return 1
	done
}

t_need_ibflow() {
	if [ ! -x "$t_ibflow" ]; then
		t_fail "$T_NAME" "no built CLI at $t_ibflow (run scripts/build.sh)"
		t_done
	fi
}

# GUIDs are compared as lower-case hex without "0x" and leading zeros.
T_AWK_GUID='
function g(s) {
	s = tolower(s); sub(/^0x/, "", s); sub(/^0+/, "", s)
	return s == "" ? "0" : s
}
function hex(s,    i, n, c) {
	s = tolower(s); sub(/^0x/, "", s); n = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (c == 0)
			return -1
		n = n * 16 + c - 1
	}
	return n
}
# Read an ibnetdiscover file: nodes, links, LIDs.
function topo_line(    v, name, rest, d, lp, r, rn, rp, m, lm) {
	if ($0 ~ /^(switchguid|caguid|rtguid)=/) {
		v = $0; sub(/^[a-z]+=/, "", v); sub(/\(.*/, "", v)
		pend = g(v)
		return
	}
	if ($0 ~ /^(Switch|Ca|Rt)[ \t]/) {
		match($0, /"[^"]*"/)
		name = substr($0, RSTART + 1, RLENGTH - 2)
		rest = substr($0, RSTART + RLENGTH)
		desc = ""
		if (match(rest, /#[ \t]*"[^"]*"/)) {
			d = substr(rest, RSTART, RLENGTH)
			sub(/^#[ \t]*"/, "", d); sub(/"$/, "", d)
			desc = d
		}
		cur = pend
		if (cur == "" && name ~ /^[SHR]-[0-9a-fA-F]+$/)
			cur = g(substr(name, 3))
		if (cur == "")
			cur = "?" name
		pend = ""
		name2guid[name] = cur
		nn++; ntype[cur] = $1; nports[cur] = $2 + 0; ndesc[cur] = desc
		norder[nn] = cur
		if ($1 == "Switch" && match(rest, /base port 0 lid [0-9]+/)) {
			m = substr(rest, RSTART, RLENGTH); sub(/.* /, "", m)
			swlid[cur] = m + 0
		}
		return
	}
	if ($0 ~ /^\[[0-9]+\]/ && cur != "") {
		match($0, /^\[[0-9]+\]/)
		lp = substr($0, 2, RLENGTH - 2) + 0
		rest = substr($0, RLENGTH + 1)
		if (!match(rest, /"[^"]*"[ \t]*\[[0-9]+\]/))
			return
		r = substr(rest, RSTART, RLENGTH)
		rn = r; sub(/"[ \t]*\[[0-9]+\]$/, "", rn); sub(/^"/, "", rn)
		rp = r; sub(/^.*\[/, "", rp); sub(/\]$/, "", rp)
		nl++; lg[nl] = cur; lpn[nl] = lp; rname[nl] = rn; rpn[nl] = rp + 0
		rest = substr(rest, RSTART + RLENGTH)
		if (ntype[cur] != "Switch" &&
		    match(rest, /#[ \t]*lid [0-9]+ lmc [0-9]+/)) {
			m = substr(rest, RSTART, RLENGTH); sub(/^#[ \t]*lid /, "", m)
			split(m, lm, / lmc /)
			calid[cur ":" lp] = lm[1] + 0; calmc[cur ":" lp] = lm[2] + 0
		}
	}
}
function resolve(n) {
	if (n in name2guid)
		return name2guid[n]
	if (n ~ /^[SHR]-[0-9a-fA-F]+$/)
		return g(substr(n, 3))
	return "?" n
}
function topo_end(    i, a, b) {
	for (i = 1; i <= nl; i++) {
		a = lg[i] ":" lpn[i]
		b = resolve(rname[i]) ":" rpn[i]
		peer[a] = b
	}
}
'

t_canon_topo() {
	awk "$T_AWK_GUID"'
	{ topo_line() }
	END {
		topo_end()
		for (i = 1; i <= nn; i++) {
			n = norder[i]
			print "N", ntype[n], n, nports[n], ndesc[n]
		}
		for (a in peer) {
			b = peer[a]
			if (a < b)
				print "L", a, b
			else
				print "L", b, a
		}
	}' "$1" | LC_ALL=C sort -u
}

t_canon_lfts() {
	awk "$T_AWK_GUID"'
	/^Unicast lids/ {
		sw = ""
		if (match($0, /guid 0x[0-9a-fA-F]+/))
			sw = g(substr($0, RSTART + 5, RLENGTH - 5))
		next
	}
	/^0x[0-9a-fA-F]+[ \t]+[0-9]+/ && sw != "" { print sw, hex($1), $2 + 0 }
	' "$1" | LC_ALL=C sort -k1,1 -k2,2n -u
}

t_trace() {
	t_canon_lfts "$2" >"$T_TMP/.trace-lfts"
	awk "$T_AWK_GUID"'
	FNR == NR { lft[$1 ":" $2] = $3; next }
	{ topo_line() }
	END {
		topo_end()
		nsw = 0
		for (n in ntype)
			if (ntype[n] == "Switch")
				nsw++
		for (p in calid)
			for (k = 0; k < 2 ^ calmc[p]; k++)
				owner[calid[p] + k] = p
		pairs = ok = noroute = dead = loop = mis = 0
		minh = -1; maxh = 0; sumh = 0
		for (s in calid) {
			if (!(s in peer))
				continue
			for (lid in owner) {
				if (owner[lid] == s)
					continue
				pairs++
				at = peer[s]; hops = 0; res = ""
				while (res == "") {
					split(at, q, ":")
					if (ntype[q[1]] != "Switch") {
						res = (owner[lid] == at) ? "ok" : "mis"
						break
					}
					if (++hops > nsw) {
						res = "loop"
						break
					}
					if (!((q[1] ":" lid) in lft) || lft[q[1] ":" lid] == 255) {
						res = "noroute"
						break
					}
					out = q[1] ":" lft[q[1] ":" lid]
					if (!(out in peer)) {
						res = "dead"
						break
					}
					at = peer[out]
				}
				if (res == "ok") {
					ok++; sumh += hops
					if (minh < 0 || hops < minh) minh = hops
					if (hops > maxh) maxh = hops
				} else if (res == "noroute") noroute++
				else if (res == "dead") dead++
				else if (res == "loop") loop++
				else mis++
			}
		}
		printf "pairs %d ok %d no_route %d dead_end %d loop %d misdelivered %d min_hops %d max_hops %d mean_hops %.3f\n", pairs, ok, noroute, dead, loop, mis, minh < 0 ? 0 : minh, maxh, ok ? sumh / ok : 0
	}' "$T_TMP/.trace-lfts" "$1"
}

t_trace_paths() {
	t_canon_lfts "$2" >"$T_TMP/.trace-lfts"
	awk -v OUTS="${3:-}" "$T_AWK_GUID"'
	FNR == NR { lft[$1 ":" $2] = $3; next }
	{ topo_line() }
	END {
		topo_end()
		nsw = 0
		for (n in ntype)
			if (ntype[n] == "Switch")
				nsw++
		for (p in calid)
			for (k = 0; k < 2 ^ calmc[p]; k++)
				owner[calid[p] + k] = p
		for (s in calid) {
			if (!(s in peer))
				continue
			for (lid in owner) {
				if (owner[lid] == s)
					continue
				at = peer[s]; hops = 0; res = ""; path = ""; outs = ""
				while (res == "") {
					split(at, q, ":")
					if (ntype[q[1]] != "Switch") {
						res = (owner[lid] == at) ? "ok" : "misdelivered"
						break
					}
					path = path (path == "" ? "" : ",") swlid[q[1]]
					if (++hops > nsw) {
						res = "loop"
						break
					}
					if (!((q[1] ":" lid) in lft) || lft[q[1] ":" lid] == 255) {
						res = "no_route"
						break
					}
					out = q[1] ":" lft[q[1] ":" lid]
					outs = outs (outs == "" ? "" : ",") out
					if (!(out in peer)) {
						res = "dead_end"
						break
					}
					at = peer[out]
				}
				if (OUTS == "outs")
					print s, lid, owner[lid], res, (path == "" ? "-" : path),
					      (outs == "" ? "-" : outs)
				else
					print s, lid, owner[lid], res, (path == "" ? "-" : path)
			}
		}
	}' "$T_TMP/.trace-lfts" "$1" | LC_ALL=C sort -k1,1 -k2,2n
}

# t_done: summary line; exit status 1 if anything failed.
t_done() {
	echo "# $T_NAME: $T_NPASS passed, $T_NFAIL failed, $T_NSKIP skipped"
	[ "$T_NFAIL" -eq 0 ]
	exit $?
}

# t_updown_unreachable HEALTHY_TOPO TOPO: ordered pairs of connected CA
# ports of TOPO (ibnetdiscover files) that have no up*/down* path, levels
# being BFS distances from the CAs in HEALTHY_TOPO (the complete tree, so
# a switch that lost its hosts keeps its level).  Prints the count.
t_updown_unreachable() {
	awk "$T_AWK_GUID"'
	{ topo_line() }
	END {
		topo_end()
		for (n in ntype) if (ntype[n] != "Switch") { lvl[n] = 0; q[++qt] = n }
		for (a in peer) { split(a, x, ":"); split(peer[a], y, ":"); adj[x[1]] = adj[x[1]] " " y[1] }
		qh = 1
		while (qh <= qt) {
			u = q[qh++]; m = split(adj[u], nb, " ")
			for (i = 1; i <= m; i++) if (!(nb[i] in lvl)) { lvl[nb[i]] = lvl[u] + 1; q[++qt] = nb[i] }
		}
		for (n in lvl) print n, lvl[n]
	}' "$1" >"$T_TMP/.updown-levels"
	awk "$T_AWK_GUID"'
	FNR == NR { lvl[$1] = $2; next }
	{ topo_line() }
	END {
		topo_end()
		for (a in peer) {
			split(a, x, ":"); split(peer[a], y, ":")
			adj[x[1]] = adj[x[1]] " " y[1]
			if (ntype[y[1]] != "Switch" && ntype[x[1]] == "Switch") leafof[y[1]] = x[1]
		}
		bad = 0
		for (s in leafof) {
			split("", seen); split("", reach); qh = 1; qt = 0
			seen[leafof[s] SUBSEP 1] = 1; qn[++qt] = leafof[s]; qu[qt] = 1
			while (qh <= qt) {
				u = qn[qh]; up = qu[qh]; qh++
				m = split(adj[u], nb, " ")
				for (i = 1; i <= m; i++) {
					v = nb[i]
					if (ntype[v] != "Switch") { reach[v] = 1; continue }
					if (lvl[v] > lvl[u] && up) nup = 1
					else if (lvl[v] < lvl[u]) nup = 0
					else continue
					if (!((v SUBSEP nup) in seen)) { seen[v SUBSEP nup] = 1; qn[++qt] = v; qu[qt] = nup }
				}
			}
			for (d in leafof) if (d != s && !(d in reach)) bad++
		}
		print bad
	}' "$T_TMP/.updown-levels" "$2"
}
