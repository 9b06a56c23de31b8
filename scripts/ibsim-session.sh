#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
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
#   ibs_sweep RUNDIR LMC ARGS...   one OpenSM sweep (opensm ARGS), private
#                            cache; sets IBS_ENGINE_USED
#   ibs_opensm ENGINE LMC RUNDIR   the same with -R ENGINE
#   ibs_engine_used LOG      engine OpenSM's log says configured the tables
#   ibs_discover FILE        ibnetdiscover > FILE
#   ibs_dump_lfts FILE       dump_lfts > FILE
#   ibs_start_console NETFILE DIR   the same, with ibsim's console on a fifo:
#   ibs_console CMD...       send a console command (Unlink "S-..."[5],
#                            ReLink ..., Verbose ...) to it
#   ibs_stop                 stop this ibsim (ibs_stop_all: every one started)
# Callers must arrange for ibs_stop_all at exit (the command form does).
#
# IBS_SOCK_PREFIX (default "ibflow") starts the socket names.
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
IBS_SOCK_PREFIX=${IBS_SOCK_PREFIX:-ibflow}
IBS_CONSOLE_FD=

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
	ibs__start "$1" "$2" ""
}

# ibsim reads console commands from DIR/console (a fifo kept open for
# writing on IBS_CONSOLE_FD until ibs_stop).
ibs_start_console() {
	local fifo

	mkdir -p "$2" || return 1
	fifo=$(cd "$2" && pwd)/console
	rm -f "$fifo"
	mkfifo "$fifo" || return 1
	ibs__start "$1" "$2" "$fifo"
}

ibs_console() {
	[ -n "$IBS_CONSOLE_FD" ] || return 1
	printf '%s\n' "$*" >&"$IBS_CONSOLE_FD"
}

ibs__start() {
	local net=$1 dir=$2 fifo=$3 sizes nodes sw ports i in=/dev/null

	mkdir -p "$dir" || return 1
	IBS_DIR=$(cd "$dir" && pwd)
	IBS_SEQ=$((IBS_SEQ + 1))
	IBS_SOCK=$IBS_SOCK_PREFIX-$$-$IBS_SEQ-$RANDOM$RANDOM
	sizes=$(ibs__sizes "$net")
	read -r nodes sw ports <<<"$sizes"
	[ "$nodes" -lt 2048 ] && nodes=2048
	[ "$sw" -lt 256 ] && sw=256
	[ "$ports" -lt 13312 ] && ports=13312
	local nocons=-n
	if [ -n "$fifo" ]; then
		in=$fifo
		nocons=
	fi
	# shellcheck disable=SC2086 # $nocons: one flag or none
	IBSIM_SOCKNAME=$IBS_SOCK timeout -k 5 "$IBS_LIFETIME" \
		ibsim -s $nocons -N "$nodes" -S "$sw" -P "$ports" "$net" \
		<"$in" >"$IBS_DIR/ibsim.log" 2>&1 &
	IBS_PID=$!
	if [ -n "$fifo" ]; then
		# opening the fifo for writing waits for ibsim to open it
		exec {IBS_CONSOLE_FD}>"$fifo"
	fi
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

# ibs_engine_used LOG: the routing engine that, as OpenSM's log says,
# configured the switch tables last (OpenSM falls back to another engine
# when the requested one refuses the fabric); empty when none did.
ibs_engine_used() {
	sed -n 's/.* \([A-Za-z0-9_-]*\) tables configured on all switches.*/\1/p' \
		"$1" 2>/dev/null | tail -1
}

# ibs_sweep RUNDIR LMC OPENSM_ARGS...: one OpenSM sweep (-s 0 -o) with a
# private cache in RUNDIR, so no earlier run's guid2lid file decides the
# LIDs; log in RUNDIR/osm.log, output in RUNDIR/opensm.out.  Sets
# IBS_ENGINE_USED (ibs_engine_used); returns opensm's exit status.
ibs_sweep() {
	local run=$1 lmc=$2 rc=0

	shift 2
	mkdir -p "$run" && run=$(cd "$run" && pwd) || return 1
	OSM_TMP_DIR=$run OSM_CACHE_DIR=$run \
		ibs_run opensm "$@" -f "$run/osm.log" -s 0 -o -D 0x43 \
		-l "$lmc" >"$run/opensm.out" 2>&1 || rc=$?
	IBS_ENGINE_USED=$(ibs_engine_used "$run/osm.log")
	return "$rc"
}

# ibs_opensm ENGINE LMC RUNDIR: one sweep routed by ENGINE; RUNDIR/engine
# names the engine that configured the tables.
ibs_opensm() {
	local engine=$1 lmc=$2 run=$3 rc=0

	ibs_sweep "$run" "$lmc" -R "$engine" || rc=$?
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
	if [ -n "$IBS_CONSOLE_FD" ]; then
		exec {IBS_CONSOLE_FD}>&-
		IBS_CONSOLE_FD=
	fi
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
