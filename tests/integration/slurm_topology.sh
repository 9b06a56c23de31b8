#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `ibflow slurm-topology` read by the real consumer: Debian's slurmctld
# (topology/tree) started on each file with a minimal slurm.conf (a
# private munged, port and directories), `scontrol show topology` read
# back and compared with the fabric as this script reads it (python over
# the ibnetdiscover file: no ibflow code): every switch with a host below
# it and no other, at its level (hop distance from the hosts), its hosts
# (leaves) or children one level down, the hosts below each switch, the
# hosts on no switch absent.  Lists are expanded by Slurm's own
# `scontrol show hostnames`.  Fabrics: a 2-level PGFT from real OpenSM's
# export (--fabric, through the plugin; --topo when the plugin is not
# built), a 3-level PGFT, the same degraded (a leaf and a middle switch
# removed, the links of a leaf to one parent cut), and names from maps
# (an ibnetdiscover node name map, a host map); a random tree with
# hosts on every switch (not a PGFT: all leaves, their links counted as
# left out).  Bad inputs: exit 2,
# FILE:LINE or the node named, -o untouched; a name the check refuses is
# refused by slurmctld too.  Skips with the reason without slurmctld,
# scontrol or munged.  About 30 s.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

N=slurm_topology
IBF=$t_ibflow
d=$T_TMP
t_need_ibflow

if ! t_need slurmctld scontrol munged python3; then
	t_skip "$N" "slurmctld, scontrol or munged not installed (scripts/setup-deps.sh: slurmctld slurm-client munge)"
	t_done
fi

# ---- a private munged and slurmctld ------------------------------------------
M=$d/munge
mkdir -p "$M" && chmod 700 "$M"
head -c 1024 /dev/urandom >"$M/key" && chmod 600 "$M/key"
MUNGED_PID=
SLURM_PID=
stop_pid() { # PIDFILE: stop that process, wait for it
	local pid i

	pid=$(cat "$1" 2>/dev/null) || return 0
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || return 0
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
}
cleanup() {
	declare -F ibs_stop_all >/dev/null && ibs_stop_all
	[ -n "$SLURM_PID" ] && stop_pid "$SLURM_PID"
	[ -n "$MUNGED_PID" ] && stop_pid "$MUNGED_PID"
	t__cleanup
}
trap cleanup EXIT
if ! munged --force --socket="$M/sock" --key-file="$M/key" \
	--pid-file="$M/pid" --log-file="$M/log" --seed-file="$M/seed" \
	>"$M/out" 2>&1; then
	t_skip "$N" "munged does not start here: $(head -c 200 "$M/out")"
	t_done
fi
MUNGED_PID=$M/pid

# A free TCP port on loopback for slurmctld.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# slurm_up DIR NODES: slurmctld on DIR/topology.conf, the nodes NODES (a
# hostlist); DIR/show gets `scontrol show topology`.  False with DIR/why.
slurm_up() {
	local dir=$1 nodes=$2 i

	mkdir -p "$dir/state" "$dir/spool"
	cat >"$dir/slurm.conf" <<-EOF
	ClusterName=ibflowtest
	SlurmctldHost=localhost
	SlurmUser=$(id -un)
	SlurmctldPort=$PORT
	AuthType=auth/munge
	AuthInfo=socket=$M/sock
	StateSaveLocation=$dir/state
	SlurmdSpoolDir=$dir/spool
	SlurmctldPidFile=$dir/slurmctld.pid
	SlurmctldLogFile=$dir/slurmctld.log
	TopologyPlugin=topology/tree
	ProctrackType=proctrack/linuxproc
	MailProg=/bin/true
	NodeName=$nodes State=FUTURE CPUs=1
	PartitionName=all Nodes=ALL Default=YES
	EOF
	SLURM_PID=$dir/slurmctld.pid
	export SLURM_CONF=$dir/slurm.conf
	if ! slurmctld -c >"$dir/start.out" 2>&1; then
		echo "slurmctld: $(head -c 200 "$dir/start.out")" >"$dir/why"
		return 1
	fi
	for i in $(seq 100); do
		# (show topology says 0 also when it reached no controller)
		if scontrol ping >/dev/null 2>&1 &&
		   scontrol show topology >"$dir/show" 2>"$dir/show.err" &&
		   [ ! -s "$dir/show.err" ]; then
			stop_pid "$SLURM_PID"
			return 0
		fi
		[ -f "$dir/slurmctld.pid" ] && ! kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null && break
		sleep 0.1
	done
	grep -m2 'fatal\|error: [Ss]witch\|Parse error' "$dir/slurmctld.log" 2>/dev/null |
		tr '\n' ' ' >"$dir/why"
	[ -s "$dir/why" ] || echo "no answer: $(head -c 200 "$dir/show.err")" >"$dir/why"
	stop_pid "$SLURM_PID"
	return 1
}

