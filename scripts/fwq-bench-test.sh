#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fwq-bench-test.sh [SCRIPTS]: fwq-bench's clear errors, one test each,
# with the exit code and the hint docs/hardware.md's exit-code table
# gives (section "Exit codes and Secure Boot"); then its CLI: --help
# (no QEMU option), --list from a fake fwq debugfs "variants" (the same
# runs as the tree's registry gives) and where fwq is not loaded, bad
# arguments (one line, exit 2, nothing written), and a --scenario and
# --variant filtered run against a fake fwq_bench debugfs (the specs it
# wrote, a result for each).
# SCRIPTS is the directory holding fwq-bench.sh (default this tree's
# bench/; scripts/deb.sh check passes the packaged /usr/share/fwq/bench).
#
# Nothing touches the host kernel: every case runs with a PATH whose
# modprobe, insmod, lsmod, modinfo, dmesg, mount and uname are fakes
# (modprobe and insmod only print the error a case wants and fail), a
# fake debugfs (FWQ_DEBUGFS: a plain directory, or a tmpfs mounted in a
# private mount namespace) and a fake lockdown file (FWQ_LOCKDOWN). The
# non-root case runs as nobody (setpriv). Prints "ok N NAME" or
# "not ok N NAME # why" and ends with "N passed, N failed".
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

src=${1:-$FWQ_TOP/bench}
[ -x "$src/fwq-bench.sh" ] || fwq_die 2 "no fwq-bench.sh in $src"
[ "$(id -u)" = 0 ] || fwq_die 2 "fwq-bench-test.sh needs root (setpriv, unshare)"

tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# a copy that user nobody can read, in the layout bench.sh expects (TOP/bench/),
# with no built modules next to it and no harness (TOP/scripts/): the
# runner must do with its own files, as in the package
mkdir -p "$tmp/top/bench" "$tmp/bin" "$tmp/nodebugfs" "$tmp/debugfs"
cp "$src"/fwq-bench.sh "$src"/bench.sh "$src"/runner-lib.sh \
	"$src"/bench-driver.sh "$src"/bench_report.py "$tmp/top/bench/"
chmod -R a+rX "$tmp/top"

krel=0.0.0-fwq-bench-test
fake() { # fake NAME BODY: a fake command in the test PATH
	printf '#!/bin/sh\n%s\n' "$2" > "$tmp/bin/$1"
	chmod 755 "$tmp/bin/$1"
}
# shellcheck disable=SC2016 # the fakes expand their variables when run
{
fake uname "[ \"\${1:-}\" = -r ] && { echo $krel; exit 0; }; exec /bin/uname \"\$@\""
fake modinfo 'exit "${FAKE_MODINFO_RC:-1}"'
fake modprobe 'echo "$FAKE_LOAD_ERR" >&2; exit 1'
fake insmod 'echo "$FAKE_LOAD_ERR" >&2; exit 1'
fake lsmod 'echo "Module                  Size  Used by"'
fake dmesg 'printf "%s\n" "${FAKE_DMESG:-}"'
fake mount 'echo "mount: refused by fwq-bench-test" >&2; exit 32'
}
printf 'none [integrity] confidentiality\n' > "$tmp/lockdown-on"
printf '[none] integrity confidentiality\n' > "$tmp/lockdown-off"

n=0

# expect NAME RC TEXT MODE [VAR=VALUE...]: run fwq-bench --quick under the
# fakes (MODE: nobody, plain or mounted) and check its exit code and that
# its message holds TEXT
expect() {
	local name=$1 want=$2 text=$3 mode=$4 rc=0 out=$tmp/$1.out
	local -a env=(env "PATH=$tmp/bin:$PATH" "FWQ_LOCKDOWN=$tmp/lockdown-off")

	shift 4
	case $mode in
	plain) env+=("FWQ_DEBUGFS=$tmp/nodebugfs") ;;
	mounted) env+=("FWQ_DEBUGFS=$tmp/debugfs") ;;
	esac
	env+=("$@" "$tmp/top/bench/fwq-bench.sh" --quick --out "$tmp/out-$name")
	case $mode in
	nobody)
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"${env[@]}" > "$out" 2>&1 || rc=$?
		;;
	plain)
		"${env[@]}" > "$out" 2>&1 || rc=$?
		;;
	mounted)
		# shellcheck disable=SC2016 # expanded by the inner sh
		unshare -m --propagation private sh -c \
			'mount -t tmpfs fwq-bench-test "$0" && exec "$@"' \
			"$tmp/debugfs" "${env[@]}" > "$out" 2>&1 || rc=$?
		;;
	esac
	n=$((n + 1))
	if [ "$rc" -eq "$want" ] && grep -qF -- "$text" "$out"; then
		fwq_tap_result 0 "$n $name"
	else
		sed 's/^/# /' "$out"
		fwq_tap_result 1 "$n $name" "exit $rc (want $want and \"$text\")" || :
	fi
}

