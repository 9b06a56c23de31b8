#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The ibflow command line as a user meets it: every command's help, exit
# codes for bad usage and a good run, docs/cli.md matching the help, and
# `make install` (DESTDIR and --prefix) placing the binary, the library,
# the headers and the pkg-config file where they belong.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
t_need_ibflow

# Every command, as this test knows them: `ibflow --help` must list exactly
# these, so a command added without a test here fails.
COMMANDS="gen convert info check paths netplan route order slurm-topology eval liquid sim probe-plan probe-solve infer"

# ---- help and version ---------------------------------------------------
if t_expect_exit 0 "$IBF" --help; then
	listed=$(sed -n 's/^  \([a-z-][a-z-]*\)  .*/\1/p' "$T_OUT" | tr '\n' ' ')
	if [ "$listed" = "$COMMANDS " ]; then
		t_pass "--help lists every command (and no other)"
	else
		t_fail "--help lists every command" "listed: $listed"
	fi
else
	t_fail "--help lists every command" "exit $T_RC"
fi

# The version comes from configure.ac's AC_INIT, read here independently.
want=$(sed -n 's/^AC_INIT(\[ibflow\], *\[\([^]]*\)\].*/\1/p' "$T_REPO/configure.ac")
if t_expect_exit 0 "$IBF" --version && grep -qx "ibflow $want" "$T_OUT"; then
	t_pass "--version prints ibflow $want"
else
	t_fail "--version prints ibflow $want" "exit $T_RC: $(head -1 "$T_OUT")"
fi

t_check "no arguments: exit 2" 2 "$IBF"
if t_expect_exit 2 "$IBF" frobnicate && grep -q frobnicate "$T_ERR"; then
	t_pass "unknown command: exit 2, named on stderr"
else
	t_fail "unknown command: exit 2, named on stderr" "exit $T_RC: $(t_errhead)"
fi

# Limits from the shared header, read here, not from the CLI.
lim() { sed -n "s/^#define $1 \([0-9]*\).*/\1/p" "$T_REPO/common/include/ibflow/limits.h"; }
LMC_MAX=$(lim IBF_LMC_MAX)
THREADS_MAX=$(lim IBF_THREADS_MAX)

# Per command: the help in the common layout, bad usage (unknown option,
# nothing given, a value out of the shared range) exits 2 and points at
# --help.
for c in $COMMANDS; do
	if t_expect_exit 0 "$IBF" "$c" --help &&
	   head -1 "$T_OUT" | grep -q "^usage: ibflow $c " &&
	   grep -q '^  -h, --help  *this text$' "$T_OUT" &&
	   grep -q '^Exit status: ' "$T_OUT" && [ ! -s "$T_ERR" ]; then
		t_pass "$c --help: usage, options, exit status on stdout"
	else
		t_fail "$c --help" "exit $T_RC: $(head -1 "$T_OUT") $(t_errhead)"
	fi
	t_check "$c -h: exit 0" 0 "$IBF" "$c" -h
	if t_expect_exit 2 "$IBF" "$c" --no-such-option &&
	   grep -q "unknown option '--no-such-option'" "$T_ERR" &&
	   grep -q "ibflow $c --help" "$T_ERR"; then
		t_pass "$c --no-such-option: exit 2, named"
	else
		t_fail "$c --no-such-option" "exit $T_RC: $(t_errhead)"
	fi
	if t_expect_exit 2 "$IBF" "$c" &&
	   grep -qE "required|expected|give one of" "$T_ERR"; then
		t_pass "$c without arguments: exit 2, says what is missing"
	else
		t_fail "$c without arguments" "exit $T_RC: $(t_errhead)"
	fi
	# every command reading a topology takes --lmc
	"$IBF" "$c" --help | grep -q -- '--lmc N' || continue
	if t_expect_exit 2 "$IBF" "$c" --lmc $((LMC_MAX + 1)) &&
	   grep -q -- "--lmc: '$((LMC_MAX + 1))' is not a number in 0..$LMC_MAX" "$T_ERR"
	then
		t_pass "$c --lmc $((LMC_MAX + 1)): exit 2 (0..$LMC_MAX)"
	else
		t_fail "$c --lmc $((LMC_MAX + 1))" "exit $T_RC: $(t_errhead)"
	fi
