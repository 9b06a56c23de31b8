#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Check the rounds of a parallel inference's trace (ibflow-infer or
ibflow infer --trace in parallel mode: "# round K" before each round's
pairs).

    trace_rounds.py TRACE [ROUNDS_PRINTED]

Checks (exit 1 with the reason): every pair is in a round; no host is in
two pairs of a round; some round has more than one pair (the pairs were
measured concurrently); with ROUNDS_PRINTED, the trace has that many
rounds.  Prints one line of figures.  Reads the file itself, no ibflow
code.
"""
import sys


def main():
    rounds, cur = [], None
    for line in open(sys.argv[1]):
        if line.startswith("# round "):
            cur = []
            rounds.append(cur)
        elif line.strip() and not line.startswith("#"):
            if cur is None:
                sys.exit("a pair outside any round: " + line.strip())
            cur.append(line.split()[:2])
    if not rounds:
        sys.exit("no rounds in the trace")
    for i, r in enumerate(rounds):
        hosts = [h for p in r for h in p]
        if len(hosts) != len(set(hosts)):
            sys.exit("round %d: a host in two pairs: %s" % (i + 1, r))
    if len(sys.argv) > 2 and len(rounds) != int(sys.argv[2]):
        sys.exit("%d rounds in the trace, %s printed" % (len(rounds), sys.argv[2]))
    big = max(len(r) for r in rounds)
    if big < 2:
        sys.exit("no round with two pairs")
    print("%d rounds for %d pairs, up to %d pairs at once, no host twice in a round"
          % (len(rounds), sum(len(r) for r in rounds), big))


main()
