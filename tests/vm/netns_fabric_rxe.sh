#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# scripts/netns-fabric with soft-RoCE, inside the qemu VM (its Debian kernel
# has rdma_rxe and sch_netem; this machine's kernel has neither):
#   XGFT(2;2,2;1,2), LMC 1, uapr: the two LID offsets of a destination take
#   different spines; endpoints in the root namespace, one rxe device per
#   host port (--endpoints root --rxe), MTU 9000, 200 us netem delay per
#   link.
# Checks: every (source port, destination LID) pair probed on the wire
# follows the LFTs (TTL hops both ways, ICMP senders hop by hop, `ibflow
# paths`); ping between all hosts; ibv_rc_pingpong between two hosts over
# each LID offset, its packets counted on the switch ports of that offset's
# path (from the suite's own LFT reader) and not on the other's; `down`
# removes the rxe devices, rules and namespaces.
# vm-timeout: 420
# (about 3.5 minutes under TCG on a busy 2-core machine: `up` alone starts
# some 60 processes, each slow in the guest)
# Run by the VM harness (tests/integration/softroce_vm.sh); by hand:
#   scripts/softroce-vm -- bash tests/vm/netns_fabric_rxe.sh
# vm-timeout: 400 (218 s in the harness with the host's load average at 22)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
. "$T_REPO/tests/netns_lib.sh"
D=$T_TMP
T_START=$(date +%s.%N)
mark() { awk -v a="$T_START" -v b="$(date +%s.%N)" -v l="$1" 'BEGIN { printf "# %6.1f s  %s\n", b - a, l }'; }
NAME=ibfnr$(tr -dc 'a-z0-9' </dev/urandom | head -c 3)
ITERS=100