done
for c in check route eval; do
	if t_expect_exit 2 "$IBF" "$c" --threads $((THREADS_MAX + 1)) &&
	   grep -q "1..$THREADS_MAX" "$T_ERR"; then
		t_pass "$c --threads $((THREADS_MAX + 1)): exit 2 (1..$THREADS_MAX)"
	else
		t_fail "$c --threads $((THREADS_MAX + 1))" "exit $T_RC: $(t_errhead)"
	fi
done

# docs/cli.md is the help texts (scripts/cli-doc.sh writes it).
if bash "$T_REPO/scripts/cli-doc.sh" "$IBF" >"$T_TMP/cli.md" 2>"$T_ERR"; then
	t_same "docs/cli.md says what --help says" "$T_TMP/cli.md" \
		"$T_REPO/docs/cli.md"
else
	t_fail "docs/cli.md says what --help says" "$(t_errhead)"
fi

# The engines the help texts and messages name are those of the library's
# table, ibf_route_engines(), read here through ctypes: the --engine line
# of `route --help`, the route line of `ibflow --help`, the message for
# an unknown engine.  Capabilities: the PGFT-labelling engines are those
# --labels-out accepts.
# t_same_text NAME GOT WANT
t_same_text() {
	if [ "$2" = "$3" ]; then
		t_pass "$1"
	else
		t_fail "$1" "got '$2', want '$3'"
	fi
}
LIBIBF=$(ls "$(dirname "$IBF")"/.libs/libibflow.so 2>/dev/null)
if [ -z "$LIBIBF" ]; then
	t_skip "route help lists ibf_route_engines()" "no built libibflow.so"
