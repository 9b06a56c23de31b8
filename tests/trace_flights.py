#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Check the measurements in flight of a parallel inference's trace
(ibflow-infer or ibflow infer --trace in parallel mode: the pairs in the
order they ended, "# start K" where the K-th pair of the file, from 1,
started).

    trace_flights.py TRACE [MOST_PRINTED]

Checks (exit 1 with the reason): every pair starts once, before it ends;
no host is in two pairs in flight at the same time; at some time more
than one pair was in flight (the pairs were measured concurrently); with
MOST_PRINTED, the most pairs in flight at once is that figure.  Prints
one line of figures.  Reads the file itself, no ibflow code.
"""
import shlex
import sys


def main():
    events, pairs = [], []
    for line in open(sys.argv[1]):
        if line.startswith("# start "):
            events.append(("start", int(line.split()[2]) - 1))
        elif line.strip() and not line.startswith("#"):
            pairs.append(tuple(shlex.split(line)[:2]))
            events.append(("end", len(pairs) - 1))
    if not pairs:
        sys.exit("no pairs in the trace")
    flying, started, most, total = {}, set(), 0, 0
    for kind, k in events:
        if k >= len(pairs):
            sys.exit("# start %d: the file has %d pairs" % (k + 1, len(pairs)))
        if kind == "start":
            if k in started:
                sys.exit("pair %d started twice" % (k + 1))
            started.add(k)
            busy = {h for p in flying.values() for h in p}
            if busy & set(pairs[k]):
                sys.exit("pair %d %s starts with a host in flight: %s"
                         % (k + 1, pairs[k], sorted(flying.values())))
            flying[k] = pairs[k]
            most = max(most, len(flying))
        else:
            if k not in flying:
                sys.exit("pair %d %s ends without a start" % (k + 1, pairs[k]))
            total += len(flying)
            del flying[k]
    if len(sys.argv) > 2 and most != int(sys.argv[2]):
        sys.exit("at most %d pairs in flight in the trace, %s printed"
                 % (most, sys.argv[2]))
    if most < 2:
        sys.exit("never two pairs in flight")
    print("%d pairs, up to %d in flight at once, %.2f on average at each end, "
          "no host twice in flight" % (len(pairs), most, total / len(pairs)))


main()
