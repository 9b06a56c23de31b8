#!/usr/bin/env bash
# Run real OpenSM and infiniband-diags against a simulated fabric (ibsim),
# isolated from any other ibsim running on the same machine.
#
# As a command (one OpenSM sweep, then read back what it programmed):
#   scripts/ibsim-session.sh NETFILE OUTDIR [ENGINE [LMC]]
# leaves in OUTDIR: osm.log, opensm-lfts.dump, opensm-subnet.lst (OpenSM's
# own dumps), ibnetdiscover.out, dump_lfts.out, engine (the routing engine
# that actually configured the tables: OpenSM falls back to minhop when the
# requested engine refuses the fabric), ibsim.log.
#
# As a library (`source scripts/ibsim-session.sh`):
#   ibs_start NETFILE DIR    start ibsim on NETFILE, scratch files in DIR
#   ibs_run CMD...           run a libibumad program against it
#   ibs_opensm ENGINE LMC RUNDIR   one OpenSM sweep; sets IBS_ENGINE_USED
#   ibs_discover FILE        ibnetdiscover > FILE
#   ibs_dump_lfts FILE       dump_lfts > FILE
#   ibs_stop                 stop this ibsim (ibs_stop_all: every one started)
# Callers must arrange for ibs_stop_all at exit (the command form does).
#
# Isolation: ibsim and libumad2sim meet on abstract unix sockets named
# "$IBSIM_SOCKNAME:ctl", "$IBSIM_SOCKNAME:out<N>", "$IBSIM_SOCKNAME:in<pid>"
# (default basename "sim").  Each session exports its own unique
# IBSIM_SOCKNAME, so sessions never see each other's fabric.
#
# Timeouts (seconds): IBS_TIMEOUT per command (default 120), IBS_LIFETIME
# for ibsim itself (default 1800: a session whose owner died still ends).
# shellcheck shell=bash

IBS_UMAD2SIM=${IBS_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
IBS_TIMEOUT=${IBS_TIMEOUT:-120}
IBS_LIFETIME=${IBS_LIFETIME:-1800}
IBS_PID=
IBS_SOCK=
IBS_DIR=
IBS_ALL_PIDS=${IBS_ALL_PIDS:-}
IBS_SEQ=${IBS_SEQ:-0}
IBS_ENGINE_USED=

ibs_log() { echo "ibsim-session: $*" >&2; }

# Where to find the tools: Debian puts them in /usr/sbin.
case ":$PATH:" in
*:/usr/sbin:*) ;;
*) PATH=$PATH:/usr/sbin:/sbin ;;
esac

ibs_have_tools() {
	local c

	for c in ibsim opensm ibnetdiscover dump_lfts timeout; do
		if ! command -v "$c" >/dev/null 2>&1; then
			echo "$c not installed"
			return 1
		fi
	done
	if [ ! -f "$IBS_UMAD2SIM" ]; then
		echo "$IBS_UMAD2SIM missing (ibsim-utils)"
		return 1
	fi
	return 0
}

# Limits ibsim needs for a net file: "NODES SWITCHES PORTS".
ibs__sizes() {
	awk '
	/^[ \t]*(Switch|Hca|Ca|Rt)[ \t]+[0-9]+[ \t]+"/ {
		n++; p += $2 + 1; if ($1 == "Switch") s++
	}
	END { print n + 0, s + 0, p + 0 }' "$1"
}

ibs__sock_ready() {
	grep -qaF "@$1:ctl" /proc/net/unix 2>/dev/null
}

