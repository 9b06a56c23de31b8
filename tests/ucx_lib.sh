# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Helpers shared by the UCX component's tests (the ucx_* suites on the
# machine, vm/ucx_probe_netem.sh in the VM); source after tests/lib.sh.
#   ucx_libpath                LD_LIBRARY_PATH to the build tree's
#                              libibflow_ucx and libibflow
#   ucx_env_clear              no UCX_IBFLOW_* of the caller's
#   ucx_chain_topo FILE        three switches chain-A - chain-B - chain-C
#                              (links A:8-B:8, B:7-C:7), hosts h1..h6 two
#                              per switch on ports 1 and 2, LMC 0
#   ucx_export_dir DIR N S     the manifest of an export directory holding
#                              ibflow-topology.ibnd and ibflow-lfts.dump
#                              (N endpoints, S switches, routing 1)
#   ucx_stopped_child NAME CMD.. CMD (a tool with --np 3 and a run of
#                              seconds) with its last rank SIGSTOPped at
#                              once: the tool must exit 3, naming the rank
#                              it killed, leaving no process behind
#   ucx_mpi_setup SUITE PROG   MPI suites: MPILIB (libibflow_mpi),
#                              ucx_libpath; skips SUITE unless mpirun,
#                              PROG and MPILIB are there; then ucx_mpi_env
#   ucx_a2a_setup SUITE PROG   the all-to-all suites: ucx_mpi_setup, the
#                              per-communicator counters on
#                              (IBFLOW_MPI_STATS), F the ucx_two_leaves
#                              fabric with its host map in $T_TMP/map,
#                              ucx_coll_path
#   ucx_coll_path              cpath: coll/ibflow's component path (empty
#                              when it is not built or there is no
#                              ompi_info)
#   ucx_netns_setup SUITE CMD...
#                              the tools' emulated-fabric suites:
#                              tests/netns_lib.sh (NF, STATE, netns_spawn),
#                              PROBE (ibflow-probe), ucx_libpath; skips
#                              SUITE unless ibflow-probe is built, it runs
#                              as root and every CMD is installed
#   ucx_spawn NAME DIR OUT ARGS...
#                              after ucx_netns_setup: ibflow-probe ARGS on
#                              every host of fabric NAME (netns_spawn,
#                              own bootstrap) with $PROBE_ENV, export
#                              directory DIR and the fabric's address map;
#                              OUT.out rank 0's output, OUT.err every
#                              rank's; false if any failed
#   ucx_mpi_env                for mpirun jobs on this machine: no
#                              UCX_IBFLOW_* of the caller's, UCX over TCP
#                              on the loopback, a 30 s timeout
#   ucx_mpirun NP ARGS...      mpirun of NP processes here (ob1, yield
#                              when idle, that environment passed on),
#                              ARGS: more mpirun options, the program and
#                              its arguments
#   ucx_two_leaves DIR MAP     export directory DIR: xgft:2:4,2:1,2 (8
#                              hosts, 2 leaves, 2 spines) routed by dmodk;
#                              host map MAP: ranks 0..3 on h0000 h0004
#                              h0001 h0005 (two leaves, 3 frames at best)
# shellcheck shell=bash

ucx_chain_topo() {
	local h s sd sn
	sw() { # DIGIT NAME LID
		printf 'switchguid=0x10000000000%s0(10000000000%s0)\n' "$1" "$1"
		printf 'Switch\t8 "S-00010000000000%s0"\t\t# "chain-%s" base port 0 lid %s lmc 0\n' "$1" "$2" "$3"
	}
	hostport() { # SWPORT HOST
		printf '[%s]\t"H-00020000000000%s0"[1](20000000000%s1) \t\t# "h%s HCA-1" lid %s 4xQDR\n' \
			"$1" "$2" "$2" "$2" "$2"
	}
	swport() { # PORT PEERDIGIT PEERNAME PEERPORT PEERLID
		printf '[%s]\t"S-00010000000000%s0"[%s]\t\t# "chain-%s" lid %s 4xQDR\n' "$1" "$2" "$4" "$3" "$5"
	}
	{
		echo "# three switches in a chain, two hosts each"
		sw a A 20; hostport 1 1; hostport 2 2; swport 8 b B 8 21; echo
		sw b B 21; hostport 1 3; hostport 2 4; swport 7 c C 7 22; swport 8 a A 8 20; echo
		sw c C 22; hostport 1 5; hostport 2 6; swport 7 b B 7 21; echo
		for h in 1 2 3 4 5 6; do
			s=$(( (h - 1) / 2 ))
			sd=$(printf 'abc' | cut -c$((s + 1)))
			sn=$(echo "$sd" | tr a-c A-C)
			printf 'caguid=0x20000000000%s0\nCa\t1 "H-00020000000000%s0"\t\t# "h%s HCA-1"\n' "$h" "$h" "$h"
			printf '[1](20000000000%s1) \t"S-00010000000000%s0"[%s]\t\t# lid %s lmc 0 "chain-%s" lid %s 4xQDR\n\n' \
				"$h" "$sd" "$(( (h - 1) % 2 + 1 ))" "$h" "$sn" "$((20 + s))"
		done
	} >"$1"
}

ucx_export_dir() {
	{
		echo "# test export (no OpenSM): topology and LFTs as routed here"
		echo "engine test"
		echo "routing 1"
		echo "endpoints $2"
		echo "switches $3"
		echo "lmc 0"
		echo "topology ibflow-topology.ibnd"
		echo "lfts ibflow-lfts.dump"
	} >"$1/ibflow-export.txt"
}

