#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# console-scan.sh [--foreign FILE] < CONSOLE: print the kernel badness lines
# of a guest console (any of them fails a vm-run.sh run). The guest's own
# echo of steps and KTAP results (and the command line) is skipped, so a
# step or test name cannot trip it.
#
# KCSAN reports are judged one by one: a report in which no frame is fwq's
# (no "[fwq...]" module tag, no fwq_ function in the title or a frame) is a
# race inside the kernel itself, which fwq cannot cause or mend. In an
# access made "by interrupt", the frames below the interrupt's entry
# (asm_sysvec_*, asm_common_interrupt, ...) are the code it interrupted,
# not the access's: they do not count. Its title
# line goes to FILE (--foreign; default: dropped) instead of the output.
# Only the title of such a report is held back: any other badness line
# printed in between (a WARNING from another CPU, say) still counts. A
# report cut off before its closing rule is counted as fwq's.
#
# With CONFIG_DEBUG_PER_CPU_MAPS the kernel dumps the stack of every failed
# cpumask allocation ("=> alloc_cpumask_var: failed!"), which the lockdep
# lane's fault-injection tests cause on purpose: the "Call Trace:" line of
# that dump, within three lines of its title, is not badness.
#
# Exit code: 0 when no badness line was printed, 1 when one was, 2 on a
# usage error. scripts/selfcheck.sh checks it against console fixtures in
# tests/selfcheck/console/.
set -u

foreign=/dev/null
while [ $# -gt 0 ]; do
	case "$1" in
	--foreign) foreign=${2:-}; shift 2 || exit 2 ;;
	-h|--help) sed -n '3,18p' "$0"; exit 0 ;;
	*) echo "console-scan.sh: unknown argument: $1" >&2; exit 2 ;;
	esac
done
[ -n "$foreign" ] || { echo "console-scan.sh: --foreign needs a file" >&2; exit 2; }
: > "$foreign" || exit 2

badness='(BUG:|WARNING:|Oops|general protection fault|Kernel panic|kernel BUG at'
badness+='|Call Trace:|soft lockup|hard LOCKUP|blocked for more than'
badness+='|rcu: INFO|detected stall|stalls on CPUs|possible circular locking'
badness+='|possible recursive locking|inconsistent lock state|suspicious RCU usage'
badness+='|lockdep is turned off|DEBUG_LOCKS_WARN_ON|bad unlock balance'
badness+='|KASAN:|KCSAN:|UBSAN:|list_add corruption|list_del corruption'
badness+='|Objects remaining|refcount_t:|Unable to handle kernel|double fault'
badness+='|Kernel Offset:|---\[ end trace)'
own='^(# fwq_step |fwq-guest: |(not )?ok [0-9]+ | +(KTAP version|# |(not )?ok [0-9]|[0-9]+\.\.))'

tr -d '\r' | grep -avE "$own|ommand line:" |
awk -v bad="$badness" -v foreign="$foreign" '
# A KCSAN report runs from its "BUG: KCSAN:" title to the next rule of
# "=" signs. Lines are held until the report closes, then printed in order
# (badness ones only), the title left out when no frame is fwq.
function flush_held(is_foreign,    i) {
	for (i = 1; i <= nheld; i++) {
		if (i == 1 && is_foreign) {
			print held[i] > foreign
			continue
		}
		if (held[i] ~ bad) {
			print held[i]
			found = 1
		}
	}
	nheld = 0
	inrep = 0
}
{
	line = $0
	# the printk time stamp, if any, is not part of the message
	msg = line
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "", msg)
	if (inrep) {
		held[++nheld] = line
		if (msg ~ /^=+$/) {
			flush_held(!ours)
			next
		}
		# an access: "read to ADDR of N bytes by interrupt on cpu C:"
		if (msg ~ /^(read|write)[^:]* by (task [0-9]+|interrupt) on cpu [0-9]+:$/) {
			in_irq = (msg ~ / by interrupt on cpu /)
			interrupted = 0
			next
		}
		if (in_irq && msg ~ /^ *asm_[a-z0-9_]*(interrupt|sysvec_[a-z0-9_]*)\+0x/)
			interrupted = 1
		if (!interrupted &&
		    (msg ~ /\[fwq[a-z0-9_]*\]/ || msg ~ /(^|[^a-z0-9_])fwq_[a-z0-9_]*\+0x/))
			ours = 1
		next
	}
	if (msg ~ /^=> alloc_cpumask_var: failed!$/) {
		cpumask_dump = NR
		next
	}
	if (cpumask_dump && msg ~ /^Call Trace:$/ && NR - cpumask_dump <= 3) {
		cpumask_dump = 0
		next
	}
	if (msg ~ /^BUG: KCSAN: /) {
		inrep = 1
		in_irq = 0
		interrupted = 0
		nheld = 1
		held[1] = line
		ours = (msg ~ /(^|[^a-z0-9_])fwq_[a-z0-9_]/)
		next
	}
	if (line ~ bad) {
		print line
		found = 1
	}
}
END {
	# cut off before its closing rule: count it as fwq'"'"'s
	if (inrep)
		flush_held(0)
	exit found ? 1 : 0
}'