# expect TOPO [NODE_NAME_MAP [HOST_MAP]]: the tree of an ibnetdiscover
# file as this script reads it, one line per switch: "NAME LEVEL
# children... | hosts below...", and "off HOST" per host on no switch.
expect() {
	python3 - "$@" <<-'PY'
	import re, sys
	topo = sys.argv[1]
	nnm = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
	hmap = sys.argv[3] if len(sys.argv) > 3 else None
	kind, desc, nbr, me = {}, {}, {}, None
	for line in open(topo):
	    m = re.match(r'(Switch|Ca)\s+\d+\s+"([^"]+)".*?#\s*"([^"]*)"', line)
	    if m:
	        me = m.group(2)
	        kind[me], desc[me] = m.group(1), m.group(3)
	        nbr.setdefault(me, set())
	        continue
	    m = re.match(r'\[\d+\](?:\([0-9a-f]+\))?\s+"([^"]+)"', line)
	    if m and me:
	        nbr[me].add(m.group(1))
	        nbr.setdefault(m.group(1), set()).add(me)
	sw = [x for x in kind if kind[x] == "Switch"]
	ca = [x for x in kind if kind[x] == "Ca"]
	name = {x: x for x in sw}          # ibnetdiscover's own "S-<guid>"
	if nnm:
	    for line in open(nnm):
	        f = line.split(None, 1)
	        if len(f) == 2 and not f[0].startswith("#"):
	            s = "S-%016x" % int(f[0], 16)
	            if s in name:
	                name[s] = f[1].strip().strip('"')
	host = {x: desc[x].split()[0] for x in ca}
	if hmap:
	    m = dict(l.split() for l in open(hmap) if l.strip() and not l.startswith("#"))
	    host = {x: m.get(h, h) for x, h in host.items()}
	level = {x: 1 for x in sw if any(y in host for y in nbr[x])}
	todo = list(level)
	while todo:
	    nxt = []
	    for x in todo:
	        for y in nbr[x]:
	            if y in name and y not in level:
	                level[y] = level[x] + 1
	                nxt.append(y)
	    todo = nxt
	below, kids = {}, {}
	for l in range(1, max(level.values()) + 1):
	    for x in (s for s in level if level[s] == l):
	        if l == 1:
	            kids[x] = {host[y] for y in nbr[x] if y in host}
	            below[x] = set(kids[x])
	        else:
	            kids[x] = {name[y] for y in nbr[x] if level.get(y) == l - 1 and y in below}
	            below[x] = set().union(*(below[y] for y in nbr[x] if level.get(y) == l - 1 and y in below))
	        if not below[x]:
	            del below[x], kids[x]
	for x in sorted(below, key=lambda s: (level[s], name[s])):
	    print(name[x], level[x], " ".join(sorted(kids[x])), "|", " ".join(sorted(below[x])))
	on = set().union(*below.values()) if below else set()
	for h in sorted(set(host.values()) - on):
	    print("off", h)
	PY
}

