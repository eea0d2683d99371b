#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: what "make check" runs. Installs missing dependencies, builds,
# lints, then runs every lane listed in scripts/check.d/*.list (in name
# order). Prints one line per test ("ok NAME", "not ok NAME # why",
# "skip NAME # why"), timings as "#" lines, and ends with exactly
# "N passed, N failed". Exits 1 if anything failed.
#
# Lane files: one lane per line, words split like a shell command line
# (quotes and $VARIABLES work; FWQ_CHECK_DIR is this run's scratch dir):
#   vm PRESET PLAN TIMEOUT [vm-run.sh args...]
#       boot PLAN in PRESET; each KTAP test is a test, and the run itself
#       is the test "vm.PRESET.PLAN" (fails on a crash, timeout, ...)
#   cmd NAME COMMAND [ARGS...]
#       run COMMAND on the host; exit 0 is "ok NAME". A command that leaves
#       a vm-run.sh --out directory in $FWQ_CHECK_DIR/NAME has its tests
#       (NAME/tests.txt) listed and counted too, as "NAME.TEST"
# Add a lane by adding a file (e.g. scripts/check.d/30-torture.list).
# Environment: FLAVOUR, KDIR, KREL (target), FWQ_CHECK_LANES (a glob over
# lane file names, default "*"), FWQ_CHECK_SKIP_LINT=1.
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP" || exit 2

check_start=$(fwq_now)
FWQ_CHECK_DIR=$FWQ_TOP/results/$(date +%Y%m%d-%H%M%S)-check${FLAVOUR:+-$FLAVOUR}
export FWQ_CHECK_DIR
mkdir -p "$FWQ_CHECK_DIR"
passed=0
failed=0
skipped=0

# count FILE: tally the ok/not ok/skip lines of FILE.
count() {
	local p f s

	p=$(grep -c '^ok ' "$1")
	f=$(grep -c '^not ok ' "$1")
	s=$(grep -c '^skip ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

result() {
	local name=$1 rc=$2 why=${3:-}

	if [ "$rc" -eq 0 ]; then
		echo "ok $name${why:+ # $why}"
		passed=$((passed + 1))
	else
		echo "not ok $name${why:+ # $why}"
		failed=$((failed + 1))
	fi
}

finish() {
	echo "# logs in $FWQ_CHECK_DIR"
	echo "# make check wall time: $(fwq_elapsed "$check_start")s"
	[ "$skipped" -eq 0 ] || echo "# $skipped skipped"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

# timed NAME LOG COMMAND...: run COMMAND, log its output, report NAME.
timed() {
	local name=$1 log=$2 start rc

	shift 2
	start=$(fwq_now)
	"$@" < /dev/null > "$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 25 "$log" | sed 's/^/# /'
	fi
	result "$name" $rc "$(fwq_elapsed "$start")s"
	return $rc
}

echo "# fwq check $(cat VERSION), FLAVOUR='${FLAVOUR:-}'"
timed deps "$FWQ_CHECK_DIR/deps.log" scripts/deps.sh || finish
kdir=$(fwq_kdir)
krel=$(fwq_krel)
echo "# target $krel, headers $kdir"
timed build "$FWQ_CHECK_DIR/build.log" make -s modules W=1 || finish

if [ "${FWQ_CHECK_SKIP_LINT:-0}" != 1 ]; then
	start=$(fwq_now)
	scripts/lint.sh > "$FWQ_CHECK_DIR/lint.txt" 2>&1
	cat "$FWQ_CHECK_DIR/lint.txt"
	count "$FWQ_CHECK_DIR/lint.txt"
	echo "# lint: $(fwq_elapsed "$start")s"
fi

run_vm() {
	local preset=$1 plan=$2 to=$3 name out start rc

	shift 3
	name=$preset.$(basename "$plan" .plan)
	out=$FWQ_CHECK_DIR/$name
	start=$(fwq_now)
	FWQ_VM_QUIET=1 scripts/vm-run.sh --preset "$preset" --plan "$plan" \
		--timeout "$to" --out "$out" "$@" < /dev/null \
		> "$FWQ_CHECK_DIR/$name.log" 2>&1
	rc=$?
	if [ -s "$out/tests.txt" ]; then
		cat "$out/tests.txt"
		count "$out/tests.txt"
	fi
	[ -s "$out/badness.txt" ] && head -n 20 "$out/badness.txt" | sed 's/^/# badness: /'
	[ $rc -eq 0 ] || tail -n 5 "$FWQ_CHECK_DIR/$name.log" | sed 's/^/# /'
	case $rc in
	0) why="pass" ;;
	1) why="test failure" ;;
	2) why="setup error" ;;
	3) why="kernel crash or badness" ;;
	124) why="timeout" ;;
	*) why="exit $rc" ;;
	esac
	result "vm.$name" $rc "$why, exit $rc, boot+run $(fwq_elapsed "$start")s"
}

# sub_tests NAME: list and count the tests of the cmd lane NAME's vm-run.sh
# --out directory, if it left one, and show its badness lines.
sub_tests() {
	local dir=$FWQ_CHECK_DIR/$1

	if [ -s "$dir/tests.txt" ]; then
		sed -E "s/^(ok|not ok|skip) /\1 $1./" "$dir/tests.txt" \
			> "$dir/tests-named.txt"
		cat "$dir/tests-named.txt"
		count "$dir/tests-named.txt"
	fi
	[ -s "$dir/badness.txt" ] && head -n 20 "$dir/badness.txt" | sed 's/^/# badness: /'
	return 0
}

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
finish
