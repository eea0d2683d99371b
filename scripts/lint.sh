#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh [--list] [checkpatch] [build] [shell] [pyflakes] [kerneldoc]
#         [compat] [makehelp] [makevars] [docs]: fwq's static
# checks (all of them by default), each reported as one KTAP-style line "ok lint.X" or
# "not ok lint.X" with the findings above it. Exit 1 if any check failed.
#   checkpatch  checkpatch.pl --strict --no-tree on fwq's own .c/.h files
#   build       a W=1 C=2 (sparse on every file) build in a scratch copy of
#               the tree; any compiler or sparse warning fails, and so does
#               a build whose kbuild dropped C=2 (its notice where it finds
#               no usable sparse, which names no warning), unless the
#               kernel's file says FWQ_K_SPARSE=n (7.3: the build roots'
#               sparse cannot parse its headers), where the line says
#               "W=1 only". With
#               FWQ_LINT_BUILD_LOG set (make check sets it), the log of
#               such a build of the tree itself, from clean, is read
#               instead of building again
#   shell       ShellCheck on scripts/ (shell scripts, plans), bench/ and .ci/run
#   pyflakes    pyflakes (python3-pyflakes) on every Python file of the tree:
#               *.py and the scripts whose first line names python
#   kerneldoc   the kernel's scripts/kernel-doc -none on every header of
#               fwq (include/fwq/, src/, bench/, tests/); any warning
#               fails
#   compat      the compat layer: a W=1 build with FWQ_COMPAT_FALLBACK=y
#               (every fallback of src/compat/compat.h, as on a kernel
#               that no probe matches) must be clean, and compat.h's
#               supported-series guard must refuse 6.0, 6.5, 6.13, 7.2 and 7.4
#               and accept 6.1, 6.12, 7.3, and 6.5, 6.13 and 7.4 with
#               FWQ_UNTESTED_KERNEL. A kernel whose file says
#               FWQ_K_COMPAT_FALLBACK=n (7.3: the old interfaces the
#               fallbacks call are gone) skips the fallback build, as
#               "skip lint.build_compat_fallback"
#   makehelp    make help lists every rule with its "## " line
#   makevars    no variable is assigned in two of the Makefiles (make
#               check-xfs's CYCLES took make debug-lane's default of 100)
#   docs        scripts/doclint.py on the docs, README.md, bench/README.md,
#               dkms.conf, debian/control, probe.sh and compat.h: every
#               "make X" is a rule, every quoted path exists, every hazard
#               of docs/hazards.md is cited by code, a test or a script (or
#               says "untested"), every table row has its header's cells,
#               the supported kernels are those of scripts/kernels/,
#               in the same words everywhere, and every figure a document
#               quotes is docs/figures.tsv's (tests/doclint/ plants each)
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP" || exit 2

failed=0
report() {
	local name=$1 rc=$2 log=$3 note=${4:-}

	if [ "$rc" -eq 0 ]; then
		echo "ok lint.$name${note:+ # $note}"
	else
		grep -v '^[[:space:]]*$' "$log" | sed 's/^/# /'
		echo "not ok lint.$name"
		failed=1
	fi
}

# report_text NAME RC TEXT [NOTE]: report, with TEXT as the log
report_text() {
	local log

	log=$(mktemp)
	printf '%s\n' "$3" > "$log"
	report "$1" "$2" "$log" "${4:-}"
	rm -f "$log"
}

# report_output NAME CMD...: a check that CMD makes, printing one line per
# finding: it fails when CMD fails or prints anything
report_output() {
	local name=$1 log rc=0

	shift
	log=$(mktemp)
	"$@" > "$log" 2>&1 || rc=1
	[ -s "$log" ] && rc=1
	report "$name" $rc "$log"
	rm -f "$log"
}

# fwq's own C sources: everything under src/, include/, bench/ and tests/
# (the test modules and the harness self-check modules).
c_sources() {
	find src include bench tests -name '*.[ch]' \
		! -name '*.mod.c' 2>/dev/null | sort
}

