#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# UCX over rxe: ucx_info lists rc_verbs and ud_verbs on the rxe devices, and
# a ucx_perftest tag-matching latency run between rxe1 (client) and rxe0
# (server) with UCX_TLS=rc_verbs,ud_verbs completes, with both sides'
# endpoint configuration (UCX_LOG_LEVEL=info) naming rc_verbs on their own
# device for the tag lane, and the traffic on the interfaces' counters.
# vm-timeout: 150
. "$T_REPO/tests/lib.sh"
. "$T_REPO/tests/vm/helpers.sh"

N=vm/ucx_rxe
ITERS=500
[ "$T_QUICK" = 1 ] && ITERS=200
PORT=13401

if ! t_need ucx_perftest ucx_info; then
	t_skip "$N" "ucx_perftest/ucx_info not installed (ucx-utils)"
	t_done
fi
if ! vm_need_devices 2; then
	t_fail "$N" "rxe0 and rxe1 are not both ACTIVE"
	t_done
fi

# ucx_info -d prints "Transport: T" then "Device: D" for each resource.
ucx_info -d >"$T_TMP/info" 2>&1
awk '/Transport:/ { t = $NF } /Device:/ { print t, $NF }' "$T_TMP/info" |
	sort -u >"$T_TMP/resources"
for r in "rc_verbs rxe0:1" "ud_verbs rxe0:1" "rc_verbs rxe1:1" "ud_verbs rxe1:1"; do
	if grep -qx "$r" "$T_TMP/resources"; then
		t_pass "$N: ucx_info lists ${r% *} on ${r#* }"
	else
		t_fail "$N: ucx_info lists ${r% *} on ${r#* }" "resources: $(tr '\n' ',' <"$T_TMP/resources")"
	fi
done

export UCX_TLS=rc_verbs,ud_verbs UCX_UD_ETH_DGID_CHECK=n UCX_LOG_LEVEL=info
nd0=$(vm_netdev rxe0)
nd1=$(vm_netdev rxe1)
tx1=$(vm_packets "$nd1" tx)
rx0=$(vm_packets "$nd0" rx)
UCX_NET_DEVICES=rxe0:1 ucx_perftest -p $PORT >"$T_TMP/server.out" 2>&1 &
spid=$!
if ! vm_wait_listen $PORT 60; then
	t_fail "$N: server listens" "$(head -c 300 "$T_TMP/server.out")"
	kill "$spid" 2>/dev/null
	t_done
fi
crc=0
UCX_NET_DEVICES=rxe1:1 ucx_perftest "$(vm_ipv4 rxe0)" -p $PORT -t tag_lat -s 8 -n $ITERS \
	>"$T_TMP/client.out" 2>&1 || crc=$?
src=0
wait "$spid" || src=$?
dtx1=$(($(vm_packets "$nd1" tx) - tx1))
drx0=$(($(vm_packets "$nd0" rx) - rx0))
grep -E 'Final:|ep_cfg' "$T_TMP/client.out"

final=$(awk '$1 == "Final:" { print $2, $3 }' "$T_TMP/client.out")
if [ "$crc" -eq 0 ] && [ "$src" -eq 0 ] && [ "${final% *}" = "$ITERS" ]; then
	t_pass "$N: tag_lat $ITERS iterations rxe1 <-> rxe0 (p50 ${final#* } us)"
else
	t_fail "$N: tag_lat" "client exit $crc, server exit $src, final '$final': $(grep -v INFO "$T_TMP/client.out" | tail -3)"
fi
# The endpoint's lanes, e.g. "ep_cfg[0]: tag(rc_verbs/rxe1:1)".
for side in client:rxe1 server:rxe0; do
	f=$T_TMP/${side%:*}.out
	if grep -q "ep_cfg\[[0-9]*\]: tag(rc_verbs/${side#*:}:1[ )]" "$f"; then
		t_pass "$N: ${side%:*} tag lane is rc_verbs on ${side#*:}"
	else
		t_fail "$N: ${side%:*} tag lane is rc_verbs on ${side#*:}" "$(grep -h 'ep_cfg' "$f" | tr '\n' ' ')"
	fi
done
if [ "$dtx1" -ge "$ITERS" ] && [ "$drx0" -ge "$ITERS" ]; then
	t_pass "$N: over the wire ($nd1 sent $dtx1 packets, $nd0 received $drx0)"
else
	t_fail "$N: over the wire" "$nd1 sent $dtx1 packets, $nd0 received $drx0, wanted >= $ITERS each"
fi
[ -n "${T_VM_OUT:-}" ] && echo "ucx_perftest tag_lat size=8 iters=$ITERS p50_us=${final#* }" >"$T_VM_OUT/result"
t_done