cleanup() {
	[ ! -e "$STATE/$NAME" ] || "$NF" --name "$NAME" down >/dev/null 2>&1
	t__cleanup
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then
	t_skip "netns-fabric rxe" "needs root"
	t_done
fi
if ! modprobe rdma_rxe 2>/dev/null && [ ! -d /sys/module/rdma_rxe ]; then
	t_skip "netns-fabric rxe" "no rdma_rxe in kernel $(uname -r) (run inside scripts/softroce-vm)"
	t_done
fi
if ! t_need ip tc rdma ibv_rc_pingpong ping || [ -z "$PY" ]; then
	t_skip "netns-fabric rxe" "needs ip, tc, rdma, ibv_rc_pingpong, ping and python3"
	t_done
fi

"$IBF" gen xgft:2:2,2:1,2 --lmc 1 -o "$D/f.topo" >/dev/null
"$IBF" route --topo "$D/f.topo" --engine uapr -o "$D/f.lfts" >/dev/null
t_trace_paths "$D/f.topo" "$D/f.lfts" outs >"$D/trace"

rules0=$(ip rule show | sort)
if t_expect_exit 0 "$NF" --name "$NAME" up --topo "$D/f.topo" --lfts "$D/f.lfts" \
	--endpoints root --rxe --mtu 9000 --delay 200us; then
	t_pass "up: root-namespace endpoints with rxe devices, MTU 9000, 200 us delays"
else
	t_fail "up" "exit $T_RC: $(t_errhead)"
	t_done
fi
MAP=$STATE/$NAME/hosts
net=$(map_net "$MAP")

mark "up done"
# ---- netem: this kernel has it -------------------------------------------
delay=$(sed -n 's/^delay=//p' "$STATE/$NAME/meta")
t_check "netem available and applied (meta delay=$delay)" 0 test "$delay" = applied

# ---- rxe devices: one per host port, ACTIVE, with RoCE v2 GIDs ----------------
# gid_of DEV ADDR: the index of DEV's RoCE v2 GID for IPv4 ADDR
gid_of() {
	# builtins only: under full emulation every process costs
	local dev=$1 want g i v t a b c d
	IFS=. read -r a b c d <<<"$2"
	printf -v want '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
	for g in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
		i=${g##*/}
		v='' t=''
		read -r v <"$g" 2>/dev/null
		[ "$v" = "$want" ] || continue
		read -r t <"/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null
		[ "$t" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}
devs=$(awk '!/^#/ { print $10 }' "$MAP")
ready=0
for i in $(seq 100); do
	ready=1
	while read -r _ _ _ _ _ _ _ _ _ dev addrs _; do
		st=
		read -r st <"/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null
		[ "$st" = "4: ACTIVE" ] || ready=0
		for a in ${addrs//,/ }; do
			[ "$ready" = 0 ] || gid_of "$dev" "$a" >/dev/null || ready=0
		done
	done < <(grep -v '^#' "$MAP")
	[ "$ready" = 1 ] && break
	sleep 0.2
done
if [ "$ready" = 1 ] && [ "$(echo $devs | wc -w)" -eq 4 ]; then
	t_pass "4 rxe devices ($(echo $devs)) ACTIVE with a RoCE v2 GID per LID address"
else
	t_fail "rxe devices" "devices '$(echo $devs)', not all ACTIVE with GIDs: $(rdma link show 2>&1 | tr '\n' ' ')"
fi

mark "rxe ready"
# ---- IP forwarding follows the LFTs -------------------------------------------
# (TTL against `ibflow paths` is the host suite's; each call costs here)
check_fabric "rxe fabric" "$NAME" "$D/f.topo" "$D/f.lfts" nopaths

mark "probes and paths done"
bad=0
n=0
while read -r src dst; do
	n=$((n + 1))
	ping -c 1 -W 2 -I "$src" "$dst" >/dev/null 2>&1 || bad=$((bad + 1))
done < <(awk '!/^#/ { split($11, a, ","); print a[1] }' "$MAP" |
	awk '{ h[NR] = $1 } END { for (i in h) for (j in h) if (i != j) print h[i], h[j] }')
t_check "ping between every pair of hosts ($n pairs, $bad lost)" 0 test "$n" -eq 12 -a "$bad" -eq 0

rtt=$(ping -c 3 -i 0.2 -q -I "10.$net.0.2" "10.$net.0.8" 2>/dev/null | sed -n 's|.* = \([0-9.]*\)/.*|\1|p')
if awk -v r="${rtt:-0}" 'BEGIN { exit !(r >= 1.6) }'; then
	t_pass "netem: h0000 -> h0003 RTT $rtt ms >= 1.6 ms (8 links x 200 us)"
else
	t_fail "netem RTT" "RTT '${rtt}' ms, wanted >= 1.6"
fi

mark "pings done"
# ---- ibv_rc_pingpong over each LID offset, counted on the switch ports --------
# Egress ports of a path from the suite's tracer, as "netns iface".
path_ifaces() { # SRC_GUIDPORT DLID
	awk -v s="$1" -v l="$2" '$1 == s && $2 == l { print $6 }' "$D/trace" | tr ',' '\n' |
	while IFS=: read -r g p; do
		awk -v g="$g" 'function c(x) { x = tolower(x); sub(/^0x0*/, "", x); return x }
			!/^#/ && c($5) == g { print $2 }' "$STATE/$NAME/switches" | sed "s/\$/ p$p/"
	done
}
# Sum of the transmitted packets of "netns iface" lines: one python
# process enters each namespace and reads /proc/net/dev there.
sum_tx() {
	"$PY" -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
total = 0
for line in open(sys.argv[1]):
    ns, dev = line.split()
    with open("/run/netns/" + ns) as f:
        if libc.setns(f.fileno(), 0x40000000) != 0:
            sys.exit("setns " + ns)
    for row in open("/proc/net/dev"):
        name, _, rest = row.partition(":")
        if name.strip() == dev:
            total += int(rest.split()[9])
print(total)' "$1"
}
# Wait (builtins only) until something listens on TCP port $1.
wait_listen() {
	local hex i l st f
	printf -v hex '%04X' "$1"
	for ((i = 0; i < 600; i++)); do
		for f in /proc/net/tcp /proc/net/tcp6; do
			while read -r _ l _ st _; do
				[ "$st" = 0A ] && [ "${l##*:}" = "$hex" ] && return 0
			done <"$f"
		done
		sleep 0.1
	done
	return 1
}

# the tracer names ports by node GUID:port
read -r _ _ _ sport _ _ _ sg _ sdev saddrs _ < <(awk '!/^#/ && $1 == "h0000"' "$MAP")
read -r _ _ _ _ dlid _ _ _ _ ddev daddrs _ < <(awk '!/^#/ && $1 == "h0003"' "$MAP")
sgk=$(echo "$sg" | tr 'A-F' 'a-f' | sed 's/^0x0*//'):$sport
port=18515
for off in 0 1; do
	other=$((1 - off))
	path_ifaces "$sgk" $((dlid + off)) | sort >"$D/path.$off"
	path_ifaces "$sgk" $((dlid + other)) | sort >"$D/path.$other"
	comm -13 "$D/path.$off" "$D/path.$other" >"$D/only.$other"
	comm -23 "$D/path.$off" "$D/path.$other" >"$D/only.$off"
	if [ ! -s "$D/only.$off" ] || [ ! -s "$D/only.$other" ]; then
		t_fail "offset $off: paths" "the tracer gives offsets 0 and 1 the same switch ports"
		continue
	fi
	saddr=$(echo "$saddrs" | cut -d, -f1)
	daddr=$(echo "$daddrs" | cut -d, -f$((off + 1)))
	sgid=$(gid_of "$sdev" "$saddr")
	dgid=$(gid_of "$ddev" "$daddr")
	a0=$(sum_tx "$D/only.$off"); b0=$(sum_tx "$D/only.$other")
	port=$((port + 1))
	timeout 120 ibv_rc_pingpong -d "$ddev" -g "$dgid" -p "$port" -n "$ITERS" -s 1024 >"$D/srv.out" 2>&1 &
	spid=$!
	crc=1
	if wait_listen "$port"; then
		timeout 120 ibv_rc_pingpong -d "$sdev" -g "$sgid" -p "$port" -n "$ITERS" -s 1024 127.0.0.1 \
			>"$D/cli.out" 2>&1 && crc=0
	else
		echo "server never listened on $port" >"$D/cli.out"
	fi
	wait "$spid"
	src=$?
	a=$(( $(sum_tx "$D/only.$off") - a0 )); b=$(( $(sum_tx "$D/only.$other") - b0 ))
	na=$(wc -l <"$D/only.$off")
	if [ "$crc" = 0 ] && [ "$src" = 0 ] && [ "$a" -ge $((na * ITERS)) ] && [ "$b" -lt $((ITERS / 2)) ]; then
		t_pass "ibv_rc_pingpong h0000 -> h0003 offset $off ($ITERS x 1 KB): $a packets on the $na ports only its LFT path uses, $b on the other offset's"
	else
		t_fail "ibv_rc_pingpong offset $off" "client $crc server $src; path ports +$a (want >= $((na * ITERS))), other +$b (want < $((ITERS / 2))); $(tail -2 "$D/cli.out" | tr '\n' ' ')"
	fi
done

mark "pingpong done"
# ---- down ---------------------------------------------------------------------
"$NF" --name "$NAME" down >/dev/null 2>"$D/down.err"
rc=$?
left=$(nothing_left "$NAME")
rdma_left=$(rdma link show 2>/dev/null | grep -c "${NAME}_rxe" || true)
if [ "$rc" = 0 ] && [ -z "$left" ] && [ "$rdma_left" = 0 ] && [ "$(ip rule show | sort)" = "$rules0" ]; then
	t_pass "down: no rxe device, rule, namespace, device or state left"
else
	t_fail "down" "exit $rc: $(head -2 "$D/down.err") $left rxe $rdma_left rules $(ip rule show | tr '\n' ';')"
fi

mark "end"
t_done
