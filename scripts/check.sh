#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: what "make check" runs. Installs missing dependencies, builds,
# lints, then runs every lane listed in scripts/check.d/*.list (in name
# order). Prints one line per test ("ok NAME", "not ok NAME # why",
# "skip NAME # why"), timings as "#" lines, and ends with exactly
# "N passed, N failed". Exits 1 if anything failed.
#
# Every kernel of scripts/kernels/ gets its own pass (deps, build, lint,
# lanes), pinned to it with KERNEL=NAME; KERNEL=NAME (make check
# KERNEL=6.12) runs that one only. The default kernel's tests have plain
# names; another kernel's carry its name: "ok 6.12:vm.small.selftest".
# KDIR or KREL from the environment instead make one pass for that tree.
#
# Lane files: one lane per line, words split like a shell command line
# (quotes and $VARIABLES work; FWQ_CHECK_DIR is this pass's scratch dir):
#   vm PRESET PLAN TIMEOUT [vm-run.sh args...]
#       boot PLAN in PRESET; each KTAP test is a test, and the run itself
#       is the test "vm.PRESET.PLAN" (fails on a crash, timeout, ...)
#   cmd NAME COMMAND [ARGS...]
#       run COMMAND on the host; exit 0 is "ok NAME". A command that leaves
#       a vm-run.sh --out directory in $FWQ_CHECK_DIR/NAME has its tests
#       (NAME/tests.txt) listed and counted too, as "NAME.TEST"
#   vm:K ... and cmd:K ...
#       the same, on kernel K only (e.g. cmd:6.1 for a lane that does not
#       depend on the kernel, or that only K can run)
#   vm:!K ... and cmd:!K ...
#       the same, on every kernel but K
# Add a lane by adding a file (e.g. scripts/check.d/30-torture.list).
# FWQ_CHECK_FILTER=GLOB (make check FILTER=suite.case): instead of the
# lanes and the lint, one boot of the small preset that runs the selftest
# cases GLOB matches (fwq_test's filter: "suite.case", or
# "suite.case.PARAM" for one run of a case), on one kernel (KERNEL, else
# the default); a GLOB that names no case of tests/selftest/ is one
# error line and exit 2, before anything is built.
# Environment: KERNEL, FLAVOUR, KDIR, KREL (target), FWQ_CHECK_LANES (a
# glob over lane file names, default "*"), FWQ_CHECK_SKIP_LINT=1 (no lint),
# FWQ_CHECK_ONE_KERNEL=1 (KERNEL's pass only, default FWQ_KERNEL_DEFAULT:
# make check-quick), FWQ_CHECK_SKIP_BUILD=1 (no build of the tree: for lanes that build their
# own copy, as make check-debug's do), FWQ_LANE_TIMES (lib.sh),
# FWQ_CHECK_LINT (lint.sh's checks for a kernel other than the default;
# default "build compat": the rest does not depend on the kernel).
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP" || exit 2

# selftest_cases: every "suite.case" of fwq_test.ko, read from the
# FWQ_KTAP_SUITE() tables of tests/selftest/ (the suite's name, then its
# cases' names: the only string literals there)
selftest_cases() {
	awk '/FWQ_KTAP_SUITE\(/ { in_suite = 1; suite = "" }
	in_suite {
		line = $0
		while (match(line, /"[a-z0-9_]+"/)) {
			s = substr(line, RSTART + 1, RLENGTH - 2)
			if (suite == "")
				suite = s
			else
				print suite "." s
			line = substr(line, RSTART + RLENGTH)
		}
		if ($0 ~ /\);[[:space:]]*$/)
			in_suite = 0
	}' tests/selftest/test_*.c
}

# filter_matches GLOB: does GLOB name a case ("suite.case"), or a run of
# one ("suite.case.PARAM": its part before the last dot names the case)?
filter_matches() {
	local c

	for c in $(selftest_cases); do
		# shellcheck disable=SC2053 # GLOB is a pattern
		[[ $c == $1 ]] && return 0
		# shellcheck disable=SC2053 # so is its part
		[[ $1 == *.*.* ]] && [[ $c == ${1%.*} ]] && return 0
	done
	return 1
}

if [ -n "${FWQ_CHECK_FILTER:-}" ]; then
	case "$FWQ_CHECK_FILTER" in
	*[!A-Za-z0-9_.*?[\]=,-]*)
		fwq_die 2 "FILTER='$FWQ_CHECK_FILTER': a glob over suite.case[.PARAM] names (letters, digits, _ . = , * ? [ ])" ;;
	esac
	filter_matches "$FWQ_CHECK_FILTER" ||
		fwq_die 2 "FILTER='$FWQ_CHECK_FILTER' matches no selftest case (suite.case, e.g. fwq_queue.queued_item_runs_exactly_once; list: tests/selftest/test_*.c)"
	FWQ_CHECK_ONE_KERNEL=1
	FWQ_CHECK_SKIP_LINT=1