else
	table=$(python3 -c 'import ctypes, sys
class E(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("summary", ctypes.c_char_p),
                ("run", ctypes.c_void_p), ("caps", ctypes.c_uint)]
lib = ctypes.CDLL(sys.argv[1])
lib.ibf_route_engines.restype = ctypes.POINTER(E)
e, i = lib.ibf_route_engines(), 0
while e[i].name:
    print(e[i].name.decode(), e[i].caps & 2 and "pgft" or "-")
    i += 1' "$LIBIBF")
	all=$(awk '{printf "%s ", $1}' <<<"$table")
	"$IBF" route --help >"$T_OUT"
	listed=$(sed -n 's/^ *--engine NAME *//p' "$T_OUT" |
		 sed 's/,* or / /; s/,/ /g' | tr -s ' ')
	t_same_text "route --help lists ibf_route_engines()" "$listed " "$all"
	top=$("$IBF" --help | sed -n 's/^  route  *compute routing tables (\(.*\))$/\1/p' |
	      tr -d ',')
	t_same_text "ibflow --help lists ibf_route_engines()" "$top " "$all"
	"$IBF" route --engine no-such --topo x -o /dev/null 2>"$T_ERR"
	msg=$(sed -n "s/.*unknown engine 'no-such' (one of \(.*\))$/\1/p" "$T_ERR" |
	      sed 's/,* or / /; s/,/ /g' | tr -s ' ')
	t_same_text "unknown engine: the message lists ibf_route_engines()" \
		"$msg " "$all"
	bad=
	while read -r eng cap; do
		if "$IBF" route --engine "$eng" --topo x -o /dev/null \
		   --labels-out y 2>"$T_ERR"; then :; fi
		if grep -q 'only .* label a PGFT' "$T_ERR"; then got=-; else got=pgft; fi
		[ "$got" = "$cap" ] || bad="$bad $eng($cap, CLI $got)"
	done <<<"$table"
	t_same_text "--labels-out accepts the IBF_ROUTE_PGFT_LABELS engines" \
		"$bad" ""
fi

# gen's help must document every generator family.
if t_expect_exit 0 "$IBF" gen --help; then
	missing=
	for fam in pgft xgft kary slimfly dragonfly hyperx jellyfish torus tree; do
		grep -q "$fam" "$T_OUT" || missing="$missing $fam"
	done
	if [ -z "$missing" ]; then
		t_pass "gen --help names every family"
	else
		t_fail "gen --help names every family" "missing:$missing"
	fi
else
	t_fail "gen --help names every family" "exit $T_RC"
fi
t_check "gen with a malformed spec: exit 2" 2 "$IBF" gen kary:x,3
t_check "check on a missing file: exit 2" 2 \
	"$IBF" check --topo "$T_TMP/none" --lfts "$T_TMP/none"

# ---- a good run of every command --------------------------------------
# kary:2,2: 4 hosts on 2 leaves, 2 spines, every leaf linked to every
# spine: 8 nodes, 8 links; h0000 and h0003 hang off different leaves, 4
# links apart.  Figures are judged by counting, awk (lib.sh) or python3.
W=$T_TMP/run
mkdir -p "$W"
T=$W/k.topo
if t_expect_exit 0 "$IBF" gen kary:2,2 -o "$T" &&
   [ "$(t_canon_topo "$T" | grep -c '^N Ca ')" = 4 ] &&
   [ "$(t_canon_topo "$T" | grep -c '^N Switch ')" = 4 ] &&
   [ "$(t_canon_topo "$T" | grep -c '^L ')" = 8 ]; then
	t_pass "gen kary:2,2: 4 CAs, 4 switches, 8 links"
else
	t_fail "gen kary:2,2" "exit $T_RC: $(t_errhead)"
fi
if t_expect_exit 0 "$IBF" convert "$T" --to ibsim --out "$W/k.net" &&
   t_expect_exit 0 "$IBF" convert --from ibsim "$W/k.net" -o "$W/k2.topo" &&
   cmp -s <(t_canon_topo "$T") <(t_canon_topo "$W/k2.topo"); then
	t_pass "convert to ibsim and back: the same fabric"
else
	t_fail "convert round trip" "exit $T_RC: $(t_errhead)"
fi
if t_expect_exit 0 "$IBF" info "$T" &&
   grep -qx 'endpoints: 4' "$T_OUT" && grep -qx 'switches:  4' "$T_OUT" &&
   grep -qx 'links:     8' "$T_OUT"; then
	t_pass "info: 4 endpoints, 4 switches, 8 links"
else
	t_fail "info" "exit $T_RC: $(head -c 200 "$T_OUT")"
fi
L=$W/k.lfts
if t_expect_exit 0 "$IBF" route --topo "$T" --engine minhop -o "$L" &&
   t_trace "$T" "$L" | grep -q '^pairs 12 ok 12 '; then
	t_pass "route minhop: all 12 pairs delivered (own tracer)"
else
	t_fail "route minhop" "exit $T_RC: $(t_errhead) $(t_trace "$T" "$L")"
fi
# --json -: stdout is the JSON alone, the text report on stderr.
if t_expect_exit 0 "$IBF" check --topo "$T" --lfts "$L" --json - &&
   python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["defects"] == 0 and d["all"]["pairs"] == 12 else 1)' "$T_OUT" &&
   grep -qx 'all routes delivered' "$T_ERR"; then
	t_pass "check --json -: 12 pairs, no defect; JSON on stdout, text on stderr"
else
	t_fail "check --json -" "exit $T_RC: $(head -c 200 "$T_OUT")"
fi
if t_expect_exit 0 "$IBF" paths --topo "$T" --lfts "$L" "h0000 HCA-1" \
	"h0003 HCA-1" && grep -q 'delivered to "h0003 HCA-1" port 1 after 4 hops' "$T_OUT"
then
	t_pass "paths h0000 -> h0003: delivered after 4 hops"
else
	t_fail "paths" "exit $T_RC: $(tail -1 "$T_OUT") $(t_errhead)"
fi
# 8 nodes, 8 links, 4 CA ports; every one of the 4 switches routes each
# of the 8 LIDs in use.
if t_expect_exit 0 "$IBF" netplan --topo "$T" --lfts "$L" &&
   [ "$(awk '{ n[$1]++ } END { print n["node"], n["link"], n["port"], n["route"] }' "$T_OUT")" = "8 8 4 32" ]