ibs_start() {
	local net=$1 dir=$2 sizes nodes sw ports i

	mkdir -p "$dir" || return 1
	IBS_DIR=$(cd "$dir" && pwd)
	IBS_SEQ=$((IBS_SEQ + 1))
	IBS_SOCK=ibflow-$$-$IBS_SEQ-$RANDOM$RANDOM
	sizes=$(ibs__sizes "$net")
	read -r nodes sw ports <<<"$sizes"
	[ "$nodes" -lt 2048 ] && nodes=2048
	[ "$sw" -lt 256 ] && sw=256
	[ "$ports" -lt 13312 ] && ports=13312
	IBSIM_SOCKNAME=$IBS_SOCK timeout -k 5 "$IBS_LIFETIME" \
		ibsim -s -n -N "$nodes" -S "$sw" -P "$ports" "$net" \
		</dev/null >"$IBS_DIR/ibsim.log" 2>&1 &
	IBS_PID=$!
	IBS_ALL_PIDS="$IBS_ALL_PIDS $IBS_PID"
	for i in $(seq 100); do
		if ibs__sock_ready "$IBS_SOCK" &&
		   grep -q 'simulator ready' "$IBS_DIR/ibsim.log"; then
			return 0
		fi
		if ! kill -0 "$IBS_PID" 2>/dev/null; then
			ibs_log "ibsim exited on $net:"
			tail -5 "$IBS_DIR/ibsim.log" >&2
			IBS_PID=
			return 1
		fi
		sleep 0.1
	done
	ibs_log "ibsim did not come up in 10 s (log: $IBS_DIR/ibsim.log)"
	ibs_stop
	return 1
}

ibs_run() {
	IBSIM_SOCKNAME=$IBS_SOCK LD_PRELOAD=$IBS_UMAD2SIM \
		timeout -k 5 "$IBS_TIMEOUT" "$@"
}

# ibs_opensm ENGINE LMC RUNDIR: one sweep with a private cache, so no
# earlier run's guid2lid file decides the LIDs.
ibs_opensm() {
	local engine=$1 lmc=$2 run=$3 rc=0

	mkdir -p "$run" || return 1
	run=$(cd "$run" && pwd)
	OSM_TMP_DIR=$run OSM_CACHE_DIR=$run \
		ibs_run opensm -f "$run/osm.log" -s 0 -o -D 0x43 \
		-R "$engine" -l "$lmc" >"$run/opensm.out" 2>&1 || rc=$?
	IBS_ENGINE_USED=$(sed -n \
		's/.* \([A-Za-z0-9_-]*\) tables configured on all switches.*/\1/p' \
		"$run/osm.log" 2>/dev/null | tail -1)
	echo "${IBS_ENGINE_USED:-none}" >"$run/engine"
	if [ "$rc" -ne 0 ]; then
		ibs_log "opensm -R $engine exited with $rc (log: $run/osm.log)"
		return 1
	fi
	if [ -z "$IBS_ENGINE_USED" ]; then
		ibs_log "opensm -R $engine configured no tables (log: $run/osm.log)"
		return 1
	fi
	return 0
}

ibs_discover() {
	ibs_run ibnetdiscover >"$1" 2>"$1.err"
}

ibs_dump_lfts() {
	ibs_run dump_lfts >"$1" 2>"$1.err"
}

ibs_stop() {
	# "|| true": callers may run under set -e, and a killed child's
	# wait status is 143.
	if [ -n "$IBS_PID" ]; then
		kill "$IBS_PID" 2>/dev/null || true
		wait "$IBS_PID" 2>/dev/null || true
	fi
	IBS_PID=
}

ibs_stop_all() {
	local p

	for p in $IBS_ALL_PIDS; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	IBS_ALL_PIDS=
	IBS_PID=
}

ibs_main() {
	local net=$1 out=$2 engine=${3:-ftree} lmc=${4:-0} why

	if ! why=$(ibs_have_tools); then
		ibs_log "$why"
		return 77
	fi
	trap ibs_stop_all EXIT
	trap 'exit 130' INT TERM
	ibs_start "$net" "$out" || return 1
	ibs_opensm "$engine" "$lmc" "$out" || return 1
	ibs_discover "$out/ibnetdiscover.out" || {
		ibs_log "ibnetdiscover failed: $(head -3 "$out/ibnetdiscover.out.err")"
		return 1
	}
	ibs_dump_lfts "$out/dump_lfts.out" || {
		ibs_log "dump_lfts failed: $(head -3 "$out/dump_lfts.out.err")"
		return 1
	}
	ibs_stop
	echo "requested $engine, tables configured by $IBS_ENGINE_USED; files in $out"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	if [ $# -lt 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
		sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
		[ $# -lt 2 ] && exit 2
		exit 0
	fi
	ibs_main "$@"
	exit $?
fi