fi

check_start=$(fwq_now)
CHECK_TOP=$FWQ_TOP/results/$(date +%Y%m%d-%H%M%S)-check${FLAVOUR:+-$FLAVOUR}
# two runs started in the same second (.ci/run runs two streams)
mkdir -p "$FWQ_TOP/results"
mkdir "$CHECK_TOP" 2> /dev/null || CHECK_TOP+=-$$
mkdir -p "$CHECK_TOP"
# the test name prefix of this pass ("" for the default kernel)
pfx=

# show FILE: print the test lines of FILE, named for this pass
show() {
	sed -E "s/^(ok|not ok|skip) /\1 $pfx/" "$1"
}

# count FILE: tally the ok/not ok/skip lines of FILE.
count() {
	fwq_tap_count "$1"
}

# result NAME RC [WHY]: one test line of this pass (returns 0 either way)
result() {
	fwq_tap_result "$2" "$pfx$1" "${3:-}" || :
}

finish() {
	echo "# logs in $CHECK_TOP"
	echo "# make check wall time: $(fwq_elapsed "$check_start")s"
	fwq_tap_summary
	exit
}

# timed NAME LOG COMMAND...: run COMMAND, log its output, report NAME.
timed() {
	local name=$1 log=$2 start rc

	shift 2
	start=$(fwq_mark)
	"$@" < /dev/null > "$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 25 "$log" | sed 's/^/# /'
	fi
	fwq_lane_time "$name" "$kname" "$start" "$([ $rc -eq 0 ] && echo ok || echo "exit $rc")"
	result "$name" $rc "$(fwq_elapsed "$start")s"
	return $rc
}

# clean_tree: make clean, which must leave the build products under
# results/ and .cache/ alone (other builds' products, maybe in use: the
# check-distro chroot and the debug lanes' module builds in .ci/run);
# called through timed
# shellcheck disable=SC2317
clean_tree() {
	local keep=("$FWQ_CHECK_DIR/clean-sentinel.ko" "$FWQ_TOP/.cache/clean-sentinel.o") f

	mkdir -p "$FWQ_TOP/.cache"
	touch "${keep[@]}"
	make -s clean || return
	for f in "${keep[@]}"; do
		[ -e "$f" ] || { echo "make clean deleted $f"; return 1; }
	done
	rm -f "${keep[@]}"
}

run_vm() {
	local preset=$1 plan=$2 to=$3 name out start rc

	shift 3
	name=$preset.$(basename "$plan" .plan)
	out=$FWQ_CHECK_DIR/$name
	start=$(fwq_mark)
	FWQ_VM_QUIET=1 scripts/vm-run.sh --preset "$preset" --plan "$plan" \
		--timeout "$to" --out "$out" "$@" < /dev/null \
		> "$FWQ_CHECK_DIR/$name.log" 2>&1
	rc=$?
	if [ -s "$out/tests.txt" ]; then
		show "$out/tests.txt"
		count "$out/tests.txt"
	fi
	fwq_show_badness "$out"
	[ $rc -eq 0 ] || tail -n 5 "$FWQ_CHECK_DIR/$name.log" | sed 's/^/# /'
	case $rc in
	0) why="pass" ;;
	1) why="test failure" ;;
	2) why="setup error" ;;
	3) why="kernel crash or badness" ;;
	124) why="timeout" ;;
	*) why="exit $rc" ;;
	esac
	# booted twice: the first boot hit an emulator fault (vm-run.sh)
	if [ -s "$out/first-boot/emulator.txt" ]; then
		sed 's/^/# first boot: /' "$out/first-boot/emulator.txt"
		why+=" in a second boot"
	fi
	fwq_lane_time "vm.$name" "$kname" "$start" "$why"
	result "vm.$name" $rc "$why, exit $rc, boot+run $(fwq_elapsed "$start")s"
}

# sub_tests NAME: list and count the tests of the cmd lane NAME's vm-run.sh
# --out directory, if it left one, and show its badness lines.
sub_tests() {
	local dir=$FWQ_CHECK_DIR/$1

	if [ -s "$dir/tests.txt" ]; then
		sed -E "s/^(ok|not ok|skip) /\1 $1./" "$dir/tests.txt" \
			> "$dir/tests-named.txt"
		show "$dir/tests-named.txt"
		count "$dir/tests-named.txt"
	fi
	fwq_show_badness "$dir"
	return 0
}

