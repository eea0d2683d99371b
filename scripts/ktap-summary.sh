#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ktap-summary.sh [--prefix P] KTAP_FILE: print one line per test of a
# nested KTAP document, named by its path ("step.suite.case"):
#   ok NAME | not ok NAME [# why] | skip NAME # why
# Leaves are printed; a parent is printed only when it failed although none
# of its children did (for example a module that exited non-zero), or when
# its nested plan does not match the number of results it holds.
# Exits 1 if anything failed, 0 otherwise.
set -eu

prefix=
if [ "${1:-}" = --prefix ]; then
	prefix=$2
	shift 2
fi
[ $# -eq 1 ] || { echo "usage: $0 [--prefix P] KTAP_FILE" >&2; exit 2; }

awk -v pfx="$prefix" '
function report(res, name, why) {
	if (pfx != "")
		name = pfx "." name
	printf "%s %s%s\n", res, name, (why != "" ? " # " why : "")
	if (res == "not ok")
		nfail++
}
function path(d, name,    i, p) {
	p = ""
	for (i = 1; i <= d; i++)
		if (subname[i] != "")
			p = p subname[i] "."
	return p name
}
function reset(d) {
	started[d] = 1; plan[d] = -1; cnt[d] = 0; fails[d] = 0; subname[d] = ""
}
function close_below(d,    i) {
	for (i = d; i <= maxd; i++) {
		started[i] = 0; subname[i] = ""
	}
}
{
	sub(/\r$/, "")
	match($0, /^ */)
	d = int(RLENGTH / 4)
	line = substr($0, RLENGTH + 1)
	if (d > maxd)
		maxd = d
	if (line ~ /^KTAP version /) {
		close_below(d + 1)
		reset(d)
		next
	}
	if (line ~ /^# Subtest: /) {
		subname[d] = substr(line, 12)
		next
	}
	if (line ~ /^[0-9]+\.\.[0-9]+$/) {
		sub(/^[0-9]+\.\./, "", line)
		plan[d] = line + 0
		next
	}
	if (line !~ /^(not )?ok [0-9]+/)
		next
	if (!started[d])
		reset(d)
	ok = line !~ /^not /
	rest = line
	sub(/^(not )?ok [0-9]+ ?/, "", rest)
	name = rest; why = ""
	i = index(rest, "#")
	if (i) {
		name = substr(rest, 1, i - 1); why = substr(rest, i + 1)
		sub(/ +$/, "", name); sub(/^ +/, "", why)
	}
	if (name == "")
		name = "test" cnt[d] + 1
	skip = why ~ /^(SKIP|skip)/
	cnt[d]++
	full = path(d, name)
	if (started[d + 1]) {
		childfail = fails[d + 1] > 0
		if (plan[d + 1] >= 0 && plan[d + 1] != cnt[d + 1]) {
			report("not ok", full, "plan 1.." plan[d + 1] " but " cnt[d + 1] " results")
			childfail = 1
		} else if (!ok && !skip && !childfail) {
			report("not ok", full, why)
			childfail = 1
		}
		if (childfail)
			fails[d]++
		close_below(d + 1)
	} else {
		if (skip)
			report("skip", full, why)
		else if (ok)
			report("ok", full, why)
		else
			report("not ok", full, why)
		if (!ok && !skip)
			fails[d]++
	}
	subname[d + 1] = ""
}
END {
	for (d = maxd; d >= 1; d--)
		if (started[d])
			report("not ok", path(d, "(unfinished)"), "document ended inside a subtest")
	exit nfail ? 1 : 0
}
' "$1"