then
	t_pass "netplan: 8 nodes, 8 links, 4 ports, 32 routes"
else
	t_fail "netplan" "exit $T_RC: $(t_errhead)"
fi
# shift on 4 ranks: 3 instances of 4 flows.
if t_expect_exit 0 "$IBF" eval --topo "$T" --lfts "$L" --patterns shift \
	--json "$W/e.json" &&
   python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["patterns"]
sys.exit(0 if len(e) == 1 and e[0]["name"] == "shift" and e[0]["flows"] == 12
         and 0 < e[0]["index"] <= 1 else 1)' "$W/e.json"; then
	t_pass "eval shift: 12 flows, index in (0, 1]"
else
	t_fail "eval" "exit $T_RC: $(t_errhead)"
fi
t_canon_topo "$T" | sed -n 's/^N Ca [^ ]* [0-9]* //p' >"$W/hosts"
if t_expect_exit 0 "$IBF" liquid --topo "$T" --lfts "$L" \
	--alltoall "$W/hosts" --json "$W/l.json" &&
   python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
n = sum(len(f) for f in d["frames"])
sys.exit(0 if d["transfers"] == 12 == n else 1)' "$W/l.json"; then
	t_pass "liquid all-to-all of 4 hosts: 12 transfers, all scheduled"
else
	t_fail "liquid" "exit $T_RC: $(t_errhead)"
fi
# Any RTTs of the planned pairs alone are consistent (independent rows).
if t_expect_exit 0 "$IBF" probe-plan --topo "$T" --lfts "$L" \
	--hosts "$W/hosts" --json "$W/plan.json" &&
   python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
assert len(p["hosts"]) == 4 and p["pairs"] == sum(map(len, p["rounds"])) > 0
with open(sys.argv[2], "w") as f:
    for r in p["rounds"]:
        for a, b in r:
            f.write("\"%s\" \"%s\" 1.5\n" % (a, b))' "$W/plan.json" "$W/rtt"; then
	t_pass "probe-plan: 4 hosts, every planned pair in a round"
else
	t_fail "probe-plan" "exit $T_RC: $(t_errhead)"
fi
t_check "probe-solve on the planned pairs: consistent, exit 0" 0 \
	"$IBF" probe-solve --plan "$W/plan.json" --rtt "$W/rtt"