expect not_root 3 "run it with sudo" nobody
expect debugfs_not_mounted 4 "mount -t debugfs none $tmp/nodebugfs" plain
expect lockdown 8 "kernel lockdown is 'integrity'" mounted \
	FWQ_LOCKDOWN="$tmp/lockdown-on"
expect headers_missing 5 "apt-get install linux-headers-$krel" mounted
expect secure_boot_key_rejected 6 "mokutil --import /var/lib/dkms/mok.pub" \
	mounted FAKE_MODINFO_RC=0 \
	FAKE_LOAD_ERR="modprobe: ERROR: could not insert 'fwq': Key was rejected by service"
expect secure_boot_dmesg 6 "mokutil --import /var/lib/dkms/mok.pub" \
	mounted FAKE_MODINFO_RC=0 \
	FAKE_LOAD_ERR="modprobe: ERROR: could not insert 'fwq': Operation not permitted" \
	FAKE_DMESG="Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7"
expect load_failed 7 "loading fwq failed: modprobe: ERROR: could not insert 'fwq': Invalid argument" \
	mounted FAKE_MODINFO_RC=0 \
	FAKE_LOAD_ERR="modprobe: ERROR: could not insert 'fwq': Invalid argument"

# The CLI (fwq-bench --help, --list, the filters, bad arguments). A fake
# fwq debugfs: fwq/variants, as the module prints the registry
# (src/debugfs.c), and fwq_bench/'s files as plain files whose results
# hold one fixture run, so that a "run" writes its specs and reads that.
fakefs=$tmp/fakefs
mkdir -p "$fakefs/fwq" "$fakefs/fwq_bench"
{
	for axis in wake kicked_list flush; do
		echo "axis $axis $(fwq_registry $axis | tr '\n' ' ' | sed 's/ $//')"
	done
	echo "scopes $(fwq_registry scopes | tr '\n' ' ' | sed 's/ $//')"
	fwq_registry pairs | sed 's/^/pair wake /'
} > "$fakefs/fwq/variants"
head -n 1 "$FWQ_TOP/tests/bench-report/fixtures/flush/results.jsonl" \
	> "$fakefs/fwq_bench/results"
echo "kwq fwq" > "$fakefs/fwq_bench/targets"

# cli NAME RC TEXT MODE ARGS...: fwq-bench ARGS (the package's layout: no
# include/, the variants from debugfs) exits RC and prints TEXT. MODE:
# none (no fwq debugfs), fake (the fake one, a plain folder) or run (the
# fake one on a tmpfs, mounted in a private mount namespace: a run). A bad
# argument (RC 2): one line on stderr and nothing written (no --out DIR).
cli() {
	local name=$1 want=$2 text=$3 mode=$4 rc=0 why=
	local o=$tmp/$name.out e=$tmp/$name.err fs=$tmp/nodebugfs
	local -a env

	shift 4
	[ "$mode" = none ] || fs=$fakefs
	[ "$mode" = run ] && fs=$tmp/debugfs
	env=(env "PATH=$tmp/bin:$PATH" "FWQ_LOCKDOWN=$tmp/lockdown-off"
	     "FWQ_DEBUGFS=$fs" "$tmp/top/bench/fwq-bench.sh" "$@")
	if [ "$mode" = run ]; then
		# shellcheck disable=SC2016 # expanded by the inner sh
		unshare -m --propagation private sh -c \
			'mount -t tmpfs fwq-bench-test "$0" && cp -r "$1"/. "$0"/ &&
			 shift && exec "$@"' "$tmp/debugfs" "$fakefs" "${env[@]}" \
			> "$o" 2> "$e" || rc=$?
	else
		"${env[@]}" > "$o" 2> "$e" || rc=$?
	fi
	n=$((n + 1))
	[ "$rc" -eq "$want" ] || why="exit $rc, want $want"
	grep -qF -- "$text" "$o" "$e" || why="${why:+$why; }no \"$text\""
	if [ "$want" = 2 ]; then
		[ "$(wc -l < "$e")" = 1 ] || why="${why:+$why; }not one line on stderr"
		[ ! -e "$tmp/cli-out" ] || why="${why:+$why; }it wrote $tmp/cli-out"
	fi
	if [ -z "$why" ]; then
		fwq_tap_result 0 "$n $name"
	else
		cat "$o" "$e" | sed 's/^/# /'
		fwq_tap_result 1 "$n $name" "$why" || :
	fi
}

