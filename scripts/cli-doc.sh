#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Print docs/cli.md from the built CLI's own help texts, so the reference
# says exactly what `ibflow <command> --help` says:
#   scripts/cli-doc.sh [IBFLOW] >docs/cli.md
# tests/integration/cli_basics.sh checks that docs/cli.md is current.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=build-dir.sh
. "$REPO/scripts/build-dir.sh"
IBF=${1:-$(ibf_build_dir "$REPO")/common/ibflow}

cat <<'HEAD'
# ibflow command reference

`ibflow <command> [options]`; `ibflow --help` lists the commands, `ibflow <command> --help` prints the text below (this file is generated from it by `scripts/cli-doc.sh`).

Every command parses its options the same way: `--name VALUE` or
`--name=VALUE`, an unambiguous prefix of a long name (`--out` for
`--output`), `-o VALUE` or `-oVALUE` for the options with a short form,
`--` before operands that start with `-`; `-h`/`--help` prints the help.
Numbers are checked against the ranges shown (the limits in
`ibflow/limits.h` are the same for the OpenSM plugin's ibflow.conf); a
value out of range, an unknown option or a missing required one is bad
usage.  With `--json -` the JSON goes to stdout and the text report to
stderr.

Reports name a host by its NodeDescription (its port GUID where the
description is shared or the CA has several ports) and a switch by its
NodeDescription followed by ` (0xGUID)` where another node shares it (real
switches often all say "SwitchIB Mellanox Technologies"), in text, JSON and
CSV alike.  A command that reads a topology file without LIDs says on
stderr which LIDs it assumes (those of OpenSM's first sweep from the
file's first node, [formats.md](formats.md)).

Exit status for every command: **0** success, **1** the command ran and found defects (or inconsistent measurements), **2** bad usage or bad input (the message on stderr says `FILE:LINE: what is wrong` or names the option).

```
HEAD
"$IBF" --help
echo '```'
"$IBF" --help | sed -n 's/^  \([a-z-][a-z-]*\)  .*/\1/p' | while read -r c; do
	printf '\n## ibflow %s\n\n```\n' "$c"
	"$IBF" "$c" --help
	echo '```'
done