# readback DIR: `scontrol show topology` in expect's form (Slurm's Level
# counts leaves 0), lists expanded by scontrol show hostnames.
readback() {
	python3 - "$1/show" <<-'PY'
	import re, subprocess, sys
	def expand(v):
	    return subprocess.run(["scontrol", "show", "hostnames", v], check=True,
	                          capture_output=True, text=True).stdout.split() if v else []
	for line in open(sys.argv[1]):
	    f = dict(re.findall(r'(\w+)=(\S*)', line))
	    if "SwitchName" not in f:
	        continue
	    sw, nodes = expand(f.get("Switches", "")), expand(f.get("Nodes", ""))
	    kids = sw if sw else nodes
	    print(f["SwitchName"], int(f["Level"]) + 1, " ".join(sorted(kids)), "|", " ".join(sorted(nodes)))
	PY
}

# case_run ID NAME TOPO ARGS...: write the file (ARGS: how) into
# $d/ID, start slurmctld on it with every host of TOPO (hosts on no
# switch included, as an admin's slurm.conf has them), compare the
# read-back with expect's tree.
case_run() {
	local dir=$d/$1 name=$2 topo=$3 nodes

	shift 3
	mkdir -p "$dir"
	if ! "$IBF" slurm-topology "$@" -o "$dir/topology.conf" 2>"$dir/err"; then
		t_fail "$N: $name: ibflow slurm-topology" "$(head -2 "$dir/err")"
		return
	fi
	expect "$topo" "${NNM:-}" ${HMAP:+"$HMAP"} >"$dir/want" || {
		t_fail "$N: $name: expected tree" "python failed"
		return
	}
	nodes=$(sed -n 's/.*| //p; s/^off //p' "$dir/want" | tr ' ' '\n' | sort -u |
		paste -sd, -)
	if ! slurm_up "$dir" "$nodes"; then
		t_fail "$N: $name: slurmctld on the file" "$(cat "$dir/why")"
		return
	fi
	readback "$dir" >"$dir/got"
	grep -v '^off ' "$dir/want" | sort >"$dir/want.sw"
	sort "$dir/got" >"$dir/got.sw"
	t_same "$N: $name: scontrol show topology = the fabric ($(grep -c . "$dir/want.sw") switches, $(grep -c '^off ' "$dir/want") hosts on no switch)" \
		"$dir/want.sw" "$dir/got.sw"
}

# ---- 2-level PGFT: real OpenSM's export (--fabric), or the file -------------
"$IBF" gen xgft:2:4,4:1,4 -o "$d/x2.topo" >/dev/null
PLUGIN_DIR=${IBFLOW_OSM_PLUGIN_DIR:-$T_BUILD_DIR/osm_plugin/.libs}
# shellcheck source=../../scripts/ibsim-session.sh
. "$T_REPO/scripts/ibsim-session.sh"
fabric_src=
if [ -f "$PLUGIN_DIR/libibflow_osm.so" ] && ibs_have_tools >/dev/null 2>&1; then
	R=$d/osm
	mkdir -p "$R"
	"$IBF" gen xgft:2:4,4:1,4 --format ibsim -o "$R/net" >/dev/null
	printf 'event_plugin_name ibflow_osm\nrouting_engine ibflow-dmodk\n' >"$R/osm.conf"
	printf 'export_dir %s\n' "$R/export" >"$R/ibflow.conf"
	mkdir -p "$R/export"
	if ibs_start "$R/net" "$R" 2>"$R/ibsim.err" &&
	   LD_LIBRARY_PATH=$PLUGIN_DIR:$T_BUILD_DIR/common/.libs IBFLOW_OSM_CONF=$R/ibflow.conf \
		ibs_sweep "$R" 0 -F "$R/osm.conf" && ibs_discover "$R/ibnetdiscover.out"; then
		fabric_src=$R
	fi
	ibs_stop
	trap cleanup EXIT
fi
if [ -n "$fabric_src" ] && [ -f "$R/export/ibflow-export.txt" ]; then
	case_run x2fabric "2-level PGFT from OpenSM's export (--fabric)" "$R/ibnetdiscover.out" \
		--fabric "$R/export"
else
	t_skip "$N: --fabric on OpenSM's export" "the OpenSM plugin or ibsim is not available here; --topo instead"
	case_run x2 "2-level PGFT (--topo)" "$d/x2.topo" --topo "$d/x2.topo"