lint_checkpatch() {
	local cp log rc=0 files

	if ! cp=$("$FWQ_TOP/scripts/get-checkpatch.sh"); then
		report_text checkpatch 1 "cannot get checkpatch.pl"
		return
	fi
	log=$(mktemp)
	# The variant registry is a set of X-macro lists, which checkpatch
	# reads as complex macros that reuse their argument, and its
	# TRACE_DEFINE_ENUM() generator ends in the ';' a file-scope
	# declaration needs: the one file where those three checks are off
	# (every other check still runs).
	# The public header's static initializers name their object twice
	# (its list head, and with lockdep its class key), as the kernel's
	# __WORK_INITIALIZER does: there, only the argument-reuse check is
	# off. The shim (include/fwq/shim.h) maps the kernel's
	# DECLARE_WORK() and its kin onto those: the same.
	# The parameter table (src/params.c) is an X-macro list too; the
	# macro that turns an entry into module_param_cb() and
	# MODULE_PARM_DESC() ends in a ';', since both are file-scope
	# declarations: there, the same two checks as in the registry, and
	# the trailing-semicolon one, are off.
	mapfile -t files < <(c_sources |
		grep -vx -e include/fwq/variants.h -e include/fwq/fwq.h \
			-e include/fwq/shim.h -e src/params.c)
	perl "$cp" --strict --no-tree --quiet --no-summary --show-types \
		-f "${files[@]}" > "$log" 2>&1 || rc=1
	perl "$cp" --strict --no-tree --quiet --no-summary --show-types \
		--ignore COMPLEX_MACRO,MACRO_ARG_REUSE,TRAILING_SEMICOLON \
		-f include/fwq/variants.h >> "$log" 2>&1 || rc=1
	perl "$cp" --strict --no-tree --quiet --no-summary --show-types \
		--ignore MACRO_ARG_REUSE \
		-f include/fwq/fwq.h include/fwq/shim.h >> "$log" 2>&1 || rc=1
	perl "$cp" --strict --no-tree --quiet --no-summary --show-types \
		--ignore COMPLEX_MACRO,MACRO_ARG_REUSE,TRAILING_SEMICOLON \
		-f src/params.c >> "$log" 2>&1 || rc=1
	[ -s "$log" ] && rc=1
	report checkpatch $rc "$log"
	rm -f "$log"
}

# lint_build NAME [MAKE ARGS...]: the scratch-copy build, reported as
# lint.NAME
lint_build() {
	local name=$1 kdir tmp log rc=0 sparse_note=

	shift

	if ! kdir=$(fwq_kdir); then
		report_text "$name" 1 "no kernel headers (scripts/deps.sh)"
		return
	fi
	log=$(mktemp)
	"$FWQ_TOP/scripts/toolchain.sh" "$kdir" -- sh -c 'command -v sparse' \
		> /dev/null 2>&1 || echo "sparse is not installed" >> "$log"
	if [ "$name" = build_w1_sparse ] && [ -n "${FWQ_LINT_BUILD_LOG:-}" ]; then
		if [ -f "$FWQ_LINT_BUILD_LOG" ]; then
			grep -E 'warning:|error:|sparse:' "$FWQ_LINT_BUILD_LOG" >> "$log"
			sparse_ran "$FWQ_LINT_BUILD_LOG" "$kdir" "$log"
		else
			echo "no build log $FWQ_LINT_BUILD_LOG" >> "$log"
		fi
		[ -s "$log" ] && rc=1
		sed -i "s|$FWQ_TOP/||g" "$log"
		report "$name" $rc "$log" "$sparse_note"
		rm -f "$log"
		return
	fi
	tmp=$(mktemp -d)
	if [ -d .git ] && command -v git >/dev/null; then
		git ls-files -co --exclude-standard -z
	else
		find . -path ./results -prune -o -path ./.git -prune -o \
			-type f -print0
	fi | grep -zvE '\.(o|ko|mod|mod\.c|cmd|symvers|order)$' |
		tar -c --null -T - 2>/dev/null | tar -x -C "$tmp"
	"$FWQ_TOP/scripts/toolchain.sh" "$kdir" --bind "$tmp" -- \
		make -C "$kdir" M="$tmp" -j"$(nproc)" W=1 C=2 "$@" modules \
		> "$tmp/build.log" 2>&1 || rc=1
	grep -E 'warning:|error:|sparse:' "$tmp/build.log" >> "$log" && rc=1
	[ "$name" != build_w1_sparse ] || sparse_ran "$tmp/build.log" "$kdir" "$log"
	if [ $rc -ne 0 ] && [ ! -s "$log" ]; then
		tail -n 30 "$tmp/build.log" > "$log"
	fi
	[ -s "$log" ] && rc=1
	sed -i "s|$tmp/||g" "$log"
	report "$name" $rc "$log" "$sparse_note"
	rm -rf "$tmp" "$log"
}

# sparse_ran BUILDLOG KDIR LOG: a finding in LOG if kbuild says in
# BUILDLOG that it dropped C=2 (no usable sparse), unless KDIR's kernel
# says FWQ_K_SPARSE=n, which sets sparse_note for the report line instead
sparse_ran() {
	local krel

	sparse_note=
	grep -qE 'sparse is not available|checker-valid\.sh: No such file' "$1" ||
		return 0
	if krel=$(fwq_krel_of "$2") && fwq_kernel_of_krel "$krel" &&
	   [ "$FWQ_K_SPARSE" = n ]; then
		sparse_note="W=1 only: no sparse parses $FWQ_K_NAME's headers here (scripts/kernels/$FWQ_K_NAME)"
		return 0
	fi
	grep -E 'sparse is not available|checker-valid' "$1" | head -n 2 >> "$3"
}