# The tool's ranks: the children of the process timeout(1) started.
ucx__ranks() { # TIMEOUT_PID
	local tool

	tool=$(pgrep -P "$1" | head -1)
	[ -n "$tool" ] && pgrep -P "$tool"
}

ucx_stopped_child() {
	local name=$1 pid ranks stopped i rc

	shift
	timeout 120 "$@" >"$T_TMP/stop.out" 2>"$T_TMP/stop.err" &
	pid=$!
	for i in $(seq 200); do
		ranks=$(ucx__ranks "$pid")
		[ "$(echo "$ranks" | grep -c .)" -ge 3 ] && break
		sleep 0.05
	done
	stopped=$(echo "$ranks" | tail -1)
	[ -n "$stopped" ] && kill -STOP "$stopped"
	wait "$pid"
	rc=$?
	if [ -z "$stopped" ]; then
		t_fail "$name" "its 3 ranks never showed (exit $rc)"
	elif [ $rc -eq 3 ] && grep -q "still running .* killed" "$T_TMP/stop.err" &&
		! kill -0 "$stopped" 2>/dev/null; then
		t_pass "$name: exit 3, $(grep -o 'rank [0-9]* still running.*' "$T_TMP/stop.err" | head -1)"
	else
		kill -KILL "$stopped" 2>/dev/null
		t_fail "$name" "exit $rc: $(head -c 300 "$T_TMP/stop.err")"
	fi
}

ucx_libpath() {
	export LD_LIBRARY_PATH=$T_BUILD_DIR/ucx_component/.libs:$T_BUILD_DIR/common/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}

ucx_env_clear() {
	local v

	for v in $(env | sed -n 's/^\(UCX_IBFLOW_[A-Z_]*\)=.*/\1/p'); do
		unset "$v"
	done
}

ucx_mpi_env() {
	ucx_env_clear
	# UCX over the loopback only: with every device, a context also
	# listens and connects on the root namespace's veths and bridges of
	# emulated fabrics that other jobs bring up and tear down
	# ("Operation timed out")
	export UCX_IBFLOW_TIMEOUT=30s UCX_TLS=tcp,self UCX_IBFLOW_NET_DEVICES=lo
}

ucx_two_leaves() {
	local i

	mkdir -p "$1"
	"$t_ibflow" gen xgft:2:4,2:1,2 -o "$1/ibflow-topology.ibnd" &&
		"$t_ibflow" route --topo "$1/ibflow-topology.ibnd" \
			--engine dmodk -o "$1/ibflow-lfts.dump" >/dev/null ||
		return 1
	ucx_export_dir "$1" 8 4
	for i in 0 1 2 3; do
		echo "rank:$i \"h000$((i / 2 + i % 2 * 4)) HCA-1\""
	done >"$2"
}

ucx_mpi_setup() {
	MPILIB=$T_BUILD_DIR/ucx_component/.libs/libibflow_mpi.so
	ucx_libpath
	if ! t_need mpirun || [ ! -x "$2" ] || [ ! -f "$MPILIB" ]; then
		t_skip "$1" "libibflow_mpi is not built (needs UCX and mpicc; see configure's summary)"
		t_done
	fi
	ucx_mpi_env
}

ucx_mpirun() {
	local np=$1

	shift
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$np" \
		--mca pml ob1 --mca mpi_yield_when_idle 1 -x LD_LIBRARY_PATH \
		-x UCX_IBFLOW_TIMEOUT -x UCX_TLS -x UCX_IBFLOW_NET_DEVICES "$@"
}

ucx_a2a_setup() {
	ucx_mpi_setup "$1" "$2"
	export IBFLOW_MPI_STATS=1
	F=$T_TMP/fab
	ucx_two_leaves "$F" "$T_TMP/map" ||
		t_fail "fabric for the tests" "ibflow gen/route failed"
	ucx_coll_path
}

# shellcheck disable=SC2034 # cpath is the caller's
ucx_coll_path() {
	local coll=$T_BUILD_DIR/ucx_component/.libs/mca_coll_ibflow.so

	cpath=
	if [ -f "$coll" ] && t_need ompi_info; then
		cpath="$(dirname "$coll"):$(ompi_info --path pkglibdir | sed 's/.*: *//')"
	fi
}

ucx_netns_setup() {
	local suite=$1

	shift
	# shellcheck source=netns_lib.sh
	. "$T_REPO/tests/netns_lib.sh"
	PROBE=$T_BUILD_DIR/ucx_component/ibflow-probe
	ucx_libpath
	if [ ! -x "$PROBE" ]; then
		t_skip "$suite" "the UCX component is not built"
		t_done
	fi
	if [ "$(id -u)" -ne 0 ] || ! t_need ip "$@"; then
		t_skip "$suite" "needs root, ip$(printf ', %s' "$@")"
		t_done
	fi
	if [ ! -x "$NF" ]; then
		t_skip "$suite" "no scripts/netns-fabric"
		t_done
	fi
}

ucx_spawn() {
	local name=$1 dir=$2 out=$3 rc=0

	shift 3
	# shellcheck disable=SC2086 # PROBE_ENV is a word list
	netns_spawn "$name" "$out" $PROBE_ENV \
		LD_LIBRARY_PATH="$LD_LIBRARY_PATH" UCX_IBFLOW_FABRIC="$dir" \
		UCX_IBFLOW_ADDRMAP="$STATE/$name/hosts" \
		timeout 600 "$PROBE" "$@" || rc=1
	cat "$out.out.0" >"$out.out"
	cat "$out".err.* >"$out.err"
	return $rc
}
