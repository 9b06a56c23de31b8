# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Helpers for the netns-fabric suites (tests/integration/netns_fabric.sh,
# tests/vm/netns_fabric_rxe.sh); source after tests/lib.sh.
#
# They judge scripts/netns-fabric by what is seen on the wire and by the
# suite's own awk readers (tests/lib.sh), never by ibflow's own tracing:
#   nothing_left NAME         true if no namespace, root device or state of
#                             fabric NAME is left (else prints what is)
#   topo_ports TOPO           "guid:port lid lmc desc" per connected CA port
#   map_ports MAP             the same from a netns-fabric host map
#   map_net MAP               N of the fabric's 10.N.0.0/16
#   check_fabric LABEL NAME TOPO LFTS [nopaths]
#                             map vs topology; every (source port, dest LID)
#                             pair probed on the wire (tests/netns_probe.py)
#                             against t_trace_paths; TTL hops against
#                             `ibflow paths` (unless nopaths)
#   netns_spawn NAME PREFIX CMD...
#                             CMD on every host of fabric NAME (netns-fabric
#                             exec), rank = host map order, met through
#                             IBFLOW_BOOT_* at the first host's management
#                             address (--mgmt); PREFIX.out.R / .err.R; false
#                             if any failed
# Sourcing sets NF (scripts/netns-fabric), PROBE (tests/netns_probe.py),
# STATE (state root), PY (python3) and IBF (the ibflow binary, also
# exported as IBFLOW for netns-fabric); callers set D (scratch dir) and
# may define mark LABEL (progress comments).
# shellcheck shell=bash

command -v mark >/dev/null 2>&1 || mark() { :; }

NF=$T_REPO/scripts/netns-fabric
PROBE=$T_REPO/tests/netns_probe.py
STATE=${NETNS_FABRIC_STATE:-/run/ibflow-netns}
PY=$(command -v /usr/bin/python3 python3 2>/dev/null | head -1)
# The libtool wrapper costs a shell and more per call; the suites call
# `ibflow paths` hundreds of times, so they run the real binary.
IBF=$t_ibflow
if [ -x "$T_BUILD_DIR/common/.libs/ibflow" ]; then
	IBF=$T_BUILD_DIR/common/.libs/ibflow
	export LD_LIBRARY_PATH=$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export IBFLOW=$IBF

# Nothing of fabric $1 left: namespaces, root devices, rxe, state.
nothing_left() {
	local n=$1 left
	left=$(ip netns list | awk -v p="$n-" 'index($1, p) == 1 { print "netns " $1 }'
		ip -o link show | awk -F': ' -v p="$n-" '{ x = $2; sub(/@.*/, "", x) } index(x, p) == 1 { print "link " x }'
		[ ! -e "$STATE/$n" ] || echo "state $STATE/$n")
	[ -z "$left" ] && return 0
	echo "$left" | head -5 | tr '\n' ' '
	return 1
}

# CA ports of a topology from the suite's own reader:
# "guid:port lid lmc desc" (guid canonical: lower case, no 0x, no zeros).
topo_ports() {
	awk "$T_AWK_GUID"'
	{ topo_line() }
	END {
		topo_end()
		for (p in calid)
			if (p in peer) {
				split(p, x, ":")
				print p, calid[p], calmc[p], ndesc[x[1]]
			}
	}' "$1" | LC_ALL=C sort
}

# The map's host lines as "guid:port lid lmc desc".
map_ports() {
	awk '/^#/ { next }
	function g(s) { s = tolower(s); sub(/^0x/, "", s); sub(/^0+/, "", s); return s }
	{ d = $0; for (i = 1; i <= 11; i++) sub(/^[^ ]+ /, "", d)
	  # the port GUID names the port; the node GUID the CA
	  print g($8) ":" $4, $5, $6, d }' "$1" | LC_ALL=C sort
}

map_net() { sed -n 's/^# name .* net 10\.\([0-9]*\)\.0\.0\/16.*/\1/p' "$1"; }