# compat_range VERSION EXPECT [CFLAGS...]: run the probes as for a kernel
# VERSION (a.b), then preprocess compat.h with their flags; EXPECT is ok
# or refused.
# shellcheck disable=SC2317 # run by report_output
compat_range() {
	local v=$1 want=$2 err got kdir

	kdir=$(fwq_kdir)
	shift 2
	err=$(mktemp)
	# shellcheck disable=SC2046 # the probes' flags are words
	if "$FWQ_TOP/scripts/toolchain.sh" "$kdir" -- gcc -E \
		$(sh src/compat/probe.sh "$kdir" "${v%%.*}" "${v#*.}") \
		"$@" src/compat/compat.h -o /dev/null 2> "$err"; then
		got=ok
	else
		got=refused
		grep -q 'fwq: ' "$err" || got="failed without fwq's message"
	fi
	[ "$got" = "$want" ] || echo "compat.h with kernel $v $*: $got, want $want"
	rm -f "$err"
}

# compat_ranges: compat.h takes the kernels it supports and refuses the
# others unless told (-DFWQ_UNTESTED_KERNEL)
# shellcheck disable=SC2317 # run by report_output
compat_ranges() {
	compat_range 6.0 refused
	compat_range 6.1 ok
	compat_range 6.5 refused
	compat_range 6.5 ok -DFWQ_UNTESTED_KERNEL
	compat_range 6.12 ok
	compat_range 6.13 refused
	compat_range 6.13 ok -DFWQ_UNTESTED_KERNEL
	compat_range 7.2 refused
	compat_range 7.3 ok
	compat_range 7.4 refused
	compat_range 7.4 ok -DFWQ_UNTESTED_KERNEL
}

