#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compile-test.sh [--no-shim]: the shim's compile tests. Every snippet of
# tests/shim/compile/ is built as an object of one scratch module, with
# include/fwq/shim.h forced in as docs/shim.md says, in one kbuild run
# (make -k, one job, so that each object's messages follow its "CC"
# line). A snippet's second line says what must happen:
#   /* expect: builds */     the object must build;
#   /* expect: MESSAGE */    it must not build, and an error line of its
#                            own messages must contain MESSAGE.
# One KTAP line per snippet, "ok shim_compile.NAME" or "not ok ...";
# exit 1 if any failed. KDIR/KERNEL: the headers (scripts/kdir.sh).
# --no-shim builds the snippets without shim.h: the control, where every
# snippet that must fail fails its check (it builds, or fails otherwise).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

shim=y
[ "${1:-}" = --no-shim ] && shim=n
kdir=$("$top/scripts/kdir.sh" --kdir) || exit 2

work=$(mktemp -d "${TMPDIR:-/tmp}/fwq-shim-ct.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$top"/tests/shim/compile/*.c "$work/"
KDIR=$kdir "$top/scripts/shim-gen.sh" "$work" "$work/gen" || exit 2

names=()
for f in "$work"/*.c; do
	names+=("$(basename "$f" .c)")
done
{
	echo "obj-m := $(printf '%s.o ' "${names[@]}")"
	if [ "$shim" = y ]; then
		echo "ccflags-y += -I$top/include -I$work/gen -include fwq/shim.h"
	fi
} > "$work/Kbuild"

log=$work/build.log
(cd "$work" && "$top/scripts/toolchain.sh" "$kdir" --bind "$work" -- \
	make -k -j1 -C "$kdir" M="$work" \
	KBUILD_EXTRA_SYMBOLS="$top/Module.symvers" modules) > "$log" 2>&1

# the messages of NAME's object: from its CC line to the next CC line
section() {
	awk -v n="$1.o" '
		/^  CC / { on = ($NF == n || $NF ~ ("/" n "$")); next }
		on' "$log"
}

failed=0
for n in "${names[@]}"; do
	want=$(sed -n '2s|^/\* expect: \(.*\) \*/$|\1|p' "$work/$n.c")
	why=
	if [ -z "$want" ]; then
		why="no expect: line"
	elif [ "$want" = builds ]; then
		[ -e "$work/$n.o" ] || why="did not build"
	elif [ -e "$work/$n.o" ]; then
		why="built; want an error with '$want'"
	elif ! section "$n" | grep -F -- "$want" | grep -q 'error'; then
		why="no error line with '$want'"
	fi
	if [ -z "$why" ]; then
		echo "ok shim_compile.$n"
	else
		section "$n" | grep -m 3 'error' | sed 's/^/# /'
		echo "not ok shim_compile.$n # $why"
		failed=1
	fi
done
exit "$failed"
