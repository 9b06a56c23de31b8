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