fi

# ---- 3-level PGFT, whole and degraded --------------------------------------------
"$IBF" gen pgft:3:4,4,2:1,2,2:1,2,1 -o "$d/p3.topo" >/dev/null
case_run p3 "3-level PGFT" "$d/p3.topo" --topo "$d/p3.topo"

# degrade FILE SWITCH... A:B...: without the switches (their blocks and
# every link to them) and without the links between A and B.
degrade() {
	python3 - "$@" <<-'PY'
	import re, sys
	gone, cut = set(), set()
	for a in sys.argv[2:]:
	    if ":" in a:
	        x, y = a.split(":")
	        cut |= {(x, y), (y, x)}
	    else:
	        gone.add(a)
	# blocks: a node's lines (its guid lines, header, ports) up to a blank
	for block in open(sys.argv[1]).read().split("\n\n"):
	    m = re.search(r'^(?:Switch|Ca)\s+\d+\s+"([^"]+)"', block, re.M)
	    me = m.group(1) if m else None
	    if me in gone:
	        continue
	    keep = []
	    for line in block.split("\n"):
	        p = re.match(r'\[\d+\](?:\([0-9a-f]+\))?\s+"([^"]+)"', line)
	        if not (p and (p.group(1) in gone or (me, p.group(1)) in cut)):
	            keep.append(line)
	    print("\n".join(keep), end="\n\n")
	PY
}
# leaf s1-3 (hosts h0012-h0015 then on no switch), middle switch s2-2 of
# the second pod, and both links of leaf s1-1 to its parent s2-1
degrade "$d/p3.topo" S-0002c90200000300 S-0002c90200000a00 \
	S-0002c90200000100:S-0002c90200000900 >"$d/p3d.topo"
case_run p3d "3-level PGFT degraded" "$d/p3d.topo" --topo "$d/p3d.topo"
if grep -q '^# 4 hosts on no switch.*h\[0012-0015\]' "$d/p3d/topology.conf"; then
	t_pass "$N: degraded: the hosts on no switch named in a comment, h[0012-0015]"
else
	t_fail "$N: degraded: hosts on no switch" "$(grep '^#' "$d/p3d/topology.conf" | tr '\n' ' ')"
fi

# ---- not a PGFT: levels from hop distance ------------------------------------------
# A random tree with hosts on every switch: all leaves, the links between
# them left out and counted (Slurm's tree cannot hold them).
"$IBF" gen tree:10,24,8:3 -o "$d/rt.topo" >/dev/null
case_run rt "random tree, hosts on every switch (hop levels)" "$d/rt.topo" --topo "$d/rt.topo"
links=$(grep -c '^\[[0-9]*\][[:space:]]*"S-' "$d/rt.topo")
if grep -q "^# $((links / 2)) links between switches of one level left out" "$d/rt/topology.conf" &&
   grep -q "note: not a tree with hosts only on its leaves" "$d/rt/err"; then
	t_pass "$N: random tree: its $((links / 2)) switch-to-switch links counted as left out, with a note"
else
	t_fail "$N: random tree: links left out" "$(grep '^#' "$d/rt/topology.conf" | tr '\n' ' ') $(cat "$d/rt/err")"
fi

# ---- names from maps ---------------------------------------------------------------
NNM=$d/x2.nnm
{
	echo "# ibnetdiscover --node-name-map"
	for i in 0 1 2 3; do echo "0x0002c90200000${i}00 \"leaf0$i\""; done
	for i in 4 5 6 7; do echo "0x0002c902000004${i}0 \"not-here\""; done
	for i in 4 5 6 7; do echo "0x0002c90200000${i}00 spine0$i"; done
	echo "0x0002c90100000000 \"h0000 HCA-1\""
} >"$NNM"
HMAP=$d/x2.hosts
for i in $(seq 0 15); do printf 'h%04d node-%02d\n' "$i" "$((i * 2))"; done >"$HMAP"
case_run x2maps "2-level PGFT, node name map and host map" "$d/x2.topo" --topo "$d/x2.topo" \
	--node-name-map "$NNM" --host-map "$HMAP"
