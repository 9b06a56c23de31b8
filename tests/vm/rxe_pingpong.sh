#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ibv_rc_pingpong between rxe0 and rxe1 over their veth wire, RoCE v2 GID
# index 1, data checked by the program (-c).  Judged from outside the
# programs' own claims too: GID index 1 read from sysfs decodes to each
# device's IPv4 address, each side names the other's GID, the byte counts
# equal 2 x size x iterations, and both interfaces' packet counters moved by
# at least the number of iterations (traffic looped back inside the machine
# would leave them still).
# vm-timeout: 150
. "$T_REPO/tests/lib.sh"
. "$T_REPO/tests/vm/helpers.sh"

N=vm/rxe_pingpong
SIZE=4096
ITERS=200
[ "$T_QUICK" = 1 ] && ITERS=100
PORT=18515

if ! t_need ibv_rc_pingpong; then
	t_skip "$N" "ibv_rc_pingpong not installed (ibverbs-utils)"
	t_done
fi
if ! vm_need_devices 2; then
	t_fail "$N" "rxe0 and rxe1 are not both ACTIVE"
	t_done
fi

declare -A ND IP
for d in rxe0 rxe1; do
	ND[$d]=$(vm_netdev "$d")
	IP[$d]=$(vm_ipv4 "$d")
	ty=$(vm_gid_type "$d")
	if [ "$ty" = "RoCE v2" ] && [ -n "${IP[$d]}" ] && [ -n "${ND[$d]}" ] &&
	   ip -4 -o addr show dev "${ND[$d]}" | grep -q " ${IP[$d]}/"; then
		t_pass "$N: $d GID index 1 is RoCE v2 ::ffff:${IP[$d]} on ${ND[$d]}"
	else
		t_fail "$N: $d GID index 1" "type '$ty', address '${IP[$d]}', netdev '${ND[$d]}'"
		t_done
	fi
done
if [ "${ND[rxe0]}" = "${ND[rxe1]}" ]; then
	t_fail "$N: distinct interfaces" "rxe0 and rxe1 share ${ND[rxe0]}"
	t_done
fi

tx0=$(vm_packets "${ND[rxe0]}" tx)
rx1=$(vm_packets "${ND[rxe1]}" rx)
ibv_rc_pingpong -d rxe0 -i 1 -g 1 -s $SIZE -n $ITERS -c -e -p $PORT \
	>"$T_TMP/server.out" 2>&1 &
spid=$!
if ! vm_wait_listen $PORT 60; then
	t_fail "$N: server listens" "$(head -c 300 "$T_TMP/server.out")"
	kill "$spid" 2>/dev/null
	t_done
fi
crc=0
ibv_rc_pingpong -d rxe1 -i 1 -g 1 -s $SIZE -n $ITERS -c -e -p $PORT "${IP[rxe0]}" \
	>"$T_TMP/client.out" 2>&1 || crc=$?
src=0
wait "$spid" || src=$?
dtx0=$(($(vm_packets "${ND[rxe0]}" tx) - tx0))
drx1=$(($(vm_packets "${ND[rxe1]}" rx) - rx1))
cat "$T_TMP/client.out"

if [ "$crc" -eq 0 ] && [ "$src" -eq 0 ]; then
	t_pass "$N: $ITERS x $SIZE B rxe1 -> rxe0 -> rxe1, data checked"
else
	t_fail "$N: ping-pong" "client exit $crc, server exit $src: $(tail -3 "$T_TMP/client.out") / $(tail -3 "$T_TMP/server.out")"
fi

want_bytes=$((2 * SIZE * ITERS))
for side in client server; do
	f=$T_TMP/$side.out
	if grep -q "^$want_bytes bytes in " "$f" && grep -q "^$ITERS iters in " "$f"; then
		t_pass "$N: $side moved $want_bytes bytes in $ITERS iterations"
	else
		t_fail "$N: $side counts" "wanted '$want_bytes bytes' and '$ITERS iters': $(grep -E 'bytes in|iters in' "$f" | tr '\n' ' ')"
	fi
done
if grep -q "remote address: .*GID ::ffff:${IP[rxe0]}\$" "$T_TMP/client.out" &&
   grep -q "remote address: .*GID ::ffff:${IP[rxe1]}\$" "$T_TMP/server.out"; then
	t_pass "$N: each side saw the other's GID"
else
	t_fail "$N: remote GIDs" "$(grep -h 'remote address' "$T_TMP/client.out" "$T_TMP/server.out" | tr '\n' ' ')"
fi
if [ "$dtx0" -ge "$ITERS" ] && [ "$drx1" -ge "$ITERS" ]; then
	t_pass "$N: over the wire (${ND[rxe0]} sent $dtx0 packets, ${ND[rxe1]} received $drx1)"
else
	t_fail "$N: over the wire" "${ND[rxe0]} sent $dtx0 packets, ${ND[rxe1]} received $drx1, wanted >= $ITERS each"
fi

us=$(sed -n 's/^.* iters in .* = \([0-9.]*\) usec\/iter$/\1/p' "$T_TMP/client.out")
echo "# ibv_rc_pingpong $SIZE B: ${us:-?} usec/iter (TCG emulation)"
[ -n "${T_VM_OUT:-}" ] && echo "ibv_rc_pingpong size=$SIZE iters=$ITERS usec_per_iter=${us:-}" >"$T_VM_OUT/result"
t_done
