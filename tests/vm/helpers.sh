# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Helpers for tests/vm/*.sh (source after tests/lib.sh; not a test itself:
# the runner runs executable *.sh files only).  Everything here reads the
# kernel's own view (sysfs, /proc) rather than what scripts/softroce says it
# did, and starts as few processes as it can: every exec is slow under
# emulation.
# shellcheck shell=bash

# vm_need_devices N: true when rxe0..rxe(N-1) exist and are ACTIVE.
vm_need_devices() {
	local i st

	for ((i = 0; i < $1; i++)); do
		st=
		read -r _ st 2>/dev/null <"/sys/class/infiniband/rxe$i/ports/1/state"
		[ "$st" = ACTIVE ] || return 1
	done
}

# vm_netdev DEV: the network interface under GID index 1 of DEV port 1.
vm_netdev() {
	local nd=

	read -r nd 2>/dev/null <"/sys/class/infiniband/$1/ports/1/gid_attrs/ndevs/1"
	echo "$nd"
}

# vm_gid_type DEV: "RoCE v2" for the IPv4-mapped GID at index 1.
vm_gid_type() {
	local ty=

	read -r ty 2>/dev/null <"/sys/class/infiniband/$1/ports/1/gid_attrs/types/1"
	echo "$ty"
}

# vm_ipv4 DEV: the IPv4 address inside GID index 1 (::ffff:a.b.c.d), or
# nothing when that GID is not IPv4-mapped.
vm_ipv4() {
	local gid=

	read -r gid 2>/dev/null <"/sys/class/infiniband/$1/ports/1/gids/1"
	case $gid in
	0000:0000:0000:0000:0000:ffff:*)
		gid=${gid#0000:0000:0000:0000:0000:ffff:}
		gid=${gid/:/}
		printf '%d.%d.%d.%d\n' "0x${gid:0:2}" "0x${gid:2:2}" \
			"0x${gid:4:2}" "0x${gid:6:2}" ;;
	esac
}

# vm_packets NETDEV rx|tx: packet counter of an interface.
vm_packets() {
	local n=0

	read -r n 2>/dev/null <"/sys/class/net/$1/statistics/${2}_packets"
	echo "$n"
}

# vm_wait_listen PORT [SECONDS]: wait until something listens on TCP PORT
# (read from /proc/net/tcp, state 0A); false after SECONDS (default 60).
vm_wait_listen() {
	local hex end=$((SECONDS + ${2:-60})) laddr st

	hex=$(printf '%04X' "$1")
	while [ "$SECONDS" -lt "$end" ]; do
		while read -r _ laddr _ st _; do
			[ "${laddr##*:}" = "$hex" ] && [ "$st" = 0A ] && return 0
		done </proc/net/tcp
		sleep 0.2
	done
	return 1
}

# vm_link_ends STATE NODE:PORT: the two ends of a link of a running
# netns-fabric, "NETNS IFACE" a line each ("-" = the root namespace),
# from the maps in its state directory STATE (docs/formats-netns.md).
# NODE is a host's name or a switch's NodeDescription without blanks.
vm_link_ends() {
	awk -v node="${2%:*}" -v port="${2##*:}" '
		FNR == 1 { f++ } /^#/ { next }
		f == 1 && $1 == node && $4 == port { ns = $2; ifc = $3 }
		f == 2 && $NF == node { ns = $2; ifc = "p" port }
		f == 3 && ifc != "" && (($3 == ns && $4 == ifc) || ($7 == ns && $8 == ifc)) {
			print $3, $4; print $7, $8; exit }' \
		"$1/hosts" "$1/switches" "$1/links"
}

# vm_netem NETNS IFACE DELAY|none: put a netem delay on IFACE (replacing
# its root qdisc), or remove the root qdisc ("none").  netns-fabric puts
# netem as the root qdisc of both ends of a delayed link; this changes a
# delay on a running fabric without bringing it down and up again.
vm_netem() {
	local nsopt=()

	[ "$1" = - ] || nsopt=(-n "$1")
	if [ "$3" = none ]; then
		# No root qdisc is not an error; a netem left behind is.
		tc "${nsopt[@]}" qdisc del dev "$2" root 2>/dev/null
		! tc "${nsopt[@]}" qdisc show dev "$2" | grep -q netem
		return
	fi
	tc "${nsopt[@]}" qdisc replace dev "$2" root netem delay "$3"
}

# vm_link_netem STATE NODE:PORT DELAY|none: the same on both ends of a
# link, as netns-fabric's --delay does; false unless both were set.
vm_link_netem() {
	local ns ifc n=0

	while read -r ns ifc; do
		[ -n "$ifc" ] && vm_netem "$ns" "$ifc" "$3" && n=$((n + 1))
	done < <(vm_link_ends "$1" "$2")
	[ "$n" -eq 2 ]
}

# vm_fabric_netem STATE none: every link's delay removed.
# vm_fabric_netem STATE FILE: the delays of a --delay-file ("LINK DELAY"
# lines, LINK as NODE:PORT) set on a running fabric.
vm_fabric_netem() {
	local a ai b bi link dl rc=0

	if [ "$2" = none ]; then
		while read -r _ _ a ai _ _ b bi; do
			vm_netem "$a" "$ai" none && vm_netem "$b" "$bi" none || rc=1
		done < <(grep -v '^#' "$1/links")
		return $rc
	fi
	while read -r link dl; do
		vm_link_netem "$1" "$link" "$dl" || rc=1
	done < <(grep -v '^#' "$2")
	return $rc
}