# Expected probe results from the awk tracer, as the probe prints them:
# "SRCADDR DSTADDR FWD REV HOP,..." (addresses 10.NET.LID/256.LID%256).
expected_probes() { # TOPO LFTS NET
	t_trace_paths "$1" "$2" >"$D/paths.$3"
	topo_ports "$1" >"$D/ports.$3"
	awk -v N="$3" '
	function a(l) { return "10." N "." int(l / 256) "." (l % 256) }
	function hops(s) { return s == "-" ? 0 : split(s, x, ",") }
	function addrs(s,    n, i, r) {
		if (s == "-") return "-"
		n = split(s, x, ",")
		for (i = 1; i <= n; i++) r = r (i > 1 ? "," : "") a(x[i])
		return r
	}
	FNR == NR { lid[$1] = $2; next }
	{ src[NR] = $1; dl[NR] = $2; dst[NR] = $3; res[NR] = $4; path[NR] = $5
	  key[$1 " " $2] = NR; n = NR }
	END {
		for (i in src) {
			back = key[dst[i] " " lid[src[i]]]
			print a(lid[src[i]]), a(dl[i]), (res[i] == "ok" ? hops(path[i]) : res[i]),
			      hops(path[back]), addrs(path[i])
		}
	}' "$D/ports.$3" "$D/paths.$3" | LC_ALL=C sort
}

# Probe every (source port, destination LID) pair of a fabric from inside
# the namespaces (or the root namespace); sorted probe lines on stdout.
probe_all() { # NAME NET
	local name=$1 net=$2 ns
	awk -v N="$net" '
	function a(l) { return "10." N "." int(l / 256) "." (l % 256) }
	{ print $1, $2 }' "$D/expect.$net" >"$D/pairs.$net"
	# pairs grouped by the namespace of their source address
	awk 'FNR == NR { if ($0 !~ /^#/) { n = split($11, x, ","); for (i = 1; i <= n; i++) ns[x[i]] = $2 }; next }
	     { print ns[$1], $0 }' "$STATE/$name/hosts" "$D/pairs.$net" >"$D/pairs-ns.$net"
	for ns in $(awk '{ print $1 }' "$D/pairs-ns.$net" | sort -u); do
		awk -v n="$ns" '$1 == n { print $2, $3 }' "$D/pairs-ns.$net" >"$D/pairs-one"
		if [ "$ns" = - ]; then
			"$PY" "$PROBE" <"$D/pairs-one"
		else
			ip netns exec "$ns" "$PY" "$PROBE" <"$D/pairs-one"
		fi
	done | LC_ALL=C sort
}