if grep -q '^SwitchName=leaf00 Nodes=node-\[00,02,04,06\]$' "$d/x2maps/topology.conf" &&
   grep -q '^SwitchName=spine07 Switches=leaf00,leaf01,leaf02,leaf03$' "$d/x2maps/topology.conf"; then
	t_pass "$N: mapped names, Nodes= compressed: leaf00 Nodes=node-[00,02,04,06], spine07 Switches=leaf00,..."
else
	t_fail "$N: mapped names" "$(sed -n 3p "$d/x2maps/topology.conf")"
fi
NNM= HMAP=

# ---- bad inputs: exit 2, where, -o untouched; Slurm refuses the name too ------------
echo previous >"$d/keep"
err_case() { # NAME WANT ARGS...
	local name=$1 want=$2

	shift 2
	if t_expect_exit 2 "$IBF" slurm-topology --topo "$d/x2.topo" "$@" -o "$d/keep" &&
	   grep -qF -- "$want" "$T_ERR" && [ "$(cat "$d/keep")" = previous ]; then
		t_pass "$N: error: $name"
	else
		t_fail "$N: error: $name" "exit $T_RC: $(t_errhead) (wanted '$want')"
	fi
}
printf '# hosts\nh0000 node-a\nh9999 node-z\n' >"$d/unknown.map"
err_case "unknown host in a host map" \
	"unknown.map:3: unknown host 'h9999'" --host-map "$d/unknown.map"
printf 'h0000 n1\nh0001 n1\n' >"$d/twice.map"
err_case "two hosts, one Slurm name" \
	"twice.map:2: Slurm name 'n1' of h0001 is already h0000's (line 1)" \
	--host-map "$d/twice.map"
printf 'h0000 node:a\n' >"$d/colon.map"
err_case "a host map name Slurm would not read back" \
	"colon.map:1: h0000: name 'node:a' is not one Slurm reads back" \
	--host-map "$d/colon.map"
printf '# switches\n0x0002c90200000000 "ISR9024D Voltaire"\n' >"$d/blank.nnm"
err_case "a node name map name Slurm rejects" \
	"blank.nnm:2: switch 0x0002c90200000000: name 'ISR9024D Voltaire' is not one Slurm reads back" \
	--node-name-map "$d/blank.nnm"
printf 'zz "leaf"\n' >"$d/guid.nnm"
err_case "a node name map line without a GUID" "guid.nnm:1: 'zz' is not a NodeGUID" \
	--node-name-map "$d/guid.nnm"
sed 's/# "h0005 HCA-1"/# "h0005,x HCA-1"/' "$d/x2.topo" >"$d/comma.topo"
if t_expect_exit 2 "$IBF" slurm-topology --topo "$d/comma.topo" -o "$d/keep" &&
   grep -qF "CA 0x0002c90100000500 \"h0005,x HCA-1\": its name 'h0005,x' is not a name Slurm reads back" "$T_ERR" &&
   [ "$(cat "$d/keep")" = previous ]; then
	t_pass "$N: error: a NodeDescription whose name Slurm would not read back, the CA named"
else
	t_fail "$N: error: NodeDescription name" "exit $T_RC: $(t_errhead)"
fi
# The refused switch name written in by hand: slurmctld will not start.
dir=$d/rejected
mkdir -p "$dir"
sed 's/^SwitchName=S-0002c90200000000 /SwitchName=ISR9024D Voltaire /; s/Switches=S-0002c90200000000,/Switches=ISR9024D Voltaire,/' \
	"$d/p3/topology.conf" >"$dir/topology.conf"
if slurm_up "$dir" "h[0000-0031]"; then
	t_fail "$N: Slurm refuses the name too" "slurmctld took 'ISR9024D Voltaire': $(head -2 "$dir/show")"
else
	t_pass "$N: Slurm refuses 'ISR9024D Voltaire' too: $(cut -c1-120 "$dir/why")"
fi
t_done
