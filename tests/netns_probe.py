#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Test-side tracer for emulated fabrics (scripts/netns-fabric); knows
nothing of ibflow.

Reads "SRC DST" address pairs on stdin (SRC must be a local address of the
namespace it runs in) and prints one line per pair:

    SRC DST FWD REV HOP1,HOP2,...

FWD  switches passed on the way to DST: 64 minus the TTL the probe had when
     it arrived, as DST quotes it in its ICMP port-unreachable answer;
REV  switches passed by that answer on its way back (64 minus its TTL);
HOPs who answered the probes sent with TTL 1..FWD (ICMP time exceeded):
     the switches on the way, in order ("-" if none).

A pair that gets no answer after the retries prints "SRC DST FAIL why".
Exit status 0 when every pair was answered.
"""
import argparse
import select
import socket
import struct
import sys
import time

TTL0 = 64
PAYLOAD = b"ibflow-netns-probe"


class Prober:
    def __init__(self, timeout, retries):
        self.icmp = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                  socket.IPPROTO_ICMP)
        self.timeout = timeout
        self.retries = retries
        self.port = 33434

    def _next_port(self):
        self.port = 33434 + (self.port - 33434 + 1) % 20000
        return self.port

    def _match(self, pkt, src, dst, sport, dport):
        """(type, code, outer TTL, quoted TTL) if pkt answers our probe."""
        ihl = (pkt[0] & 15) * 4
        if len(pkt) < ihl + 8 + 20 + 4:
            return None
        icmp_type, code = pkt[ihl], pkt[ihl + 1]
        if icmp_type not in (3, 11):
            return None
        inner = pkt[ihl + 8:]
        iihl = (inner[0] & 15) * 4
        if inner[9] != socket.IPPROTO_UDP or len(inner) < iihl + 4:
            return None
        if (socket.inet_ntoa(inner[12:16]) != src or
                socket.inet_ntoa(inner[16:20]) != dst):
            return None
        sp, dp = struct.unpack("!HH", inner[iihl:iihl + 4])
        if sp != sport or dp != dport:
            return None
        return icmp_type, code, pkt[8], inner[8]

    def probe(self, src, dst, ttl):
        """(responder, type, code, outer TTL, quoted TTL) or None."""
        for _ in range(self.retries):
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                udp.bind((src, 0))
                udp.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
                sport = udp.getsockname()[1]
                dport = self._next_port()
                udp.sendto(PAYLOAD, (dst, dport))
                end = time.monotonic() + self.timeout
                while True:
                    left = end - time.monotonic()
                    if left <= 0:
                        break
                    ready, _, _ = select.select([self.icmp], [], [], left)
                    if not ready:
                        break
                    pkt, (frm, _) = self.icmp.recvfrom(4096)
                    m = self._match(pkt, src, dst, sport, dport)
                    if m:
                        return (frm,) + m
            finally:
                udp.close()
        return None

    def trace(self, src, dst):
        r = self.probe(src, dst, TTL0)
        if r is None:
            return "FAIL no answer"
        frm, icmp_type, code, outer_ttl, quoted_ttl = r
        if icmp_type != 3 or code != 3 or frm != dst:
            return "FAIL type %d code %d from %s at TTL %d" % (
                icmp_type, code, frm, TTL0)
        fwd, rev = TTL0 - quoted_ttl, TTL0 - outer_ttl
        hops = []
        for ttl in range(1, fwd + 1):
            h = self.probe(src, dst, ttl)
            if h is None:
                return "FAIL no answer at TTL %d" % ttl
            if h[1] != 11:
                return "FAIL type %d from %s at TTL %d" % (h[1], h[0], ttl)
            hops.append(h[0])
        return "%d %d %s" % (fwd, rev, ",".join(hops) if hops else "-")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timeout", type=float, default=0.5,
                    help="seconds to wait for each answer (default 0.5)")
    ap.add_argument("--retries", type=int, default=4,
                    help="probes sent before giving up (default 4)")
    args = ap.parse_args()
    prober = Prober(args.timeout, args.retries)
    ok = True
    for line in sys.stdin:
        f = line.split()
        if len(f) != 2:
            continue
        res = prober.trace(f[0], f[1])
        ok &= not res.startswith("FAIL")
        print(f[0], f[1], res, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
