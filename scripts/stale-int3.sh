#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stale-int3.sh < CONSOLE: tell whether a guest's first oops is the
# emulator's, not the kernel's: a vCPU that trapped on an int3 which was no
# longer in memory. Prints one line naming it and exits 0 if so; exits 1
# otherwise (no oops, another report first, or an int3 that is really
# there).
#
# The kernel patches its own text with an int3 first, then the new bytes,
# with a synchronising IPI between the steps, and its int3 handler
# emulates the patched instruction while a patch is under way. A trap on
# an int3 that the patch has already replaced cannot happen on a CPU; it
# happens now and then under multi-threaded TCG, which may run a stale
# translation of code that another vCPU rewrote (docs/testing.md, "The
# emulator's code-patching hang"). Its signature is in the oops itself:
# the first oops of the console is "Oops: int3", and the "Code:" line
# printed with it, read from memory after the trap, shows the byte before
# the marked one (regs->ip is one past the trapping int3) as something
# other than cc, the int3 opcode. A breakpoint that is really in the text
# (a kprobe left behind, a stray int3) shows cc there and is not matched.
#
# vm-run.sh boots such a run again once (exit code 5); make check's lanes
# see the second boot's result. scripts/selfcheck.sh checks this script
# against the fixtures in tests/selfcheck/console/.
set -u

case "${1:-}" in
-h|--help) sed -n '3,24p' "$0"; exit 0 ;;
'') ;;
*) echo "stale-int3.sh: unknown argument: $1" >&2; exit 2 ;;
esac

tr -d '\r' | awk '
{
	msg = $0
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "", msg)
}
# the first report decides: a warning or a trace before the oops is not
# the emulator fault
state == 0 && msg ~ /^(WARNING:|BUG:|Call Trace:|-+\[ cut here \]-+$)/ {
	exit 1
}
state == 0 && msg ~ /^Oops: / {
	if (msg !~ /^Oops: int3: /)
		exit 1
	state = 1
	next
}
state == 1 && msg ~ /^RIP: / && rip == "" {
	rip = msg
	sub(/^RIP: [0-9a-f]+:/, "", rip)
	next
}
state == 1 && msg ~ /^Code: / {
	n = split(msg, w, " ")
	for (i = 2; i <= n; i++) {
		if (w[i] ~ /^<[0-9a-f][0-9a-f]>$/)
			break
	}
	if (i > n || i < 3)
		exit 1
	if (w[i - 1] == "cc")
		exit 1
	printf "stale int3: the first oops (RIP %s) trapped on an int3 that memory no longer holds: its Code: line shows %s before RIP, not cc\n", \
		rip == "" ? "unknown" : rip, w[i - 1]
	found = 1
	exit 0
}
# a call trace or another report before the Code: line: not decided
state == 1 && (msg ~ /^Call Trace:/ || msg ~ /^Oops: / || msg ~ /^---\[ end trace/) {
	exit 1
}
END {
	exit found ? 0 : 1
}'