lint_shellcheck() {
	local log rc=0

	if ! command -v shellcheck >/dev/null; then
		report_text shellcheck 1 "shellcheck is not installed"
		return
	fi
	log=$(mktemp)
	mapfile -t scripts < <(find scripts bench -name '*.sh' | sort)
	[ -e .ci/run ] && scripts+=(.ci/run)
	shellcheck -x "${scripts[@]}" > "$log" 2>&1 || rc=1
	mapfile -t plans < <(find scripts/plans -name '*.plan' | sort)
	if [ ${#plans[@]} -gt 0 ]; then
		shellcheck -s dash "${plans[@]}" >> "$log" 2>&1 || rc=1
	fi
	mapfile -t presets < <(find scripts/presets -type f | sort)
	if [ ${#presets[@]} -gt 0 ]; then
		shellcheck -s bash -e SC2034 "${presets[@]}" >> "$log" 2>&1 || rc=1
	fi
	report shellcheck $rc "$log"
	rm -f "$log"
}

# python_files: the tree's Python files (NUL-separated): tracked and
# untracked-not-ignored files named *.py or whose first line names python
python_files() {
	local f

	if [ -d .git ] && command -v git > /dev/null; then
		git ls-files -co --exclude-standard -z
	else
		find . -path ./results -prune -o -path ./.git -prune -o \
			-path ./.cache -prune -o -type f -print0
	fi | while IFS= read -r -d '' f; do
		f=${f#./}
		[ -f "$f" ] || continue
		case $f in
		*.py) printf '%s\0' "$f" ;;
		*) head -n 1 "$f" 2> /dev/null | grep -q '^#!.*python' &&
			printf '%s\0' "$f" ;;
		esac
	done
}

lint_pyflakes() {
	local log rc=0 files pf

	if command -v pyflakes3 > /dev/null; then
		pf=(pyflakes3)
	elif /usr/bin/python3 -c 'import pyflakes' 2> /dev/null; then
		pf=(/usr/bin/python3 -m pyflakes)
	else
		report_text pyflakes 1 "pyflakes is not installed (python3-pyflakes)"
		return
	fi
	log=$(mktemp)
	mapfile -d '' -t files < <(python_files | sort -z)
	if [ ${#files[@]} -gt 0 ]; then
		"${pf[@]}" "${files[@]}" > "$log" 2>&1 || rc=1
	fi
	[ -s "$log" ] && rc=1
	report pyflakes $rc "$log" "${#files[@]} files"
	rm -f "$log"
}

lint_kerneldoc() {
	local kdir log rc=0

	if ! kdir=$(fwq_kdir) || [ ! -r "$kdir/scripts/kernel-doc" ]; then
		report_text kerneldoc 1 "no scripts/kernel-doc in the kernel headers (scripts/deps.sh)"
		return
	fi
	log=$(mktemp)
	mapfile -t headers < <(find include/fwq src bench tests -name '*.h' | sort)
	perl "$kdir/scripts/kernel-doc" -none "${headers[@]}" > "$log" 2>&1 || rc=1
	grep -q . "$log" && rc=1
	report kerneldoc $rc "$log"
	rm -f "$log"
}

# lint_makehelp: make help lists every rule of the Makefiles with the "## "
# line above it; a rule without one shows as "(undocumented)"
lint_makehelp() {
	local log rc=0

	log=$(mktemp)
	make -s -C "$FWQ_TOP" help > "$log" 2>&1 || rc=1
	grep -q '^  make ' "$log" || rc=1
	grep '(undocumented)' "$log" > "$log.bad" && rc=1
	if [ $rc -ne 0 ] && [ -s "$log.bad" ]; then
		mv "$log.bad" "$log"
	fi
	report makehelp $rc "$log"
	rm -f "$log" "$log.bad"
}

# makevars: no variable is assigned in two of the Makefiles (the
# Makefile and the .mk files it includes share one namespace, so the
# first "?=" of a name would set the default of every target that uses it)
# shellcheck disable=SC2317 # run by report_output
makevars() {
	grep -H '^[A-Za-z_][A-Za-z0-9_]* *[:?+]\{0,1\}=' Makefile ./*/*.mk 2> /dev/null |
		sed -E 's/^([^:]*):([A-Za-z0-9_]+).*/\2 \1/' | sort -u |
		awk '{ n[$1]++; f[$1] = f[$1] " " $2 }
			END { for (v in n) if (n[v] > 1) print v " is assigned in" f[v] }'
}

# compat_fallback: whether the target kernel can build every fallback
# (FWQ_K_COMPAT_FALLBACK of its file, y for a release no file names)
compat_fallback() {
	local kdir krel

	kdir=$(fwq_kdir) && krel=$(fwq_krel_of "$kdir") &&
		fwq_kernel_of_krel "$krel" || return 0
	[ "$FWQ_K_COMPAT_FALLBACK" != n ]
}

# lint_one CHECK: one check, as named on the command line
lint_one() {
	case "$1" in
	checkpatch) lint_checkpatch ;;
	build) lint_build build_w1_sparse ;;
	compat)
		if compat_fallback; then
			lint_build build_compat_fallback FWQ_COMPAT_FALLBACK=y C=0
		else
			echo "skip lint.build_compat_fallback # kernel $FWQ_K_NAME lacks the interfaces the fallbacks use"
		fi
		report_output compat_range compat_ranges
		;;
	shell|shellcheck) lint_shellcheck ;;
	pyflakes) lint_pyflakes ;;
	kerneldoc) lint_kerneldoc ;;
	makehelp) lint_makehelp ;;
	makevars) report_output makevars makevars ;;
	docs) report_output docs /usr/bin/python3 scripts/doclint.py ;;
	esac
	exit $failed
}

all_checks="checkpatch build shellcheck pyflakes kerneldoc compat makehelp makevars docs"
# --list: the checks and what each does, from this header (make lint
# DRYRUN=1)
if [ "${1:-}" = --list ]; then
	sed -n '/^#   [a-z]/,/^set -u/p' "$0" | sed '/^set -u/d; s/^# \{0,1\}//'
	exit 0
fi
# shellcheck disable=SC2086 # the checks are words
[ $# -gt 0 ] || set -- $all_checks
for what in "$@"; do
	case "$what" in
	checkpatch|build|compat|shell|shellcheck|pyflakes|kerneldoc|makehelp|makevars|docs) ;;
	*) fwq_die 2 "unknown lint check '$what'" ;;
	esac
done
# The checks run side by side (most are one process each; the builds use
# every core), each into its own file, printed in the order given. A
# check that fails without a "not ok" line of its own (it died) gets one.
outs=$(mktemp -d)
pids=()
for what in "$@"; do
	(lint_one "$what") > "$outs/${#pids[@]}" 2>&1 &
	pids+=($!)
done
i=0
for what in "$@"; do
	rc=0
	wait "${pids[$i]}" || rc=$?
	cat "$outs/$i"
	if grep -q '^not ok lint\.' "$outs/$i"; then
		failed=1
	elif [ $rc -ne 0 ]; then
		echo "not ok lint.$what # exit $rc"
		failed=1
	fi
	i=$((i + 1))
done
rm -rf "$outs"
exit $failed