cli help 0 "fwq-bench replay [--out DIR] RESULTS" none --help
n=$((n + 1))
if grep -qE -- '--(boots|kernels|preset|counts|count-reps)' "$tmp/help.out"; then
	fwq_tap_result 1 "$n help_local_only" "--help lists a QEMU option" || :
else
	fwq_tap_result 0 "$n help_local_only"
fi
cli list_not_loaded 1 "fwq is not loaded" none --list
cli list 0 "variants from fwq's debugfs variants" fake --list
# the same runs as the source tree's --list, which reads the registry
n=$((n + 1))
if "$FWQ_TOP/bench/fwq-bench.sh" --list | tail -n +2 |
   cmp -s - <(tail -n +2 "$tmp/list.out"); then
	fwq_tap_result 0 "$n list_as_registry"
else
	fwq_tap_result 1 "$n list_as_registry" "debugfs and registry lists differ" || :
fi
cli list_filtered 0 "wake=locked,kicked_list=off,flush=coalesce" fake \
	--list --scenario s4a --variant flush=coalesce --variant kwq
i=0
for bad in "unknown argument --bogus|--bogus" \
	"--reps needs a value|--reps" \
	"--reps needs a positive number|--reps 0" \
	"--redo needs a number, 0 to 5|--redo 6" \
	"--boots is make bench's|--boots enq" \
	"--kernels is make bench's|--kernels 6.1" \
	"--preset is make bench's|--preset small" \
	"--scenario needs a value|--scenario" \
	"the suite has no scenario|--scenario s9" \
	"no run of the suite has variant|--variant wake=nope" \
	"no run of the suite is both|--scenario s1 --variant flush=active" \
	"compare needs two results folders|compare $tmp" \
	"replay needs one results file|replay" \
	"replay: unknown option --bogus|replay --bogus x"; do
	i=$((i + 1))
	set -- --out "$tmp/cli-out"
	case ${bad#*|} in
	compare*|replay*) set -- ;;
	esac
	# shellcheck disable=SC2086 # the arguments, split
	cli "bad_args_$i" 2 "${bad%%|*}" fake "$@" ${bad#*|}
done
# a filtered run: the specs it wrote, and a result per spec
cli filtered_run 0 "bench finished" run --quick --scenario s4a \
	--variant flush=coalesce --variant kwq --out "$tmp/run"
n=$((n + 1))
specs=$(grep -v '^#' "$tmp/run/local.specs" 2>/dev/null)
if [ -n "$specs" ] &&
   ! printf '%s\n' "$specs" | grep -v '^scenario=s4a .*\(flush=coalesce\|target=kwq\)' |
	grep -q . &&
   [ "$(printf '%s\n' "$specs" | wc -l)" = "$(wc -l < "$tmp/run/results.jsonl")" ]; then
	fwq_tap_result 0 "$n filtered_run_specs"
else
	printf '%s\n' "$specs" | sed 's/^/# /'
	fwq_tap_result 1 "$n filtered_run_specs" "specs not all s4a coalesce/kwq, or a result missing" || :
fi
fwq_tap_summary