# check_pass NAME: deps, build, lint and every lane for kernel NAME ("":
# the KDIR or KREL of the environment). kname, the pass's kernel, is
# global: the lane table (fwq_lane_time) names it.
check_pass() {
	local start lint=

	kname=$1

	if [ -n "$kname" ]; then
		export KERNEL=$kname
		unset KDIR KREL
		fwq_kernel_load "$kname"
		echo "# kernel $kname: $FWQ_K_DESC"
	else
		kname=$FWQ_KERNEL_DEFAULT
	fi
	pfx=
	FWQ_CHECK_DIR=$CHECK_TOP
	if [ "$kname" != "$FWQ_KERNEL_DEFAULT" ]; then
		pfx=$kname:
		FWQ_CHECK_DIR=$CHECK_TOP/$kname
		lint=${FWQ_CHECK_LINT:-build compat}
	fi
	export FWQ_CHECK_DIR
	mkdir -p "$FWQ_CHECK_DIR"
	echo "# fwq check $(cat VERSION), KERNEL='${KERNEL:-}' FLAVOUR='${FLAVOUR:-}'"
	timed deps "$FWQ_CHECK_DIR/deps.log" scripts/deps.sh || return
	kdir=$(fwq_kdir)
	krel=$(fwq_krel)
	echo "# target $krel, headers $kdir"
	unset FWQ_LINT_BUILD_LOG
	if [ "${FWQ_CHECK_SKIP_BUILD:-0}" != 1 ]; then
		if [ "${FWQ_CHECK_SKIP_LINT:-0}" != 1 ] &&
		   scripts/toolchain.sh "$kdir" -- sh -c 'command -v sparse' \
			> /dev/null 2>&1; then
			# lint's W=1+sparse check is this build's log, so
			# the tree is built once, not twice: built from
			# clean, every file is compiled and checked
			timed clean "$FWQ_CHECK_DIR/clean.log" clean_tree || return
			timed build "$FWQ_CHECK_DIR/build.log" \
				make -s -j"$(nproc)" modules W=1 C=2 || return
			export FWQ_LINT_BUILD_LOG=$FWQ_CHECK_DIR/build.log
		else
			timed build "$FWQ_CHECK_DIR/build.log" \
				make -s -j"$(nproc)" modules W=1 || return
		fi
	fi

	if [ "${FWQ_CHECK_SKIP_LINT:-0}" != 1 ]; then
		start=$(fwq_mark)
		# shellcheck disable=SC2086 # lint checks are words
		scripts/lint.sh $lint > "$FWQ_CHECK_DIR/lint.txt" 2>&1
		show "$FWQ_CHECK_DIR/lint.txt"
		count "$FWQ_CHECK_DIR/lint.txt"
		fwq_lane_time lint "$kname" "$start" \
			"$(grep -c '^ok ' "$FWQ_CHECK_DIR/lint.txt") ok, $(grep -c '^not ok ' "$FWQ_CHECK_DIR/lint.txt") not ok"
		echo "# lint: $(fwq_elapsed "$start")s"
	fi

	if [ -n "${FWQ_CHECK_FILTER:-}" ]; then
		run_vm small selftest-one 600 --append "fwqt.filter=$FWQ_CHECK_FILTER"
		return
	fi
	for list in scripts/check.d/${FWQ_CHECK_LANES:-*}.list; do
		[ -r "$list" ] || continue
		echo "# lanes from $list"
		while IFS= read -r line || [ -n "$line" ]; do
			case "$line" in
			''|'#'*) continue ;;
			esac
			eval "set -- $line"
			kind=$1
			shift
			kind=$(fwq_lane_kind "$kind" "$kname") || continue
			case "$kind" in
			vm)
				run_vm "$@"
				;;
			cmd)
				name=$1
				shift
				timed "$name" "$FWQ_CHECK_DIR/$name.log" "$@"
				sub_tests "$name"
				;;
			*)
				result "lane:$list" 1 "unknown lane kind '$kind'"
				;;
			esac
		done < "$list"
	done
}

if [ -n "${KDIR:-}" ] || [ -n "${KREL:-}" ]; then
	check_pass ""
elif [ -n "${KERNEL:-}" ] || [ "${FWQ_CHECK_ONE_KERNEL:-0}" = 1 ]; then
	KERNEL=${KERNEL:-$FWQ_KERNEL_DEFAULT}
	fwq_kernel_load "$KERNEL" ||
		fwq_die 2 "unknown KERNEL '$KERNEL' (known: $(fwq_kernel_names --all | tr '\n' ' '))"
	check_pass "$KERNEL"
else
	for k in $(fwq_kernel_names | sort -V); do
		check_pass "$k"
	done
fi
finish