# infer: RTTs of kary:2,2 (hosts 1 µs one-way to their leaf, leaves
# 0.25 µs to a top): 2 hosts a leaf = 4, across = 5 -> two leaf switches
# joined by one link (a top with two neighbours cannot be seen): 5 links.
python3 -c 'import sys
h = ["h%04d HCA-1" % i for i in range(4)]
with open(sys.argv[1], "w") as f:
    for i in range(4):
        for j in range(i + 1, 4):
            f.write("\"%s\" \"%s\" %g\n" % (h[i], h[j], 4 if i // 2 == j // 2 else 5))' "$W/k.rtt"
if t_expect_exit 0 "$IBF" infer --rtt "$W/k.rtt" --tol 0.25 -o "$W/inf.topo" &&
   [ "$(t_canon_topo "$W/inf.topo" | grep -c '^N Ca ')" = 4 ] &&
   [ "$(t_canon_topo "$W/inf.topo" | grep -c '^N Switch ')" = 2 ] &&
   [ "$(t_canon_topo "$W/inf.topo" | grep -c '^L ')" = 5 ] &&
   grep -q "pairs measured" "$T_OUT"; then
	t_pass "infer: kary:2,2's RTTs give 4 hosts, 2 switches, 5 links"
else
	t_fail "infer" "exit $T_RC: $(t_errhead)"
fi
# The inferred tree keeps the hosts and their names.
if t_expect_exit 0 "$IBF" infer --synth kary:2,2 -o "$W/inf.topo" &&
   cmp -s <(t_canon_topo "$T" | sed -n 's/^N Ca [^ ]* [0-9]* //p' | sort) \
	  <(t_canon_topo "$W/inf.topo" | sed -n 's/^N Ca [^ ]* [0-9]* //p' | sort)
then
	t_pass "infer --synth kary:2,2: the 4 hosts, by name"
else
	t_fail "infer --synth kary:2,2" "exit $T_RC: $(t_errhead)"
fi

# ---- installation ---------------------------------------------------------
# check_tree PREFIX LABEL: the installed files, then the installed CLI and a
# program built against the installed headers and library.
check_tree() {
	local pre=$1 label=$2 h missing=

	[ -x "$pre/bin/ibflow" ] || missing="$missing bin/ibflow"
	ls "$pre"/lib/libibflow.so* >/dev/null 2>&1 || missing="$missing lib/libibflow.so"
	[ -f "$pre/lib/pkgconfig/ibflow.pc" ] || missing="$missing lib/pkgconfig/ibflow.pc"
	# Every public header in the source tree must be installed.
	for h in "$T_REPO"/common/include/ibflow/*.h; do
		[ -f "$pre/include/ibflow/$(basename "$h")" ] ||
			missing="$missing include/ibflow/$(basename "$h")"
	done
	if [ -z "$missing" ]; then
		t_pass "$label: bin, lib, headers, pkg-config installed"
	else
		t_fail "$label: bin, lib, headers, pkg-config installed" "missing:$missing"
		return
	fi
	if LD_LIBRARY_PATH=$pre/lib t_expect_exit 0 "$pre/bin/ibflow" --version; then
		t_pass "$label: installed ibflow runs"
	else
		t_fail "$label: installed ibflow runs" "exit $T_RC: $(t_errhead)"
	fi
	cat >"$T_TMP/use.c" <<-'EOF'
	#include <stdio.h>
	#include <string.h>
	#include <ibflow/ibflow.h>
	int main(void)
	{
		ibf_fabric_t *f;
		if (ibf_fabric_create(&f) != IBF_OK)
			return 1;
		ibf_fabric_destroy(f);
		return strcmp(ibf_status_str(IBF_OK), "") ? 0 : 1;
	}
	EOF
	if cc -I"$pre/include" "$T_TMP/use.c" -L"$pre/lib" -libflow \
	      -o "$T_TMP/use" 2>"$T_ERR" &&
	   LD_LIBRARY_PATH=$pre/lib "$T_TMP/use"; then
		t_pass "$label: a program builds and runs against the installed library"
	else
		t_fail "$label: a program builds and runs against the installed library" "$(t_errhead)"
	fi
	# The .pc file must point at the prefix it was installed for.
	if grep -q "^prefix=$3\$" "$pre/lib/pkgconfig/ibflow.pc" &&
	   grep -q -- '-libflow' "$pre/lib/pkgconfig/ibflow.pc"; then
		t_pass "$label: ibflow.pc names prefix $3 and -libflow"
	else
		t_fail "$label: ibflow.pc names prefix $3 and -libflow" \
			"$(grep -E '^prefix=|^Libs' "$pre/lib/pkgconfig/ibflow.pc" | tr '\n' ' ')"
	fi
}

dest=$T_TMP/dest
pfx=$(sed -n "s/^prefix = //p" "$T_BUILD_DIR/Makefile")
if make -C "$T_BUILD_DIR" install DESTDIR="$dest" >"$T_TMP/install.log" 2>&1; then
	check_tree "$dest$pfx" "make install DESTDIR" "$pfx"
else
	t_fail "make install DESTDIR" "$(tail -3 "$T_TMP/install.log")"
fi

# A separate build configured with --prefix (not in --quick: it compiles
# everything again).
if [ "$T_QUICK" = 1 ]; then
	t_skip "configure --prefix; make install" "--quick"
else
	b=$T_TMP/prefix-build
	p=$T_TMP/prefix
	mkdir -p "$b"
	if (cd "$b" && "$T_REPO/configure" -q --prefix="$p" &&
	    make -j"${JOBS:-2}" && make install) >"$T_TMP/prefix.log" 2>&1; then
		check_tree "$p" "configure --prefix; make install" "$p"
	else
		t_fail "configure --prefix; make install" \
			"$(grep -E 'error' "$T_TMP/prefix.log" | head -3)"
	fi
	rm -rf "$b"
fi

t_done