# Compare probe lines with the tracer's; NAME for the TAP lines.
judge_probes() { # LABEL NET
	local label=$1 net=$2 nexp bad fails
	nexp=$(wc -l <"$D/expect.$net")
	fails=$(grep -c FAIL "$D/seen.$net" || true)
	bad=$(awk 'FNR == NR { e[$1 " " $2] = $3 " " $4; p[$1 " " $2] = $5; next }
		{ k = $1 " " $2 }
		!(k in e) { print "unexpected " k; next }
		$3 " " $4 != e[k] { print k ": TTL hops " $3 "/" $4 ", tracer " e[k]; next }
		$5 != p[k] { print k ": path " $5 ", tracer " p[k] }' \
		"$D/expect.$net" "$D/seen.$net" | head -5)
	if [ "$(wc -l <"$D/seen.$net")" -eq "$nexp" ] && [ "$fails" -eq 0 ] && [ -z "$bad" ]; then
		t_pass "$label: all $nexp (source port, destination LID) pairs: TTL hop counts both ways and the switches answering TTL 1..n equal the tracer's path"
	else
		t_fail "$label: probes vs tracer" "$(wc -l <"$D/seen.$net")/$nexp answered, $fails failed; $bad"
	fi
}

# Every pair's forward TTL hop count against `ibflow paths` (hops = links,
# so switches = hops - 1).
judge_paths() { # LABEL TOPO LFTS NET
	local label=$1 topo=$2 lfts=$3 net=$4 bad=0 n=0 src dlid fwd hops why='' a g
	local -A guid
	while read -r a g; do
		guid[$a]=$g
	done <"$D/addr2guid.$net"
	while read -r src dlid fwd; do
		hops=$("$IBF" paths --topo "$topo" --lfts "$lfts" "0x${guid[$src]}" "$dlid")
		hops=${hops##*after }
		hops=${hops%% hop*}
		n=$((n + 1))
		if [ "${hops:-x}" != $((fwd + 1)) ]; then
			bad=$((bad + 1))
			[ -n "$why" ] || why="$src -> LID $dlid: TTL says $fwd switches, ibflow paths $hops hops"
		fi
	done < <(awk -v N="$net" '{ split($2, x, "."); print $1, x[3] * 256 + x[4], $3 }' "$D/seen.$net")
	if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then
		t_pass "$label: TTL hop count + 1 equals ibflow paths' hops for all $n pairs"
	else
		t_fail "$label: TTL vs ibflow paths" "$bad of $n differ; $why"
	fi
}

# source address -> port GUID (from the suite's reader of the topology)
addr_guids() { # TOPO NET
	# ibflow paths takes a port GUID for SRC; the topology file gives it
	awk "$T_AWK_GUID"'
	/^\[[0-9]+\]\([0-9a-fA-F]+\)/ && cur != "" {
		match($0, /^\[[0-9]+\]/); p = substr($0, 2, RLENGTH - 2) + 0
		match($0, /\([0-9a-fA-F]+\)/); pg = substr($0, RSTART + 1, RLENGTH - 2)
		pguid[cur ":" p] = pg
	}
	{ topo_line() }
	END { topo_end(); for (k in pguid) if (k in calid) print k, pguid[k], calid[k], calmc[k] }' "$1" |
	awk -v N="$2" '{ for (k = 0; k < 2 ^ $4; k++) { l = $3 + k
		print "10." N "." int(l / 256) "." (l % 256), $2 } }' >"$D/addr2guid.$2"
}

# Check a fabric end to end: map vs topology, probes vs tracer, paths.
check_fabric() { # LABEL NAME TOPO LFTS
	local label=$1 name=$2 topo=$3 lfts=$4 net
	net=$(map_net "$STATE/$name/hosts")
	if [ -z "$net" ]; then
		t_fail "$label: map header" "no net in $STATE/$name/hosts"
		return
	fi
	topo_ports "$topo" >"$D/tports.$net"
	map_ports "$STATE/$name/hosts" >"$D/mports.$net"
	t_same "$label: map lists every CA port with the topology's GUID, LID, LMC and description" \
		"$D/tports.$net" "$D/mports.$net"
	expected_probes "$topo" "$lfts" "$net" >"$D/expect.$net"
	mark "$label: tracer done"
	probe_all "$name" "$net" >"$D/seen.$net"
	mark "$label: probes done"
	judge_probes "$label" "$net"
	[ "${5:-}" != nopaths ] || return 0
	addr_guids "$topo" "$net"
	judge_paths "$label" "$topo" "$lfts" "$net"
}

# One process per host of a fabric, the tools' own bootstrap.
netns_spawn() { # NAME PREFIX CMD...
	local name=$1 prefix=$2 boot r=0 h p pids=() rc=0 n
	shift 2
	n=$(grep -vc '^#' "$STATE/$name/hosts")
	boot=$(awk '!/^#/ { print $9; exit }' "$STATE/$name/hosts"):$((20000 + RANDOM % 20000))
	for h in $(awk '!/^#/ { print $1 }' "$STATE/$name/hosts"); do
		"$NF" --name "$name" exec "$h" env IBFLOW_BOOT_ADDR="$boot" \
			IBFLOW_BOOT_RANK=$r IBFLOW_BOOT_SIZE="$n" "$@" \
			>"$prefix.out.$r" 2>"$prefix.err.$r" &
		pids+=($!)
		r=$((r + 1))
	done
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	return $rc
}
