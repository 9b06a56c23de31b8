#!/usr/bin/env bash
# The ibflow command line as a user meets it: help, version, exit codes for
# bad usage, and `make install` (DESTDIR and --prefix) placing the binary,
# the library, the headers and the pkg-config file where they belong.
set -uo pipefail
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

IBF=$t_ibflow
if [ ! -x "$IBF" ]; then
	t_fail cli "no built CLI at $IBF (run scripts/build.sh)"
	t_done
fi

# ---- help and version ---------------------------------------------------
if t_expect_exit 0 "$IBF" --help; then
	missing=
	for c in gen convert info check paths; do
		grep -qE "^ +$c " "$T_OUT" || missing="$missing $c"
	done
	if [ -z "$missing" ]; then
		t_pass "--help lists every command"
	else
		t_fail "--help lists every command" "missing:$missing"
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

for c in gen convert info check paths; do
	if t_expect_exit 0 "$IBF" "$c" --help && [ -s "$T_OUT" ]; then
		t_pass "$c --help"
	else
		t_fail "$c --help" "exit $T_RC, $(wc -c <"$T_OUT") bytes on stdout: $(t_errhead)"
	fi
	t_check "$c --no-such-option: exit 2" 2 "$IBF" "$c" --no-such-option
done

# gen's help must document every generator family.
if t_expect_exit 0 "$IBF" gen --help; then
	missing=
	for fam in pgft xgft kary slimfly dragonfly hyperx jellyfish torus; do
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
